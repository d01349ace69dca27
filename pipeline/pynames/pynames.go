// Package pynames knows which top-level module names a Python interpreter
// can import: those a file of an answer must not shadow. It holds the probe
// that lists them in a sandbox image, the probe's parser, and a fallback
// for images where the probe cannot run.
//
// It is its own package because two others need it and neither should hold
// it: the pipeline runs the probe in the job's sandbox, and package edits
// refuses a new module of such a name, with the fallback when it is given
// none.
package pynames

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Set is a set of top-level module names.
type Set map[string]bool

// Has reports whether name is in the set; a nil set has nothing.
func (s Set) Has(name string) bool { return s[name] }

// Sorted returns the names in order.
func (s Set) Sorted() []string { return slices.Sorted(maps.Keys(s)) }

// Runner names the modules of the test runner and of Capsule's own
// helpers: always protected, whether the probe saw them or not (the
// plugin is not in the image's site-packages, and an image without pytest
// gets it installed later).
var Runner = []string{"pytest", "_pytest", "pluggy", "py", "iniconfig", "capsule_testreport", "capsule_boot"}

//go:embed probe.py
var probeScript string

// Command is the probe: the interpreter started isolated (no workspace,
// user site or PYTHONPATH on its path) from /, printing a JSON object whose
// lists Parse reads.
var Command = []string{"sh", "-c", `cd / && exec python3 -I -c "$0"`, probeScript}

// probeOutput is what the probe prints.
type probeOutput struct {
	Version   string   `json:"version"`
	Stdlib    []string `json:"stdlib"`
	Builtin   []string `json:"builtin"`
	Installed []string `json:"installed"`
}

// Parse reads the probe's output: every name it lists, with Runner's. It
// returns the interpreter's version too.
func Parse(out []byte) (Set, string, error) {
	var p probeOutput
	if err := json.Unmarshal(out, &p); err != nil {
		return nil, "", fmt.Errorf("read the module names: %w", err)
	}
	if p.Version == "" || len(p.Stdlib)+len(p.Installed) == 0 {
		return nil, "", fmt.Errorf("read the module names: the probe listed none")
	}
	return union(p.Stdlib, p.Builtin, p.Installed, Runner), p.Version, nil
}

//go:embed testdata/python3.11.json
var python311 []byte

// Fallback is the set to use when the probe cannot run (an image without
// python3): the standard library and built-in modules of Python 3.11, as
// the probe listed them in Capsule's image (testdata/python3.11.json),
// with Runner's names.
func Fallback() Set {
	var p probeOutput
	if err := json.Unmarshal(python311, &p); err != nil {
		panic(fmt.Sprintf("pynames: the embedded list does not parse: %v", err))
	}
	return union(p.Stdlib, p.Builtin, Runner)
}

func union(lists ...[]string) Set {
	s := make(Set)
	for _, l := range lists {
		for _, n := range l {
			s[n] = true
		}
	}
	return s
}
