package repo

import (
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/untrusted"
	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// scripted is a model answering from a list, one answer a call, and
// recording the messages of each call.
type scripted struct {
	answers []string
	calls   [][]chat.Message
}

func (m *scripted) Complete(_ context.Context, msgs []chat.Message) (programmer.Reply, error) {
	m.calls = append(m.calls, msgs)
	a := m.answers[min(len(m.calls), len(m.answers))-1]
	return programmer.Reply{Content: a, PromptTokens: 100, CompletionTokens: 10, Duration: time.Second}, nil
}

// askRepo is a small repository with a secret file, and one beside it.
func askRepo(t *testing.T) string {
	t.Helper()
	root := writeTree(t, map[string]string{
		"repo/calc/stats.py":       "from calc.ops import divide\n\n\ndef mean(values):\n    return divide(sum(values), len(values))\n",
		"repo/calc/ops.py":         "def divide(a, b):\n    if b == 0:\n        raise ValueError('cannot divide by zero')\n    return a / b\n",
		"repo/tests/test_stats.py": "from calc.stats import mean\n\n\ndef test_mean():\n    assert mean([1, 3]) == 2\n",
		"repo/.env":                "API_KEY=hunter2\n",
		"outside.py":               "PASSWORD = 'hunter2'\n",
	})
	return filepath.Join(root, "repo")
}

const codeAnswer = "### File: calc/stats.py\n```python\n<<<<<<< SEARCH\ndef mean(values):\n=======\ndef mean(values):\n    if not values:\n        return 0.0\n>>>>>>> REPLACE\n```\n"

// TestAsk: how an attempt's requests are answered or refused, what each
// uses up, and what the model is told.
func TestAsk(t *testing.T) {
	tests := []struct {
		name    string
		max     int
		used    int // requests answered earlier in the job
		answers []string
		calls   int
		// refused are substrings of each request's refusal, "" for an
		// answered request.
		refused []string
		// told is in the message answering the first request.
		told  string
		used2 int // requests answered after the attempt
	}{
		{name: "a file, then code", max: 3, answers: []string{"### Request\nfile calc/ops.py\n", codeAnswer}, calls: 2, refused: []string{""},
			told: "raise ValueError('cannot divide by zero')", used2: 1},
		{name: "a definition and a search", max: 3, answers: []string{"### Request\ndefinition divide\nsearch by zero\n", codeAnswer}, calls: 2, refused: []string{""},
			told: "Lines 1-4 (defines divide)", used2: 1},
		{name: "a second request in the attempt", max: 3, answers: []string{"### Request\nfile calc/ops.py\n", "### Request\nfile tests/test_stats.py\n", codeAnswer}, calls: 3,
			refused: []string{"", "one request is answered before each answer with code"}, used2: 1},
		{name: "beyond the maximum", max: 2, used: 2, answers: []string{"### Request\nfile calc/ops.py\n", codeAnswer}, calls: 2,
			refused: []string{"this job answers at most 2 requests, and none is left"}, told: "Answer with code in the required format.", used2: 2},
		{name: "outside the repository", max: 3, answers: []string{"### Request\nfile ../outside.py\n", codeAnswer}, calls: 2,
			refused: []string{"nothing it asked for can be shown"}, told: "`file ../outside.py`: outside the repository"},
		{name: "a secret file", max: 3, answers: []string{"### Request\nfile .env\nsearch hunter2\n", codeAnswer}, calls: 2,
			refused: []string{"nothing it asked for can be shown"}, told: "`file .env`: secret"},
		{name: "malformed", max: 3, answers: []string{"### Request\nI want to see how division works\n", codeAnswer}, calls: 2,
			refused: []string{"no item could be read"}, told: "or with a corrected request"},
		{name: "refused, then answered", max: 1, answers: []string{"### Request\nfile ../outside.py\n", "### Request\nfile calc/ops.py\n", codeAnswer}, calls: 3,
			refused: []string{"nothing it asked for", ""}, used2: 1},
		{name: "partly refused", max: 3, answers: []string{"### Request\nfile calc/ops.py\nfile /etc/passwd\n", codeAnswer}, calls: 2, refused: []string{""},
			told: "`file /etc/passwd`: outside the repository", used2: 1},
		{name: "refusals run out", max: 3, answers: []string{"### Request\nfile ../a\n", "### Request\nfile ../b\n", "### Request\nfile ../c\n"}, calls: 3,
			refused: []string{"nothing", "nothing"}},
		{name: "requests off", max: 0, answers: []string{"### Request\nfile calc/ops.py\n"}, calls: 1},
		{name: "code and a request is code", max: 3, answers: []string{"### Request\nfile calc/ops.py\n\n" + codeAnswer}, calls: 1},
	}
	b, err := untrusted.NewBoundary(strings.NewReader("0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := Plan{Task: Task{Dir: askRepo(t)}, MaxRequests: tt.max}
			conv := programmer.NewConversation(programmer.KindRepo, "task", 1)
			k, err := newAsker(plan, conv, b)
			if err != nil {
				t.Fatal(err)
			}
			defer k.close()
			k.used = tt.used
			m := &scripted{answers: tt.answers}
			a, reply, ok, err := k.ask(context.Background(), m, conv.GenerationMessages())
			if err != nil || !ok {
				t.Fatalf("ask: %v, %v", ok, err)
			}
			if len(m.calls) != tt.calls || reply.Content != tt.answers[tt.calls-1] {
				t.Fatalf("%d calls, ending with %q; want %d", len(m.calls), reply.Content, tt.calls)
			}
			if len(a.Requests) != len(tt.refused) {
				t.Fatalf("%d requests recorded, want %d: %+v", len(a.Requests), len(tt.refused), a.Requests)
			}
			for i, want := range tt.refused {
				r := a.Requests[i]
				if want == "" && (r.Refused != "" || r.Number == 0) || want != "" && (!strings.Contains(r.Refused, want) || r.Number != 0) {
					t.Errorf("request %d: refused %q, number %d; want refused for %q", i, r.Refused, r.Number, want)
				}
				// The model's next call ends with what the request got back.
				if next := m.calls[i+1]; next[len(next)-1].Content != r.Reply || next[len(next)-2].Content != strings.TrimSpace(r.Text) {
					t.Errorf("call %d does not end with request %d and its reply", i+1, i)
				}
			}
			if tt.told != "" && !strings.Contains(a.Requests[0].Reply, tt.told) {
				t.Errorf("the model was told:\n%s\nwant it to hold %q", a.Requests[0].Reply, tt.told)
			}
			if k.used != tt.used2 {
				t.Errorf("%d requests answered in the job, want %d", k.used, tt.used2)
			}
			if a.PromptTokens != 100*tt.calls || a.CompletionTokens != 10*tt.calls || a.ModelDuration != time.Duration(tt.calls)*time.Second {
				t.Errorf("tokens %d/%d in %s, want every call's", a.PromptTokens, a.CompletionTokens, a.ModelDuration)
			}
			for _, call := range m.calls {
				for _, msg := range call {
					if strings.Contains(msg.Content, "API_KEY=hunter2") || strings.Contains(msg.Content, "PASSWORD = 'hunter2'") {
						t.Fatalf("a secret reached the model:\n%s", msg.Content)
					}
				}
			}
			if on := strings.Contains(m.calls[0][0].Content, "### Request"); on != (tt.max > 0) {
				t.Errorf("the system prompt teaches requests: %v, with a maximum of %d", on, tt.max)
			}
		})
	}
}

// TestAskReplyGolden pins what the model gets back for a request: the
// files as the context renders them, inside the boundary, with
// the notes on what was not shown.
func TestAskReplyGolden(t *testing.T) {
	b, err := untrusted.NewBoundary(strings.NewReader("0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	conv := programmer.NewConversation(programmer.KindRepo, "task", 1)
	k, err := newAsker(Plan{Task: Task{Dir: askRepo(t)}, MaxRequests: 3}, conv, b)
	if err != nil {
		t.Fatal(err)
	}
	defer k.close()
	m := &scripted{answers: []string{"### Request\nfile calc/stats.py\ndefinition divide\nsearch mean(\nfile .env\nfile calc/ops.py 9-12\n", codeAnswer}}
	a, _, _, err := k.ask(context.Background(), m, conv.GenerationMessages())
	if err != nil || len(a.Requests) != 1 {
		t.Fatalf("ask: %v, %+v", err, a.Requests)
	}
	goldenfile.Check(t, filepath.Join("testdata", "request_reply.golden"), a.Requests[0].Reply+"\n", *update)
}
