package repo

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/pipeline/repocontext"
)

// jsReproStem is the JavaScript or TypeScript reproducing test's file
// name before its suffix (".test.ts", ".spec.js", ...).
const jsReproStem = "capsule-reproduction"

// jsTestSuffix matches the suffix by which Jest and Vitest collect a test
// file by default: .test or .spec, then the extension.
var jsTestSuffix = regexp.MustCompile(`\.(test|spec)\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)$`)

// jsSource matches a JavaScript or TypeScript module's extension.
var jsSource = regexp.MustCompile(`\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)$`)

// isJSTest reports whether the slash-separated path p is a test file as
// Jest and Vitest find them by default: named *.test.* or *.spec.*, or a
// module under a __tests__ directory.
func isJSTest(p string) bool {
	return jsTestSuffix.MatchString(p) || jsSource.MatchString(p) && slices.Contains(strings.Split(path.Dir(p), "/"), "__tests__")
}

// jsSuffix is the suffix a new test file beside the test file p takes:
// p's own .test or .spec suffix, else .test with p's extension.
func jsSuffix(p string) string {
	if m := jsTestSuffix.FindString(p); m != "" {
		return m
	}
	return ".test" + path.Ext(p)
}

// jsStem is a module's or test file's name without its test suffix and
// extension: "mean" for src/mean.ts and __tests__/mean.test.ts.
func jsStem(p string) string {
	base := path.Base(p)
	if m := jsTestSuffix.FindString(base); m != "" {
		return strings.TrimSuffix(base, m)
	}
	return strings.TrimSuffix(base, path.Ext(base))
}

// placeJSRepro chooses where a Jest or Vitest reproducing test goes:
// beside the baseline's test file named after a module the repository
// context ranks among the first for the issue, else beside the first test
// file in the directory of such a module or its __tests__, else in the directory holding
// most of the baseline's test files; its suffix is its neighbour's. The
// file is capsule-reproduction.test.ts (or .spec.js, ...), with a number
// when the name is taken. problem says why no test can be placed.
func placeJSRepro(repo string, testFiles []string, rc repocontext.Context) (pl placement, problem string) {
	pl.lang = programmer.JSTest
	if pl.framework = repoconfig.NodeFramework(os.DirFS(repo)); pl.framework == "" {
		return pl, "the test designer writes Jest and Vitest tests, and package.json names neither"
	}
	var tests []string
	for _, f := range testFiles {
		if isJSTest(f) {
			tests = append(tests, f)
		}
	}
	if len(tests) == 0 {
		return pl, "the baseline's reports name no JavaScript or TypeScript test file to place a reproducing test beside"
	}
	pl.dirs = testDirs(tests)
	var modules []string
	for _, in := range rc.Included {
		if jsSource.MatchString(in.Path) && !isJSTest(in.Path) && len(modules) < relatedFiles {
			modules = append(modules, in.Path)
		}
	}
	near := ""
	for _, m := range modules {
		for _, tf := range tests {
			if jsStem(tf) == jsStem(m) {
				near, pl.Why = tf, "beside "+tf+", which is named after "+m+", a module the repository context ranks for the issue"
				break
			}
		}
		if near != "" {
			break
		}
	}
	for _, m := range modules {
		if near != "" {
			break
		}
		for _, tf := range tests {
			if d := path.Dir(tf); d == path.Dir(m) || d == path.Join(path.Dir(m), "__tests__") {
				near, pl.Why = tf, "beside "+tf+", in the directory of "+m+", a module the repository context ranks for the issue"
				break
			}
		}
	}
	if near == "" {
		dir := busiest(tests)
		for _, tf := range tests {
			if path.Dir(tf) == dir {
				near = tf
				break
			}
		}
		pl.Why = "in " + dir + "/, where the command collects most of its tests; no test file is related to the issue's code"
	}
	pl.near = near
	dir, suffix := path.Dir(near), jsSuffix(near)
	name := path.Join(dir, jsReproStem+suffix)
	for n := 2; taken(repo, name); n++ {
		name = path.Join(dir, fmt.Sprintf("%s-%d%s", jsReproStem, n, suffix))
	}
	pl.Path = name
	return pl, ""
}
