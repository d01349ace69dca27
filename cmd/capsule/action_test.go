package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/internal/calculatortest"
	"github.com/capsulehq/capsule/internal/fakegithub"
	"github.com/capsulehq/capsule/internal/fakeopenai"
	"github.com/capsulehq/capsule/internal/sandboxtest"
	"github.com/capsulehq/capsule/internal/webhooktest"
)

// actionWorld sets up the environment a workflow step sees: the event
// file, the inputs, the output files, a fake GitHub and a scripted model.
type actionWorld struct {
	gh             *fakegithub.Server
	repo           *fakegithub.Repo
	model          *fakeopenai.Server
	workspace      string
	output, summar string
}

func newActionWorld(t *testing.T, script fakeopenai.Script, config string) *actionWorld {
	t.Helper()
	w := &actionWorld{}
	w.gh = fakegithub.New(t, fakegithub.WithToken("ghs_workflow"), fakegithub.WithPrefix("/api/v3"))
	files := calculatortest.Files(t)
	if config != "" {
		files[".github/capsule.yml"] = config
	}
	w.repo = w.gh.AddRepo("octo", "calculator", files)
	w.repo.AddIssue(5, "alice", calculatortest.IssueTitle, calculatortest.IssueBody)
	w.gh.SetPermission("octo", "calculator", "alice", "write")
	w.gh.SetPermission("octo", "calculator", "tom", "read")
	w.model = fakeopenai.New(t, script, fakeopenai.WithModels("m"))

	dir := t.TempDir()
	w.workspace = filepath.Join(dir, "workspace")
	os.Mkdir(w.workspace, 0o755)
	w.output, w.summar = filepath.Join(dir, "output"), filepath.Join(dir, "summary")
	for name, value := range map[string]string{
		"GITHUB_API_URL": w.gh.URL(), "GITHUB_WORKSPACE": w.workspace, "GITHUB_SHA": "",
		"GITHUB_OUTPUT": w.output, "GITHUB_STEP_SUMMARY": w.summar,
		"GITHUB_SERVER_URL": "https://github.example", "GITHUB_REPOSITORY": "octo/calculator", "GITHUB_RUN_ID": "99",
		"INPUT_GITHUB-TOKEN": "ghs_workflow", "INPUT_MODEL": "m", "INPUT_BASE-URL": w.model.URL(), "INPUT_API-KEY": "k",
		"INPUT_LABEL": "capsule", "INPUT_APP-ID": "", "INPUT_APP-PRIVATE-KEY": "", "INPUT_MAX-ATTEMPTS": "", "INPUT_CONFIG": "",
	} {
		t.Setenv(name, value)
	}
	return w
}

// event writes a labelled-issue event by sender with label.
func (w *actionWorld) event(t *testing.T, sender, label string) {
	body := webhooktest.Payload(t, "issues__labeled.payload.json", func(m map[string]any) {
		webhooktest.Retarget(m, "octo", "calculator", 5, sender, 0)
		webhooktest.Object(m, "label")["name"] = label
	})
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_EVENT_NAME", "issues")
	t.Setenv("GITHUB_EVENT_PATH", path)
}

func readFile(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestActionOpensPullRequest(t *testing.T) {
	sandboxtest.Engine(t)
	for _, checkout := range []bool{false, true} {
		name := map[bool]string{false: "tree from the API", true: "workspace checkout"}[checkout]
		t.Run(name, func(t *testing.T) {
			w := newActionWorld(t, fakeopenai.Sequence(
				fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)),
				fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats))), "")
			if checkout {
				for path, content := range calculatortest.Files(t) {
					p := filepath.Join(w.workspace, filepath.FromSlash(path))
					os.MkdirAll(filepath.Dir(p), 0o755)
					os.WriteFile(p, []byte(content), 0o644)
				}
				os.Mkdir(filepath.Join(w.workspace, ".git"), 0o755)
				head, _ := w.repo.Commit("main")
				t.Setenv("GITHUB_SHA", head.SHA)
			}
			w.event(t, "alice", "capsule")
			code, stdout, stderr := capsule(t, "action")
			if code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			prs := w.repo.PullRequests()
			if len(prs) != 1 || prs[0].Draft {
				t.Fatalf("pull requests = %+v, want one ready", prs)
			}
			outputs := readFile(t, w.output)
			for _, want := range []string{"solved=true\n", "outcome=solved\n", "attempts=2\n", "model-calls=2\n", "pull-request-url=http"} {
				if !strings.Contains(outputs, want) {
					t.Errorf("outputs lack %q:\n%s", want, outputs)
				}
			}
			for _, want := range []string{"::group::Sandbox image", "::group::Attempt 0 of 5 (generate): tests fail", "::group::Attempt 1 of 5 (fix): tests pass", "::endgroup::"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("log lacks %q:\n%s", want, stdout)
				}
			}
			if summary := readFile(t, w.summar); !strings.Contains(summary, "| attempt |") && !strings.Contains(summary, "| Attempt |") {
				t.Errorf("step summary has no attempt table:\n%s", summary)
			}
			for _, f := range []string{"attempts.json", "attempts.md", "patch.diff"} {
				if _, err := os.Stat(filepath.Join(w.workspace, actionLogDir, f)); err != nil {
					t.Errorf("attempt log file: %v", err)
				}
			}
			fetched := false
			for _, r := range w.gh.Requests() {
				fetched = fetched || strings.Contains(r.Path, "/tarball/")
			}
			if fetched == checkout {
				t.Errorf("tarball fetched: %v, with a checkout: %v", fetched, checkout)
			}
			if status := w.repo.Comments(5); len(status) != 1 || !strings.Contains(status[0].Body, "https://github.example/octo/calculator/actions/runs/99") {
				t.Errorf("status comment does not link the run: %+v", status)
			}
		})
	}
}

