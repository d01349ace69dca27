package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/internal/markdown"
)

// docCommand is one command line shown in a shell block of the docs.
type docCommand struct {
	file  string   // the Markdown file, relative to the repository root
	line  int      // its line in the file
	words []string // one simple command, split as the shell would
}

func (c docCommand) String() string {
	return fmt.Sprintf("%s:%d: %s", c.file, c.line, strings.Join(c.words, " "))
}

// TestDocumentedCommandsParse checks every command line that README.md and
// docs/*.md show in a shell block and that runs Capsule, make or a script
// of scripts/: a capsule command line parses with the subcommand's real
// flags (nothing runs), a make target is in the Makefile, a script exists
// and is executable.
func TestDocumentedCommandsParse(t *testing.T) {
	targets := makeTargets(t)
	kinds := map[string]int{}
	for _, file := range docFiles(t) {
		cmds, err := docCommands(t, file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cmds {
			kind, err := checkDocCommand(c.words, targets)
			if err != nil {
				t.Errorf("%s\n\t%v", c, err)
			}
			kinds[kind]++
		}
	}
	t.Logf("checked %d capsule, %d make and %d scripts/ command lines", kinds["capsule"], kinds["make"], kinds["scripts"])
	for _, kind := range []string{"capsule", "make", "scripts"} {
		if kinds[kind] == 0 {
			t.Errorf("no %s command line found in the docs: the extraction is broken", kind)
		}
	}
}

// TestCheckDocCommand shows what the check refuses.
func TestCheckDocCommand(t *testing.T) {
	targets := map[string]bool{"test": true, "e2e": true}
	tests := []struct {
		name string
		line string
		kind string
		err  string // "" when the line must pass
	}{
		{"capsule with its flags", "bin/capsule solve --repo examples/calculator --issue x.md --out out/x", "capsule", ""},
		{"sandbox image", "bin/capsule sandbox image --name bigcodebench", "capsule", ""},
		{"help of a subcommand", "capsule help serve", "capsule", ""},
		{"assignments before", "CAPSULE_MODEL=m bin/capsule bench --list", "capsule", ""},
		{"unknown flag", "bin/capsule solve --repo . --bogus", "capsule", "flag provided but not defined: -bogus"},
		{"unknown subcommand", "bin/capsule frobnicate --x", "capsule", `unknown subcommand "frobnicate"`},
		{"unknown sandbox subcommand", "capsule sandbox frob", "capsule", `unknown subcommand "frob"`},
		{"flag of another subcommand", "capsule context --repo . --issue x.md --out dir", "capsule", "flag provided but not defined: -out"},
		{"bad flag value", "capsule bench --workers many", "capsule", "invalid value"},
		{"synopsis with optional flags", "capsule context --repo . --issue x.md [--budget 2200]", "capsule", ""},
		{"word after the flags", "capsule solve --repo . --issue x.md out/", "capsule", `arguments after the flags: ["out/"]`},
		{"sandbox run's command", "capsule sandbox run --workspace . -- python3 -m pytest", "capsule", ""},
		{"unknown flag of sandbox run", "capsule sandbox run --workspace . --net -- true", "capsule", "flag provided but not defined: -net"},
		{"make target", "make e2e E2E_REPOS=~/capsule-e2e", "make", ""},
		{"make without target", "make", "make", ""},
		{"unknown make target", "make tset", "make", `no target "tset" in the Makefile`},
		{"script", "scripts/e2e-repos.sh ~/capsule-e2e", "scripts", ""},
		{"missing script", "scripts/nothing-here.sh", "scripts", "no such file"},
		{"not executable", "scripts/testprogress/main.go", "scripts", "not executable"},
		{"other commands are not checked", "go test ./...", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds, err := shellCommands(tt.line)
			if err != nil || len(cmds) != 1 {
				t.Fatalf("shellCommands(%q) = %q, %v; want one command", tt.line, cmds, err)
			}
			kind, err := checkDocCommand(cmds[0], targets)
			if kind != tt.kind {
				t.Errorf("kind %q, want %q", kind, tt.kind)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("error %v, want one containing %q", err, tt.err)
			}
		})
	}
}

