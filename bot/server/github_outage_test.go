package server

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/webhooktest"
)

// askingSolver is the loop without the sandbox: it asks the model once,
// as an attempt would, calls after, and returns the calculator's fix.
// The fake model's requests count the job's model work.
type askingSolver struct {
	model *programmer.Client
	after func()
}

func (a *askingSolver) Solve(ctx context.Context, t repo.Task) (*repo.Outcome, error) {
	if _, err := a.model.Complete(ctx, []chat.Message{{Role: chat.User, Content: t.Title}}); err != nil {
		return nil, err
	}
	a.after()
	return solved(t), nil
}

// fixes is the model of these tests: every answer is the fix.
func fixes(int, openai.ChatCompletionRequest) fakeopenai.Response {
	return fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats))
}

// readyz returns /readyz's status and body.
func (w *world) readyz() (int, string) { return w.get("/readyz") }

// wantOnePullRequest checks that the world's jobs ended with one done job
// of one claim and one pull request, after one model call.
func (w *world) wantOnePullRequest(jobs []store.Job) {
	w.t.Helper()
	var done []store.Job
	for _, j := range jobs {
		if j.State == work.Done {
			done = append(done, j)
		}
	}
	if len(done) != 1 || done[0].Claims != 1 || done[0].PullRequest == 0 {
		w.t.Errorf("jobs = %+v, want one done after one claim, with its pull request", jobs)
	}
	if n := len(w.repo.PullRequests()); n != 1 {
		w.t.Errorf("%d pull requests, want 1", n)
	}
	if n := len(w.model.Requests()); n != 1 {
		w.t.Errorf("the model saw %d requests, want one job's one", n)
	}
	if !slices.Contains(w.repo.Labels(issueNumber), job.LabelDone) {
		w.t.Errorf("labels %v, want %s", w.repo.Labels(issueNumber), job.LabelDone)
	}
}

// TestTwoLabelsOneJob: an issue opened with the labels bug and capsule
// gets two deliveries, in either order, the second while the first's job
// runs (it is held reading the repository's configuration). The second
// waits for the first instead of being folded into it: the capsule
// label's job opens one pull request, the bug label's is skipped.
func TestTwoLabelsOneJob(t *testing.T) {
	for _, order := range [][2]string{{"bug", "capsule"}, {"capsule", "bug"}} {
		t.Run(order[0]+" first", func(t *testing.T) {
			w := newWorld(t, fixes, worldOptions{asking: func() {}})
			reached, release := w.gh.Stall("GET", "/repos/"+owner+"/"+name+"/contents/**")
			t.Cleanup(release)
			w.start()
			if code, answer := w.send("issues", "", w.labelled(maintainer, order[0]), secret); code != http.StatusAccepted {
				t.Fatalf("first delivery: %d %s", code, answer)
			}
			select {
			case <-reached:
			case <-time.After(time.Minute):
				t.Fatal("the first job never read the configuration")
			}
			if code, answer := w.send("issues", "", w.labelled(maintainer, order[1]), secret); code != http.StatusAccepted {
				t.Fatalf("second delivery: %d %s", code, answer)
			}
			release()
			jobs := w.wait()
			states := map[string]work.State{}
			for _, j := range jobs {
				states[j.Label] = j.State
			}
			if len(jobs) != 2 || states["capsule"] != work.Done || states["bug"] != work.Skipped {
				t.Errorf("jobs = %+v, want the capsule label's done and the bug label's skipped", jobs)
			}
			w.wantOnePullRequest(jobs)
		})
	}
}

// TestDeliveryWithoutInstallation: a label delivery that names no
// installation is refused with a 4xx, and nothing is stored or done.
func TestDeliveryWithoutInstallation(t *testing.T) {
	w := newWorld(t, fixes, worldOptions{asking: func() {}})
	w.start()
	body := webhooktest.Payload(t, "issues__labeled.payload.json", func(m map[string]any) {
		webhooktest.Retarget(m, owner, name, issueNumber, maintainer, installation)
		webhooktest.Object(m, "label")["name"] = "capsule"
		delete(m, "installation")
	})
	code, answer := w.send("issues", "", body, secret)
	if code < 400 || code >= 500 || !strings.Contains(answer, "installation") {
		t.Errorf("answer %d %s, want a 4xx naming the missing installation", code, answer)
	}
	if jobs := w.wait(); len(jobs) != 0 {
		t.Errorf("jobs = %+v, want none", jobs)
	}
	if n := len(w.repo.Comments(issueNumber)); n != 0 {
		t.Errorf("%d comments on the issue, want none", n)
	}
}

// outage is how long GitHub stays down in TestGitHubOutageMidJob: many of
// the server's checks (every 100ms there) long.
const outage = 2 * time.Second

