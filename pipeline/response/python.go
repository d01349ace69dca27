package response

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/capsulehq/capsule/internal/markdown"
)

var (
	// startRE matches a line that can only start Python code.
	startRE = regexp.MustCompile(`^(?:(?:async[ \t]+)?def[ \t]+\w|class[ \t]+\w|import[ \t]+\w|from[ \t]+[\w.]+[ \t]+import\b|@\w)`)
	// pythonLineRE matches a line that looks like a Python statement.
	pythonLineRE = regexp.MustCompile(`(?m)^[ \t]*(?:(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(|class[ \t]+\w|import[ \t]+\w|` +
		`from[ \t]+[\w.]+[ \t]+import\b|return\b|print\(|assert\b|@\w|` +
		`(?:if|elif|else|for|while|with|try|except)\b[^\n]*:[ \t]*(?:#.*)?$|` +
		`[A-Za-z_][\w.]*(?:\[[^\]\n]*\])?[ \t]*[-+*/%|&]?=[^=])`)
	// anyDefRE matches a definition at any level and captures its name.
	anyDefRE = regexp.MustCompile(`(?m)^[ \t]*(?:(?:async[ \t]+)?def|class)[ \t]+([\pL\pN_]+)`)
	// topLevelDefRE matches a definition at top level and captures its name.
	topLevelDefRE = regexp.MustCompile(`(?m)^(?:(?:async[ \t]+)?def|class)[ \t]+([\pL\pN_]+)`)
	// assignmentRE matches a top-level assignment such as "MOD = 10**9 + 7".
	assignmentRE = regexp.MustCompile(`^[A-Za-z_]\w*[ \t]*(?::[^=]+)?=[^=]`)
)

// pythonLangs are the fence tags taken as Python; an untagged block counts
// when its content looks like Python.
var pythonLangs = map[string]bool{"python": true, "py": true, "python3": true, "py3": true, "ipython": true}

// pythonLang reports whether a fence tag may hold Python.
func pythonLang(lang string) bool { return lang == "" || pythonLangs[lang] }

// looksLikePython reports whether some line of s looks like Python.
func looksLikePython(s string) bool { return pythonLineRE.MatchString(s) }

// startsLikePython reports whether line starts a definition or an import.
func startsLikePython(line string) bool { return startRE.MatchString(line) }

// defines reports whether code defines the function or class name.
func defines(code, name string) bool {
	for _, m := range anyDefRE.FindAllStringSubmatch(code, -1) {
		if m[1] == name {
			return true
		}
	}
	return false
}

// isWordRune reports whether r can be part of a Python identifier.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// wordSet returns the identifiers (and other words) in code.
func wordSet(code string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(code, func(r rune) bool { return !isWordRune(r) }) {
		set[w] = true
	}
	return set
}

// topLevelNames returns the functions and classes code defines at top level.
func topLevelNames(code string) []string {
	var names []string
	for _, m := range topLevelDefRE.FindAllStringSubmatch(code, -1) {
		names = append(names, m[1])
	}
	return names
}

// definitionsOnly reports whether every top-level statement of code is an
// import, a definition, a decorator, an assignment or a string (a docstring).
func definitionsOnly(code string) bool {
	for _, l := range strings.Split(code, "\n") {
		if l == "" || strings.ContainsRune(" \t#)]}\"'", rune(l[0])) {
			continue
		}
		if !startsLikePython(l) && !assignmentRE.MatchString(l) {
			return false
		}
	}
	return true
}

// isBareCode reports whether an answer is Python without any fence: no
// fence or section header, and the first line that is not blank or a
// comment starts a definition or an import.
func isBareCode(lines []string) bool {
	for _, l := range lines {
		if _, ok := markdown.OpenFence(l); ok {
			return false
		}
		if h, ok := parseHeader(l); ok && h.section.structural() {
			return false
		}
	}
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return startsLikePython(l)
		}
	}
	return false
}
