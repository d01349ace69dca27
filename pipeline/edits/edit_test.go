package edits

import "testing"

func TestDeletes(t *testing.T) {
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
		if got := (Edit{Path: "a.py", Content: tt.content}).Deletes(); got != tt.want {
			t.Errorf("Deletes(%q) = %v, want %v", tt.content, got, tt.want)
		}
	}
}
