package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The contract between action.yml, `capsule action`, the example workflow
// users copy and the README.
var (
	actionYAMLInputs = map[string]string{ // name: default ("" for none)
		"label":           "capsule",
		"model":           "",
		"base-url":        "",
		"api-key":         "",
		"github-token":    "${{ github.token }}",
		"app-id":          "",
		"app-private-key": "",
		"max-attempts":    "",
		"config":          "",
		"setup-secrets":   "",
	}
	actionYAMLOutputs = []string{"solved", "outcome", "attempts", "model-calls", "pull-request-url", "tokens", "cost"}
	// The directory in the workspace the action writes the attempt log to.
	workflowLogDir = "capsule-attempts"
)

// actionMetadata is action.yml; every key GitHub accepts for a Docker
// action is here, so a misspelt one fails to decode.
type actionMetadata struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description        string  `yaml:"description"`
		Required           bool    `yaml:"required"`
		Default            *string `yaml:"default"`
		DeprecationMessage string  `yaml:"deprecationMessage"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
	} `yaml:"outputs"`
	Runs struct {
		Using          string            `yaml:"using"`
		Image          string            `yaml:"image"`
		Args           []string          `yaml:"args"`
		Env            map[string]string `yaml:"env"`
		Entrypoint     string            `yaml:"entrypoint"`
		PreEntrypoint  string            `yaml:"pre-entrypoint"`
		PostEntrypoint string            `yaml:"post-entrypoint"`
	} `yaml:"runs"`
}

type workflowStep struct {
	Name string            `yaml:"name"`
	ID   string            `yaml:"id"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	If   string            `yaml:"if"`
	With map[string]string `yaml:"with"`
}

type workflowJob struct {
	Name   string         `yaml:"name"`
	If     string         `yaml:"if"`
	RunsOn string         `yaml:"runs-on"`
	Steps  []workflowStep `yaml:"steps"`
}

