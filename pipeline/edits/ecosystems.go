package edits

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// This file holds the test infrastructure of the runners other than
// pytest: Jest, Vitest and Mocha, cargo's libtest, Maven Surefire, Gradle
// and the JUnit Platform, and go test. Whole files are named by
// ecosystemFile; files of which only some parts decide how tests run
// (package.json, Cargo.toml, pom.xml, build.gradle, go.mod, Go test files)
// are compared part by part, parsed, by ecosystemChange.

// ecosystemFile says why the file at the slash-separated path p is, as a
// whole, test infrastructure of a runner other than pytest, or returns "".
func ecosystemFile(p string) string {
	base := path.Base(p)
	stem, _, _ := strings.Cut(base, ".")
	dir := path.Dir(p)
	switch {
	case stem == "jest" && strings.HasPrefix(base, "jest.config."):
		return "Jest reads its settings from it: its setup files, reporters and environment decide how each test runs and how it is reported"
	case strings.HasPrefix(base, "vitest.config.") || strings.HasPrefix(base, "vitest.workspace.") || strings.HasPrefix(base, "vite.config."):
		return "Vitest reads its settings from it: its setup files, reporters and environment decide how each test runs and how it is reported"
	case stem == "setupTests" || strings.HasPrefix(base, "jest.setup.") || strings.HasPrefix(base, "vitest.setup."):
		return "Jest and Vitest run setup files before every test file"
	case strings.HasPrefix(base, ".mocharc") || base == "mocha.opts":
		return "it holds Mocha's settings, which can load files before the tests and choose the reporter"
	case stem == "babel" && strings.HasPrefix(base, "babel.config.") || base == ".babelrc" || strings.HasPrefix(base, ".babelrc."):
		return "Jest transforms every test file with Babel's settings, whose plugins can rewrite the tests"
	case base == ".npmrc" || base == ".yarnrc" || base == ".yarnrc.yml":
		return "it holds the package manager's settings, which can preload code into every Node process of the test script (node-options)"
	case slices.Contains(strings.Split(dir, "/"), "__mocks__"):
		return "Jest puts the modules of a __mocks__ directory in place of the real ones"
	case base == "build.rs":
		return "cargo compiles and runs build.rs before the tests, and it can change what they build"
	case path.Base(dir) == ".cargo" && (base == "config.toml" || base == "config"):
		return "it holds cargo's settings: target.*.runner runs every test binary through a program of its choice, and others choose the compiler and the environment"
	case path.Base(dir) == "services" && path.Base(path.Dir(dir)) == "META-INF" &&
		(strings.HasPrefix(base, "org.junit.platform.launcher.") || strings.HasPrefix(base, "org.junit.platform.engine.") || base == "org.junit.jupiter.api.extension.Extension"):
		return "the JUnit Platform loads the listeners, filters, test engines and extensions it names into every test run"
	case path.Base(dir) == ".mvn" && (base == "maven.config" || base == "jvm.config" || base == "extensions.xml"):
		return "Maven reads it on every run: it can set Surefire's properties (argLine, maven.test.failure.ignore) or load extensions"
	case base == "junit-platform.properties":
		return "it holds the JUnit Platform's settings: the extensions it loads, its listeners, which tests run"
	}
	return ""
}

// ecosystemChange reports how an edit of the file at the clean path p
// (old and new as for infrastructureChange) changes the parts of a file
// that decide how a runner other than pytest runs the tests and reports
// them, or returns two empty strings; handled reports that p is such a
// file.
func ecosystemChange(p string, old, new []byte) (what, why string, handled bool) {
	base := path.Base(p)
	switch {
	case base == "package.json":
		what, why = packageJSONChange(p, old, new)
	case base == "Cargo.toml":
		what, why = cargoTOMLChange(p, old, new)
	case base == "pom.xml":
		what, why = pomChange(p, old, new)
	case base == "build.gradle" || base == "build.gradle.kts":
		what, why = gradleChange(p, old, new)
	case base == "go.mod":
		what, why = goModChange(p, old, new)
	case strings.HasSuffix(base, "_test.go"):
		what, why = goTestChange(p, old, new)
	default:
		return "", "", false
	}
	return what, why, true
}

