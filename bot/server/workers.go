package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/metrics"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// Why a job's context ends before the job does.
var (
	errShutdown  = errors.New("the server is shutting down")
	errLeaseLost = errors.New("the job's lease was lost")
)

// Run puts the jobs of a previous process back in the queue, then runs
// jobs with the workers until ctx ends. Jobs still running then get the
// grace period to finish; those that do not are stopped and put back in
// the queue for the next start. Run returns when every worker is done.
//
// Meanwhile it checks the store and the model endpoint every CheckEvery
// (see Config.Model). While the store cannot serve the workers (the jobs
// of the previous process cannot be put back, Store.Check fails, or the
// workers' claims fail, as on a full disk),
// /readyz fails, deliveries are answered 503 and no job is taken; when
// that lasts StoreGrace, Run stops as on ctx's end and returns an error.
func (s *Server) Run(ctx context.Context) error {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var background sync.WaitGroup
	background.Go(func() { s.watchStore(ctx, stop) })
	background.Go(func() { s.watchModel(ctx) })
	background.Go(func() { s.watchGitHub(ctx) })
	background.Go(func() { s.outbox.run(ctx, s.cfg.Announcers) })
	if s.recoverAbandoned(ctx) {
		background.Go(func() { s.sweepSandboxes(ctx) })
		var wg sync.WaitGroup
		for i := range s.cfg.Workers {
			wg.Go(func() { s.worker(ctx, i) })
		}
		wg.Wait()
	}
	cause := context.Cause(ctx)
	stop(nil)
	background.Wait()
	if errors.Is(cause, errStoreFailed) {
		return cause
	}
	return nil
}

// recoverAbandoned puts the jobs a previous process left running back in
// the queue, trying again every CheckEvery while the store fails. It
// reports false when ctx ended first.
func (s *Server) recoverAbandoned(ctx context.Context) bool {
	for {
		n, err := s.cfg.Store.RecoverAbandoned(ctx)
		if err == nil {
			s.health.setStore(nil, time.Now())
			s.recovered.Store(true)
			if n > 0 {
				s.log.Info("requeued the jobs a previous run left running", "jobs", n)
			}
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		if s.health.setStore(err, time.Now()) {
			s.log.Error("could not put back the jobs of the previous run: not ready; retrying, and the server exits if it lasts",
				"err", err, "grace", s.cfg.StoreGrace)
		}
		sleep(ctx, s.cfg.CheckEvery)
	}
}

// worker claims and runs jobs until ctx ends.
func (s *Server) worker(ctx context.Context, n int) {
	for ctx.Err() == nil {
		if err := s.health.storeChecked(); err != nil {
			sleep(ctx, s.cfg.CheckEvery)
			continue
		}
		j, ok, err := s.claim(ctx)
		// Said once per change, not once a second per worker.
		changed := ctx.Err() == nil && s.health.setClaims(err, time.Now())
		switch {
		case changed && err == nil:
			s.log.Info("the store takes claims again")
		case changed:
			s.log.Error("claim a job: not ready while claims fail; the server exits if it lasts", "worker", n, "err", err, "grace", s.cfg.StoreGrace)
		}
		if err != nil {
			sleep(ctx, time.Second)
			continue
		}
		if !ok {
			_, model, _ := s.health.modelState()
			_, github, _ := s.health.githubState()
			select {
			case <-ctx.Done():
			case <-s.wake:
			case <-s.storeWake:
			case <-model:
			case <-github:
			case <-time.After(pollEvery):
			}
			continue
		}
		s.signal() // there may be more: let an idle worker look
		s.runJob(ctx, j)
	}
}

// claim takes the next job. While the model endpoint or GitHub is down it
// takes only the jobs that have waited for it longer than ModelWait (or
// GitHubWait), which then fail with its error; the others wait, holding
// no worker.
func (s *Server) claim(ctx context.Context) (store.Job, bool, error) {
	var before time.Time
	if _, _, err := s.health.modelState(); err != nil {
		before = time.Now().Add(-s.cfg.ModelWait)
	}
	if _, _, err := s.health.githubState(); err != nil {
		if t := time.Now().Add(-s.cfg.GitHubWait); before.IsZero() || t.Before(before) {
			before = t
		}
	}
	if !before.IsZero() {
		return s.cfg.Store.ClaimCreatedBefore(ctx, s.cfg.WorkerID, s.cfg.Lease, before)
	}
	return s.cfg.Store.Claim(ctx, s.cfg.WorkerID, s.cfg.Lease)
}

// runJob runs one claimed job, renewing its lease, and records how it
// ended.
func (s *Server) runJob(shutdown context.Context, j store.Job) {
	log := s.log.With("job", j.ID, "delivery", j.Delivery, "repo", j.Owner+"/"+j.Repo, "issue", j.Issue)
	log.Info("job started", "claim", j.Claims)
	s.running.Add(1)
	defer s.running.Add(-1)
	// Wait for an announcement of the job in progress, then forget its
	// lock: an announcement from now on finds the job running and says
	// nothing.
	lock := s.jobLock(j.ID)
	lock.Lock()
	s.announcing.Delete(j.ID)
	lock.Unlock()
	ctx, cancel := context.WithCancelCause(s.withJob(context.Background(), j))
	defer cancel(nil)
	done := make(chan struct{})
	defer close(done)
	go s.guard(shutdown, j, cancel, done)

	res := s.execute(ctx, j)
	if !errors.Is(res.Err, job.ErrWaitingForGitHub) {
		s.kept.Delete(j.ID) // published, or of no more use
	}
	background, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errShutdown):
		if err := s.cfg.Store.Release(background, j.ID, s.cfg.WorkerID); err != nil {
			log.Error("put the job back in the queue", "err", err)
			return
		}
		log.Info("job put back in the queue for the next start")
		return
	case errors.Is(cause, errLeaseLost):
		log.Warn("job abandoned: another worker holds it now")
		return
	case errors.Is(res.Err, job.ErrWaitingForModel):
		s.waitForModel(background, j, res.Err, log)
		return
	case errors.Is(res.Err, job.ErrWaitingForGitHub):
		s.waitForGitHub(background, j, res.Err, log)
		return
	}
	state, reason := res.State, res.Reason
	if state == work.Done && res.PullRequestURL != "" {
		reason = "pull request " + res.PullRequestURL
	}
	end := store.End{State: state, Reason: reason, StatusComment: res.StatusComment, PullRequest: res.PullRequest, HeadSHA: res.HeadSHA}
	if err := s.cfg.Store.Finish(background, j.ID, s.cfg.WorkerID, end); err != nil {
		log.Error("record the job's end", "err", err)
		return
	}
	s.metrics.JobFinished(string(state))
	if l := res.Log(); l != nil {
		s.metrics.JobSpend(spendMetrics(l.Spent()))
	}
	log.Info("job ended", "state", state, "reason", reason)
}

