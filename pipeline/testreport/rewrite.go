package testreport

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// GoTestJSON returns a `go test` command with -json, so that its output is
// test2json events for ParseGoTest. It declines (ok false) for anything but
// one plain `go test` command, optionally after VAR=value assignments:
// a list, a pipe or a redirection (its reader expects go test's usual
// text), shell expansions, and the flags with which go test runs no tests
// (-c, -o, -list) or sets -json itself to false. A command that already
// has -json is returned as it is.
func GoTestJSON(command string) (string, bool) {
	words, ok := splitWords(command)
	if !ok {
		return "", false
	}
	i := skipAssignments(words)
	if len(words) < i+2 || words[i] != "go" || words[i+1] != "test" {
		return "", false
	}
	for _, w := range words[i+2:] {
		if w == "-args" || w == "--args" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case w == "-json" || w == "--json" || w == "-json=true" || w == "--json=true":
			return command, true
		case strings.HasPrefix(w, "-") && slices.Contains([]string{"c", "o", "list", "json"}, name):
			return "", false
		}
	}
	out := slices.Concat(words[:i+2], []string{"-json"}, words[i+2:])
	return joinWords(out), true
}

// python matches the interpreter names of a unittest command.
var python = regexp.MustCompile(`^python(3(\.[0-9]+)?)?$`)

// UnittestAsPytest returns a `python -m unittest` command as the pytest
// command that runs the same tests, so that the plugin reports each of
// them; isFile reports whether a slash-separated path relative to the
// command's directory is a file. The pytest command keeps the interpreter,
// collects only unittest.TestCase classes (python_classes and
// python_functions are emptied) from the files of unittest's pattern
// (python_files), and maps -f to -x, -v and -q to themselves.
//
// It declines (ok false) for anything but one plain command, for -k and
// -t (pytest has no equivalent), and for names it cannot map to files: a
// package, or a dotted name whose module is not a file. Differences that
// remain: pytest ignores the load_tests protocol, and its collection
// enters directories that are not packages, which unittest's discovery
// skips; the image must have pytest.
func UnittestAsPytest(command string, isFile func(string) bool) (string, bool) {
	words, ok := splitWords(command)
	if !ok {
		return "", false
	}
	i := skipAssignments(words)
	if len(words) < i+3 || !python.MatchString(words[i]) || words[i+1] != "-m" || words[i+2] != "unittest" {
		return "", false
	}
	args := words[i+3:]
	discover := len(args) > 0 && args[0] == "discover"
	if discover {
		args = args[1:]
	}
	var flags, positional, start []string
	pattern := "test*.py"
	for k := 0; k < len(args); k++ {
		switch a := args[k]; a {
		case "-v", "--verbose":
			flags = append(flags, "-v")
		case "-q", "--quiet":
			flags = append(flags, "-q")
		case "-f", "--failfast":
			flags = append(flags, "-x")
		case "-b", "--buffer", "-c", "--catch":
			// pytest captures output; Ctrl-C needs no handler here.
		case "-s", "--start-directory", "-p", "--pattern":
			if !discover || k+1 == len(args) {
				return "", false
			}
			k++
			if a == "-p" || a == "--pattern" {
				pattern = args[k]
			} else {
				start = append(start, args[k])
			}
		default:
			if strings.HasPrefix(a, "-") {
				return "", false
			}
			positional = append(positional, a)
		}
	}
	var targets []string
	switch {
	case discover || len(positional) == 0:
		// Discovery: [start [pattern]] as words or options; a top-level
		// directory is refused as -t is.
		if len(positional) > 0 {
			start = append(start, positional[0])
		}
		if len(positional) > 1 {
			pattern = positional[1]
		}
		if len(positional) > 2 || len(start) > 1 {
			return "", false
		}
		// An explicit directory, so that pytest's testpaths do not apply.
		targets = append(start, ".")[:1]
	default:
		for _, name := range positional {
			target, ok := unittestName(name, isFile)
			if !ok {
				return "", false
			}
			targets = append(targets, target)
		}
	}
	out := slices.Concat(words[:i+1], []string{"-m", "pytest", "-o", "python_files=" + pattern,
		"-o", "python_classes=", "-o", "python_functions="}, flags, targets)
	return joinWords(out), true
}

