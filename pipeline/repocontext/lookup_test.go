package repocontext

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

// openLookup opens a lookup on dir that protects tests, as repo mode
// does by default.
func openLookup(t *testing.T, dir string) *Lookup {
	t.Helper()
	l, err := OpenLookup(dir, Options{Protected: protectTests})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// foundText renders a lookup's answer for a golden file.
func foundText(f Found) string {
	var b strings.Builder
	b.WriteString(f.Text)
	for _, n := range f.Notes {
		b.WriteString("note: " + n + "\n")
	}
	if f.Refused != "" {
		b.WriteString("refused: " + f.Refused + "\n")
	}
	return b.String()
}

// TestLookupGolden renders lookups on the fixture repositories and
// compares them with testdata/lookup/*.golden (-update rewrites them).
// Every answer keeps within its budget, and every span it shows is the
// file's lines exactly.
func TestLookupGolden(t *testing.T) {
	tests := []struct {
		name, repo string
		budget     int
		look       func(l *Lookup, budget int) Found
	}{
		{"file_whole", "testdata/repo", 2000, func(l *Lookup, b int) Found { return l.File("calc/ops.py", 0, 0, b) }},
		{"file_read_only", "testdata/repo", 2000, func(l *Lookup, b int) Found { return l.File("./tests/test_ops.py", 0, 0, b) }},
		{"file_lines", "testdata/large", 2000, func(l *Lookup, b int) Found { return l.File("inventory/store.py", 321, 359, b) }},
		{"file_lines_past_the_end", "testdata/large", 2000, func(l *Lookup, b int) Found { return l.File("inventory/money.py", 4, 900, b) }},
		{"file_lines_over_budget", "testdata/large", 120, func(l *Lookup, b int) Found { return l.File("inventory/store.py", 296, 359, b) }},
		{"file_outline", "testdata/large", 1500, func(l *Lookup, b int) Found { return l.File("inventory/store.py", 0, 0, b) }},
		{"file_head_and_tail", "", 120, func(l *Lookup, b int) Found { return l.File("CHANGES.txt", 0, 0, b) }},
		{"file_python_head_and_tail", "testdata/large", 100, func(l *Lookup, b int) Found { return l.File("inventory/store.py", 0, 0, b) }},
		{"definition_not_in_a_docstring", "testdata/large", 2000, func(l *Lookup, b int) Found { return l.Definition("restock", b) }},
		{"definition_nested", "testdata/large", 2000, func(l *Lookup, b int) Found { return l.Definition("Store.Audit.differs", b) }},
		{"definition_decorated", "testdata/large", 2000, func(l *Lookup, b int) Found { return l.Definition("Store.total", b) }},
		{"definition_module", "testdata/repo", 2000, func(l *Lookup, b int) Found { return l.Definition("calc.errors.CalcError", b) }},
		{"definition_wrong_scope", "testdata/repo", 2000, func(l *Lookup, b int) Found { return l.Definition("calc.fmt.CalcError", b) }},
		{"search", "testdata/large", 2000, func(l *Lookup, b int) Found { return l.Search("StockError(", b) }},
		{"search_over_budget", "testdata/large", 200, func(l *Lookup, b int) Found { return l.Search("StockError", b) }},
	}
	var changes strings.Builder
	for n := 1; n <= 100; n++ {
		fmt.Fprintf(&changes, "- change %d\n", n)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.repo == "" {
				tt.repo = writeRepo(t, map[string]string{"CHANGES.txt": changes.String()})
			}
			f := tt.look(openLookup(t, tt.repo), tt.budget)
			if got := EstimateTokens(f.Text); got > tt.budget {
				t.Errorf("%d tokens, over the budget of %d", got, tt.budget)
			}
			checkExact(t, tt.repo, f.Text)
			goldenfile.Check(t, filepath.Join("testdata", "lookup", tt.name+".golden"), foundText(f), *update)
		})
	}
}

var (
	sectionRE = regexp.MustCompile(`(?m)^### (\S+)`)
	spanRE    = regexp.MustCompile("(?m)^Lines (\\d+)(?:-(\\d+))? \\(.*\\):\n(`{3,})[a-z]*\n")
)

