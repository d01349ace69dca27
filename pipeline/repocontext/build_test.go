package repocontext

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// baseRepo is a small Python project the ranking cases add files to.
var baseRepo = map[string]string{
	"calc/__init__.py":  "from .ops import divide\n",
	"calc/ops.py":       "from calc.errors import CalcError\nfrom .util import check\n\n\ndef divide(a, b):\n    return a / b\n",
	"calc/errors.py":    "class CalcError(Exception):\n    pass\n",
	"calc/util.py":      "def check(x):\n    return x\n",
	"calc/cli.py":       "from . import ops\n\n\ndef main():\n    ops.divide(1, 2)\n",
	"calc/sub/deep.py":  "from ..ops import divide\n",
	"calc/fmt.py":       "def fmt_number(x):\n    return str(x)\n",
	"tests/test_ops.py": "from calc.ops import divide\n\n\ndef test_divide():\n    assert divide(6, 3) == 2\n",
	"tests/test_fmt.py": "from calc import fmt\n\n\ndef test_fmt():\n    assert fmt.fmt_number(1) == '1'\n",
	"README.md":         "# calc\n",
	"setup.py":          "from setuptools import setup\n\nsetup(name='calc')\n",
}

// projectTail is what every case ends with: the README and setup files.
var projectTail = []string{"README.md (project README)", "setup.py (project setup)"}

