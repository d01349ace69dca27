// Command capsule turns a labelled GitHub issue into a tested pull request
// by running a two-agent self-debugging loop against the repository's own
// tests in a Docker sandbox.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/agent"
)

// Exit codes shared by every subcommand.
const (
	exitOK       = 0
	exitFailure  = 1 // the job ran and did not succeed
	exitUsage    = 2 // bad flags, arguments or configuration
	exitInfra    = 3 // the engine, the model or GitHub could not be reached
	exitCanceled = 130
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *environment, args []string) int
}

// environment is what subcommands write to.
type environment struct {
	stdout, stderr io.Writer
	log            *slog.Logger
	// parseOnly makes a subcommand return exitOK once its flags parse,
	// before it does anything: the seam through which the documentation's
	// test checks every command line the docs show with the real flag sets.
	parseOnly bool
	// leftArgs is, in parse-only mode, what the flags left: the arguments
	// after them.
	leftArgs []string
}

func commands() []command {
	return []command{
		{"solve", "fix an issue in a local repository and write the tested patch", runSolve},
		{"context", "print the repository context the model would get for an issue, and why", runContext},
		{"serve", "run the GitHub App: webhooks in, pull requests out", runServe},
		{"demo", "watch the App turn an issue into a pull request, with stand-ins for GitHub and the model", runDemo},
		{"action", "run as a step of a GitHub Actions workflow (see action.yml)", runAction},
		{"bench", "rerun a function-level benchmark (HumanEval, MBPP, ...) against a model", runBench},
		{"sandbox", "run a command in the sandbox, or build its image", runSandbox},
		{"doctor", "check the Docker engine, the sandbox image and the settings", runDoctor},
		{"version", "print Capsule's version", runVersion},
		{"help", "list the subcommands, or describe one", nil},
	}
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.AgentSubcommand {
		os.Exit(agent.Main())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := &environment{
		stdout: os.Stdout,
		stderr: os.Stderr,
		log:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	code := dispatch(ctx, env, os.Args[1:])
	if code != exitOK && ctx.Err() != nil {
		fmt.Fprintln(env.stderr, "capsule: interrupted")
		code = exitCanceled
	}
	stop()
	os.Exit(code)
}

// dispatch runs the subcommand named by args[0].
func dispatch(ctx context.Context, env *environment, args []string) int {
	if len(args) == 0 {
		usage(env.stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			topic := rest[:1]
			if rest[0] == "sandbox" && len(rest) > 1 {
				topic = rest[:2] // sandbox run, sandbox image
			}
			return dispatch(ctx, env, append(slices.Clone(topic), "-h"))
		}
		usage(env.stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			return c.run(ctx, env, rest)
		}
	}
	fmt.Fprintf(env.stderr, "capsule: unknown subcommand %q\n\n", name)
	usage(env.stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Capsule turns a labelled GitHub issue into a tested pull request.")
	fmt.Fprintln(w, "\nUsage: capsule <subcommand> [flags]\n\nSubcommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun `capsule help <subcommand>` for its flags.")
}

// fail prints a one-line error and returns the exit code that fits it.
func fail(env *environment, err error) int {
	// errUsage classifies; its own word adds nothing to the message.
	fmt.Fprintf(env.stderr, "capsule: %s\n", strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
	switch {
	case errors.Is(err, context.Canceled):
		return exitCanceled
	case pipeline.IsInfrastructure(err):
		return exitInfra
	case errors.Is(err, sandbox.ErrImageNotFound), errors.Is(err, sandbox.ErrWorkspace), errors.Is(err, errUsage):
		return exitUsage
	default:
		return exitFailure
	}
}

// errUsage marks errors in what the user asked for.
var errUsage = errors.New("usage")

func runVersion(_ context.Context, env *environment, args []string) int {
	fs := newFlagSet("version", "Usage: capsule version\n\nPrints Capsule's version.")
	if code := parseFlags(fs, env, args); code >= 0 {
		return code
	}
	fmt.Fprintf(env.stdout, "capsule %s\n", versionString())
	return exitOK
}
