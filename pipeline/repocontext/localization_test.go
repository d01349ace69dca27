package repocontext

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/internal/gitarchive"
)

// locCase is a real fixed issue of a public Python project: the issue's
// text (the fixing commit's message), the commit before the fix, and the
// lines the fix changed in non-test files.
type locCase struct {
	Repo string `json:"repo"`
	// Issue, URL and Split are set in the holdout (testdata/holdout): the
	// issue's number and address, and its half, "dev" or "test".
	Issue  int    `json:"issue,omitempty"`
	URL    string `json:"url,omitempty"`
	Split  string `json:"split,omitempty"`
	Commit string `json:"commit"`
	Parent string `json:"parent"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	Gold   []struct {
		File string `json:"file"`
		// Lines are the changed ranges, in the parent's numbering; an
		// insertion is the line it follows.
		Lines [][2]int `json:"lines"`
	} `json:"gold"`
}

// locBudgets are the budgets localization is measured at.
var locBudgets = []int{13000, 24000, 50000}

// BenchmarkLocalization measures, on the real fixed issues of
// testdata/localization/cases.jsonl, the share of issues whose fixed files
// are in the context, and whose changed lines are shown, at each of
// locBudgets: with every file whole (Options.WholeFiles) and with large
// files in part, as Build shows them. The repositories are read from the clones in
// $CAPSULE_LOCALIZATION_REPOS (see scripts/localization-repos.sh); each
// case is checked out at its parent commit once, before timing.
//
//	CAPSULE_LOCALIZATION_REPOS=$HOME/capsule-loc go test -run '^$' -bench Localization -benchtime 1x ./pipeline/repocontext/
func BenchmarkLocalization(b *testing.B) {
	root := os.Getenv("CAPSULE_LOCALIZATION_REPOS")
	if root == "" {
		b.Skip("set CAPSULE_LOCALIZATION_REPOS to a folder made by scripts/localization-repos.sh")
	}
	cases := readCases(b, "testdata/localization/cases.jsonl")
	dirs := checkouts(b, root, cases)
	type result struct{ files, lines int }
	var res map[string]*result
	var misses []string
	for b.Loop() {
		res, misses = make(map[string]*result), nil
		for _, whole := range []bool{true, false} {
			for _, budget := range locBudgets {
				key := locKey(whole, budget)
				res[key] = &result{}
				for i, c := range cases {
					ctx, err := Build(dirs[i], Issue{Title: c.Title, Body: c.Body}, Options{Budget: budget, WholeFiles: whole})
					if err != nil {
						b.Fatal(err)
					}
					files, lines := c.visible(ctx)
					if files {
						res[key].files++
					}
					if lines {
						res[key].lines++
					} else if !whole && budget == DefaultBudget {
						misses = append(misses, fmt.Sprintf("%s %.8s %q (file shown: %v)", c.Repo, c.Commit, c.Title, files))
					}
				}
			}
		}
	}
	var t strings.Builder
	fmt.Fprintf(&t, "%d issues; share whose fixed files are in the context / whose changed lines are shown:\n", len(cases))
	fmt.Fprintf(&t, "%-8s %-22s %-22s\n", "budget", "every file whole", "large files in part")
	for _, budget := range locBudgets {
		w, s := res[locKey(true, budget)], res[locKey(false, budget)]
		fmt.Fprintf(&t, "%-8d %3.0f%% / %3.0f%%           %3.0f%% / %3.0f%%\n", budget,
			pct(w.files, len(cases)), pct(w.lines, len(cases)), pct(s.files, len(cases)), pct(s.lines, len(cases)))
		for _, whole := range []bool{true, false} {
			r := res[locKey(whole, budget)]
			b.ReportMetric(pct(r.files, len(cases)), "file%-"+locKey(whole, budget))
			b.ReportMetric(pct(r.lines, len(cases)), "lines%-"+locKey(whole, budget))
		}
	}
	fmt.Fprintf(&t, "changed lines not shown at %d tokens with spans:\n  %s\n", DefaultBudget, strings.Join(misses, "\n  "))
	b.Log(t.String())
}

// checkouts extracts each case's tree at its parent commit from the bare
// clones under root: into $CAPSULE_LOCALIZATION_WORK/OWNER/NAME/PARENT,
// kept for the next run, when that is set, else into temporary folders.
func checkouts(b *testing.B, root string, cases []locCase) []string {
	b.Helper()
	work := os.Getenv("CAPSULE_LOCALIZATION_WORK")
	dirs := make([]string, len(cases))
	for i, c := range cases {
		if work == "" {
			dirs[i] = filepath.Join(b.TempDir(), "repo")
		} else {
			dirs[i] = filepath.Join(work, c.Repo, c.Parent)
			if _, err := os.Stat(dirs[i] + ".done"); err == nil {
				continue
			}
			if err := os.RemoveAll(dirs[i]); err != nil {
				b.Fatal(err)
			}
		}
		if err := gitarchive.Checkout(filepath.Join(root, c.Repo+".git"), c.Parent, dirs[i]); err != nil {
			b.Fatalf("%s at %s: %v", c.Repo, c.Parent, err)
		}
		if work != "" {
			if err := os.WriteFile(dirs[i]+".done", nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return dirs
}

// BenchmarkHoldout measures, on the localization holdout of
// testdata/holdout/cases.jsonl (real issues as their reporters wrote them;
// see its README), the share of issues whose fixed files are in the
// context and whose changed lines are shown, at each of locBudgets, for
// each half, beside the share whose fixed files alone fit the budget whole
// with the issue. Only the development half's misses are listed: the test half
// is never looked at while tuning. $CAPSULE_HOLDOUT_SPLIT=dev measures
// one half only.
//
//	CAPSULE_LOCALIZATION_REPOS=$HOME/capsule-loc go test -run '^$' -bench Holdout -benchtime 1x ./pipeline/repocontext/
func BenchmarkHoldout(b *testing.B) {
	cases, dirs := holdoutCases(b, os.Getenv("CAPSULE_HOLDOUT_SPLIT"))
	type result struct{ n, files, lines, fit int }
	var res map[string]*result
	var misses []string
	goldTokens := make([]int, len(cases))
	for i, c := range cases {
		goldTokens[i] = c.goldTokens(b, dirs[i])
	}
	for b.Loop() {
		res, misses = make(map[string]*result), nil
		for _, budget := range locBudgets {
			for i, c := range cases {
				ctx, err := Build(dirs[i], Issue{Title: c.Title, Body: c.Body}, Options{Budget: budget})
				if err != nil {
					b.Fatal(err)
				}
				key := fmt.Sprintf("%s-%dk", c.Split, budget/1000)
				if res[key] == nil {
					res[key] = &result{}
				}
				r := res[key]
				r.n++
				if goldTokens[i] <= budget {
					r.fit++
				}
				files, lines := c.visible(ctx)
				if files {
					r.files++
				}
				if lines {
					r.lines++
				} else if budget == DefaultBudget && c.Split == "dev" {
					misses = append(misses, c.miss(ctx, files))
				}
			}
		}
	}
	var t strings.Builder
	fmt.Fprintf(&t, "share of issues whose fixed files are in the context / whose changed lines are shown,\n")
	fmt.Fprintf(&t, "and whose fixed files fit the budget whole (what a context of only the fixed files, whole, would reach):\n")
	fmt.Fprintf(&t, "%-6s %-7s %-7s %-14s %s\n", "half", "issues", "budget", "files / lines", "whole fit")
	for _, split := range []string{"dev", "test"} {
		for _, budget := range locBudgets {
			key := fmt.Sprintf("%s-%dk", split, budget/1000)
			if r := res[key]; r != nil {
				fmt.Fprintf(&t, "%-6s %-7d %-7d %3.0f%% / %3.0f%%    %3.0f%%\n", split, r.n, budget, pct(r.files, r.n), pct(r.lines, r.n), pct(r.fit, r.n))
				b.ReportMetric(pct(r.files, r.n), "file%-"+key)
				b.ReportMetric(pct(r.lines, r.n), "lines%-"+key)
			}
		}
	}
	fmt.Fprintf(&t, "development half, %d issues whose changed lines are not shown at %d tokens", len(misses), DefaultBudget)
	if out := os.Getenv("CAPSULE_HOLDOUT_MISSES"); out != "" {
		if err := os.WriteFile(out, []byte(strings.Join(misses, "\n")), 0o644); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&t, ", in %s", out)
	}
	b.Log(t.String())
}

// holdoutCases returns the holdout's cases of one half ("dev" or "test",
// both when split is empty) and their trees, checked out from the
// repositories in $CAPSULE_LOCALIZATION_REPOS; it skips b when that is
// unset.
func holdoutCases(b *testing.B, split string) ([]locCase, []string) {
	b.Helper()
	root := os.Getenv("CAPSULE_LOCALIZATION_REPOS")
	if root == "" {
		b.Skip("set CAPSULE_LOCALIZATION_REPOS to a folder made by scripts/localization-repos.sh holdout DIR")
	}
	var cases []locCase
	for _, c := range readCases(b, "testdata/holdout/cases.jsonl") {
		if split == "" || c.Split == split {
			cases = append(cases, c)
		}
	}
	return cases, checkouts(b, root, cases)
}

// goldTokens is what the case's issue and its fixed files, each shown
// whole under the files heading, take of a budget; a fixed file missing
// from the tree counts as nothing.
func (c locCase) goldTokens(tb testing.TB, dir string) int {
	tb.Helper()
	n := EstimateTokens(c.Title+"\n\n"+c.Body) + EstimateTokens(filesHeading)
	for _, g := range c.Gold {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(g.File)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			tb.Fatal(err)
		}
		n += EstimateTokens(fileSection(g.File, "", false, string(data)))
	}
	return n
}

// miss describes a case whose changed lines ctx does not show: the gold
// files, where each is in the context or why it is left out, and the
// files shown.
func (c locCase) miss(ctx Context, files bool) string {
	var t strings.Builder
	fmt.Fprintf(&t, "%s#%d %.8s %q (file shown: %v)\n", c.Repo, c.Issue, c.Parent, c.Title, files)
	for _, g := range c.Gold {
		fmt.Fprintf(&t, "    gold %s %v: ", g.File, g.Lines)
		found := false
		for k, in := range ctx.Included {
			if in.Path == g.File {
				fmt.Fprintf(&t, "included #%d (%s), %d tokens, spans", k+1, in.Why, in.Tokens)
				for _, s := range in.Spans {
					fmt.Fprintf(&t, " %d-%d", s.Start, s.End)
				}
				for _, s := range in.LeftOut {
					fmt.Fprintf(&t, "; left out %d-%d: %s", s.Start, s.End, s.Why)
				}
				found = true
			}
		}
		for _, o := range ctx.Omitted {
			if o.Path == g.File {
				fmt.Fprintf(&t, "omitted: %s", o.Why)
				found = true
			}
		}
		if !found {
			t.WriteString("not ranked")
		}
		t.WriteString("\n")
	}
	for k, in := range ctx.Included {
		fmt.Fprintf(&t, "    #%d %s (%s) %d tokens\n", k+1, in.Path, in.Why, in.Tokens)
	}
	return t.String()
}

// locKey names a measurement: "whole-24k" or "spans-24k".
func locKey(whole bool, budget int) string {
	mode := "spans"
	if whole {
		mode = "whole"
	}
	return fmt.Sprintf("%s-%dk", mode, budget/1000)
}

func pct(n, of int) float64 { return 100 * float64(n) / float64(of) }

// visible reports whether every gold file is in ctx, and whether every
// changed line is shown.
func (c locCase) visible(ctx Context) (files, lines bool) {
	files, lines = true, true
	for _, g := range c.Gold {
		var in *Included
		for k := range ctx.Included {
			if ctx.Included[k].Path == g.File {
				in = &ctx.Included[k]
			}
		}
		if in == nil {
			files, lines = false, false
			continue
		}
		for _, r := range g.Lines {
			if !in.shows(r[0], r[1]) {
				lines = false
			}
		}
	}
	return files, lines
}

// shows reports whether lines from to to are all in one shown span.
func (in Included) shows(from, to int) bool {
	for _, s := range in.Spans {
		if s.Start <= from && to <= s.End {
			return true
		}
	}
	return false
}

// readCases reads a JSON Lines file of cases.
func readCases(tb testing.TB, path string) []locCase {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var cases []locCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c locCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return cases
}

// TestLocalizationCases checks the case lists: every case names its
// repository, commits, issue text and gold lines; the holdout's cases each
// name their issue and half, at least 300 of them from at least 15
// projects, none twice.
func TestLocalizationCases(t *testing.T) {
	checkCases(t, readCases(t, "testdata/localization/cases.jsonl"), 30)
	holdout := readCases(t, "testdata/holdout/cases.jsonl")
	checkCases(t, holdout, 300)
	projects := make(map[string]bool)
	seen := make(map[string]bool)
	halves := make(map[string]int)
	for _, c := range holdout {
		projects[c.Repo] = true
		halves[c.Split]++
		key := fmt.Sprintf("%s#%d", c.Repo, c.Issue)
		if c.Issue < 1 || c.URL != "https://github.com/"+key[:strings.IndexByte(key, '#')]+fmt.Sprintf("/issues/%d", c.Issue) || seen[key] {
			t.Errorf("holdout case %s: bad or repeated issue, or an address not its own: %q", key, c.URL)
		}
		seen[key] = true
	}
	if len(projects) < 15 {
		t.Errorf("holdout from %d projects, want at least 15", len(projects))
	}
	if len(halves) != 2 || halves["dev"] == 0 || halves["test"] == 0 {
		t.Errorf("holdout halves %v, want dev and test only", halves)
	}
}

// checkCases checks that a case list holds at least least complete cases.
func checkCases(t *testing.T, cases []locCase, least int) {
	t.Helper()
	if len(cases) < least {
		t.Errorf("%d cases, want at least %d", len(cases), least)
	}
	for i, c := range cases {
		if c.Repo == "" || len(c.Commit) != 40 || len(c.Parent) != 40 || c.Title == "" || len(c.Gold) == 0 {
			t.Errorf("case %d is incomplete: %+v", i+1, c)
		}
		for _, g := range c.Gold {
			if g.File == "" || len(g.Lines) == 0 {
				t.Errorf("case %d: gold %+v has no file or lines", i+1, g)
			}
			for _, r := range g.Lines {
				if r[0] < 1 || r[1] < r[0] {
					t.Errorf("case %d: bad range %v", i+1, r)
				}
			}
		}
	}
}
