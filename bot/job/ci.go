package job

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/capsulehq/capsule/bot/cilog"
	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/round"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
)

// DefaultMaxCIRounds is the operator's maximum of ci_rounds when the
// operator sets none: twice the repository's default.
const DefaultMaxCIRounds = 4

// Commit is a commit of a pull request.
type Commit struct {
	SHA, Message string
}

// CheckRun is a check run on a commit, as CI reports it.
type CheckRun struct {
	ID   int64
	Name string
	// App is the slug of the App that made it: "github-actions" for a
	// GitHub Actions job, whose ID is then also the job's.
	App                  string
	Status, Conclusion   string
	Title, Summary, Text string // its output
	Annotations          int    // how many annotations it has
}

// WorkflowJob is a job of a GitHub Actions workflow run. Its ID is also
// its check run's.
type WorkflowJob struct {
	ID         int64
	Name       string
	Conclusion string
}

// failed reports whether a conclusion is one a CI round answers.
func failed(conclusion string) bool {
	return conclusion == "failure" || conclusion == "timed_out"
}

// actionsApp is the slug of GitHub Actions' check runs.
const actionsApp = "github-actions"

// ciRound decides whether the CI round s.t asks for runs, and gathers what
// it answers: the checks that failed on s.t.HeadSHA and do not also fail
// on the default branch's head, GitHub Actions' with the failing steps of
// their logs, redacted. No round runs (skip says why, in words for the
// pull request) when CI rounds are off or used up, when the branch's head
// is not the commit the checks ran on or not Capsule's, when no check
// failed, or when the same checks fail on the default branch. Each skip
// text is the same for the same cause on a pull request, so that it can
// be said there once.
//
// It pins the default branch's head (s.base) unless that is done. A
// configuration that is not valid is the round's to report: its
// defaults hold here.
func (s *roundRun) ciRound(ctx context.Context) (checks []round.Check, skip string, err error) {
	run, err := workflowRun(s.t.Round, s.key)
	if err != nil {
		return nil, "", err
	}
	if s.t.HeadSHA == "" {
		return nil, "", fmt.Errorf("CI round %s names no commit that its checks ran on", s.t.Round)
	}
	if s.base == "" {
		if _, err := s.repository(ctx); err != nil {
			return nil, "", err
		}
	}
	cfg, err := s.config(ctx)
	if _, invalid := errors.AsType[*repoconfig.ParseError](err); err != nil && !invalid {
		return nil, "", err
	}
	limit, capped := s.ciRoundLimit(cfg)
	if limit == 0 {
		return nil, ciRoundsOff(cfg, capped), nil
	}
	if skip, err := s.capsuleHead(ctx); skip != "" || err != nil {
		return nil, skip, err
	}
	done, err := s.ciRoundsDone(ctx)
	if err != nil {
		return nil, "", err
	}
	if done >= limit {
		return nil, ciRoundsUsedUp(done, limit, capped), nil
	}
	failing, err := s.failingChecks(ctx, s.t.HeadSHA)
	if err != nil {
		return nil, "", err
	}
	if len(failing) == 0 {
		s.log.Info("no check failed", "commit", s.t.HeadSHA)
		return nil, noneFailed, nil
	}
	onDefault, err := s.failingChecks(ctx, s.base)
	if err != nil {
		return nil, "", err
	}
	ours, theirs := splitBy(failing, onDefault)
	if len(ours) == 0 {
		return nil, notCapsules(theirs), nil
	}
	checks, err = s.checkDetails(ctx, run, ours)
	return checks, "", err
}

// workflowRun is the workflow run's id a CI round's key names (round
// as stored, key as read): 0 for a check suite's.
func workflowRun(round string, key work.RoundKey) (int64, error) {
	switch {
	case !key.CI():
		return 0, fmt.Errorf("%q is not a CI round's key (run:<id> or suite:<id>)", round)
	case key.Kind == work.RoundSuite:
		return 0, nil
	}
	return key.Number(), nil
}

