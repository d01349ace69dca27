package edits

import "testing"

func TestCleanPath(t *testing.T) {
	tests := []struct {
		in, want, reason string
	}{
		{in: "calc.py", want: "calc.py"},
		{in: "./a/b.py", want: "a/b.py"},
		{in: "a//b/./c.py", want: "a/b/c.py"},
		{in: "src/", want: "src"},
		{in: "docs/café.md", want: "docs/café.md"},
		{in: "my notes.txt", want: "my notes.txt"},
		{in: ".github/workflows/ci.yml", want: ".github/workflows/ci.yml"},
		{in: ".gitignore", want: ".gitignore"},
		{in: "", reason: "the file path is empty"},
		{in: ".", reason: "path . names the repository root, not a file"},
		{in: "./", reason: "path ./ names the repository root, not a file"},
		{in: "../x", reason: "path ../x leaves the repository"},
		{in: "a/../../x", reason: "path a/../../x leaves the repository"},
		{in: "a/../b", reason: `path a/../b contains ".."; name the file by its path from the repository root`},
		{in: "/etc/passwd", reason: "absolute path /etc/passwd is not allowed"},
		{in: `C:\Windows\win.ini`, reason: `absolute path C:\Windows\win.ini is not allowed`},
		{in: "c:/x", reason: "absolute path c:/x is not allowed"},
		{in: `\\server\share\x`, reason: `absolute path \\server\share\x is not allowed`},
		{in: "~/.bashrc", reason: "absolute path ~/.bashrc is not allowed"},
		{in: `src\calc.py`, reason: `path src\calc.py contains a backslash; separate directories with "/"`},
		{in: ".git/config", reason: ".git/config is inside .git"},
		{in: "sub/.GIT/hooks/pre-commit", reason: "sub/.GIT/hooks/pre-commit is inside .git"},
		{in: ".git", reason: ".git is git's own data, not a file of the repository"},
		{in: "a\x00b", reason: `path "a\x00b" contains a control character`},
		{in: "a\nb", reason: `path "a\nb" contains a control character`},
		{in: "a\xffb", reason: `path "a\xffb" is not valid UTF-8`},
		{in: "src/calc.py ", reason: `path "src/calc.py " has a name that starts or ends with white space`},
		{in: " src/calc.py", reason: `path " src/calc.py" has a name that starts or ends with white space`},
	}
	for _, tt := range tests {
		got, err := cleanPath(tt.in)
		switch {
		case tt.reason == "" && (err != nil || got != tt.want):
			t.Errorf("cleanPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		case tt.reason != "" && (err == nil || err.Error() != tt.reason):
			t.Errorf("cleanPath(%q) = %q, %v; want the refusal %q", tt.in, got, err, tt.reason)
		}
	}
}
