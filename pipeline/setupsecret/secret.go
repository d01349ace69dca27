// Package setupsecret holds the values of a repository's set-up secrets
// (`setup_secrets:` in its configuration), which the operator provides
// and only the set-up sees: where they come from (a file and the
// environment), the forms in which a value can leak (plain, URL-encoded,
// base64), their redaction from text and the scan of what the set-up
// leaves for them.
package setupsecret

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"
)

// MinLength is the fewest bytes a secret's value may have: a shorter one
// would match everywhere, and could not be kept out of the records.
const MinLength = 8

// EnvPrefix is the prefix of the environment variables from which the
// operator's process gives every repository a secret: NPM_TOKEN is read
// from CAPSULE_SETUP_SECRET_NPM_TOKEN, never from NPM_TOKEN itself, so
// that a repository cannot name the operator's own variables.
const EnvPrefix = "CAPSULE_SETUP_SECRET_"

// Secret is one set-up secret: the variable's name and its value.
type Secret struct {
	Name, Value string
}

// String, GoString and LogValue show the name only, so that a secret
// printed by mistake (a plan logged with %+v) shows no value.
func (s Secret) String() string { return s.Name + "=[redacted]" }

// GoString is String, for %#v.
func (s Secret) GoString() string { return s.String() }

// MarshalJSON is String, for encoding/json (and slog's JSON handler).
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// LogValue is String, for log/slog.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// Source is where the operator's secrets come from: a file's lines,
// `NAME=VALUE` for every repository or `owner/name NAME=VALUE` for one
// (which wins), then the process environment (EnvPrefix). The zero
// Source has none.
type Source struct {
	all    map[string]string
	byRepo map[string]map[string]string
	env    func(string) (string, bool)
}

// Load reads the secrets file at path ("" for none) and takes the rest
// from getenv (nil for none).
func Load(path string, getenv func(string) (string, bool)) (*Source, error) {
	if path == "" {
		return Parse("", nil, getenv)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("set-up secrets: %w", err)
	}
	return Parse(path, data, getenv)
}

// Parse reads secrets in the file's form from data, which where names
// in errors (that never show a value), and takes the rest from getenv.
func Parse(where string, data []byte, getenv func(string) (string, bool)) (*Source, error) {
	s := &Source{all: map[string]string{}, byRepo: map[string]map[string]string{}, env: getenv}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		repo, pair, scoped := strings.Cut(line, " ")
		if !scoped || strings.Contains(repo, "=") {
			repo, pair = "", line
		}
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("set-up secrets: %s:%d: want NAME=VALUE or owner/name NAME=VALUE (the value is not shown)", where, n)
		}
		if len(value) < MinLength {
			return nil, fmt.Errorf("set-up secrets: %s:%d: the value of %s is shorter than %d bytes, too short to keep out of the records", where, n, name, MinLength)
		}
		m := s.all
		if repo != "" {
			if s.byRepo[repo] == nil {
				s.byRepo[repo] = map[string]string{}
			}
			m = s.byRepo[repo]
		}
		m[name] = value
	}
	return s, sc.Err()
}

// For returns the values of names for the repository (owner/name), in
// names' order, and the names that have none (or one too short).
func (s *Source) For(repository string, names []string) (found []Secret, missing []string) {
	for _, name := range names {
		v, ok := "", false
		if s != nil {
			if v, ok = s.byRepo[repository][name]; !ok {
				v, ok = s.all[name]
			}
			if !ok && s.env != nil {
				v, ok = s.env(EnvPrefix + name)
			}
		}
		if !ok || len(v) < MinLength {
			missing = append(missing, name)
			continue
		}
		found = append(found, Secret{name, v})
	}
	return found, missing
}

// Form is one way a value can appear: how it was encoded and the bytes.
type Form struct {
	How   string // "plain", "URL-encoded", "base64"
	Bytes []byte
}

// Forms lists the forms of value to look for: the value, its URL
// encodings, and the part of its base64 encodings (standard and URL
// alphabets) that does not depend on the bytes around it, at each of the
// three offsets it may start at in an encoded stream.
func Forms(value string) []Form {
	forms := []Form{{"plain", []byte(value)}}
	add := func(how, s string) {
		if len(s) >= MinLength && !slices.ContainsFunc(forms, func(f Form) bool { return string(f.Bytes) == s }) {
			forms = append(forms, Form{how, []byte(s)})
		}
	}
	add("URL-encoded", url.QueryEscape(value))
	add("URL-encoded", url.PathEscape(value))
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for k := range 3 {
			full := enc.EncodeToString(append(make([]byte, k), value...))
			first := (8*k + 5) / 6
			last := 8 * (k + len(value)) / 6
			add("base64", full[first:last])
		}
	}
	return forms
}

// Set is the secrets of one set-up.
type Set []Secret

// Env is the set as KEY=VALUE pairs for the set-up's environment.
func (set Set) Env() []string {
	env := make([]string, len(set))
	for i, s := range set {
		env[i] = s.Name + "=" + s.Value
	}
	return env
}

// Names lists the set's names.
func (set Set) Names() []string {
	names := make([]string, len(set))
	for i, s := range set {
		names[i] = s.Name
	}
	return names
}

// Hit is a secret's value found somewhere.
type Hit struct {
	Name, How string
}

// Find reports the first form of any secret of the set in data.
func (set Set) Find(data []byte) (Hit, bool) {
	for _, s := range set {
		for _, f := range Forms(s.Value) {
			if bytes.Contains(data, f.Bytes) {
				return Hit{s.Name, f.How}, true
			}
		}
	}
	return Hit{}, false
}

// Redact replaces every form of every secret in text with a mark that
// names it, and reports what it replaced.
func (set Set) Redact(text string) (string, []Hit) {
	var hits []Hit
	for _, s := range set {
		for _, f := range Forms(s.Value) {
			if strings.Contains(text, string(f.Bytes)) {
				text = strings.ReplaceAll(text, string(f.Bytes), "[set-up secret "+s.Name+"]")
				hits = append(hits, Hit{s.Name, f.How})
			}
		}
	}
	return text, hits
}

// Scan reports the first form of any secret of the set in what r reads,
// reading it in chunks, so a form across two chunks is found too.
func (set Set) Scan(r io.Reader) (Hit, bool, error) {
	overlap := 0
	for _, s := range set {
		for _, f := range Forms(s.Value) {
			overlap = max(overlap, len(f.Bytes)-1)
		}
	}
	buf := make([]byte, 0, 256<<10+overlap)
	for {
		n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if hit, ok := set.Find(buf); ok {
			return hit, true, nil
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return Hit{}, false, nil
		}
		if err != nil {
			return Hit{}, false, err
		}
		keep := min(overlap, len(buf))
		buf = append(buf[:0], buf[len(buf)-keep:]...)
	}
}
