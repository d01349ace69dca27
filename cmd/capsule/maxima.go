package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/pipeline/budget"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/sandbox/limits"
)

// operatorLimits are the operator's maxima over what a repository's
// .github/capsule.yml may ask for, and the bounds on the model's answers.
type operatorLimits struct {
	max         repo.Maxima
	answerBytes int64
	// ciRounds is the most CI rounds a repository's ci_rounds may ask
	// for on one pull request; 0 turns CI rounds off.
	ciRounds int
	// price is --price-input and --price-output, the price of every model
	// the prices file does not name; pricesFile is --prices.
	price      budget.Price
	pricesFile string
	// day is the budget of one installation for a day (the App's).
	day budget.Limits
}

// operatorLimitEnv names the environment variable of each flag.
var operatorLimitEnv = []struct{ flag, env string }{
	{"max-attempts", "CAPSULE_MAX_ATTEMPTS"},
	{"max-timeout", "CAPSULE_MAX_TIMEOUT"},
	{"max-history", "CAPSULE_MAX_HISTORY"},
	{"max-memory", "CAPSULE_MAX_MEMORY"},
	{"max-cpus", "CAPSULE_MAX_CPUS"},
	{"max-disk", "CAPSULE_MAX_DISK"},
	{"max-answer-bytes", "CAPSULE_MAX_ANSWER_BYTES"},
	{"max-answer-files", "CAPSULE_MAX_ANSWER_FILES"},
	{"max-reproduce-tries", "CAPSULE_MAX_REPRODUCE_TRIES"},
	{"max-requests", "CAPSULE_MAX_REQUESTS"},
	{"max-ci-rounds", "CAPSULE_MAX_CI_ROUNDS"},
	{"max-tokens-per-job", "CAPSULE_MAX_TOKENS_PER_JOB"},
	{"max-cost-per-job", "CAPSULE_MAX_COST_PER_JOB"},
	{"max-tokens-per-day", "CAPSULE_MAX_TOKENS_PER_DAY"},
	{"max-cost-per-day", "CAPSULE_MAX_COST_PER_DAY"},
	{"price-input", "CAPSULE_PRICE_INPUT"},
	{"price-output", "CAPSULE_PRICE_OUTPUT"},
	{"prices", "CAPSULE_PRICES"},
}

// register adds the limits' flags to fs, with the defaults, and then
// takes each from its environment variable when that is set.
func (l *operatorLimits) register(fs *flag.FlagSet) error {
	d := repo.DefaultMaxima()
	l.max, l.answerBytes = d, programmer.DefaultMaxAnswerBytes
	fs.IntVar(&l.max.Attempts, "max-attempts", d.Attempts, "most fix attempts a repository's max_attempts may ask for ($CAPSULE_MAX_ATTEMPTS)")
	fs.DurationVar(&l.max.Timeout, "max-timeout", d.Timeout, "longest test run a repository's timeout may ask for ($CAPSULE_MAX_TIMEOUT)")
	fs.IntVar(&l.max.History, "max-history", d.History, "most earlier attempts a repository's history may show the model ($CAPSULE_MAX_HISTORY)")
	fs.Var((*byteSize)(&l.max.Memory), "max-memory", "most memory a repository's memory may ask for, a `SIZE` such as 4g ($CAPSULE_MAX_MEMORY)")
	fs.Float64Var(&l.max.CPUs, "max-cpus", d.CPUs, "most CPU cores a repository's cpus may ask for ($CAPSULE_MAX_CPUS)")
	fs.Var((*byteSize)(&l.max.Disk), "max-disk", "most bytes a repository's disk may let the tests write, a `SIZE` such as 4g; it is held in memory ($CAPSULE_MAX_DISK)")
	fs.Var((*byteSize)(&l.answerBytes), "max-answer-bytes", "largest model response read, a `SIZE` such as 4m; a longer answer is a failed attempt ($CAPSULE_MAX_ANSWER_BYTES)")
	fs.IntVar(&l.max.AnswerFiles, "max-answer-files", d.AnswerFiles, "most files one answer may change ($CAPSULE_MAX_ANSWER_FILES)")
	fs.IntVar(&l.max.ReproduceTries, "max-reproduce-tries", d.ReproduceTries, "most answers of the test designer a repository's reproduce_tries may ask for ($CAPSULE_MAX_REPRODUCE_TRIES)")
	fs.IntVar(&l.max.Requests, "max-requests", d.Requests, "most requests to see more of the repository the model may make in one job; 0 turns them off ($CAPSULE_MAX_REQUESTS)")
	fs.IntVar(&l.ciRounds, "max-ci-rounds", job.DefaultMaxCIRounds, "most CI rounds on one pull request a repository's ci_rounds may ask for; 0 turns them off ($CAPSULE_MAX_CI_ROUNDS)")
	fs.IntVar(&l.max.Budget.Tokens, "max-tokens-per-job", 0, "most tokens (prompt and completion) one job may spend; a repository's max_tokens_per_job may ask for less; 0: no limit ($CAPSULE_MAX_TOKENS_PER_JOB)")
	fs.Var((*dollars)(&l.max.Budget.Cost), "max-cost-per-job", "most US dollars one job may spend, an `AMOUNT` such as 0.50; needs prices; 0: no limit ($CAPSULE_MAX_COST_PER_JOB)")
	fs.IntVar(&l.day.Tokens, "max-tokens-per-day", 0, "most tokens one installation's jobs may spend in a day (UTC); 0: no limit ($CAPSULE_MAX_TOKENS_PER_DAY)")
	fs.Var((*dollars)(&l.day.Cost), "max-cost-per-day", "most US dollars one installation's jobs may spend in a day (UTC), an `AMOUNT`; needs prices; 0: no limit ($CAPSULE_MAX_COST_PER_DAY)")
	fs.Var((*dollars)(&l.price.Input), "price-input", "price of prompt tokens, US dollars per million (an `AMOUNT`), for every model the prices file does not name ($CAPSULE_PRICE_INPUT)")
	fs.Var((*dollars)(&l.price.Output), "price-output", "price of completion tokens, US dollars per million (an `AMOUNT`), for every model the prices file does not name ($CAPSULE_PRICE_OUTPUT)")
	fs.StringVar(&l.pricesFile, "prices", "", "prices `FILE`: a line per model, its name and its input and output prices in US dollars per million tokens ($CAPSULE_PRICES)")
	for _, e := range operatorLimitEnv {
		if v := os.Getenv(e.env); v != "" {
			if err := fs.Set(e.flag, v); err != nil {
				return fmt.Errorf("%w: $%s: %w", errUsage, e.env, err)
			}
		}
	}
	return nil
}

