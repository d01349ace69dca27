package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/capsulehq/capsule/bot/ghapp"
	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/budget"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
	"github.com/capsulehq/capsule/testsupport/webhooktest"
)

// The test world: one App installation on one repository.
const (
	appID        = 4242
	installation = 77
	owner, name  = "octo-org", "calculator"
	issueNumber  = 12
	maintainer   = "alice"
)

var secret = []byte("a webhook secret")

// world is a server wired to a fake GitHub, a scripted model and the real
// Docker engine.
type world struct {
	t      *testing.T
	gh     *fakegithub.Server
	repo   *fakegithub.Repo
	model  *fakeopenai.Server
	store  *store.Store
	server *Server
	http   *httptest.Server
	stop   context.CancelFunc
	done   chan struct{}
	next   atomic.Int64 // delivery counter
	keyPEM []byte       // the App's private key
}

type worldOptions struct {
	config  string                   // replaces .github/capsule.yml when set
	files   map[string]string        // replace the example's files
	prepare func(*fakegithub.Server) // runs before the server starts
	grace   time.Duration            // the shutdown's grace; 0 for the default
	// noModelRetries makes the model client give up at the first failure.
	noModelRetries bool
	checkEvery     time.Duration // 0 for the default
	// githubMaxWait is the longest rate-limit wait the GitHub client
	// sits out; 0 for the default.
	githubMaxWait time.Duration
	modelWait     time.Duration // 0 for the default
	// solver, when set, replaces the sandboxed solver (and the Docker
	// engine it needs) with a fake.
	solver job.Solver
	// asking, when set with no solver, makes the solver one that asks the
	// world's model once per run, calls asking, then solves the issue,
	// without Docker (see askingSolver).
	asking  func()
	workers int // 0 for one
	// dayBudget is each installation's budget for the day.
	dayBudget budget.Limits
}

// newWorld makes the test world with its server, whose workers start
// with start.
func newWorld(t *testing.T, script fakeopenai.Script, o worldOptions) *world {
	t.Helper()
	w := newFakes(t, script, o)
	w.server, w.store = newServer(t, w.endpoints(filepath.Join(t.TempDir(), "capsule.db")), o, quietLogger())
	w.http = httptest.NewServer(w.server.Handler())
	t.Cleanup(w.http.Close)
	return w
}

// newFakes makes the test world without its server: the fake GitHub
// with the example repository, its issue and the App's installation, and
// the scripted model.
func newFakes(t *testing.T, script fakeopenai.Script, o worldOptions) *world {
	t.Helper()
	key, keyPEM := fakegithub.NewAppKey(t)
	w := &world{t: t}
	w.gh = fakegithub.New(t, fakegithub.WithApp(appID, &key.PublicKey), fakegithub.WithPrefix("/api/v3"))
	files := calculatortest.Files(t)
	if o.config != "" {
		files[".github/capsule.yml"] = o.config
	}
	maps.Copy(files, o.files)
	w.repo = w.gh.AddRepo(owner, name, files)
	w.repo.AddIssue(issueNumber, maintainer, calculatortest.IssueTitle, calculatortest.IssueBody)
	w.gh.AddInstallation(installation, owner+"/"+name)
	w.gh.SetPermission(owner, name, maintainer, "maintain")
	w.gh.SetPermission(owner, name, "reader", "triage")
	if o.prepare != nil {
		o.prepare(w.gh)
	}

	w.model = fakeopenai.New(t, script)
	w.keyPEM = keyPEM
	return w
}

// endpoints are the world's fakes for a server whose store is the file
// at path.
func (w *world) endpoints(path string) endpoints {
	return endpoints{GitHub: w.gh.URL(), Model: w.model.URL(), Key: w.keyPEM, Store: path}
}

// endpoints are what a server of the test world reaches: the fake GitHub
// and model by URL, so that it may run in another process (see
// TestServerProcess), the App's key and the store's file, or instead the
// PostgreSQL database (a replica) with the lease its jobs are claimed for.
type endpoints struct {
	GitHub, Model string
	Key           []byte
	Store         string
	Database      string
	Lease         time.Duration
}

