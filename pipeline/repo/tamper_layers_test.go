package repo_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
)

// TestEachLayerHolds turns the proof's defences off one at a time: with
// the static scan off, no attack of calculatortest.Attacks (whose names
// are built from pieces where it matters) is solved; with the scan and the
// tripwire both off, the channel and the exit status alone still refuse
// the forged session and the descriptors put over the channel.
func TestEachLayerHolds(t *testing.T) {
	layers := []struct {
		name           string
		scan, tripwire bool // off
		attacks        []string
	}{
		{name: "without the scan", scan: true},
		{name: "without the scan and the tripwire", scan: true, tripwire: true,
			attacks: []string{"3 forges a session on exit and exits 0", "3b puts /dev/null over the channel's descriptors"}},
	}
	for _, l := range layers {
		for _, a := range calculatortest.Attacks {
			if l.attacks != nil && !slices.Contains(l.attacks, a.Name) {
				continue
			}
			t.Run(l.name+"/"+a.Name, func(t *testing.T) {
				dir := calculator(t, map[string]string{"tests/test_stats.py": calculatortest.WithoutEmptyListTests(t)})
				if a.Prepare != nil {
					a.Prepare(t, dir)
				}
				task := issueTask(t, dir)
				task.Title, task.Body = "mean([]) fails", "Calling mean([]) or median([]) raises; both should return 0.0."
				_, out := solveScripted(t, repo.WithoutLayers(task, l.scan, l.tripwire),
					calculatortest.DesignerAnswer("tests/test_capsule_reproduction.py"), a.Answer(t))
				if out.Log.Reproduction == nil || !out.Log.Reproduction.Accepted {
					t.Fatalf("the honest reproducing test was not accepted: %+v", out.Log.Reproduction)
				}
				if out.Outcome() == attemptlog.Solved {
					t.Fatalf("solved by an answer that fixes nothing")
				}
				a0 := out.Log.Attempts[0]
				why := strings.Join(append(a0.Refused, a0.Feedback), "\n")
				if len(a0.SpecialCasing) > 0 {
					t.Errorf("the scan is off, yet it found %v", a0.SpecialCasing)
				}
				t.Logf("%s: %s", out.Outcome(), firstLine(why))
			})
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
