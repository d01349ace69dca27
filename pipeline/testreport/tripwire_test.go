package testreport_test

import (
	"testing"
)

func TestTripwireSmoke(t *testing.T) {
	b := newPyBox(t)
	run := b.run(map[string]string{
		"src/calc.py":        "def add(a, b):\n    return a + b\n",
		"tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n\ndef test_bad():\n    assert add(1, 2) == 4\n",
	}, "PYTHONPATH=src PYTEST_ADDOPTS=-q python3 -m pytest tests")
	t.Log(run.dump())
}
