package repoconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Test modules in the styles detection tells apart.
const (
	unittestModule = "import unittest\n\nfrom calc import add\n\n\nclass TestAdd(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n"
	pytestModule   = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
	pytestImport   = "import pytest\n\nfrom calc import add\n\n\n@pytest.mark.parametrize('a', [1])\ndef test_add(a):\n    assert add(a, 1) == a + 1\n"
	mockModule     = "from unittest import mock\n\n\ndef test_add():\n    assert mock.Mock()\n"
	mixedModule    = unittestModule + "\n\ndef test_more():\n    assert True\n"
	pytestClass    = "import unittest.mock\n\n\nclass TestAdd:\n    def test_add(self):\n        assert True\n"
)

func TestDetectTest(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		cmd    string
		reason string
	}{
		{
			name: "pyproject",
			files: map[string]string{
				"calc.py":             "",
				"tests/test_calc.py":  pytestModule,
				"pyproject.toml":      "[project]\nname = \"calc\"\n\n[tool.pytest.ini_options]\naddopts = \"-ra\"\n",
				"tests/data/input.py": "",
			},
			cmd:    pytestCommand,
			reason: "pytest: found tests/test_calc.py and pyproject.toml [tool.pytest.ini_options]",
		},
		{
			name:   "pytest.ini without tests",
			files:  map[string]string{"pytest.ini": "[pytest]\n"},
			cmd:    pytestCommand,
			reason: "pytest: found pytest.ini",
		},
		{
			name:   "conftest beats unittest",
			files:  map[string]string{"tests/__init__.py": "", "tests/conftest.py": "", "tests/test_a.py": unittestModule},
			cmd:    pytestCommand,
			reason: "pytest: found tests/test_a.py and tests/conftest.py",
		},
		{
			name:   "setup.cfg",
			files:  map[string]string{"setup.cfg": "[metadata]\nname = calc\n\n[tool:pytest]   # options\ntestpaths = tests\n", "test_calc.py": unittestModule},
			cmd:    pytestCommand,
			reason: "pytest: found test_calc.py and setup.cfg [tool:pytest]",
		},
		{
			name:   "tox.ini",
			files:  map[string]string{"tox.ini": "[tox]\n\n[pytest]\n", "src/calc_test.py": pytestModule},
			cmd:    pytestCommand,
			reason: "pytest: found src/calc_test.py and tox.ini [pytest]",
		},
		{
			name:   "pyproject without pytest",
			files:  map[string]string{"pyproject.toml": "[tool.black]\n# [tool.pytest.ini_options]\n", "test_calc.py": pytestModule},
			cmd:    pytestCommand,
			reason: "pytest: found test_calc.py",
		},
		{
			name:   "test files without a tests directory",
			files:  map[string]string{"calc.py": "", "test_calc.py": pytestModule},
			cmd:    pytestCommand,
			reason: "pytest: found test_calc.py",
		},
		{
			name:   "imports pytest",
			files:  map[string]string{"tests/__init__.py": "", "tests/test_a.py": unittestModule, "tests/test_b.py": pytestImport},
			cmd:    pytestCommand,
			reason: "pytest: tests/test_b.py imports pytest",
		},
		{
			name:   "unittest.mock with test functions",
			files:  map[string]string{"test_calc.py": mockModule},
			cmd:    pytestCommand,
			reason: "pytest: found test_calc.py, which has test functions outside unittest.TestCase",
		},
		{
			name:   "unittest and test functions",
			files:  map[string]string{"test_calc.py": mixedModule},
			cmd:    pytestCommand,
			reason: "pytest: found test_calc.py, which has test functions outside unittest.TestCase",
		},
		{
			name:   "plain test classes",
			files:  map[string]string{"test_calc.py": pytestClass},
			cmd:    pytestCommand,
			reason: "pytest: found test_calc.py, which has no unittest.TestCase class",
		},
		{
			name:   "unittest",
			files:  map[string]string{"calc.py": "", "tests/__init__.py": "", "tests/test_calc.py": unittestModule, "tests/unit/__init__.py": "", "tests/unit/test_more.py": unittestModule},
			cmd:    unittestCommand,
			reason: "unittest: found tests/test_calc.py and 1 more test file, all unittest.TestCase modules, and no pytest configuration",
		},
		{
			name:   "unittest at the root",
			files:  map[string]string{"calc.py": "", "test_calc.py": unittestModule, "go.mod": "module x\n"},
			cmd:    unittestCommand,
			reason: "unittest: found test_calc.py, all unittest.TestCase modules, and no pytest configuration",
		},
		{
			name:   "unittest outside a package",
			files:  map[string]string{"tests/test_calc.py": unittestModule},
			cmd:    pytestCommand,
			reason: "pytest: found tests/test_calc.py, which unittest discovery misses (tests/ has no __init__.py)",
		},
		{
			name:   "unittest named for pytest",
			files:  map[string]string{"calc_test.py": unittestModule},
			cmd:    pytestCommand,
			reason: "pytest: found calc_test.py, which unittest discovery misses (it looks for test*.py)",
		},
		{
			name:   "go",
			files:  map[string]string{"go.mod": "module example.com/x\n", "x_test.go": "package x\n", "package.json": `{"scripts": {"test": "jest"}}`},
			cmd:    goCommand,
			reason: "go: found go.mod",
		},
		{
			name:   "npm",
			files:  map[string]string{"package.json": `{"name": "x", "scripts": {"test": "jest --ci"}}`, "sub/go.mod": "module y\n"},
			cmd:    npmCommand + " -- --json --outputFile=capsule-jest.json",
			reason: "npm: package.json has scripts.test \"jest --ci\"; it runs Jest; Jest's JSON report is asked for with `-- --json --outputFile=capsule-jest.json`, and capsule-jest.json gives the per-test results",
		},
		{
			name:   "pnpm with vitest",
			files:  map[string]string{"package.json": `{"scripts": {"test": "vitest run"}}`, "pnpm-lock.yaml": ""},
			cmd:    "pnpm test -- --reporter=default --reporter=json --outputFile.json=capsule-vitest.json",
			reason: "pnpm: package.json has scripts.test \"vitest run\" and pnpm-lock.yaml is the lock file; it runs Vitest; Vitest's JSON report is asked for with `-- --reporter=default --reporter=json --outputFile.json=capsule-vitest.json`, and capsule-vitest.json gives the per-test results",
		},
		{
			name:   "yarn with jest as a dependency",
			files:  map[string]string{"package.json": `{"scripts": {"test": "node scripts/test.js"}, "devDependencies": {"jest": "^29"}}`, "yarn.lock": ""},
			cmd:    "yarn test",
			reason: `yarn: package.json has scripts.test "node scripts/test.js" and yarn.lock is the lock file; it runs Jest (a dependency)`,
		},
		{
			name:   "yarn with jest after a variable",
			files:  map[string]string{"package.json": `{"scripts": {"test": "NODE_ENV=test jest"}}`, "yarn.lock": ""},
			cmd:    "yarn test --json --outputFile=capsule-jest.json",
			reason: "yarn: package.json has scripts.test \"NODE_ENV=test jest\" and yarn.lock is the lock file; it runs Jest; Jest's JSON report is asked for with `--json --outputFile=capsule-jest.json`, and capsule-jest.json gives the per-test results",
		},
		{
			name:   "yarn 4 with vitest",
			files:  map[string]string{"package.json": `{"packageManager": "yarn@4.5.3", "scripts": {"test": "vitest run"}}`, "yarn.lock": ""},
			cmd:    "SKIP_YARN_COREPACK_CHECK=0 yarn test --reporter=default --reporter=json --outputFile.json=capsule-vitest.json",
			reason: "yarn: package.json has scripts.test \"vitest run\" and yarn.lock is the lock file; it runs Vitest; package.json's packageManager is \"yarn@4.5.3\", which the image's Yarn 1 refuses to run without SKIP_YARN_COREPACK_CHECK=0; Vitest's JSON report is asked for with `--reporter=default --reporter=json --outputFile.json=capsule-vitest.json`, and capsule-vitest.json gives the per-test results",
		},
		{
			name:   "yarn 1 named as the package manager",
			files:  map[string]string{"package.json": `{"packageManager": "yarn@1.22.22", "scripts": {"test": "jest"}}`, "yarn.lock": ""},
			cmd:    "yarn test --json --outputFile=capsule-jest.json",
			reason: "yarn: package.json has scripts.test \"jest\" and yarn.lock is the lock file; it runs Jest; Jest's JSON report is asked for with `--json --outputFile=capsule-jest.json`, and capsule-jest.json gives the per-test results",
		},
		{
			name:   "pnpm with jest and another pnpm named",
			files:  map[string]string{"package.json": `{"packageManager": "pnpm@8.9.2", "scripts": {"test": "jest --ci"}}`, "pnpm-lock.yaml": "lockfileVersion: '6.0'\n"},
			cmd:    "pnpm test -- --json --outputFile=capsule-jest.json",
			reason: "pnpm: package.json has scripts.test \"jest --ci\" and pnpm-lock.yaml is the lock file; it runs Jest; Jest's JSON report is asked for with `-- --json --outputFile=capsule-jest.json`, and capsule-jest.json gives the per-test results",
		},
		{
			name:   "pnpm with vitest in watch mode",
			files:  map[string]string{"package.json": `{"scripts": {"test": "vitest"}}`, "pnpm-lock.yaml": ""},
			cmd:    "pnpm test -- --reporter=default --reporter=json --outputFile.json=capsule-vitest.json",
			reason: "pnpm: package.json has scripts.test \"vitest\" and pnpm-lock.yaml is the lock file; it runs Vitest; Vitest's JSON report is asked for with `-- --reporter=default --reporter=json --outputFile.json=capsule-vitest.json`, and capsule-vitest.json gives the per-test results",
		},
		{
			name:   "yarn with vitest choosing its reporter",
			files:  map[string]string{"package.json": `{"scripts": {"test": "vitest run --reporter=verbose"}}`, "yarn.lock": ""},
			cmd:    "yarn test",
			reason: `yarn: package.json has scripts.test "vitest run --reporter=verbose" and yarn.lock is the lock file; it runs Vitest; its JSON report is not asked for: the script already chooses its reporters or output, or watches`,
		},
		{
			name:   "pnpm with two commands",
			files:  map[string]string{"package.json": `{"scripts": {"test": "pnpm lint && vitest run --coverage"}}`, "pnpm-lock.yaml": ""},
			cmd:    "pnpm test",
			reason: `pnpm: package.json has scripts.test "pnpm lint && vitest run --coverage" and pnpm-lock.yaml is the lock file; it runs Vitest; its JSON report is not asked for: the script is more than one plain Vitest command, which options added to it would not reach`,
		},
		{
			name:   "npm with jest through node",
			files:  map[string]string{"package.json": `{"scripts": {"test": "node --experimental-vm-modules node_modules/jest/bin/jest.js"}}`},
			cmd:    npmCommand + " -- --json --outputFile=capsule-jest.json",
			reason: "npm: package.json has scripts.test \"node --experimental-vm-modules node_modules/jest/bin/jest.js\"; it runs Jest; Jest's JSON report is asked for with `-- --json --outputFile=capsule-jest.json`, and capsule-jest.json gives the per-test results",
		},
		{
			name:   "npm with jest through another program",
			files:  map[string]string{"package.json": `{"scripts": {"test": "dotenv -e .env.test jest"}}`},
			cmd:    npmCommand,
			reason: `npm: package.json has scripts.test "dotenv -e .env.test jest"; it runs Jest; its JSON report is not asked for: the script runs Jest through dotenv, which options added to it would reach first`,
		},
		{
			name:   "npm with npx and cross-env before vitest",
			files:  map[string]string{"package.json": `{"scripts": {"test": "cross-env TZ=UTC npx vitest run"}}`},
			cmd:    npmCommand + " -- --reporter=default --reporter=json --outputFile.json=capsule-vitest.json",
			reason: "npm: package.json has scripts.test \"cross-env TZ=UTC npx vitest run\"; it runs Vitest; Vitest's JSON report is asked for with `-- --reporter=default --reporter=json --outputFile.json=capsule-vitest.json`, and capsule-vitest.json gives the per-test results",
		},
		{
			name:   "npm with jest and more",
			files:  map[string]string{"package.json": `{"scripts": {"test": "jest && eslint ."}}`},
			cmd:    npmCommand,
			reason: `npm: package.json has scripts.test "jest && eslint ."; it runs Jest; its JSON report is not asked for: the script is more than one plain Jest command, which options added to it would not reach`,
		},
		{
			name:   "npm with jest choosing its reporters",
			files:  map[string]string{"package.json": `{"scripts": {"test": "jest --ci --reporters=default --reporters=jest-junit"}}`},
			cmd:    npmCommand,
			reason: `npm: package.json has scripts.test "jest --ci --reporters=default --reporters=jest-junit"; it runs Jest; its JSON report is not asked for: the script already chooses its reporters or output, or watches`,
		},
		{
			name:   "npm with vitest watching",
			files:  map[string]string{"package.json": `{"scripts": {"test": "vitest watch"}}`},
			cmd:    npmCommand,
			reason: `npm: package.json has scripts.test "vitest watch"; it runs Vitest; its JSON report is not asked for: the script runs Vitest in watch mode`,
		},
		{
			name:   "npm with another runner",
			files:  map[string]string{"package.json": `{"scripts": {"test": "mocha"}}`},
			cmd:    npmCommand,
			reason: `npm: package.json has scripts.test "mocha"`,
		},
		{
			name:   "cargo",
			files:  map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n", "src/lib.rs": ""},
			cmd:    cargoCommand,
			reason: "cargo: found Cargo.toml; libtest's lines on its output give the per-test results, with --no-fail-fast added so that every test binary runs",
		},
		{
			name:   "package.json beats Cargo.toml",
			files:  map[string]string{"Cargo.toml": "", "package.json": `{"scripts": {"test": "./node_modules/.bin/vitest"}}`},
			cmd:    npmCommand + " -- --reporter=default --reporter=json --outputFile.json=capsule-vitest.json",
			reason: "npm: package.json has scripts.test \"./node_modules/.bin/vitest\"; it runs Vitest; Vitest's JSON report is asked for with `-- --reporter=default --reporter=json --outputFile.json=capsule-vitest.json`, and capsule-vitest.json gives the per-test results",
		},
		{
			name:   "maven",
			files:  map[string]string{"pom.xml": "<project/>", "build.gradle": ""},
			cmd:    mavenCommand,
			reason: "maven: found pom.xml; runs offline (-o), Surefire's reports in target/surefire-reports give the per-test results",
		},
		{
			name:   "gradle",
			files:  map[string]string{"build.gradle.kts": "", "settings.gradle.kts": ""},
			cmd:    gradleCommand,
			reason: "gradle: found build.gradle.kts; the proof is unavailable offline: Gradle and its wrapper download from services.gradle.org, which the sandbox cannot reach, so the run will most likely fail before any test",
		},
		{
			name: "skipped directories",
			files: map[string]string{
				"go.mod":                       "module x\n",
				"node_modules/m/test_x.py":     pytestModule,
				"vendor/v/test_x.py":           pytestModule,
				"venv/lib/test_x.py":           pytestModule,
				".venv/lib/test_x.py":          pytestModule,
				".git/hooks/test_x.py":         pytestModule,
				".tox/py312/conftest.py":       "",
				"__pycache__/test_x.py":        pytestModule,
				"docs/testing.md":              "",
				"scripts/contest_entry.py":     "",
				"node_modules/m/package.json":  `{"scripts": {"test": "jest"}}`,
				".github/workflows/test_ci.py": pytestModule,
			},
			cmd:    goCommand,
			reason: "go: found go.mod",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DetectTest(writeRepo(t, tt.files))
			if err != nil {
				t.Fatalf("DetectTest: %v", err)
			}
			if got.Command != tt.cmd || got.Reason != tt.reason {
				t.Errorf("DetectTest =\n  %q (%s)\nwant\n  %q (%s)", got.Command, got.Reason, tt.cmd, tt.reason)
			}
		})
	}
}

