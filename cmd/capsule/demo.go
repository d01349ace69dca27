package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/examples"
	"github.com/capsulehq/capsule/sandbox/image"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
)

// The demo's world: one repository, the example, with one issue, on which
// the App is installed, and a maintainer who labels the issue.
const (
	demoAppID        = 1
	demoInstallation = 1
	demoOwner        = "octo-org"
	demoRepo         = "calculator"
	demoIssue        = 1
	demoMaintainer   = "alice"
	demoLabel        = "capsule"
	demoModel        = "stand-in-model"
)

// demoTimeout is how long the demo waits for the job by default: two
// sandbox runs of the example's tests take about a minute on a busy
// machine, a cold start of the engine more.
const demoTimeout = 10 * time.Minute

func runDemo(ctx context.Context, env *environment, args []string) int {
	fs := newFlagSet("demo", `Usage: capsule demo [--full] [--timeout D] [--dir DIR]

Shows the App at work with no GitHub App and no model: it runs `+"`capsule serve`"+`
(the real server, queue, sandbox and job) against two stand-ins on this
machine, a fake GitHub holding the example repository examples/calculator
with an issue, and a scripted model. It labels the issue by sending a
signed webhook to the App's /webhook, waits for the job and prints the
pull request it opened. Needs the Docker engine and the sandbox image
(`+"`make test`"+` or `+"`capsule sandbox image`"+` builds it).`)
	timeout := fs.Duration("timeout", demoTimeout, "how long to wait for the job")
	full := fs.Bool("full", false, "print the pull request's whole body, its attempt log too")
	dir := fs.String("dir", "", "directory for the App's job queue and log, kept afterwards (default: a temporary one, removed at the end)")
	if code := parseFlags(fs, env, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(env.stderr, "capsule demo: takes no arguments")
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	d, err := startDemo(env, *dir)
	if err != nil {
		return fail(env, err)
	}
	defer d.close()
	if err := d.run(ctx, *full); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("the job did not end within --timeout %v: %w", *timeout, err)
		}
		code := fail(env, err)
		if d.serveCode != exitOK && d.serveCode != exitCanceled {
			code = d.serveCode // the engine or the image, say, as serve said
		}
		d.keep = true
		fmt.Fprintf(env.stderr, "capsule demo: the App's log, %s, ends:\n%s", d.logPath, logTail(d.logPath, 20))
		return code
	}
	return exitOK
}

// demo is a running demonstration: the stand-ins, and where the App keeps
// its queue and log.
type demo struct {
	env     *environment
	gh      *fakegithub.Server
	repo    *fakegithub.Repo
	model   *fakeopenai.Server
	keyPEM  []byte
	secret  string
	dir     string
	keep    bool // leave dir behind
	logPath string
	// serveCode is capsule serve's exit code, once run has returned.
	serveCode int
}

// startDemo starts the stand-ins: the fake GitHub with the example
// repository, its issue and the App's installation, and the scripted model,
// whose first fix is wrong and second right.
func startDemo(env *environment, dir string) (*demo, error) {
	d := &demo{env: env, dir: dir, keep: dir != ""}
	key, keyPEM, err := fakegithub.GenerateAppKey()
	if err != nil {
		return nil, err
	}
	d.keyPEM = keyPEM
	secret := make([]byte, 16)
	rand.Read(secret)
	d.secret = hex.EncodeToString(secret)
	d.gh, err = fakegithub.Start(fakegithub.WithApp(demoAppID, &key.PublicKey), fakegithub.WithPrefix("/api/v3"),
		fakegithub.WithViolationHandler(func(v fakegithub.Violation) {
			fmt.Fprintf(env.stderr, "capsule demo: the App sent a request GitHub would reject: %v\n", v)
		}))
	if err != nil {
		return nil, fmt.Errorf("start the fake GitHub: %w", err)
	}
	d.repo = d.gh.AddRepo(demoOwner, demoRepo, examples.Calculator())
	d.repo.AddIssue(demoIssue, demoMaintainer, calculatortest.IssueTitle, calculatortest.IssueBody)
	d.gh.AddInstallation(demoInstallation, demoOwner+"/"+demoRepo)
	d.gh.SetPermission(demoOwner, demoRepo, demoMaintainer, "maintain")
	d.model = fakeopenai.Start(fakeopenai.Sequence(
		fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)),
		fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats))),
		fakeopenai.WithModels(demoModel))
	if d.dir == "" {
		d.dir, err = os.MkdirTemp("", "capsule-demo-")
	} else {
		err = os.MkdirAll(d.dir, 0o700)
	}
	if err != nil {
		d.model.Close()
		d.gh.Close()
		return nil, err
	}
	d.logPath = filepath.Join(d.dir, "serve.log")
	return d, nil
}

