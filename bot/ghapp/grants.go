package ghapp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/go-github/v88/github"
)

// What a missing permission or event stops, from the whole App down to
// one kind of round.
const (
	ForIssues   = "issues"        // labelled issues and everything after
	ForCommands = "commands"      // /capsule retry on issues, /capsule on pull requests
	ForReviews  = "review rounds" // reviews and review comments on Capsule's pull requests
	ForCI       = "CI rounds"     // failing checks on Capsule's pull requests
)

// Need is a repository permission or a webhook event Capsule uses, with
// what does not work without it.
type Need struct {
	Permission string // a repository permission such as "checks", or ""
	Level      string // the least level of Permission: "read" or "write"
	Event      string // a webhook event such as "workflow_run", or ""
	For        string // ForIssues, ForCommands, ForReviews or ForCI
}

// String names the need as GitHub's settings do: "checks read" or "the
// workflow_run event".
func (n Need) String() string {
	if n.Event != "" {
		return n.Event + " events"
	}
	return n.Permission + " " + n.Level
}

// Needs lists what the App must be granted, in the order docs/app-operations.md's
// set-up gives it.
var Needs = []Need{
	{Permission: "contents", Level: "write", For: ForIssues},
	{Permission: "issues", Level: "write", For: ForIssues},
	{Permission: "pull_requests", Level: "write", For: ForIssues},
	{Permission: "metadata", Level: "read", For: ForIssues},
	{Permission: "checks", Level: "read", For: ForCI},
	{Permission: "actions", Level: "read", For: ForCI},
	{Event: "issues", For: ForIssues},
	{Event: "issue_comment", For: ForCommands},
	{Event: "pull_request_review", For: ForReviews},
	{Event: "pull_request_review_comment", For: ForReviews},
	{Event: "check_suite", For: ForCI},
	{Event: "workflow_run", For: ForCI},
}

// Grants are the permissions and webhook events the App asks for, or
// that one of its installations holds (what its owner accepted).
type Grants struct {
	Permissions map[string]string // permission: "read", "write" or "admin"
	Events      []string
}

// GrantsOf reads the permissions and events of an App or installation as
// go-github gives them.
func GrantsOf(p *github.InstallationPermissions, events []string) (Grants, error) {
	g := Grants{Permissions: map[string]string{}, Events: events}
	if p == nil {
		return g, nil
	}
	data, err := json.Marshal(p)
	if err != nil {
		return g, fmt.Errorf("ghapp: read permissions: %w", err)
	}
	if err := json.Unmarshal(data, &g.Permissions); err != nil {
		return g, fmt.Errorf("ghapp: read permissions: %w", err)
	}
	return g, nil
}

// levels ranks permission levels; an absent permission ranks 0.
var levels = map[string]int{"read": 1, "write": 2, "admin": 3}

// Missing returns the Needs that g does not meet, in the order of Needs.
func (g Grants) Missing() []Need {
	var missing []Need
	for _, n := range Needs {
		met := slices.Contains(g.Events, n.Event)
		if n.Event == "" {
			met = levels[g.Permissions[n.Permission]] >= levels[n.Level]
		}
		if !met {
			missing = append(missing, n)
		}
	}
	return missing
}

// Installation is one installation of the App.
type Installation struct {
	ID        int64
	Account   string // the user or organisation it is installed on
	URL       string // its settings page, where its owner accepts new permissions
	Suspended bool   // a suspended installation gets no events and no tokens
	Grants           // what its owner accepted
}

// Installations lists every installation of the App, with the permissions
// and events each holds (GET /app/installations, all pages).
func (a *Apps) Installations(ctx context.Context) ([]Installation, error) {
	var all []Installation
	opts := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := a.app.Apps.ListInstallations(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("ghapp: list the App's installations: %w", err)
		}
		for _, in := range page {
			g, err := GrantsOf(in.Permissions, in.Events)
			if err != nil {
				return nil, fmt.Errorf("ghapp: installation %d: %w", in.GetID(), err)
			}
			all = append(all, Installation{ID: in.GetID(), Account: in.GetAccount().GetLogin(), URL: in.GetHTMLURL(),
				Suspended: in.SuspendedAt != nil, Grants: g})
		}
		if resp.NextPage == 0 {
			return all, nil
		}
		opts.Page = resp.NextPage
	}
}
