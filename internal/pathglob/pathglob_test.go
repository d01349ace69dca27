package pathglob

import "testing"

func TestMatchAny(t *testing.T) {
	for _, tc := range []struct {
		path, pattern string
		want          bool
	}{
		{"target/surefire-reports/TEST-a.B.xml", "**/target/surefire-reports/TEST-*.xml", true},
		{"mod/sub/target/surefire-reports/TEST-a.xml", "**/target/surefire-reports/TEST-*.xml", true},
		{"target/surefire-reports/a.txt", "**/target/surefire-reports/TEST-*.xml", false},
		{"junit.xml", "junit.xml", true},
		{"sub/junit.xml", "junit.xml", false},
		{"./a/../junit.xml", "junit.xml", true},
		{"a/b", "a/[", false},
	} {
		if _, got := MatchAny(tc.path, []string{tc.pattern}); got != tc.want {
			t.Errorf("MatchAny(%q, %q) = %v, want %v", tc.path, tc.pattern, got, tc.want)
		}
	}
}