// ciRoundLimit is the repository's ci_rounds cut to the operator's
// maximum; capped is true when the operator's maximum decided it, which
// the log says.
func (s *roundRun) ciRoundLimit(cfg repoconfig.Config) (limit int, capped bool) {
	most := s.runner.maxCIRounds()
	if cfg.CIRounds > most {
		s.log.Info("ci_rounds capped by the operator", "ci_rounds", cfg.CIRounds, "source", configName(cfg), "max", most)
		return most, true
	}
	return cfg.CIRounds, false
}

// maxCIRounds is the operator's maximum of ci_rounds; 0 when CI rounds
// are off.
func (r *Runner) maxCIRounds() int {
	switch {
	case r.MaxCIRounds < 0:
		return 0
	case r.MaxCIRounds == 0:
		return DefaultMaxCIRounds
	}
	return r.MaxCIRounds
}

// capsuleHead returns a skip text unless the branch's head is the commit
// the checks ran on and Capsule made it.
func (s *roundRun) capsuleHead(ctx context.Context) (skip string, err error) {
	head, err := s.gh.BranchHead(ctx, work.Branch(s.t.Issue))
	if err != nil {
		return "", githubError("read the pull request's branch", err)
	}
	msg, err := s.gh.CommitMessage(ctx, head)
	if err != nil {
		return "", githubError("read the branch's head commit", err)
	}
	switch {
	case trailer(msg, TrailerIssue) != strconv.Itoa(s.t.Issue):
		return humanPushed, nil
	case head != s.t.HeadSHA:
		s.log.Info("the checks ran on an older head", "checked", s.t.HeadSHA, "head", head)
		return movedOn, nil
	}
	return "", nil
}

// The skip texts that name no number: each is said once on a pull
// request.
const (
	humanPushed = "Someone pushed to this pull request's branch, so Capsule makes no more CI rounds on it: " +
		"its failing checks are yours to fix. A comment starting with `/capsule` still asks Capsule for a round."
	movedOn = "Some checks failed on a commit that is no longer the branch's head: Capsule has pushed since, " +
		"and the checks of its head decide whether a CI round follows."
	noneFailed = "A check run reported a failure, but no check has failed on the branch's head (a re-run may have passed), " +
		"so Capsule makes no CI round."
)

// ciRoundsDone counts the CI rounds Capsule made on the pull request
// before this one: those that pushed, by their commits' Capsule-Round
// trailer, and those that failed, by their status comments. A failing
// round pushes nothing, and another workflow's failure on the same head
// would otherwise start it again.
func (s *roundRun) ciRoundsDone(ctx context.Context) (int, error) {
	commits, err := s.gh.PullRequestCommits(ctx, s.t.PullRequest)
	if err != nil {
		return 0, githubError("list the pull request's commits", err)
	}
	comments, err := s.gh.Comments(ctx, s.t.PullRequest)
	if err != nil {
		return 0, githubError("list the pull request's comments", err)
	}
	keys := map[string]bool{}
	for _, c := range commits {
		keys[trailer(c.Message, TrailerRound)] = true
	}
	for _, c := range comments {
		if key, ok := report.StatusRound(c.Body); ok {
			keys[key] = true
		}
	}
	n := 0
	for key := range keys {
		if k, err := work.ParseRoundKey(key); err == nil && k.CI() && key != s.t.Round {
			n++
		}
	}
	return n, nil
}

// failingChecks lists the check runs that failed on commit sha.
func (s *roundRun) failingChecks(ctx context.Context, sha string) ([]CheckRun, error) {
	runs, err := s.gh.CheckRuns(ctx, sha)
	if err != nil {
		return nil, githubError("list the checks of "+short(sha), err)
	}
	var out []CheckRun
	for _, c := range runs {
		if c.Status == "completed" && failed(c.Conclusion) {
			out = append(out, c)
		}
	}
	return out, nil
}

// splitBy splits checks into those whose name is not among others' and
// the names of those that are.
func splitBy(checks, others []CheckRun) (rest []CheckRun, shared []string) {
	names := make(map[string]bool, len(others))
	for _, c := range others {
		names[c.Name] = true
	}
	for _, c := range checks {
		if names[c.Name] {
			shared = append(shared, c.Name)
		} else {
			rest = append(rest, c)
		}
	}
	return rest, shared
}

