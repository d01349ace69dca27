package edits

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testRepo creates a repository with real symbolic links below a temporary
// directory that also holds a sibling "outside" directory, and returns the
// repository's path.
func testRepo(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	writeTree(t, base, map[string]file{
		"outside/secret.txt":            {content: "secret\n"},
		"repo/calc.py":                  {content: "def add(a, b):\n    return a - b\n"},
		"repo/tests/test_calc.py":       {content: "from calc import add\n"},
		"repo/.github/workflows/ci.yml": {content: "on: push\n"},
		"repo/src/pkg/mod.py":           {content: "X = 1\n"},
		"repo/bin/run.sh":               {content: "#!/bin/sh\n", mode: 0o755},
		"repo/.git/config":              {content: "[core]\n"},
		"repo/data.bin":                 {content: "\x00\x01\x02"},
		"repo/win.txt":                  {content: "a\r\nb\r\n"},
	})
	for name, target := range map[string]string{
		"up":       "..",
		"etc":      "/etc",
		"escape":   "../outside",
		"lib":      "src",
		"abslib":   filepath.Join(repo, "src"),
		"self":     ".",
		"alias.py": "calc.py",
		"gitlink":  ".git",
		"testlink": "tests",
		"loop":     "loop",
		"dangling": "nothere",
	} {
		symlink(t, target, filepath.Join(repo, name))
	}
	return repo
}

// protectTests protects tests/ and .github/ the way a repository config
// would, with patterns of the form "dir/**".
func protectTests(p string) (string, bool) {
	for _, pattern := range []string{"tests/**", ".github/**"} {
		if strings.HasPrefix(p, strings.TrimSuffix(pattern, "**")) {
			return pattern, true
		}
	}
	return "", false
}

