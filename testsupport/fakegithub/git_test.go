package fakegithub

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"
)

// TestObjectIDsMatchGit checks blob, tree and commit ids against git itself
// (git hash-object also checks that trees and commits are well formed).
func TestObjectIDsMatchGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", map[string]string{
		"README.md":       "# calc\n",
		"src/calc.py":     "def add(a, b):\n    return a + b\n",
		"src/calc/x.py":   "", // a directory sorting after the file "calc.py"
		"src-other/y.txt": "y",
	})
	sha, err := repo.Push("main", "Second\n\nbody", map[string]string{"src/new.py": "new\n"}, "README.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var check func(id string)
	check = func(id string) {
		if seen[id] {
			return
		}
		seen[id] = true
		typ, data, err := repo.Object(id)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("git", "hash-object", "-t", typ, "--stdin")
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git hash-object -t %s: %v: %s", typ, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != id {
			t.Errorf("%s %s: git computes %s", typ, id, got)
		}
		switch typ {
		case "commit":
			c, _ := repo.Commit(id)
			check(c.Tree)
			for _, p := range c.Parents {
				check(p)
			}
		case "tree":
			for rest := data; len(rest) > 0; {
				nul := bytes.IndexByte(rest, 0)
				check(hexID(rest[nul+1 : nul+21]))
				rest = rest[nul+21:]
			}
		}
	}
	check(sha)
	if len(seen) < 10 {
		t.Errorf("checked only %d objects", len(seen))
	}
}

func hexID(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 40)
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestEmptyTreeID(t *testing.T) {
	st := &repoState{objects: map[string]*gitObject{}}
	if got := st.putTree(nil); got != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Errorf("empty tree = %s", got)
	}
	if got := st.putBlob([]byte("hello\n")); got != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Errorf("blob hello = %s", got)
	}
}

