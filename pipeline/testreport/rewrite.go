package testreport

import (
	"cmp"
	"fmt"
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

// CargoTest returns the command that runs one plain `cargo test` command
// (optionally after VAR=value assignments) with --no-fail-fast, so that
// a failing test binary does not keep the next ones from running, and
// true; it declines (ok false) for anything else, for cargo-nextest (its
// JUnit XML is read instead), and for the options with which libtest's
// output names no test or runs none: -q/--quiet, --no-run, and after
// `--`, --format other than pretty, -q, --list and --logfile.
func CargoTest(command string) (string, bool) {
	words, ok := splitWords(command)
	if !ok {
		return "", false
	}
	i := skipAssignments(words)
	if len(words) < i+2 || words[i] != "cargo" {
		return "", false
	}
	j := i + 1
	if strings.HasPrefix(words[j], "+") { // a toolchain: cargo +stable test
		j++
	}
	if len(words) <= j || words[j] != "test" {
		return "", false
	}
	harness, dash := false, len(words)
	for k, w := range words[j+1:] {
		switch {
		case w == "--" && !harness:
			harness, dash = true, j+1+k
		case !harness && (w == "-q" || w == "--quiet" || w == "--no-run" || strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "q") && !strings.ContainsAny(w, "=")):
			return "", false
		case harness && (w == "-q" || w == "--quiet" || w == "--list" || strings.HasPrefix(w, "--logfile") ||
			strings.HasPrefix(w, "--format") && w != "--format=pretty" || w == "-Z"):
			return "", false
		}
	}
	if slices.Contains(words[j+1:dash], "--no-fail-fast") {
		return command, true
	}
	out := slices.Concat(words[:j+1], []string{"--no-fail-fast"}, words[j+1:])
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
	call, ok := readUnittest(words[i+3:])
	if !ok {
		return "", false
	}
	targets, ok := call.targets(isFile)
	if !ok {
		return "", false
	}
	out := slices.Concat(words[:i+1], []string{"-m", "pytest", "-o", "python_files=" + call.pattern,
		"-o", "python_classes=", "-o", "python_functions="}, call.flags, targets)
	return joinWords(out), true
}

// unittestCall is the arguments of a `python -m unittest` command, read
// for pytest.
type unittestCall struct {
	discover bool
	// flags are pytest's for unittest's options; positional are the
	// other words; start is the discovery's start directory, given as
	// an option; pattern is the discovery's pattern of file names.
	flags, positional, start []string
	pattern                  string
}

// readUnittest reads the arguments of a unittest command (after -m
// unittest), declining options pytest has no equivalent for.
func readUnittest(args []string) (unittestCall, bool) {
	c := unittestCall{discover: len(args) > 0 && args[0] == "discover", pattern: "test*.py"}
	if c.discover {
		args = args[1:]
	}
	for k := 0; k < len(args); k++ {
		switch a := args[k]; a {
		case "-v", "--verbose":
			c.flags = append(c.flags, "-v")
		case "-q", "--quiet":
			c.flags = append(c.flags, "-q")
		case "-f", "--failfast":
			c.flags = append(c.flags, "-x")
		case "-b", "--buffer", "-c", "--catch":
			// pytest captures output; Ctrl-C needs no handler here.
		case "-s", "--start-directory", "-p", "--pattern":
			if !c.discover || k+1 == len(args) {
				return unittestCall{}, false
			}
			k++
			if a == "-p" || a == "--pattern" {
				c.pattern = args[k]
			} else {
				c.start = append(c.start, args[k])
			}
		default:
			if strings.HasPrefix(a, "-") {
				return unittestCall{}, false
			}
			c.positional = append(c.positional, a)
		}
	}
	return c, true
}

