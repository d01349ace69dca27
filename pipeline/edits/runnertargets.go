package edits

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
)

// runnerKeys are the settings of Jest and Vitest that name files the
// runner loads into every test run: setup files, global set-up and
// teardown, the environment, the runner, reporters and resolvers.
var runnerKeys = []string{
	"setupFiles", "setupFilesAfterEnv", "globalSetup", "globalTeardown", "testEnvironment",
	"testRunner", "runner", "testResultsProcessor", "reporters", "snapshotResolver", "resolver",
	"testSequencer", "dependencyExtractor", "watchPlugins",
}

// runnerConfigs are the files, in a directory, whose runnerKeys are read:
// package.json's "jest" key, and Jest's and Vitest's configuration files.
var runnerConfigs = []string{
	"package.json",
	"jest.config.js", "jest.config.ts", "jest.config.mjs", "jest.config.cjs", "jest.config.json",
	"vitest.config.js", "vitest.config.ts", "vitest.config.mjs", "vitest.config.mts", "vitest.config.cjs", "vitest.config.cts",
	"vite.config.js", "vite.config.ts", "vite.config.mjs", "vite.config.mts",
}

// maxConfigSize bounds what is read of one runner configuration.
const maxConfigSize = 1 << 20

// runnerTarget is a file a runner configuration names.
type runnerTarget struct {
	path   string // clean, relative to the repository
	key    string // the setting that names it
	config string // the configuration's path
}

// refuseRunnerTargets refuses the accepted edits of files that a Jest or
// Vitest configuration of the repository, in the edited file's directory
// or one above it, names as a setup file, global set-up, environment,
// reporter and the like (runnerKeys): they run in every test run and can
// decide how the tests end or are reported. The configurations are read
// as the repository has them; the answer may not change them anyway.
func (a *answer) refuseRunnerTargets() {
	cache := map[string][]runnerTarget{}
	for i := range a.vs {
		v := &a.vs[i]
		if v.err != nil {
			continue
		}
		for dir := path.Dir(v.edit.Path); ; dir = path.Dir(dir) {
			targets, ok := cache[dir]
			if !ok {
				targets = a.configTargets(dir)
				cache[dir] = targets
			}
			if t, ok := findTarget(targets, v.edit.Path); ok {
				v.err = &infrastructureError{fmt.Sprintf("you may not %s %s, which is test infrastructure: %s names it as %s, "+
					"so the runner loads it into every test run; fix the code, not the tests", verbOf(v), v.edit.Path, t.config, t.key)}
				v.infrastructure = true
				break
			}
			if dir == "." {
				break
			}
		}
	}
}

// findTarget returns the target that names the file p, with or without
// its extension (the runners resolve "./setup" to setup.js or setup.ts).
func findTarget(targets []runnerTarget, p string) (runnerTarget, bool) {
	stem := strings.TrimSuffix(p, path.Ext(p))
	for _, t := range targets {
		if t.path == p || t.path == stem {
			return t, true
		}
	}
	return runnerTarget{}, false
}

// configTargets reads the files the runner configurations in dir name.
func (a *answer) configTargets(dir string) []runnerTarget {
	var out []runnerTarget
	for _, name := range runnerConfigs {
		p := path.Join(dir, name)
		data := a.readConfig(p)
		if data == nil {
			continue
		}
		var named map[string][]string
		switch {
		case name == "package.json":
			var doc struct {
				Jest json.RawMessage `json:"jest"`
			}
			if json.Unmarshal(data, &doc) != nil || doc.Jest == nil {
				continue
			}
			named = jsonTargets(doc.Jest)
		case strings.HasSuffix(name, ".json"):
			named = jsonTargets(data)
		default:
			named = scriptTargets(string(data))
		}
		for _, key := range slices.Sorted(maps.Keys(named)) {
			for _, value := range named[key] {
				if t, ok := targetPath(dir, value); ok {
					out = append(out, runnerTarget{path: t, key: key, config: p})
				}
			}
		}
	}
	return out
}

// readConfig returns the regular file at the clean path p as the
// repository has it, at most maxConfigSize bytes of it, or nil.
func (a *answer) readConfig(p string) []byte {
	info, err := os.Lstat(a.res.abs(p))
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(a.res.abs(p))
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize))
	if err != nil {
		return nil
	}
	return data
}

// jsonTargets returns the strings under runnerKeys of a JSON object.
func jsonTargets(data []byte) map[string][]string {
	var doc map[string]any
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	out := map[string][]string{}
	for _, key := range runnerKeys {
		if v, ok := doc[key]; ok {
			out[key] = jsonStrings(v, nil)
		}
	}
	return out
}

// jsonStrings appends every string in a decoded JSON value.
func jsonStrings(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, e := range v {
			out = jsonStrings(e, out)
		}
	}
	return out
}

// scriptKey matches a runner setting in a JavaScript or TypeScript
// configuration, up to its value's first character.
var scriptKey = regexp.MustCompile(`\b(` + strings.Join(runnerKeys, "|") + `)['"]?\s*:\s*`)

// stringLiteral matches a JavaScript string literal without escapes.
var stringLiteral = regexp.MustCompile("'([^'\\\\\\n]*)'|\"([^\"\\\\\\n]*)\"|`([^`\\\\$]*)`")

// scriptTargets returns the string literals of the runner settings in a
// JavaScript or TypeScript configuration: the one after the key, or those
// inside the bracketed list after it.
func scriptTargets(src string) map[string][]string {
	out := map[string][]string{}
	for _, m := range scriptKey.FindAllStringSubmatchIndex(src, -1) {
		key, rest := src[m[2]:m[3]], src[m[1]:]
		value := rest
		if strings.HasPrefix(rest, "[") {
			value = rest[:blockEnd(rest, 0)]
		} else if loc := stringLiteral.FindStringIndex(rest); loc != nil && loc[0] == 0 {
			value = rest[:loc[1]]
		} else {
			continue
		}
		for _, s := range stringLiteral.FindAllStringSubmatch(value, -1) {
			out[key] = append(out[key], s[1]+s[2]+s[3])
		}
	}
	return out
}

// targetPath names a configuration's value relative to the repository,
// from the configuration's directory dir: "<rootDir>/x", "./x", "x/y" and
// "x.js" are files; a bare name ("jsdom", "jest-junit") is a package,
// and a path that leaves the repository is none of its files.
func targetPath(dir, value string) (string, bool) {
	v, rooted := strings.CutPrefix(value, "<rootDir>/")
	isFile := rooted || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") ||
		strings.Contains(v, "/") && !strings.HasPrefix(v, "@") || slices.Contains([]string{".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", ".mts", ".cts"}, path.Ext(v))
	if !isFile || path.IsAbs(v) {
		return "", false
	}
	p := path.Join(dir, v)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}
