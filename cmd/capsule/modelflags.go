package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/capsulehq/capsule/internal/logx"
	"github.com/capsulehq/capsule/pipeline/programmer"
)

// modelFlags registers the model settings shared by solve and bench. Each
// defaults to its environment variable.
type modelFlags struct {
	cfg     programmer.Config
	seed    int
	timeout time.Duration
}

func (f *modelFlags) register(fs *flag.FlagSet) {
	f.cfg = programmer.ConfigFromEnv()
	fs.StringVar(&f.cfg.BaseURL, "base-url", f.cfg.BaseURL, "OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 ($OPENAI_BASE_URL)")
	fs.StringVar(&f.cfg.Model, "model", f.cfg.Model, "model name ($CAPSULE_MODEL)")
	fs.StringVar(&f.cfg.APIKey, "api-key", f.cfg.APIKey, "API key ($OPENAI_API_KEY)")
	fs.Func("temperature", "sampling temperature, a `NUMBER` (default 0)", func(s string) error {
		var t float32
		if _, err := fmt.Sscanf(s, "%g", &t); err != nil {
			return fmt.Errorf("not a number: %q", s)
		}
		f.cfg.Temperature = t
		return nil
	})
	fs.IntVar(&f.seed, "seed", -1, "sampling seed; -1 leaves it to the endpoint")
	fs.IntVar(&f.cfg.MaxTokens, "max-tokens", 0, "cap on completion tokens; 0 leaves it to the endpoint")
	fs.DurationVar(&f.timeout, "request-timeout", programmer.DefaultRequestTimeout, "time limit of one model request")
}

// client checks the settings, builds the client and makes sure the
// endpoint answers before any work starts.
func (f *modelFlags) client(ctx context.Context) (*programmer.Client, error) {
	c, err := f.build()
	if err != nil {
		return nil, err
	}
	if err := c.Ping(ctx); err != nil {
		return nil, fmt.Errorf("model endpoint %s: %w", c.Config().BaseURL, err)
	}
	return c, nil
}

// build checks the settings and builds the client, without calling the
// endpoint.
func (f *modelFlags) build() (*programmer.Client, error) {
	cfg := f.cfg
	if f.seed >= 0 {
		seed := f.seed
		cfg.Seed = &seed
	}
	cfg.RequestTimeout = f.timeout
	c, err := programmer.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	return c, nil
}

// probe returns a check of the endpoint that makes one request, without
// the client's retries, for a server to call again and again. What the
// check warns of (a model the endpoint does not list) goes to the
// configured logger once per change, not once per check.
func (f *modelFlags) probe() (func(context.Context) error, error) {
	cfg := f.cfg
	cfg.MaxRetries = -1
	polls := logx.NewPolls(cmp.Or(cfg.Logger, slog.Default()).Handler())
	cfg.Logger = slog.New(polls)
	c, err := programmer.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	return func(ctx context.Context) error {
		err := c.Ping(ctx)
		polls.Round(ctx)
		return err
	}, nil
}