// newServer assembles a server of the test world reaching e, with one
// worker, and opens its store, which is closed when the test ends.
func newServer(t testing.TB, e endpoints, o worldOptions, logger *slog.Logger) (*Server, *store.Store) {
	t.Helper()
	st, err := store.Open(e.Store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newServerOn(t, st, e, o, logger), st
}

// newServerOn assembles a server of the test world on st reaching e.
func newServerOn(t testing.TB, st store.Queue, e endpoints, o worldOptions, logger *slog.Logger) *Server {
	t.Helper()
	retries := 0
	if o.noModelRetries {
		retries = -1
	}
	client, err := programmer.New(programmer.Config{BaseURL: e.Model, Model: "test-model", APIKey: "k", RequestTimeout: time.Minute, MaxRetries: retries})
	if err != nil {
		t.Fatal(err)
	}
	apps, err := ghapp.New(ghapp.Config{AppID: appID, PrivateKey: e.Key, BaseURL: e.GitHub, Retry: ghapp.RetryPolicy{BaseDelay: 10 * time.Millisecond, MaxWait: o.githubMaxWait}, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Store: st, Clients: apps, Secret: secret, Workers: max(o.workers, 1), Lease: e.Lease, Logger: logger, Grace: o.grace,
		CheckEvery: o.checkEvery, ModelWait: o.modelWait, DayBudget: o.dayBudget,
		GitHub: func(ctx context.Context) error { _, err := apps.SignIn(ctx); return err },
	}
	solver := o.solver
	if solver == nil && o.asking != nil {
		solver = &askingSolver{model: client, after: o.asking}
	}
	if solver == nil {
		eng := sandboxtest.Engine(t)
		solver = &repo.Sandboxed{Engine: eng, Model: client, ModelName: "test-model", Overrides: repo.NoOverrides()}
		cfg.Sandboxes = eng
	}
	cfg.Runner = &job.Runner{Solver: solver, Version: "test", Logger: logger}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// start runs the workers until the test ends.
func (w *world) start() {
	ctx, cancel := context.WithCancel(context.Background())
	w.stop, w.done = cancel, make(chan struct{})
	go func() {
		defer close(w.done)
		if err := w.server.Run(ctx); err != nil {
			w.t.Errorf("run: %v", err)
		}
	}()
	w.t.Cleanup(w.shutdown)
}

func (w *world) shutdown() {
	if w.stop != nil {
		w.stop()
		<-w.done
		w.stop = nil
	}
}

// labelled is a signed issues.labeled delivery for the test issue.
func (w *world) labelled(sender, label string) []byte {
	return w.labelledOn(issueNumber, sender, label)
}

// labelledOn is a signed issues.labeled delivery for issue number.
func (w *world) labelledOn(number int, sender, label string) []byte {
	return webhooktest.Payload(w.t, "issues__labeled.payload.json", func(m map[string]any) {
		webhooktest.Retarget(m, owner, name, number, sender, installation)
		webhooktest.Object(m, "label")["name"] = label
	})
}

// retry is a signed /capsule retry comment.
func (w *world) retry(sender string) []byte {
	return webhooktest.Payload(w.t, "issue_comment__created.payload.json", func(m map[string]any) {
		webhooktest.Retarget(m, owner, name, issueNumber, sender, installation)
		delete(webhooktest.Object(m, "issue"), "pull_request")
		webhooktest.Object(m, "comment")["body"] = "/capsule retry"
	})
}

// send posts a delivery and returns the status and the answer.
func (w *world) send(event, delivery string, body []byte, sign []byte) (int, string) {
	w.t.Helper()
	if delivery == "" {
		delivery = fmt.Sprintf("delivery-%d", w.next.Add(1))
	}
	resp, err := http.DefaultClient.Do(webhooktest.Request(w.t, w.http.URL+"/webhook", event, delivery, body, sign))
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// wait polls until every job has ended, failing after a minute.
func (w *world) wait() []store.Job {
	w.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		jobs, err := w.store.List(context.Background(), 100)
		if err != nil {
			w.t.Fatal(err)
		}
		active := false
		for _, j := range jobs {
			active = active || j.State == work.Queued || j.State == work.Running
		}
		if !active {
			return jobs
		}
		time.Sleep(50 * time.Millisecond)
	}
	w.t.Fatal("jobs still active after two minutes")
	return nil
}

// comments returns the bodies of the issue's comments.
func (w *world) comments() []string {
	var out []string
	for _, c := range w.repo.Comments(issueNumber) {
		out = append(out, c.Body)
	}
	return out
}

// metric returns the /metrics line that starts with prefix.
func (w *world) metric(prefix string) string {
	w.t.Helper()
	_, data := w.get("/metrics")
	for _, line := range strings.Split(data, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// get asks the server for path and returns the status and body.
func (w *world) get(path string) (int, string) {
	w.t.Helper()
	resp, err := http.Get(w.http.URL + path)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// gate is a model whose first call waits until the gate opens; every
// call answers with the passing fix.
type gate struct {
	called, release chan struct{}
	calledOnce      sync.Once
	openOnce        sync.Once
}

func newGate() *gate { return &gate{called: make(chan struct{}), release: make(chan struct{})} }

func (g *gate) script(call int, _ openai.ChatCompletionRequest) fakeopenai.Response {
	if call == 0 {
		g.calledOnce.Do(func() { close(g.called) })
		<-g.release
	}
	return fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats))
}

// open lets the waiting call (and any later one) answer; it may be called
// more than once. Register it with t.Cleanup after the world is made, so
// that it runs before the model server closes.
func (g *gate) open() { g.openOnce.Do(func() { close(g.release) }) }

// waitCalled waits for the first call.
func (g *gate) waitCalled(t *testing.T) {
	t.Helper()
	select {
	case <-g.called:
	case <-time.After(time.Minute):
		t.Fatal("the job never called the model")
	}
}
