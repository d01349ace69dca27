package repocontext

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// synthRepo writes a synthetic repository of about 10,000 files to dir: 50
// Python packages of 4 subpackages of 25 modules that import each other
// (absolute and relative imports), a test per two modules, Markdown docs,
// JSON data, PNG images, a few files over 1 MiB and some of 300 KiB, and
// skipped node_modules and .git directories.
func synthRepo(tb testing.TB, dir string) (files int) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	write := func(p string, data []byte) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			tb.Fatal(err)
		}
		if !strings.HasPrefix(p, "node_modules/") && !strings.HasPrefix(p, ".git/") {
			files++
		}
	}
	mod := func(p, s, m int) string { return fmt.Sprintf("pkg%02d.sub%d.mod%02d", p, s, m) }
	for p := range 50 {
		write(fmt.Sprintf("src/pkg%02d/__init__.py", p), []byte(`"""Package."""`+"\n"))
		for s := range 4 {
			write(fmt.Sprintf("src/pkg%02d/sub%d/__init__.py", p, s), nil)
			for m := range 25 {
				write("src/"+strings.ReplaceAll(mod(p, s, m), ".", "/")+".py", synthModule(rng, p, s, m))
				if m%2 == 0 {
					write(fmt.Sprintf("tests/pkg%02d/test_sub%d_mod%02d.py", p, s, m), synthTest(p, s, m))
				}
			}
		}
	}
	for i := range 1300 {
		write(fmt.Sprintf("docs/section%02d/page%03d.md", i%20, i), []byte(strings.Repeat("Some prose about the project.\n", 40)))
	}
	for i := range 700 {
		write(fmt.Sprintf("data/set%02d/item%04d.json", i%10, i), []byte(`{"values": [1, 2, 3], "name": "item"}`+"\n"))
	}
	for i := range 190 {
		write(fmt.Sprintf("assets/img%03d.png", i), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"+strings.Repeat("\x00", 4000)))
	}
	for i := range 5 {
		write(fmt.Sprintf("data/big/dump%d.sql", i), []byte(strings.Repeat("INSERT INTO t VALUES (1);\n", 50000)))
		write(fmt.Sprintf("src/pkg%02d/generated_tables.py", i), []byte(strings.Repeat("TABLE = [1, 2, 3]\n", 17000)))
	}
	for i := range 500 {
		write(fmt.Sprintf("node_modules/lib%03d/index.js", i), []byte("module.exports = {}\n"))
		write(fmt.Sprintf(".git/objects/%02x/%038x", i%256, i), []byte("blob"))
	}
	write("README.md", []byte("# Synthetic\n"))
	write("pyproject.toml", []byte("[project]\nname = \"synthetic\"\n"))
	return files
}

// synthModule is a Python module of about 3 KiB that imports three others.
func synthModule(rng *rand.Rand, p, s, m int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "\"\"\"Module %d.%d.%d.\"\"\"\n\nimport os\nfrom typing import Any\n\n", p, s, m)
	fmt.Fprintf(&b, "from pkg%02d.sub%d import mod%02d\n", p, rng.IntN(4), rng.IntN(25))
	fmt.Fprintf(&b, "from .mod%02d import helper_%d_%d_%d\n", rng.IntN(25), p, s, rng.IntN(25))
	fmt.Fprintf(&b, "import pkg%02d.sub%d.mod%02d as other\n\n", rng.IntN(50), rng.IntN(4), rng.IntN(25))
	fmt.Fprintf(&b, "LIMIT_%d = %d\n\n", m, rng.IntN(1000))
	fmt.Fprintf(&b, "def helper_%d_%d_%d(x: int) -> int:\n    return x + %d\n\n", p, s, m, m)
	for f := range 6 {
		fmt.Fprintf(&b, "def compute_%d_%d_%d_%d(values: list[int], scale: float = 1.0) -> float:\n", p, s, m, f)
		b.WriteString("    \"\"\"Compute a weighted total of values.\"\"\"\n    total = 0.0\n")
		b.WriteString("    for i, v in enumerate(values):\n        total += v * scale / (i + 1)\n")
		b.WriteString("    if total > 100:\n        total = os.environ.get('CAP', total)\n    return total\n\n")
	}
	fmt.Fprintf(&b, "class Model%d%d%d:\n    def run(self, data: Any) -> Any:\n        return data\n", p, s, m)
	return []byte(b.String())
}

// synthTest is a pytest module for a synthetic module.
func synthTest(p, s, m int) []byte {
	return fmt.Appendf(nil, "from pkg%02d.sub%d.mod%02d import compute_%d_%d_%d_0\n\n"+
		"def test_compute():\n    assert compute_%d_%d_%d_0([1, 2]) == 2.0\n", p, s, m, p, s, m, p, s, m)
}

// synthIssue names a module path, a symbol in backticks and one in a code
// block, as a real issue on the synthetic repository would.
var synthIssue = Issue{
	Title: "`compute_7_2_13_0` returns the wrong total for scaled values",
	Body: "Calling `pkg07.sub2.mod13.compute_7_2_13_0([1, 2], scale=2.0)` returns 4.0; " +
		"expected 3.0. See also src/pkg07/sub2/mod14.py.\n\n" +
		"```python\nfrom pkg07.sub2.mod13 import compute_7_2_13_0\nprint(compute_7_2_13_0([1, 2], scale=2.0))\n```\n",
}

// BenchmarkBuild10k times Build on a synthetic repository of 10,000 files.
func BenchmarkBuild10k(b *testing.B) {
	dir := b.TempDir()
	if n := synthRepo(b, dir); n < 10000 {
		b.Fatalf("synthetic repository has %d files, want 10,000", n)
	}
	var ctx Context
	for b.Loop() {
		var err error
		if ctx, err = Build(dir, synthIssue, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ctx.Included)), "files/op")
	b.ReportMetric(float64(ctx.Tokens), "tokens/op")
}