// targets are the pytest paths of the call's tests: the discovery's start
// directory (the pattern may come from the words too), or the node id of
// each name.
func (c *unittestCall) targets(isFile func(string) bool) ([]string, bool) {
	if !c.discover && len(c.positional) > 0 {
		var targets []string
		for _, name := range c.positional {
			target, ok := unittestName(name, isFile)
			if !ok {
				return nil, false
			}
			targets = append(targets, target)
		}
		return targets, true
	}
	// Discovery: [start [pattern]] as words or options; a top-level
	// directory is refused as -t is.
	start := c.start
	if len(c.positional) > 0 {
		start = append(start, c.positional[0])
	}
	if len(c.positional) > 1 {
		c.pattern = c.positional[1]
	}
	if len(c.positional) > 2 || len(start) > 1 {
		return nil, false
	}
	// An explicit directory, so that pytest's testpaths do not apply.
	return append(start, ".")[:1], true
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
	// Cargo reports that Command is one `cargo test`, whose libtest
	// output on the standard output, with cargo's on the standard error,
	// holds the results (ParseCargoTest).
	Cargo bool
	// Note says in one line what was chosen, for the log.
	Note string
	// Runner is the test runner the test command names: how the error
	// handler reads the output of a failed run.
	Runner Runner
	// Reports are globs, relative to the workspace, of the report files
	// (JUnit XML, Jest JSON) the command writes (see WithReports): read
	// when the run has no pytest session.
	Reports []string
}

// WithReports returns the plan that also reads the report files (JUnit
// XML, Jest JSON) that match globs after a run that has no pytest
// session, and says so in its note with why (the configuration, the
// runner's usual place, the command's --outputFile).
func (p Plan) WithReports(globs []string, why string) Plan {
	if len(globs) == 0 || p.Native() {
		return p
	}
	p.Reports = slices.Clone(globs)
	p.Note += fmt.Sprintf("; else from the report files %s, JUnit XML or Jest JSON (%s)", strings.Join(globs, ", "), why)
	return p
}

// WholeRuns reports that the plan's tests cannot be run by id (go test,
// or a runner other than pytest that writes JUnit XML reports): reruns
// and the target tests run the whole command.
func (p Plan) WholeRuns() bool {
	return p.GoJSON || p.Cargo || len(p.Reports) > 0 && p.Runner == OtherRunner
}

// Native reports that the plan reads the results from the command's own
// output (go test -json, cargo test), not from the report channel or
// report files.
func (p Plan) Native() bool { return p.GoJSON || p.Cargo }

// Output is what a run leaves for its per-test results.
type Output struct {
	// Channel is what the report channel received; Stdout and Stderr
	// the command's standard output and error.
	Channel, Stdout, Stderr []byte
	// ReportFiles are the files Plan.Reports matched, by path relative to
	// the workspace; ReportFilesCut reports that some were left out.
	ReportFiles    map[string][]byte
	ReportFilesCut bool
}

// Runner is the test runner a test command names.
type Runner int

// The runners a test command may name.
const (
	// OtherRunner is any other command (make, tox, a script).
	OtherRunner Runner = iota
	// PytestRunner is a command that names pytest.
	PytestRunner
	// UnittestRunner is a command that names unittest (and not pytest),
	// even when the plan runs its tests under pytest.
	UnittestRunner
	// GoRunner is `go test`.
	GoRunner
)

// String returns the runner's name.
func (r Runner) String() string {
	switch r {
	case OtherRunner:
		return "other"
	case PytestRunner:
		return "pytest"
	case UnittestRunner:
		return "unittest"
	case GoRunner:
		return "go test"
	}
	return fmt.Sprintf("Runner(%d)", int(r))
}

// runnerOf is the runner command names: pytest or unittest when it says
// so, go test when goJSON (GoTestJSON took it), else another.
func runnerOf(command string, goJSON bool) Runner {
	switch {
	case strings.Contains(command, "pytest"):
		return PytestRunner
	case strings.Contains(command, "unittest"):
		return UnittestRunner
	case goJSON:
		return GoRunner
	}
	return OtherRunner
}

// NewPlan chooses how to collect the per-test results of command; isFile
// is as for UnittestAsPytest. Any command may run pytest, so the plugin is
// the default: a run whose report then has no process ran no pytest, and
// only its exit status counts.
func NewPlan(command string, isFile func(string) bool) Plan {
	if cmd, ok := GoTestJSON(command); ok {
		return Plan{Command: cmd, GoJSON: true, Note: "per-test results from go test -json: `" + cmd + "`", Runner: runnerOf(command, true)}
	}
	if cmd, ok := CargoTest(command); ok {
		return Plan{Command: cmd, Cargo: true, Note: "per-test results from libtest's output of `" + cmd + "` (a runner-written report: the tripwire watches no cargo test)", Runner: runnerOf(command, false)}
	}
	if cmd, ok := UnittestAsPytest(command, isFile); ok {
		return Plan{Command: cmd, Note: "per-test results from unittest's tests run by pytest: `" + cmd + "`", Runner: runnerOf(command, false)}
	}
	return Plan{Command: command, Note: "per-test results from pytest, if `" + command + "` runs it; from anything else only the exit status counts",
		Runner: runnerOf(command, false)}
}

