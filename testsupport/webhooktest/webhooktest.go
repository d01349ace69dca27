// Package webhooktest builds signed webhook deliveries for tests from
// GitHub's recorded payload examples in testsupport/testdata/webhooks.
package webhooktest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/capsulehq/capsule/testsupport/testdata"
)

// Payload reads the example payload file name (e.g.
// "issues__labeled.payload.json") and lets edit change it before it is
// encoded again.
func Payload(t testing.TB, name string, edit func(m map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile(testdata.Path(t, "webhooks", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if edit != nil {
		edit(m)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Object returns the object at path in m, creating it when missing.
func Object(m map[string]any, path ...string) map[string]any {
	for _, k := range path {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	return m
}

// Retarget points an issues or issue_comment payload at owner/repo issue
// number, from sender, through installation id (0 leaves none).
func Retarget(m map[string]any, owner, repo string, number int, sender string, installation int64) {
	r := Object(m, "repository")
	r["name"], r["full_name"] = repo, owner+"/"+repo
	Object(m, "repository", "owner")["login"] = owner
	Object(m, "issue")["number"] = number
	s := Object(m, "sender")
	s["login"], s["type"] = sender, "User"
	if installation != 0 {
		Object(m, "installation")["id"] = installation
	}
}

// Signature returns the X-Hub-Signature-256 value of body.
func Signature(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Request builds a signed delivery to url; an empty secret leaves it
// unsigned.
func Request(t testing.TB, url, event, delivery string, body, secret []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	if len(secret) > 0 {
		req.Header.Set("X-Hub-Signature-256", Signature(secret, body))
	}
	return req
}
