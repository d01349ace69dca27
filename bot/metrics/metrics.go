// Package metrics holds the bot's Prometheus metrics, all named capsule_*.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// JobCounter counts the stored jobs by state, read at each scrape.
type JobCounter func(ctx context.Context) (map[string]int, error)

// Metrics is the set of the bot's metrics on its own registry.
type Metrics struct {
	registry *prometheus.Registry

	deliveries   *prometheus.CounterVec
	ackSeconds   prometheus.Histogram
	jobsFinished *prometheus.CounterVec
	attempts     *prometheus.CounterVec
	modelCalls   prometheus.Counter
	tokens       *prometheus.CounterVec
	roleTokens   *prometheus.CounterVec
	cost         prometheus.Counter
	budgetStops  *prometheus.CounterVec
	sandboxRuns  prometheus.Histogram
	githubUp     prometheus.Gauge
	modelUp      prometheus.Gauge
}

// New registers the metrics; jobs, when set, is read at each scrape for
// capsule_jobs.
func New(jobs JobCounter, logger *slog.Logger) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "capsule_webhook_deliveries_total",
			Help: "Webhook deliveries received, by event and outcome.",
		}, []string{"event", "outcome"}),
		ackSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "capsule_webhook_ack_seconds",
			Help:    "Time from receiving a webhook delivery to answering it.",
			Buckets: []float64{.001, .002, .005, .01, .02, .05, .1, .25, 1},
		}),
		jobsFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "capsule_jobs_finished_total",
			Help: "Jobs that ended, by final state.",
		}, []string{"state"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "capsule_attempts_total",
			Help: "Attempts of the debugging loop, by result.",
		}, []string{"result"}),
		modelCalls: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "capsule_model_calls_total",
			Help: "Calls to the model.",
		}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "capsule_model_tokens_total",
			Help: "Tokens the model endpoint reported, by kind (prompt or completion).",
		}, []string{"kind"}),
		roleTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "capsule_job_tokens_total",
			Help: "Tokens the model endpoint reported for the jobs that ended, by role (programmer or test_designer) and kind (prompt or completion).",
		}, []string{"role", "kind"}),
		cost: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "capsule_job_cost_dollars_total",
			Help: "What the model calls of the jobs that ended cost, in US dollars, by the configured prices (jobs whose models have no price add nothing).",
		}),
		budgetStops: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "capsule_budget_stops_total",
			Help: "Jobs a budget stopped (or kept from starting), by budget.",
		}, []string{"budget"}),
		sandboxRuns: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "capsule_sandbox_run_seconds",
			Help:    "Duration of test runs in the sandbox.",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 14),
		}),
		modelUp: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "capsule_model_reachable",
			Help: "1 when the model endpoint answered its last check (or none failed yet), 0 when it did not (jobs wait for it).",
		}),
	}
	m.githubUp = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "capsule_github_reachable",
		Help: "1 when GitHub answered the App's last check (or none failed yet), 0 when it did not or a job could not reach it (jobs wait for it).",
	})
	m.modelUp.Set(1)
	m.githubUp.Set(1)
	m.registry.MustRegister(m.deliveries, m.ackSeconds, m.jobsFinished, m.attempts, m.modelCalls, m.tokens, m.roleTokens, m.cost, m.budgetStops, m.sandboxRuns, m.modelUp, m.githubUp,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if jobs != nil {
		m.registry.MustRegister(&jobCollector{count: jobs, logger: logger})
	}
	return m
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Delivery counts a webhook delivery.
func (m *Metrics) Delivery(event, outcome string) {
	m.deliveries.WithLabelValues(event, outcome).Inc()
}

// Acknowledged records how long answering a delivery took.
func (m *Metrics) Acknowledged(d time.Duration) { m.ackSeconds.Observe(d.Seconds()) }

// JobFinished counts a job that ended in state.
func (m *Metrics) JobFinished(state string) { m.jobsFinished.WithLabelValues(state).Inc() }

// ModelReachable records whether the model endpoint answered its last
// check.
func (m *Metrics) ModelReachable(up bool) { setUp(m.modelUp, up) }

// GitHubReachable records whether GitHub answered the App's last check
// (or the last job that needed it).
func (m *Metrics) GitHubReachable(up bool) { setUp(m.githubUp, up) }

// setUp sets a reachability gauge: 1 for up, 0 for down.
func setUp(g prometheus.Gauge, up bool) {
	if up {
		g.Set(1)
	} else {
		g.Set(0)
	}
}

// An Attempt is what the metrics record of one attempt of the loop, in
// plain values so that the metrics need not link the loop.
type Attempt struct {
	// Tested tells whether the attempt's code ran in the sandbox; Passed
	// whether its tests passed there.
	Tested, Passed                 bool
	PromptTokens, CompletionTokens int
	// TestDuration is how long the test run took.
	TestDuration time.Duration
	// Requests counts the attempt's answers that asked to see more of the
	// repository: model calls besides the attempt's own.
	Requests int
}

// Attempt records an attempt of the loop: its model calls, their tokens
// and its test run.
func (m *Metrics) Attempt(a Attempt) {
	result := "fail"
	switch {
	case !a.Tested:
		result = "no_code"
	case a.Passed:
		result = "pass"
	}
	m.attempts.WithLabelValues(result).Inc()
	m.modelCalls.Add(float64(1 + a.Requests))
	m.tokens.WithLabelValues("prompt").Add(float64(a.PromptTokens))
	m.tokens.WithLabelValues("completion").Add(float64(a.CompletionTokens))
	if a.Tested {
		m.sandboxRuns.Observe(a.TestDuration.Seconds())
	}
}

// Spend is what the metrics record of a job's model calls, in plain
// values.
type Spend struct {
	ProgrammerPrompt, ProgrammerCompletion int
	DesignerPrompt, DesignerCompletion     int
	// Cost is in US dollars, when Priced.
	Cost   float64
	Priced bool
	// StoppedBy names the budget that stopped the job, if one did.
	StoppedBy string
}

// JobSpend records what an ended job's model calls spent.
func (m *Metrics) JobSpend(s Spend) {
	m.roleTokens.WithLabelValues("programmer", "prompt").Add(float64(s.ProgrammerPrompt))
	m.roleTokens.WithLabelValues("programmer", "completion").Add(float64(s.ProgrammerCompletion))
	m.roleTokens.WithLabelValues("test_designer", "prompt").Add(float64(s.DesignerPrompt))
	m.roleTokens.WithLabelValues("test_designer", "completion").Add(float64(s.DesignerCompletion))
	if s.Priced {
		m.cost.Add(s.Cost)
	}
	if s.StoppedBy != "" {
		m.budgetStops.WithLabelValues(s.StoppedBy).Inc()
	}
}

// jobCollector reads the job counts from the store at scrape time, so
// they are right after a restart.
type jobCollector struct {
	count  JobCounter
	logger *slog.Logger
}

var jobsDesc = prometheus.NewDesc("capsule_jobs", "Stored jobs, by state.", []string{"state"}, nil)

func (c *jobCollector) Describe(ch chan<- *prometheus.Desc) { ch <- jobsDesc }

func (c *jobCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := c.count(ctx)
	if err != nil {
		if c.logger != nil {
			c.logger.Warn("count jobs for metrics", "err", err)
		}
		return
	}
	for state, n := range counts {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(n), state)
	}
}