// checkExact checks that each span of each file section in text is the
// file's lines exactly.
func checkExact(t *testing.T, repo, text string) {
	t.Helper()
	heads := sectionRE.FindAllStringSubmatchIndex(text, -1)
	for k, h := range heads {
		end := len(text)
		if k+1 < len(heads) {
			end = heads[k+1][0]
		}
		name := text[h[2]:h[3]]
		data, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(name)))
		if err != nil {
			t.Fatalf("section of %s: %v", name, err)
		}
		lines := splitLines(string(data))
		section := text[h[0]:end]
		if _, rest, _ := strings.Cut(section, "\n"); strings.HasPrefix(rest, "```") {
			// A whole file: its fenced block is the file.
			fence, body, _ := strings.Cut(rest, "\n")
			fence = strings.TrimRight(fence, "abcdefghijklmnopqrstuvwxyz")
			if want := string(data) + fence; strings.TrimRight(body, "\n") != want {
				t.Errorf("%s shown whole as\n%q\nwant\n%q", name, body, want)
			}
			continue
		}
		for _, m := range spanRE.FindAllStringSubmatchIndex(section, -1) {
			from, _ := strconv.Atoi(section[m[2]:m[3]])
			to := from
			if m[4] >= 0 {
				to, _ = strconv.Atoi(section[m[4]:m[5]])
			}
			fence := section[m[6]:m[7]]
			body, _, ok := strings.Cut(section[m[1]:], fence+"\n")
			if want := strings.Join(lines[from-1:to], "\n") + "\n"; !ok || body != want {
				t.Errorf("%s lines %d-%d shown as\n%q\nwant\n%q", name, from, to, body, want)
			}
		}
	}
}

// TestLookupRefusals: what a lookup refuses to show, and why; nothing of
// a file it refuses reaches its answer.
func TestLookupRefusals(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.py"), []byte("LEAKED = 'hunter2'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := writeRepo(t, map[string]string{
		"calc/ops.py":             "def divide(a, b):\n    return a / b\n",
		"calc/sub/deep.py":        "X = 1\n",
		".env":                    "API_KEY=hunter2\n",
		"config/.env.production":  "API_KEY=hunter2\n",
		".env.example":            "API_KEY=\n",
		"certs/server.pem":        "-----BEGIN PRIVATE KEY----- hunter2\n",
		"deploy/id_ed25519":       "hunter2\n",
		".git/config":             "[remote] url = https://hunter2@example.com\n",
		".ssh/config":             "hunter2\n",
		"node_modules/x/index.js": "const hunter2 = 1\n",
		"logo.bin":                "PNG\x00hunter2",
		"escape.py":               linkPrefix + filepath.ToSlash(filepath.Join(outside, "secret.py")),
		"outdir":                  linkPrefix + filepath.ToSlash(outside),
		"env_link.txt":            linkPrefix + ".env",
	})
	l := openLookup(t, dir)
	tests := []struct {
		name string
		look func() Found
		want string // in Refused; "" when the lookup shows something
	}{
		{"up and out", func() Found { return l.File("../secret.py", 0, 0, 1000) }, "outside the repository"},
		{"up and out through a directory", func() Found { return l.File("calc/../../secret.py", 0, 0, 1000) }, "outside the repository"},
		{"absolute", func() Found { return l.File("/etc/passwd", 0, 0, 1000) }, "outside the repository"},
		{"home", func() Found { return l.File("~/.netrc", 0, 0, 1000) }, "outside the repository"},
		{"backslashes", func() Found { return l.File(`..\secret.py`, 0, 0, 1000) }, "outside the repository"},
		{"a symlink out", func() Found { return l.File("escape.py", 0, 0, 1000) }, "symlink outside the repository"},
		{"through a symlinked directory", func() Found { return l.File("outdir/secret.py", 0, 0, 1000) }, "a symbolic link to a directory"},
		{".env", func() Found { return l.File(".env", 0, 0, 1000) }, "secret"},
		{".env of a setting", func() Found { return l.File("config/.env.production", 0, 0, 1000) }, "secret"},
		{"a key", func() Found { return l.File("certs/server.pem", 1, 1, 1000) }, "secret"},
		{"an SSH key", func() Found { return l.File("deploy/id_ed25519", 0, 0, 1000) }, "secret"},
		{"a link to a secret", func() Found { return l.File("env_link.txt", 0, 0, 1000) }, "secret"},
		{"version control", func() Found { return l.File(".git/config", 0, 0, 1000) }, "never shows"},
		{"a hidden directory", func() Found { return l.File(".ssh/config", 0, 0, 1000) }, "never shows"},
		{"dependencies", func() Found { return l.File("node_modules/x/index.js", 0, 0, 1000) }, "never shows"},
		{"binary", func() Found { return l.File("logo.bin", 0, 0, 1000) }, "binary"},
		{"a directory", func() Found { return l.File("calc", 0, 0, 1000) }, "a directory; ask for one of its files: calc/ops.py; calc/sub/deep.py"},
		{"a base name", func() Found { return l.File("deep.py", 0, 0, 1000) }, "no such file; files of that name: calc/sub/deep.py"},
		{"nothing", func() Found { return l.File("nope.py", 0, 0, 1000) }, "no such file"},
		{"lines past the end", func() Found { return l.File("calc/ops.py", 5, 9, 1000) }, "the file has 2 lines"},
		{"no definition", func() Found { return l.Definition("multiply", 1000) }, "no definition of multiply"},
		{"no match", func() Found { return l.Search("hunter2", 1000) }, `no file the context may show holds "hunter2"`},
		{"over the budget", func() Found { return l.Search("divide", 5) }, "nothing found fits the 5 tokens"},
		{"a template of .env", func() Found { return l.File(".env.example", 0, 0, 1000) }, ""},
		{"a definition", func() Found { return l.Definition("divide", 1000) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.look()
			switch {
			case tt.want == "" && (f.Refused != "" || f.Text == ""):
				t.Errorf("refused: %q, want text", f.Refused)
			case tt.want != "" && (!strings.Contains(f.Refused, tt.want) || f.Text != ""):
				t.Errorf("refused %q with text %q, want refused for %q", f.Refused, f.Text, tt.want)
			}
			if shown := f.Text + strings.Join(f.Notes, "\n"); strings.Contains(shown, "hunter2") {
				t.Errorf("a secret reached the answer:\n%s", shown)
			}
		})
	}
}

