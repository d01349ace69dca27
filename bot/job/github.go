package job

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/bot/report"
)

// githubError wraps a failed API call, naming what was being done.
func githubError(doing string, err error) error {
	if isNotFound(err) {
		return fmt.Errorf("%s: %w (GitHub answered 404: the installation may lack access)", doing, ErrNotFound)
	}
	return fmt.Errorf("%s: %w", doing, err)
}

func isNotFound(err error) bool {
	var e *github.ErrorResponse
	return errors.As(err, &e) && e.Response != nil && e.Response.StatusCode == http.StatusNotFound
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

// permissionOf reads the sender's role on the repository. GitHub's
// role_name tells triage and maintain apart, which permission does not;
// go-github does not decode it, so the request is made here.
func permissionOf(ctx context.Context, gh *github.Client, t Target) (string, error) {
	u := fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", url.PathEscape(t.Owner), url.PathEscape(t.Repo), url.PathEscape(t.Sender))
	req, err := gh.NewRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	var level struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	resp, err := gh.Do(req, &level)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return "none", nil
	}
	if err != nil {
		return "", githubError("read "+t.Sender+"'s permission", err)
	}
	if rank(level.RoleName) > 0 {
		return level.RoleName, nil
	}
	return level.Permission, nil
}

// findStatusComment returns the id of the newest comment that carries
// the status marker, or 0.
func findStatusComment(ctx context.Context, gh *github.Client, t Target) (int64, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var found int64
	for {
		comments, resp, err := gh.Issues.ListComments(ctx, t.Owner, t.Repo, t.Issue, opts)
		if err != nil {
			return 0, githubError("list the issue's comments", err)
		}
		for _, c := range comments {
			if strings.HasPrefix(c.GetBody(), report.Marker) {
				found = c.GetID()
			}
		}
		if resp.NextPage == 0 {
			return found, nil
		}
		opts.Page = resp.NextPage
	}
}

// setLabels adds add to the issue and removes each of remove it carries.
func (s *session) setLabels(ctx context.Context, add string, remove ...string) error {
	if err := addLabels(ctx, s.gh, s.t, add); err != nil {
		return githubError("label the issue "+add, err)
	}
	for _, l := range remove {
		if _, err := s.gh.Issues.RemoveLabelForIssue(ctx, s.t.Owner, s.t.Repo, s.t.Issue, l); err != nil && !isNotFound(err) {
			return githubError("remove the label "+l, err)
		}
	}
	return nil
}

// addLabels adds labels to the issue. go-github sends a bare array,
// which GitHub still takes but its API description no longer allows;
// this sends the object form GitHub recommends.
func addLabels(ctx context.Context, gh *github.Client, t Target, labels ...string) error {
	u := fmt.Sprintf("repos/%s/%s/issues/%d/labels", url.PathEscape(t.Owner), url.PathEscape(t.Repo), t.Issue)
	req, err := gh.NewRequest(ctx, http.MethodPost, u, map[string][]string{"labels": labels})
	if err != nil {
		return err
	}
	_, err = gh.Do(req, nil)
	return err
}

// NoteBusy adds to the issue's status comment that a trigger arrived
// while a job was already active; the active job keeps the note.
func NoteBusy(ctx context.Context, gh *github.Client, t Target) error {
	id, err := findStatusComment(ctx, gh, t)
	if err != nil || id == 0 {
		return err
	}
	c, _, err := gh.Issues.GetComment(ctx, t.Owner, t.Repo, id)
	if err != nil {
		return githubError("read the status comment", err)
	}
	body, changed := report.AddBusy(c.GetBody())
	if !changed {
		return nil
	}
	if _, _, err := gh.Issues.EditComment(ctx, t.Owner, t.Repo, id, &github.IssueComment{Body: &body}); err != nil {
		return githubError("edit the status comment", err)
	}
	return nil
}
