package repo

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/capsulehq/capsule/pipeline/gate"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repocontext"
	"github.com/capsulehq/capsule/pipeline/response"
)

// javaReproClass is the Java reproducing test's class name; Surefire's
// default includes (*Test) collect it.
const javaReproClass = "CapsuleReproductionTest"

// Maven's source directories, relative to a module's directory.
const (
	javaMainDir = "src/main/java"
	javaTestDir = "src/test/java"
)

// javaName matches a Java package or a fully qualified class name.
var javaName = regexp.MustCompile(`^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*$`)

// javaSource splits the slash-separated path of a Java file under a Maven
// module's source directory dir (javaMainDir or javaTestDir) into the
// module's directory ("." for the root), its package and its class:
// "core/src/main/java/com/x/Y.java" is "core", "com.x", "Y". ok is false
// for another file, and for one in the default package.
func javaSource(p, dir string) (module, pkg, class string, ok bool) {
	if !strings.HasSuffix(p, ".java") {
		return "", "", "", false
	}
	i := strings.Index("/"+p, "/"+dir+"/")
	if i < 0 {
		return "", "", "", false
	}
	module = "."
	if i > 0 {
		module = p[:i-1]
	}
	rel := p[i+len(dir)+1:]
	pkg = strings.ReplaceAll(path.Dir(rel), "/", ".")
	class = strings.TrimSuffix(path.Base(rel), ".java")
	if path.Dir(rel) == "." || !javaName.MatchString(pkg) || !javaName.MatchString(class) {
		return "", "", "", false
	}
	return module, pkg, class, true
}

// placeJavaRepro chooses where a JUnit 5 reproducing test goes: in the
// package of the first main class the repository context ranks for the
// issue, under its Maven module's src/test/java (a module with a pom.xml:
// the root's, or a module's directory in a multi-module build); else in
// the package of the first test class the baseline ran. suites are the
// baseline's report's files, which Surefire names by the test classes'
// fully qualified names. The class is CapsuleReproductionTest, with a
// number when the name is taken. problem says why no test can be placed.
func placeJavaRepro(repo string, suites []string, rc repocontext.Context) (pl placement, problem string) {
	pl.lang = programmer.JavaTest
	var ran []string
	for _, s := range suites {
		if javaName.MatchString(s) && strings.Contains(s, ".") {
			ran = append(ran, s)
		}
	}
	if len(ran) == 0 {
		return pl, "the baseline's reports name no JUnit test class in a package to place a reproducing test beside"
	}
	module, mainClass := "", ""
	for _, in := range rc.Included {
		m, pkg, class, ok := javaSource(in.Path, javaMainDir)
		if ok && isFileIn(repo)(path.Join(m, "pom.xml")) {
			module, pl.pkgName, mainClass = m, pkg, class
			pl.Why = "in package " + pkg + ", which holds " + in.Path + ", the first main class the repository context ranks for the issue"
			break
		}
	}
	if module == "" {
		for _, s := range ran {
			if m := testClassModule(repo, s); m != "" {
				module, pl.pkgName = m, s[:strings.LastIndex(s, ".")]
				pl.Why = "in package " + pl.pkgName + ", of " + s + ", the first test class the baseline ran; the repository context ranks no main class of a Maven module"
				break
			}
		}
	}
	if module == "" {
		return pl, "no test class the baseline ran is under a Maven module's " + javaTestDir + "/"
	}
	dir := path.Join(module, javaTestDir, strings.ReplaceAll(pl.pkgName, ".", "/"))
	pl.near = javaNeighbour(repo, dir, mainClass)
	pl.class = javaReproClass
	for n := 2; taken(repo, path.Join(dir, pl.class+".java")); n++ {
		pl.class = fmt.Sprintf("CapsuleReproduction%dTest", n)
	}
	pl.Path = path.Join(dir, pl.class+".java")
	if module != "." {
		pl.Why += " (module " + module + "/)"
	}
	return pl, ""
}

// testClassModule is the Maven module (with a pom.xml) whose src/test/java
// holds the test class named by its fully qualified name, at the root or
// one or two directories down; "" when none does.
func testClassModule(repo, class string) string {
	rel := path.Join(javaTestDir, strings.ReplaceAll(class, ".", "/")+".java")
	for _, pattern := range []string{rel, path.Join("*", rel), path.Join("*", "*", rel)} {
		found, _ := filepath.Glob(filepath.Join(repo, filepath.FromSlash(pattern)))
		for _, f := range found {
			r, err := filepath.Rel(repo, f)
			if err != nil {
				continue
			}
			if m, _, _, ok := javaSource(filepath.ToSlash(r), javaTestDir); ok && isFileIn(repo)(path.Join(m, "pom.xml")) {
				return m
			}
		}
	}
	return ""
}

