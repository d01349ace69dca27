package work

import (
	"strconv"
	"strings"
)

// branchPrefix starts the name of the branch Capsule pushes an issue's
// fix to: capsule/issue-<N>.
const branchPrefix = "capsule/issue-"

// Branch names the branch Capsule pushes the fix of issue to.
func Branch(issue int) string { return branchPrefix + strconv.Itoa(issue) }

// IssueOfBranch returns N for Capsule's branch capsule/issue-N, N a
// positive decimal number written as Branch writes it (no sign, no
// leading zero), and false for any other ref. A branch name alone proves
// nothing (anyone who can push, or a fork, can name a branch so); it only
// says which issue a pull request claims to answer.
func IssueOfBranch(ref string) (int, bool) {
	digits, ok := strings.CutPrefix(ref, branchPrefix)
	if !ok || digits == "" || digits[0] == '0' {
		return 0, false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 0, false
	}
	return n, true
}
