package bench_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/datasets"
)

// withTimes are the shipped datasets that must ship reference times.
var withTimes = []string{"humaneval", "humaneval-et", "mbpp", "mbpp-et"}

// TestShippedReferenceTimes checks that every shipped times file parses,
// says where it was measured, and covers every problem of its dataset and
// nothing else.
func TestShippedReferenceTimes(t *testing.T) {
	for _, d := range datasets.All() {
		t.Run(d.Name, func(t *testing.T) {
			rt, ok, err := bench.ShippedReferenceTimes(d.Name)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				if slices.Contains(withTimes, d.Name) {
					t.Fatalf("no reference times shipped for %s", d.Name)
				}
				return
			}
			m := rt.Machine
			if rt.Dataset != d.Name || m.CPU == "" || m.Cores < 1 || m.Date == "" || m.Image == "" ||
				!strings.HasPrefix(m.Command, "capsule bench --dataset "+d.Name+" ") {
				t.Errorf("header %q %+v, want the dataset's name and where and how the times were measured", rt.Dataset, m)
			}
			set, err := bench.LoadDataset(d.Name, dataset.Auto)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range set.Problems {
				if _, ok := rt.Times[p.TaskID]; !ok && p.Reference != "" {
					t.Errorf("%s: no reference time", p.TaskID)
				}
			}
			if len(rt.Times) != len(set.Problems) {
				t.Errorf("%d times for %d problems", len(rt.Times), len(set.Problems))
			}
		})
	}
}

func TestParseReferenceTimes(t *testing.T) {
	tests := []struct {
		name, data, err string
	}{
		{"good", `{"dataset":"d","times":{"a":{"cpu":0.2,"wall":0.5}}}`, ""},
		{"not json", `{"dataset":`, "reference times"},
		{"empty", `{"dataset":"d","times":{}}`, "no times"},
		{"negative", `{"dataset":"d","times":{"a":{"cpu":-1,"wall":0.5}}}`, "out of range"},
		{"above the bound", `{"dataset":"d","times":{"a":{"cpu":1000,"wall":0.5}}}`, "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bench.ParseReferenceTimes([]byte(tt.data))
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseReferenceTimes: %v, want %q", err, tt.err)
			}
		})
	}
}
