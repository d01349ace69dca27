package repo

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repocontext"
)

// TestAnswerSizes measures, on the gold fixes of the localization cases
// (../repocontext/testdata/localization/cases.jsonl), the completion tokens
// (estimated as the repository context does) of each fix written as
// SEARCH/REPLACE blocks, as whole files and as a unified diff, and checks
// that the blocks place back to the fixed files. The repositories are read
// from the clones in $CAPSULE_LOCALIZATION_REPOS (see
// scripts/localization-repos.sh):
//
//	CAPSULE_LOCALIZATION_REPOS=DIR go test -run TestAnswerSizes -v ./pipeline/
func TestAnswerSizes(t *testing.T) {
	root := os.Getenv("CAPSULE_LOCALIZATION_REPOS")
	if root == "" {
		t.Skip("set CAPSULE_LOCALIZATION_REPOS to a folder made by scripts/localization-repos.sh")
	}
	f, err := os.Open("../repocontext/testdata/localization/cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocksToDiff, blocksToWhole []float64
	var blockTok, wholeTok, diffTok, hunkTok []int
	var hunksToDiff []float64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c struct {
			Repo, Commit, Parent string
			Gold                 []struct{ File string }
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		gitDir := filepath.Join(root, c.Repo+".git")
		dir := t.TempDir()
		var blocks, whole []edits.FileEdit
		var changes []edits.Edit
		for _, g := range c.Gold {
			old, errOld := gitShow(gitDir, c.Parent, g.File)
			new, err := gitShow(gitDir, c.Commit, g.File)
			if err != nil {
				t.Fatalf("%s %s: %v", c.Repo, g.File, err)
			}
			whole = append(whole, edits.FileEdit{Path: g.File, Whole: true, Content: new})
			changes = append(changes, edits.Edit{Path: g.File, Content: new})
			if errOld != nil { // a new file is written whole in every form
				blocks = append(blocks, edits.FileEdit{Path: g.File, Whole: true, Content: new})
				continue
			}
			writeFile(t, filepath.Join(dir, g.File), old)
			bs := edits.BlocksFor(old, new)
			placed, err := edits.Resolve(dir, []edits.FileEdit{{Path: g.File, Blocks: bs}}, 0)
			if err != nil || placed[0].Content != new {
				t.Fatalf("%s %.8s %s: the blocks do not place back to the fix: %v", c.Repo, c.Commit, g.File, err)
			}
			blocks = append(blocks, edits.FileEdit{Path: g.File, Blocks: bs})
		}
		patch, err := edits.Diff(dir, changes)
		if err != nil {
			t.Fatal(err)
		}
		b, w, d := repocontext.EstimateTokens(programmer.FormatFiles(blocks)), repocontext.EstimateTokens(programmer.FormatFiles(whole)), repocontext.EstimateTokens(patch)
		h := repocontext.EstimateTokens(programmer.FormatFiles(hunkBlocks(patch)))
		blockTok, wholeTok, diffTok, hunkTok = append(blockTok, b), append(wholeTok, w), append(diffTok, d), append(hunkTok, h)
		hunksToDiff = append(hunksToDiff, float64(h)/float64(d))
		blocksToDiff, blocksToWhole = append(blocksToDiff, float64(b)/float64(d)), append(blocksToWhole, float64(b)/float64(w))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d gold fixes; completion tokens (bytes/4):", len(blockTok))
	t.Logf("%-22s %8s %8s", "", "median", "worst")
	t.Logf("%-22s %8d %8d", "SEARCH/REPLACE blocks", median(blockTok), slices.Max(blockTok))
	t.Logf("%-22s %8d %8d", "blocks, diff's context", median(hunkTok), slices.Max(hunkTok))
	t.Logf("%-22s %8d %8d", "whole files", median(wholeTok), slices.Max(wholeTok))
	t.Logf("%-22s %8d %8d", "unified diff", median(diffTok), slices.Max(diffTok))
	t.Logf("%-22s %8.2f %8.2f", "blocks / diff", median(blocksToDiff), slices.Max(blocksToDiff))
	t.Logf("%-22s %8.2f %8.2f", "same, diff's context", median(hunksToDiff), slices.Max(hunksToDiff))
	t.Logf("%-22s %8.3f %8.3f", "blocks / whole files", median(blocksToWhole), slices.Max(blocksToWhole))
	if m := median(blocksToDiff); m > 1.5 {
		t.Errorf("SEARCH/REPLACE blocks are %.2fx the unified diff at the median; the goal is at most 1.5x", m)
	}
}

// hunkBlocks writes each hunk of a patch as a block, as a model that
// quotes the diff's three lines of context would: context and removed
// lines in SEARCH, context and added lines in REPLACE. (New files are left
// out: they are whole in every form.)
func hunkBlocks(patch string) []edits.FileEdit {
	var files []edits.FileEdit
	inHunk := false
	for _, l := range strings.SplitAfter(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			inHunk = false
		case !inHunk && strings.HasPrefix(l, "+++ b/"):
			files = append(files, edits.FileEdit{Path: strings.TrimSpace(l[len("+++ b/"):]), Blocks: []edits.Block{}})
		case strings.HasPrefix(l, "@@") && len(files) > 0:
			f := &files[len(files)-1]
			f.Blocks, inHunk = append(f.Blocks, edits.Block{}), true
		case inHunk && l != "":
			f := &files[len(files)-1]
			b := &f.Blocks[len(f.Blocks)-1]
			switch l[0] {
			case ' ':
				b.Search, b.Replace = b.Search+l[1:], b.Replace+l[1:]
			case '-':
				b.Search += l[1:]
			case '+':
				b.Replace += l[1:]
			}
		}
	}
	return files
}

// gitShow reads a file at a revision of a bare clone.
func gitShow(gitDir, rev, path string) (string, error) {
	out, err := exec.Command("git", "--git-dir", gitDir, "show", rev+":"+path).Output()
	if err != nil {
		return "", fmt.Errorf("git show %s:%s: %w", rev, path, err)
	}
	return string(out), nil
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// median returns the middle value (the upper one of an even count).
func median[T int | float64](xs []T) T {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}