func TestCheck(t *testing.T) {
	repo := testRepo(t)
	tests := []struct {
		name     string
		edits    []Edit
		accepted []Edit
		refused  []pathReason
	}{
		{
			name:     "code change",
			edits:    []Edit{{Path: "calc.py", Content: "fixed\n"}},
			accepted: []Edit{{Path: "calc.py", Content: "fixed\n"}},
		},
		{
			name:     "path normalised",
			edits:    []Edit{{Path: "./src//pkg/mod.py", Content: "X = 2\n"}},
			accepted: []Edit{{Path: "src/pkg/mod.py", Content: "X = 2\n"}},
		},
		{
			name:     "new file in new directory",
			edits:    []Edit{{Path: "src/new/util.py", Content: "pass\n"}},
			accepted: []Edit{{Path: "src/new/util.py", Content: "pass\n"}},
		},
		{
			name:    "existing test",
			edits:   []Edit{{Path: "tests/test_calc.py", Content: "assert True\n"}},
			refused: []pathReason{{"tests/test_calc.py", `you may not modify tests/test_calc.py (protected by "tests/**"); fix the code, not the tests`}},
		},
		{
			name:    "delete existing test",
			edits:   []Edit{{Path: "tests/test_calc.py", Delete: true}},
			refused: []pathReason{{"tests/test_calc.py", `you may not delete tests/test_calc.py (protected by "tests/**"); fix the code, not the tests`}},
		},
		{
			name:    "existing workflow",
			edits:   []Edit{{Path: ".github/workflows/ci.yml", Content: "on: pull_request\n"}},
			refused: []pathReason{{".github/workflows/ci.yml", ".github/workflows/ci.yml is under .github/, whose workflows and settings are off limits"}},
		},
		{
			name:    "parent directory",
			edits:   []Edit{{Path: "../x", Content: "x\n"}},
			refused: []pathReason{{"../x", "path ../x leaves the repository"}},
		},
		{
			name:    "absolute",
			edits:   []Edit{{Path: "/etc/passwd", Content: "x\n"}},
			refused: []pathReason{{"/etc/passwd", "absolute path /etc/passwd is not allowed"}},
		},
		{
			name:    "windows absolute",
			edits:   []Edit{{Path: `C:\x.py`, Content: "x\n"}, {Path: `\\host\share\x.py`, Content: "x\n"}},
			refused: []pathReason{{`C:\x.py`, `absolute path C:\x.py is not allowed`}, {`\\host\share\x.py`, `absolute path \\host\share\x.py is not allowed`}},
		},
		{
			name:    "inside .git",
			edits:   []Edit{{Path: ".git/config", Content: "x\n"}},
			refused: []pathReason{{".git/config", ".git/config is inside .git"}},
		},
		{
			name:    "link to the parent",
			edits:   []Edit{{Path: "up/outside/secret.txt", Content: "x\n"}},
			refused: []pathReason{{"up/outside/secret.txt", "up/outside/secret.txt resolves outside the repository through a symbolic link"}},
		},
		{
			name:    "link to /etc",
			edits:   []Edit{{Path: "etc/passwd", Content: "x\n"}},
			refused: []pathReason{{"etc/passwd", "etc/passwd resolves outside the repository through a symbolic link"}},
		},
		{
			name:    "link to a sibling directory, new file",
			edits:   []Edit{{Path: "escape/new.txt", Content: "x\n"}},
			refused: []pathReason{{"escape/new.txt", "escape/new.txt resolves outside the repository through a symbolic link"}},
		},
		{
			name:     "directory link inside the repository",
			edits:    []Edit{{Path: "lib/pkg/mod.py", Content: "X = 3\n"}, {Path: "lib/new.py", Content: "new\n"}},
			accepted: []Edit{{Path: "src/new.py", Content: "new\n"}, {Path: "src/pkg/mod.py", Content: "X = 3\n"}},
		},
		{
			name:     "absolute directory link inside the repository",
			edits:    []Edit{{Path: "abslib/pkg/mod.py", Content: "X = 4\n"}},
			accepted: []Edit{{Path: "src/pkg/mod.py", Content: "X = 4\n"}},
		},
		{
			name:     "link to the repository root",
			edits:    []Edit{{Path: "self/calc.py", Content: "fixed\n"}},
			accepted: []Edit{{Path: "calc.py", Content: "fixed\n"}},
		},
		{
			name:    "directory link onto a protected file",
			edits:   []Edit{{Path: "testlink/test_calc.py", Content: "assert True\n"}},
			refused: []pathReason{{"testlink/test_calc.py", `you may not modify tests/test_calc.py (protected by "tests/**"); fix the code, not the tests`}},
		},
		{
			name:     "directory link to a new test",
			edits:    []Edit{{Path: "testlink/test_new.py", Content: "def test(): pass\n"}},
			accepted: []Edit{{Path: "tests/test_new.py", Content: "def test(): pass\n"}},
		},
		{
			name:    "directory link into .git",
			edits:   []Edit{{Path: "gitlink/hooks/pre-commit", Content: "rm -rf /\n"}},
			refused: []pathReason{{"gitlink/hooks/pre-commit", "gitlink/hooks/pre-commit leads to .git/hooks/pre-commit through a symbolic link, and .git/hooks/pre-commit is inside .git"}},
		},
		{
			name:    "file link as the last component",
			edits:   []Edit{{Path: "alias.py", Content: "x\n"}},
			refused: []pathReason{{"alias.py", "alias.py is a symbolic link to calc.py; write that file instead"}},
		},
		{
			name:    "directory link as the last component",
			edits:   []Edit{{Path: "lib", Content: "x\n"}},
			refused: []pathReason{{"lib", "lib is a symbolic link to src; write that file instead"}},
		},
		{
			name:    "outside link as the last component",
			edits:   []Edit{{Path: "escape", Content: "x\n"}},
			refused: []pathReason{{"escape", "escape resolves outside the repository through a symbolic link"}},
		},
		{
			name:    "file link used as a directory",
			edits:   []Edit{{Path: "alias.py/x.py", Content: "x\n"}},
			refused: []pathReason{{"alias.py/x.py", "alias.py/x.py cannot be written: alias.py is a symbolic link to a file, not a directory"}},
		},
		{
			name: "broken links",
			edits: []Edit{
				{Path: "loop/x.py", Content: "x\n"},
				{Path: "dangling/x.py", Content: "x\n"},
				{Path: "dangling", Content: "x\n"},
			},
			refused: []pathReason{
				{"loop/x.py", "loop/x.py goes through a symbolic link that cannot be resolved"},
				{"dangling/x.py", "dangling/x.py goes through a symbolic link that cannot be resolved"},
				{"dangling", "dangling goes through a symbolic link that cannot be resolved"},
			},
		},
		{
			name:    "file used as a directory",
			edits:   []Edit{{Path: "calc.py/x.py", Content: "x\n"}},
			refused: []pathReason{{"calc.py/x.py", "calc.py/x.py cannot be written: calc.py is a file, not a directory"}},
		},
		{
			name:    "directory",
			edits:   []Edit{{Path: "src/pkg", Content: "x\n"}},
			refused: []pathReason{{"src/pkg", "src/pkg is a directory, not a file"}},
		},
		{
			name:     "delete",
			edits:    []Edit{{Path: "bin/run.sh", Delete: true}},
			accepted: []Edit{{Path: "bin/run.sh", Delete: true}},
		},
		{
			name:    "delete a missing file",
			edits:   []Edit{{Path: "nothere.py", Delete: true}},
			refused: []pathReason{{"nothere.py", "cannot delete nothere.py: it does not exist"}},
		},
		{
			name:    "binary file",
			edits:   []Edit{{Path: "data.bin", Content: "text\n"}, {Path: "new.bin", Content: "\x00"}},
			refused: []pathReason{{"data.bin", "data.bin is a binary file; only text files can be changed"}, {"new.bin", "the new content of new.bin contains a NUL byte; only text files can be written"}},
		},
		{
			name:     "CRLF file keeps its line endings",
			edits:    []Edit{{Path: "win.txt", Content: "a\nc\n"}},
			accepted: []Edit{{Path: "win.txt", Content: "a\r\nc\r\n"}},
		},
		{
			name:     "case-sensitive paths",
			edits:    []Edit{{Path: "Tests/test_calc.py", Content: "x\n"}},
			accepted: []Edit{{Path: "Tests/test_calc.py", Content: "x\n"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(repo, "TESTS")); err == nil && tt.name == "case-sensitive paths" {
				t.Skip("the file system ignores case")
			}
			accepted, refused := Check(repo, tt.edits, Rules{Protected: protectTests})
			if !reflect.DeepEqual(accepted, tt.accepted) {
				t.Errorf("accepted = %+v\n      want %+v", accepted, tt.accepted)
			}
			if got := plain(refused); !reflect.DeepEqual(got, tt.refused) {
				t.Errorf("refused = %q\n     want %q", got, tt.refused)
			}
		})
	}
}

