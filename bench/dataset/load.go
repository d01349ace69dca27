package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// ErrEvalUnsupported is wrapped by Load's error for files whose layout cannot
// be benchmarked as it stands; Load still returns the problems it read.
var ErrEvalUnsupported = errors.New("evaluation not supported for this file")

// rawRecord is the undecoded text of one record and where it was found.
type rawRecord struct {
	line int
	data []byte
}

// Load reads a benchmark file: JSON Lines or a JSON array (sanitized MBPP),
// either of them possibly gzip-compressed. With format Auto the layout is detected from
// the file name and the first valid record.
//
// Records that are not valid JSON or lack required fields are skipped and
// reported in Set.Errors. An unreadable file, an unknown or mismatched format,
// or a file without a single valid record is an error. For a layout that
// cannot be benchmarked the error wraps ErrEvalUnsupported and the Set is
// still returned.
func Load(path string, format Format) (Set, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Set{}, fmt.Errorf("load %s: %w", path, err)
	}
	return parse(path, data, format)
}

// Read is Load for a file's content read from r; name is the file's name,
// which format detection and messages use.
func Read(name string, r io.Reader, format Format) (Set, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Set{}, fmt.Errorf("load %s: %w", name, err)
	}
	return parse(name, data, format)
}

// parse decodes the content of the file at path.
func parse(path string, data []byte, format Format) (Set, error) {
	format, err := ParseFormat(string(format))
	if err != nil {
		return Set{}, err
	}
	if data, err = gunzip(data); err != nil {
		return Set{}, fmt.Errorf("load %s: %w", path, err)
	}
	raws, errs := splitRecords(data)

	records := make([]record, len(raws))
	var v *variant
	for i, raw := range raws {
		r, err := parseRecord(raw.data)
		if err != nil {
			errs = append(errs, LineError{Line: raw.line, Err: err})
			continue
		}
		records[i] = r
		if v == nil {
			if v, err = pickVariant(format, filepath.Base(path), r); err != nil {
				return Set{}, fmt.Errorf("load %s: %w", path, err)
			}
		}
	}
	if v == nil {
		return Set{}, fmt.Errorf("load %s: no valid records%s", path, firstError(errs))
	}

	set := decodeAll(v, raws, records, errs)
	if len(set.Problems) == 0 {
		return Set{}, fmt.Errorf("load %s: no valid %s records%s", path, v.name, firstError(set.Errors))
	}
	if v.unsupported != "" {
		return set, fmt.Errorf("load %s (%s): %w: %s", path, v.name, ErrEvalUnsupported, v.unsupported)
	}
	return set, nil
}

// decodeAll turns the parsed records into problems. records[i] is nil where
// raws[i] did not parse; errs already reports those.
func decodeAll(v *variant, raws []rawRecord, records []record, errs []LineError) Set {
	var set Set
	seen := make(map[string]int)
	for i, r := range records {
		if r == nil {
			continue
		}
		line := raws[i].line
		p, err := v.decode(r)
		if err != nil {
			errs = append(errs, LineError{Line: line, Err: fmt.Errorf("%s record: %w", v.name, err)})
			continue
		}
		if first, dup := seen[p.TaskID]; dup {
			errs = append(errs, LineError{Line: line, Err: fmt.Errorf("duplicate task id %q (first on line %d)", p.TaskID, first)})
			continue
		}
		seen[p.TaskID] = line
		p.Broken = v.broken[p.TaskID]
		set.Problems = append(set.Problems, p)
	}
	slices.SortStableFunc(errs, func(a, b LineError) int { return a.Line - b.Line })
	set.Errors = errs
	return set
}

func firstError(errs []LineError) string {
	if len(errs) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d bad; first: %v)", len(errs), errs[0])
}

// gunzip returns data decompressed when it is gzip data, else unchanged.
func gunzip(data []byte) ([]byte, error) {
	if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("gunzip: %w", err)
	}
	defer zr.Close()
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("gunzip: %w", err)
	}
	return out, nil
}

// splitRecords cuts a file into records: the elements of a JSON array, or the
// non-blank lines of a JSON Lines file.
func splitRecords(data []byte) ([]rawRecord, []LineError) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		return splitArray(trimmed)
	}
	var raws []rawRecord
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			raws = append(raws, rawRecord{line: i + 1, data: line})
		}
	}
	return raws, nil
}

// splitArray returns the elements of a JSON array, numbered from 1. A syntax
// error ends the array: nothing after it can be located reliably.
func splitArray(data []byte) ([]rawRecord, []LineError) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, []LineError{{Line: 1, Err: fmt.Errorf("invalid JSON array: %w", err)}}
	}
	var raws []rawRecord
	for n := 1; dec.More(); n++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return raws, []LineError{{Line: n, Err: fmt.Errorf("invalid JSON (rest of the array skipped): %w", err)}}
		}
		raws = append(raws, rawRecord{line: n, data: raw})
	}
	if _, err := dec.Token(); err != nil {
		return raws, []LineError{{Line: len(raws) + 1, Err: fmt.Errorf("invalid JSON array end: %w", err)}}
	}
	return raws, nil
}