func TestGitDatabase(t *testing.T) {
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", map[string]string{"a/b/c.txt": "c\n", "a/d.txt": "d\n", "e.txt": "e\n"})
	gh := tokenClient(s, staticToken)
	ctx := context.Background()
	var er *github.ErrorResponse
	status := func(err error) int {
		if errors.As(err, &er) {
			return er.Response.StatusCode
		}
		return 0
	}

	b, _, err := gh.Git.CreateBlob(ctx, "octo", "calc", github.Blob{Content: github.Ptr("héllo\n"), Encoding: github.Ptr("utf-8")})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := gh.Git.GetBlob(ctx, "octo", "calc", b.GetSHA())
	if err != nil || got.GetEncoding() != "base64" || got.GetSize() != 7 {
		t.Fatalf("GetBlob = %+v, %v", got, err)
	}
	raw, _, err := gh.Git.GetBlobRaw(ctx, "octo", "calc", b.GetSHA())
	if err != nil || string(raw) != "héllo\n" {
		t.Errorf("GetBlobRaw = %q, %v", raw, err)
	}
	if _, _, err := gh.Git.GetBlob(ctx, "octo", "calc", strings.Repeat("0", 40)); status(err) != 404 {
		t.Errorf("unknown blob: %v, want 404", err)
	}

	main, _ := repo.Commit("main")
	tree, _, err := gh.Git.GetTree(ctx, "octo", "calc", main.Tree, true)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range tree.Entries {
		paths = append(paths, e.GetPath()+":"+e.GetType())
	}
	if strings.Join(paths, " ") != "a:tree a/b:tree a/b/c.txt:blob a/d.txt:blob e.txt:blob" {
		t.Errorf("recursive tree = %v", paths)
	}
	branch, _, err := gh.Repositories.GetBranch(ctx, "octo", "calc", "main", 1)
	if err != nil || branch.GetCommit().GetSHA() != main.SHA || branch.GetCommit().GetCommit().GetMessage() != "Initial commit" {
		t.Errorf("GetBranch = %+v, %v", branch, err)
	}
	flat, _, err := gh.Git.GetTree(ctx, "octo", "calc", "main", false)
	if err != nil || len(flat.Entries) != 2 || flat.Entries[0].GetMode() != "040000" {
		t.Errorf("tree of main = %+v, %v", flat, err)
	}

	// Replace directory a/b by a file, delete a whole directory.
	nt, _, err := gh.Git.CreateTree(ctx, "octo", "calc", main.Tree, []*github.TreeEntry{
		{Path: github.Ptr("a/b"), Mode: github.Ptr("100755"), Type: github.Ptr("blob"), Content: github.Ptr("#!/bin/sh\n")},
		{Path: github.Ptr("a/d.txt"), Mode: github.Ptr("100644"), Type: github.Ptr("blob")},
	})
	if err != nil {
		t.Fatalf("CreateTree: %v", err)
	}
	c, _, err := gh.Git.CreateCommit(ctx, "octo", "calc", github.Commit{Message: github.Ptr("m"), Tree: nt, Parents: []*github.Commit{{SHA: &main.SHA}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, "octo", "calc", github.CreateRef{Ref: "heads/topic", SHA: *c.SHA}); err != nil {
		t.Fatal(err)
	}
	files, _ := repo.Files("topic")
	if len(files) != 2 || files["a/b"] != "#!/bin/sh\n" || files["e.txt"] != "e\n" {
		t.Errorf("files = %v", files)
	}

	for _, tc := range []struct {
		name    string
		base    string
		entries []*github.TreeEntry
	}{
		{"bad base_tree", strings.Repeat("1", 40), nil},
		{"unknown blob sha", "", []*github.TreeEntry{{Path: github.Ptr("x"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), SHA: github.Ptr(strings.Repeat("2", 40))}}},
		{"commit sha as a blob", "", []*github.TreeEntry{{Path: github.Ptr("x"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), SHA: &main.SHA}}},
		{"sha and content", "", []*github.TreeEntry{{Path: github.Ptr("x"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), SHA: b.SHA, Content: github.Ptr("x")}}},
		{"bad path", "", []*github.TreeEntry{{Path: github.Ptr("../x"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), Content: github.Ptr("x")}}},
	} {
		if _, _, err := gh.Git.CreateTree(ctx, "octo", "calc", tc.base, tc.entries); status(err) != 422 {
			t.Errorf("%s: %v, want 422", tc.name, err)
		}
	}

	if _, _, err := gh.Git.CreateRef(ctx, "octo", "calc", github.CreateRef{Ref: "refs/heads/topic", SHA: *c.SHA}); status(err) != 422 || er.Message != "Reference already exists" {
		t.Errorf("CreateRef of an existing ref: %v", err)
	}
	if _, _, err := gh.Git.GetRef(ctx, "octo", "calc", "heads/nope"); status(err) != 404 {
		t.Errorf("GetRef of a missing ref: %v, want 404", err)
	}
	refs, _, err := gh.Git.ListMatchingRefs(ctx, "octo", "calc", "heads/t")
	if err != nil || len(refs) != 1 || refs[0].GetRef() != "refs/heads/topic" {
		t.Errorf("ListMatchingRefs = %v, %v", refs, err)
	}
	if _, err := gh.Git.DeleteRef(ctx, "octo", "calc", "heads/topic"); err != nil {
		t.Errorf("DeleteRef: %v", err)
	}
	if _, err := gh.Git.DeleteRef(ctx, "octo", "calc", "heads/topic"); status(err) != 422 {
		t.Errorf("DeleteRef twice: %v, want 422", err)
	}
	if _, _, err := gh.Git.CreateCommit(ctx, "octo", "calc", github.Commit{Message: github.Ptr("m"), Tree: &github.Tree{SHA: &main.SHA}}, nil); status(err) != 422 {
		t.Errorf("commit with a commit as its tree: %v, want 422", err)
	}
	got2, _, err := gh.Git.GetCommit(ctx, "octo", "calc", c.GetSHA())
	if err != nil || got2.GetMessage() != "m" || got2.GetAuthor().GetName() != "github-actions[bot]" {
		t.Errorf("GetCommit = %+v, %v", got2, err)
	}
}

func TestContents(t *testing.T) {
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", map[string]string{"src/calc.py": "x = 1\n", "src/util.py": "y\n"})
	if _, err := repo.Push("topic", "change", map[string]string{"src/calc.py": "x = 2\n"}); err != nil {
		t.Fatal(err)
	}
	gh := tokenClient(s, staticToken)
	ctx := context.Background()
	for ref, want := range map[string]string{"": "x = 1\n", "main": "x = 1\n", "topic": "x = 2\n"} {
		f, _, _, err := gh.Repositories.GetContents(ctx, "octo", "calc", "src/calc.py", &github.RepositoryContentGetOptions{Ref: ref})
		if err != nil {
			t.Fatalf("GetContents at %q: %v", ref, err)
		}
		if got, _ := f.GetContent(); got != want || f.GetPath() != "src/calc.py" || f.GetName() != "calc.py" {
			t.Errorf("at %q: %+v", ref, f)
		}
	}
	_, dir, _, err := gh.Repositories.GetContents(ctx, "octo", "calc", "src", nil)
	if err != nil || len(dir) != 2 || dir[0].GetType() != "file" {
		t.Errorf("directory = %v, %v", dir, err)
	}
	var er *github.ErrorResponse
	if _, _, _, err := gh.Repositories.GetContents(ctx, "octo", "calc", "src/nope.py", nil); !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Errorf("missing file: %v, want 404", err)
	}
}
