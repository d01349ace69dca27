package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/setupcache"
	"github.com/capsulehq/capsule/pipeline/setupsecret"
)

// setupSettings are the operator's settings of the set-up: the cache of
// kept set-ups and the file of set-up secrets.
type setupSettings struct {
	cacheDir    string
	maxAge      time.Duration
	maxSize     int64
	secretsFile string
	// secretsText, the Action's setup-secrets input, takes the place of
	// the file.
	secretsText string
}

// setupEnv names the environment variable of each flag.
var setupEnv = []struct{ flag, env string }{
	{"setup-cache", "CAPSULE_SETUP_CACHE"},
	{"setup-cache-max-age", "CAPSULE_SETUP_CACHE_MAX_AGE"},
	{"setup-cache-max-size", "CAPSULE_SETUP_CACHE_MAX_SIZE"},
	{"setup-secrets", "CAPSULE_SETUP_SECRETS"},
}

// register adds the set-up's flags to fs, with cacheDefault saying what
// an empty --setup-cache means, then takes each from its environment
// variable when that is set.
func (s *setupSettings) register(fs *flag.FlagSet, cacheDefault string) error {
	s.maxSize = setupcache.DefaultMaxBytes
	fs.StringVar(&s.cacheDir, "setup-cache", "", "`DIR` where set-ups are kept for later jobs of the same key, "+cacheDefault+"; off keeps none ($CAPSULE_SETUP_CACHE)")
	fs.DurationVar(&s.maxAge, "setup-cache-max-age", setupcache.DefaultMaxAge, "a kept set-up unused for longer is evicted; 0 keeps them whatever their age ($CAPSULE_SETUP_CACHE_MAX_AGE)")
	fs.Var((*byteSize)(&s.maxSize), "setup-cache-max-size", "most bytes the kept set-ups take, a `SIZE` such as 20g; the least recently used go first; 0: no bound ($CAPSULE_SETUP_CACHE_MAX_SIZE)")
	fs.StringVar(&s.secretsFile, "setup-secrets", "", "`FILE` of set-up secrets: NAME=VALUE lines for every repository, owner/name NAME=VALUE for one; also $CAPSULE_SETUP_SECRET_NAME ($CAPSULE_SETUP_SECRETS)")
	for _, e := range setupEnv {
		if v := os.Getenv(e.env); v != "" {
			if err := fs.Set(e.flag, v); err != nil {
				return fmt.Errorf("%w: $%s: %w", errUsage, e.env, err)
			}
		}
	}
	return nil
}

// setupFromEnv reads the settings from the environment alone (the
// Action, doctor), with no cache unless $CAPSULE_SETUP_CACHE names one.
func setupFromEnv() (setupSettings, error) {
	var s setupSettings
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	err := s.register(fs, "none by default")
	return s, err
}

// equip opens the cache and reads the secrets into x; log hears what
// the opening evicted.
func (s setupSettings) equip(x *repo.Sandboxed, log *slog.Logger) error {
	if s.maxAge < 0 || s.maxSize < 0 {
		return fmt.Errorf("%w: the set-up cache's maximum age and size must not be negative (0: no bound)", errUsage)
	}
	if dir := s.cacheDir; dir != "" && dir != "off" {
		c := &setupcache.Cache{Dir: dir, MaxAge: s.maxAge, MaxBytes: s.maxSize}
		evicted, err := c.Open()
		if err != nil {
			return err
		}
		if len(evicted) > 0 && log != nil {
			log.Info("set-up cache: evicted", "dir", dir, "entries", len(evicted), "max_age", s.maxAge, "max_bytes", s.maxSize)
		}
		x.SetupCache = c
	}
	secrets, err := setupsecret.Load(s.secretsFile, os.LookupEnv)
	if s.secretsText != "" {
		secrets, err = setupsecret.Parse("input setup-secrets", []byte(s.secretsText), os.LookupEnv)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	x.Secrets = secrets
	return nil
}