func TestShellCommands(t *testing.T) {
	tests := []struct {
		line string
		want [][]string
	}{
		{"make test", [][]string{{"make", "test"}}},
		{"scripts/e2e-repos.sh ~/e2e && make e2e E2E_REPOS=~/e2e", [][]string{{"scripts/e2e-repos.sh", "~/e2e"}, {"make", "e2e", "E2E_REPOS=~/e2e"}}},
		{"bin/capsule bench --list      # the shipped datasets", [][]string{{"bin/capsule", "bench", "--list"}}},
		{`export S="$(cat $HOME/s)"  # what you entered`, [][]string{{"export", "S=$(cat $HOME/s)"}}},
		{`go test -run '^$' -bench X ./p/`, [][]string{{"go", "test", "-run", "^$", "-bench", "X", "./p/"}}},
		{"a | b; c || d", [][]string{{"a"}, {"b"}, {"c"}, {"d"}}},
		{`echo "a # b" x#y`, [][]string{{"echo", "a # b", "x#y"}}},
	}
	for _, tt := range tests {
		got, err := shellCommands(tt.line)
		if err != nil || !slices.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("shellCommands(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
	if _, err := shellCommands(`echo "open`); err == nil {
		t.Error("an unclosed quote is not an error")
	}
}

// TestDocLinksResolve checks that every relative link of README.md and
// docs/*.md names a file that exists and, with a #fragment, a heading of
// that file.
func TestDocLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, file := range docFiles(t) {
		for i, line := range proseLines(string(readRepoFile(t, file))) {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, fragment, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
				}
				if _, err := os.Stat(filepath.Join(repoDir, dest)); err != nil {
					t.Errorf("%s:%d: link %s: %v", file, i+1, target, err)
					continue
				}
				if fragment != "" && !slices.Contains(headingAnchors(t, dest), fragment) {
					t.Errorf("%s:%d: link %s: %s has no heading #%s", file, i+1, target, dest, fragment)
				}
			}
		}
	}
}

// docFiles lists README.md and docs/*.md, relative to the repository root.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repoDir, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	return files
}

// shellFences are the info strings of the blocks whose lines are commands.
var shellFences = map[string]bool{"sh": true, "shell": true, "bash": true, "console": true}

// runsCapsule matches a line of a block without an info string that looks
// like a command the test would check, so that none hides there.
var runsCapsule = regexp.MustCompile(`^(\$ )?(\./)?(bin/)?capsule |^(\$ )?make `)

