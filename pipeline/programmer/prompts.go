package programmer

import (
	"cmp"
	"embed"
	"fmt"
	"github.com/capsulehq/capsule/pipeline/edits"
	"path"
	"strings"
	"text/template"

	"github.com/capsulehq/capsule/internal/markdown"
	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/untrusted"
)

//go:embed prompts/*.txt
var promptFS embed.FS

// TaskKind is the kind of problem the programmer agent solves.
type TaskKind int

const (
	// KindFunction is a function-level task (HumanEval, MBPP): the answer is
	// reasoning, ### Requirements and one ### Code block.
	KindFunction TaskKind = iota
	// KindRepo is an issue in a repository: the answer is reasoning and one
	// ### File section per changed file, with SEARCH/REPLACE blocks or the
	// whole file.
	KindRepo
)

func (k TaskKind) String() string {
	switch k {
	case KindFunction:
		return "function"
	case KindRepo:
		return "repo"
	}
	return fmt.Sprintf("TaskKind(%d)", int(k))
}

// Mode is the programmer agent's mode, each with its own system prompt.
type Mode int

const (
	// ModeGenerate writes the first answer to the task.
	ModeGenerate Mode = iota
	// ModeFix corrects a previous answer that failed the tests.
	ModeFix
)

func (m Mode) String() string {
	switch m {
	case ModeGenerate:
		return "generate"
	case ModeFix:
		return "fix"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

var (
	systemPrompts = map[TaskKind]map[Mode]string{
		KindFunction: {ModeGenerate: mustRead("function_generate"), ModeFix: mustRead("function_fix")},
		KindRepo:     {ModeGenerate: mustRead("repo_generate"), ModeFix: mustRead("repo_fix")},
	}
	functionTaskTmpl  = mustParse("function_task")
	repoTaskTmpl      = mustParse("repo_task")
	feedbackTmpl      = mustParse("feedback")
	testDesignPrompts = map[TestLanguage]string{Pytest: mustRead("test_design"), GoTest: mustRead("test_design_go"), JSTest: mustRead("test_design_js"), RustTest: mustRead("test_design_rust"), JavaTest: mustRead("test_design_java")}
	testTaskTmpl      = mustParse("test_task")
	testRetryTmpl     = mustParse("test_retry")
)

// SystemPrompt is the system prompt for a task kind in a mode. It panics on
// an unknown kind or mode.
func SystemPrompt(kind TaskKind, mode Mode) string {
	p, ok := systemPrompts[kind][mode]
	if !ok {
		panic(fmt.Sprintf("programmer: no system prompt for %v in %v mode", kind, mode))
	}
	return p
}

// FunctionTask is a function-level problem.
type FunctionTask struct {
	// Problem is the task as given, e.g. a HumanEval stub with its docstring.
	Problem string
	// Signature, when set, is the exact signature to implement, e.g. one the
	// signature converter derived from an MBPP test.
	Signature string
}

// Render is the task as the user message of the conversation.
func (t FunctionTask) Render() string {
	t.Problem = trimBlock(t.Problem)
	t.Signature = strings.TrimSpace(t.Signature)
	return render(functionTaskTmpl, t)
}

// RepoTask is an issue to resolve in a repository.
type RepoTask struct {
	// Title and Body are the issue's: text from outside Capsule (a round's
	// body holds reviewers' comments and CI output too), which the prompt
	// gives cleaned and inside Boundary.
	Title, Body string
	// Context is the rendered repository context: the file tree and the
	// files most likely involved.
	Context string
	// Signatures are names or signatures the issue states, to keep exactly.
	Signatures []string
	// Boundary encloses the issue; the zero value draws one.
	Boundary untrusted.Boundary
}

// Render is the task as the user message of the conversation.
func (t RepoTask) Render() string {
	var sigs []string
	for _, s := range t.Signatures {
		// From the issue too: one line, and no backtick to end the code
		// span it is shown in.
		if s = strings.Join(strings.Fields(untrusted.Clean(s)), " "); s != "" && !strings.Contains(s, "`") {
			sigs = append(sigs, s)
		}
	}
	b, issue := wrapIssue(t.Boundary, t.Title, t.Body)
	return render(repoTaskTmpl, struct {
		Context, Issue, Tag string
		Signatures          []string
	}{trimBlock(t.Context), issue, b.Tag(), sigs})
}

// wrapIssue renders an issue's title and body inside a boundary, drawing
// one when b is the zero value.
func wrapIssue(b untrusted.Boundary, title, body string) (untrusted.Boundary, string) {
	if b.IsZero() {
		b = untrusted.Random()
	}
	text := "# " + strings.Join(strings.Fields(untrusted.Clean(title)), " ")
	if body = trimBlock(untrusted.Clean(body)); body != "" {
		text += "\n\n" + body
	}
	return b, b.Wrap(text)
}

// TestLanguage is the language and framework the test designer writes
// its test in.
type TestLanguage string

// The test designer's languages.
const (
	// Pytest is a pytest file (the zero TestLanguage is Pytest too).
	Pytest TestLanguage = "pytest"
	// GoTest is a Go _test.go file of one package.
	GoTest TestLanguage = "go"
	// JSTest is a JavaScript or TypeScript test file for Jest or Vitest
	// (DesignTask.Framework).
	JSTest TestLanguage = "js"
	// RustTest is a Rust integration test under a crate's tests/, run by
	// cargo test, that uses the crate's public API (DesignTask.Crate).
	RustTest TestLanguage = "rust"
	// JavaTest is a JUnit 5 test class (DesignTask.Class in
	// DesignTask.Package).
	JavaTest TestLanguage = "java"
)

// DesignTask asks the test designer, a second role of the model that
// never sees the programmer's code, for a new test file that shows an
// issue.
type DesignTask struct {
	// Title and Body are the issue's, given as RepoTask gives them;
	// Context is the repository context.
	Title, Body, Context string
	// Path is where the test file goes, relative to the repository root.
	Path string
	// Language is the test's language; "" is Pytest.
	Language TestLanguage
	// Package is the Go package the file belongs to (GoTest), or the
	// Java package of its class (JavaTest).
	Package string
	// Class is the JUnit class's simple name (JavaTest only).
	Class string
	// Framework is the test framework, "Jest" or "Vitest" (JSTest only).
	Framework string
	// Crate is the name by which a Rust integration test uses the crate
	// it tests: its library's name, hyphens as underscores (RustTest
	// only).
	Crate string
	// Edition is the crate's Rust edition (RustTest only): in Rust 2015
	// an integration test declares `extern crate NAME;` to use it.
	Edition string
	// Boundary encloses the issue; the zero value draws one.
	Boundary untrusted.Boundary
}

// Messages are the test designer's first call: its own system prompt for
// the task's language and the task.
func (t DesignTask) Messages() []chat.Message {
	prompt, ok := testDesignPrompts[cmp.Or(t.Language, Pytest)]
	if !ok {
		panic(fmt.Sprintf("programmer: no test design prompt for %q", t.Language))
	}
	b, issue := wrapIssue(t.Boundary, t.Title, t.Body)
	task := render(testTaskTmpl, struct{ Context, Issue, Tag, Path, Package, Class, Framework, Crate, Edition string }{trimBlock(t.Context), issue, b.Tag(), t.Path, t.Package, t.Class, t.Framework, t.Crate, t.Edition})
	return []chat.Message{{Role: chat.System, Content: prompt}, {Role: chat.User, Content: task}}
}

// Retry continues a test designer's conversation after its answer was not
// accepted: why (problem), and the run's output filtered to the test's own
// file (output, possibly empty).
func (t DesignTask) Retry(msgs []chat.Message, answer, problem, output string) []chat.Message {
	retry := render(testRetryTmpl, struct{ Problem, Output, Path string }{strings.TrimSpace(problem), trimBlock(output), t.Path})
	return append(append(msgs[:len(msgs):len(msgs)], chat.Message{Role: chat.Assistant, Content: answer}), chat.Message{Role: chat.User, Content: retry})
}

// FormatFiles renders files in the repo-level answer format, one
// "### File:" section each: a whole file's content, then its blocks in one
// fenced block (a file given whole and then changed by blocks takes two
// sections, as does one without blocks that is not whole).
func FormatFiles(files []edits.FileEdit) string {
	var sections []string
	for _, f := range files {
		lang := strings.TrimPrefix(path.Ext(f.Path), ".")
		if lang == "py" {
			lang = "python"
		}
		if f.Whole {
			sections = append(sections, "### File: "+f.Path+"\n"+markdown.Fence(lang, f.Content))
		}
		if f.Whole && len(f.Blocks) == 0 {
			continue
		}
		var b strings.Builder
		for _, bl := range f.Blocks {
			b.WriteString("<<<<<<< SEARCH\n" + bl.Search + "=======\n" + bl.Replace + ">>>>>>> REPLACE\n")
		}
		sections = append(sections, "### File: "+f.Path+"\n"+markdown.Fence(lang, b.String()))
	}
	return strings.Join(sections, "\n\n")
}

// formatCode renders Python code in the function-level answer format.
func formatCode(code string) string {
	return "### Code\n" + markdown.Fence("python", code)
}

// trimBlock drops blank lines around s and trailing spaces, but keeps the
// indentation of its first line.
func trimBlock(s string) string {
	return strings.TrimRight(strings.TrimLeft(s, "\r\n"), " \t\r\n")
}

func render(t *template.Template, data any) string {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		// The templates are fixed and read only strings: this is a bug.
		panic(fmt.Sprintf("programmer: render %s: %v", t.Name(), err))
	}
	return strings.TrimSpace(b.String())
}

func mustRead(name string) string {
	b, err := promptFS.ReadFile("prompts/" + name + ".txt")
	if err != nil {
		panic(err)
	}
	return strings.TrimSpace(string(b))
}

func mustParse(name string) *template.Template {
	return template.Must(template.New(name).Option("missingkey=error").Parse(mustRead(name)))
}
