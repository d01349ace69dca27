package edits

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// file is a file of a test repository.
type file struct {
	content string
	mode    fs.FileMode // 0 means 0644
}

// writeTree creates the files below dir.
func writeTree(t *testing.T, dir string, files map[string]file) {
	t.Helper()
	for p, f := range files {
		name := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := f.mode
		if mode == 0 {
			mode = 0o644
		}
		if err := os.WriteFile(name, []byte(f.content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(name, mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
}

// readTree returns the regular files below dir, outside .git, with their
// contents.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := make(map[string]string)
	err := filepath.WalkDir(dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, name)
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// expected returns the files of a tree after the edits.
func expected(files map[string]file, edits []Edit) map[string]string {
	want := make(map[string]string, len(files))
	for p, f := range files {
		want[p] = f.content
	}
	for _, e := range edits {
		if e.Delete {
			delete(want, e.Path)
		} else {
			want[e.Path] = e.Content
		}
	}
	return want
}

// compareTrees fails the test unless the trees hold the same files with the
// same bytes.
func compareTrees(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			t.Errorf("%s: %s is missing", what, p)
		case g != w:
			t.Errorf("%s: %s differs\n got: %q\nwant: %q", what, p, g, w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: unexpected file %s", what, p)
		}
	}
}

// gitBinary returns the path of git, skipping the test when it is missing
// outside CI.
func gitBinary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git is required in CI: %v", err)
		}
		t.Skipf("git not found: %v", err)
	}
	return bin
}

// git runs git in dir, a temporary directory, without the user's or the
// system's configuration, and returns its standard output.
func git(t testing.TB, dir string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(gitBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "HOME="+dir,
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(dir), "LC_ALL=C")
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// gitApply applies the patch with git in a fresh repository made of files
// and returns the resulting tree. The repository of its own makes sure git
// resolves the patch's paths against it, not against an enclosing one.
func gitApply(t *testing.T, files map[string]file, patch string) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, files)
	git(t, dir, "", "-c", "init.defaultBranch=main", "init", "-q")
	git(t, dir, patch, "apply", "--check", "-")
	git(t, dir, patch, "apply", "-")
	return dir, readTree(t, dir)
}

