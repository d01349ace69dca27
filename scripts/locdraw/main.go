// Command locdraw draws the localization holdout: real fixed issues of
// public Python projects, each with the commit before its fix and the lines
// the fix changed. It has two steps.
//
//	go run ./scripts/locdraw candidates -repos DIR -projects FILE > candidates.jsonl
//	go run ./scripts/locdraw join -candidates FILE -texts FILE > cases.jsonl
//
// candidates applies the drawing rule to bare clones DIR/OWNER/NAME.git (or
// DIR/OWNER+NAME/repo, the layout of a fetched mirror) of every project in
// FILE (one OWNER/NAME a line; # starts a comment). join attaches each
// issue's text as its reporter wrote it (a JSON Lines file of
// {"repo","issue","url","title","body"}, looked up by hand in a stored copy
// of the projects' issue trackers), keeps at most perProject cases of a
// project, newest fix first, and splits the cases once into a development
// and a test half by a hash of "OWNER/NAME#ISSUE".
//
// The rule, fixed before any tuning:
//   - non-merge commits dated in [since, until) whose message says it fixes,
//     closes or resolves exactly one issue ("Fixes #123"),
//   - an issue fixed by exactly one such commit,
//   - that modify (not add or delete) 1 to maxFiles non-test Python files
//     outside docs, examples, scripts and benchmarks, by at most maxLines
//     added and removed lines in those files.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

const (
	since      = "2018-01-01"
	until      = "2026-01-01"
	maxFiles   = 3
	maxLines   = 100
	perProject = 25
)

// fixRef finds "fixes #123" and its spellings in a commit message.
var fixRef = regexp.MustCompile(`(?i)\b(?:fix|fixes|fixed|close|closes|closed|resolve|resolves|resolved)[: ]+#([0-9]+)\b`)

// Gold is a changed file and its changed line ranges, in the parent's
// numbering; a pure insertion is the line it follows.
type Gold struct {
	File  string   `json:"file"`
	Lines [][2]int `json:"lines"`
}

// Candidate is a fixed issue the rule drew, before its text is known.
type Candidate struct {
	Repo    string `json:"repo"`
	Issue   int    `json:"issue"`
	Commit  string `json:"commit"`
	Parent  string `json:"parent"`
	Date    int64  `json:"date"`
	Subject string `json:"subject"`
	Gold    []Gold `json:"gold"`
}

