package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
	"github.com/capsulehq/capsule/sandbox/limits"
)

func runSandbox(ctx context.Context, env *environment, args []string) int {
	const usage = "Usage: capsule sandbox run [flags] -- CMD ARGS...\n       capsule sandbox image [--name NAME] [--rebuild] [--offline] [--quiet]\n\nRun `capsule help sandbox run` or `capsule help sandbox image` for the flags."
	if len(args) == 0 {
		fmt.Fprintln(env.stderr, usage)
		return exitUsage
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(env.stdout, usage)
		return exitOK
	}
	switch args[0] {
	case "run":
		return runSandboxRun(ctx, env, args[1:])
	case "image":
		return runSandboxImage(ctx, env, args[1:])
	}
	fmt.Fprintf(env.stderr, "capsule sandbox: unknown subcommand %q (want run or image)\n", args[0])
	return exitUsage
}

// limitFlags registers the sandbox limits as flags on fs.
type limitFlags struct {
	timeout time.Duration
	memory  string
	disk    string
	cpus    float64
	pids    int64
	network bool
}

func (f *limitFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.timeout, "timeout", sandbox.DefaultTimeout, "wall-clock limit of the run")
	fs.StringVar(&f.memory, "memory", "512m", "memory limit, with no swap (k, m, g suffixes)")
	fs.StringVar(&f.disk, "disk", "1g", "bytes the workspace may hold (k, m, g suffixes); it lives in memory, so the container's memory limit grows by as much")
	fs.Float64Var(&f.cpus, "cpus", sandbox.DefaultCPUs, "CPU limit in cores")
	fs.Int64Var(&f.pids, "pids", sandbox.DefaultPids, "limit on processes and threads")
	fs.BoolVar(&f.network, "network", false, "give the sandbox network access (off by default)")
}

func (f *limitFlags) limits() (sandbox.Limits, error) {
	l := sandbox.DefaultLimits()
	mem, err := limits.ParseBytes(f.memory)
	if err != nil {
		return l, fmt.Errorf("%w: --memory: %w", errUsage, err)
	}
	disk, err := limits.ParseBytes(f.disk)
	if err != nil {
		return l, fmt.Errorf("%w: --disk: %w", errUsage, err)
	}
	l.Memory, l.Disk, l.CPUs, l.Pids, l.Timeout, l.Network = mem, disk, f.cpus, f.pids, f.timeout, f.network
	if err := l.Validate(); err != nil {
		return l, fmt.Errorf("%w: %w", errUsage, err)
	}
	return l, nil
}

func runSandboxRun(ctx context.Context, env *environment, args []string) int {
	fs := newFlagSet("sandbox run", "Usage: capsule sandbox run --workspace DIR [flags] -- CMD ARGS...\n\nRuns one command in the sandbox the way Capsule runs tests, prints its\noutput and exits with its exit code (124 on timeout, 137 when killed for\nmemory).")
	workspace := fs.String("workspace", "", "host directory copied into the sandbox as its workspace (required)")
	img := fs.String("image", image.Default(), "sandbox image; a bare name such as python means the registry's image")
	var lf limitFlags
	lf.register(fs)
	if code := parseFlags(fs, env, args); code >= 0 {
		return code
	}
	cmd := fs.Args()
	if *workspace == "" || len(cmd) == 0 {
		fmt.Fprintln(env.stderr, "capsule sandbox run: need --workspace DIR and a command after --")
		return exitUsage
	}
	if info, err := os.Stat(*workspace); err != nil || !info.IsDir() {
		fmt.Fprintf(env.stderr, "capsule sandbox run: workspace %s is not a directory\n", *workspace)
		return exitUsage
	}
	limits, err := lf.limits()
	if err != nil {
		return fail(env, err)
	}

	eng, err := openEngine(ctx, env, *img)
	if err != nil {
		return fail(env, err)
	}
	defer eng.Close()
	for _, change := range limits.Changes() {
		fmt.Fprintf(env.stderr, "capsule sandbox: %s\n", change)
	}
	res, err := eng.Run(ctx, sandbox.Spec{Image: *img, Workspace: *workspace, Limits: limits}, sandbox.Run{Cmd: cmd})
	if err != nil {
		return fail(env, err)
	}
	env.stdout.Write(res.Stdout)
	env.stderr.Write(res.Stderr)
	if res.Truncated() {
		fmt.Fprintf(env.stderr, "capsule sandbox: output capped (stdout %d bytes, stderr %d bytes written in all)\n", res.StdoutBytes, res.StderrBytes)
	}
	switch {
	case res.TimedOut:
		fmt.Fprintf(env.stderr, "capsule sandbox: %s\n", res.Reason())
		return 124
	case res.OOMKilled:
		fmt.Fprintf(env.stderr, "capsule sandbox: %s\n", res.Reason())
		return 137
	case (res.PidsLimited || res.DiskFull || res.FilesFull) && !res.Passed():
		fmt.Fprintf(env.stderr, "capsule sandbox: %s\n", res.Reason())
	}
	return res.ExitCode
}

func runSandboxImage(ctx context.Context, env *environment, args []string) int {
	fs := newFlagSet("sandbox image", fmt.Sprintf("Usage: capsule sandbox image [--name NAME] [--rebuild] [--offline] [--quiet]\n\nBuilds a sandbox image, by default %s (--name bigcodebench: %s;\nnode, rust, java, go: the other ecosystems' toolchains and test runners):\nfrom a Dockerfile where a registry is reachable, else offline with debootstrap\nfrom the host's Debian mirror. Does nothing when the image is present.", image.Default(), image.BigCodeBench.Ref()))
	rebuild := fs.Bool("rebuild", false, "build even when the image is present")
	offline := fs.Bool("offline", false, "skip the registry and build with debootstrap")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	name := fs.String("name", image.Python.Key, "the image to build: "+image.Keys())
	if code := parseFlags(fs, env, args); code >= 0 {
		return code
	}
	recipe, ok := image.Lookup(*name)
	if !ok {
		return fail(env, fmt.Errorf("%w: --name: no image %q (valid: %s)", errUsage, *name, image.Keys()))
	}
	eng, err := sandbox.Connect(ctx, sandbox.Options{Logger: env.log})
	if err != nil {
		return fail(env, err)
	}
	defer eng.Close()
	opts := image.Options{Recipe: recipe, Rebuild: *rebuild, Offline: *offline, Progress: env.stderr}
	if *quiet {
		opts.Progress = nil
	}
	start := time.Now()
	method, err := image.Build(ctx, eng.Client(), opts)
	if err != nil {
		return fail(env, fmt.Errorf("build sandbox image: %w", err))
	}
	line := method.Describe(recipe.Ref())
	if method != image.Present {
		line += fmt.Sprintf(" in %s", time.Since(start).Round(time.Second))
	}
	if !*quiet {
		fmt.Fprintln(env.stdout, strings.TrimSpace(line))
	}
	return exitOK
}