type workflowFile struct {
	Name string `yaml:"name"`
	On   map[string]*struct {
		Types     []string `yaml:"types"`
		Workflows []string `yaml:"workflows"`
		Branches  []string `yaml:"branches"`
	} `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Concurrency struct {
		Group            string `yaml:"group"`
		CancelInProgress any    `yaml:"cancel-in-progress"`
	} `yaml:"concurrency"`
	Jobs map[string]workflowJob `yaml:"jobs"`
}

func decodeYAML(t *testing.T, name string, strict bool, out any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoDir, name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(strict)
	if err := dec.Decode(out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestActionMetadata checks action.yml against the documented inputs and
// outputs, and that `capsule action` knows every one of them.
func TestActionMetadata(t *testing.T) {
	var a actionMetadata
	decodeYAML(t, "action.yml", true, &a)

	if a.Name == "" || a.Description == "" {
		t.Error("action.yml needs a name and a description (the Marketplace shows them)")
	}
	colors := []string{"white", "black", "yellow", "blue", "green", "orange", "red", "purple", "gray-dark"}
	if a.Branding.Icon == "" || !slices.Contains(colors, a.Branding.Color) {
		t.Errorf("branding %+v: want an icon and one of the colors %v", a.Branding, colors)
	}

	if got, want := slices.Sorted(maps.Keys(a.Inputs)), slices.Sorted(maps.Keys(actionYAMLInputs)); !slices.Equal(got, want) {
		t.Errorf("inputs %v, want %v", got, want)
	}
	for name, in := range a.Inputs {
		if strings.TrimSpace(in.Description) == "" {
			t.Errorf("input %s has no description", name)
		}
		if in.Required {
			t.Errorf("input %s is required; every input has a default or a fallback", name)
		}
		def := ""
		if in.Default != nil {
			def = *in.Default
		}
		if want := actionYAMLInputs[name]; def != want {
			t.Errorf("input %s defaults to %q, want %q", name, def, want)
		}
	}
	if got := slices.Sorted(maps.Keys(a.Outputs)); !slices.Equal(got, slices.Sorted(slices.Values(actionYAMLOutputs))) {
		t.Errorf("outputs %v, want %v", got, actionYAMLOutputs)
	}
	for name, out := range a.Outputs {
		if strings.TrimSpace(out.Description) == "" {
			t.Errorf("output %s has no description", name)
		}
	}

	r := a.Runs
	if r.Using != "docker" || r.Image != actionDockerfile || !slices.Equal(r.Args, []string{"action"}) || r.Entrypoint != "" {
		t.Errorf("runs %+v, want using docker, image %s, args [action] and the image's entrypoint", r, actionDockerfile)
	}
	// GitHub builds the file's last stage and runs it with no --user; only
	// root may use the socket, workspace and output files it mounts. The
	// Dockerfile's last stage, the server image, is not root.
	d := parseDockerfile(t, r.Image)
	if user, _ := d.setting(d.last(), "USER"); user != actionUser {
		t.Errorf("the action runs the last stage of %s as %q, want root (%s)", r.Image, user, actionUser)
	}
	if entrypoint, _ := d.setting(d.last(), "ENTRYPOINT"); entrypoint != `["/capsule"]` {
		t.Errorf("the last stage of %s has ENTRYPOINT %s, want [\"/capsule\"] for args [action]", r.Image, entrypoint)
	}

	// `capsule action` reads INPUT_<NAME> and writes the outputs by name.
	literals := packageStrings(t)
	for _, name := range append(slices.Sorted(maps.Keys(actionYAMLInputs)), append(actionYAMLOutputs, workflowLogDir)...) {
		if !literals[name] {
			t.Errorf("no Go source of cmd/capsule says %q: does capsule action still read or write it?", name)
		}
	}
}

// packageStrings returns the string literals of this package's non-test
// sources.
func packageStrings(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	literals := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					literals[s] = true
				}
			}
			return true
		})
	}
	return literals
}

// TestWorkflowExample checks the workflow users copy: its triggers, that
// it asks for no more than it needs, one run per issue and per pull
// request, the `if:` on real events, and the steps.
func TestWorkflowExample(t *testing.T) {
	const name = "examples/workflows/capsule.yml"
	var w workflowFile
	decodeYAML(t, name, false, &w)

	wantOn := map[string][]string{
		"issues": {"labeled"}, "issue_comment": {"created"},
		"pull_request_review": {"submitted"}, "pull_request_review_comment": {"created"},
		"workflow_run": {"completed"},
	}
	if got := slices.Sorted(maps.Keys(w.On)); !slices.Equal(got, slices.Sorted(maps.Keys(wantOn))) {
		t.Errorf("triggers %v, want %v", got, slices.Sorted(maps.Keys(wantOn)))
	}
	for event, want := range wantOn {
		if on := w.On[event]; on == nil || !slices.Equal(on.Types, want) {
			t.Errorf("on %s: types %v, want %v", event, on, want)
		}
	}
	// workflow_run needs the names of the workflows it follows; the
	// branch filter keeps other branches' runs from starting a job at all.
	if run := w.On["workflow_run"]; run == nil || len(run.Workflows) == 0 || !slices.Equal(run.Branches, []string{"capsule/issue-*"}) {
		t.Errorf("on workflow_run: %+v, want workflows named and branches [capsule/issue-*]", run)
	}
	wantPermissions := map[string]string{"contents": "write", "issues": "write", "pull-requests": "write", "checks": "read", "actions": "read"}
	if !maps.Equal(w.Permissions, wantPermissions) {
		t.Errorf("permissions %v, want exactly %v", w.Permissions, wantPermissions)
	}
	if w.Concurrency.CancelInProgress != false {
		t.Errorf("cancel-in-progress %v, want false: a retry must not kill the run it follows", w.Concurrency.CancelInProgress)
	}

	if len(w.Jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(w.Jobs))
	}
	var job workflowJob
	for _, j := range w.Jobs {
		job = j
	}
	if job.RunsOn != "ubuntu-latest" {
		t.Errorf("runs-on %q: a Docker action needs a Linux runner with Docker, such as ubuntu-latest", job.RunsOn)
	}
	checkout := slices.IndexFunc(job.Steps, func(s workflowStep) bool { return strings.HasPrefix(s.Uses, "actions/checkout@") })
	if checkout < 0 {
		t.Fatal("no checkout step")
	}

	// The `if:` on the events it must and must not take; for those it
	// takes, the concurrency group (the issue's number, or the pull
	// request's) and whether the default branch is checked out (for
	// issues only: a round reads its branch through the API).
	user, bot := map[string]any{"login": "alice", "type": "User"}, map[string]any{"login": "capsule-app[bot]", "type": "Bot"}
	label := func(name string) map[string]any { return map[string]any{"name": name} }
	issue := map[string]any{"number": 7.0}
	pull := map[string]any{"number": 8.0, "pull_request": map[string]any{"url": "x"}}
	comment := func(body string) map[string]any { return map[string]any{"body": body} }
	head := func(ref, repo string) map[string]any {
		return map[string]any{"number": 8.0, "head": map[string]any{"ref": ref, "repo": map[string]any{"full_name": repo}}}
	}
	capsulePR := head("capsule/issue-7", "octo/calc")
	run := func(workflow, conclusion, branch, repo string, pulls ...any) map[string]any {
		return map[string]any{"name": workflow, "conclusion": conclusion, "head_branch": branch,
			"head_repository": map[string]any{"full_name": repo}, "pull_requests": pulls}
	}
	pr8 := map[string]any{"number": 8.0}
	type ev = map[string]any
	cases := []struct {
		name  string
		event string
		body  map[string]any
		vars  map[string]any
		group string // "" when the job must not run
	}{
		{"the trigger label", "issues", ev{"label": label("capsule"), "issue": issue, "sender": user}, nil, "capsule-7"},
		{"another label", "issues", ev{"label": label("bug"), "issue": issue, "sender": user}, nil, ""},
		{"the trigger label added by a bot", "issues", ev{"label": label("capsule"), "issue": issue, "sender": bot}, nil, ""},
		{"the label set in CAPSULE_LABEL", "issues", ev{"label": label("fix-me"), "issue": issue, "sender": user}, ev{"CAPSULE_LABEL": "fix-me"}, "capsule-7"},
		{"the default label when CAPSULE_LABEL differs", "issues", ev{"label": label("capsule"), "issue": issue, "sender": user}, ev{"CAPSULE_LABEL": "fix-me"}, ""},
		{"retry on an issue", "issue_comment", ev{"comment": comment("/capsule retry"), "issue": issue, "sender": user}, nil, "capsule-7"},
		{"retry with a reason", "issue_comment", ev{"comment": comment("/capsule retry\nthe tests changed"), "issue": issue, "sender": user}, nil, "capsule-7"},
		{"another command on an issue", "issue_comment", ev{"comment": comment("/capsule please"), "issue": issue, "sender": user}, nil, ""},
		{"another comment", "issue_comment", ev{"comment": comment("thanks!"), "issue": issue, "sender": user}, nil, ""},
		{"retry quoted mid-comment", "issue_comment", ev{"comment": comment("why not /capsule retry"), "issue": issue, "sender": user}, nil, ""},
		{"retry on a pull request (a round)", "issue_comment", ev{"comment": comment("/capsule retry"), "issue": pull, "sender": user}, nil, "capsule-8"},
		{"a command on a pull request", "issue_comment", ev{"comment": comment("/capsule also handle negative numbers"), "issue": pull, "sender": user}, nil, "capsule-8"},
		{"a command from a bot", "issue_comment", ev{"comment": comment("/capsule retry"), "issue": pull, "sender": bot}, nil, ""},
		{"another comment on a pull request", "issue_comment", ev{"comment": comment("LGTM"), "issue": pull, "sender": user}, nil, ""},
		{"a review of Capsule's pull request", "pull_request_review", ev{"pull_request": capsulePR, "review": ev{"id": 1.0}, "sender": user}, nil, "capsule-8"},
		{"a review comment on Capsule's pull request", "pull_request_review_comment", ev{"pull_request": capsulePR, "comment": comment("off by one"), "sender": user}, nil, "capsule-8"},
		{"an approval with no text", "pull_request_review", ev{"pull_request": capsulePR, "review": ev{"id": 1.0, "state": "approved", "body": nil}, "sender": user}, nil, ""},
		{"an approval with a request", "pull_request_review", ev{"pull_request": capsulePR, "review": ev{"id": 1.0, "state": "approved", "body": "nit: rename x"}, "sender": user}, nil, "capsule-8"},
		{"a review by a bot", "pull_request_review", ev{"pull_request": capsulePR, "sender": bot}, nil, ""},
		{"a review of another branch", "pull_request_review", ev{"pull_request": head("feature", "octo/calc"), "sender": user}, nil, ""},
		{"a review of a fork's capsule/issue-7", "pull_request_review_comment", ev{"pull_request": head("capsule/issue-7", "mallory/calc"), "sender": user}, nil, ""},
		{"CI failed on Capsule's branch, run by Capsule's bot", "workflow_run", ev{"workflow_run": run("CI", "failure", "capsule/issue-7", "octo/calc", pr8), "sender": bot}, nil, "capsule-8"},
		{"CI timed out", "workflow_run", ev{"workflow_run": run("CI", "timed_out", "capsule/issue-7", "octo/calc", pr8), "sender": user}, nil, "capsule-8"},
		{"CI passed", "workflow_run", ev{"workflow_run": run("CI", "success", "capsule/issue-7", "octo/calc", pr8), "sender": bot}, nil, ""},
		{"CI cancelled", "workflow_run", ev{"workflow_run": run("CI", "cancelled", "capsule/issue-7", "octo/calc", pr8), "sender": bot}, nil, ""},
		{"CI failed on another branch", "workflow_run", ev{"workflow_run": run("CI", "failure", "main", "octo/calc", pr8), "sender": user}, nil, ""},
		{"CI failed on a fork's branch", "workflow_run", ev{"workflow_run": run("CI", "failure", "capsule/issue-7", "mallory/calc", pr8), "sender": user}, nil, ""},
		{"CI failed with no pull request", "workflow_run", ev{"workflow_run": run("CI", "failure", "capsule/issue-7", "octo/calc"), "sender": bot}, nil, ""},
		{"this workflow failed", "workflow_run", ev{"workflow_run": run("Capsule", "failure", "capsule/issue-7", "octo/calc", pr8), "sender": bot}, nil, ""},
	}
	for _, c := range cases {
		vars := c.vars
		if vars == nil {
			vars = map[string]any{}
		}
		ctx := map[string]any{
			"github": map[string]any{"event_name": c.event, "event": c.body, "repository": "octo/calc", "workflow": w.Name},
			"vars":   vars, "secrets": map[string]any{},
		}
		got, err := evalExpression(job.If, ctx)
		if err != nil {
			t.Fatalf("the job's if: %v\n%s", err, job.If)
		}
		if truthy(got) != (c.group != "") {
			t.Errorf("%s: the job runs = %v, want %v", c.name, truthy(got), c.group != "")
			continue
		}
		if c.group == "" {
			continue
		}
		if group, err := evalTemplate(w.Concurrency.Group, ctx); err != nil || group != c.group {
			t.Errorf("%s: concurrency group %q (%v), want %q", c.name, group, err, c.group)
		}
		checks, err := evalExpression(job.Steps[checkout].If, ctx)
		if wantCheckout := c.group == "capsule-7"; err != nil || truthy(checks) != wantCheckout {
			t.Errorf("%s: checkout = %v (%v), want %v", c.name, truthy(checks), err, wantCheckout)
		}
	}

	// The steps: checkout, the action, the attempt log.
	var action, upload = -1, -1
	checkout = -1
	for i, s := range job.Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			checkout = i
		case strings.HasPrefix(s.Uses, "capsulehq/capsule@"):
			action = i
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			upload = i
		}
		checkPinned(t, name, s.Uses)
	}
	if checkout < 0 || action < 0 || upload < 0 || !(checkout < action && action < upload) {
		t.Fatalf("steps checkout at %d, capsule at %d, upload-artifact at %d: want all three, in that order", checkout, action, upload)
	}
	with := job.Steps[action].With
	for key := range with {
		if _, ok := actionYAMLInputs[key]; !ok {
			t.Errorf("the capsule step passes %q, which action.yml does not take", key)
		}
	}
	for _, key := range []string{"model", "base-url", "api-key"} {
		if with[key] == "" {
			t.Errorf("the capsule step does not pass %s", key)
		}
	}
	if v := with["api-key"]; !strings.Contains(v, "secrets.") {
		t.Errorf("api-key is %q: it must come from a secret", v)
	}
	// The label the job filters on is the one it hands the action.
	for _, vars := range []map[string]any{{}, {"CAPSULE_LABEL": "fix-me"}} {
		got, err := evalTemplate(with["label"], map[string]any{"vars": vars})
		if err != nil {
			t.Fatal(err)
		}
		want := "capsule"
		if v, ok := vars["CAPSULE_LABEL"]; ok {
			want = v.(string)
		}
		if got != want {
			t.Errorf("with vars %v the step passes label %q, want %q", vars, got, want)
		}
	}
	up := job.Steps[upload]
	if !regexp.MustCompile(`^(\$\{\{\s*)?always\(\)(\s*\}\})?$`).MatchString(strings.TrimSpace(up.If)) {
		t.Errorf("upload-artifact runs if %q, want always(): the log matters most when the step failed", up.If)
	}
	if p := strings.TrimSuffix(up.With["path"], "/"); p != workflowLogDir {
		t.Errorf("upload-artifact uploads %q, want %s/", up.With["path"], workflowLogDir)
	}
}

// TestWorkflowCI checks the project's own CI: its triggers, and that it
// vets, formats, race-tests with Docker, builds the server image from
// source and offline, and builds and runs the action's image.
func TestWorkflowCI(t *testing.T) {
	const name = ".github/workflows/ci.yml"
	var w workflowFile
	decodeYAML(t, name, false, &w)
	for _, event := range []string{"push", "pull_request"} {
		if _, ok := w.On[event]; !ok {
			t.Errorf("CI does not run on %s", event)
		}
	}
	var runs []string
	for jobName, job := range w.Jobs {
		for _, s := range job.Steps {
			checkPinned(t, name, s.Uses)
			if strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["go-version-file"] != "go.mod" {
				t.Errorf("job %s: setup-go takes go-version-file %q, want go.mod", jobName, s.With["go-version-file"])
			}
			for _, line := range strings.Split(s.Run, "\n") {
				runs = append(runs, strings.TrimSpace(line))
			}
		}
	}
	has := func(what, pattern string) bool {
		t.Helper()
		re := regexp.MustCompile(pattern)
		if !slices.ContainsFunc(runs, re.MatchString) {
			t.Errorf("CI lacks %s (a step running %s)", what, pattern)
			return false
		}
		return true
	}
	has("gofmt", `gofmt -l`)
	has("go vet", `go vet \./\.\.\.`)
	has("the race tests", `^make test$`)
	has("the prebuilt (offline) server image", `^make docker-image\b`)

	// The two from-source builds, by the tag each gives its image: `docker
	// build .` is the server image (the Dockerfile's last stage), and
	// Dockerfile.action the action's.
	tag := func(what, pattern string) string {
		t.Helper()
		re := regexp.MustCompile(pattern)
		for _, line := range runs {
			if m := re.FindStringSubmatch(line); m != nil {
				return regexp.QuoteMeta(m[1])
			}
		}
		t.Errorf("CI lacks %s (a step running %s)", what, pattern)
		return ""
	}
	user := func(tag, user string) string {
		return `^test "\$\(docker image inspect -f '\{\{\.Config\.User\}\}' ` + tag + `\)" = ` + user + `$`
	}
	if server := tag("the server image build", `^docker build -t (\S+) \.$`); server != "" {
		has("a check that the server image is not root", user(server, imageUser))
	}
	if action := tag("the action's image build", `^docker build -f `+regexp.QuoteMeta(actionDockerfile)+` -t (\S+) \.$`); action != "" {
		has("a check that the action's image is root", user(action, actionUser))
		has("a run of the action's image", `^docker run --rm `+action+` action --help$`)
		has("a check of the action's socket", `docker\.sock:/var/run/docker\.sock `+action+` doctor\b`)
	}
	if !regexp.MustCompile(`(?m)^docker-image:`).Match(readRepoFile(t, "Makefile")) {
		t.Error("the Makefile has no docker-image target")
	}
}