// Text is an issue's title and first post as its reporter wrote them.
type Text struct {
	Repo  string `json:"repo"`
	Issue int    `json:"issue"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

// Case is a drawn issue with its text and its half.
type Case struct {
	Repo   string `json:"repo"`
	Issue  int    `json:"issue"`
	URL    string `json:"url"`
	Split  string `json:"split"`
	Commit string `json:"commit"`
	Parent string `json:"parent"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	Gold   []Gold `json:"gold"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: locdraw candidates|join [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "candidates":
		fs := flag.NewFlagSet("candidates", flag.ExitOnError)
		repos := fs.String("repos", "", "folder of bare clones")
		projects := fs.String("projects", "", "file listing OWNER/NAME, one a line")
		_ = fs.Parse(os.Args[2:])
		err = candidates(*repos, *projects, os.Stdout)
	case "join":
		fs := flag.NewFlagSet("join", flag.ExitOnError)
		cands := fs.String("candidates", "", "candidates.jsonl")
		texts := fs.String("texts", "", "issue texts, JSON Lines")
		_ = fs.Parse(os.Args[2:])
		err = join(*cands, *texts, os.Stdout)
	default:
		err = fmt.Errorf("unknown step %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "locdraw:", err)
		os.Exit(1)
	}
}

func candidates(reposDir, projectsFile string, out io.Writer) error {
	data, err := os.ReadFile(projectsFile)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for _, line := range strings.Split(string(data), "\n") {
		repo := strings.TrimSpace(strings.SplitN(line, "#", 2)[0])
		if repo == "" {
			continue
		}
		gitDir, err := findClone(reposDir, repo)
		if err != nil {
			return err
		}
		cs, err := drawRepo(gitDir, repo)
		if err != nil {
			return fmt.Errorf("%s: %w", repo, err)
		}
		fmt.Fprintf(os.Stderr, "%s: %d candidates\n", repo, len(cs))
		for _, c := range cs {
			if err := enc.Encode(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// findClone finds a project's bare clone under dir in either layout.
func findClone(dir, repo string) (string, error) {
	for _, p := range []string{
		filepath.Join(dir, repo+".git"),
		filepath.Join(dir, strings.Replace(repo, "/", "+", 1), "repo"),
	} {
		if _, err := os.Stat(filepath.Join(p, "HEAD")); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no clone of %s under %s", repo, dir)
}

func git(gitDir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"--git-dir", gitDir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}

// drawRepo applies the rule to one project's history.
func drawRepo(gitDir, repo string) ([]Candidate, error) {
	log, err := git(gitDir, "log", "HEAD", "--no-merges", "--since="+since, "--until="+until,
		"-E", "-i", "--grep=(fix|fixes|fixed|close|closes|closed|resolve|resolves|resolved)[: ]+#[0-9]+",
		"--format=%x1e%H%x1f%P%x1f%ct%x1f%s%x1f%B")
	if err != nil {
		return nil, err
	}
	byIssue := map[int][]Candidate{}
	for _, rec := range strings.Split(string(log), "\x1e") {
		f := strings.SplitN(rec, "\x1f", 5)
		if len(f) != 5 {
			continue
		}
		issues := map[int]bool{}
		for _, m := range fixRef.FindAllStringSubmatch(f[4], -1) {
			n, _ := strconv.Atoi(m[1])
			issues[n] = true
		}
		if len(issues) != 1 || strings.Contains(f[1], " ") {
			continue
		}
		var issue int
		for n := range issues {
			issue = n
		}
		date, _ := strconv.ParseInt(f[2], 10, 64)
		byIssue[issue] = append(byIssue[issue], Candidate{Repo: repo, Issue: issue, Commit: f[0], Parent: f[1], Date: date, Subject: f[3]})
	}
	var out []Candidate
	for _, cs := range byIssue {
		if len(cs) != 1 {
			continue
		}
		c := cs[0]
		gold, ok, err := goldOf(gitDir, c)
		if err != nil {
			return nil, err
		}
		if ok {
			c.Gold = gold
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Candidate) int { return int(b.Date - a.Date) })
	return out, nil
}

// goldOf checks a commit's changed files against the rule and returns the
// changed ranges of its non-test Python files.
func goldOf(gitDir string, c Candidate) ([]Gold, bool, error) {
	stat, err := git(gitDir, "diff", "--no-renames", "--numstat", c.Parent, c.Commit)
	if err != nil {
		return nil, false, err
	}
	status, err := git(gitDir, "diff", "--no-renames", "--name-status", c.Parent, c.Commit)
	if err != nil {
		return nil, false, err
	}
	modified := map[string]bool{}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.SplitN(l, "\t", 2); len(f) == 2 && f[0] == "M" {
			modified[f[1]] = true
		}
	}
	var files []string
	lines := 0
	for _, l := range strings.Split(string(stat), "\n") {
		f := strings.SplitN(l, "\t", 3)
		if len(f) != 3 || !isSource(f[2]) {
			continue
		}
		if !modified[f[2]] {
			return nil, false, nil
		}
		add, err1 := strconv.Atoi(f[0])
		del, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return nil, false, nil
		}
		lines += add + del
		files = append(files, f[2])
	}
	if len(files) == 0 || len(files) > maxFiles || lines > maxLines {
		return nil, false, nil
	}
	var gold []Gold
	for _, file := range files {
		diff, err := git(gitDir, "diff", "--no-renames", "-U0", c.Parent, c.Commit, "--", file)
		if err != nil {
			return nil, false, err
		}
		ranges := hunks(diff)
		if len(ranges) == 0 {
			return nil, false, nil
		}
		gold = append(gold, Gold{File: file, Lines: ranges})
	}
	return gold, true, nil
}

// hunkHeader reads the old side of a unified diff's hunk header.
var hunkHeader = regexp.MustCompile(`(?m)^@@ -([0-9]+)(?:,([0-9]+))? \+`)

// hunks returns the old-side line ranges of a -U0 diff; a pure insertion
// is the line it follows (line 1 at the top of the file).
func hunks(diff []byte) [][2]int {
	var out [][2]int
	for _, m := range hunkHeader.FindAllSubmatch(diff, -1) {
		start, _ := strconv.Atoi(string(m[1]))
		count := 1
		if len(m[2]) > 0 {
			count, _ = strconv.Atoi(string(m[2]))
		}
		if count == 0 {
			out = append(out, [2]int{max(start, 1), max(start, 1)})
			continue
		}
		out = append(out, [2]int{start, start + count - 1})
	}
	return out
}

// isSource reports whether p is a non-test Python file outside the
// folders that hold no library code.
func isSource(p string) bool {
	if path.Ext(p) != ".py" {
		return false
	}
	base := path.Base(p)
	if strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py" || base == "tests.py" {
		return false
	}
	for _, dir := range strings.Split(path.Dir(p), "/") {
		switch dir {
		case "test", "tests", "testing", "docs", "doc", "examples", "example", "scripts", "benchmarks", "bench":
			return false
		}
	}
	return true
}

func join(candidatesFile, textsFile string, out io.Writer) error {
	var cands []Candidate
	if err := readLines(candidatesFile, func(b []byte) error {
		var c Candidate
		cands = append(cands, c)
		return json.Unmarshal(b, &cands[len(cands)-1])
	}); err != nil {
		return err
	}
	texts := map[string]Text{}
	if err := readLines(textsFile, func(b []byte) error {
		var t Text
		if err := json.Unmarshal(b, &t); err != nil {
			return err
		}
		if strings.TrimSpace(t.Title) == "" {
			return fmt.Errorf("issue %s#%d has no title", t.Repo, t.Issue)
		}
		texts[key(t.Repo, t.Issue)] = t
		return nil
	}); err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	taken := map[string]int{}
	for _, c := range cands { // newest first within each project
		t, ok := texts[key(c.Repo, c.Issue)]
		if !ok || taken[c.Repo] >= perProject {
			continue
		}
		taken[c.Repo]++
		err := enc.Encode(Case{Repo: c.Repo, Issue: c.Issue, URL: t.URL, Split: split(c.Repo, c.Issue),
			Commit: c.Commit, Parent: c.Parent, Title: t.Title, Body: t.Body, Gold: c.Gold})
		if err != nil {
			return err
		}
	}
	return nil
}

func key(repo string, issue int) string { return fmt.Sprintf("%s#%d", repo, issue) }

// split puts a case in the development or the test half by the parity of
// the first byte of the SHA-256 of "OWNER/NAME#ISSUE".
func split(repo string, issue int) string {
	if sha256.Sum256([]byte(key(repo, issue)))[0]%2 == 0 {
		return "dev"
	}
	return "test"
}

func readLines(name string, fn func([]byte) error) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
	return sc.Err()
}
