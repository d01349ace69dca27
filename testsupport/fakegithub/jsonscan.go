package fakegithub

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// member is one member of a JSON object whose value is left undecoded.
type member struct {
	key string
	val []byte
}

// objectMembers splits the JSON object b into its members without decoding
// the values. It exists because decoding GitHub's 13 MB description with
// encoding/json takes seconds (tens of seconds under -race), while the fake
// only ever needs a few of its operations.
func objectMembers(b []byte) ([]member, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	i++
	var out []member
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return nil, errors.New("unterminated JSON object")
		}
		if b[i] == '}' {
			return out, nil
		}
		if len(out) > 0 {
			if b[i] != ',' {
				return nil, fmt.Errorf("want ',' at offset %d", i)
			}
			i = skipSpace(b, i+1)
		}
		if i >= len(b) || b[i] != '"' {
			return nil, fmt.Errorf("want a key at offset %d", i)
		}
		end, err := skipString(b, i)
		if err != nil {
			return nil, err
		}
		key, err := decodeKey(b[i:end])
		if err != nil {
			return nil, err
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, fmt.Errorf("want ':' at offset %d", i)
		}
		i = skipSpace(b, i+1)
		start := i
		if i, err = skipValue(b, i); err != nil {
			return nil, err
		}
		out = append(out, member{key: key, val: b[start:i]})
	}
}

// decodeKey decodes a quoted JSON string, fast when it holds no escapes.
func decodeKey(q []byte) (string, error) {
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1]), nil
	}
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return "", fmt.Errorf("decode key %s: %w", q, err)
	}
	return s, nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset just past the JSON string starting at b[i].
func skipString(b []byte, i int) (int, error) {
	i++
	for {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return 0, errors.New("unterminated JSON string")
		}
		end := i + k
		backslashes := 0
		for j := end - 1; j >= i && b[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return end + 1, nil
		}
		i = end + 1
	}
}

// skipValue returns the offset just past the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errors.New("missing JSON value")
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errors.New("unterminated JSON container")
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\n', '\t', '\r':
				return i, nil
			}
			i++
		}
		return i, nil
	}
}
