package edits_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/capsulehq/capsule/pipeline/edits"
)

func Example() {
	repo, err := os.MkdirTemp("", "edits-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(repo)
	for name, content := range map[string]string{
		"calc.py":            "def add(a, b):\n    return a - b\n",
		"tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n",
	} {
		if err := os.MkdirAll(filepath.Join(repo, filepath.Dir(name)), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	protected := func(p string) (string, bool) {
		return "tests/**", strings.HasPrefix(p, "tests/")
	}

	accepted, refused := edits.Check(repo, []edits.Edit{
		{Path: "./calc.py", Content: "def add(a, b):\n    return a + b\n"},
		{Path: "tests/test_calc.py", Content: "def test_add():\n    pass\n"},
		{Path: "tests/test_more.py", Content: "from calc import add\n"},
	}, edits.Rules{Protected: protected})
	for _, r := range refused {
		fmt.Println("refused:", r.Reason)
	}
	patch, err := edits.Diff(repo, accepted)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(patch)
	for _, c := range edits.Summary(accepted, repo) {
		fmt.Printf("%s %s +%d -%d\n", c.Status, c.Path, c.Added, c.Removed)
	}
	// Output:
	// refused: you may not modify tests/test_calc.py (protected by "tests/**"); fix the code, not the tests
	// diff --git a/calc.py b/calc.py
	// index 12ee743..4693ad3 100644
	// --- a/calc.py
	// +++ b/calc.py
	// @@ -1,2 +1,2 @@
	//  def add(a, b):
	// -    return a - b
	// +    return a + b
	// diff --git a/tests/test_more.py b/tests/test_more.py
	// new file mode 100644
	// index 0000000..977994f
	// --- /dev/null
	// +++ b/tests/test_more.py
	// @@ -0,0 +1 @@
	// +from calc import add
	// modified calc.py +1 -1
	// added tests/test_more.py +1 -0
}
