package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// record is one JSON object of a dataset file, with its values undecoded.
type record map[string]json.RawMessage

// parseRecord decodes one JSON object. Upstream files written by Python may
// hold the non-standard literals Infinity and -Infinity; they are accepted.
func parseRecord(data []byte) (record, error) {
	var r record
	err := json.Unmarshal(data, &r)
	if err != nil && (bytes.Contains(data, []byte("Infinity")) || bytes.Contains(data, []byte("NaN"))) {
		fixed, ferr := replaceNonFinite(data)
		if ferr != nil {
			return nil, ferr
		}
		err = json.Unmarshal(fixed, &r)
	}
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if r == nil {
		return nil, errors.New("invalid record: want a JSON object, got null")
	}
	return r, nil
}

// has reports whether key is present and not null.
func (r record) has(key string) bool {
	v, ok := r[key]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// keys returns the record's field names, sorted.
func (r record) keys() []string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// fields reads typed values out of a record. The first failure sticks in err
// and later reads return zero values, so decoders check err once at the end.
type fields struct {
	r   record
	err error
}

func (f *fields) fail(key string, err error) {
	if f.err == nil {
		f.err = fmt.Errorf("field %q: %w", key, err)
	}
}

var errMissing = errors.New("missing")

// decode unmarshals a present field into v; a missing field is an error
// unless optional.
func (f *fields) decode(key string, v any, optional bool) bool {
	if f.err != nil {
		return false
	}
	if !f.r.has(key) {
		if !optional {
			f.fail(key, errMissing)
		}
		return false
	}
	if err := json.Unmarshal(f.r[key], v); err != nil {
		f.fail(key, err)
		return false
	}
	return true
}

// str returns a required, non-blank string.
func (f *fields) str(key string) string {
	var s string
	if f.decode(key, &s, false) && strings.TrimSpace(s) == "" {
		f.fail(key, errors.New("empty"))
	}
	return s
}

// optStr returns a string that may be missing or empty.
func (f *fields) optStr(key string) string {
	var s string
	f.decode(key, &s, true)
	return s
}

// strs returns a required, non-empty list of strings.
func (f *fields) strs(key string) []string {
	var s []string
	if f.decode(key, &s, false) && len(s) == 0 {
		f.fail(key, errors.New("empty list"))
	}
	return s
}

// optStrs returns a list of strings that may be missing or empty.
func (f *fields) optStrs(key string) []string {
	var s []string
	f.decode(key, &s, true)
	return s
}

// id returns a required identifier written as a string or an integer.
func (f *fields) id(key string) string {
	var raw json.RawMessage
	if !f.decode(key, &raw, false) {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if strings.TrimSpace(s) == "" {
			f.fail(key, errors.New("empty"))
		}
		return s
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if i, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return strconv.FormatInt(i, 10)
		}
	}
	f.fail(key, fmt.Errorf("want a string or an integer, got %s", raw))
	return ""
}

// num returns a required number.
func (f *fields) num(key string) float64 {
	var n float64
	f.decode(key, &n, false)
	return n
}

// raw returns a required value as JSON text.
func (f *fields) raw(key string) json.RawMessage {
	var v json.RawMessage
	f.decode(key, &v, false)
	return v
}

// ident returns a required Python identifier, such as an entry point.
func (f *fields) ident(key string) string {
	s := strings.TrimSpace(f.str(key))
	if f.err == nil && !isIdentifier(s) {
		f.fail(key, fmt.Errorf("%q is not a Python identifier", s))
	}
	return s
}

// isIdentifier reports whether s is an ASCII Python identifier.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		if !(c == '_' || isLetter(c) || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
