package repoconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// JSONC is JSON with comments (// and /* */) and trailing commas, the
// syntax of devcontainer.json. It is read by blanking the comments and the
// trailing commas byte for byte, newlines kept, so that every offset in
// the strict JSON left is the same offset in the file, then by
// encoding/json.

// jsoncEntry is one member of a JSON object: its key, the line the key is
// on, its value undecoded and the value's offset in the file.
type jsoncEntry struct {
	key    string
	line   int
	value  json.RawMessage
	offset int64
}

// jsoncDoc is a JSONC file made strict, with what maps offsets to lines.
type jsoncDoc struct {
	file   string
	strict []byte // the file with comments and trailing commas blanked
}

// parseJSONC makes data strict JSON, or reports the first comment that
// does not end.
func parseJSONC(file string, data []byte) (*jsoncDoc, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	strict, err := blankComments(data)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.File = file
		}
		return nil, err
	}
	blankTrailingCommas(strict)
	return &jsoncDoc{file: file, strict: strict}, nil
}

// line returns the 1-based line of offset.
func (d *jsoncDoc) line(offset int64) int {
	offset = min(max(offset, 0), int64(len(d.strict)))
	return bytes.Count(d.strict[:offset], []byte("\n")) + 1
}

// errorf returns a ParseError at line.
func (d *jsoncDoc) errorf(line int, format string, args ...any) *ParseError {
	return &ParseError{File: d.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// syntax turns an error of encoding/json at or after base into a
// ParseError with its line.
func (d *jsoncDoc) syntax(base int64, err error) *ParseError {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return d.errorf(d.line(base+se.Offset), "not valid JSON: %s", se.Error())
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return d.errorf(d.line(int64(len(d.strict))), "not valid JSON: the file ends too early")
	}
	return d.errorf(d.line(base), "not valid JSON: %v", err)
}

// top returns the members of the file's top-level object, in the order
// written; a duplicate key is an error, as is anything after the object.
func (d *jsoncDoc) top() ([]jsoncEntry, error) {
	return d.object(0, d.strict, "the file")
}

// member returns the members of e's value, an object.
func (d *jsoncDoc) members(e jsoncEntry) ([]jsoncEntry, error) {
	return d.object(e.offset, e.value, e.key)
}

// object returns the members of the JSON object raw, which starts at
// offset base of the file; what names the value in messages.
func (d *jsoncDoc) object(base int64, raw []byte, what string) ([]jsoncEntry, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, d.syntax(base, err)
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return nil, d.errorf(d.line(base+dec.InputOffset()), "%s must be a JSON object ({...}), got %s", what, describeJSON(tok))
	}
	var entries []jsoncEntry
	seen := make(map[string]int)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, d.syntax(base, err)
		}
		key, _ := tok.(string) // encoding/json allows only strings here
		line := d.line(base + dec.InputOffset())
		if first, dup := seen[key]; dup {
			in := ""
			if what != "the file" {
				in = " in " + what
			}
			return nil, d.errorf(line, "duplicate key %q%s (first on line %d)", shorten(key, 40), in, first)
		}
		seen[key] = line
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, d.syntax(base, err)
		}
		entries = append(entries, jsoncEntry{key, line, v, base + dec.InputOffset() - int64(len(v))})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, d.syntax(base, err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, d.syntax(base, err)
		}
		return nil, d.errorf(d.line(base+dec.InputOffset()), "more JSON after the end of %s's object: %s", what, describeJSON(tok))
	}
	return entries, nil
}

// describeJSON names a token of encoding/json for a message.
func describeJSON(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '[':
			return "a list"
		case '{':
			return "an object"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		return fmt.Sprintf("the string %q", shorten(v, 40))
	case json.Number:
		return "the number " + v.String()
	case bool:
		return fmt.Sprintf("%t", v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

// blankComments returns a copy of data with every comment replaced by
// spaces, newlines kept. Strings are copied as they are; a block comment
// that does not end is an error.
func blankComments(data []byte) ([]byte, error) {
	out := bytes.Clone(data)
	line := 1
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '\n':
			line++
		case c == '"':
			for i++; i < len(out) && out[i] != '"'; i++ {
				switch out[i] {
				case '\\':
					i++
				case '\n':
					line++ // not valid JSON; encoding/json says so
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
			i-- // the newline is counted by the loop
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			start := line
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				return nil, &ParseError{Line: start, Msg: "a comment opened with /* is never closed with */"}
			}
			for j := i; j < i+2+end+2; j++ {
				if out[j] == '\n' {
					line++
				} else {
					out[j] = ' '
				}
			}
			i += 2 + end + 1
		}
	}
	return out, nil
}

// blankTrailingCommas replaces with a space each comma of data (comments
// already blanked) that only white space separates from a closing ] or }.
func blankTrailingCommas(data []byte) {
	comma := -1 // the last comma outside strings, while only white space follows it
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			comma = -1
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case ',':
			comma = i
		case ']', '}':
			if comma >= 0 {
				data[comma] = ' '
			}
			comma = -1
		case ' ', '\t', '\r', '\n':
		default:
			comma = -1
		}
	}
}