// TestCheckNewFilesUnderProtectedPatterns pins the rule that protection is
// about existing files: the agent may add new tests, but not change or
// delete the old ones. Nothing may be added below .github/.
func TestCheckNewFilesUnderProtectedPatterns(t *testing.T) {
	repo := testRepo(t)
	edits := []Edit{
		{Path: "tests/test_overflow.py", Content: "def test_big(): pass\n"},
		{Path: "tests/unit/test_deep.py", Content: "def test_deep(): pass\n"},
		{Path: ".github/ISSUE_TEMPLATE.md", Content: "Describe the bug\n"},
		{Path: "tests/test_calc.py", Content: "\n"},
	}
	accepted, refused := Check(repo, edits, Rules{Protected: protectTests})
	wantAccepted := []Edit{edits[0], edits[1]}
	if !reflect.DeepEqual(accepted, wantAccepted) {
		t.Errorf("accepted = %+v, want %+v", accepted, wantAccepted)
	}
	if len(refused) != 2 || refused[0].Path != ".github/ISSUE_TEMPLATE.md" || refused[1].Path != "tests/test_calc.py" {
		t.Errorf("refused = %q, want the .github file and the existing test", plain(refused))
	}
}

func TestCheckWithoutProtection(t *testing.T) {
	repo := testRepo(t)
	edits := []Edit{{Path: "tests/test_calc.py", Content: "x\n"}}
	accepted, refused := Check(repo, edits, Rules{})
	if !reflect.DeepEqual(accepted, edits) || len(refused) != 0 {
		t.Errorf("Check(nil protection) = %+v, %+v; want the test accepted", accepted, plain(refused))
	}
}

