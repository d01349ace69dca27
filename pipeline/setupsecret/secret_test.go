package setupsecret

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const value = "tok-3f9a/7Q+zz=="

// TestFindsEveryForm finds the value plain, URL-encoded and inside
// base64 streams that start it at every offset, in both alphabets.
func TestFindsEveryForm(t *testing.T) {
	set := Set{{"NPM_TOKEN", value}}
	texts := map[string]string{
		"plain":       "//registry/:_authToken=" + value + "\n",
		"query":       "https://x/simple?t=" + url.QueryEscape(value),
		"path":        "https://user:" + url.PathEscape(value) + "@host/",
		"in the name": value,
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for k := range 5 {
			texts["base64 after "+strings.Repeat("x", k)] = "auth=" + enc.EncodeToString([]byte(strings.Repeat("x", k)+value+"yz"))
		}
	}
	texts["basic auth"] = "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("me:"+value))
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			if _, ok := set.Find([]byte(text)); !ok {
				t.Errorf("not found in %q", text)
			}
			hit, ok, err := set.Scan(strings.NewReader(text))
			if err != nil || !ok || hit.Name != "NPM_TOKEN" {
				t.Errorf("Scan = %+v, %v, %v", hit, ok, err)
			}
			redacted, hits := set.Redact(text)
			if _, ok := set.Find([]byte(redacted)); ok || len(hits) == 0 || !strings.Contains(redacted, "[set-up secret NPM_TOKEN]") {
				t.Errorf("Redact = %q, %v", redacted, hits)
			}
		})
	}
	if _, ok := set.Find([]byte("nothing here but tok-3f9a")); ok {
		t.Error("a prefix of the value matched")
	}
}

// TestScanAcrossChunks finds a value that straddles the scanner's
// chunks.
func TestScanAcrossChunks(t *testing.T) {
	set := Set{{"T", value}}
	for _, at := range []int{256<<10 - 3, 256<<10 - len(value), 512 << 10} {
		data := bytes.Repeat([]byte("a"), at+len(value)+100)
		copy(data[at:], value)
		if _, ok, err := set.Scan(bytes.NewReader(data)); !ok || err != nil {
			t.Errorf("value at %d not found (%v)", at, err)
		}
	}
}

// TestSource reads the file (a repository's line wins over everyone's)
// and the prefixed environment, never the bare name.
func TestSource(t *testing.T) {
	file := filepath.Join(t.TempDir(), "secrets")
	os.WriteFile(file, []byte("# comment\nA=everyone-value\nacme/app A=acme-only-value\n\nB=b-value-long\n"), 0o600)
	env := map[string]string{"CAPSULE_SETUP_SECRET_C": "c-from-env-value", "D": "bare-name-value", "CAPSULE_SETUP_SECRET_E": "short"}
	src, err := Load(file, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		repo    string
		want    string
		missing string
	}{
		{"acme/app", "A=acme-only-value B=b-value-long C=c-from-env-value", "D E"},
		{"other/app", "A=everyone-value B=b-value-long C=c-from-env-value", "D E"},
	}
	for _, tt := range tests {
		found, missing := src.For(tt.repo, []string{"A", "B", "C", "D", "E"})
		if got := strings.Join(Set(found).Env(), " "); got != tt.want || strings.Join(missing, " ") != tt.missing {
			t.Errorf("%s: %q, missing %v", tt.repo, got, missing)
		}
	}
}

// TestSourceErrors names the line and never shows a value.
func TestSourceErrors(t *testing.T) {
	for text, want := range map[string]string{
		"A=short\n":            "x:1: the value of A is shorter than 8 bytes",
		"\nno-equals-sign-x\n": "x:2: want NAME=VALUE",
	} {
		_, err := Parse("x", []byte(text), nil)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "short\n") || strings.Contains(err.Error(), "no-equals") {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// TestPrintedSecret: a secret printed by mistake, alone or in a struct,
// with fmt or slog, shows its name and no value.
func TestPrintedSecret(t *testing.T) {
	set := Set{{"NPM_TOKEN", value}}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("plan", "secrets", set, "one", set[0])
	for _, text := range []string{fmt.Sprintf("%v %+v %#v %s", set, struct{ S Set }{set}, set, set[0]), buf.String()} {
		if strings.Contains(text, value) || !strings.Contains(text, "NPM_TOKEN=[redacted]") {
			t.Errorf("printed: %s", text)
		}
	}
}
