package work

import (
	"fmt"
	"strings"
)

// Repository names a repository: by id where the caller knows it, and by
// owner/name.
type Repository struct {
	ID       int64
	FullName string // owner/name
}

// Same reports whether r and o are one repository: by id when both have
// one, else by full name, case-insensitively. Two repositories that
// cannot be compared are not the same.
func (r Repository) Same(o Repository) bool {
	if r.ID != 0 && o.ID != 0 {
		return r.ID == o.ID
	}
	return r.FullName != "" && strings.EqualFold(r.FullName, o.FullName)
}

// Account is a GitHub user: a login and, where the caller knows it, its
// type ("User", "Bot").
type Account struct {
	Login, Type string
}

// Bot reports whether a is a bot: of type "Bot", or with a login ending
// in "[bot]" (an App's bot user, github-actions[bot]), in any case.
// Capsule itself is one; bots never start rounds.
func (a Account) Bot() bool {
	return strings.EqualFold(a.Type, "Bot") || strings.HasSuffix(strings.ToLower(a.Login), "[bot]")
}

// PullRequest is what a delivery, GitHub or the store shows of a pull
// request, for the one question every room asks of it: is it Capsule's,
// and for which issue? The fields a caller does not know stay zero.
type PullRequest struct {
	Number     int
	State      string // "open", "closed"
	HeadRef    string // the branch it merges
	HeadSHA    string
	Head, Base Repository // where its branch is, and where it merges into
	Author     Account    // who opened it
}

// Claim reads what a pull request's payload can tell: the issue N its
// branch capsule/issue-N names, when that branch is of repo itself (never
// a fork's of the same name). Otherwise why says what is wrong. A branch
// name proves nothing (anyone who can push can name a branch so): the
// caller checks the claim against what Capsule recorded (CheckRecord) or
// against GitHub (CapsulesFor).
func (p PullRequest) Claim(repo Repository) (issue int, why string) {
	issue, ok := IssueOfBranch(p.HeadRef)
	switch {
	case !ok:
		return 0, fmt.Sprintf("pull request #%d's branch %q is not a capsule/issue-N branch", p.Number, p.HeadRef)
	case !p.Head.Same(repo):
		return 0, fmt.Sprintf("pull request #%d comes from another repository", p.Number)
	}
	return issue, ""
}

// CapsulesFor checks, as GitHub shows the pull request, that it is
// Capsule's for issue in repo: open, from the issue's branch of repo
// itself (never a fork's branch of the same name), into repo, opened by
// a bot. why says what is wrong, when something is.
func (p PullRequest) CapsulesFor(repo Repository, issue int) (why string) {
	switch {
	case p.State != "open":
		why = "it is " + p.State
	case p.HeadRef != Branch(issue):
		why = fmt.Sprintf("its branch is %q, not %q", p.HeadRef, Branch(issue))
	case !p.Head.Same(repo) || !p.Base.Same(repo):
		why = fmt.Sprintf("its branch is in %s, not in %s", p.Head.FullName, repo.FullName)
	case !p.Author.Bot():
		why = fmt.Sprintf("%s opened it, not Capsule", p.Author.Login)
	default:
		return ""
	}
	return fmt.Sprintf("pull request #%d is not Capsule's for #%d: %s", p.Number, issue, why)
}

// CheckRecord checks round r against the record of the pull request
// Capsule opened for r's issue (found false: there is none), before the
// round is stored: the round's pull request must be that one, and
// failing checks must have run on the last commit Capsule pushed (else a
// human pushed since, or the run is an old one). why says what is wrong.
func CheckRecord(r Request, record PullRequest, found bool) (why string) {
	switch {
	case !found || record.Number != r.PullRequest:
		return fmt.Sprintf("pull request #%d is not one Capsule opened", r.PullRequest)
	case r.Trigger == TriggerCI && r.HeadSHA != record.HeadSHA:
		return fmt.Sprintf("the checks ran on %s, not on Capsule's last commit %s: a human pushed, or the run is an old one",
			shortSHA(r.HeadSHA), shortSHA(record.HeadSHA))
	}
	return ""
}

// shortSHA is a commit's SHA as GitHub shows it, or "none".
func shortSHA(sha string) string {
	switch {
	case sha == "":
		return "none"
	case len(sha) > 7:
		return sha[:7]
	}
	return sha
}