// Parse reads a run's results: stdout for go test -json, stdout and
// stderr for cargo test, else the report channel's records, with paths
// relative to root as for ParsePytest, and when they hold no pytest
// session, the JUnit XML and Jest JSON report files the plan asked for,
// if the run wrote any (ParseReportFiles; files left out make the report
// truncated).
func (p Plan) Parse(out Output, root string) *Report {
	switch {
	case p.GoJSON:
		return ParseGoTest(out.Stdout)
	case p.Cargo:
		return ParseCargoTest(out.Stdout, out.Stderr)
	}
	rep := ParsePytest(out.Channel, root)
	if len(rep.Processes) > 0 || len(p.Reports) == 0 || len(out.ReportFiles) == 0 && !out.ReportFilesCut {
		return rep
	}
	rep = parseReportFiles(out.ReportFiles, root, out.Stdout, out.Stderr)
	rep.Truncated = rep.Truncated || out.ReportFilesCut
	return rep
}

// Pytest is one pytest invocation of a test command, split into its
// parts; FindPytest finds it.
type Pytest struct {
	// Setup are the shell commands before the invocation that shape its
	// environment (cd, export, source, assignments), each as written; Cd
	// reports that one of them changes the directory.
	Setup []string
	Cd    bool
	// Prefix starts pytest: VAR=value assignments (after env, if any),
	// then the interpreter with its own options and -m pytest, or the
	// pytest executable.
	Prefix []string
	// Options are the invocation's options, with their values, that do
	// not choose which tests run.
	Options []string
	// Selection are the options, with their values, that choose the
	// tests or stop the run early (-k, -m, -x, --maxfail, --ignore,
	// --deselect, --lf, --sw, --collect-only and the like).
	Selection []string
	// Paths are its positional arguments: files, directories, node ids.
	Paths []string
	// DoubleDash reports a `--`, after which every word is positional.
	DoubleDash bool
	// Plain reports that the invocation is the whole command.
	Plain bool
	// skip says why the first of Selection may leave tests out.
	skip string
}

// pytestValued are pytest's options (and common plugins') that take a
// value in the next word when it is not attached with "=".
var pytestValued = map[string]bool{
	"-k": true, "-m": true, "-p": true, "-c": true, "-o": true, "-W": true, "-r": true, "-n": true,
	"--maxfail": true, "--ignore": true, "--ignore-glob": true, "--deselect": true, "--rootdir": true,
	"--confcutdir": true, "--basetemp": true, "--tb": true, "--capture": true, "--durations": true,
	"--durations-min": true, "--junitxml": true, "--junit-xml": true, "--junit-prefix": true,
	"--log-level": true, "--log-format": true, "--log-date-format": true, "--log-cli-level": true,
	"--log-file": true, "--log-file-level": true, "--import-mode": true, "--override-ini": true,
	"--config-file": true, "--cov": true, "--cov-report": true, "--cov-config": true, "--dist": true,
	"--numprocesses": true, "--timeout": true, "--lfnf": true, "--last-failed-no-failures": true,
	"--show-capture": true, "--color": true, "--doctest-glob": true, "--pythonwarnings": true,
	"--keyword": true, "--markers-expr": true, "--strict-config-file": true, "--assert": true,
}

