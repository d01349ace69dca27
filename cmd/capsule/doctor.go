package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/capsulehq/capsule/bot/ghapp"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
)

// check is one line of `capsule doctor`.
type check struct {
	name string
	ok   bool
	skip bool   // not configured: said, but not a failure
	info string // what was found
	fix  string // what to do when not ok
}

func runDoctor(ctx context.Context, env *environment, args []string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(env.stderr, "Usage: capsule doctor\n\nChecks what Capsule needs and prints one line per check, with the fix\nwhen it fails. Exits 0 only when every check passes.")
	}
	if code := parseFlags(fs, env, args); code >= 0 {
		return code
	}
	checks := append(doctorChecks(ctx, env), modelCheck(ctx), githubAppCheck(ctx))
	failed := 0
	for _, c := range checks {
		status := "ok  "
		switch {
		case c.skip:
			status = "-   "
		case !c.ok:
			status = "FAIL"
			failed++
		}
		fmt.Fprintf(env.stdout, "%s %-16s %s\n", status, c.name, c.info)
		if !c.ok && c.fix != "" {
			fmt.Fprintf(env.stdout, "     %-16s fix: %s\n", "", c.fix)
		}
	}
	if failed > 0 {
		fmt.Fprintf(env.stdout, "%d of %d checks failed\n", failed, len(checks))
		return exitFailure
	}
	return exitOK
}

func doctorChecks(ctx context.Context, env *environment) []check {
	var checks []check
	agentPath, err := sandbox.AgentBinary("")
	if err != nil {
		checks = append(checks, check{name: "sandbox agent", info: err.Error(), fix: "use a release build of Capsule (CGO_ENABLED=0) or set " + sandbox.AgentEnv})
	} else {
		checks = append(checks, check{name: "sandbox agent", ok: true, info: agentPath})
	}

	eng, err := sandbox.Connect(ctx, sandbox.Options{Logger: env.log})
	if err != nil {
		return append(checks,
			check{name: "docker engine", info: err.Error(), fix: "start dockerd (Debian: apt-get install docker.io && dockerd &), or set DOCKER_HOST"},
			check{name: "sandbox image", info: "not checked: no engine"},
		)
	}
	defer eng.Close()
	info := eng.Info()
	checks = append(checks, check{name: "docker engine", ok: true,
		info: fmt.Sprintf("%s, API %s (engine speaks up to %s)", info.Host, info.APIVersion, info.ServerAPIVersion)})

	ref := image.Default()
	present, err := eng.ImagePresent(ctx, ref)
	switch {
	case err != nil:
		checks = append(checks, check{name: "sandbox image", info: err.Error()})
	case !present:
		checks = append(checks, check{name: "sandbox image", info: ref + " is missing", fix: "capsule sandbox image"})
	default:
		checks = append(checks, check{name: "sandbox image", ok: true, info: ref})
	}
	return checks
}

// modelCheck asks the configured model endpoint whether it answers.
func modelCheck(ctx context.Context) check {
	cfg := programmer.ConfigFromEnv()
	if cfg.BaseURL == "" || cfg.Model == "" {
		return check{name: "model endpoint", skip: true, info: "not configured (set OPENAI_BASE_URL and CAPSULE_MODEL for solve and bench)"}
	}
	cfg.MaxRetries = -1
	client, err := programmer.New(cfg)
	if err == nil {
		err = client.Ping(ctx)
	}
	if err != nil {
		return check{name: "model endpoint", info: "unreachable: " + err.Error(),
			fix: "check OPENAI_BASE_URL, OPENAI_API_KEY and CAPSULE_MODEL; meanwhile serve still takes deliveries, and their jobs wait for the endpoint (up to --model-wait)"}
	}
	return check{name: "model endpoint", ok: true, info: fmt.Sprintf("%s answers (model %s)", client.Config().BaseURL, cfg.Model)}
}

// githubAppCheck signs in as the configured GitHub App, as serve would.
func githubAppCheck(ctx context.Context) check {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	var ss serveSettings
	ss.register(fs)
	if ss.appID == 0 {
		return check{name: "github app", skip: true, info: "not configured (set GITHUB_APP_ID and its key for serve)"}
	}
	const fix = "check GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE, GITHUB_WEBHOOK_SECRET and GITHUB_API_URL"
	if ss.secret == "" {
		return check{name: "github app", info: "GITHUB_WEBHOOK_SECRET is not set: serve refuses to start without it", fix: fix}
	}
	key, err := ss.key()
	if err != nil {
		return check{name: "github app", info: strings.TrimPrefix(err.Error(), errUsage.Error()+": "), fix: fix}
	}
	apps, err := ghapp.New(ghapp.Config{AppID: ss.appID, PrivateKey: key, BaseURL: ss.apiURL, Retry: ghapp.RetryPolicy{MaxRetries: -1}})
	if err != nil {
		return check{name: "github app", info: err.Error(), fix: fix}
	}
	app, _, err := apps.App().Apps.Get(ctx, "")
	if err != nil {
		return check{name: "github app", info: fmt.Sprintf("signing in at %s: %v", ss.apiURL, err), fix: fix}
	}
	return check{name: "github app", ok: true, info: fmt.Sprintf("%s (id %d) at %s", app.GetSlug(), app.GetID(), ss.apiURL)}
}
