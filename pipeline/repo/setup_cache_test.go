package repo_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/setupcache"
	"github.com/capsulehq/capsule/pipeline/setupsecret"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// check runs the set-up and the baseline of plan in a new session of the
// real sandbox, as a job does before its first model call, and returns
// the log and how long the set-up phase took (the set-up, or the restore
// of the kept one).
func check(t *testing.T, plan repo.Plan) (*attemptlog.Log, time.Duration) {
	t.Helper()
	box, err := sandboxtest.Engine(t).NewSession(context.Background(), sandboxtest.SpecWith(plan.Dir, testreport.HelperFiles()))
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	log, err := repo.Check(context.Background(), box, plan)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Duration(0)
	switch {
	case log.SetupCache != nil && log.SetupCache.Reused:
		took = log.SetupCache.Copy
	case log.Setup != nil:
		took = log.Setup.Duration
	}
	return log, took
}

// slowSetup "installs" the requirements: it takes a few seconds and
// writes a package into the workspace that records the requirements it
// was installed from; the test command fails unless the installed
// package matches the tree's requirements.
const slowSetup = `sleep 4 && mkdir -p .local/lib/slowdep && cp requirements.txt .local/lib/slowdep/installed.txt && echo installed`

// openCache opens a set-up cache in a temporary directory.
func openCache(t *testing.T) *setupcache.Cache {
	c := &setupcache.Cache{Dir: t.TempDir()}
	if _, err := c.Open(); err != nil {
		t.Fatal(err)
	}
	return c
}

func cachedPlan(t *testing.T, cache *setupcache.Cache) repo.Plan {
	plan := issueTask(t, calculator(t, map[string]string{"requirements.txt": "slowdep==1\n"}))
	plan.Setup, plan.SetupCache, plan.Repository = slowSetup, cache, "example/calculator"
	plan.TestCommand = "cmp requirements.txt .local/lib/slowdep/installed.txt && python3 -m pytest -q"
	return plan
}

