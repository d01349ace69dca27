package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/goldenfile"
	"github.com/capsulehq/capsule/testsupport/pgtest"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

func TestMain(m *testing.M) {
	// The sandbox agent must be a static build; the test binary is not.
	if os.Getenv(sandbox.AgentEnv) == "" {
		path, err := sandboxtest.BuildAgent()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Setenv(sandbox.AgentEnv, path)
	}
	pgtest.Main(m)
}

// capsule runs the command line in-process and returns its exit code and
// output.
func capsule(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &environment{stdout: &out, stderr: &errOut, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	code = dispatch(context.Background(), env, args)
	return code, out.String(), errOut.String()
}

func TestDispatch(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		output string // expected in stdout or stderr
	}{
		{"no arguments", nil, exitUsage, "Usage: capsule <subcommand>"},
		{"unknown subcommand", []string{"frobnicate"}, exitUsage, `unknown subcommand "frobnicate"`},
		{"help lists subcommands", []string{"help"}, exitOK, "doctor"},
		{"help for a subcommand", []string{"help", "version"}, exitOK, "Usage: capsule version"},
		{"version", []string{"version"}, exitOK, "capsule 0.1.0-dev"},
		{"unknown flag", []string{"version", "--bogus"}, exitUsage, "flag provided but not defined: -bogus"},
		{"sandbox without subcommand", []string{"sandbox"}, exitUsage, "Usage: capsule sandbox run"},
		{"unknown sandbox subcommand", []string{"sandbox", "frob"}, exitUsage, `unknown subcommand "frob"`},
		{"sandbox run without command", []string{"sandbox", "run", "--workspace", "."}, exitUsage, "need --workspace DIR and a command"},
		{"sandbox run bad memory", []string{"sandbox", "run", "--workspace", ".", "--memory", "lots", "--", "true"}, exitUsage, "--memory"},
		{"sandbox run missing workspace", []string{"sandbox", "run", "--workspace", "/no/such/dir", "--", "true"}, exitUsage, "/no/such/dir is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := capsule(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout+stderr, tt.output) {
				t.Errorf("output lacks %q\nstdout: %s\nstderr: %s", tt.output, stdout, stderr)
			}
		})
	}
}

// TestHelp checks that help goes to standard output, each flag shown
// once with its argument's name and one default, and that a secret from
// the environment is not shown.
func TestHelp(t *testing.T) {
	for _, v := range []string{"OPENAI_BASE_URL", "CAPSULE_MODEL", "CAPSULE_TEST_MODEL", "CAPSULE_MAX_ATTEMPTS", "CAPSULE_MAX_MEMORY"} {
		t.Setenv(v, "")
	}
	t.Setenv("OPENAI_API_KEY", "sk-secret-value")
	for _, args := range [][]string{{"help", "solve"}, {"solve", "-h"}, {"solve", "--help"}} {
		code, stdout, stderr := capsule(t, args...)
		if code != exitOK || stderr != "" {
			t.Errorf("%q: exit %d, stderr %q; want 0 and nothing on stderr", args, code, stderr)
		}
		if strings.Contains(stdout, "sk-secret-value") {
			t.Errorf("%q shows the API key:\n%s", args, stdout)
		}
		goldenfile.Check(t, filepath.Join("testdata", "help-solve.golden"), stdout, *update)
	}
	for _, tt := range []struct{ args, want string }{
		{"help sandbox image", "Usage: capsule sandbox image"},
		{"sandbox image -h", "Usage: capsule sandbox image"},
		{"help sandbox", "Usage: capsule sandbox run"},
		{"help demo", "Usage: capsule demo"},
	} {
		code, stdout, stderr := capsule(t, strings.Fields(tt.args)...)
		if code != exitOK || stderr != "" || !strings.HasPrefix(stdout, tt.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 0 and %q on stdout", tt.args, code, stdout, stderr, tt.want)
		}
	}
	code, stdout, stderr := capsule(t, "solve", "--bogus")
	if code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, "flag provided but not defined: -bogus\nUsage: capsule solve") {
		t.Errorf("a bad flag: exit %d, stdout %q, stderr %q; want %d, the error and the usage on stderr", code, stdout, stderr, exitUsage)
	}
}

func TestUnreachableEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	code, _, stderr := capsule(t, "sandbox", "run", "--workspace", t.TempDir(), "--", "true")
	if code != exitInfra || !strings.Contains(stderr, "docker engine unreachable at unix:///nonexistent/docker.sock") {
		t.Errorf("exit %d, stderr %q; want %d and the engine named", code, stderr, exitInfra)
	}
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("CAPSULE_MODEL", "m")
	code, stdout, _ := capsule(t, "doctor")
	for _, want := range []string{"FAIL docker engine", "fix: start dockerd", "FAIL model endpoint", "unreachable", "127.0.0.1:1", "jobs wait for the endpoint"} {
		if code != exitFailure || !strings.Contains(stdout, want) {
			t.Errorf("doctor: exit %d, output lacks %q:\n%s", code, want, stdout)
		}
	}
}

func TestDoctorModelEndpoint(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Reply("x")), fakeopenai.WithModels("m"))
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	t.Setenv("CAPSULE_MODEL", "m")
	if c := modelCheck(context.Background()); !c.ok || !strings.Contains(c.info, srv.URL()) {
		t.Errorf("modelCheck = %+v, want ok naming %s", c, srv.URL())
	}
	t.Setenv("OPENAI_BASE_URL", "")
	if c := modelCheck(context.Background()); !c.skip {
		t.Errorf("modelCheck without settings = %+v, want skipped", c)
	}
}

func TestDoctorGitHubApp(t *testing.T) {
	key, keyPEM := fakegithub.NewAppKey(t)
	gh := fakegithub.New(t, fakegithub.WithApp(31, &key.PublicKey), fakegithub.WithPrefix("/api/v3"))
	_, otherPEM := fakegithub.NewAppKey(t)
	tests := []struct {
		name, id, key, secret string
		ok, skip              bool
		info                  string
	}{
		{"not configured", "", "", "", false, true, "not configured"},
		{"signs in", "31", string(keyPEM), "s", true, false, "(id 31)"},
		{"no secret", "31", string(keyPEM), "", false, false, "GITHUB_WEBHOOK_SECRET is not set"},
		{"bad key", "31", "nonsense", "s", false, false, "not a PEM RSA private key"},
		{"another App's key", "31", string(otherPEM), "s", false, false, "401"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GITHUB_API_URL", gh.URL())
			t.Setenv("GITHUB_APP_ID", tt.id)
			t.Setenv("GITHUB_APP_PRIVATE_KEY", tt.key)
			t.Setenv("GITHUB_APP_PRIVATE_KEY_FILE", "")
			t.Setenv("GITHUB_WEBHOOK_SECRET", tt.secret)
			c := githubAppChecks(context.Background())[0]
			if c.ok != tt.ok || c.skip != tt.skip || !strings.Contains(c.info, tt.info) {
				t.Errorf("githubAppChecks()[0] = %+v, want ok %v, skip %v, info with %q", c, tt.ok, tt.skip, tt.info)
			}
		})
	}
}
