package edits

import "testing"

func TestAsksDelete(t *testing.T) {
	tests := []struct {
		content string
		want    bool
	}{
		{DeleteMarker, true},
		{DeleteMarker + "\n", true},
		{"\n  " + DeleteMarker + "\r\n", true},
		{"", false},
		{DeleteMarker + "\nprint(1)\n", false},
		{"# Capsule: delete this file", false},
		{"x = 1  " + DeleteMarker, false},
	}
	for _, tt := range tests {
		if got := asksDelete(tt.content); got != tt.want {
			t.Errorf("asksDelete(%q) = %v, want %v", tt.content, got, tt.want)
		}
	}
}