func TestActionSkipsAndFails(t *testing.T) {
	sandboxtest.Engine(t)
	never := fakeopenai.Sequence(fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)))
	tests := []struct {
		name, sender, label, config string
		code                        int
		output                      string
	}{
		{"other label", "alice", "bug", "", exitOK, "nothing to do: label \"bug\" is not the trigger label"},
		{"bot sender", "renovate[bot]", "capsule", "", exitOK, "nothing to do"},
		{"no permission", "tom", "capsule", "", exitOK, "tom has read permission; write is needed"},
		{"not solved, comment only", "alice", "capsule", "max_attempts: 1\non_failure: comment\n", exitFailure, "::error::no attempt passed the tests"},
		{"not solved, draft", "alice", "capsule", "max_attempts: 1\n", exitOK, "::warning::the tests do not pass; draft pull request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newActionWorld(t, never, tt.config)
			w.event(t, tt.sender, tt.label)
			code, stdout, stderr := capsule(t, "action")
			if code != tt.code || !strings.Contains(stdout+stderr, tt.output) {
				t.Errorf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tt.code, tt.output, stdout, stderr)
			}
			if !strings.Contains(readFile(t, w.output), "solved=false\n") {
				t.Errorf("outputs do not say solved=false")
			}
		})
	}
}

// TestActionOtherLabelNeedsNoModel: an event for another label ends the
// step with 0 before the model's settings (here invalid) or the engine
// (here missing) are touched, whether the label comes from the input or
// from the repository's configuration.
func TestActionOtherLabelNeedsNoModel(t *testing.T) {
	for _, input := range []string{"capsule", ""} {
		t.Run("label input "+strconv.Quote(input), func(t *testing.T) {
			w := newActionWorld(t, fakeopenai.Sequence(fakeopenai.Reply("")), "label: fix-me\n")
			w.event(t, "alice", "bug")
			t.Setenv("INPUT_LABEL", input)
			t.Setenv("INPUT_MODEL", "")
			t.Setenv("INPUT_BASE-URL", "::not a url")
			t.Setenv("OPENAI_BASE_URL", "")
			t.Setenv("CAPSULE_MODEL", "")
			t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
			code, stdout, stderr := capsule(t, "action")
			if code != exitOK || !strings.Contains(stdout, `nothing to do: label "bug" is not the trigger label`) {
				t.Errorf("exit %d, want 0 and nothing to do\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if n := len(w.model.Requests()); n != 0 {
				t.Errorf("%d model requests, want none", n)
			}
		})
	}
}

func TestActionSettingsErrors(t *testing.T) {
	w := newActionWorld(t, fakeopenai.Sequence(fakeopenai.Reply("")), "")
	w.event(t, "alice", "capsule")
	tests := []struct {
		name string
		env  map[string]string
		code int
		want string
	}{
		{"no event", map[string]string{"GITHUB_EVENT_PATH": ""}, exitUsage, "run this as a step of a workflow"},
		{"no token", map[string]string{"INPUT_GITHUB-TOKEN": ""}, exitUsage, "no token"},
		{"app id alone", map[string]string{"INPUT_APP-ID": "12"}, exitUsage, "go together"},
		{"bad attempts", map[string]string{"INPUT_MAX-ATTEMPTS": "many"}, exitUsage, "max-attempts"},
		{"no engine", map[string]string{"DOCKER_HOST": "unix:///nonexistent/docker.sock"}, exitInfra, "the runner's Docker engine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			code, stdout, stderr := capsule(t, "action")
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) || !strings.Contains(stdout, "::error::") {
				t.Errorf("exit %d, want %d with %q and an ::error:: line\nstdout:\n%s\nstderr:\n%s", code, tt.code, tt.want, stdout, stderr)
			}
		})
	}
}
