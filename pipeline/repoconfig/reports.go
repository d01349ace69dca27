package repoconfig

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

// UsualReports returns the globs of the JUnit XML files the runner that
// command names writes by default (Maven Surefire's
// target/surefire-reports, Gradle's build/test-results, cargo-nextest's
// target/nextest, jest-junit's junit.xml), and the runner's name; none
// for other commands. The first word that names a runner decides.
func UsualReports(command string) (globs []string, runner string) {
	for _, w := range programs(command) {
		for _, u := range usualReports {
			if w == u.word {
				return append([]string(nil), u.globs...), u.runner
			}
		}
	}
	return nil, ""
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
	return globs, "where " + runner + " writes them by default"
}
