package dataset

import (
	"fmt"
	"strings"
)

// Format names a benchmark file family. Auto detects it from the file.
type Format string

// The supported formats.
const (
	Auto        Format = "auto"
	HumanEval   Format = "humaneval"
	HumanEvalET Format = "humaneval-et"
	MBPP        Format = "mbpp"
	MBPPET      Format = "mbpp-et"
	EvalPlus    Format = "evalplus"
	// BigCodeBench is bigcode-project's BigCodeBench (unittest tests).
	BigCodeBench Format = "bigcodebench"
)

// Formats lists every valid Format, Auto first.
func Formats() []Format {
	return []Format{Auto, HumanEval, HumanEvalET, MBPP, MBPPET, EvalPlus, BigCodeBench}
}

// ParseFormat parses a format name case-insensitively; the empty string is Auto.
func ParseFormat(s string) (Format, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if name == "" {
		return Auto, nil
	}
	for _, f := range Formats() {
		if string(f) == name {
			return f, nil
		}
	}
	valid := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		valid = append(valid, string(f))
	}
	return "", fmt.Errorf("unknown dataset format %q (valid: %s)", s, strings.Join(valid, ", "))
}

// String returns the format's name.
func (f Format) String() string { return string(f) }
