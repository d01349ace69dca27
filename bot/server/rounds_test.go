package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/testsupport/webhooktest"
)

// repoID is the id the round payloads give the test repository, and its
// pull requests' head and base repositories.
const repoID = 1296269

// onRepo points a payload at the test repository, sent by sender through
// the test installation.
func onRepo(m map[string]any, sender string) {
	r := webhooktest.Object(m, "repository")
	r["id"], r["name"], r["full_name"] = repoID, name, owner+"/"+name
	webhooktest.Object(m, "repository", "owner")["login"] = owner
	s := webhooktest.Object(m, "sender")
	s["login"], s["type"] = sender, "User"
	if strings.HasSuffix(sender, "[bot]") {
		s["type"] = "Bot"
	}
	webhooktest.Object(m, "installation")["id"] = installation
}

// prRef is a pull request as a payload names it.
type prRef struct {
	number int
	branch string // its head branch
	head   string // its head commit
}

// capsulePR is the pull request from Capsule's branch of the test issue.
func capsulePR(number int, head string) prRef {
	return prRef{number: number, branch: work.Branch(issueNumber), head: head}
}

// set writes the pull request into p, a payload's pull request object,
// head and base in the test repository.
func (pr prRef) set(p map[string]any) {
	p["number"] = pr.number
	h := webhooktest.Object(p, "head")
	h["ref"], h["sha"] = pr.branch, pr.head
	for _, end := range []string{"head", "base"} {
		r := webhooktest.Object(p, end, "repo")
		r["id"], r["name"], r["full_name"] = repoID, name, owner+"/"+name
	}
}

// reviewPayload is a pull_request_review "submitted" delivery of review
// id on pr by sender.
func reviewPayload(t testing.TB, pr prRef, sender string, id int64, state, body string) []byte {
	return webhooktest.Payload(t, "pull_request_review__submitted.payload.json", func(m map[string]any) {
		onRepo(m, sender)
		pr.set(webhooktest.Object(m, "pull_request"))
		r := webhooktest.Object(m, "review")
		r["id"], r["state"], r["body"], r["commit_id"] = id, state, body, pr.head
		webhooktest.Object(r, "user")["login"] = sender
	})
}

// reviewCommentPayload is a pull_request_review_comment "created"
// delivery of comment id, of review review, on pr by sender.
func reviewCommentPayload(t testing.TB, pr prRef, sender string, review, id int64, body string) []byte {
	return webhooktest.Payload(t, "pull_request_review_comment__created.payload.json", func(m map[string]any) {
		onRepo(m, sender)
		pr.set(webhooktest.Object(m, "pull_request"))
		c := webhooktest.Object(m, "comment")
		c["id"], c["pull_request_review_id"], c["body"], c["commit_id"] = id, review, body, pr.head
		webhooktest.Object(c, "user")["login"] = sender
	})
}

// commandPayload is an issue_comment "created" delivery of comment id on
// pull request number by sender.
func commandPayload(t testing.TB, number int, sender string, id int64, body string) []byte {
	return webhooktest.Payload(t, "issue_comment__created.payload.json", func(m map[string]any) {
		webhooktest.Retarget(m, owner, name, number, sender, installation)
		onRepo(m, sender)
		webhooktest.Object(m, "issue")["pull_request"] = map[string]any{
			"url": fmt.Sprintf("https://api.github.com/repos/%s/%s/pulls/%d", owner, name, number),
		}
		c := webhooktest.Object(m, "comment")
		c["id"], c["body"] = id, body
		webhooktest.Object(c, "user")["login"] = sender
	})
}

// workflowRunPayload is a workflow_run "completed" delivery of run id on
// commit head, concluded conclusion, whose pull request is pr. Capsule's
// pushes cause the runs on its branch, so the sender is its bot.
func workflowRunPayload(t testing.TB, pr prRef, id int64, head, conclusion string) []byte {
	return webhooktest.Payload(t, "workflow_run__completed.with-pull-requests.payload.json", func(m map[string]any) {
		onRepo(m, "capsule[bot]")
		run := webhooktest.Object(m, "workflow_run")
		run["id"], run["head_sha"], run["head_branch"], run["conclusion"] = id, head, pr.branch, conclusion
		p := map[string]any{}
		pr.set(p)
		run["pull_requests"] = []any{p}
		for _, k := range []string{"repository", "head_repository"} {
			r := webhooktest.Object(run, k)
			r["id"], r["name"], r["full_name"] = repoID, name, owner+"/"+name
		}
	})
}

