package repo

import (
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/programmer"
)

func TestJSTestNames(t *testing.T) {
	for _, tc := range []struct {
		path         string
		test         bool
		suffix, stem string
	}{
		{"src/mean.test.ts", true, ".test.ts", "mean"},
		{"src/mean.spec.js", true, ".spec.js", "mean"},
		{"lib/a.b.test.mjs", true, ".test.mjs", "a.b"},
		{"__tests__/mean.js", true, ".test.js", "mean"},
		{"src/__tests__/deep/mean.tsx", true, ".test.tsx", "mean"},
		{"src/mean.ts", false, ".test.ts", "mean"},
		{"src/test.ts", false, ".test.ts", "test"},
		{"__tests__/fixture.json", false, ".test.json", "fixture"},
	} {
		if got := isJSTest(tc.path); got != tc.test {
			t.Errorf("isJSTest(%s) = %v", tc.path, got)
		}
		if got := jsSuffix(tc.path); got != tc.suffix {
			t.Errorf("jsSuffix(%s) = %s, want %s", tc.path, got, tc.suffix)
		}
		if got := jsStem(tc.path); got != tc.stem {
			t.Errorf("jsStem(%s) = %s, want %s", tc.path, got, tc.stem)
		}
	}
}

func TestPlaceJSRepro(t *testing.T) {
	const vitest = `{"scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "^2"}}`
	files := map[string]string{
		"package.json":                  vitest,
		"src/mean.ts":                   "export const mean = () => 0\n",
		"src/sum.ts":                    "",
		"src/util/fmt.ts":               "",
		"test/mean.spec.ts":             "import { mean } from '../src/mean'\n",
		"test/other.spec.ts":            "",
		"src/util/__tests__/misc.ts":    "",
		"src/util/__tests__/helpers.ts": "",
	}
	testFiles := []string{"test/mean.spec.ts", "test/other.spec.ts", "src/util/__tests__/misc.ts", "src/util/__tests__/helpers.ts", "README.md"}
	repo := writeTree(t, files)
	for _, tc := range []struct {
		name      string
		ranked    []string
		path, why string
	}{
		{"beside the test named after a ranked module", []string{"README.md", "src/sum.ts", "src/mean.ts"}, "test/capsule-reproduction.spec.ts", "named after src/mean.ts"},
		{"in a ranked module's directory", []string{"src/util/fmt.ts"}, "src/util/__tests__/capsule-reproduction.test.ts", "in the directory of src/util/fmt.ts"},
		{"nothing related", []string{"src/sum.ts"}, "test/capsule-reproduction.spec.ts", "where the command collects most of its tests"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, problem := placeJSRepro(repo, testFiles, ranked(tc.ranked...))
			if problem != "" {
				t.Fatal(problem)
			}
			if pl.Path != tc.path || !strings.Contains(pl.Why, tc.why) || pl.framework != "Vitest" || pl.lang != programmer.JSTest {
				t.Errorf("placeJSRepro = %s (%s, %s), want %s (%q)", pl.Path, pl.Why, pl.framework, tc.path, tc.why)
			}
		})
	}
	pl, _ := placeJSRepro(repo, testFiles, ranked("src/mean.ts"))
	for p, want := range map[string]string{
		"test/capsule-reproduction.spec.ts": "",
		"test/mean.spec.ts":                 "already exists",
		"test/repro.ts":                     "not named as a test file Vitest collects",
		"src/capsule.test.ts":               "collects no test file in src/",
	} {
		if got := pl.check(repo, p); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("check(%s) = %q, want %q", p, got, want)
		}
	}
	if near := pl.nearby(repo, ranked()); !strings.Contains(near, "test/mean.spec.ts:\n```ts\nimport { mean } from '../src/mean'\n```") {
		t.Errorf("nearby:\n%s", near)
	}

	for _, tc := range []struct {
		name      string
		pkg       string
		testFiles []string
		problem   string
	}{
		{"no framework", `{"scripts": {"test": "mocha"}}`, testFiles, "package.json names neither"},
		{"no JavaScript test in the reports", vitest, []string{"tests/test_a.py"}, "name no JavaScript or TypeScript test file"},
	} {
		repo := writeTree(t, map[string]string{"package.json": tc.pkg})
		if _, problem := placeJSRepro(repo, tc.testFiles, ranked()); !strings.Contains(problem, tc.problem) {
			t.Errorf("%s: problem %q, want %q", tc.name, problem, tc.problem)
		}
	}
}
