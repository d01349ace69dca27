package response

import "testing"

func TestParseHeader(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
		sec  section
		rest string
	}{
		{"### Code", true, sectionCode, ""},
		{"# code", true, sectionCode, ""},
		{"###### CODE:", true, sectionCode, ""},
		{"## Code ##", true, sectionCode, ""},
		{"**Code:**", true, sectionCode, ""},
		{"**Code**:", true, sectionCode, ""},
		{"Code:", true, sectionCode, ""},
		{"3. Final code:", true, sectionCode, ""},
		{"### Python Code", true, sectionCode, ""},
		{"### Solution", true, sectionCode, ""},
		{"### Requirements", true, sectionRequirements, ""},
		{"**Requirements:** numpy, scipy", true, sectionRequirements, "numpy, scipy"},
		{"Requirements: None", true, sectionRequirements, "None"},
		{"### File: a/b.py", true, sectionFile, "a/b.py"},
		{"### File: C:/x.py", true, sectionFile, "C:/x.py"},
		{"### File", true, sectionFile, ""},
		{"### Reasoning", true, sectionReasoning, ""},
		{"Explanation:", true, sectionReasoning, ""},
		{"### Example usage", true, sectionOther, ""},
		{"**Test cases**", true, sectionOther, ""},
		{"#", true, sectionOther, ""},
		{"Code", false, 0, ""},
		{"Code: see below", false, 0, ""},
		{"Requirements are simple", false, 0, ""},
		{"Explanation: the loop stops early.", false, 0, ""},
		{"**Note:** the input may be empty.", false, 0, ""},
		{"#include <stdio.h>", false, 0, ""},
		{"    ### Code", false, 0, ""},
		{"The code:", false, 0, ""},
	}
	for _, tt := range tests {
		h, ok := parseHeader(tt.line)
		if ok != tt.ok || ok && (h.section != tt.sec || h.rest != tt.rest) {
			t.Errorf("parseHeader(%q) = section %d, rest %q, %v; want %d, %q, %v", tt.line, h.section, h.rest, ok, tt.sec, tt.rest, tt.ok)
		}
	}
}