func (d *demo) close() {
	d.model.Close()
	d.gh.Close()
	if !d.keep {
		os.RemoveAll(d.dir)
	}
}

// serveArgs are `capsule serve`'s flags for the demo: every setting given,
// so that none comes from the environment (a CAPSULE_DATABASE_URL must not
// send the demo's job to a real queue).
func (d *demo) serveArgs(addr string) []string {
	return []string{
		"--listen", addr, "--data-dir", d.dir, "--database", "", "--workers", "1",
		"--api-url", d.gh.URL(), "--app-id", strconv.Itoa(demoAppID),
		"--private-key", string(d.keyPEM), "--private-key-file", "", "--webhook-secret", d.secret,
		"--base-url", d.model.URL(), "--model", demoModel, "--api-key", "stand-in", "--test-model", "",
		"--image", "",
	}
}

// run starts `capsule serve`, labels the issue through its webhook, waits
// for the job to end and prints the pull request.
func (d *demo) run(ctx context.Context, full bool) error {
	out := d.env.stdout
	addr, err := freeLoopbackAddr()
	if err != nil {
		return err
	}
	logFile, err := os.Create(d.logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	serveCtx, stopServe := context.WithCancel(ctx)
	served := make(chan struct{}) // closed when serve has returned
	serveEnv := &environment{stdout: logFile, stderr: logFile, log: slog.New(slog.NewTextHandler(logFile, nil))}
	go func() {
		defer close(served)
		d.serveCode = runServe(serveCtx, serveEnv, d.serveArgs(addr)) // its errors are in its log
	}()
	defer func() {
		stopServe()
		<-served
	}()

	fmt.Fprintf(out, "capsule demo: the App, `capsule serve`, at http://%s, with its job queue in %s\n", addr, d.dir)
	fmt.Fprintf(out, "  stand-in GitHub: %s (a fake on this machine) holding %s/%s, issue #%d %q\n",
		d.gh.URL(), demoOwner, demoRepo, demoIssue, calculatortest.IssueTitle)
	fmt.Fprintf(out, "  stand-in model:  %s (scripted: a wrong fix, then the right one)\n", d.model.URL())
	base := "http://" + addr
	if err := waitUntil(ctx, served, "the App to be ready", func() (bool, string) { return httpGet(base + "/readyz") }); err != nil {
		return err
	}

	status, answer, err := d.label(ctx, base+"/webhook")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nLabelled issue #%d %q as %s: POST /webhook answered %d %s\n", demoIssue, demoLabel, demoMaintainer, status, answer)
	if status != http.StatusAccepted {
		return errors.New("the App did not take the delivery")
	}
	fmt.Fprintln(out, "Waiting for the job: the sandbox runs the example's tests before the fix and after each attempt...")
	start := time.Now()
	var final string
	err = waitUntil(ctx, served, "the job to end", func() (bool, string) {
		labels := d.repo.Labels(demoIssue)
		for _, l := range []string{job.LabelDone, job.LabelUnproven, job.LabelFailed} {
			if slices.Contains(labels, l) {
				final = l
				return true, ""
			}
		}
		return false, fmt.Sprintf("the issue's labels: %q", labels)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "The job ended in %v: the issue is labelled %s.\n", time.Since(start).Round(time.Second), final)
	d.print(full)
	if final != job.LabelDone {
		return fmt.Errorf("the job ended %s, not %s", final, job.LabelDone)
	}
	return nil
}

// label sends the issues.labeled delivery GitHub would send, signed with
// the webhook secret, and returns the App's answer.
func (d *demo) label(ctx context.Context, url string) (int, string, error) {
	user := &github.User{Login: github.Ptr(demoMaintainer), Type: github.Ptr("User")}
	body, err := json.Marshal(github.IssuesEvent{
		Action: github.Ptr("labeled"),
		Label:  &github.Label{Name: github.Ptr(demoLabel)},
		Issue: &github.Issue{Number: github.Ptr(demoIssue), Title: github.Ptr(calculatortest.IssueTitle),
			Body: github.Ptr(calculatortest.IssueBody), User: user, State: github.Ptr("open"),
			Labels: []*github.Label{{Name: github.Ptr(demoLabel)}}},
		Repo: &github.Repository{Name: github.Ptr(demoRepo), FullName: github.Ptr(demoOwner + "/" + demoRepo),
			Owner: &github.User{Login: github.Ptr(demoOwner), Type: github.Ptr("Organization")}},
		Sender:       user,
		Installation: &github.Installation{ID: github.Ptr(int64(demoInstallation))},
	})
	if err != nil {
		return 0, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	mac := hmac.New(sha256.New, []byte(d.secret))
	mac.Write(body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "issues")
	req.Header.Set("X-GitHub-Delivery", "capsule-demo-1")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("send the delivery: %w", err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, strings.TrimSpace(string(answer)), nil
}

// print writes the pull request the job opened (its attempt log only
// with full) and the issue's status comment (without it), and what of
// the run was real.
func (d *demo) print(full bool) {
	out := d.env.stdout
	prs := d.repo.PullRequests()
	if len(prs) == 0 {
		fmt.Fprintln(out, "\nThe job opened no pull request.")
	}
	rule := strings.Repeat("-", 72)
	for _, pr := range prs {
		fmt.Fprintf(out, "\nPull request #%d, %s → %s, by %s: %s\n%s\n", pr.Number, pr.Head, pr.Base, pr.User, pr.Title, rule)
		body, log, cut := strings.Cut(strings.TrimRight(pr.Body, "\n"), "\n"+attemptLogHeading)
		if full && cut {
			body += "\n" + attemptLogHeading + log
		}
		fmt.Fprintln(out, strings.TrimRight(body, "\n"))
		if !full && cut {
			fmt.Fprintf(out, "\n%s (%d more lines: every attempt's diff, feedback and test output; --full prints them)\n", attemptLogHeading, strings.Count(log, "\n"))
		}
		fmt.Fprintln(out, rule)
	}
	for _, c := range d.repo.Comments(demoIssue) {
		body, _, _ := strings.Cut(strings.TrimRight(c.Body, "\n"), "\n<details><summary>Attempt log")
		fmt.Fprintf(out, "\nThe App's status comment on issue #%d (its attempt log left out):\n%s\n", demoIssue, strings.TrimRight(body, "\n"))
	}
	fmt.Fprintf(out, `
What was real and what was a stand-in:
  real:      the App (capsule serve: webhook intake at /webhook, the SQLite
             job queue, the worker, the job), its go-github client over
             HTTP, the Docker sandbox running the example's tests in the
             image %s
  stand-in:  GitHub, a fake on this machine that answers as GitHub's REST API
             does and checks each request against GitHub's API description;
             the model, which answers from a script and reads nothing
             (%d calls); the webhook, sent by this demo as GitHub would send it
To run the App for real you need a GitHub App and a model endpoint: see the README.
`, image.Default(), len(d.model.Requests()))
}

// attemptLogHeading starts the attempt log in a pull request's body.
const attemptLogHeading = "### Attempt log"

// waitUntil polls ok until it holds, the context ends or serve returns
// (served is closed); the error says what ok last saw.
func waitUntil(ctx context.Context, served <-chan struct{}, what string, ok func() (bool, string)) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		done, saw := ok()
		if done {
			return nil
		}
		select {
		case <-served:
			return fmt.Errorf("capsule serve exited while waiting for %s (last: %s)", what, saw)
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s, last %s: %w", what, saw, ctx.Err())
		case <-tick.C:
		}
	}
}

// httpGet reports whether url answers 200, and what it answered.
func httpGet(url string) (bool, string) {
	resp, err := http.Get(url)
	if err != nil {
		return false, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	return resp.StatusCode == http.StatusOK, fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body)))
}

// freeLoopbackAddr returns a loopback address nobody listens on, for
// serve's --listen.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// logTail returns the last n lines of the file at path.
func logTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error() + "\n"
	}
	lines := strings.SplitAfter(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "") + "\n"
}