// javaNeighbour is the test class of dir shown to the test designer for
// its conventions: the one named after the main class (FooTest, FooTests,
// TestFoo), else the first (by name) *Test.java; "" when there is none.
func javaNeighbour(repo, dir, mainClass string) string {
	if mainClass != "" {
		for _, name := range []string{mainClass + "Test", mainClass + "Tests", "Test" + mainClass} {
			if p := path.Join(dir, name+".java"); isFileIn(repo)(p) {
				return p
			}
		}
	}
	entries, _ := os.ReadDir(filepath.Join(repo, filepath.FromSlash(dir)))
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), "Test.java") {
			return path.Join(dir, e.Name())
		}
	}
	return ""
}

// javaForbidden are what a reproducing JUnit class may not hold, read in
// its code without comments and string literals: each changes how the
// tests run, end or are reported.
var javaForbidden = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`\bstatic\s*\{`), "a static initialiser, which runs before its tests and can change how they run or end"},
	{regexp.MustCompile(`\baddShutdownHook\b`), "a JVM shutdown hook, which runs after the tests, when Surefire's reports are written"},
	{regexp.MustCompile(`\bSystem\s*\.\s*exit\b|\bRuntime\b[\s\S]{0,80}?\.\s*(?:exit|halt)\s*\(|\.\s*halt\s*\(`), "a call that ends the JVM (System.exit, Runtime.halt), which ends the run before its report"},
	{regexp.MustCompile(`@\s*(?:[\w.]+\.)?(?:ExtendWith|RegisterExtension)\b|\borg\s*\.\s*junit\s*\.\s*jupiter\s*\.\s*api\s*\.\s*extension\b`), "a JUnit extension, which can change how every test runs and what it reports"},
	{regexp.MustCompile(`\borg\s*\.\s*junit\s*\.\s*platform\s*\.\s*(?:launcher|engine)\b`), "the JUnit Platform's launcher or engine API, which registers listeners and engines for the whole run"},
}

// javaReports matches a reference to Surefire's report files, read in the
// file's whole text (string literals included).
var javaReports = regexp.MustCompile(`surefire-reports|\bTEST-[\w.$-]*\.xml\b`)

// javaTest matches a JUnit 5 test method's annotation.
var javaTest = regexp.MustCompile(`@\s*(?:org\s*\.\s*junit\s*\.\s*jupiter\s*\.\s*(?:api|params)\s*\.\s*)?(?:Test|RepeatedTest|TestFactory|TestTemplate|ParameterizedTest)\b`)

// javaPackage matches a compilation unit's package declaration.
var javaPackage = regexp.MustCompile(`^\s*(?:@[\w.]+\s*)*package\s+([\w.\s]+?)\s*;`)

// javaTypeDecl matches a type declaration's keyword and name.
var javaTypeDecl = regexp.MustCompile(`\b(?:class|interface|enum|record)\s+([\p{L}_$][\p{L}\p{N}_$]*)`)

// javaTestFile checks a reproducing JUnit class and gives its place in a
// run's report: its tests are those Surefire reports under the class's
// fully qualified name. It must declare package pkg, one top-level type,
// the class named class, at least one JUnit 5 test method, and nothing of
// javaForbidden nor a reference to Surefire's reports.
func javaTestFile(file, content, pkg, class string) (gate.TestFile, string) {
	code := javaCode(content)
	m := javaPackage.FindStringSubmatch(code)
	if m == nil {
		return gate.TestFile{}, fmt.Sprintf("the file declares no package; write class %s in package %s", class, pkg)
	}
	if got := strings.Join(strings.Fields(m[1]), ""); got != pkg {
		return gate.TestFile{}, fmt.Sprintf("the file is in package %s; write class %s in package %s", got, class, pkg)
	}
	types := topLevelTypes(code)
	switch {
	case len(types) == 0:
		return gate.TestFile{}, fmt.Sprintf("the file declares no class; write class %s", class)
	case len(types) > 1 || types[0] != class:
		return gate.TestFile{}, fmt.Sprintf("the file declares %s; declare one top-level class, %s, and put anything else inside it", strings.Join(types, ", "), class)
	}
	for _, f := range javaForbidden {
		if f.re.MatchString(code) {
			return gate.TestFile{}, "the class has " + f.why + "; write only test methods"
		}
	}
	if javaReports.MatchString(content) {
		return gate.TestFile{}, "the file names Surefire's report files, which a test may not touch; write only test methods"
	}
	if !javaTest.MatchString(code) {
		return gate.TestFile{}, "the class has no JUnit 5 test method (@Test from org.junit.jupiter.api)"
	}
	return gate.TestFile{Path: file, Suite: pkg + "." + class}, ""
}