func TestRanking(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.py"), []byte("def leaked():\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bigBody := "def big_function():\n" + strings.Repeat("    x = 1\n", 2000)
	tests := []struct {
		name         string
		extra        map[string]string
		title, body  string
		opts         Options
		wantIncluded []string
		// wantOmitted are "path: why" prefixes.
		wantOmitted []string
	}{
		{
			name:         "file named by path",
			title:        "Bug in calc/fmt.py",
			wantIncluded: append([]string{"calc/fmt.py (named in the issue)", "tests/test_fmt.py (test that imports calc/fmt.py)"}, projectTail...),
		},
		{
			name:         "file named by base name",
			title:        "fmt.py prints too many digits",
			wantIncluded: append([]string{"calc/fmt.py (named in the issue)", "tests/test_fmt.py (test that imports calc/fmt.py)"}, projectTail...),
		},
		{
			name:         "file named by module path",
			title:        "calc.fmt prints too many digits",
			wantIncluded: append([]string{"calc/fmt.py (module calc.fmt named in the issue)", "tests/test_fmt.py (test that imports calc/fmt.py)"}, projectTail...),
		},
		{
			// A top-level package's __init__.py is not a seed: its
			// imports are not followed.
			name:  "package named in backticks",
			title: "`calc` has no version",
			wantIncluded: append([]string{
				"calc/__init__.py (module calc named in the issue)",
			}, projectTail...),
		},
		{
			name:  "file named by an absolute path in a traceback",
			title: "Crash",
			body:  "Traceback (most recent call last):\n  File \"/home/me/src/calc/calc/fmt.py\", line 2, in fmt_number\n",
			wantIncluded: append([]string{
				"calc/fmt.py (named in the issue)",
				"tests/test_fmt.py (test that imports calc/fmt.py and mentions fmt_number)",
			}, projectTail...),
		},
		{
			name:  "symbol in backticks",
			title: "`fmt_number` drops decimals",
			wantIncluded: append([]string{
				"calc/fmt.py (defines fmt_number)",
				"tests/test_fmt.py (test that imports calc/fmt.py and mentions fmt_number)",
			}, projectTail...),
		},
		{
			name:  "import neighbours, absolute and relative",
			title: "`divide` by zero",
			wantIncluded: append([]string{
				"calc/ops.py (defines divide)",
				"calc/__init__.py (imports calc/ops.py)",
				"calc/sub/deep.py (imports calc/ops.py)",
				"calc/cli.py (imports calc/ops.py)",
				"calc/errors.py (imported by calc/ops.py)",
				"calc/util.py (imported by calc/ops.py)",
				"tests/test_ops.py (test that imports calc/ops.py and mentions divide)",
			}, projectTail...),
		},
		{
			name:  "relative import two levels up",
			title: "calc/sub/deep.py fails to import",
			wantIncluded: append([]string{
				"calc/sub/deep.py (named in the issue)",
				"calc/ops.py (imported by calc/sub/deep.py)",
			}, projectTail...),
		},
		{
			name:  "protected tests are read-only",
			title: "`fmt_number` drops decimals",
			opts:  Options{Protected: func(p string) bool { return strings.HasPrefix(p, "tests/") }},
			wantIncluded: append([]string{
				"calc/fmt.py (defines fmt_number)",
				"tests/test_fmt.py (read-only) (test that imports calc/fmt.py and mentions fmt_number)",
			}, projectTail...),
		},
		{
			name:  "test that only mentions a symbol",
			extra: map[string]string{"tests/test_check.py": "def test_check(check_fixture):\n    assert check_fixture\n"},
			title: "`check_fixture` is flaky",
			wantIncluded: append([]string{
				"tests/test_check.py (test that mentions check_fixture)",
			}, projectTail...),
		},
		{
			name:  "budget exhaustion records the omission",
			extra: map[string]string{"calc/big.py": bigBody},
			title: "`big_function` and `fmt_number` are slow",
			opts:  Options{Budget: 1000, WholeFiles: true},
			wantIncluded: append([]string{
				"calc/fmt.py (defines fmt_number)",
				"tests/test_fmt.py (test that imports calc/fmt.py and mentions fmt_number)",
			}, projectTail...),
			wantOmitted: []string{fmt.Sprintf("calc/big.py: over budget: needs %d tokens, ",
				EstimateTokens(filesHeading)+EstimateTokens(fileSection("calc/big.py", "defines big_function", false, bigBody)))},
		},
		{
			name: "binary and oversized files are skipped",
			extra: map[string]string{
				"assets/logo.png": "\x89PNG\x00\x00",
				"lib/blob.py":     "def blob_fn():\x00\n",
				"data/huge.py":    "def huge_fn():\n" + strings.Repeat("#", maxFileSize),
			},
			title:        "`blob_fn` and `huge_fn` break; see data/huge.py and assets/logo.png",
			wantIncluded: projectTail,
			wantOmitted: []string{
				"data/huge.py: too large: 1.0 MiB, over the 1 MiB limit (named in the issue)",
				"assets/logo.png: binary (named in the issue)",
			},
		},
		{
			name: "symlinks are followed only inside the repository",
			extra: map[string]string{
				"calc/alias.py":  linkPrefix + "fmt.py",
				"calc/escape.py": linkPrefix + filepath.ToSlash(filepath.Join(outside, "secret.py")),
				"calc/outdir":    linkPrefix + filepath.ToSlash(outside),
				"calc/dangling":  linkPrefix + "nowhere.py",
				"calc/cfg.py":    linkPrefix + "../.git/config",
				".git/config":    "url = https://x-access-token:leaked@github.com/o/r",
			},
			title:        "calc/alias.py, calc/escape.py, calc/dangling, calc/cfg.py and calc/outdir/secret.py; `leaked`",
			wantIncluded: append([]string{"calc/alias.py (named in the issue)"}, projectTail...),
			wantOmitted: []string{
				"calc/escape.py: symlink outside the repository (named in the issue)",
				"calc/dangling: broken symlink (named in the issue)",
				"calc/cfg.py: symlink into a skipped directory (named in the issue)",
			},
		},
		{
			name: "Go and JavaScript definitions",
			extra: map[string]string{
				"go/calc.go":  "package calc\n\nfunc (c *Calc) Divide(a, b int) int { return a / b }\n",
				"web/calc.js": "export function divideAll(xs) {\n  return xs\n}\n",
			},
			title: "`Divide` and `divideAll` disagree",
			wantIncluded: append([]string{
				"go/calc.go (defines Divide)",
				"web/calc.js (defines divideAll)",
			}, projectTail...),
		},
		{
			name:  "file name matches when nothing else does",
			title: "Calculator errors lose their message",
			wantIncluded: append([]string{
				`calc/errors.py (file name matches "errors" in the issue)`,
				"calc/ops.py (imports calc/errors.py)",
			}, projectTail...),
		},
		{
			name: "a name defined everywhere ranks nothing",
			extra: map[string]string{
				"a/run.py": "def run_all():\n", "b/run.py": "def run_all():\n", "c/run.py": "def run_all():\n",
				"d/run.py": "def run_all():\n", "e/run.py": "def run_all():\n",
			},
			title:        "`run_all` hangs",
			wantIncluded: projectTail,
		},
		{
			name:  "installed package's traceback path mapped onto src/, innermost frame first",
			extra: map[string]string{"src/pkgx/core.py": "def go_on():\n    pass\n", "src/pkgx/base.py": "def begin():\n    pass\n"},
			title: "Crash",
			body: "```\nvenv\\lib\\site-packages\\pkgx\\base.py:2: in begin\n" +
				"  File \"/usr/lib/python3/site-packages/pkgx/core.py\", line 2, in go_on\n```",
			wantIncluded: append([]string{
				"src/pkgx/core.py (named in the issue)",
				"src/pkgx/base.py (named in the issue)",
			}, projectTail...),
		},
		{
			name: "a bare file name skips the tests' copies",
			extra: map[string]string{
				"pytest.ini": "[pytest]\n", "tests/a/pytest.ini": "[pytest]\n", "tests/b/pytest.ini": "[pytest]\n",
			},
			title:        "rootdir: /x, configfile: pytest.ini",
			wantIncluded: append([]string{"pytest.ini (named in the issue)"}, projectTail...),
		},
		{
			name: "a quoted line and a hyphenated name located in the files",
			extra: map[string]string{
				"calc/msgs.py":     "MESSAGES = {\n    'divide-by-zero': 'cannot divide',\n}\n",
				"calc/rounding.py": "def rounded(value, digits):\n    return round(value, digits) + 0.5\n",
			},
			title: "Wrong `divide-by-zero` message",
			body:  "This line looks wrong:\n\n```python\n    return round(value, digits) + 0.5\n```\n",
			wantIncluded: append([]string{
				"calc/rounding.py (holds lines the issue quotes)",
				`calc/msgs.py (holds the string "divide-by-zero")`,
			}, projectTail...),
		},
		{
			name: "a name written as code that no file but a test defines, held as a string, after the definers",
			extra: map[string]string{
				"calc/select.py":       "def chosen(names):\n    return names is None or 'EVERY' in names\n",
				"tests/test_select.py": "EVERY = ['a']\n",
				"calc/other.py":        "KIND = \"fmt_number\"\nNAME = \"None\"\n",
			},
			title: "`fmt_number` and `EVERY`: `None` is not `calc`",
			wantIncluded: append([]string{
				"calc/fmt.py (defines fmt_number)",
				`calc/select.py (holds the string "EVERY")`,
				"calc/other.py (uses words of the issue: calc, number)",
				"calc/__init__.py (module calc named in the issue)",
				"tests/test_select.py (defines EVERY)",
				"tests/test_fmt.py (test that imports calc/fmt.py and mentions fmt_number)",
			}, projectTail...),
		},
		{
			name: "rarer names first, tests after the code",
			extra: map[string]string{
				"tests/test_shape.py": "class Shape:\n    pass\n",
				"calc/shape.py":       "class Shape:\n    pass\n\n\ndef area_of_shape(s):\n    return 0\n",
				"calc/solid.py":       "def area_of_shape(s):\n    return 1\n",
				"calc/one.py":         "def unique_volume(s):\n    return 2\n",
			},
			title: "`Shape`, `area_of_shape` and `unique_volume` are wrong",
			wantIncluded: append([]string{
				"calc/one.py (defines unique_volume)",
				"calc/shape.py (defines Shape, area_of_shape)",
				"calc/solid.py (defines area_of_shape)",
				"tests/test_shape.py (defines Shape)",
			}, projectTail...),
		},
		{
			name:  "two words of the issue name a file",
			extra: map[string]string{"calc/manpage.py": "def write_page():\n    pass\n", "calc/unused.py": "X = 1\n"},
			title: "The man page builder drops `fmt_number` output",
			wantIncluded: append([]string{
				"calc/fmt.py (defines fmt_number)",
				`calc/manpage.py (file name matches "manpage" in the issue)`,
				"tests/test_fmt.py (test that imports calc/fmt.py and mentions fmt_number)",
			}, projectTail...),
		},
		{
			name:  "skipped and excluded directories",
			title: "`divide` by zero",
			extra: map[string]string{
				"node_modules/x/index.js": "function divide(a, b) {}\n",
				"build/lib/calc/ops.py":   "def divide(a, b):\n",
				".venv/lib/ops.py":        "def divide(a, b):\n",
				"vendor/ops.go":           "func divide() {}\n",
			},
			opts: Options{Exclude: []string{"calc/sub", "tests"}},
			wantIncluded: append([]string{
				"calc/ops.py (defines divide)",
				"calc/__init__.py (imports calc/ops.py)",
				"calc/cli.py (imports calc/ops.py)",
				"calc/errors.py (imported by calc/ops.py)",
				"calc/util.py (imported by calc/ops.py)",
			}, projectTail...),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := maps.Clone(baseRepo)
			maps.Copy(files, tt.extra)
			ctx, err := Build(writeRepo(t, files), Issue{Title: tt.title, Body: tt.body}, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := includedPaths(ctx); !reflect.DeepEqual(got, tt.wantIncluded) {
				t.Errorf("Included:\n got %q\nwant %q", got, tt.wantIncluded)
			}
			got := omittedPaths(ctx)
			if len(got) != len(tt.wantOmitted) {
				t.Fatalf("Omitted:\n got %q\nwant %q", got, tt.wantOmitted)
			}
			for i, want := range tt.wantOmitted {
				if !strings.HasPrefix(got[i], want) {
					t.Errorf("Omitted[%d] = %q, want prefix %q", i, got[i], want)
				}
			}
			if strings.Contains(ctx.Text, "leaked") {
				t.Error("Text shows a file outside the repository")
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	if _, err := Build(filepath.Join(t.TempDir(), "missing"), Issue{}, Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Build(missing dir) error = %v, want fs.ErrNotExist", err)
	}
	if _, err := Build(t.TempDir(), Issue{}, Options{Budget: -1}); !errors.Is(err, ErrBudget) {
		t.Errorf("Build(negative budget) error = %v, want ErrBudget", err)
	}
}