// checkDetails turns the failing check runs into a round's checks: their
// output and annotations, and for GitHub Actions jobs (those of workflow
// run run, when not 0, and those GitHub Actions made) the failing steps
// of their logs. Only the checks a round's task shows are read in full.
func (s *roundRun) checkDetails(ctx context.Context, run int64, runs []CheckRun) ([]round.Check, error) {
	jobs := map[int64]bool{}
	if run != 0 {
		list, err := s.gh.WorkflowJobs(ctx, run)
		if err != nil {
			return nil, githubError(fmt.Sprintf("list the jobs of workflow run %d", run), err)
		}
		for _, j := range list {
			jobs[j.ID] = failed(j.Conclusion)
		}
	}
	checks := make([]round.Check, 0, len(runs))
	for i, c := range runs {
		check := round.Check{Name: c.Name, Conclusion: c.Conclusion, Summary: output(c)}
		if i >= round.MaxChecks {
			checks = append(checks, check)
			continue
		}
		if c.Annotations > 0 {
			notes, err := s.gh.Annotations(ctx, c.ID)
			if err != nil {
				return nil, githubError("read the annotations of check "+strconv.Quote(c.Name), err)
			}
			check.Annotations = notes
		}
		if jobs[c.ID] || c.App == actionsApp {
			check.Log = s.jobLog(ctx, c)
		}
		checks = append(checks, check)
	}
	return checks, nil
}

// output joins a check run's title, summary and text.
func output(c CheckRun) string {
	var parts []string
	for _, p := range []string{c.Title, c.Summary, c.Text} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n\n")
}

// jobLog returns the failing steps of a GitHub Actions job's log, trimmed
// and redacted by cilog. A log that cannot be read (it expired, or the
// token may not read Actions) leaves the check with its output alone.
func (s *roundRun) jobLog(ctx context.Context, c CheckRun) string {
	log, err := s.gh.JobLog(ctx, c.ID)
	if err != nil {
		s.log.Warn("read a job's log", "check", c.Name, "job", c.ID, "err", err)
		return ""
	}
	return cilog.Excerpt(log, round.MaxLogBytes)
}

// ciRoundsOff is the skip text when ci_rounds, or the operator, allows no
// CI round.
func ciRoundsOff(cfg repoconfig.Config, capped bool) string {
	if capped {
		return "CI rounds are off on this Capsule (its operator allows none), so its failing checks are yours to fix."
	}
	return fmt.Sprintf("CI rounds are off for this repository (ci_rounds: 0 in %s), so its failing checks are yours to fix.", configName(cfg))
}

// ciRoundsUsedUp is the skip text when the pull request had its CI
// rounds.
func ciRoundsUsedUp(done, limit int, capped bool) string {
	why := "ci_rounds allows"
	if capped {
		why = "the operator of this Capsule allows"
	}
	return fmt.Sprintf("Capsule has made %d CI rounds on this pull request, the most %s (%d), so its failing checks are yours to fix. "+
		"A comment starting with `/capsule` still asks Capsule for a round.", done, why, limit)
}

// notCapsules is the skip text when the checks that failed also fail on
// the default branch. A name that several checks share is said once, and
// the names are sorted, so the same failures give the same text.
func notCapsules(names []string) string {
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	quoted := make([]string, 0, len(names))
	for _, n := range names[:min(len(names), round.MaxChecks)] {
		quoted = append(quoted, strconv.Quote(oneLine(cilog.Redact(n))))
	}
	if more := len(names) - len(quoted); more > 0 {
		quoted = append(quoted, fmt.Sprintf("%d more", more))
	}
	return fmt.Sprintf("The failing checks (%s) fail on the default branch's head too, so the failure is not Capsule's: "+
		"Capsule makes no CI round for it.", strings.Join(quoted, ", "))
}

// configName names the file the configuration came from.
func configName(cfg repoconfig.Config) string {
	if cfg.Source == "" {
		return repoconfig.Path
	}
	return cfg.Source
}

// short is a commit's short SHA.
func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