// fromEnv reads the limits from the environment alone, for the commands
// whose flags do not carry them (solve, action), and checks them.
func (l *operatorLimits) fromEnv() error {
	fs := flag.NewFlagSet("limits", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := l.register(fs); err != nil {
		return err
	}
	return l.check()
}

// check reports limits that make no sense.
func (l *operatorLimits) check() error {
	if err := l.max.Validate(); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if l.ciRounds < 0 {
		return fmt.Errorf("%w: the most CI rounds must not be negative, got %d (0 turns them off)", errUsage, l.ciRounds)
	}
	if l.max.Budget.Tokens < 0 || l.day.Tokens < 0 {
		return fmt.Errorf("%w: a token budget must not be negative (0: no limit)", errUsage)
	}
	prices, err := l.prices()
	if err != nil {
		return err
	}
	if (l.max.Budget.Cost > 0 || l.day.Cost > 0) && len(prices) == 0 {
		return fmt.Errorf("%w: a money budget (--max-cost-per-job, --max-cost-per-day) needs prices: --price-input and --price-output, or --prices", errUsage)
	}
	if l.answerBytes < 1<<10 {
		return fmt.Errorf("%w: the largest answer read, %s, is below 1 KiB", errUsage, limits.FormatBytes(l.answerBytes))
	}
	return nil
}

// prices are the prices of the models: the prices file's, and
// --price-input and --price-output for every other model; nil when none
// is set.
func (l *operatorLimits) prices() (budget.Prices, error) {
	ps := budget.Prices{}
	if l.pricesFile != "" {
		var err error
		if ps, err = budget.LoadPrices(l.pricesFile); err != nil {
			return nil, fmt.Errorf("%w: %w", errUsage, err)
		}
	}
	if l.price != (budget.Price{}) {
		ps[""] = l.price
	}
	if len(ps) == 0 {
		return nil, nil
	}
	return ps, nil
}

// runnerCIRounds is ciRounds as job.Runner.MaxCIRounds takes it.
func (l *operatorLimits) runnerCIRounds() int {
	if l.ciRounds == 0 {
		return -1
	}
	return l.ciRounds
}

// dollars is a flag holding an amount of US dollars.
type dollars float64

func (d *dollars) String() string { return strconv.FormatFloat(float64(*d), 'f', -1, 64) }

func (d *dollars) Set(s string) error {
	f, err := budget.ParseAmount(s)
	*d = dollars(f)
	return err
}

// byteSize is a flag holding a size as Docker's CLI writes it: 512m, 4g.
type byteSize int64

func (b *byteSize) String() string { return limits.FormatBytes(int64(*b)) }

func (b *byteSize) Set(s string) error {
	n, err := limits.ParseBytes(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}
