package job

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/work"
)

// githubError wraps a failed call to GitHub, naming what was being done.
func githubError(doing string, err error) error {
	return fmt.Errorf("%s: %w", doing, err)
}

// permissions in increasing order of rights, as GitHub names the roles.
var permissions = []string{"none", "read", "triage", "write", "maintain", "admin"}

// rank orders permissions; an unknown name ranks lowest.
func rank(p string) int {
	for i, name := range permissions {
		if strings.EqualFold(p, name) {
			return i
		}
	}
	return 0
}

// ValidPermission reports whether p names a permission level.
func ValidPermission(p string) bool {
	for _, name := range permissions[1:] {
		if p == name {
			return true
		}
	}
	return false
}

// permissionOf reads the sender's role on the repository; none for
// someone who is not a collaborator.
func permissionOf(ctx context.Context, gh GitHub, t work.Request) (string, error) {
	have, err := gh.Permission(ctx, t.Sender)
	if errors.Is(err, ErrNotFound) {
		return "none", nil
	}
	if err != nil {
		return "", githubError("read "+t.Sender+"'s permission", err)
	}
	return have, nil
}

// statusThread is the issue or pull request that holds t's status
// comment: a round's is on the pull request.
func statusThread(t work.Request) int {
	if t.Trigger.Round() {
		return t.PullRequest
	}
	return t.Issue
}

// findStatusComment returns the newest comment that carries the status
// marker (and for a round, the round's marker); its ID is 0 when there is
// none.
func findStatusComment(ctx context.Context, gh GitHub, t work.Request) (Comment, error) {
	comments, err := gh.Comments(ctx, statusThread(t))
	if err != nil {
		return Comment{}, githubError("list the comments of #"+strconv.Itoa(statusThread(t)), err)
	}
	prefix := report.Marker
	if t.Trigger.Round() {
		prefix += "\n" + report.RoundMarker(t.Round) + "\n"
	}
	var found Comment
	for _, c := range comments {
		if strings.HasPrefix(c.Body, prefix) {
			found = c
		}
	}
	return found, nil
}

// setLabels adds add to the issue and removes each of remove it carries.
func (s *session) setLabels(ctx context.Context, add string, remove ...string) error {
	if err := s.gh.AddLabels(ctx, s.t.Issue, add); err != nil {
		return githubError("label the issue "+add, err)
	}
	for _, l := range remove {
		if err := s.gh.RemoveLabel(ctx, s.t.Issue, l); err != nil && !errors.Is(err, ErrNotFound) {
			return githubError("remove the label "+l, err)
		}
	}
	return nil
}

// NoteBusy adds to the issue's status comment that a trigger arrived
// while a job was already active; the active job keeps the note.
func NoteBusy(ctx context.Context, gh GitHub, t work.Request) error {
	c, err := findStatusComment(ctx, gh, t)
	if err != nil || c.ID == 0 {
		return err
	}
	body, changed := report.AddBusy(c.Body)
	if !changed {
		return nil
	}
	if err := gh.EditComment(ctx, c.ID, body); err != nil {
		return githubError("edit the status comment", err)
	}
	return nil
}
