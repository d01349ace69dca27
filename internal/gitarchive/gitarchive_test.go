package gitarchive

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckout(t *testing.T) {
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	os.MkdirAll(filepath.Join(repo, "pkg"), 0o755)
	os.WriteFile(filepath.Join(repo, "pkg", "a.py"), []byte("one\n"), 0o644)
	git("add", ".")
	git("commit", "-qm", "first")
	first := git("rev-parse", "HEAD")
	os.WriteFile(filepath.Join(repo, "pkg", "a.py"), []byte("two\n"), 0o644)
	git("commit", "-qam", "second")

	dir := filepath.Join(t.TempDir(), "tree")
	if err := Checkout(filepath.Join(repo, ".git"), first, dir); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "pkg", "a.py")); err != nil || string(got) != "one\n" {
		t.Errorf("pkg/a.py = %q, %v; want the first commit's", got, err)
	}
	if err := Checkout(filepath.Join(repo, ".git"), "0123456789abcdef0123456789abcdef01234567", t.TempDir()); err == nil || !strings.Contains(err.Error(), "git archive") {
		t.Errorf("an unknown commit gave %v", err)
	}
}
