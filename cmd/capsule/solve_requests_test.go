package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// TestSolveAsksForAFile: the scripted model first asks to see a file,
// then answers right; capsule solve answers the request from the
// repository, inside the issue's boundary, and the issue is solved in
// one attempt, with the request and what it got back in attempts.md and
// its call counted.
func TestSolveAsksForAFile(t *testing.T) {
	sandboxtest.Engine(t)
	repo := exampleRepo(t, "")
	r := solveWith(t, repo, []string{
		"Where does the division happen?\n\n### Request\nfile calc/ops.py\n",
		calculatortest.Answer("calc/stats.py", calculatortest.RightStats),
	})
	if r.code != exitOK {
		t.Fatalf("exit %d, want 0 (solved)\n%s", r.code, r.stderr)
	}
	reqs := r.server.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want the request's and the code's", len(reqs))
	}
	if !strings.Contains(reqs[0].Messages[0].Content, "### Request\nfile calc/stats.py 40-90") {
		t.Errorf("the system prompt does not teach requests:\n%s", reqs[0].Messages[0].Content)
	}
	ops, err := os.ReadFile(filepath.Join(repo, "calc", "ops.py"))
	if err != nil {
		t.Fatal(err)
	}
	msgs := reqs[1].Messages
	reply := msgs[len(msgs)-1].Content
	tag := issueTag(t, reqs[0].Messages[1].Content)
	_, after, opened := strings.Cut(reply, "<"+tag+">\n")
	inside, _, closed := strings.Cut(after, "\n</"+tag+">")
	if !opened || !closed || !strings.HasPrefix(reply, "Request 1 of the 3 this job allows") || !strings.Contains(inside, "```python\n"+string(ops)+"```") {
		t.Errorf("the reply does not hold calc/ops.py exactly, inside the issue's boundary <%s>:\n%s", tag, reply)
	}
	md := readOut(t, r.out, attemptsMDFile)
	for _, want := range []string{"**Solved** at attempt 0", "2 model calls", "Request 1 answered", "`file calc/ops.py`", "What the request got back:", "def divide("} {
		if !strings.Contains(md, want) {
			t.Errorf("attempts.md lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(r.stderr, "attempt 0 of 5: 1 request answered; fixed") {
		t.Errorf("the progress line does not mention the request:\n%s", r.stderr)
	}
}

// TestSolveRefusesRequests: with the operator's maximum at one request,
// a request outside the repository and one for a secret file are refused
// with a clear note and use up nothing (the attempt goes on, and the
// job's one request is still answered in the next attempt); a request
// beyond the maximum is refused too, and the model then answers right.
func TestSolveRefusesRequests(t *testing.T) {
	sandboxtest.Engine(t)
	t.Setenv("CAPSULE_MAX_REQUESTS", "1")
	repo := exampleRepo(t, "")
	if err := os.WriteFile(filepath.Join(repo, ".env"), []byte("API_KEY=hunter2-in-env\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(repo), "outside.py"), []byte("PASSWORD = 'hunter2-outside'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wrong := calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)
	r := solveWith(t, repo, []string{
		"### Request\nfile ../outside.py\n",    // attempt 0: refused, outside
		"### Request\nfile .env\n",             // refused, a secret
		wrong,                                  // attempt 0's code: fails
		"### Request\nfile calc/ops.py\n",      // attempt 1: answered, the job's one request
		wrong,                                  // attempt 1's code: fails
		"### Request\nfile calc/__init__.py\n", // attempt 2: refused, beyond the maximum
		calculatortest.Answer("calc/stats.py", calculatortest.RightStats),
	})
	if r.code != exitOK {
		t.Fatalf("exit %d, want 0 (solved)\n%s", r.code, r.stderr)
	}
	reqs := r.server.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d model calls, want 7", len(reqs))
	}
	// What the model got back after its i-th answer is the last message of
	// call i+1.
	told := func(i int) string { m := reqs[i+1].Messages; return m[len(m)-1].Content }
	for _, c := range []struct {
		call int
		want []string
	}{
		{0, []string{"Your request was refused, and it used up nothing", "`file ../outside.py`: outside the repository", "or with a corrected request"}},
		{1, []string{"Your request was refused, and it used up nothing", "`file .env`: secret"}},
		{3, []string{"Request 1 of the 1 this job allows", "def divide("}},
		{5, []string{"Your request was refused, and it used up nothing", "this job answers at most 1 request, and none is left", "Answer with code in the required format."}},
	} {
		for _, w := range c.want {
			if !strings.Contains(told(c.call), w) {
				t.Errorf("after answer %d the model was told:\n%s\nwant %q", c.call, told(c.call), w)
			}
		}
	}
	for i, req := range reqs {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "hunter2-in-env") || strings.Contains(m.Content, "hunter2-outside") {
				t.Fatalf("call %d carries a secret:\n%s", i, m.Content)
			}
		}
	}
	md := readOut(t, r.out, attemptsMDFile)
	for _, want := range []string{"**Solved** at attempt 2 (fix 2)", "7 model calls", "Request refused, using up nothing", "`file ../outside.py`", "`file .env`",
		"Request 1 answered", "this job answers at most 1 request, and none is left"} {
		if !strings.Contains(md, want) {
			t.Errorf("attempts.md lacks %q:\n%s", want, md)
		}
	}
}

// issueTag finds the boundary's tag in the task message.
func issueTag(t *testing.T, task string) string {
	t.Helper()
	i := strings.Index(task, "<issue-")
	if i < 0 {
		t.Fatalf("no boundary in the task:\n%s", task)
	}
	tag, _, _ := strings.Cut(task[i+1:], ">")
	return tag
}
