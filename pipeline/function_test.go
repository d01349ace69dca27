package pipeline_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
	"github.com/sashabaranov/go-openai"
)

// addTask is a HumanEval-style task.
var addTask = pipeline.FunctionTask{
	ID:         "Test/0",
	Prompt:     "def add(a: int, b: int) -> int:\n    \"\"\"Return the sum of a and b.\"\"\"\n",
	EntryPoint: "add",
	Tests:      "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == 0\n",
}

func answer(code string) string {
	return "The function adds its arguments.\n\n### Requirements\nNone\n\n### Code\n```python\n" + code + "```\n"
}

const (
	rightAdd = "def add(a, b):\n    return a + b\n"
	wrongAdd = "def add(a, b):\n    return a - b\n"
)

// setup returns a client for the scripted model and a warm sandbox session.
func setup(t *testing.T, script fakeopenai.Script) (*fakeopenai.Server, *programmer.Client, *sandbox.Session) {
	t.Helper()
	eng := sandboxtest.Engine(t)
	box, err := eng.NewSession(context.Background(), sandboxtest.Spec(""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	srv := fakeopenai.New(t, script)
	client, err := programmer.New(programmer.Config{BaseURL: srv.URL(), Model: "fake", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return srv, client, box
}

func solve(t *testing.T, script fakeopenai.Script, task pipeline.FunctionTask, tune func(*pipeline.Settings)) (*fakeopenai.Server, *pipelineLog) {
	t.Helper()
	srv, client, box := setup(t, script)
	s := pipeline.DefaultSettings()
	s.TestCPU = 3 * time.Second
	if tune != nil {
		tune(&s)
	}
	log, err := pipeline.SolveFunction(context.Background(), client, box, task, s)
	if err != nil {
		t.Fatalf("SolveFunction: %v", err)
	}
	return srv, &pipelineLog{log}
}

func TestSolveFunction(t *testing.T) {
	tests := []struct {
		name      string
		answers   []string
		task      pipeline.FunctionTask
		solved    bool
		index     int
		calls     int
		feedbacks []string // expected in the feedback of attempts 0, 1, ...
	}{
		{name: "right first time", answers: []string{answer(rightAdd)}, task: addTask, solved: true, index: 0, calls: 1},
		{name: "wrong then right", answers: []string{answer(wrongAdd), answer(rightAdd)}, task: addTask, solved: true, index: 1, calls: 2,
			feedbacks: []string{"assert add(2, 3) == 5"}},
		{name: "no code then right", answers: []string{"I think you should add them.", answer(rightAdd)}, task: addTask, solved: true, index: 1, calls: 2,
			feedbacks: []string{"### Code"}},
		{name: "infinite loop then right", answers: []string{answer("def add(a, b):\n    while True:\n        pass\n"), answer(rightAdd)}, task: addTask, solved: true, index: 1, calls: 2,
			feedbacks: []string{"CPU-time limit of 3 seconds"}},
		{name: "oversized answer then right", answers: []string{answer("# " + strings.Repeat("x", programmer.DefaultMaxAnswerBytes) + "\n" + rightAdd), answer(rightAdd)}, task: addTask, solved: true, index: 1, calls: 2,
			feedbacks: []string{"longer than 4 MiB, the most that is read, so none of it was used. Answer again with only the code of the function."}},
		{name: "example calls removed", answers: []string{answer(rightAdd + "\nprint(add(1, 2))\nx = input()\nif __name__ == '__main__':\n    add(3, 4)\n")}, task: addTask, solved: true, index: 0, calls: 1},
		{name: "never right", answers: []string{answer(wrongAdd)}, task: addTask, solved: false, index: -1, calls: 6},
		{name: "mbpp style with derived signature", answers: []string{answer("def remove_Occ(s, ch):\n    return s.replace(ch, '')\n")},
			task: pipeline.FunctionTask{ID: "Mbpp/11", Prompt: "Write a python function to remove all occurrences of a character from a string.", EntryPoint: "remove_Occ",
				Tests: "assert remove_Occ(\"hello\",\"l\") == \"heo\"\nassert remove_Occ(\"abcda\",\"a\") == \"bcd\"\n"},
			solved: true, index: 0, calls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var replies []fakeopenai.Response
			for _, a := range tt.answers {
				replies = append(replies, fakeopenai.Reply(a))
			}
			srv, log := solve(t, fakeopenai.Sequence(replies...), tt.task, nil)
			if log.Solved != tt.solved || log.AttemptIndex != tt.index || log.ModelCalls() != tt.calls || len(srv.Requests()) != tt.calls {
				t.Fatalf("solved %v at %d with %d calls (server saw %d); want %v at %d with %d\n%s",
					log.Solved, log.AttemptIndex, log.ModelCalls(), len(srv.Requests()), tt.solved, tt.index, tt.calls, log.dump())
			}
			for i, want := range tt.feedbacks {
				if !strings.Contains(log.Attempts[i].Feedback, want) {
					t.Errorf("feedback of attempt %d lacks %q:\n%s", i, want, log.Attempts[i].Feedback)
				}
			}
		})
	}
}

// TestFixRequestCarriesContext checks what a fix call sends: the original
// task, the previous code and the failing test with the function's name.
func TestFixRequestCarriesContext(t *testing.T) {
	srv, _ := solve(t, fakeopenai.Sequence(fakeopenai.Reply(answer(wrongAdd)), fakeopenai.Reply(answer(rightAdd))), addTask, nil)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	fix := allContent(reqs[1])
	for _, want := range []string{"Return the sum of a and b.", "return a - b", "assert add(2, 3) == 5"} {
		if !strings.Contains(fix, want) {
			t.Errorf("fix request lacks %q:\n%s", want, fix)
		}
	}
	if strings.Contains(fix, "candidate(") {
		t.Errorf("fix request shows `candidate` instead of the function's name")
	}
}

func TestHistoryRetention(t *testing.T) {
	wrong := func(n int) string { return answer("def add(a, b):\n    return a - b + " + string(rune('0'+n)) + "\n") }
	replies := []fakeopenai.Response{}
	for i := 0; i < 6; i++ {
		replies = append(replies, fakeopenai.Reply(wrong(i)))
	}
	srv, _ := solve(t, fakeopenai.Sequence(replies...), addTask, func(s *pipeline.Settings) { s.History = 1 })
	reqs := srv.Requests()
	last := allContent(reqs[5]) // the fifth fix: retains fix 4's code and, with history 1, fix 3's
	for i, want := range map[int]bool{0: false, 1: false, 2: false, 3: true, 4: true} {
		if got := strings.Contains(last, "return a - b + "+string(rune('0'+i))); got != want {
			t.Errorf("last fix call shows attempt %d's code: %v, want %v", i, got, want)
		}
	}
	if !strings.Contains(last, "Return the sum of a and b.") {
		t.Error("the original task was dropped")
	}
}

func TestRawFeedbackIsLonger(t *testing.T) {
	script := func() fakeopenai.Script {
		return fakeopenai.Sequence(fakeopenai.Reply(answer(wrongAdd)), fakeopenai.Reply(answer(rightAdd)))
	}
	_, refined := solve(t, script(), addTask, nil)
	_, raw := solve(t, script(), addTask, func(s *pipeline.Settings) { s.Feedback = pipeline.FeedbackRaw })
	if refined.Attempts[0].FeedbackKind != "assertion" || raw.Attempts[0].FeedbackKind != "raw" {
		t.Errorf("kinds %q and %q", refined.Attempts[0].FeedbackKind, raw.Attempts[0].FeedbackKind)
	}
	if !strings.Contains(raw.Attempts[0].Feedback, "Traceback") {
		t.Errorf("raw feedback lacks the traceback:\n%s", raw.Attempts[0].Feedback)
	}
}

func TestModelFailureIsAnError(t *testing.T) {
	_, client, box := setup(t, fakeopenai.Sequence(fakeopenai.Error(401, "bad key")))
	log, err := pipeline.SolveFunction(context.Background(), client, box, addTask, pipeline.DefaultSettings())
	if err == nil || !pipeline.IsInfrastructure(err) || log == nil || len(log.Attempts) != 0 {
		t.Fatalf("SolveFunction = %v, %v; want an infrastructure error", log, err)
	}
}

func allContent(req openai.ChatCompletionRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}
