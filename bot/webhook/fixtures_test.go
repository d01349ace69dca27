package webhook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/internal/testdata"
)

// The payloads in internal/testdata/webhooks are GitHub's recorded
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