// TestCheckLastWins checks that only the last edit of a file counts, even
// when the paths are spelled differently or meet through a link.
func TestCheckLastWins(t *testing.T) {
	repo := testRepo(t)
	tests := []struct {
		name     string
		edits    []Edit
		accepted []Edit
		refused  []pathReason
	}{
		{
			name:     "same path",
			edits:    []Edit{{Path: "calc.py", Content: "one\n"}, {Path: "calc.py", Content: "two\n"}},
			accepted: []Edit{{Path: "calc.py", Content: "two\n"}},
		},
		{
			name:     "spelled differently",
			edits:    []Edit{{Path: "./calc.py", Content: "one\n"}, {Path: "calc.py", Content: "two\n"}},
			accepted: []Edit{{Path: "calc.py", Content: "two\n"}},
		},
		{
			name:     "through a link",
			edits:    []Edit{{Path: "src/x.py", Content: "one\n"}, {Path: "lib/x.py", Content: "two\n"}},
			accepted: []Edit{{Path: "src/x.py", Content: "two\n"}},
		},
		{
			name:     "refused then accepted",
			edits:    []Edit{{Path: "calc.py", Content: "\x00"}, {Path: "calc.py", Content: "fixed\n"}},
			accepted: []Edit{{Path: "calc.py", Content: "fixed\n"}},
		},
		{
			name:    "accepted then refused",
			edits:   []Edit{{Path: "calc.py", Content: "fixed\n"}, {Path: "calc.py", Content: "\x00"}},
			refused: []pathReason{{"calc.py", "the new content of calc.py contains a NUL byte; only text files can be written"}},
		},
		{
			name:     "written then deleted",
			edits:    []Edit{{Path: "calc.py", Content: "fixed\n"}, {Path: "calc.py", Delete: true}},
			accepted: []Edit{{Path: "calc.py", Delete: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			accepted, refused := Check(repo, tt.edits, Rules{Protected: protectTests})
			if !reflect.DeepEqual(accepted, tt.accepted) || !reflect.DeepEqual(plain(refused), tt.refused) {
				t.Errorf("Check = %+v, %+v\n  want %+v, %+v", accepted, plain(refused), tt.accepted, tt.refused)
			}
		})
	}
}

// TestCheckFileAndDirectoryConflict refuses a file below a path that another
// edit creates as a file.
func TestCheckFileAndDirectoryConflict(t *testing.T) {
	repo := testRepo(t)
	edits := []Edit{{Path: "newpkg/util.py", Content: "x\n"}, {Path: "newpkg", Content: "y\n"}}
	accepted, refused := Check(repo, edits, Rules{})
	want := []Refusal{{Path: "newpkg/util.py", Reason: "newpkg/util.py cannot be written: newpkg is also written as a file"}}
	if !reflect.DeepEqual(accepted, edits[1:]) || !reflect.DeepEqual(refused, want) {
		t.Errorf("Check = %+v, %+v\n  want %+v, %+v", accepted, plain(refused), edits[1:], plain(want))
	}
}

func TestCheckMissingRepository(t *testing.T) {
	accepted, refused := Check(filepath.Join(t.TempDir(), "missing"), []Edit{{Path: "a.py", Content: "x\n"}}, Rules{})
	if len(accepted) != 0 || len(refused) != 1 || !strings.HasPrefix(refused[0].Reason, "cannot read the repository: ") {
		t.Errorf("Check = %+v, %+v; want one refusal", accepted, plain(refused))
	}
}

// TestCheckOnlyReads makes sure Check leaves the repository as it was.
func TestCheckOnlyReads(t *testing.T) {
	repo := testRepo(t)
	before := readTree(t, repo)
	Check(repo, []Edit{{Path: "calc.py", Content: "x\n"}, {Path: "new/dir/a.py", Content: "y\n"}, {Path: "bin/run.sh", Delete: true}}, Rules{})
	compareTrees(t, "after Check", readTree(t, repo), before)
	if _, err := os.Lstat(filepath.Join(repo, "new")); err == nil {
		t.Error("Check created a directory")
	}
}

// TestCheckThenApplyAndDiff runs the whole path: the edits Check accepts,
// including one through a directory link, apply and diff cleanly.
func TestCheckThenApplyAndDiff(t *testing.T) {
	repo := testRepo(t)
	accepted, refused := Check(repo, []Edit{
		{Path: "lib/pkg/mod.py", Content: "X = 2\n"},
		{Path: "tests/test_more.py", Content: "def test(): pass\n"},
		{Path: "etc/passwd", Content: "x\n"},
	}, Rules{Protected: protectTests})
	if len(accepted) != 2 || len(refused) != 1 {
		t.Fatalf("Check = %+v, %+v", accepted, plain(refused))
	}
	patch, err := Diff(repo, accepted)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(patch, "diff --git a/src/pkg/mod.py b/src/pkg/mod.py\n") {
		t.Errorf("the patch does not name the resolved path:\n%s", patch)
	}
	if err := Apply(repo, accepted); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(repo, "src/pkg/mod.py")); string(data) != "X = 2\n" {
		t.Errorf("src/pkg/mod.py = %q", data)
	}
}