func TestDetectTestNone(t *testing.T) {
	tests := map[string]map[string]string{
		"empty":               nil,
		"docs only":           {"README.md": "# x\n", "src/calc.py": "def add(a, b): return a + b\n"},
		"npm placeholder":     {"package.json": `{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}`},
		"npm without scripts": {"package.json": `{"name": "x"}`},
		"npm empty test":      {"package.json": `{"scripts": {"test": "  ", "build": "tsc"}}`},
		"npm test not text":   {"package.json": `{"scripts": {"test": 1}}`},
		"go.mod too deep":     {"cmd/tool/go.mod": "module x\n"},
	}
	for name, files := range tests {
		t.Run(name, func(t *testing.T) {
			d, err := DetectTest(writeRepo(t, files))
			if !errors.Is(err, ErrNoTestCommand) {
				t.Fatalf("DetectTest = %+v, %v; want ErrNoTestCommand", d, err)
			}
			if !strings.Contains(err.Error(), "set test: in .github/capsule.yml") {
				t.Errorf("error %q does not tell the user what to do", err)
			}
		})
	}
}

func TestDetectTestErrors(t *testing.T) {
	_, err := DetectTest(writeRepo(t, map[string]string{"package.json": `{"scripts": `}))
	if err == nil || !strings.Contains(err.Error(), "parse package.json") {
		t.Errorf("DetectTest with a broken package.json = %v; want a parse error", err)
	}
	_, err = DetectTest(filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("DetectTest of a missing directory = %v; want an error wrapping os.ErrNotExist", err)
	}
}