// checkPinned wants uses: owner/repo@vN (a major version), or a local path.
func checkPinned(t *testing.T, file, uses string) {
	t.Helper()
	if uses == "" || strings.HasPrefix(uses, "./") {
		return
	}
	if !regexp.MustCompile(`^[\w.-]+/[\w.-]+(/[\w./-]+)?@v\d+$`).MatchString(uses) {
		t.Errorf("%s: uses %q; pin actions to a major version, owner/repo@vN", file, uses)
	}
}

// evalTemplate replaces each ${{ expression }} in s with its value.
func evalTemplate(s string, ctx map[string]any) (string, error) {
	var evalErr error
	out := regexp.MustCompile(`\$\{\{(.*?)\}\}`).ReplaceAllStringFunc(s, func(m string) string {
		v, err := evalExpression(m, ctx)
		if err != nil {
			evalErr = err
		}
		if v == nil {
			return ""
		}
		return fmt.Sprint(v)
	})
	return out, evalErr
}

// evalExpression evaluates a GitHub Actions expression, with or without
// ${{ }}, in ctx. It knows the part of the language the workflows here
// use: literals, property paths (with [n] indexes), ! && || == !=,
// parentheses, startsWith and contains. Like GitHub it compares strings
// ignoring case, and || and && yield an operand, not a bool.
func evalExpression(expr string, ctx map[string]any) (any, error) {
	expr = strings.TrimSpace(expr)
	if inner, ok := strings.CutPrefix(expr, "${{"); ok {
		expr = strings.TrimSuffix(inner, "}}")
	}
	p := &exprParser{ctx: ctx}
	if err := p.lex(expr); err != nil {
		return nil, err
	}
	v, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, fmt.Errorf("unexpected %q", p.toks[p.pos])
	}
	return v, nil
}

