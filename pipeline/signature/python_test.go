package signature

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestSignaturesRunInPython defines every signature derived from the
// sanitized MBPP tests in a real Python interpreter, so that the names,
// hints and syntax are valid Python. It is skipped without python3.
func TestSignaturesRunInPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	var tasks []mbppTask
	if err := json.Unmarshal(readDataset(t, "mbpp"), &tasks); err != nil {
		t.Fatal(err)
	}
	var prog strings.Builder
	for _, task := range tasks {
		sig, err := FromTest(task.TestList[0], "")
		if err != nil {
			t.Fatal(err)
		}
		prog.WriteString(sig.String() + "\n    pass\n")
	}
	cmd := exec.Command(python, "-I", "-c", "import sys; exec(sys.stdin.read())")
	cmd.Stdin = strings.NewReader(prog.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
}