// packageJSONChange compares the parts of a package.json that decide how
// the tests run: Jest's and Mocha's settings and the test scripts (npm
// runs pretest and posttest around test). A file that does not parse
// cannot be checked, so a change to one is refused.
func packageJSONChange(p string, old, new []byte) (what, why string) {
	before, errBefore := parseJSONObject(old)
	after, errAfter := parseJSONObject(new)
	if err := errors.Join(errAfter, errBefore); err != nil {
		return p, fmt.Sprintf("it does not parse as JSON (%v), so its test scripts and Jest's settings cannot be checked", firstLine(err.Error()))
	}
	for _, key := range []string{"jest", "mocha", "babel"} {
		if !reflect.DeepEqual(before[key], after[key]) {
			return fmt.Sprintf("the %q key of %s", key, p), "it holds the test runner's settings (the rest of the file may change)"
		}
	}
	scripts := func(doc map[string]any) map[string]any {
		out := map[string]any{}
		m, _ := doc["scripts"].(map[string]any)
		for k, v := range m {
			if strings.HasPrefix(k, "test") || strings.HasPrefix(k, "pretest") || strings.HasPrefix(k, "posttest") {
				out[k] = v
			}
		}
		if _, ok := doc["scripts"]; ok && m == nil {
			out[""] = doc["scripts"] // scripts that are not an object
		}
		return out
	}
	if !reflect.DeepEqual(scripts(before), scripts(after)) {
		return "the test scripts of " + p, "npm, pnpm and yarn run them as the test command (the other scripts may change)"
	}
	return "", ""
}