// TestGitHubOutageMidJob: GitHub stops answering while a job runs, just
// after its model work (with 502s from its front end, or with no answer
// at all), or before the job starts (its installation's token cannot be
// minted), for a while (outage). The job goes back to the queue without
// spending its claim, /readyz stays 200 and says GitHub is unreachable,
// and so do the metrics; once GitHub is back the job publishes what it
// kept (or runs): one pull request, one claim, one model call.
func TestGitHubOutageMidJob(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int  // the fake's outage: a 502, or 0 for no answer
		before bool // GitHub goes down before the delivery, not after the model
	}{{"502", http.StatusBadGateway, false}, {"no answer", 0, false}, {"no answer from the start", 0, true}} {
		t.Run(tt.name, func(t *testing.T) {
			var (
				gh     *fakegithub.Server
				downAt = make(chan time.Time, 1)
			)
			down := func() {
				gh.Down(tt.status)
				downAt <- time.Now()
			}
			asking := down
			if tt.before {
				asking = func() {}
			}
			w := newWorld(t, fixes, worldOptions{checkEvery: 100 * time.Millisecond, asking: asking})
			gh = w.gh
			w.start()
			if tt.before {
				down()
			}
			w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
			waitUntil(t, "/readyz to say GitHub is unreachable", func() bool {
				code, body := w.readyz()
				return code == http.StatusOK && strings.Contains(body, "github: unreachable since")
			})
			if m := w.metric("capsule_github_reachable"); m != "capsule_github_reachable 0" {
				t.Errorf("metric %q, want capsule_github_reachable 0", m)
			}
			waitUntil(t, "the job to wait in the queue", func() bool {
				jobs, err := w.store.List(context.Background(), 10)
				return err == nil && len(jobs) == 1 && jobs[0].State == work.Queued && jobs[0].Claims == 0
			})
			if n := len(w.model.Requests()); tt.before && n != 0 {
				t.Errorf("the model saw %d requests before GitHub answered", n)
			}
			// GitHub stays down for a while: many checks fail, and the
			// job waits on, holding no worker and spending no claim.
			for since := <-downAt; time.Since(since) < outage; time.Sleep(50 * time.Millisecond) {
				jobs, err := w.store.List(context.Background(), 10)
				if err != nil || len(jobs) != 1 || jobs[0].State != work.Queued || jobs[0].Claims != 0 {
					t.Fatalf("jobs while GitHub is down = %+v, %v; want one waiting in the queue", jobs, err)
				}
			}
			if n := len(w.repo.PullRequests()); n != 0 {
				t.Fatalf("%d pull requests while GitHub is down", n)
			}
			if code, body := w.readyz(); code != http.StatusOK || !strings.Contains(body, "github: unreachable since") {
				t.Errorf("/readyz during the outage: %d %q", code, body)
			}

			gh.Up()
			jobs := w.wait()
			w.wantOnePullRequest(jobs)
			if code, body := w.readyz(); code != http.StatusOK || strings.Contains(body, "github") {
				t.Errorf("/readyz after the outage: %d %q", code, body)
			}
			if m := w.metric("capsule_github_reachable"); m != "capsule_github_reachable 1" {
				t.Errorf("metric %q after the outage, want capsule_github_reachable 1", m)
			}
		})
	}
}

// TestLostAnswers: GitHub makes the branch or opens the pull request and
// its answer is lost: a 502 the client retries (GitHub then refuses the
// second branch or pull request, and the job looks again), or a 500 it
// does not retry (the job looks again at once; or, when GitHub then
// fails that look too, waits for GitHub, and its next run finds what the
// first made). Every way the job ends with one pull request, after one
// model call.
func TestLostAnswers(t *testing.T) {
	repo := "/repos/" + owner + "/" + name
	for _, tt := range []struct {
		name, path string
		status     int
		then       *fakegithub.Fault // a fault after the lost answer's
	}{
		{"pull request, 502", repo + "/pulls", http.StatusBadGateway, nil},
		{"pull request, 500", repo + "/pulls", http.StatusInternalServerError, nil},
		{"pull request, 500, then GitHub down", repo + "/pulls", http.StatusInternalServerError,
			&fakegithub.Fault{Method: "GET", Path: repo + "/pulls", Times: 6, Status: http.StatusBadGateway}},
		{"branch, 502", repo + "/git/refs", http.StatusBadGateway, nil},
		{"branch, 500", repo + "/git/refs", http.StatusInternalServerError, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, fixes, worldOptions{checkEvery: 100 * time.Millisecond, asking: func() {}})
			w.gh.Inject(fakegithub.Fault{Method: "POST", Path: tt.path, Times: 1, Status: tt.status, AfterWrite: true})
			if tt.then != nil {
				// Armed while the write is in flight: the job's look for
				// an open pull request before it makes one must not meet
				// it.
				reached, release := w.gh.Stall("POST", tt.path)
				t.Cleanup(release)
				go func() {
					<-reached
					w.gh.Inject(*tt.then)
					release()
				}()
			}
			w.start()
			w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
			w.wantOnePullRequest(w.wait())
		})
	}
}

// TestRateLimitPastItsWait: the installation's rate limit stops a job
// until a reset later than the client waits for. The job waits in the
// queue for that reset, spending no claim, while GitHub is not said to
// be down (the limit is the installation's); then it opens its one pull
// request, after one model call.
func TestRateLimitPastItsWait(t *testing.T) {
	w := newWorld(t, fixes, worldOptions{checkEvery: 100 * time.Millisecond, githubMaxWait: 500 * time.Millisecond, asking: func() {}})
	reset := time.Now().Add(3 * time.Second)
	w.gh.Inject(fakegithub.Fault{Method: "POST", Path: "/repos/" + owner + "/" + name + "/pulls", Times: 1, Status: http.StatusForbidden,
		Header: http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {strconv.FormatInt(reset.Unix(), 10)}}})
	w.start()
	w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
	waitUntil(t, "the job to wait for the reset", func() bool {
		jobs, err := w.store.List(context.Background(), 10)
		return err == nil && len(jobs) == 1 && jobs[0].State == work.Queued && !jobs[0].NotBefore.IsZero()
	})
	if code, body := w.readyz(); code != http.StatusOK || strings.Contains(body, "github") {
		t.Errorf("/readyz while one installation is rate limited: %d %q, want GitHub not said down", code, body)
	}
	jobs := w.wait()
	w.wantOnePullRequest(jobs)
	if len(jobs) == 1 && jobs[0].UpdatedAt.Before(reset) {
		t.Errorf("the job ended at %v, before the reset at %v", jobs[0].UpdatedAt, reset)
	}
}
