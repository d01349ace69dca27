package work

import "testing"

func TestStates(t *testing.T) {
	for _, tc := range []struct {
		s                State
		active, terminal bool
	}{
		{Queued, true, false},
		{Running, true, false},
		{Done, false, true},
		{Failed, false, true},
		{Skipped, false, true},
		{"unknown", false, false},
	} {
		if tc.s.Active() != tc.active || tc.s.Terminal() != tc.terminal {
			t.Errorf("%s: Active %v, Terminal %v; want %v, %v", tc.s, tc.s.Active(), tc.s.Terminal(), tc.active, tc.terminal)
		}
	}
	if len(States) != 5 {
		t.Errorf("States = %v", States)
	}
}

func TestRequestName(t *testing.T) {
	if got := (Request{Owner: "octo", Repo: "calc", Issue: 7}).Name(); got != "octo/calc#7" {
		t.Errorf("Name = %q", got)
	}
}

func TestTriggerRound(t *testing.T) {
	for _, tc := range []struct {
		t     Trigger
		round bool
	}{
		{TriggerLabel, false},
		{TriggerRetry, false},
		{TriggerReview, true},
		{TriggerCommand, true},
		{TriggerCI, true},
		{"", false},
	} {
		if got := tc.t.Round(); got != tc.round {
			t.Errorf("%q.Round() = %v, want %v", tc.t, got, tc.round)
		}
	}
}
