package attemptlog

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// requestLog is a repository-mode log whose first attempt made a refused
// request and an answered one before its code.
func requestLog() *Log {
	l := repoLog()
	a := &l.Attempts[0]
	a.Requests = []Request{
		{
			Text: "### Request\nfile ../secrets.py\n", Items: []string{"file ../secrets.py"},
			Refused: "nothing it asked for can be shown", Notes: []string{"`file ../secrets.py`: outside the repository: give a path relative to its root, without .."},
			Reply:        "Your request was refused, and it used up nothing:\n- nothing it asked for can be shown\n- `file ../secrets.py`: outside the repository\n\nAnswer with code in the required format, or with a corrected request.",
			PromptTokens: 400, CompletionTokens: 8,
		},
		{
			Text: "### Request\nfile calc/ops.py\nsearch IndexErorr\n", Items: []string{"file calc/ops.py", "search IndexErorr"}, Number: 1,
			Notes:  []string{"`search IndexErorr`: no file the context may show holds \"IndexErorr\""},
			Reply:  "Request 1 of the 3 this job allows, answered from the repository as you were shown it:\n\n<issue-x>\n### calc/ops.py (the whole file, as you asked)\n```python\ndef add(a, b):\n    return a - b\n```\n</issue-x>",
			Tokens: 30, PromptTokens: 450, CompletionTokens: 12,
		},
	}
	return l
}

func TestRequestsMarkdown(t *testing.T) {
	l := requestLog()
	var b strings.Builder
	if err := l.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "requests.md"), b.String())
	if got := l.ModelCalls(); got != 4 {
		t.Errorf("ModelCalls() = %d, want 2 attempts and 2 requests", got)
	}

	// What a request got back is left out with the feedback, and the
	// attempt is named once.
	var trimmed strings.Builder
	omitted, err := l.WriteMarkdownWith(&trimmed, MarkdownOptions{Attempts: []AttemptTrim{{Feedback: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Omitted{Feedback: []int{0}}); !reflect.DeepEqual(omitted, want) {
		t.Errorf("omitted %+v, want %+v", omitted, want)
	}
	for _, s := range []string{"What request (refused) got back left out (5 lines).", "What request 1 got back left out (9 lines).", "Request 1 answered, 30 tokens of the repository"} {
		if !strings.Contains(trimmed.String(), s) {
			t.Errorf("no %q in:\n%s", s, trimmed.String())
		}
	}
	if strings.Contains(trimmed.String(), "def add(a, b)") {
		t.Errorf("the answer to the request was not left out:\n%s", trimmed.String())
	}

	data, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var back Log
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back.Attempts[0].Requests, l.Attempts[0].Requests) {
		t.Errorf("requests changed in a JSON round trip (%v):\n%+v", err, back.Attempts[0].Requests)
	}
}