// unittestName maps a name unittest accepts (a file, a module, a module's
// class or method) to a pytest node id.
func unittestName(name string, isFile func(string) bool) (string, bool) {
	if strings.HasSuffix(name, ".py") {
		p := path.Clean(name)
		return p, isFile(p)
	}
	parts := strings.Split(name, ".")
	for n := len(parts); n > 0 && len(parts)-n <= 2; n-- {
		file := strings.Join(parts[:n], "/") + ".py"
		if isFile(file) {
			return strings.Join(append([]string{file}, parts[n:]...), "::"), true
		}
	}
	return "", false
}

// Plain reports whether command is one plain invocation: words only, with
// no list, pipe, redirection or expansion (so `pytest || true` and
// `pytest a; pytest b` are not), whose exit status is its runner's.
func Plain(command string) bool {
	_, ok := splitWords(command)
	return ok
}

// skipAssignments returns the index of the first word that is not a
// VAR=value assignment.
func skipAssignments(words []string) int {
	for i, w := range words {
		name, _, ok := strings.Cut(w, "=")
		if !ok || !identifier.MatchString(name) {
			return i
		}
	}
	return len(words)
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// safeWord matches a word the shell takes literally without quotes.
var safeWord = regexp.MustCompile(`^[A-Za-z0-9_./:=,+@%^-]+$`)

// splitWords splits a command into words the way sh does, for commands of
// plain words only: single or double quotes without anything the shell
// would expand inside, and no operators, redirections, expansions,
// globs, comments or escapes. ok is false for anything else.
func splitWords(command string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'' || c == '"':
			end := strings.IndexByte(command[i+1:], c)
			if end < 0 {
				return nil, false
			}
			quoted := command[i+1 : i+1+end]
			if c == '"' && strings.ContainsAny(quoted, "$`\\!") {
				return nil, false
			}
			cur.WriteString(quoted)
			inWord = true
			i += end + 1
		case safeWord.MatchString(string(c)):
			cur.WriteByte(c)
			inWord = true
		default:
			return nil, false
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, len(words) > 0
}

// joinWords joins words into a command sh splits back into them.
func joinWords(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		switch {
		case safeWord.MatchString(w):
			quoted[i] = w
		case strings.Contains(w, "'") && !strings.ContainsAny(w, "\"$`\\!"):
			quoted[i] = `"` + w + `"`
		default:
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}

// Plan is how the per-test results of a test command are collected.
type Plan struct {
	// Command is the command to run: the test command, or the same tests
	// rewritten (unittest run as pytest, go test with -json).
	Command string
	// GoJSON reports that Command writes `go test -json` events on its
	// standard output; otherwise the report channel's records of the
	// pytest plugin, which Env asks for, hold the results.
	GoJSON bool
	// Note says in one line what was chosen, for the log.
	Note string
}

// NewPlan chooses how to collect the per-test results of command; isFile
// is as for UnittestAsPytest. Any command may run pytest, so the plugin is
// the default: a run whose report then has no process ran no pytest, and
// only its exit status counts.
func NewPlan(command string, isFile func(string) bool) Plan {
	if cmd, ok := GoTestJSON(command); ok {
		return Plan{Command: cmd, GoJSON: true, Note: "per-test results from go test -json: `" + cmd + "`"}
	}
	if cmd, ok := UnittestAsPytest(command, isFile); ok {
		return Plan{Command: cmd, Note: "per-test results from unittest's tests run by pytest: `" + cmd + "`"}
	}
	return Plan{Command: command, Note: "per-test results from pytest, if `" + command + "` runs it; from anything else only the exit status counts"}
}

// Parse reads a run's results: stdout for go test -json, else the
// report channel's records, with paths relative to root as for ParsePytest.
func (p Plan) Parse(reportFile, stdout []byte, root string) *Report {
	if p.GoJSON {
		return ParseGoTest(stdout)
	}
	return ParsePytest(reportFile, root)
}