// pytestSelection are the options that choose which tests run or stop
// the run early, each with why the tests it names may not run.
var pytestSelection = map[string]string{
	"-k": "its -k option may deselect them", "--keyword": "its -k option may deselect them",
	"-m":       "its -m option may deselect them",
	"--ignore": "its --ignore option may leave them out", "--ignore-glob": "its --ignore-glob option may leave them out",
	"--deselect": "its --deselect option may leave them out",
	"-x":         "it stops at the first failure (-x), which may come before them", "--exitfirst": "it stops at the first failure (-x), which may come before them",
	"--maxfail": "it stops after --maxfail failures, which may come before them",
	"--sw":      "it stops at the first failure (--sw), which may come before them", "--stepwise": "it stops at the first failure (--sw), which may come before them",
	"--sw-skip": "it stops at the second failure (--sw-skip)", "--stepwise-skip": "it stops at the second failure (--sw-skip)",
	"--lf": "its --lf option runs only the tests that failed last", "--last-failed": "its --lf option runs only the tests that failed last",
	"--lfnf": "its --lfnf option may run no test", "--last-failed-no-failures": "its --lfnf option may run no test",
	"--co": "it only collects tests (--collect-only)", "--collect-only": "it only collects tests (--collect-only)",
	"--setup-only": "it runs no test (--setup-only)", "--setup-plan": "it runs no test (--setup-plan)",
}

// pytestFlags are the one-letter options of pytest that take no value,
// which may be bundled ("-xvs").
const pytestFlags = "xvqslhVF"

// interpreterValued are the options of the Python interpreter that take a
// value in the next word.
var interpreterValued = map[string]bool{"-W": true, "-X": true}

// FindPytest finds the pytest invocation of a test command: the command
// itself when it is one plain invocation (see splitWords), else the first
// plain pytest invocation of a list of commands (&&, ||, ;, |, newlines),
// with the commands before it that shape its environment as its Setup.
// isPath reports whether a slash-separated path relative to the
// command's directory exists (file or directory): a word after an option
// pytest does not know is its value unless it names a path. ok is false
// when no invocation is recognised.
func FindPytest(command string, isPath func(string) bool) (Pytest, bool) {
	if words, ok := splitWords(command); ok {
		p, ok := pytestWords(words, isPath)
		p.Plain = ok
		return p, ok
	}
	segs, ok := shellSegments(command)
	if !ok {
		return Pytest{}, false
	}
	var setup []string
	cd := false
	for _, seg := range segs {
		words, ok := splitWords(seg)
		if !ok {
			setup, cd = nil, false
			continue
		}
		if p, ok := pytestWords(words, isPath); ok {
			p.Setup, p.Cd = setup, cd
			return p, true
		}
		switch i := skipAssignments(words); {
		case i == len(words) || words[0] == "export":
			setup = append(setup, seg)
		case i == 0 && words[0] == "cd":
			setup, cd = append(setup, seg), true
		case i == 0 && (words[0] == "source" || words[0] == "."):
			setup = append(setup, seg)
		}
	}
	return Pytest{}, false
}

// shellSegments splits a command at the shell's list and pipe operators
// and newlines outside quotes; ok is false for a command with a
// backslash, a subshell, a here-document or an unclosed quote.
func shellSegments(command string) ([]string, bool) {
	var segs []string
	start := 0
	cut := func(i, width int) {
		if s := strings.TrimSpace(command[start:i]); s != "" {
			segs = append(segs, s)
		}
		start = i + width
	}
	for i := 0; i < len(command); i++ {
		switch c := command[i]; c {
		case '\'', '"':
			end := strings.IndexByte(command[i+1:], c)
			if end < 0 {
				return nil, false
			}
			i += end + 1
		case '\\', '(', ')', '`', '{', '}':
			return nil, false
		case '<':
			if strings.HasPrefix(command[i:], "<<") {
				return nil, false
			}
		case '&', '|':
			if i+1 < len(command) && command[i+1] == c {
				cut(i, 2)
				i++
			} else if i > 0 && command[i-1] == '>' || i+1 < len(command) && command[i+1] == '>' {
				// A redirection such as 2>&1 or &>.
			} else {
				cut(i, 1)
			}
		case ';', '\n':
			cut(i, 1)
		}
	}
	cut(len(command), 0)
	return segs, len(segs) > 0
}

// pytestWords splits the words of one command into a pytest invocation.
func pytestWords(words []string, isPath func(string) bool) (Pytest, bool) {
	i, ok := pytestStart(words)
	if !ok {
		return Pytest{}, false
	}
	p := Pytest{Prefix: slices.Clone(words[:i])}
	args := words[i:]
	for k := 0; k < len(args); k++ {
		w := args[k]
		switch {
		case p.DoubleDash || !strings.HasPrefix(w, "-") || w == "-":
			p.Paths = append(p.Paths, w)
		case w == "--":
			p.DoubleDash = true
		case strings.HasPrefix(w, "--"):
			k = p.longOption(args, k, isPath)
		default:
			k = p.shortOptions(args, k)
		}
	}
	return p, true
}