// hunkHeader matches "@@ -a,b +c,d @@".
var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// patchApply applies a patch in git's format to files, independently of the
// code that wrote it and strictly: every context and removed line must match
// at the stated line number, and every count must be right.
func patchApply(files map[string]string, patch string) (map[string]string, error) {
	out := make(map[string]string, len(files))
	for p, c := range files {
		out[p] = c
	}
	lines := strings.SplitAfter(patch, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i := 0; i < len(lines); {
		if !strings.HasPrefix(lines[i], "diff --git ") {
			return nil, fmt.Errorf("line %d: want a diff --git line, got %q", i+1, lines[i])
		}
		path, err := headerName(lines[i])
		if err != nil {
			return nil, err
		}
		i++
		added, deleted := false, false
		for i < len(lines) && !strings.HasPrefix(lines[i], "--- ") && !strings.HasPrefix(lines[i], "diff --git ") {
			added = added || strings.HasPrefix(lines[i], "new file mode ")
			deleted = deleted || strings.HasPrefix(lines[i], "deleted file mode ")
			i++
		}
		old, exists := out[path]
		if exists == added {
			return nil, fmt.Errorf("%s: exists=%v but new file=%v", path, exists, added)
		}
		var result []string
		if i < len(lines) && strings.HasPrefix(lines[i], "--- ") {
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
				return nil, fmt.Errorf("%s: --- without +++", path)
			}
			i += 2
			result, i, err = applyHunks(splitTestLines(old), lines, i)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		if deleted {
			if len(result) != 0 {
				return nil, fmt.Errorf("%s: deletion leaves %q", path, result)
			}
			delete(out, path)
			continue
		}
		if !added && result == nil && old != "" {
			return nil, fmt.Errorf("%s: modification without hunks", path)
		}
		out[path] = strings.Join(result, "")
	}
	return out, nil
}

// headerName returns the file name of a "diff --git a/p b/p" line.
func headerName(l string) (string, error) {
	rest := strings.TrimSuffix(strings.TrimPrefix(l, "diff --git "), "\n")
	if strings.HasPrefix(rest, `"`) {
		end := strings.Index(rest, `" "`)
		if end < 0 {
			return "", fmt.Errorf("bad quoted header %q", l)
		}
		name, err := strconv.Unquote(rest[:end+1])
		if err != nil {
			return "", fmt.Errorf("header %q: %w", l, err)
		}
		return strings.TrimPrefix(name, "a/"), nil
	}
	n := (len(rest) - len("a/ b/")) / 2
	if n <= 0 || rest[:2] != "a/" || rest[2+n:2+n+3] != " b/" || rest[2:2+n] != rest[5+n:] {
		return "", fmt.Errorf("bad header %q", l)
	}
	return rest[2 : 2+n], nil
}

// applyHunks applies the hunks starting at patch[i] to old and returns the
// new lines and the index after the last hunk.
func applyHunks(old []string, patch []string, i int) ([]string, int, error) {
	result := []string{}
	pos := 0 // old lines consumed
	for i < len(patch) && strings.HasPrefix(patch[i], "@@ ") {
		m := hunkHeader.FindStringSubmatch(patch[i])
		if m == nil {
			return nil, 0, fmt.Errorf("bad hunk header %q", patch[i])
		}
		oldStart, oldCount := hunkNumbers(m[1], m[2])
		newStart, newCount := hunkNumbers(m[3], m[4])
		if oldCount > 0 {
			oldStart--
		}
		if newCount > 0 {
			newStart--
		}
		if oldStart < pos || oldStart > len(old) {
			return nil, 0, fmt.Errorf("hunk %q out of order or range", patch[i])
		}
		result = append(result, old[pos:oldStart]...)
		pos = oldStart
		if newStart != len(result) {
			return nil, 0, fmt.Errorf("hunk %q: new start %d, want %d", patch[i], newStart+1, len(result)+1)
		}
		i++
		seenOld, seenNew := 0, 0
		for i < len(patch) && (seenOld < oldCount || seenNew < newCount) {
			l := patch[i]
			i++
			text := l[1:]
			if i < len(patch) && patch[i] == "\\ No newline at end of file\n" {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(old) || old[pos] != text {
					return nil, 0, fmt.Errorf("line %d: patch has %q, file has %q", pos+1, text, at(old, pos))
				}
				pos++
				seenOld++
				if l[0] == ' ' {
					result = append(result, text)
					seenNew++
				}
			case '+':
				result = append(result, text)
				seenNew++
			default:
				return nil, 0, fmt.Errorf("bad hunk line %q", l)
			}
		}
		if seenOld != oldCount || seenNew != newCount {
			return nil, 0, fmt.Errorf("hunk counts %d,%d, lines %d,%d", oldCount, newCount, seenOld, seenNew)
		}
	}
	return append(result, old[pos:]...), i, nil
}

func hunkNumbers(start, count string) (int, int) {
	s, _ := strconv.Atoi(start)
	c := 1
	if count != "" {
		c, _ = strconv.Atoi(count)
	}
	return s, c
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<end of file>"
}

// splitTestLines splits s into lines that keep their newlines, written
// apart from splitLines so that the two check each other.
func splitTestLines(s string) []string {
	var lines []string
	for s != "" {
		n := strings.IndexByte(s, '\n') + 1
		if n == 0 {
			n = len(s)
		}
		lines = append(lines, s[:n])
		s = s[n:]
	}
	return lines
}

// pathReason is a refusal as the tables write it: its path and reason.
type pathReason struct{ Path, Reason string }

// plain drops what the tables do not compare from refusals.
func plain(rs []Refusal) []pathReason {
	var out []pathReason
	for _, r := range rs {
		out = append(out, pathReason{r.Path, r.Reason})
	}
	return out
}