// topLevelTypes lists the names of the types code (javaCode's) declares
// outside any brace.
func topLevelTypes(code string) []string {
	var names []string
	depth, start := 0, 0
	flush := func(end int) {
		for _, m := range javaTypeDecl.FindAllStringSubmatch(code[start:end], -1) {
			names = append(names, m[1])
		}
	}
	for i := 0; i < len(code); i++ {
		switch code[i] {
		case '{':
			if depth == 0 {
				flush(i)
			}
			depth++
		case '}':
			if depth--; depth == 0 {
				start = i + 1
			}
		}
	}
	if depth <= 0 {
		flush(len(code))
	}
	return names
}

// javaCode is Java source with its comments and the contents of its
// string, text block and character literals blanked (newlines kept), so
// that patterns read only code.
func javaCode(src string) string {
	b := []byte(src)
	blank := func(from, to int) { blankCode(b, from, to) }
	for i := 0; i < len(b); {
		switch {
		case strings.HasPrefix(src[i:], "//"):
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			blank(i, i+end)
			i += end
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				blank(i, len(b))
				return string(b)
			}
			blank(i, i+2+end+2)
			i += 2 + end + 2
		case strings.HasPrefix(src[i:], `"""`):
			end := strings.Index(src[i+3:], `"""`)
			for end >= 0 && escaped(src, i+3+end) {
				next := strings.Index(src[i+3+end+1:], `"""`)
				if next < 0 {
					end = -1
					break
				}
				end += 1 + next
			}
			if end < 0 {
				blank(i+3, len(b))
				return string(b)
			}
			blank(i+3, i+3+end)
			i += 3 + end + 3
		case src[i] == '"' || src[i] == '\'':
			q, j := src[i], i+1
			for j < len(src) && src[j] != q && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			blank(i+1, j)
			i = j + 1
		default:
			i++
		}
	}
	return string(b)
}

// escaped reports whether the character at i is escaped by an odd number
// of backslashes before it.
func escaped(s string, i int) bool {
	n := 0
	for k := i - 1; k >= 0 && s[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

// Bounds of the compiler's lines shown to the test designer.
const maxCompilerLines = 20

// ansiEscape matches a terminal colour sequence, which Maven writes even
// to a pipe.
var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")

// compilerLines are the lines of a run's output that name the file base
// (javac's errors, through Maven), without colours, at most
// maxCompilerLines: a JUnit class that does not compile leaves no report,
// and these say why.
func compilerLines(output, base string) string {
	var kept []string
	for _, line := range strings.Split(output, "\n") {
		if line = ansiEscape.ReplaceAllString(line, ""); strings.Contains(line, base) && len(kept) < maxCompilerLines {
			kept = append(kept, strings.TrimRight(line, "\r"))
		}
	}
	return strings.Join(kept, "\n")
}

// onlyFile says why a test designer's answer that writes other files
// than its test file is refused, or returns "": a JUnit class's tests
// could be changed by a resource beside it (a service file, a
// junit-platform.properties), and only the class is laid over the tree.
func onlyFile(answer, file string) string {
	parsed, _ := response.Parse(answer)
	var others []string
	for _, f := range parsed.Files {
		if p := path.Clean(f.Path); p != file && !slices.Contains(others, p) {
			others = append(others, p)
		}
	}
	if len(others) == 0 {
		return ""
	}
	return fmt.Sprintf("the answer also writes %s; the test is the one class in %s, and nothing else may be written", strings.Join(others, ", "), file)
}

// blankCode turns the bytes of b[from:to] (cut at len(b)) into spaces,
// keeping newlines, so that line numbers and offsets survive.
func blankCode(b []byte, from, to int) {
	for k := from; k < min(to, len(b)); k++ {
		if b[k] != '\n' {
			b[k] = ' '
		}
	}
}
