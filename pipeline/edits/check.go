package edits

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
)

// Check decides which edits the agent may make to the repository in repoDir
// (see the package documentation for the rules). protected reports whether
// a path is protected and by which pattern; it is called with clean,
// slash-separated paths and may be nil.
//
// Accepted edits come back in path order with canonical paths, ready for
// Apply and Diff; when an existing file uses CRLF line endings throughout
// and the new content has none, the content is given CRLF endings too.
// Refusals come back in the order of the edits. Check only reads repoDir.
func Check(repoDir string, edits []Edit, protected func(path string) (pattern string, ok bool)) (accepted []Edit, refused []Refusal) {
	res, resErr := newResolver(repoDir)
	verdicts := make([]verdict, 0, len(edits))
	for _, e := range edits {
		v := verdict{from: e.Path, key: e.Path}
		if resErr != nil {
			v.err = fmt.Errorf("cannot read the repository: %v", resErr)
		} else {
			v.check(res, e, protected)
		}
		verdicts = append(verdicts, v)
	}
	verdicts = lastWins(verdicts)
	refuseConflicts(verdicts)
	for _, v := range verdicts {
		if v.err != nil {
			refused = append(refused, Refusal{Path: v.from, Reason: v.err.Error()})
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
}

// check fills in the verdict on e.
func (v *verdict) check(res resolver, e Edit, protected func(string) (string, bool)) {
	clean, err := cleanPath(e.Path)
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
		if err := checkGitDir(t.path); err != nil {
			v.err = fmt.Errorf("%s leads into .git through a symbolic link (%w)", clean, err)
			return
		}
	}
	v.edit, v.err = decide(res, t, clean, e, protected)
}

// decide applies the rules that depend on the file's existence and content.
func decide(res resolver, t target, clean string, e Edit, protected func(string) (string, bool)) (Edit, error) {
	deletes := e.Deletes()
	if t.info == nil {
		if deletes {
			return Edit{}, fmt.Errorf("cannot delete %s: it does not exist", clean)
		}
		if isBinary(e.Content) {
			return Edit{}, fmt.Errorf("the new content of %s contains a NUL byte; only text files can be written", clean)
		}
		// A new file may be created even under a protected pattern.
		return Edit{Path: t.path, Content: e.Content}, nil
	}
	if pattern, ok := protection(protected, t.path, clean); ok {
		verb := "modify"
		if deletes {
			verb = "delete"
		}
		return Edit{}, fmt.Errorf("you may not %s %s (protected by %q); fix the code, not the tests", verb, t.path, pattern)
	}
	old, err := os.ReadFile(res.abs(t.path))
	if err != nil {
		return Edit{}, fmt.Errorf("cannot read %s: %v", clean, err)
	}
	if isBinary(old) {
		return Edit{}, fmt.Errorf("%s is a binary file; only text files can be changed", clean)
	}
	if deletes {
		return Edit{Path: t.path, Content: e.Content}, nil
	}
	if isBinary(e.Content) {
		return Edit{}, fmt.Errorf("the new content of %s contains a NUL byte; only text files can be written", clean)
	}
	return Edit{Path: t.path, Content: matchLineEndings(string(old), e.Content)}, nil
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
		if v.err == nil && !v.edit.Deletes() {
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
