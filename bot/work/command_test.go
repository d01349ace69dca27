package work

import "testing"

func TestPullRequestCommand(t *testing.T) {
	for _, tc := range []struct {
		body, request string
		ok            bool
	}{
		{"/capsule please also handle negative numbers", "please also handle negative numbers", true},
		{"\n\r\n  /CAPSULE\tuse math.fsum\r\nand keep the docstring", "use math.fsum\r\nand keep the docstring", true},
		{"/capsule", "", true},
		{"/capsule\n\nrename x to total", "rename x to total", true},
		{"/capsule retry", "", true},
		{" /Capsule  RETRY \n", "", true},
		{"/capsule retry the parser too", "retry the parser too", true},
		{"/capsules are nice", "", false},
		{"/capsule-bot go", "", false},
		{"> /capsule do it", "", false},
		{"Looks good.\n/capsule do it", "", false},
		{"", "", false},
		{"/caps", "", false},
	} {
		request, ok := PullRequestCommand(tc.body)
		if request != tc.request || ok != tc.ok {
			t.Errorf("PullRequestCommand(%q) = %q, %v; want %q, %v", tc.body, request, ok, tc.request, tc.ok)
		}
	}
}
