package edits

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestEcosystemInfrastructure covers the test infrastructure of the
// runners other than pytest, file by file: whole files, and the parts of
// package.json, Cargo.toml, pom.xml, build.gradle, go.mod and Go test
// files that are compared parsed.
func TestEcosystemInfrastructure(t *testing.T) {
	const (
		pkg = `{"name": "calc", "version": "1.0.0", "scripts": {"test": "jest", "lint": "eslint ."},
  "jest": {"setupFiles": ["<rootDir>/test/setup.js"]}, "devDependencies": {"jest": "^29"}}`
		cargo = "[package]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1\"\n\n[[test]]\nname = \"it\"\npath = \"tests/it.rs\"\n"
		pom   = `<?xml version="1.0" encoding="UTF-8"?>
<project><modelVersion>4.0.0</modelVersion><artifactId>calc</artifactId><version>1.0</version>
  <properties><maven.compiler.release>17</maven.compiler.release></properties>
  <dependencies><dependency><artifactId>commons-lang3</artifactId><version>3.12</version></dependency></dependencies>
  <build><plugins>
    <plugin><artifactId>maven-surefire-plugin</artifactId><version>2.22.2</version>
      <configuration><includes><include>**/*Test.java</include></includes></configuration></plugin>
  </plugins></build>
</project>
`
		gradle = "plugins {\n    id 'java'\n}\n\ndependencies {\n    testImplementation 'org.junit.jupiter:junit-jupiter:5.9.1'\n}\n\ntest {\n    useJUnitPlatform()\n}\n"
		gomod  = "module example.com/calc\n\ngo 1.22\n\nrequire example.com/dep v1.0.0\n\nreplace example.com/dep => ./internal/dep // local copy\n"
		gotest = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n"
	)
	testMain := "\nfunc TestMain(m *testing.M) {\n\tm.Run()\n\tos.Exit(0)\n}\n"
	checkInfrastructureChanges(t, []infrastructureCase{
		{"jest config", "jest.config.js", "-", "module.exports = {}\n", "jest.config.js"},
		{"jest config in a package", "packages/a/jest.config.ts", "export default {}\n", "export default {bail: 1}\n", "packages/a/jest.config.ts"},
		{"vitest config", "vitest.config.mts", "-", "export default {}\n", "vitest.config.mts"},
		{"vite config", "web/vite.config.ts", "export default {}\n", "-", "web/vite.config.ts"},
		{"setupTests", "src/setupTests.ts", "-", "import '@testing-library/jest-dom'\n", "src/setupTests.ts"},
		{"jest.setup", "jest.setup.js", "x\n", "y\n", "jest.setup.js"},
		{"mocharc", ".mocharc.yml", "-", "require: evil.js\n", ".mocharc.yml"},
		{"mocharc json", "sub/.mocharc.json", "{}", "{\"reporter\": \"dot\"}", "sub/.mocharc.json"},
		{"mocha.opts", "test/mocha.opts", "-", "--require evil.js\n", "test/mocha.opts"},
		{"babel config", "babel.config.js", "-", "module.exports = {plugins: ['./evil']}\n", "babel.config.js"},
		{"babelrc", "packages/a/.babelrc", "{}", "{\"plugins\": [\"./evil\"]}", "packages/a/.babelrc"},
		{"npmrc", ".npmrc", "-", "node-options=--require ./evil.js\n", ".npmrc"},
		{"yarnrc", ".yarnrc.yml", "nodeLinker: node-modules\n", "nodeLinker: pnp\n", ".yarnrc.yml"},
		{"a module named babel", "src/babel.js", "-", "x\n", ""},
		{"package.json: babel key", "package.json", pkg, strings.Replace(pkg, `"jest": {`, `"babel": {"plugins": ["./evil"]}, "jest": {`, 1), `the "babel" key of package.json`},
		{"a mock", "src/__mocks__/fs.js", "-", "module.exports = {}\n", "src/__mocks__/fs.js"},
		{"a nested mock", "__mocks__/@scope/pkg/index.js", "-", "x\n", "__mocks__/@scope/pkg/index.js"},
		{"build.rs", "build.rs", "-", "fn main() {}\n", "build.rs"},
		{"build.rs of a member", "crates/a/build.rs", "fn main() {}\n", "fn main() { std::process::exit(0) }\n", "crates/a/build.rs"},
		{"cargo config", ".cargo/config.toml", "-", "[target.x86_64-unknown-linux-gnu]\nrunner = \"true\"\n", ".cargo/config.toml"},
		{"old cargo config", "sub/.cargo/config", "-", "[build]\n", "sub/.cargo/config"},
		{"launcher listener", "src/test/resources/META-INF/services/org.junit.platform.launcher.LauncherSessionListener", "-", "evil.Hook\n",
			"src/test/resources/META-INF/services/org.junit.platform.launcher.LauncherSessionListener"},
		{"test execution listener", "src/main/resources/META-INF/services/org.junit.platform.launcher.TestExecutionListener", "-", "evil.L\n",
			"src/main/resources/META-INF/services/org.junit.platform.launcher.TestExecutionListener"},
		{"jupiter extension", "src/test/resources/META-INF/services/org.junit.jupiter.api.extension.Extension", "-", "evil.E\n",
			"src/test/resources/META-INF/services/org.junit.jupiter.api.extension.Extension"},
		{"test engine", "src/test/resources/META-INF/services/org.junit.platform.engine.TestEngine", "-", "evil.Engine\n",
			"src/test/resources/META-INF/services/org.junit.platform.engine.TestEngine"},
		{"maven.config", ".mvn/maven.config", "-", "-Dmaven.test.failure.ignore=true\n", ".mvn/maven.config"},
		{"maven extensions", ".mvn/extensions.xml", "-", "<extensions/>\n", ".mvn/extensions.xml"},
		{"maven wrapper properties", ".mvn/wrapper/maven-wrapper.properties", "-", "x=1\n", ""},
		{"other service", "src/main/resources/META-INF/services/java.sql.Driver", "-", "calc.Driver\n", ""},
		{"junit-platform.properties", "src/test/resources/junit-platform.properties", "-", "junit.jupiter.extensions.autodetection.enabled=true\n",
			"src/test/resources/junit-platform.properties"},
		{"a module named like a config", "src/jestConfig.js", "-", "x\n", ""},

		{"package.json: jest key", "package.json", pkg, strings.Replace(pkg, "test/setup.js", "evil.js", 1), `the "jest" key of package.json`},
		{"package.json: test script", "package.json", pkg, strings.Replace(pkg, `"test": "jest"`, `"test": "jest || true"`, 1), "the test scripts of package.json"},
		{"package.json: pretest", "package.json", pkg, strings.Replace(pkg, `"lint"`, `"pretest": "node evil.js", "lint"`, 1), "the test scripts of package.json"},
		{"package.json: test:unit", "package.json", pkg, strings.Replace(pkg, `"lint"`, `"test:unit": "true", "lint"`, 1), "the test scripts of package.json"},
		{"package.json: mocha key", "package.json", pkg, strings.Replace(pkg, `"jest": {`, `"mocha": {"require": "x.js"}, "jest": {`, 1), `the "mocha" key of package.json`},
		{"package.json: version", "package.json", pkg, strings.Replace(pkg, "1.0.0", "1.0.1", 1), ""},
		{"package.json: lint script", "package.json", pkg, strings.Replace(pkg, "eslint .", "eslint src", 1), ""},
		{"package.json: reformatted", "package.json", pkg, strings.ReplaceAll(pkg, " ", ""), ""},
		{"package.json: broken", "package.json", pkg, pkg + ",", "package.json"},
		{"package.json: new without tests", "sub/package.json", "-", `{"name": "x"}`, ""},
		{"package.json: new with a test script", "sub/package.json", "-", `{"scripts": {"test": "true"}}`, "the test scripts of sub/package.json"},

		{"Cargo.toml: [[test]]", "Cargo.toml", cargo, strings.Replace(cargo, "tests/it.rs", "tests/other.rs", 1), "the [[test]] targets of Cargo.toml"},
		{"Cargo.toml: harness of a test", "Cargo.toml", cargo, cargo + "harness = false\n", "the [[test]] targets of Cargo.toml"},
		{"Cargo.toml: harness of lib", "Cargo.toml", cargo, cargo + "\n[lib]\nharness = false\n", "the harness and test keys of Cargo.toml"},
		{"Cargo.toml: test of a bin", "Cargo.toml", cargo, cargo + "\n[[bin]]\nname = \"x\"\ntest = false\n", "the harness and test keys of Cargo.toml"},
		{"Cargo.toml: build script", "Cargo.toml", cargo, strings.Replace(cargo, "version = \"0.1.0\"", "version = \"0.1.0\"\nbuild = \"gen.rs\"", 1), "the build key of [package] in Cargo.toml"},
		{"Cargo.toml: a dependency", "Cargo.toml", cargo, strings.Replace(cargo, "serde = \"1\"", "serde = \"1.0.200\"", 1), ""},
		{"Cargo.toml: a bin without test keys", "Cargo.toml", cargo, cargo + "\n[[bin]]\nname = \"x\"\n", ""},
		{"Cargo.toml: broken", "Cargo.toml", cargo, cargo + "[[test\n", "Cargo.toml"},

		{"pom: surefire argLine", "pom.xml", pom, strings.Replace(pom, "<includes>", "<argLine>-javaagent:evil.jar</argLine><includes>", 1), "the test configuration of pom.xml"},
		{"pom: argLine property", "pom.xml", pom, strings.Replace(pom, "<maven.compiler", "<argLine>-javaagent:evil.jar</argLine><maven.compiler", 1), "the test configuration of pom.xml"},
		{"pom: skipTests property", "pom.xml", pom, strings.Replace(pom, "<maven.compiler", "<maven.test.failure.ignore>true</maven.test.failure.ignore><maven.compiler", 1), "the test configuration of pom.xml"},
		{"pom: plugin bound to test", "pom.xml", pom, strings.Replace(pom, "</plugins>", "<plugin><artifactId>exec-maven-plugin</artifactId><executions><execution><phase>test</phase></execution></executions></plugin></plugins>", 1), "the test configuration of pom.xml"},
		{"pom: surefire in a profile", "pom.xml", pom, strings.Replace(pom, "</project>", "<profiles><profile><build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId></plugin></plugins></build></profile></profiles></project>", 1), "the test configuration of pom.xml"},
		{"pom: a dependency", "pom.xml", pom, strings.Replace(pom, "3.12", "3.13", 1), ""},
		{"pom: compiler release", "pom.xml", pom, strings.Replace(pom, ">17<", ">21<", 1), ""},
		{"pom: comment and spacing", "pom.xml", pom, strings.Replace(pom, "<version>2.22.2</version>", "<!-- pinned -->\n      <version>2.22.2</version>", 1), ""},
		{"pom: broken", "pom.xml", pom, strings.Replace(pom, "</project>", "", 1), "pom.xml"},

		{"gradle: test block", "build.gradle", gradle, strings.Replace(gradle, "useJUnitPlatform()", "useJUnitPlatform()\n    ignoreFailures = true", 1), "the test configuration of build.gradle"},
		{"gradle kts: withType", "build.gradle.kts", gradle, gradle + "tasks.withType<Test> {\n    jvmArgs(\"-javaagent:evil.jar\")\n}\n", "the test configuration of build.gradle.kts"},
		{"gradle: a test statement", "build.gradle", gradle, gradle + "test.ignoreFailures = true\n", "the test configuration of build.gradle"},
		{"gradle: a dependency", "build.gradle", gradle, strings.Replace(gradle, "5.9.1", "5.9.2", 1), ""},

		{"go.mod: new local replace", "go.mod", gomod, gomod + "replace example.com/other => ../other\n", "the replace directives of go.mod that point to directories"},
		{"go.mod: replace in a block", "go.mod", gomod, gomod + "replace (\n\texample.com/x v1.0.0 => ./x\n)\n", "the replace directives of go.mod that point to directories"},
		{"go.mod: changed local replace", "go.mod", gomod, strings.Replace(gomod, "./internal/dep", "./internal/fake", 1), "the replace directives of go.mod that point to directories"},
		{"go.mod: comment of a replace", "go.mod", gomod, strings.Replace(gomod, "local copy", "vendored", 1), ""},
		{"go.mod: a module replace", "go.mod", gomod, gomod + "replace example.com/y => example.com/z v1.2.0\n", ""},
		{"go.mod: go version", "go.mod", gomod, strings.Replace(gomod, "1.22", "1.23", 1), ""},

		{"go test: new TestMain", "calc_test.go", gotest, strings.Replace(gotest, "\"testing\"", "(\n\t\"os\"\n\t\"testing\"\n)", 1) + testMain, "the TestMain and init functions of calc_test.go"},
		{"go test: new file with TestMain", "pkg/main_test.go", "-", "package pkg\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n" + testMain, "the TestMain and init functions of pkg/main_test.go"},
		{"go test: new init", "calc_test.go", gotest, gotest + "\nfunc init() { println(1) }\n", "the TestMain and init functions of calc_test.go"},
		{"go test: changed TestMain", "calc_test.go", gotest + testMain, gotest + strings.Replace(testMain, "m.Run()", "_ = m", 1), "the TestMain and init functions of calc_test.go"},
		{"go test: broken file with TestMain", "calc_test.go", gotest, gotest + "\nfunc TestMain(m *testing.M) {\n", "the TestMain and init functions of calc_test.go"},
		{"go test: new test", "calc_test.go", gotest, gotest + "\nfunc TestSub(t *testing.T) {}\n", ""},
		{"go test: a method called init", "calc_test.go", gotest, gotest + "\nfunc (s *suite) init() {}\n", ""},
		{"go: TestMain outside a test file", "calc.go", "-", "package calc\n\nfunc init() {}\n", ""},
	})
}