// parseJSONObject decodes a JSON object; nil data is an empty one.
func parseJSONObject(data []byte) (map[string]any, error) {
	doc := map[string]any{}
	if data == nil {
		return doc, nil
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// cargoTOMLChange compares the parts of a Cargo.toml that decide how its
// tests are built and run: the [[test]] targets, the harness and test keys
// of every target, and [package]'s build script. A file that does not
// parse cannot be checked, so a change to one is refused.
func cargoTOMLChange(p string, old, new []byte) (what, why string) {
	before, errBefore := parseTOML(old)
	after, errAfter := parseTOML(new)
	if err := errors.Join(errAfter, errBefore); err != nil {
		return p, fmt.Sprintf("it does not parse as TOML (%v), so its test targets cannot be checked", firstLine(err.Error()))
	}
	if !reflect.DeepEqual(before["test"], after["test"]) {
		return "the [[test]] targets of " + p, "they decide how the integration tests are built and run, harness included (the rest of the file may change)"
	}
	if !reflect.DeepEqual(targetKeys(before), targetKeys(after)) {
		return "the harness and test keys of " + p, "harness = false replaces libtest, which reports the tests, by the target's own main (the rest of the file may change)"
	}
	if !reflect.DeepEqual(lookupTable(before, []string{"package", "build"}), lookupTable(after, []string{"package", "build"})) {
		return "the build key of [package] in " + p, "it names the build script cargo runs before the tests (the rest of the file may change)"
	}
	return "", ""
}

// targetKeys gathers the harness and test keys of a Cargo.toml's [lib],
// [[bin]], [[bench]] and [[example]] targets, by table and position.
func targetKeys(doc map[string]any) map[string]any {
	out := map[string]any{}
	keep := func(where string, t any) {
		m, _ := t.(map[string]any)
		for _, k := range []string{"harness", "test"} {
			if v, ok := m[k]; ok {
				out[where+"."+k] = v
			}
		}
	}
	keep("lib", doc["lib"])
	for _, kind := range []string{"bin", "bench", "example"} {
		switch ts := doc[kind].(type) {
		case []map[string]any:
			for i, t := range ts {
				keep(fmt.Sprintf("%s[%d]", kind, i), t)
			}
		case []any:
			for i, t := range ts {
				keep(fmt.Sprintf("%s[%d]", kind, i), t)
			}
		}
	}
	return out
}

// maxXMLDepth bounds the nesting of a pom.xml that is read.
const maxXMLDepth = 64

// xmlNode is an element of a parsed XML document.
type xmlNode struct {
	name     string
	text     string
	children []*xmlNode
}

// canon writes the node as one canonical line: element names, trimmed
// text, children in order; attributes and comments do not count.
func (n *xmlNode) canon(b *strings.Builder) {
	b.WriteString("<" + n.name + ">" + strings.TrimSpace(n.text))
	for _, c := range n.children {
		c.canon(b)
	}
	b.WriteString("</" + n.name + ">")
}

// child returns the text of n's first child element called name.
func (n *xmlNode) child(name string) string {
	for _, c := range n.children {
		if c.name == name {
			return strings.TrimSpace(c.text)
		}
	}
	return ""
}

// walk calls f on n and every element below it.
func (n *xmlNode) walk(f func(*xmlNode)) {
	f(n)
	for _, c := range n.children {
		c.walk(f)
	}
}

// parseXML reads an XML document into its element tree; nil data is an
// empty document.
func parseXML(data []byte) (*xmlNode, error) {
	root := &xmlNode{}
	if data == nil {
		return root, nil
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	// Any declared encoding is read as its bytes: only equality counts.
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	stack := []*xmlNode{root}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) > maxXMLDepth {
				return nil, fmt.Errorf("elements nested more than %d deep", maxXMLDepth)
			}
			n := &xmlNode{name: t.Name.Local}
			top := stack[len(stack)-1]
			top.children = append(top.children, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top := stack[len(stack)-1]
			top.text += string(t)
		}
	}
	return root, nil
}

// surefirePlugins are the Maven plugins that run the tests.
var surefirePlugins = []string{"maven-surefire-plugin", "maven-failsafe-plugin", "surefire", "failsafe"}

// testProperty reports whether a Maven property configures the test run:
// Surefire's argLine and its own properties, and the like.
func testProperty(name string) bool {
	if name == "argLine" || name == "skipTests" || name == "skipITs" {
		return true
	}
	for _, prefix := range []string{"surefire.", "failsafe.", "maven.test.", "junit."} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// pomSections returns the parts of a pom.xml that decide how the tests
// run, each as a canonical line: the Surefire and Failsafe plugin
// sections, plugins with an execution bound to a test phase, and the test
// properties, wherever they are (build, pluginManagement, profiles).
func pomSections(doc *xmlNode) []string {
	var out []string
	doc.walk(func(n *xmlNode) {
		switch n.name {
		case "plugin":
			bound := false
			n.walk(func(c *xmlNode) {
				bound = bound || c.name == "phase" && strings.Contains(strings.ToLower(c.text), "test")
			})
			if slices.Contains(surefirePlugins, n.child("artifactId")) || bound {
				var b strings.Builder
				n.canon(&b)
				out = append(out, b.String())
			}
		case "properties":
			for _, c := range n.children {
				if testProperty(c.name) {
					var b strings.Builder
					c.canon(&b)
					out = append(out, b.String())
				}
			}
		}
	})
	return out
}

// pomChange compares the test configuration of a pom.xml (pomSections).
// A file that does not parse cannot be checked, so a change to one is
// refused.
func pomChange(p string, old, new []byte) (what, why string) {
	before, errBefore := parseXML(old)
	after, errAfter := parseXML(new)
	if err := errors.Join(errAfter, errBefore); err != nil {
		return p, fmt.Sprintf("it does not parse as XML (%v), so its Surefire configuration cannot be checked", firstLine(err.Error()))
	}
	if !slices.Equal(pomSections(before), pomSections(after)) {
		return "the test configuration of " + p, "the Surefire and Failsafe plugins, plugins bound to a test phase and the test properties (argLine and the like) decide how the tests run and are reported (the rest of the file may change)"
	}
	return "", ""
}

// gradleHead matches the start of a Gradle block or statement that
// configures the test tasks: `test {`, `tasks.test`, `tasks.named("test")`,
// `tasks.withType(Test)`, `tasks.register<Test>(...)`, `test.…` and the
// like.
var gradleHead = regexp.MustCompile(`(?m)^[ \t]*(?:(?:tasks\.)?test\b|.*\bwithType\s*[(<]\s*Test\b|.*\bnamed\s*(?:<Test>)?\s*\(\s*["']test["']|.*\bregister\s*(?:<Test>)?\s*\(.*\bTest\b|.*\bTest::class\b|.*\btestOptions\b)`)

// gradleSections returns the test blocks and statements of a Gradle
// build script: each matched line with the brace-balanced block it opens,
// if any, white space trimmed from each line.
func gradleSections(src []byte) []string {
	text := string(src)
	var out []string
	for _, loc := range gradleHead.FindAllStringIndex(text, -1) {
		start := loc[0]
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text) - start
		}
		end += start
		if open := strings.IndexByte(text[start:end], '{'); open >= 0 {
			end = blockEnd(text, start+open)
		}
		var lines []string
		for line := range strings.SplitSeq(text[start:end], "\n") {
			if line = strings.TrimSpace(line); line != "" {
				lines = append(lines, line)
			}
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	return out
}

// blockEnd returns the index just past the bracket that closes the one
// at open in text, a brace or a square bracket, or the end of text.
func blockEnd(text string, open int) int {
	opening := text[open]
	closing := byte('}')
	if opening == '[' {
		closing = ']'
	}
	depth := 0
	for i := open; i < len(text); i++ {
		switch text[i] {
		case opening:
			depth++
		case closing:
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return len(text)
}

// gradleChange compares the test blocks of a Gradle build script.
func gradleChange(p string, old, new []byte) (what, why string) {
	if !slices.Equal(gradleSections(old), gradleSections(new)) {
		return "the test configuration of " + p, "the test task's blocks decide how the tests run and are reported (the rest of the file may change)"
	}
	return "", ""
}

// goModChange compares the replace directives of a go.mod whose target is
// a directory (./x, ../x, /x): they put a directory in place of a module
// the tests import.
func goModChange(p string, old, new []byte) (what, why string) {
	if !slices.Equal(localReplaces(old), localReplaces(new)) {
		return "the replace directives of " + p + " that point to directories", "they put a directory in place of a module the tests import (the rest of the file may change)"
	}
	return "", ""
}

// localReplaces returns a go.mod's replace directives that point to a
// directory, each as "old => new" with white space and comments dropped,
// sorted.
func localReplaces(src []byte) []string {
	var out []string
	inBlock := false
	for line := range strings.SplitSeq(string(src), "\n") {
		line, _, _ = strings.Cut(line, "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			continue
		case inBlock && fields[0] == ")":
			inBlock = false
			continue
		case !inBlock && fields[0] == "replace":
			if len(fields) > 1 && fields[1] == "(" {
				inBlock = true
				continue
			}
			fields = fields[1:]
		case !inBlock:
			continue
		}
		i := slices.Index(fields, "=>")
		if i < 0 || i+1 >= len(fields) {
			continue
		}
		target := fields[i+1]
		if target == "." || target == ".." || strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../") || strings.HasPrefix(target, "/") {
			out = append(out, strings.Join(fields, " "))
		}
	}
	slices.Sort(out)
	return out
}

// goTestChange compares the TestMain and init functions of a Go test file,
// which go test runs before any test; TestMain decides the test binary's
// exit status.
func goTestChange(p string, old, new []byte) (what, why string) {
	if !slices.Equal(goStartup(old), goStartup(new)) {
		return "the TestMain and init functions of " + p, "go test runs them before any test, and TestMain decides how the test binary ends"
	}
	return "", ""
}

// goStartupLine matches the line that declares a TestMain or init
// function, for a file that does not parse.
var goStartupLine = regexp.MustCompile(`(?m)^func\s+(?:TestMain|init)\s*\(.*$`)

// goStartup returns the source of a Go file's TestMain and init functions
// (those without a receiver), in order. When the file does not parse, it
// returns the lines that declare them.
func goStartup(src []byte) []string {
	if src == nil {
		return nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x_test.go", src, parser.SkipObjectResolution)
	if err != nil {
		var out []string
		for _, m := range goStartupLine.FindAll(src, -1) {
			out = append(out, "unparsed "+strings.TrimSpace(string(m)))
		}
		return out
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name != "TestMain" && fn.Name.Name != "init" {
			continue
		}
		start, end := fset.Position(fn.Pos()).Offset, fset.Position(fn.End()).Offset
		out = append(out, string(src[start:end]))
	}
	return out
}

// firstLine returns s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
