package calc

import "testing"

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("bad")
	}
}

func TestWrong(t *testing.T) {
	if got := Add(2, 2); got != 5 {
		t.Errorf("Add(2, 2) = %d, want 5", got)
	}
}

func TestTable(t *testing.T) {
	for _, c := range []struct {
		name       string
		a, b, want int
	}{{"small", 1, 1, 2}, {"wrong sum", 2, 3, 6}} {
		t.Run(c.name, func(t *testing.T) {
			if got := Add(c.a, c.b); got != c.want {
				t.Errorf("got %d", got)
			}
		})
	}
}

func TestSkipped(t *testing.T) { t.Skip("not today") }