// TestRunnerTargets refuses edits of the files Jest's and Vitest's
// settings name, and only those.
func TestRunnerTargets(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	writeTree(t, repo, map[string]file{
		"package.json": {content: `{"scripts": {"test": "jest"}, "jest": {"setupFiles": ["<rootDir>/test/setup.js"], "testEnvironment": "node",` +
			` "reporters": ["default", ["./tools/reporter", {"out": "r.json"}]]}}`},
		"test/setup.js":           {content: "global.x = 1\n"},
		"tools/reporter.js":       {content: "module.exports = class {}\n"},
		"web/vitest.config.ts":    {content: "export default defineConfig({\n  test: {\n    setupFiles: ['./src/vitest-setup.ts'],\n    globalSetup: \"global.ts\",\n  },\n})\n"},
		"web/src/vitest-setup.ts": {content: "x\n"},
		"web/src/calc.ts":         {content: "export const add = (a: number, b: number) => a + b\n"},
		"src/calc.js":             {content: "exports.add = (a, b) => a + b\n"},
	})
	edits := []Edit{
		{Path: "test/setup.js", Content: "global.x = 2\n"},
		{Path: "tools/reporter.js", Content: "module.exports = class { onRunComplete() {} }\n"},
		{Path: "web/src/vitest-setup.ts", Content: "y\n"},
		{Path: "web/global.ts", Content: "export default () => {}\n"},
		{Path: "src/calc.js", Content: "exports.add = (a, b) => b + a\n"},
		{Path: "web/src/calc.ts", Content: "export const add = (a: number, b: number) => b + a\n"},
	}
	accepted, refused := Check(repo, edits, Rules{})
	want := []pathReason{
		{"test/setup.js", "you may not modify test/setup.js, which is test infrastructure: package.json names it as setupFiles, so the runner loads it into every test run; fix the code, not the tests"},
		{"tools/reporter.js", "you may not modify tools/reporter.js, which is test infrastructure: package.json names it as reporters, so the runner loads it into every test run; fix the code, not the tests"},
		{"web/src/vitest-setup.ts", "you may not modify web/src/vitest-setup.ts, which is test infrastructure: web/vitest.config.ts names it as setupFiles, so the runner loads it into every test run; fix the code, not the tests"},
		{"web/global.ts", "you may not add web/global.ts, which is test infrastructure: web/vitest.config.ts names it as globalSetup, so the runner loads it into every test run; fix the code, not the tests"},
	}
	if got := plain(refused); !reflect.DeepEqual(got, want) {
		t.Errorf("refused = %+v\nwant %+v", got, want)
	}
	if len(accepted) != 2 || accepted[0].Path != "src/calc.js" || accepted[1].Path != "web/src/calc.ts" {
		t.Errorf("accepted = %+v, want the two fixes", accepted)
	}
	if _, refused := Check(repo, edits, Rules{AllowTestInfrastructure: true}); len(refused) != 0 {
		t.Errorf("with AllowTestInfrastructure, refused = %+v", plain(refused))
	}
}