// TestSetupKeptAndReused: the first job runs the set-up and keeps it;
// the second, with the same lockfile, restores it and does not run the
// set-up; a changed lockfile runs it again; the size bound evicts the
// least recently used.
func TestSetupKeptAndReused(t *testing.T) {
	cache := openCache(t)
	plan := cachedPlan(t, cache)

	first, built := check(t, plan)
	if first.Environment != nil || first.Setup == nil || first.SetupCache == nil || !first.SetupCache.Kept || first.SetupCache.Reused {
		t.Fatalf("first job: environment %+v, set-up %+v, cache %+v", first.Environment, first.Setup, first.SetupCache)
	}
	// The second job is a round: it restores what the default branch's
	// job kept.
	round := plan
	round.TrustedInput = func(_ context.Context, p string) ([]byte, bool, error) {
		data, err := os.ReadFile(filepath.Join(plan.Dir, p))
		return data, err == nil, nil
	}
	second, restored := check(t, round)
	if second.Environment != nil || second.Setup != nil || second.SetupCache == nil || !second.SetupCache.Reused || second.SetupCache.Key != first.SetupCache.Key {
		t.Fatalf("second job: environment %+v, set-up %+v, cache %+v", second.Environment, second.Setup, second.SetupCache)
	}
	if second.Baseline == nil || second.Baseline.Tests != first.Baseline.Tests || second.Baseline.Tests == 0 {
		t.Errorf("the baseline differs: %+v, then %+v", first.Baseline, second.Baseline)
	}
	t.Logf("set-up %s, kept set-up restored in %s (%d bytes)", built, restored, second.SetupCache.Bytes)
	if restored >= built {
		t.Errorf("restoring took %s, the set-up %s", restored, built)
	}

	// A changed lockfile is a new key: the set-up runs, and the test
	// command sees the new requirements installed.
	if err := os.WriteFile(filepath.Join(plan.Dir, "requirements.txt"), []byte("slowdep==2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kept, err := os.Stat(filepath.Join(cache.Dir, first.SetupCache.Key+".tar"))
	if err != nil {
		t.Fatal(err)
	}
	cache.MaxBytes = kept.Size() * 3 / 2 // room for one entry's archive
	third, _ := check(t, plan)
	if third.Environment != nil || third.Setup == nil || !third.SetupCache.Kept || third.SetupCache.Key == first.SetupCache.Key ||
		third.SetupCache.Why != "no set-up of this key is kept" {
		t.Fatalf("changed lockfile: environment %+v, set-up %+v, cache %+v", third.Environment, third.Setup, third.SetupCache)
	}
	if third.SetupCache.Evicted != 1 {
		t.Errorf("evicted %d entries, want the first", third.SetupCache.Evicted)
	}
	if _, ok, _, _ := cache.Lookup(first.SetupCache.Key, nil); ok {
		t.Error("the first entry is still kept past the size bound")
	}
	var md strings.Builder
	second.WriteMarkdown(&md)
	if !strings.Contains(md.String(), "Set-up: reused the kept set-up `"+first.SetupCache.Key[:12]+"`") {
		t.Errorf("the attempt log does not say the set-up was reused:\n%s", md.String())
	}
}

// TestSetupSourceInstall: a set-up that changes a file of the tree that
// is not an input is kept for that tree only.
func TestSetupSourceBound(t *testing.T) {
	cache := openCache(t)
	plan := cachedPlan(t, cache)
	plan.Setup = slowSetup + " && echo '# stamped' >> calc/__init__.py"
	plan.TestCommand = "grep -q stamped calc/__init__.py && " + plan.TestCommand
	if first, _ := check(t, plan); !first.SetupCache.Kept {
		t.Fatalf("not kept: %+v", first.SetupCache)
	}
	if again, _ := check(t, plan); !again.SetupCache.Reused {
		t.Fatalf("the same tree did not reuse it: %+v", again.SetupCache)
	}
	os.WriteFile(filepath.Join(plan.Dir, "calc", "extra.py"), []byte("x = 1\n"), 0o644)
	other, _ := check(t, plan)
	if other.SetupCache.Reused || !strings.Contains(other.SetupCache.Why, "changed the repository's calc/__init__.py, and the source differs") {
		t.Fatalf("another tree reused it: %+v", other.SetupCache)
	}
}

// secretValue is the set-up secret of the tests below.
const secretValue = "capsule-test-token-5f1e2d"

// TestSetupSecrets: the set-up uses its secret to build something; the
// tests that follow cannot read it (environment, /proc, files), and no
// record holds it. A set-up that writes it into a file, or prints it,
// fails; a tree whose set-up inputs differ from the default branch's
// gets no secret.
func TestSetupSecrets(t *testing.T) {
	cache := openCache(t)
	// The set-up builds .local/built only when its token
	// "authenticates"; the test command fails when the token can be
	// found anywhere a test could look.
	// (The set-up compares a hash, and the pattern has brackets, so that
	// neither command holds the value: /proc/*/cmdline shows the test's.)
	look := `! { env; cat /proc/*/environ /proc/*/cmdline; grep -rsI . /capsule /tmp "$HOME"; } 2>/dev/null | grep -q 'capsule-test-token-[5]f1e2d'`
	authenticates := `test "$(printf %s "$NPM_TOKEN" | sha256sum | cut -c1-16)" = ` + fmt.Sprintf("%.8x", sha256.Sum256([]byte(secretValue)))
	// The control: a run that has the secret is caught by look.
	res, err := sandboxtest.Engine(t).Run(context.Background(), sandboxtest.Spec(t.TempDir()), sandbox.Run{Cmd: []string{"sh", "-c", look}, Env: []string{"NPM_TOKEN=" + secretValue}})
	if err != nil || res.ExitCode != 1 {
		t.Fatalf("look did not catch the secret in a run's environment: %v, %+v", err, res)
	}
	tests := []struct {
		name     string
		setup    string
		trusted  bool
		phase    string // "" for a set-up that passes
		want     string // in the failure's What, or the withheld note
		built    bool
		withheld bool
	}{
		{name: "used and unreadable", setup: authenticates + ` && mkdir -p .local && echo ok > .local/built`, trusted: true, built: true},
		{name: "left in .npmrc", setup: `echo "//registry/:_authToken=$NPM_TOKEN" > .npmrc`, trusted: true, phase: "set-up", want: "left the value of its secret NPM_TOKEN (plain) in .npmrc"},
		{name: "left base64-encoded", setup: `mkdir -p .cache && printf 'me:%s' "$NPM_TOKEN" | base64 > .cache/auth`, trusted: true, phase: "set-up", want: "NPM_TOKEN (base64) in .cache/auth"},
		{name: "printed", setup: `echo "using $NPM_TOKEN"`, trusted: true, phase: "set-up", want: "printed the value of its secret NPM_TOKEN (plain)"},
		{name: "inputs changed by a round", setup: `test -z "$NPM_TOKEN" && mkdir -p .local && echo ok > .local/built`, withheld: true, built: true,
			want: "requirements.txt differs from the default branch's base commit; the set-up ran without NPM_TOKEN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := cachedPlan(t, cache)
			plan.Setup, plan.TestCommand = tt.setup, look
			if tt.built {
				plan.TestCommand = "test -f .local/built && " + look
			}
			plan.SetupSecretNames = []string{"NPM_TOKEN"}
			plan.SetupSecrets = setupsecret.Set{{Name: "NPM_TOKEN", Value: secretValue}}
			plan.TrustedInput = func(_ context.Context, p string) ([]byte, bool, error) {
				data, err := os.ReadFile(filepath.Join(plan.Dir, p))
				if !tt.trusted && p == "requirements.txt" {
					data = []byte("slowdep==1\nevil-setup-py==6.6.6\n")
				}
				return data, err == nil, nil
			}
			log, _ := check(t, plan)
			record, _ := json.Marshal(log)
			var md strings.Builder
			log.WriteMarkdown(&md)
			if strings.Contains(string(record)+md.String(), secretValue) {
				t.Errorf("a record holds the secret:\n%s", record)
			}
			switch {
			case tt.phase != "":
				if log.Environment == nil || log.Environment.Phase != tt.phase || !strings.Contains(log.Environment.What, tt.want) {
					t.Fatalf("environment = %+v, want %s: %q", log.Environment, tt.phase, tt.want)
				}
				if log.SetupCache.Kept {
					t.Error("a set-up that leaked its secret was kept")
				}
			case log.Environment != nil:
				t.Fatalf("the job stopped: %+v (set-up %+v)", log.Environment, log.Setup)
			case !log.Baseline.Runs[0].Passed:
				t.Fatalf("the tests found the secret, or the set-up built nothing: %+v", log.Baseline.Runs[0])
			case tt.withheld:
				if log.SetupSecrets == nil || log.SetupSecrets.Withheld != tt.want || len(log.SetupSecrets.Given) != 0 {
					t.Errorf("secrets = %+v, want withheld: %q", log.SetupSecrets, tt.want)
				}
			default:
				if log.SetupSecrets == nil || strings.Join(log.SetupSecrets.Given, ",") != "NPM_TOKEN" {
					t.Errorf("secrets = %+v", log.SetupSecrets)
				}
			}
			// Every case is a round's tree, whose set-up is never kept.
			if c := log.SetupCache; c.Kept || tt.phase == "" && c.NotKept != "the tree is not the default branch's head, and only a set-up of that tree is kept" {
				t.Errorf("a round's set-up: %+v", c)
			}
		})
	}
}
