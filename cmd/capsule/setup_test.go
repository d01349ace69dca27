package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/repo"
)

// TestSetupSettings reads the set-up's settings from the environment
// and the Action's input: the cache and its bounds, the secrets, and
// errors that never show a value.
func TestSetupSettings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	t.Setenv("CAPSULE_SETUP_CACHE", dir)
	t.Setenv("CAPSULE_SETUP_CACHE_MAX_AGE", "12h")
	t.Setenv("CAPSULE_SETUP_CACHE_MAX_SIZE", "2g")
	t.Setenv("CAPSULE_SETUP_SECRET_PIP_INDEX_URL", "https://u:p4ssw0rd@pypi.example/simple")
	s, err := setupFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	s.secretsText = "NPM_TOKEN=npm_0123456789\n"
	var x repo.Sandboxed
	if err := s.equip(&x, nil); err != nil {
		t.Fatal(err)
	}
	if c := x.SetupCache; c == nil || c.Dir != dir || c.MaxAge != 12*time.Hour || c.MaxBytes != 2<<30 {
		t.Fatalf("cache = %+v", c)
	}
	found, missing := x.Secrets.For("acme/app", []string{"NPM_TOKEN", "PIP_INDEX_URL", "GITHUB_TOKEN"})
	if len(found) != 2 || found[0].Value != "npm_0123456789" || strings.Join(missing, ",") != "GITHUB_TOKEN" {
		t.Errorf("secrets %v, missing %v", found, missing)
	}

	t.Setenv("CAPSULE_SETUP_CACHE", "off")
	var off repo.Sandboxed
	if s, _ = setupFromEnv(); s.equip(&off, nil) != nil || off.SetupCache != nil {
		t.Errorf("off keeps a cache: %+v", off.SetupCache)
	}
	s.secretsText = "NPM_TOKEN=tiny\n"
	if err := s.equip(&off, nil); !errors.Is(err, errUsage) || strings.Contains(err.Error(), "tiny") {
		t.Errorf("a short secret: %v", err)
	}
	t.Setenv("CAPSULE_SETUP_CACHE_MAX_AGE", "soon")
	if _, err := setupFromEnv(); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "$CAPSULE_SETUP_CACHE_MAX_AGE") {
		t.Errorf("a bad age: %v", err)
	}
}