// docCommands reads the command lines of file's shell blocks, joining
// lines continued with a backslash; a console block's commands are its
// lines starting "$ ".
func docCommands(t *testing.T, file string) ([]docCommand, error) {
	t.Helper()
	var (
		cmds    []docCommand
		fence   markdown.Opening
		in      bool
		pending string
		start   int
	)
	for i, line := range strings.Split(string(readRepoFile(t, file)), "\n") {
		n := i + 1
		switch {
		case !in:
			fence, in = markdown.OpenFence(line)
			continue
		case fence.ClosedBy(line):
			in = false
			continue
		case fence.Lang == "":
			if runsCapsule.MatchString(line) {
				return nil, fmt.Errorf("%s:%d: a command in a block without an info string: mark the block sh", file, n)
			}
			continue
		case !shellFences[fence.Lang]:
			continue
		case fence.Lang == "console" && pending == "":
			var ok bool
			if line, ok = strings.CutPrefix(line, "$ "); !ok {
				continue // output
			}
		}
		if pending == "" {
			start = n
		}
		if strings.HasSuffix(line, `\`) {
			pending += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		words, err := shellCommands(pending + line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, start, err)
		}
		pending = ""
		for _, w := range words {
			cmds = append(cmds, docCommand{file: file, line: start, words: w})
		}
	}
	return cmds, nil
}

// shellCommands splits a command line into its simple commands (at &&,
// ||, ; and |), each into its words as sh would, quotes removed; a word
// starting with # starts a comment. It expands nothing.
func shellCommands(line string) ([][]string, error) {
	var (
		cmds    [][]string
		words   []string
		word    strings.Builder
		inWord  bool
		r       = []rune(line)
		endWord = func() {
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		}
		endCmd = func() {
			endWord()
			if len(words) > 0 {
				cmds = append(cmds, words)
				words = nil
			}
		}
	)
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == ' ' || c == '\t':
			endWord()
		case c == '#' && !inWord:
			i = len(r)
		case c == '&' && i+1 < len(r) && r[i+1] == '&', c == '|' && i+1 < len(r) && r[i+1] == '|':
			endCmd()
			i++
		case c == ';' || c == '|':
			endCmd()
		case c == '\'' || c == '"':
			j := i + 1
			for ; j < len(r) && r[j] != c; j++ {
				if c == '"' && r[j] == '\\' && j+1 < len(r) {
					j++
				}
				word.WriteRune(r[j])
			}
			if j == len(r) {
				return nil, fmt.Errorf("unclosed %c in %q", c, line)
			}
			inWord, i = true, j
		case c == '\\' && i+1 < len(r):
			i++
			word.WriteRune(r[i])
			inWord = true
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	endCmd()
	return cmds, nil
}

// assignment matches a shell variable assignment word.
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// checkDocCommand checks one simple command of the docs and says which
// kind it is: "capsule", "make", "scripts", or "" for a command this test
// does not check.
func checkDocCommand(words []string, targets map[string]bool) (string, error) {
	for len(words) > 0 && assignment.MatchString(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 {
		return "", nil
	}
	name, args := words[0], words[1:]
	switch {
	case name == "capsule" || name == "bin/capsule" || name == "./bin/capsule":
		var plain []string
		for _, a := range args { // a synopsis's [--flag VALUE] is checked as --flag VALUE
			plain = append(plain, strings.TrimSuffix(strings.TrimPrefix(a, "["), "]"))
		}
		return "capsule", parseCommandLine(plain)
	case name == "make":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && !assignment.MatchString(a) && !targets[a] {
				return "make", fmt.Errorf("no target %q in the Makefile", a)
			}
		}
		return "make", nil
	case strings.HasPrefix(name, "scripts/"):
		fi, err := os.Stat(filepath.Join(repoDir, name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			return "scripts", fmt.Errorf("%s: no such file", name)
		case err != nil:
			return "scripts", err
		case fi.IsDir() || fi.Mode()&0o111 == 0:
			return "scripts", fmt.Errorf("%s is not executable", name)
		}
		return "scripts", nil
	}
	return "", nil
}

// parseCommandLine runs dispatch on args with parseOnly set: the
// subcommand's real flag set parses them, and nothing runs. Arguments the
// flags leave are refused unless they follow "--" (sandbox run's command):
// no other subcommand takes any.
func parseCommandLine(args []string) error {
	var stderr bytes.Buffer
	env := &environment{stdout: io.Discard, stderr: &stderr, log: slog.New(slog.NewTextHandler(io.Discard, nil)), parseOnly: true}
	if code := dispatch(context.Background(), env, args); code != exitOK {
		first, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		return fmt.Errorf("capsule exits %d: %s", code, first)
	}
	if i := slices.Index(args, "--"); len(env.leftArgs) > 0 && (i < 0 || !slices.Equal(env.leftArgs, args[i+1:])) {
		return fmt.Errorf("arguments after the flags: %q (a flag's value missing, or a word that is not a flag)", env.leftArgs)
	}
	return nil
}

// makeTargets reads the Makefile's rule names.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	text := readRepoFile(t, "Makefile")
	rule := regexp.MustCompile(`(?m)^([A-Za-z0-9_.-]+(?: +[A-Za-z0-9_.-]+)*) *:([^=]|$)`)
	targets := map[string]bool{}
	for _, m := range rule.FindAllStringSubmatch(string(text), -1) {
		for _, name := range strings.Fields(m[1]) {
			targets[name] = true
		}
	}
	if len(targets) == 0 {
		t.Fatal("no targets in the Makefile")
	}
	return targets
}

// proseLines is text's lines with those of fenced blocks blanked, so that
// line numbers stay.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	var (
		fence markdown.Opening
		in    bool
	)
	for i, line := range lines {
		switch {
		case in:
			in = !fence.ClosedBy(line)
		default:
			if fence, in = markdown.OpenFence(line); !in {
				continue
			}
		}
		lines[i] = ""
	}
	return lines
}

// headingAnchors lists the anchors GitHub makes for file's headings.
func headingAnchors(t *testing.T, file string) []string {
	t.Helper()
	text := readRepoFile(t, file)
	notSlug := regexp.MustCompile(`[^\p{L}\p{N}\- _]`)
	var anchors []string
	for _, line := range proseLines(string(text)) {
		hashes := len(line) - len(strings.TrimLeft(line, "#"))
		if hashes == 0 || !strings.HasPrefix(line[hashes:], " ") {
			continue
		}
		s := notSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(line[hashes:])), "")
		anchors = append(anchors, strings.ReplaceAll(s, " ", "-"))
	}
	return anchors
}