// TestDetectTestSymlinks checks that detection neither follows links out of
// the repository nor counts linked files.
func TestDetectTestSymlinks(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "test_x.py"), []byte(pytestModule), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := writeRepo(t, map[string]string{"go.mod": "module x\n"})
	if err := os.Symlink(outside, filepath.Join(repo, "linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "test_x.py"), filepath.Join(repo, "test_link.py")); err != nil {
		t.Fatal(err)
	}
	d, err := DetectTest(repo)
	if err != nil || d.Command != goCommand {
		t.Errorf("DetectTest = %+v, %v; want %q", d, err, goCommand)
	}
}

// TestDetectWalkLimit checks that the walk stops at its limit and says so.
func TestDetectWalkLimit(t *testing.T) {
	files := map[string]string{"zz/go.mod": "", "go.mod": "module x\n"}
	for i := range 10 {
		files[fmt.Sprintf("a%02d.txt", i)] = ""
	}
	repo := writeRepo(t, files)

	// Lexical order puts the ten a*.txt files before go.mod.
	_, err := detect(os.DirFS(repo), 5)
	if !errors.Is(err, ErrNoTestCommand) || !strings.Contains(err.Error(), "looked at the first 5 files only") {
		t.Errorf("detect with limit 5 = %v; want ErrNoTestCommand noting the limit", err)
	}
	d, err := detect(os.DirFS(repo), 11)
	if err != nil || d.Command != goCommand || !strings.HasSuffix(d.Reason, "(looked at the first 11 files only)") {
		t.Errorf("detect with limit 11 = %+v, %v; want go test noting the limit", d, err)
	}
	d, err = detect(os.DirFS(repo), maxEntries)
	if err != nil || d.Reason != "go: found go.mod" {
		t.Errorf("detect = %+v, %v; want go test", d, err)
	}
}

