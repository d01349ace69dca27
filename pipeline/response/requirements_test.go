package response

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseRequirements(t *testing.T) {
	tests := []struct {
		name, section string
		want          []string
		ignored       []string
	}{
		{"comma separated", "numpy, requests", []string{"numpy", "requests"}, nil},
		{"None", "None", nil, nil},
		{"lower case none", "none", nil, nil},
		{"N/A", "N/A", nil, nil},
		{"empty", "", nil, nil},
		{"None with a note", "None (only the standard library is used).", nil, nil},
		{"no external dependencies", "No external dependencies.", nil, nil},
		{"bullets", "- numpy\n- pandas>=2.0\n* scikit-learn\n1. requests[socks]", []string{"numpy", "pandas>=2.0", "scikit-learn", "requests[socks]"}, nil},
		{"one per line", "numpy\nscipy", []string{"numpy", "scipy"}, nil},
		{"quoted and backticked", "`numpy`, \"scipy\"", []string{"numpy", "scipy"}, nil},
		{"pip install", "pip install numpy pandas", []string{"numpy", "pandas"}, nil},
		{"notes after names", "- numpy (for arrays)\n- requests - HTTP client", []string{"numpy", "requests"}, nil},
		{"version with spaces", "numpy >= 1.20", []string{"numpy >= 1.20"}, nil},
		{"duplicates", "numpy, NumPy, numpy", []string{"numpy"}, nil},
		{"first paragraph only", "\nnumpy\n\nNote that numpy must be installed first.", []string{"numpy"}, nil},
		{"standard library modules", "math, collections, numpy", []string{"numpy"}, []string{"math", "collections"}},
		{"prose", "Only built-in functions are needed", nil, []string{"Only built-in functions are needed"}},
		{"trailing comma", "numpy,", []string{"numpy"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ignored := parseRequirements(strings.Split(tt.section, "\n"))
			if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(ignored, tt.ignored) {
				t.Errorf("parseRequirements(%q) = %q, ignored %q; want %q, ignored %q", tt.section, got, ignored, tt.want, tt.ignored)
			}
		})
	}
}

func TestParseRequirementsInAnswer(t *testing.T) {
	tests := []struct {
		name, answer string
		want         []string
	}{
		{"inline after a bold header", md("**Requirements:** numpy, sympy\n\n**Code:**\n´´´python\nimport numpy\n´´´"), []string{"numpy", "sympy"}},
		{"inline after a heading", md("### Requirements: None\n### Code\n´´´python\nx = 1\n´´´"), nil},
		{"plain header", md("Requirements: pyyaml\nCode:\n´´´python\nimport yaml\n´´´"), []string{"pyyaml"}},
		{"fenced list", md("### Requirements\n´´´\nrequests\n´´´\n### Code\n´´´python\nimport requests\n´´´"), []string{"requests"}},
		{"fenced pip command", md("### Requirements\n´´´bash\npip install httpx\n´´´\n### Code\n´´´python\nimport httpx\n´´´"), []string{"httpx"}},
		{"dependencies header", md("## Dependencies\n- attrs\n## Code\n´´´python\nimport attrs\n´´´"), []string{"attrs"}},
		{"no section", md("´´´python\nx = 1\n´´´"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.answer)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Requirements, tt.want) {
				t.Errorf("Requirements = %q, want %q", got.Requirements, tt.want)
			}
		})
	}
}