// waitForModel puts a job that could not reach the model endpoint back
// in the queue, to be taken up again after the next check of the
// endpoint, spending none of its claims.
func (s *Server) waitForModel(ctx context.Context, j store.Job, err error, log *slog.Logger) {
	if s.cfg.Model != nil {
		s.modelState(err) // the other workers wait too, until a check says it is back
	}
	if err := s.cfg.Store.Defer(ctx, j.ID, s.cfg.WorkerID, time.Now().Add(s.cfg.CheckEvery)); err != nil {
		log.Error("put the job back to wait for the model endpoint", "err", err)
		return
	}
	log.Info("job waits for the model endpoint", "err", err, "waited", time.Since(j.CreatedAt).Round(time.Second), "wait", s.cfg.ModelWait)
}

// waitForGitHub puts a job that could not reach GitHub back in the
// queue, spending none of its claims. A job its installation's rate limit
// stopped waits for the limit's reset, alone: GitHub is not down. For an
// outage, when there are checks of GitHub, the workers take no job until
// a check finds it back, and then take this one at once; else the job
// waits CheckEvery.
func (s *Server) waitForGitHub(ctx context.Context, j store.Job, err error, log *slog.Logger) {
	now := time.Now()
	notBefore := job.RetryAt(err, now)
	switch {
	case !notBefore.IsZero():
		log = log.With("until", notBefore)
	case s.cfg.GitHub != nil:
		s.githubState(err)
		notBefore = now
	default:
		notBefore = now.Add(s.cfg.CheckEvery)
	}
	if err := s.cfg.Store.Defer(ctx, j.ID, s.cfg.WorkerID, notBefore); err != nil {
		log.Error("put the job back to wait for GitHub", "err", err)
		s.kept.Delete(j.ID)
		return
	}
	_, kept := s.kept.Load(j.ID)
	log.Info("job waits for GitHub", "err", err, "kept", kept, "waited", time.Since(j.CreatedAt).Round(time.Second), "wait", s.cfg.GitHubWait)
}

// execute runs the job with its installation's client. A panic in the
// job ends it as failed, saying why in its status comment, and leaves the
// server serving.
func (s *Server) execute(ctx context.Context, j store.Job) (res job.Result) {
	if j.Installation == 0 {
		err := errors.New("the delivery names no installation, so there is no token to act with")
		return job.Result{State: work.Failed, Reason: err.Error(), Err: err}
	}
	gh, err := s.repository(j)
	if err != nil {
		return job.Result{State: work.Failed, Reason: err.Error(), Err: err}
	}
	defer func() {
		if p := recover(); p != nil {
			res = s.panicked(gh, j, p)
		}
	}()
	return s.cfg.Runner.Run(ctx, gh, j.Request, job.Hooks{
		Attempt:     func(e pipeline.Event) { s.metrics.Attempt(attemptMetrics(e)) },
		PullRequest: func(n int) { s.recordPullRequest(ctx, j, n) },
		Busy:        func() bool { return s.busy(ctx, j) },
		WaitForModel: func(error) bool {
			return time.Since(j.CreatedAt) < s.cfg.ModelWait
		},
		WaitForGitHub: func(error) bool {
			return time.Since(j.CreatedAt) < s.cfg.GitHubWait
		},
		Keep: func(k *job.Kept) { s.kept.Store(j.ID, k) },
		Kept: s.keptFor(j.ID),
		Day:  s.dayBudget(j.Installation),
	})
}

