package feedback

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/capsulehq/capsule/pipeline/harness"
)

// tbHeader starts a Python traceback.
const tbHeader = "Traceback (most recent call last):"

var (
	// frameRe matches a frame line; a SyntaxError location has no function.
	frameRe = regexp.MustCompile(`^  File "(.*)", line (\d+)(?:, in (.+))?$`)
	// excRe matches the first line of an exception: its type and message.
	excRe = regexp.MustCompile(`^([A-Za-z_][\w.]*)(?::(?: (.*))?)?$`)
	// repeatRe matches the line Python prints for repeated frames.
	repeatRe = regexp.MustCompile(`^  \[Previous line repeated \d+ more times?\]$`)
	// caretRe matches the carets under a source line.
	caretRe = regexp.MustCompile(`^\s*[\^~]+[\s\^~]*$`)
	// separatorRe matches the rules unittest and pytest draw between reports.
	separatorRe = regexp.MustCompile(`^(?:[=\-_]{10,}|(?:_ )+_)\s*$`)
	// bareExcRe matches an exception printed without a traceback, as the
	// harness prints one raised outside the code.
	bareExcRe = regexp.MustCompile(`^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Iteration))(?:: .*)?$`)
	// stdlibRe matches files of an installed Python's standard library.
	stdlibRe = regexp.MustCompile(`(?:^|/)lib(?:64)?/python\d+(?:\.\d+)?/`)
)

// maxLineLen is the length beyond which a line is taken for output rather
// than for the structure of a report: frames, titles and summaries are
// short. Exception lines can be long; only their start is matched.
const maxLineLen = 1000

// short returns line, or "" when it is too long to be structure.
func short(line string) string {
	if len(line) > maxLineLen {
		return ""
	}
	return line
}

// prefix returns the start of line that holds an exception's type.
func prefix(line string) string {
	return line[:min(len(line), maxLineLen)]
}

// frame is one entry of a traceback.
type frame struct {
	file   string
	line   int
	fn     string   // empty for the location of a SyntaxError
	src    []string // source lines, indented as Python prints them
	repeat string   // Python's "[Previous line repeated N more times]"
}

// pyError is a parsed Python traceback.
type pyError struct {
	frames []frame // all frames, outermost first
	typ    string  // the exception type, qualified as printed
	head   string  // the exception's first line
	detail []string
	// context is the head of the exception this one was raised while
	// handling, and how: "direct cause" or "during handling".
	context, contextHow string
}

// shortType returns the exception type without its module.
func (e pyError) shortType() string {
	return e.typ[strings.LastIndex(e.typ, ".")+1:]
}

// code returns the frames in the code under test, not in libraries or
// the harness.
func (e pyError) code() []frame {
	var out []frame
	for _, f := range e.frames {
		if !library(f.file) {
			out = append(out, f)
		}
	}
	return out
}

// library reports whether file belongs to the harness, the interpreter or
// an installed package rather than to the code under test.
func library(file string) bool {
	return path.Base(file) == harness.ScriptFile ||
		strings.HasPrefix(file, "<") ||
		strings.Contains(file, "/site-packages/") ||
		strings.Contains(file, "/dist-packages/") ||
		stdlibRe.MatchString(file)
}

// testFile reports whether file holds tests.
func testFile(file string) bool {
	base := path.Base(file)
	return base == harness.TestsFile || base == "conftest.py" ||
		strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") ||
		strings.HasPrefix(file, "tests/") || strings.Contains(file, "/tests/")
}

// lastError returns the last Python traceback in lines, the one that ended
// the run, or false when there is none.
func lastError(lines []string) (pyError, bool) {
	var (
		found, prev pyError
		ok          bool
		how         string
	)
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		start := -1
		if strings.Contains(line, tbHeader) {
			start = i + 1
		} else if m := frameRe.FindStringSubmatch(short(line)); m != nil && m[3] == "" {
			start = i // a SyntaxError printed without a traceback
		}
		if start < 0 {
			switch {
			case strings.HasPrefix(line, "The above exception was the direct cause"):
				how = "direct cause"
			case strings.HasPrefix(line, "During handling of the above exception"):
				how = "during handling"
			}
			continue
		}
		e, end, good := parseTraceback(lines, start)
		if !good {
			continue
		}
		if how != "" && ok {
			e.context, e.contextHow = prev.head, how
		}
		found, prev, ok, how = e, e, true, ""
		i = end - 1
	}
	return found, ok
}

// bareError returns the exception on the last line of lines, ignoring the
// harness's notes, when it was printed without a traceback.
func bareError(lines []string) (pyError, bool) {
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, harnessNote) {
			continue
		}
		m := bareExcRe.FindStringSubmatch(prefix(line))
		if m == nil {
			return pyError{}, false
		}
		return pyError{typ: m[1], head: line}, true
	}
	return pyError{}, false
}

// parseTraceback parses the frames and exception starting at lines[i] and
// returns the index of the first line after them.
func parseTraceback(lines []string, i int) (pyError, int, bool) {
	var e pyError
	for i < len(lines) {
		line := lines[i]
		if m := frameRe.FindStringSubmatch(short(line)); m != nil {
			n, _ := strconv.Atoi(m[2])
			e.frames = append(e.frames, frame{file: m[1], line: n, fn: m[3]})
			i++
			continue
		}
		if len(e.frames) == 0 || !strings.HasPrefix(line, "  ") {
			break
		}
		f := &e.frames[len(e.frames)-1]
		switch {
		case repeatRe.MatchString(short(line)):
			f.repeat = strings.TrimSpace(line)
		case f.fn != "" && caretRe.MatchString(short(line)):
			// Carets under a call say little once the source is quoted.
		case strings.HasPrefix(line, "    "):
			f.src = append(f.src, line)
		}
		i++
	}
	if i >= len(lines) {
		return e, i, false
	}
	m := excRe.FindStringSubmatch(prefix(lines[i]))
	if m == nil {
		return e, i, false
	}
	e.typ, e.head = m[1], lines[i]
	for i++; i < len(lines) && !endsException(lines[i]); i++ {
		e.detail = append(e.detail, lines[i])
	}
	for len(e.detail) > 0 && strings.TrimSpace(e.detail[len(e.detail)-1]) == "" {
		e.detail = e.detail[:len(e.detail)-1]
	}
	return e, i, true
}

// endsException reports whether line ends the message of an exception.
func endsException(line string) bool {
	return strings.HasPrefix(line, harnessNote) ||
		strings.Contains(line, tbHeader) ||
		strings.HasPrefix(line, "During handling of the above exception") ||
		strings.HasPrefix(line, "The above exception was the direct cause") ||
		separatorRe.MatchString(short(line))
}

// renderFrames formats frames as Python does, carets left out.
func renderFrames(frames []frame) string {
	var b strings.Builder
	for _, f := range frames {
		b.WriteString(`  File "` + f.file + `", line ` + strconv.Itoa(f.line))
		if f.fn != "" {
			b.WriteString(", in " + f.fn)
		}
		b.WriteByte('\n')
		for _, s := range f.src {
			b.WriteString(s + "\n")
		}
		if f.repeat != "" {
			b.WriteString("  " + f.repeat + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