// TestSecretFilesNotInContext: the context never shows a file named as
// credentials are, even one the issue names.
func TestSecretFilesNotInContext(t *testing.T) {
	dir := writeRepo(t, map[string]string{
		"app/settings.py": "import os\n\nKEY = os.environ['API_KEY']\n",
		"app/.env":        "API_KEY=hunter2\n",
		"certs/app.pem":   "hunter2\n",
	})
	ctx, err := Build(dir, Issue{Title: "KEY is empty", Body: "app/settings.py reads API_KEY, set in app/.env; certs/app.pem holds the key."}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ctx.Included {
		if isSecret(in.Path) {
			t.Errorf("%s is in the context", in.Path)
		}
	}
	if strings.Contains(ctx.Text, "hunter2") {
		t.Errorf("a secret is in the context:\n%s", ctx.Text)
	}
	for _, o := range ctx.Omitted {
		if isSecret(o.Path) && !strings.HasPrefix(o.Why, reasonSecret) {
			t.Errorf("%s left out for %q, want %q", o.Path, o.Why, reasonSecret)
		}
	}
}

func TestIsSecret(t *testing.T) {
	for p, want := range map[string]bool{
		".env": true, "app/.env": true, ".env.local": true, "config/.ENV.production": true, ".netrc": true, ".pypirc": true,
		"id_rsa": true, "keys/id_ed25519": true, "certs/server.pem": true, "tls/app.key": true, "store.p12": true,
		".env.example": false, ".env.sample": false, "settings.py": false, "environment.py": false, "keys.py": false,
		"id_rsa.pub": false, "docs/.envrc.md": false, "monkey.py": false,
	} {
		if got := isSecret(p); got != want {
			t.Errorf("isSecret(%q) = %v, want %v", p, got, want)
		}
	}
}