func TestTestCommand(t *testing.T) {
	repo := writeRepo(t, map[string]string{"go.mod": "module x\n"})
	tests := []struct {
		name        string
		config      Config
		cmd, reason string
	}{
		{"configured", Config{Test: "make check", Source: Path}, "make check", "from .github/capsule.yml"},
		{"configured in .yaml", Config{Test: "make check", Source: AltPath}, "make check", "from .github/capsule.yaml"},
		{"configured in code", Config{Test: "make check"}, "make check", "from the configuration"},
		{"detected", Default(), goCommand, "go: found go.mod"},
	}
	for _, tt := range tests {
		cmd, reason, err := tt.config.TestCommand(repo)
		if err != nil || cmd != tt.cmd || reason != tt.reason {
			t.Errorf("%s: TestCommand = %q, %q, %v; want %q, %q", tt.name, cmd, reason, err, tt.cmd, tt.reason)
		}
	}
	_, _, err := Default().TestCommand(t.TempDir())
	if !errors.Is(err, ErrNoTestCommand) {
		t.Errorf("TestCommand in an empty repository = %v; want ErrNoTestCommand", err)
	}
}

func TestReportGlobs(t *testing.T) {
	configured := Default()
	configured.Reports, configured.Source = []string{"out/*.xml"}, Path
	for _, tc := range []struct {
		cfg     Config
		command string
		globs   string
		reason  string
	}{
		{configured, "mvn -o test", "out/*.xml", "reports: in .github/capsule.yml"},
		{Default(), "mvn -o test", "**/target/surefire-reports/TEST-*.xml", "where Maven Surefire writes them by default"},
		{Default(), "cd app && ./gradlew test", "**/build/test-results/test/TEST-*.xml", "where Gradle writes them by default"},
		{Default(), "cargo nextest run --profile ci", "target/nextest/*/junit.xml", "where cargo-nextest writes them by default"},
		{Default(), "npx jest --ci --reporters=jest-junit", "junit.xml", "where jest-junit writes them by default"},
		{Default(), "pnpm test", "junit.xml", "where jest-junit or Vitest's junit reporter writes them by default"},
		{Default(), "cargo test", "", ""},
		{Default(), "npm test -- --json --outputFile=capsule-jest.json", "capsule-jest.json", "where the command's --outputFile writes them"},
		{Default(), "pnpm test --reporter=default --reporter=json --outputFile.json=out/v.json", "out/v.json", "where the command's --outputFile writes them"},
		{Default(), "npx jest --json --outputFile /tmp/x.json", "junit.xml", "where jest-junit writes them by default"},
		{Default(), "python3 -m pytest -q", "", ""},
	} {
		globs, reason := tc.cfg.ReportGlobs(tc.command)
		if strings.Join(globs, " ") != tc.globs || reason != tc.reason {
			t.Errorf("ReportGlobs(%q) = %q, %q; want %q, %q", tc.command, globs, reason, tc.globs, tc.reason)
		}
	}
}
