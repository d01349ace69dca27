package work

import "testing"

func TestIssueOfBranch(t *testing.T) {
	tests := []struct {
		ref  string
		want int
	}{
		{"capsule/issue-1", 1},
		{"capsule/issue-42", 42},
		{"capsule/issue-0", 0},
		{"capsule/issue-07", 0},
		{"capsule/issue--7", 0},
		{"capsule/issue-+7", 0},
		{"capsule/issue-", 0},
		{"capsule/issue-7/x", 0},
		{"capsule/issue-7 ", 0},
		{"Capsule/issue-7", 0},
		{"refs/heads/capsule/issue-7", 0},
		{"capsule/issue-99999999999999999999", 0},
		{"main", 0},
	}
	for _, n := range []int{1, 9, 10, 12345} {
		if got, ok := IssueOfBranch(Branch(n)); got != n || !ok {
			t.Errorf("IssueOfBranch(Branch(%d)) = %d, %v", n, got, ok)
		}
	}
	for _, tt := range tests {
		got, ok := IssueOfBranch(tt.ref)
		if got != tt.want || ok != (tt.want > 0) {
			t.Errorf("IssueOfBranch(%q) = %d, %v; want %d", tt.ref, got, ok, tt.want)
		}
	}
}