// pytestStart finds where pytest's own arguments start in the words of a
// command: after assignments, env and its assignments, then pytest (or
// py.test), or a Python interpreter with its options and -m pytest. It
// reports false when the command does not start pytest so.
func pytestStart(words []string) (int, bool) {
	i := skipAssignments(words)
	if i < len(words) && words[i] == "env" {
		i += 1 + skipAssignments(words[i+1:])
	}
	if i >= len(words) {
		return 0, false
	}
	switch base := path.Base(words[i]); {
	case base == "pytest" || base == "py.test":
		return i + 1, true
	case !python.MatchString(base):
		return 0, false
	}
	for i++; i < len(words) && words[i] != "-m"; i++ {
		if !strings.HasPrefix(words[i], "-") || words[i] == "-c" {
			return 0, false
		}
		if interpreterValued[words[i]] {
			i++
		}
	}
	if i+1 >= len(words) || words[i+1] != "pytest" && words[i+1] != "py.test" {
		return 0, false
	}
	return i + 2, true
}

// longOption files the long option args[k], with its value when it takes
// one in the next word, and returns the index of the last word it used.
func (p *Pytest) longOption(args []string, k int, isPath func(string) bool) int {
	w := args[k]
	name, _, attached := strings.Cut(w, "=")
	opt := []string{w}
	valued := pytestValued[name] || !attached && k+1 < len(args) && !strings.HasPrefix(args[k+1], "-") && !isPath(nodeFile(args[k+1])) && !pytestKnownFlag(name)
	if !attached && valued && k+1 < len(args) {
		k++
		opt = append(opt, args[k])
	}
	p.addOption(name, opt)
	return k
}

// shortOptions files the one-letter options of args[k], possibly bundled
// (-xvs, -rA, -kexpr), the last with its value in the next word when it
// takes one there, and returns the index of the last word it used.
func (p *Pytest) shortOptions(args []string, k int) int {
	w := args[k]
	for j := 1; j < len(w); j++ {
		name := "-" + w[j:j+1]
		if !strings.Contains(pytestFlags, w[j:j+1]) && pytestValued[name] {
			opt := []string{w[:1] + w[j:]}
			if j+1 == len(w) && k+1 < len(args) {
				k++
				opt = []string{name, args[k]}
			}
			p.addOption(name, opt)
			return k
		}
		p.addOption(name, []string{name})
	}
	return k
}

// pytestKnownFlag reports a long option of pytest known to take no value.
func pytestKnownFlag(name string) bool {
	_, selection := pytestSelection[name]
	return selection && !pytestValued[name] || slices.Contains([]string{"--verbose", "--quiet", "--strict-markers",
		"--strict-config", "--strict", "--pyargs", "--runxfail", "--showlocals", "--no-header", "--no-summary",
		"--disable-warnings", "--disable-pytest-warnings", "--ff", "--failed-first", "--nf", "--new-first",
		"--cache-clear", "--full-trace", "--doctest-modules", "--noconftest", "--keep-duplicates",
		"--continue-on-collection-errors", "--trace-config", "--debug", "--help", "--version", "--fixtures",
		"--markers", "--cov-append", "--no-cov", "--forked"}, name)
}

// collectionSettings are the settings an -o option may override that
// choose which files, classes and functions are tests.
var collectionSettings = []string{"python_files", "python_classes", "python_functions"}

// addOption files an option of the invocation as a selection or not.
func (p *Pytest) addOption(name string, words []string) {
	if name == "-o" || name == "--override-ini" {
		setting, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(strings.Join(words, " "), name), "="), "=")
		if setting = strings.TrimSpace(setting); slices.Contains(collectionSettings, setting) {
			p.Selection = append(p.Selection, words...)
			p.skip = cmp.Or(p.skip, "its "+setting+" setting (-o) may not match them")
			return
		}
	}
	if why, ok := pytestSelection[name]; ok {
		p.Selection = append(p.Selection, words...)
		p.skip = cmp.Or(p.skip, why)
		return
	}
	p.Options = append(p.Options, words...)
}

