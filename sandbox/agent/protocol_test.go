package agent

import "testing"

func TestParseUser(t *testing.T) {
	tests := []struct {
		in       string
		uid, gid int
		ok       bool
	}{
		{RunAs, 10001, 10001, true}, {"0:0", 0, 0, true}, {"5:7", 5, 7, true},
		{"", 0, 0, false}, {"10001", 0, 0, false}, {"a:b", 0, 0, false}, {"-1:0", 0, 0, false}, {"1:2:3", 0, 0, false},
	}
	for _, tt := range tests {
		uid, gid, err := ParseUser(tt.in)
		if (err == nil) != tt.ok || uid != tt.uid || gid != tt.gid {
			t.Errorf("ParseUser(%q) = %d, %d, %v", tt.in, uid, gid, err)
		}
	}
}