// TestTamperingAnswers holds one tampering answer per ecosystem, as a
// model could write it: each is refused, while the fix beside it stays.
func TestTamperingAnswers(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	writeTree(t, repo, map[string]file{
		// JavaScript: Jest with a setup file named in package.json.
		"js/package.json":    {content: `{"scripts": {"test": "jest --json --outputFile=capsule-jest.json"}, "jest": {"setupFiles": ["./test/setup.js"]}}`},
		"js/test/setup.js":   {content: "// polyfills\n"},
		"js/src/calc.js":     {content: "exports.add = (a, b) => a - b\n"},
		"js/calc.test.js":    {content: "test('add', () => expect(require('./src/calc').add(1, 2)).toBe(3))\n"},
		"java/pom.xml":       {content: "<project><build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId></plugin></plugins></build></project>\n"},
		"java/src/Calc.java": {content: "class Calc { int add(int a, int b) { return a - b; } }\n"},
		"go/calc.go":         {content: "package calc\n\nfunc Add(a, b int) int { return a - b }\n"},
		"go/calc_test.go":    {content: "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(Add(1, 2))\n\t}\n}\n"},
	})
	const passingJest = `{"numTotalTests":1,"numPassedTests":1,"numFailedTests":0,"success":true,"testResults":[]}`
	tests := []struct {
		name    string
		edits   []Edit
		refused []string // the paths refused; the rest is accepted
	}{
		{"a Jest setup file that writes a passing report", []Edit{
			{Path: "js/test/setup.js", Content: "afterAll(() => require('fs').writeFileSync('capsule-jest.json', '" + passingJest + "'))\n"},
			{Path: "js/src/calc.js", Content: "exports.add = (a, b) => a + b\n"},
		}, []string{"js/test/setup.js"}},
		{"a new Jest setup file and the package.json that names it", []Edit{
			{Path: "js/jest.setup.js", Content: "process.on('exit', () => require('fs').writeFileSync('capsule-jest.json', '" + passingJest + "'))\n"},
			{Path: "js/package.json", Content: `{"scripts": {"test": "jest --json --outputFile=capsule-jest.json"}, "jest": {"setupFiles": ["./test/setup.js", "./jest.setup.js"]}}`},
		}, []string{"js/jest.setup.js", "js/package.json"}},
		{"a JVM shutdown hook through the JUnit Platform and Surefire", []Edit{
			{Path: "java/src/test/java/Hook.java", Content: "public class Hook implements org.junit.platform.launcher.LauncherSessionListener {\n" +
				"  static { Runtime.getRuntime().addShutdownHook(new Thread(() -> rewriteSurefireReports())); }\n}\n"},
			{Path: "java/src/test/resources/META-INF/services/org.junit.platform.launcher.LauncherSessionListener", Content: "Hook\n"},
			{Path: "java/pom.xml", Content: "<project><build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId>" +
				"<configuration><argLine>-javaagent:hook.jar</argLine></configuration></plugin></plugins></build></project>\n"},
			{Path: "java/src/Calc.java", Content: "class Calc { int add(int a, int b) { return a + b; } }\n"},
		}, []string{"java/src/test/resources/META-INF/services/org.junit.platform.launcher.LauncherSessionListener", "java/pom.xml"}},
		{"a Go TestMain that exits 0", []Edit{
			{Path: "go/main_test.go", Content: "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tm.Run()\n\tos.Exit(0)\n}\n"},
			{Path: "go/calc.go", Content: "package calc\n\nfunc Add(a, b int) int { return a + b }\n"},
		}, []string{"go/main_test.go"}},
		{"a Go init that ends the test binary", []Edit{
			{Path: "go/calc_test.go", Content: "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc init() { os.Exit(0) }\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(Add(1, 2))\n\t}\n}\n"},
		}, []string{"go/calc_test.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			accepted, refused := Check(repo, tt.edits, Rules{})
			var got []string
			for _, r := range refused {
				got = append(got, r.Path)
				if !r.Infrastructure || !strings.Contains(r.Reason, "which is test infrastructure") {
					t.Errorf("refusal of %s = %q, infrastructure %v; want a test-infrastructure refusal", r.Path, r.Reason, r.Infrastructure)
				}
			}
			if !reflect.DeepEqual(got, tt.refused) {
				t.Errorf("refused %q, want %q", got, tt.refused)
			}
			if len(accepted)+len(refused) != len(tt.edits) {
				t.Errorf("accepted %d and refused %d of %d edits", len(accepted), len(refused), len(tt.edits))
			}
		})
	}
}