// nodeFile is the file of a node id (the part before "::").
func nodeFile(id string) string {
	file, _, _ := strings.Cut(id, "::")
	return file
}

// skips says why the invocation's options may leave out tests it is told
// to run, or is empty.
func (p Pytest) skips() string {
	if p.DoubleDash {
		return "its `--` passes the words after it through as they are"
	}
	return p.skip
}

// covers reports whether the invocation's paths hold the test (a file or
// a node id): a path names it, or is a directory above a file named as
// pytest's default python_files are.
func (p Pytest) covers(test string) bool {
	file := nodeFile(test)
	for _, raw := range p.Paths {
		q := path.Clean(raw)
		switch {
		case q == test || q == file || strings.HasPrefix(test, q+"::"):
			return true
		case strings.Contains(q, "::") || !(q == "." || strings.HasPrefix(file, q+"/")):
		default:
			// pytest's default python_files: a setting of the
			// repository's that differs leaves the file out of the
			// run, and runTargets' second invocation runs it.
			base := path.Base(file)
			return strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py") || strings.HasSuffix(base, "_test.py")
		}
	}
	return false
}

// Targeting is how a test command is made to run some tests it may leave
// out; see WithTests.
type Targeting struct {
	// Command is the command to run: the test command, with the tests
	// added to its pytest invocation when Added.
	Command string
	Added   bool
	// Why says why the tests were not added, when the command's scope may
	// not hold them: those it leaves out are run by TestsCommand, in a
	// second invocation. Empty when Added or when its paths hold them.
	Why string
}

// WithTests returns the test command with tests (files or node ids)
// added to its pytest invocation, when the command is one plain pytest
// invocation whose paths do not already hold them and whose options skip
// none (-k, -m, --ignore, --deselect, -x, --maxfail, --lf, `--`); isPath
// is as for FindPytest. The tests go right after the invocation's prefix,
// before its options, so that no option of a plugin takes one for its
// value. A command that names no path runs its configured scope, which
// adding one would narrow: it is left as it is, as is any other command;
// Why says why when the tests may not run.
func WithTests(command string, tests []string, isPath func(string) bool) Targeting {
	p, ok := FindPytest(command, isPath)
	switch {
	case !ok:
		return Targeting{Command: command, Why: "it is not a pytest command Capsule can read"}
	case !p.Plain:
		return Targeting{Command: command, Why: "it is not one plain pytest invocation"}
	}
	if why := p.skips(); why != "" {
		return Targeting{Command: command, Why: why}
	}
	var add []string
	for _, t := range tests {
		if !p.covers(t) {
			add = append(add, t)
		}
	}
	switch {
	case len(add) == 0:
		return Targeting{Command: command}
	case len(p.Paths) == 0:
		return Targeting{Command: command, Why: "it names no test path, and adding one would narrow it to that path"}
	}
	return Targeting{Command: joinWords(slices.Concat(p.Prefix, add, p.Options, p.Paths)), Added: true}
}

// TestsCommand returns the command that runs tests (files or node ids),
// and only them, through the test command's pytest invocation: its
// environment-shaping commands (cd, export, source), its prefix (the
// assignments, the interpreter, -m pytest) and its options without those
// that choose tests. After a cd, the tests are given as absolute paths
// under root, the command's directory. When no pytest invocation is
// recognised, the tests run with `python3 -m pytest`, and note says so.
func TestsCommand(command string, tests []string, isPath func(string) bool, root string) (cmd, note string) {
	p, ok := FindPytest(command, isPath)
	if !ok {
		p = Pytest{Prefix: []string{"python3", "-m", "pytest"}}
		note = "no pytest invocation Capsule can read in the test command, so python3 -m pytest runs them"
	}
	args := slices.Clone(tests)
	if p.Cd {
		for i, t := range args {
			args[i] = path.Join(root, t)
		}
	}
	cmd = joinWords(slices.Concat(p.Prefix, args, p.Options))
	if len(p.Setup) > 0 {
		cmd = strings.Join(p.Setup, " && ") + " && " + cmd
	}
	return cmd, note
}
