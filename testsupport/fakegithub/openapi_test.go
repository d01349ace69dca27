package fakegithub

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

func fullDescription(t testing.TB) *description {
	t.Helper()
	d, took, err := loadDescription("")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("indexing the description took %v (once per process)", took)
	return d
}

func TestRouting(t *testing.T) {
	d := fullDescription(t)
	if len(d.paths) != 811 {
		t.Errorf("%d paths, want 811", len(d.paths))
	}
	for _, tc := range []struct {
		path, template, params string
	}{
		{"/repos/o/r/git/ref/heads/main", "/repos/{owner}/{repo}/git/ref/{ref}", "owner=o ref=heads/main repo=r"},
		{"/repos/o/r/git/refs/heads/capsule/issue-1", "/repos/{owner}/{repo}/git/refs/{ref}", "owner=o ref=heads/capsule/issue-1 repo=r"},
		{"/repos/o/r/git/matching-refs/heads/", "/repos/{owner}/{repo}/git/matching-refs/{ref}", "owner=o ref=heads/ repo=r"},
		{"/repos/o/r/contents/src/a%20b.py", "/repos/{owner}/{repo}/contents/{path}", "owner=o path=src/a b.py repo=r"},
		{"/repos/o/r/tarball/capsule/issue-1", "/repos/{owner}/{repo}/tarball/{ref}", "owner=o ref=capsule/issue-1 repo=r"},
		{"/repos/o/r/commits/heads/x/status", "/repos/{owner}/{repo}/commits/{ref}/status", "owner=o ref=heads/x repo=r"},
		// Both /compare/{basehead} and /compare/{base}...{head} match; the
		// more specific wins.
		{"/repos/o/r/compare/main...topic", "/repos/{owner}/{repo}/compare/{base}...{head}", "base=main head=topic owner=o repo=r"},
		{"/repos/o/r/compare/feature/x...main", "/repos/{owner}/{repo}/compare/{basehead}", "basehead=feature/x...main owner=o repo=r"},
		{"/repos/o/r/issues/comments/5", "/repos/{owner}/{repo}/issues/comments/{comment_id}", "comment_id=5 owner=o repo=r"},
		{"/repos/o/r/issues/5", "/repos/{owner}/{repo}/issues/{issue_number}", "issue_number=5 owner=o repo=r"},
		{"/repos/o/r/issues/1/labels/a%2Fb", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", "issue_number=1 name=a/b owner=o repo=r"},
		{"/repos/o/r/git/matching-refs/", "", ""},
		{"/repos/o/r/tarball", "", ""},
		{"/nope", "", ""},
	} {
		e, params := d.find(tc.path)
		var got, gotParams string
		if e != nil {
			got = e.template
			var kv []string
			for _, k := range sortedKeys(params) {
				kv = append(kv, k+"="+params[k])
			}
			gotParams = strings.Join(kv, " ")
		}
		if got != tc.template || gotParams != tc.params {
			t.Errorf("%s → %q %q, want %q %q", tc.path, got, gotParams, tc.template, tc.params)
		}
	}
}

// TestDescriptionCost measures what validation costs: indexing (once per
// process), parsing one path's operations (once per path), validating one
// request.
func TestDescriptionCost(t *testing.T) {
	d := fullDescription(t)
	// Paths no other test uses, so that they are parsed here.
	for _, p := range []string{"/repos/{owner}/{repo}/releases", "/repos/{owner}/{repo}/check-runs/{check_run_id}", "/orgs/{org}"} {
		start := time.Now()
		if _, err := d.byTemplate[p].route("GET"); err != nil {
			t.Fatal(err)
		}
		t.Logf("parsing %s took %v", p, time.Since(start))
	}
	s := newServer(t)
	s.AddRepo("octo", "calc", map[string]string{"a": "a"})
	body := `{"tree": [{"path": "a", "mode": "100644", "type": "blob", "content": "b"}]}`
	do(t, s, "POST", "repos/octo/calc/git/trees", staticToken, body) // parse the path
	const n = 50
	start := time.Now()
	for i := 0; i < n; i++ {
		if status, _ := do(t, s, "POST", "repos/octo/calc/git/trees", staticToken, body); status != http.StatusCreated {
			t.Fatalf("status %d", status)
		}
	}
	t.Logf("POST git/trees, validated both ways, takes %v a request", time.Since(start)/n)
}

// BenchmarkValidateRequest measures request validation alone.
func BenchmarkValidateRequest(b *testing.B) {
	d := fullDescription(b)
	e, params := d.find("/repos/o/r/git/trees")
	route, err := e.route("POST")
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"base_tree": "` + strings.Repeat("a", 40) + `", "tree": [{"path": "a/b.py", "mode": "100644", "type": "blob", "sha": null}]}`)
	req, _ := http.NewRequest("POST", "http://x/repos/o/r/git/trees", nil)
	req.Header.Set("Content-Type", "application/json")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, invalid := validateRequest(req, route, params, body); invalid != nil {
			b.Fatal(invalid.message)
		}
	}
}

// TestCompletedResponsesAreValid checks that completeResponse is what makes
// the fake's short responses valid, so that response validation is not
// vacuous.
func TestCompletedResponsesAreValid(t *testing.T) {
	d := fullDescription(t)
	e, params := d.find("/repos/o/r")
	route, err := e.route("GET")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "http://x/repos/o/r", nil)
	in, invalid := validateRequest(req, route, params, nil)
	if invalid != nil {
		t.Fatal(invalid.message)
	}
	short := `{"id": 1, "name": "r", "full_name": "o/r", "private": true, "default_branch": "main"}`
	if err := validateResponse(in, 200, http.Header{"Content-Type": {"application/json"}}, []byte(short)); err == nil {
		t.Fatal("a repository without its required fields passed validation")
	}
	v, err := normalize(map[string]any{"id": 1, "name": "r", "full_name": "o/r", "private": true, "default_branch": "main"})
	if err != nil {
		t.Fatal(err)
	}
	v = completeResponse(route.Operation, 200, v)
	data := []byte(fmt.Sprint(mustJSON(t, v)))
	if err := validateResponse(in, 200, http.Header{"Content-Type": {"application/json"}}, data); err != nil {
		t.Errorf("completed repository: %v", err)
	}
}

// TestEveryOperationParses parses all of the description's operations the
// way the fake does on first use (3.4 s, 25 s under -race: run it with
// FAKEGITHUB_ALL_OPERATIONS=1 after updating the description).
func TestEveryOperationParses(t *testing.T) {
	if os.Getenv("FAKEGITHUB_ALL_OPERATIONS") == "" {
		t.Skip("set FAKEGITHUB_ALL_OPERATIONS=1 to parse every operation")
	}
	d := fullDescription(t)
	n := 0
	for _, e := range d.paths {
		for m := range e.methods {
			n++
			if _, err := e.route(m); err != nil {
				t.Errorf("%s %s: %v", m, e.template, err)
			}
		}
	}
	t.Logf("%d operations", n)
}
