package response

import (
	"strings"
	"testing"
)

func TestParseHelperBlocks(t *testing.T) {
	tests := []struct {
		name, answer, entry string
		want                string
	}{
		{
			name:   "helper in an earlier block is added",
			entry:  "solve",
			answer: md("´´´python\ndef helper(x):\n    return x * 2\n´´´\n´´´python\ndef solve(x):\n    return helper(x) + 1\n´´´"),
			want:   "def helper(x):\n    return x * 2\n\n\ndef solve(x):\n    return helper(x) + 1\n",
		},
		{
			name:   "helpers of helpers, with imports and constants",
			entry:  "solve",
			answer: md("### Code\n´´´python\ndef solve(n):\n    return count(n) % MOD\n´´´\n´´´python\nimport math\n\nMOD = 10**9 + 7\n\n@functools.cache\ndef count(n):\n    return math.comb(n, 2) + base()\n´´´\n´´´python\ndef base():\n    return 1\n´´´"),
			want:   "def solve(n):\n    return count(n) % MOD\n\n\nimport math\n\nMOD = 10**9 + 7\n\n@functools.cache\ndef count(n):\n    return math.comb(n, 2) + base()\n\n\ndef base():\n    return 1\n",
		},
		{
			name:   "example block is not added",
			entry:  "f",
			answer: md("´´´python\ndef f(x):\n    return g(x)\n´´´\n´´´python\ndef g(x):\n    return x\nprint(f(3))\n´´´"),
			want:   "def f(x):\n    return g(x)\n",
		},
		{
			name:   "a second version of the same function is not added",
			entry:  "f",
			answer: md("´´´python\ndef f(x):\n    return helper(x)\n\ndef helper(x):\n    return x\n´´´\nOr shorter:\n´´´python\ndef helper(x): return x\n´´´"),
			want:   "def f(x):\n    return helper(x)\n\ndef helper(x):\n    return x\n",
		},
		{
			name:   "unused definitions are not added",
			entry:  "f",
			answer: md("´´´python\ndef f(x):\n    return x\n´´´\n´´´python\ndef unrelated():\n    pass\n´´´"),
			want:   "def f(x):\n    return x\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFunction(tt.answer, tt.entry)
			if err != nil {
				t.Fatal(err)
			}
			if got.Code != tt.want {
				t.Errorf("Code =\n%s\nwant\n%s", got.Code, tt.want)
			}
			added := strings.Contains(strings.Join(got.Warnings, "\n"), "added the block")
			if wantAdded := strings.Count(tt.want, "\n\n\n") > 0; added != wantAdded {
				t.Errorf("Warnings = %q; want a note on added blocks: %v", got.Warnings, wantAdded)
			}
		})
	}
}