type exprParser struct {
	toks []string
	pos  int
	ctx  map[string]any
}

func (p *exprParser) lex(s string) error {
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(s[i:], "&&"), strings.HasPrefix(s[i:], "||"), strings.HasPrefix(s[i:], "=="), strings.HasPrefix(s[i:], "!="):
			p.toks = append(p.toks, s[i:i+2])
			i += 2
		case strings.ContainsRune("!(),", rune(c)):
			p.toks = append(p.toks, string(c))
			i++
		case c == '\'':
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(s) {
				return fmt.Errorf("unterminated string in %q", s)
			}
			p.toks = append(p.toks, s[i:j+1])
			i = j + 1
		default:
			j := i
			for j < len(s) && (strings.IndexByte("_-.[]", s[j]) >= 0 || s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
				j++
			}
			if j == i {
				return fmt.Errorf("unexpected %q in %q", c, s)
			}
			p.toks = append(p.toks, s[i:j])
			i = j
		}
	}
	return nil
}

func (p *exprParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *exprParser) next() string {
	tok := p.peek()
	p.pos++
	return tok
}

func (p *exprParser) or() (any, error) {
	v, err := p.and()
	for err == nil && p.peek() == "||" {
		p.next()
		var r any
		if r, err = p.and(); !truthy(v) {
			v = r
		}
	}
	return v, err
}

