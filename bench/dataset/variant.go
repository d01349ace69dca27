package dataset

import (
	"fmt"
	"strings"
)

// variant is one concrete file layout of a Format. The formats differ between
// upstream copies (field names, test styles), so each Format has one or more.
type variant struct {
	format Format
	// name describes the layout in messages.
	name string
	// match reports whether a record has the fields of this layout.
	match func(record) bool
	// plusName restricts auto-detection to file names that mention "plus":
	// HumanEval+ in its original format has exactly HumanEval's fields.
	plusName bool
	decode   func(record) (Problem, error)
	// broken maps task IDs to why their upstream eval tests are unsound.
	broken map[string]string
	// unsupported, when set, says why this layout cannot be benchmarked.
	unsupported string
}

// variants lists every layout, most specific first; auto-detection takes the
// first that matches.
var variants = []*variant{
	&bigCodeBenchVariant,
	&humanEvalPlusVariant,
	&mbppPlusVariant,
	&mbppPlusOriginVariant,
	&humanEvalETVariant,
	&mbppETChatDevVariant,
	&mbppETOriginalVariant,
	&mbppVariant,
	&humanEvalPlusOriginVariant,
	&humanEvalVariant,
}

// pickVariant chooses the layout for a file from its name and first record.
func pickVariant(format Format, name string, first record) (*variant, error) {
	plus := strings.Contains(strings.ToLower(name), "plus")
	for _, v := range variants {
		if format == Auto && v.plusName && !plus {
			continue
		}
		if (format == Auto || format == v.format) && v.match(first) {
			return v, nil
		}
	}
	if format == Auto {
		return nil, fmt.Errorf("cannot detect the dataset format (first record has fields %s); name one of: %s",
			strings.Join(first.keys(), ", "), formatList())
	}
	return nil, fmt.Errorf("file does not look like %s (first record has fields %s)",
		format, strings.Join(first.keys(), ", "))
}

func formatList() string {
	names := make([]string, 0, len(Formats())-1)
	for _, f := range Formats()[1:] {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// hasAll reports whether every key is present and not null.
func hasAll(r record, keys ...string) bool {
	for _, k := range keys {
		if !r.has(k) {
			return false
		}
	}
	return true
}
