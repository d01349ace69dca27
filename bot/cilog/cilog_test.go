package cilog

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestExcerptOfAFailingJob(t *testing.T) {
	log, err := os.ReadFile("testdata/pytest-job.log")
	if err != nil {
		t.Fatal(err)
	}
	got := Excerpt(string(log), 4000)
	goldenfile.Check(t, "testdata/pytest-job.excerpt.txt", got, *update)
	for _, leak := range []string{"ghp_0123456789", "\x1b[", "2024-05-02T", "##[", "Syncing repository"} {
		if strings.Contains(got, leak) {
			t.Errorf("the excerpt holds %q", leak)
		}
	}
}

func TestExcerpt(t *testing.T) {
	long := "##[group]Run make test\n##[endgroup]\n"
	for i := range 1000 {
		long += fmt.Sprintf("line %04d of the output\n", i)
	}
	long += "##[error]Process completed with exit code 2.\n"
	for _, tc := range []struct {
		name, log string
		limit     int
		want      []string // in order
		not       []string
	}{
		{"no error marker: the last step", "##[group]Run a\nfirst\n##[group]Run b\nsecond\n", 1000,
			[]string{"### Run b\nsecond\n"}, []string{"first"}},
		{"two failing steps", "##[group]Run lint\nE501\n##[error]lint failed\n##[group]Run ok\nfine\n##[group]Run test\nboom\n##[error]tests failed\n", 3000,
			[]string{"### Run lint\nE501\nError: lint failed\n", "### Run test\nboom\nError: tests failed\n"}, []string{"fine"}},
		{"a long step keeps its end", long, 300,
			[]string{"### Run make test\n[... ", " earlier lines cut ...]\n", "line 0999 of the output\nError: Process completed with exit code 2.\n"}, []string{"line 0000"}},
		{"one line longer than the limit", "##[group]Run x\n" + strings.Repeat("y", 500) + "END\n##[error]failed\n", 100,
			[]string{"### Run x\n[... 1 earlier lines cut ...]\n", "failed\n"}, nil},
		{"a private key over several lines", "##[group]Run deploy\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\nAoGCCqGSM49\n-----END EC PRIVATE KEY-----\n##[error]denied\n", 1000,
			[]string{"### Run deploy\n[redacted]\nError: denied\n"}, []string{"MHcC", "AoGC"}},
		{"a private key cut by the limit", "##[group]Run deploy\n-----BEGIN EC PRIVATE KEY-----\n" + strings.Repeat("MHcCAQEEIBkey\n", 50) + "-----END EC PRIVATE KEY-----\n##[error]denied\n", 100,
			[]string{"[redacted]\nError: denied\n"}, []string{"MHcC"}},
		{"more failing steps than room", strings.Repeat("##[group]Run x\nout\n##[error]bad\n", 10000), 4000,
			[]string{"### Run x\nout\nError: bad\n", "[... 9997 more failing steps ...]\n"}, nil},
		{"a long step title", "##[group]Run " + strings.Repeat("t", 5000) + "\nout\n##[error]bad\n", 2000,
			[]string{"### Run ttt", "...\nout\nError: bad\n"}, nil},
		{"windows line ends", "##[group]Run a\r\nout\r\n##[error]bad\r\n", 1000,
			[]string{"### Run a\nout\nError: bad\n"}, []string{"\r"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Excerpt(tc.log, tc.limit)
			if len(got) > tc.limit {
				t.Errorf("%d bytes, over the limit of %d", len(got), tc.limit)
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("missing %q (in order) in\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("holds %q:\n%s", n, got)
				}
			}
		})
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB used", "token [redacted] used"},
		{"ghs_16C7e42F292c6912E7710c838347Ae178B4a and gho_16C7e42F292c6912E7710c838347Ae178B4a", "[redacted] and [redacted]"},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[redacted]"},
		{"AWS AKIAIOSFODNN7EXAMPLE here", "AWS [redacted] here"},
		{"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345", "OPENAI_API_KEY=[redacted]"},
		{"slack xoxb-1234567890-abcdefghij", "slack [redacted]"},
		{"jwt eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiIxMjM0NTYifQ.c2lnbmF0dXJlLXZhbHVl end", "jwt [redacted] end"},
		{"git clone https://x-access-token:abc123def456@github.com/o/r", "git clone https://[redacted]@github.com/o/r"},
		{"Authorization: Bearer abc.def.ghi", "Authorization: Bearer [redacted]"},
		{"authorization: token 0123456789abcdef", "authorization: token [redacted]"},
		{`DB_PASSWORD="hunter22hunter22"`, `DB_PASSWORD=[redacted]`},
		{`{"api_key": "0123456789abcdef"}`, `{"api_key": [redacted]}`},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\nafter", "[redacted]\nafter"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\ncut off by the runner", "[redacted]"},
		// Kept: code and values that only look a little like secrets.
		{`api_key = os.environ["API_KEY"]`, `api_key = os.environ["API_KEY"]`},
		{"token = tokenize(text)", "token = tokenize(text)"},
		{"password: ***", "password: ***"},
		{"commit 3484a3fb816e0859fd6e1cea078d76385ff50625", "commit 3484a3fb816e0859fd6e1cea078d76385ff50625"},
		{"https://github.com/o/r/actions/runs/1", "https://github.com/o/r/actions/runs/1"},
		{"E   assert mean([]) == 0", "E   assert mean([]) == 0"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func BenchmarkExcerpt(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("##[group]Run pytest\n")
	for i := range 100_000 {
		fmt.Fprintf(&sb, "2024-05-02T10:00:12.0000000Z tests/test_%d.py::test_x PASSED token=abcdefgh%d\n", i, i)
	}
	sb.WriteString("##[error]Process completed with exit code 1.\n")
	log := sb.String()
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		Excerpt(log, 16<<10)
	}
}