func (p *exprParser) and() (any, error) {
	v, err := p.compare()
	for err == nil && p.peek() == "&&" {
		p.next()
		var r any
		if r, err = p.compare(); truthy(v) {
			v = r
		}
	}
	return v, err
}

func (p *exprParser) compare() (any, error) {
	v, err := p.unary()
	if err != nil {
		return nil, err
	}
	if op := p.peek(); op == "==" || op == "!=" {
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		return exprEqual(v, r) == (op == "=="), nil
	}
	return v, nil
}

func (p *exprParser) unary() (any, error) {
	if p.peek() == "!" {
		p.next()
		v, err := p.unary()
		return !truthy(v), err
	}
	return p.primary()
}

func (p *exprParser) primary() (any, error) {
	tok := p.next()
	switch {
	case tok == "(":
		v, err := p.or()
		if err == nil && p.next() != ")" {
			err = fmt.Errorf("missing )")
		}
		return v, err
	case strings.HasPrefix(tok, "'"):
		return strings.ReplaceAll(tok[1:len(tok)-1], "''", "'"), nil
	case tok == "true", tok == "false":
		return tok == "true", nil
	case tok == "null":
		return nil, nil
	case tok == "":
		return nil, fmt.Errorf("unexpected end")
	case p.peek() == "(":
		p.next()
		var args []any
		for p.peek() != ")" {
			a, err := p.or()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if p.peek() == "," {
				p.next()
			}
		}
		p.next()
		return exprCall(tok, args)
	}
	if n, err := strconv.ParseFloat(tok, 64); err == nil {
		return n, nil
	}
	var v any = p.ctx
	for _, key := range strings.Split(tok, ".") {
		key, index, indexed := strings.Cut(strings.TrimSuffix(key, "]"), "[")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, nil
		}
		v = m[key]
		if indexed {
			i, err := strconv.Atoi(index)
			a, ok := v.([]any)
			if err != nil || !ok || i < 0 || i >= len(a) {
				return nil, nil
			}
			v = a[i]
		}
	}
	return v, nil
}

func exprCall(name string, args []any) (any, error) {
	str := func(v any) string {
		if v == nil {
			return ""
		}
		return strings.ToLower(fmt.Sprint(v))
	}
	switch strings.ToLower(name) {
	case "startswith":
		if len(args) == 2 {
			return strings.HasPrefix(str(args[0]), str(args[1])), nil
		}
	case "contains":
		if len(args) == 2 {
			return strings.Contains(str(args[0]), str(args[1])), nil
		}
	case "always":
		if len(args) == 0 {
			return true, nil
		}
	default:
		return nil, fmt.Errorf("function %s is not known to this test", name)
	}
	return nil, fmt.Errorf("%s: %d arguments", name, len(args))
}

func exprEqual(a, b any) bool {
	if as, ok := a.(string); ok {
		if bs, ok := b.(string); ok {
			return strings.EqualFold(as, bs)
		}
	}
	switch a.(type) {
	case nil, bool, string, float64:
		return a == b
	}
	return false // objects compare by reference in GitHub: never equal here
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case float64:
		return v != 0
	}
	return true
}
