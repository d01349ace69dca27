package limits

import "testing"

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"512m", 512 << 20, true}, {"1g", 1 << 30, true}, {"100k", 100 << 10, true},
		{"1024", 1024, true}, {"7b", 7, true}, {"", 0, false}, {"m", 0, false},
		{"1.5g", 0, false}, {"-1m", 0, false}, {"12x", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1 << 10, "1 KiB"}, {1536, "1536 B"},
		{512 << 20, "512 MiB"}, {1 << 30, "1 GiB"}, {3 << 29, "1536 MiB"},
	}
	for _, tt := range tests {
		if got := FormatBytes(tt.in); got != tt.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMinimum(t *testing.T) {
	tests := []struct {
		m    Minimum
		n    int64
		want string
	}{
		{Memory, MinMemory, ""},
		{Memory, 1 << 20, "1 MiB is below Docker's minimum of 6 MiB"},
		{Disk, MinDisk, ""},
		{Disk, 512 << 10, "512 KiB is below the minimum of 1 MiB"},
	}
	for _, tt := range tests {
		err := tt.m.Check(tt.n)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want || tt.m.Allows(tt.n) != (tt.want == "") {
			t.Errorf("%v.Check(%d) = %q, want %q", tt.m, tt.n, got, tt.want)
		}
	}
}
