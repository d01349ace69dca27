package work

import (
	"strings"
	"testing"
)

func TestRepositorySame(t *testing.T) {
	for _, tc := range []struct {
		a, b Repository
		same bool
	}{
		{Repository{ID: 1, FullName: "octo/calc"}, Repository{ID: 1, FullName: "renamed/calc"}, true},
		{Repository{ID: 1, FullName: "octo/calc"}, Repository{ID: 2, FullName: "octo/calc"}, false},
		{Repository{FullName: "octo/calc"}, Repository{ID: 2, FullName: "Octo/Calc"}, true},
		{Repository{FullName: "octo/calc"}, Repository{FullName: "mallory/calc"}, false},
		{Repository{}, Repository{}, false},
	} {
		if got := tc.a.Same(tc.b); got != tc.same {
			t.Errorf("%+v.Same(%+v) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

func TestAccountBot(t *testing.T) {
	for _, tc := range []struct {
		a   Account
		bot bool
	}{
		{Account{Login: "capsule-app[bot]"}, true},
		{Account{Login: "github-actions[bot]", Type: "Bot"}, true},
		{Account{Login: "Renovate[BOT]"}, true},
		{Account{Login: "dependabot", Type: "bot"}, true},
		{Account{Login: "alice", Type: "User"}, false},
		{Account{Login: "bot"}, false},
		{Account{}, false},
	} {
		if got := tc.a.Bot(); got != tc.bot {
			t.Errorf("%+v.Bot() = %v, want %v", tc.a, got, tc.bot)
		}
	}
}

var octo = Repository{ID: 10, FullName: "octo/calc"}

// capsules is Capsule's pull request #12 for issue 7 of octo/calc.
func capsules() PullRequest {
	return PullRequest{
		Number: 12, State: "open", HeadRef: "capsule/issue-7", HeadSHA: "abc",
		Head: octo, Base: octo, Author: Account{Login: "capsule-app[bot]", Type: "Bot"},
	}
}

// identityCase is Capsule's pull request changed by edit, and what a
// check says of it for issue.
type identityCase struct {
	name  string
	edit  func(*PullRequest)
	issue int
	why   string
}

func TestPullRequestClaim(t *testing.T) {
	for _, tc := range []identityCase{
		{"Capsule's", func(*PullRequest) {}, 7, ""},
		{"another branch", func(p *PullRequest) { p.HeadRef = "fix-7" }, 0, `branch "fix-7" is not a capsule/issue-N branch`},
		{"a fork's branch", func(p *PullRequest) { p.Head = Repository{ID: 11, FullName: "mallory/calc"} }, 0, "comes from another repository"},
		{"a head repository the payload leaves out", func(p *PullRequest) { p.Head = Repository{} }, 0, "comes from another repository"},
		{"a human's is claimed all the same: the payload cannot tell", func(p *PullRequest) { p.Author = Account{Login: "alice"} }, 7, ""},
	} {
		p := capsules()
		tc.edit(&p)
		issue, why := p.Claim(octo)
		if issue != tc.issue || tc.why == "" && why != "" || !strings.Contains(why, tc.why) {
			t.Errorf("%s: Claim = %d, %q; want %d, %q", tc.name, issue, why, tc.issue, tc.why)
		}
	}
}

func TestPullRequestCapsulesFor(t *testing.T) {
	for _, tc := range []identityCase{
		{"Capsule's", func(*PullRequest) {}, 7, ""},
		{"closed", func(p *PullRequest) { p.State = "closed" }, 7, "pull request #12 is not Capsule's for #7: it is closed"},
		{"another issue's", func(*PullRequest) {}, 8, `its branch is "capsule/issue-7", not "capsule/issue-8"`},
		{"a fork's branch of the same name", func(p *PullRequest) { p.Head = Repository{FullName: "mallory/calc"} }, 7,
			"its branch is in mallory/calc, not in octo/calc"},
		{"into another repository", func(p *PullRequest) { p.Base = Repository{FullName: "mallory/calc"} }, 7, "its branch is in octo/calc"},
		{"a human opened it", func(p *PullRequest) { p.Author = Account{Login: "alice", Type: "User"} }, 7, "alice opened it, not Capsule"},
	} {
		p := capsules()
		tc.edit(&p)
		why := p.CapsulesFor(octo, tc.issue)
		if tc.why == "" && why != "" || !strings.Contains(why, tc.why) {
			t.Errorf("%s: CapsulesFor = %q, want %q", tc.name, why, tc.why)
		}
	}
}

func TestCheckRecord(t *testing.T) {
	round := func(trigger Trigger, head string) Request {
		return Request{Trigger: trigger, PullRequest: 12, Issue: 7, HeadSHA: head, Round: "run:1"}
	}
	record := PullRequest{Number: 12, HeadSHA: "aaaaaaa1111"}
	for _, tc := range []struct {
		name   string
		r      Request
		record PullRequest
		found  bool
		why    string
	}{
		{"a review on the recorded pull request", round(TriggerReview, "bbb"), record, true, ""},
		{"checks on Capsule's last commit", round(TriggerCI, "aaaaaaa1111"), record, true, ""},
		{"no record", round(TriggerReview, "aaa"), PullRequest{}, false, "pull request #12 is not one Capsule opened"},
		{"another pull request recorded", round(TriggerReview, "aaa"), PullRequest{Number: 13}, true, "#12 is not one Capsule opened"},
		{"checks on another commit", round(TriggerCI, "bbbbbbb2222"), record, true,
			"the checks ran on bbbbbbb, not on Capsule's last commit aaaaaaa: a human pushed, or the run is an old one"},
		{"checks on no commit", round(TriggerCI, ""), record, true, "the checks ran on none"},
	} {
		why := CheckRecord(tc.r, tc.record, tc.found)
		if tc.why == "" && why != "" || !strings.Contains(why, tc.why) {
			t.Errorf("%s: CheckRecord = %q, want %q", tc.name, why, tc.why)
		}
	}
}