// recordPullRequest stores what a job that opened pull request number for
// issue issue would: a job done with that pull request at commit head.
func recordPullRequest(t *testing.T, st *store.Store, delivery string, issue, number int, head string) {
	t.Helper()
	ctx := context.Background()
	j, _, err := st.Enqueue(ctx, work.Request{Delivery: delivery, Event: "issues", Trigger: work.TriggerLabel,
		Installation: installation, Owner: owner, Repo: name, Issue: issue, Sender: maintainer, Label: "capsule"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.Claim(ctx, "recorder", time.Minute); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if err := st.Finish(ctx, j.ID, "recorder", store.End{State: work.Done, PullRequest: number, HeadSHA: head}); err != nil {
		t.Fatal(err)
	}
}

// TestAcceptRounds sends rounds' deliveries to a server whose store
// recorded that Capsule opened pull request #30 for the test issue, at
// commit "capsule-head": only rounds on that pull request, and CI rounds
// on that commit, are queued, for the test issue.
func TestAcceptRounds(t *testing.T) {
	ours := capsulePR(30, "capsule-head")
	impostor := prRef{number: 31, branch: work.Branch(issueNumber), head: "impostor-head"}
	tests := []struct {
		name, event string
		body        func(t *testing.T) []byte
		round       string // the queued round; empty for an ignored delivery
		reason      string // a part of the reason it is ignored
	}{
		{"review", "pull_request_review",
			func(t *testing.T) []byte { return reviewPayload(t, ours, maintainer, 501, "commented", "") },
			"review:501", ""},
		{"review comment", "pull_request_review_comment",
			func(t *testing.T) []byte { return reviewCommentPayload(t, ours, maintainer, 501, 601, "Use a loop.") },
			"review:501", ""},
		{"command", "issue_comment",
			func(t *testing.T) []byte {
				return commandPayload(t, 30, maintainer, 701, "/capsule also handle negatives")
			},
			"comment:701", ""},
		{"failing run on Capsule's commit", "workflow_run",
			func(t *testing.T) []byte { return workflowRunPayload(t, ours, 801, "capsule-head", "failure") },
			"run:801", ""},
		{"review of another pull request from the branch", "pull_request_review",
			func(t *testing.T) []byte { return reviewPayload(t, impostor, maintainer, 502, "commented", "") },
			"", "#31 is not one Capsule opened"},
		{"review of another issue's branch", "pull_request_review",
			func(t *testing.T) []byte {
				return reviewPayload(t, prRef{number: 30, branch: work.Branch(issueNumber + 1), head: "x"}, maintainer, 503, "commented", "")
			},
			"", "#30 is not one Capsule opened"},
		{"command on another pull request", "issue_comment",
			func(t *testing.T) []byte { return commandPayload(t, 31, maintainer, 702, "/capsule retry") },
			"", "#31 is not one Capsule opened"},
		{"failing run after a human pushed", "workflow_run",
			func(t *testing.T) []byte {
				return workflowRunPayload(t, capsulePR(30, "human-head"), 802, "human-head", "failure")
			},
			"", "a human pushed"},
		{"failing run of another pull request", "workflow_run",
			func(t *testing.T) []byte { return workflowRunPayload(t, impostor, 803, "capsule-head", "failure") },
			"", "#31 is not one Capsule opened"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, st, srv := newBareServer(t, noClients{}, nil)
			recordPullRequest(t, st, "opened", issueNumber, 30, "capsule-head")
			resp, err := http.DefaultClient.Do(webhooktest.Request(t, srv.URL+"/webhook", tt.event, "d-"+tt.name, tt.body(t), secret))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var answer struct{ Status, Reason string }
			if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || resp.StatusCode != http.StatusAccepted {
				t.Fatalf("answer %s %+v %v", resp.Status, answer, err)
			}
			jobs, err := st.List(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if tt.round == "" {
				if answer.Status != "ignored" || !strings.Contains(answer.Reason, tt.reason) || len(jobs) != 1 {
					t.Fatalf("answer %+v with %d jobs, want ignored %q and no job", answer, len(jobs), tt.reason)
				}
				return
			}
			if answer.Status != "queued" || len(jobs) != 2 {
				t.Fatalf("answer %+v with %d jobs, want queued", answer, len(jobs))
			}
			if j := jobs[0]; j.Issue != issueNumber || j.PullRequest != 30 || j.Round != tt.round || j.State != work.Queued {
				t.Errorf("queued %+v", j)
			}
		})
	}
}
