package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
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
	warn bool   // works, but not all of it: said, but not a failure
	info string // what was found
	fix  string // what to do when not ok
}

// status is the check's mark: ok, - (skipped), WARN or FAIL.
func (c check) status() string {
	switch {
	case c.skip:
		return "-"
	case c.warn:
		return "WARN"
	case !c.ok:
		return "FAIL"
	}
	return "ok"
}

func runDoctor(ctx context.Context, env *environment, args []string) int {
	fs := newFlagSet("doctor", "Usage: capsule doctor [--repo DIR]\n\nChecks what Capsule needs and prints one line per check, with the fix\nwhen it fails. Exits 0 only when every check passes.\n\nWith --repo, runs what a job runs on the checkout DIR before it asks the\nmodel anything (the set-up, then the tests on the untouched tree) and\nprints what it found; exits 1 when the tests cannot run in the sandbox.")
	dir := fs.String("repo", "", "a local checkout `DIR` to check as a job would, before any model call")
	if code := parseFlags(fs, env, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(env.stderr, "capsule doctor: no arguments but --repo DIR")
		return exitUsage
	}
	if *dir != "" {
		return doctorRepo(ctx, env, *dir)
	}
	checks := append(append(doctorChecks(ctx, env), modelCheck(ctx), databaseCheck(ctx)), githubAppChecks(ctx)...)
	if printChecks(env.stdout, checks) > 0 {
		return exitFailure
	}
	return exitOK
}

// printChecks writes one line per check, and its fix when it failed or
// warns, then how many failed; it returns that number.
func printChecks(w io.Writer, checks []check) (failed int) {
	for _, c := range checks {
		status := c.status()
		if status == "FAIL" {
			failed++
		}
		fmt.Fprintf(w, "%-4s %-16s %s\n", status, c.name, c.info)
		if (!c.ok || c.warn) && c.fix != "" {
			fmt.Fprintf(w, "     %-16s fix: %s\n", "", c.fix)
		}
	}
	if failed > 0 {
		fmt.Fprintf(w, "%d of %d checks failed\n", failed, len(checks))
	}
	return failed
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

// githubAppChecks signs in as the configured GitHub App, as serve would,
// then says what the App and each installation lack of what Capsule uses.
func githubAppChecks(ctx context.Context) []check {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	var ss serveSettings
	ss.register(fs)
	if ss.appID == 0 {
		return []check{{name: "github app", skip: true, info: "not configured (set GITHUB_APP_ID and its key for serve)"}}
	}
	const fix = "check GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE, GITHUB_WEBHOOK_SECRET and GITHUB_API_URL"
	if ss.secret == "" {
		return []check{{name: "github app", info: "GITHUB_WEBHOOK_SECRET is not set: serve refuses to start without it", fix: fix}}
	}
	key, err := ss.key()
	if err != nil {
		return []check{{name: "github app", info: strings.TrimPrefix(err.Error(), errUsage.Error()+": "), fix: fix}}
	}
	apps, err := ghapp.New(ghapp.Config{AppID: ss.appID, PrivateKey: key, BaseURL: ss.apiURL, Retry: ghapp.RetryPolicy{MaxRetries: -1}})
	if err != nil {
		return []check{{name: "github app", info: err.Error(), fix: fix}}
	}
	app, err := apps.SignIn(ctx)
	switch {
	case errors.Is(err, ghapp.ErrCredentials):
		return []check{{name: "github app", info: err.Error(),
			fix: "check GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE: GitHub answered, and refused them"}}
	case err != nil:
		return []check{{name: "github app", info: "unreachable: " + err.Error(),
			fix: "check the network (DNS, a proxy, a firewall) and GITHUB_API_URL: GitHub did not answer, which says nothing of the App's credentials; " +
				"meanwhile serve still takes deliveries, and their jobs wait for GitHub (up to --github-wait)"}}
	}
	checks := []check{{name: "github app", ok: true, info: fmt.Sprintf("%s (id %d) at %s", app.GetSlug(), app.GetID(), ss.apiURL)}}
	asked, err := ghapp.GrantsOf(app.Permissions, app.Events)
	if err == nil {
		var insts []ghapp.Installation
		if insts, err = apps.Installations(ctx); err == nil {
			return append(checks, grantChecks(asked, insts)...)
		}
	}
	return append(checks, check{name: "installations", info: err.Error(), fix: fix})
}

// grantChecks says what the App does not ask for of what Capsule uses,
// and what each installation has not accepted of what the App asks for,
// with what will not work: a failure when Capsule cannot work on issues,
// a warning when only commands or rounds are lost.
func grantChecks(asked ghapp.Grants, insts []ghapp.Installation) []check {
	var checks []check
	appLacks := asked.Missing()
	if len(appLacks) > 0 {
		c := lackCheck("app permissions", "the App", appLacks)
		c.fix = "add them in the App's settings (Permissions & events); the owner of each installation then accepts them"
		checks = append(checks, c)
	}
	complete := 0
	for _, in := range insts {
		what := fmt.Sprintf("%s (installation %d)", in.Account, in.ID)
		lacks := slices.DeleteFunc(in.Missing(), func(n ghapp.Need) bool { return slices.Contains(appLacks, n) })
		switch {
		case in.Suspended:
			checks = append(checks, check{name: "installation", warn: true, info: what + " is suspended: Capsule gets no events from it", fix: "unsuspend it at " + in.URL})
		case len(lacks) > 0:
			c := lackCheck("installation", what, lacks)
			c.fix = "the owner of " + in.Account + " accepts the App's new permissions at " + in.URL
			checks = append(checks, c)
		default:
			complete++
		}
	}
	switch {
	case len(insts) == 0:
		checks = append(checks, check{name: "installations", skip: true, info: "the App is installed nowhere yet"})
	case complete > 0:
		checks = append(checks, check{name: "installations", ok: true, info: fmt.Sprintf("%d of %d hold all that the App asks for", complete, len(insts))})
	}
	return checks
}

// lackCheck names what who lacks, grouped by what will not work: a
// failure when that includes issues, else a warning.
func lackCheck(name, who string, lacks []ghapp.Need) check {
	effects := map[string]string{
		ghapp.ForIssues:   "Capsule cannot work on issues",
		ghapp.ForCommands: "/capsule commands will not work",
		ghapp.ForReviews:  "review rounds will not work",
		ghapp.ForCI:       "CI rounds will not work",
	}
	var parts []string
	for _, group := range []string{ghapp.ForIssues, ghapp.ForCommands, ghapp.ForReviews, ghapp.ForCI} {
		var names []string
		for _, n := range lacks {
			if n.For == group {
				names = append(names, n.String())
			}
		}
		if len(names) > 0 {
			parts = append(parts, fmt.Sprintf("lacks %s: %s", strings.Join(names, ", "), effects[group]))
		}
	}
	fatal := slices.ContainsFunc(lacks, func(n ghapp.Need) bool { return n.For == ghapp.ForIssues })
	return check{name: name, warn: !fatal, info: who + " " + strings.Join(parts, "; ")}
}
