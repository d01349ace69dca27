package webhook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/testsupport/testdata"
)

// The payloads in testsupport/testdata/webhooks are GitHub's recorded
// examples, named <event>__<variant>.json (see SOURCE.txt there).

// fixtureNames lists the payload files.
func fixtureNames(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(testdata.Path(t, "webhooks"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// fixture returns a payload file's bytes.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(testdata.Path(t, "webhooks", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// eventOf returns the event a payload file is an example of.
func eventOf(name string) string {
	event, _, _ := strings.Cut(filepath.Base(name), "__")
	return event
}

// edit decodes a payload, lets fn change it and encodes it again.
func edit(t testing.TB, payload []byte, fn func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// obj returns the object at path in m, failing the test if it is not one.
func obj(t testing.TB, m map[string]any, path ...string) map[string]any {
	t.Helper()
	for _, k := range path {
		next, ok := m[k].(map[string]any)
		if !ok {
			t.Fatalf("payload has no object at %q", strings.Join(path, "."))
		}
		m = next
	}
	return m
}

// str returns the string at path in m ("" for null).
func str(t testing.TB, m map[string]any, path ...string) string {
	t.Helper()
	v := obj(t, m, path[:len(path)-1]...)[path[len(path)-1]]
	if v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		t.Fatalf("payload has no string at %q", strings.Join(path, "."))
	}
	return s
}

// num returns the number at path in m.
func num(t testing.TB, m map[string]any, path ...string) int64 {
	t.Helper()
	f, ok := obj(t, m, path[:len(path)-1]...)[path[len(path)-1]].(float64)
	if !ok {
		t.Fatalf("payload has no number at %q", strings.Join(path, "."))
	}
	return int64(f)
}

func decodeMap(t testing.TB, payload []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Payload edits.

func withInstallation(id int64) func(map[string]any) {
	return func(m map[string]any) { m["installation"] = map[string]any{"id": id} }
}

func withComment(body string) func(map[string]any) {
	return func(m map[string]any) { m["comment"].(map[string]any)["body"] = body }
}

func withSenderType(typ string) func(map[string]any) {
	return func(m map[string]any) { m["sender"].(map[string]any)["type"] = typ }
}

func withLabel(name string) func(map[string]any) {
	return func(m map[string]any) { m["label"].(map[string]any)["name"] = name }
}

func withPullRequest(m map[string]any) {
	m["issue"].(map[string]any)["pull_request"] = map[string]any{
		"url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1",
	}
}

func all(fns ...func(map[string]any)) func(map[string]any) {
	return func(m map[string]any) {
		for _, fn := range fns {
			fn(m)
		}
	}
}

// Edits of pull request and check payloads.

// withHeadRef sets the head branch of the payload's pull request, or of
// the first pull request of its workflow run or check suite.
func withHeadRef(ref string) func(map[string]any) {
	return func(m map[string]any) { pullRequestOf(m)["head"].(map[string]any)["ref"] = ref }
}

// withHeadRepo sets the id of the head repository of the payload's pull
// request (see withHeadRef).
func withHeadRepo(id int64) func(map[string]any) {
	return func(m map[string]any) {
		pullRequestOf(m)["head"].(map[string]any)["repo"].(map[string]any)["id"] = id
	}
}

// withBaseRepo sets the id of the base repository of the payload's pull
// request (see withHeadRef).
func withBaseRepo(id int64) func(map[string]any) {
	return func(m map[string]any) {
		pullRequestOf(m)["base"].(map[string]any)["repo"].(map[string]any)["id"] = id
	}
}

// pullRequestOf is the pull request a payload is about: its pull_request,
// or the first of its workflow run's or check suite's pull_requests.
func pullRequestOf(m map[string]any) map[string]any {
	if pr, ok := m["pull_request"].(map[string]any); ok {
		return pr
	}
	for _, k := range []string{"workflow_run", "check_suite"} {
		if c, ok := m[k].(map[string]any); ok {
			return c["pull_requests"].([]any)[0].(map[string]any)
		}
	}
	panic("payload has no pull request")
}

// withReview sets the submitted review's state and body.
func withReview(state, body string) func(map[string]any) {
	return func(m map[string]any) {
		r := m["review"].(map[string]any)
		r["state"], r["body"] = state, body
	}
}

// withConclusion sets the conclusion of the payload's workflow run or
// check suite.
func withConclusion(conclusion string) func(map[string]any) {
	return func(m map[string]any) {
		for _, k := range []string{"workflow_run", "check_suite"} {
			if c, ok := m[k].(map[string]any); ok {
				c["conclusion"] = conclusion
			}
		}
	}
}

// withApp sets the check suite's app.
func withApp(id int64, slug string) func(map[string]any) {
	return func(m map[string]any) {
		m["check_suite"].(map[string]any)["app"] = map[string]any{"id": id, "slug": slug, "name": slug}
	}
}

func withSenderLogin(login string) func(map[string]any) {
	return func(m map[string]any) { m["sender"].(map[string]any)["login"] = login }
}
