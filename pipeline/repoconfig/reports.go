package repoconfig

import (
	"path"
	"strings"
)

// usualReports are the places where runners write JUnit XML reports by
// default, by a word of the test command that names the runner.
var usualReports = []struct {
	word, runner string
	globs        []string
}{
	{"mvn", "Maven Surefire", []string{"**/target/surefire-reports/TEST-*.xml"}},
	{"gradle", "Gradle", []string{"**/build/test-results/test/TEST-*.xml"}},
	{"gradlew", "Gradle", []string{"**/build/test-results/test/TEST-*.xml"}},
	{"nextest", "cargo-nextest", []string{"target/nextest/*/junit.xml"}},
	{"jest", "jest-junit", []string{"junit.xml"}},
	{"vitest", "Vitest's junit reporter", []string{"junit.xml"}},
	{"npm", "jest-junit or Vitest's junit reporter", []string{"junit.xml"}},
	{"pnpm", "jest-junit or Vitest's junit reporter", []string{"junit.xml"}},
	{"yarn", "jest-junit or Vitest's junit reporter", []string{"junit.xml"}},
}

// UsualReports returns the globs of the report files a run of command
// writes, and who writes them: the files its --outputFile options name
// (Jest's and Vitest's JSON reports, as detection asks for them), else
// the JUnit XML files the runner that command names writes by default
// (Maven Surefire's target/surefire-reports, Gradle's build/test-results,
// cargo-nextest's target/nextest, jest-junit's junit.xml); none for other
// commands. The first word that names a runner decides.
func UsualReports(command string) (globs []string, runner string) {
	words := strings.FieldsFunc(command, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()", r) })
	if outputs := outputFiles(words); len(outputs) > 0 {
		return outputs, outputRunner
	}
	for _, w := range words {
		w = w[strings.LastIndexByte(w, '/')+1:]
		for _, u := range usualReports {
			if w == u.word {
				return append([]string(nil), u.globs...), u.runner
			}
		}
	}
	return nil, ""
}

// outputRunner is what UsualReports names for the report files a
// command's --outputFile options name.
const outputRunner = "the command's --outputFile"

// outputFiles returns the files a command's --outputFile options name
// (Jest's --outputFile=F, Vitest's --outputFile=F and --outputFile.json=F,
// --outputFile.junit=F), leaving out a name that is not a plain relative
// path inside the workspace.
func outputFiles(words []string) []string {
	var out []string
	for i, w := range words {
		name, value, ok := strings.Cut(w, "=")
		if name != "--outputFile" && !strings.HasPrefix(name, "--outputFile.") {
			continue
		}
		if !ok && i+1 < len(words) {
			value = words[i+1]
		}
		value = strings.Trim(value, `"'`)
		if value == "" || path.IsAbs(value) || strings.ContainsAny(value, "*?[]{}$`\\") || strings.HasPrefix(path.Clean(value), "..") {
			continue
		}
		out = append(out, path.Clean(value))
	}
	return out
}

// ReportGlobs returns the globs of the JUnit XML files to read after a run
// of command, and why: the configuration's reports when it names any,
// else the usual places of command's runner (UsualReports).
func (c Config) ReportGlobs(command string) (globs []string, reason string) {
	if c.Reports != nil {
		src := c.Source
		if src == "" {
			src = "the configuration"
		}
		return append([]string(nil), c.Reports...), "reports: in " + src
	}
	globs, runner := UsualReports(command)
	if globs == nil {
		return nil, ""
	}
	if runner == outputRunner {
		return globs, "where " + runner + " writes them"
	}
	return globs, "where " + runner + " writes them by default"
}