// keptFor returns what job id kept when it last stopped to wait for
// GitHub in this process, or nil.
func (s *Server) keptFor(id int64) *job.Kept {
	if k, ok := s.kept.Load(id); ok {
		return k.(*job.Kept)
	}
	return nil
}

// recordPullRequest stores the pull request job j opened, before the job
// ends, so that rounds on it are taken from then on. A failure only
// delays that until the job's end, which records it too.
func (s *Server) recordPullRequest(ctx context.Context, j store.Job, number int) {
	if err := s.cfg.Store.RecordPullRequest(ctx, j.ID, s.cfg.WorkerID, number); err != nil {
		s.log.Warn("record the job's pull request before its end", "job", j.ID, "pull_request", number, "err", err)
	}
}

// errPanicked is wrapped by the error of a job that panicked.
var errPanicked = errors.New("the job panicked")

// panicked ends a job that panicked with p: the stack goes to the log, the
// reason to the status comment.
func (s *Server) panicked(gh job.GitHub, j store.Job, p any) job.Result {
	err := fmt.Errorf("%w: %v", errPanicked, p)
	s.log.Error("job panicked", "job", j.ID, "panic", p, "stack", string(debug.Stack()))
	reason := fmt.Sprintf("Capsule stopped on an internal error: %v", p)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	comment, ferr := s.cfg.Runner.Fail(ctx, gh, j.Request, reason)
	if ferr != nil {
		s.log.Warn("say in the status comment that the job failed", "job", j.ID, "err", ferr)
	}
	return job.Result{State: work.Failed, Reason: reason, StatusComment: comment, Err: err}
}

// busy reports whether the store has marked the job Busy: another
// delivery for its issue arrived while it was active.
func (s *Server) busy(ctx context.Context, j store.Job) bool {
	if j.Busy {
		return true
	}
	now, err := s.cfg.Store.Get(ctx, j.ID)
	if err != nil {
		s.log.Warn("read whether the job is busy", "job", j.ID, "err", err)
		return false
	}
	return now.Busy
}

// guard renews the job's lease while it runs and stops it when the lease
// is lost or when the server shuts down and the grace period ends.
func (s *Server) guard(shutdown context.Context, j store.Job, cancel context.CancelCauseFunc, done <-chan struct{}) {
	renew := time.NewTicker(s.cfg.Lease / 3)
	defer renew.Stop()
	var grace <-chan time.Time
	for {
		select {
		case <-done:
			return
		case <-shutdown.Done():
			if grace == nil {
				s.log.Info("shutting down: waiting for the running job", "job", j.ID, "grace", s.cfg.Grace)
				grace = time.After(s.cfg.Grace)
			}
			shutdown = context.Background() // seen; wait for the grace or the end
		case <-grace:
			cancel(errShutdown)
			return
		case <-renew.C:
			ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
			err := s.cfg.Store.Renew(ctx, j.ID, s.cfg.WorkerID, s.cfg.Lease)
			stop()
			if errors.Is(err, store.ErrLeaseLost) {
				cancel(errLeaseLost)
				return
			}
			if err != nil {
				s.log.Warn("renew the job's lease", "job", j.ID, "err", err)
			}
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// spendMetrics is what the metrics record of a job's spend.
func spendMetrics(s attemptlog.Spend) metrics.Spend {
	return metrics.Spend{
		ProgrammerPrompt: s.Programmer.Prompt, ProgrammerCompletion: s.Programmer.Completion,
		DesignerPrompt: s.Designer.Prompt, DesignerCompletion: s.Designer.Completion,
		Cost: s.Cost, Priced: s.Priced, StoppedBy: s.StoppedBy,
	}
}

// attemptMetrics is what the metrics record of an attempt of the loop.
func attemptMetrics(e pipeline.Event) metrics.Attempt {
	a := metrics.Attempt{PromptTokens: e.Record.PromptTokens, CompletionTokens: e.Record.CompletionTokens, Requests: len(e.Record.Requests)}
	if r := e.Record.Run; r != nil {
		a.Tested, a.Passed, a.TestDuration = true, r.Passed, r.Duration
	}
	return a
}
