package edits

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/capsulehq/capsule/pipeline/pynames"
)

// Rules are a repository's rules for the edits Check accepts, on top of
// those it always applies. The zero value protects no file but still keeps
// the test infrastructure from change.
type Rules struct {
	// Protected reports whether an existing file is protected, and by which
	// pattern. It is called with clean, slash-separated paths and may be
	// nil.
	Protected func(path string) (pattern string, ok bool)
	// AllowTestInfrastructure lets edits add, change and delete the test
	// infrastructure (see the package documentation).
	AllowTestInfrastructure bool
	// Importable are the top-level module names the test run's Python can
	// import, which no new module of the answer may shadow; nil means
	// pynames.Fallback().
	Importable pynames.Set
	// Reserved are files the job writes itself (the reproducing test):
	// no edit may write them, nor make a directory of them.
	Reserved []string
}

// Check decides which edits the agent may make to the repository in repoDir
// under rules (see the package documentation).
//
// Accepted edits come back in path order with canonical paths, ready for
// Apply and Diff; when an existing file uses CRLF line endings throughout
// and the new content has none, the content is given CRLF endings too.
// Refusals come back in the order of the edits. Check only reads repoDir.
func Check(repoDir string, edits []Edit, rules Rules) (accepted []Edit, refused []Refusal) {
	res, resErr := newResolver(repoDir)
	verdicts := make([]verdict, 0, len(edits))
	for _, e := range edits {
		v := verdict{from: e.Path, key: e.Path}
		if resErr != nil {
			v.err = fmt.Errorf("cannot read the repository: %v", resErr)
		} else {
			v.check(res, e, rules)
		}
		verdicts = append(verdicts, v)
	}
	verdicts = lastWins(verdicts)
	refuseConflicts(verdicts)
	if resErr == nil {
		refuseReserved(verdicts, rules.Reserved)
		if !rules.AllowTestInfrastructure {
			a := newAnswer(res, verdicts, rules.Reserved)
			a.refuseLoaders(rules.Importable)
			a.refuseRunnerTargets()
		}
	}
	for _, v := range verdicts {
		if v.err != nil {
			refused = append(refused, Refusal{Path: v.from, Reason: v.err.Error(), Infrastructure: v.infrastructure})
		} else {
			accepted = append(accepted, v.edit)
		}
	}
	slices.SortFunc(accepted, func(a, b Edit) int { return strings.Compare(a.Path, b.Path) })
	return accepted, refused
}

// verdict is Check's decision on one edit.
type verdict struct {
	from string // the path as the agent wrote it
	key  string // the file the edit is about, as far as it could be resolved
	edit Edit   // the accepted edit, when err is nil
	err  error  // why the edit is refused, written for the agent
	// old is the file's content before the edit, nil for a new file.
	old []byte
	// infrastructure is set when the edit is refused only for being test
	// infrastructure.
	infrastructure bool
}

// check fills in the verdict on e. The rules about where a file lies are
// checked on the path as written and again on the path resolved through
// symbolic links.
func (v *verdict) check(res resolver, e Edit, rules Rules) {
	clean, err := cleanPath(e.Path)
	if err == nil {
		err = checkSettingsDir(clean)
	}
	if err != nil {
		v.err = err
		return
	}
	v.key = clean
	t, err := res.resolve(clean)
	if err != nil {
		v.err = err
		return
	}
	v.key = t.path
	if t.path != clean {
		if err := cmp.Or(checkGitDir(t.path), checkSettingsDir(t.path)); err != nil {
			v.err = fmt.Errorf("%s leads to %s through a symbolic link, and %w", clean, t.path, err)
			return
		}
	}
	v.edit, v.old, v.err = decide(res, t, clean, e, rules)
	_, v.infrastructure = errors.AsType[*infrastructureError](v.err)
}

// decide applies the rules that depend on the file's existence and content.
// It returns the file's content before the edit too, nil for a new file.
func decide(res resolver, t target, clean string, e Edit, rules Rules) (Edit, []byte, error) {
	deletes := e.Delete
	verb := "modify"
	var old []byte // nil: the file does not exist
	switch {
	case t.info == nil && deletes:
		return Edit{}, nil, fmt.Errorf("cannot delete %s: it does not exist", clean)
	case t.info == nil:
		verb = "add"
	default:
		if deletes {
			verb = "delete"
		}
		// A new file may be created even under a protected pattern.
		if pattern, ok := protection(rules.Protected, t.path, clean); ok {
			return Edit{}, nil, fmt.Errorf("you may not %s %s (protected by %q); fix the code, not the tests", verb, t.path, pattern)
		}
		data, err := os.ReadFile(res.abs(t.path))
		if err != nil {
			return Edit{}, nil, fmt.Errorf("cannot read %s: %v", clean, err)
		}
		if isBinary(data) {
			return Edit{}, nil, fmt.Errorf("%s is a binary file; only text files can be changed", clean)
		}
		old = append([]byte{}, data...)
	}
	content := e.Content
	var new []byte // nil: the edit deletes the file
	if !deletes {
		if isBinary(content) {
			return Edit{}, nil, fmt.Errorf("the new content of %s contains a NUL byte; only text files can be written", clean)
		}
		content = matchLineEndings(string(old), content)
		new = []byte(content)
	}
	if !rules.AllowTestInfrastructure {
		if what, why := infrastructureChange(t.path, old, new); what != "" {
			return Edit{}, old, &infrastructureError{fmt.Sprintf("you may not %s %s, which is test infrastructure: %s; fix the code, not the tests", verb, what, why)}
		}
	}
	return Edit{Path: t.path, Content: content, Delete: deletes}, old, nil
}

// protection asks the callback about each path in turn.
func protection(protected func(string) (string, bool), paths ...string) (string, bool) {
	if protected == nil {
		return "", false
	}
	for _, p := range paths {
		if pattern, ok := protected(p); ok {
			return pattern, true
		}
	}
	return "", false
}

// lastWins keeps, of the verdicts about one file, only the last.
func lastWins(vs []verdict) []verdict {
	last := make(map[string]int, len(vs))
	for i, v := range vs {
		last[v.key] = i
	}
	kept := vs[:0]
	for i, v := range vs {
		if last[v.key] == i {
			kept = append(kept, v)
		}
	}
	return kept
}

// refuseConflicts refuses accepted edits below a path that another accepted
// edit writes as a file: the file and the directory cannot both exist.
func refuseConflicts(vs []verdict) {
	files := make(map[string]bool)
	for _, v := range vs {
		if v.err == nil && !v.edit.Delete {
			files[v.edit.Path] = true
		}
	}
	for i := range vs {
		v := &vs[i]
		if v.err != nil {
			continue
		}
		for dir := path.Dir(v.edit.Path); dir != "."; dir = path.Dir(dir) {
			if files[dir] {
				v.err = fmt.Errorf("%s cannot be written: %s is also written as a file", v.edit.Path, dir)
				break
			}
		}
	}
}
