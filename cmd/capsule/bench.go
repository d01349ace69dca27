package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/bench/report"
	"github.com/capsulehq/capsule/datasets"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/budget"
	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
)

func runBench(ctx context.Context, env *environment, args []string) int {
	fs := newFlagSet("bench", fmt.Sprintf("Usage: capsule bench --dataset NAME|FILE --out DIR [--model M --base-url URL] [flags]\n       capsule bench --list\n\nReruns a function-level benchmark with the self-debugging loop and writes\nresults.jsonl, summary.json and chart.svg into --out.\n\nShipped datasets (--list shows their sizes and sources):\n  %s", datasets.Names()))
	var (
		mf     modelFlags
		cfg    bench.Config
		format = fs.String("format", "auto", "dataset format: "+formatList())
		tasks  = fs.String("tasks", "", "comma-separated task IDs to run")
		list   = fs.Bool("list", false, "print the datasets shipped with Capsule and exit")
		write  = fs.String("write-reference-times", "", "run only the reference solutions, one run each, and write their CPU times to `FILE` (as shipped in datasets/reference-times/); no model is asked")
	)
	mf.register(fs)
	cfg.Loop = pipeline.DefaultSettings()
	fs.StringVar(&cfg.Dataset, "dataset", "", "a shipped dataset's name, or a dataset file (.jsonl, .jsonl.gz or MBPP's .json) (required)")
	fs.IntVar(&cfg.Limit, "limit", 0, "run the first N problems in file order (0: all)")
	fs.IntVar(&cfg.Workers, "workers", 1, "problems solved in parallel, each in its own warm sandbox")
	fs.StringVar(&cfg.Out, "out", "", "output directory; a rerun with the same directory resumes (required)")
	fs.IntVar(&cfg.Loop.MaxAttempts, "max-attempts", pipeline.DefaultMaxAttempts, "fix attempts after the first generation")
	fs.IntVar(&cfg.Loop.History, "history", cfg.Loop.History, "earlier (code, feedback) pairs kept in fix calls")
	fs.Var((*feedbackFlag)(&cfg.Loop.Feedback), "feedback", "feedback to the model, a `MODE`: refined or raw (the ablation)")
	fs.DurationVar(&cfg.Loop.TestCPU, "test-cpu", pipeline.DefaultTestCPU, "CPU-time limit of one test run, the least any problem gets (whole seconds)")
	fs.DurationVar(&cfg.Loop.TestCPU, "test-timeout", pipeline.DefaultTestCPU, "former name of --test-cpu")
	fs.Float64Var(&cfg.CPUFactor, "cpu-factor", bench.DefaultCPUFactor, "a problem's CPU-time limit is this times its reference solution's CPU time when that is more than --test-cpu (0: do not measure the references)")
	fs.StringVar(&cfg.Calibrate, "calibrate", bench.CalibrateQuick, "how the references size the limits, a `MODE`: quick (the dataset's shipped reference times, scaled by a run of "+fmt.Sprint(bench.CalibrationRuns)+" references) or full (every problem's reference runs first; the mode of a dataset given by path)")
	fs.StringVar(&cfg.Split, "split", "", "the prompts of a dataset that has several: instruct (BigCodeBench's default, as in the paper) or complete")
	img := fs.String("image", "", "sandbox image (default "+image.Default()+", "+image.BigCodeBench.Ref()+" for bigcodebench)")
	memory := byteSize(sandbox.DefaultMemory)
	fs.Var(&memory, "memory", "memory of a problem's sandbox, a `SIZE` such as 4g, with no swap (2 GiB for bigcodebench)")
	var price budget.Price
	fs.Var((*dollars)(&price.Input), "price-input", "price of prompt tokens, US dollars per million (an `AMOUNT`): the summary then gives the cost")
	fs.Var((*dollars)(&price.Output), "price-output", "price of completion tokens, US dollars per million (an `AMOUNT`)")
	if code := parseFlags(fs, env, args); code >= 0 {
		return code
	}
	if *list && fs.NArg() == 0 {
		if err := writeDatasets(env.stdout); err != nil {
			return fail(env, err)
		}
		return exitOK
	}
	if cfg.Dataset == "" || (cfg.Out == "" && *write == "") || fs.NArg() > 0 {
		fmt.Fprintln(env.stderr, "capsule bench: need --dataset NAME or FILE and --out DIR (or --write-reference-times FILE), and no other arguments")
		return exitUsage
	}
	if err := bench.CheckDataset(cfg.Dataset); err != nil {
		return fail(env, fmt.Errorf("%w: --dataset: %w", errUsage, err))
	}
	var err error
	if cfg.Format, err = dataset.ParseFormat(*format); err != nil {
		return fail(env, fmt.Errorf("%w: --format: %w", errUsage, err))
	}
	if price != (budget.Price{}) {
		cfg.Price = &price
	}
	if cfg.CPUFactor < 0 {
		return fail(env, fmt.Errorf("%w: --cpu-factor must not be negative", errUsage))
	}
	if cfg.Calibrate != bench.CalibrateQuick && cfg.Calibrate != bench.CalibrateFull {
		return fail(env, fmt.Errorf("%w: --calibrate must be %s or %s", errUsage, bench.CalibrateQuick, bench.CalibrateFull))
	}
	if err := cfg.Loop.Validate(); err != nil {
		return fail(env, fmt.Errorf("%w: %w", errUsage, err))
	}
	if *tasks != "" {
		cfg.Tasks = strings.Split(*tasks, ",")
	}
	if cfg.Workers < 1 {
		return fail(env, fmt.Errorf("%w: --workers must be at least 1", errUsage))
	}
	defaults := bench.SandboxFor(cfg.Dataset)
	if *img == "" {
		*img = defaults.Image
	}
	if !flagSet(fs, "memory") {
		memory = byteSize(defaults.Limits.Memory)
	}

	cfg.Sandbox = sandbox.Spec{Image: *img, Limits: defaults.Limits}
	cfg.Sandbox.Limits.Memory = int64(memory)
	cfg.Sandbox.Limits.Timeout = harness.Program{CPULimit: cfg.Loop.TestCPU}.HardWallLimit() + 10*time.Second
	cfg.Progress = env.stderr
	if *write != "" {
		return writeReferenceTimes(ctx, env, cfg, *write, args)
	}

	client, err := mf.client(ctx)
	if err != nil {
		return fail(env, err)
	}
	eng, err := openEngine(ctx, env, *img)
	if err != nil {
		return fail(env, err)
	}
	defer eng.Close()
	cfg.Model = client.Config().Model
	cfg.Loop.Model, cfg.Loop.Image = cfg.Model, *img

	oc, err := bench.Run(ctx, cfg, client, eng)
	if err != nil {
		return fail(env, err)
	}
	if oc.Broken > 0 {
		fmt.Fprintf(env.stderr, "note: %d problems have unsound upstream evaluation tests (see the dataset's SOURCE.txt); they count as unsolved\n", oc.Broken)
	}
	if err := report.WriteTable(env.stdout, oc.Summary); err != nil {
		return fail(env, err)
	}
	fmt.Fprintf(env.stdout, "\nresults in %s (%s, %s, %s)\n", cfg.Out, bench.ResultsFile, bench.SummaryFile, bench.ChartFile)
	return exitOK
}

// writeReferenceTimes measures the references of cfg's dataset and writes
// their times to path.
func writeReferenceTimes(ctx context.Context, env *environment, cfg bench.Config, path string, args []string) int {
	eng, err := openEngine(ctx, env, cfg.Sandbox.Image)
	if err != nil {
		return fail(env, err)
	}
	defer eng.Close()
	rt, err := bench.MeasureReferences(ctx, cfg, eng, "capsule bench "+strings.Join(args, " "))
	if err != nil {
		return fail(env, err)
	}
	if err := bench.WriteReferenceTimes(path, rt); err != nil {
		return fail(env, err)
	}
	fmt.Fprintf(env.stdout, "%d reference times of %s written to %s\n", len(rt.Times), rt.Dataset, path)
	return exitOK
}

// writeDatasets prints the shipped datasets as a table.
func writeDatasets(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPROBLEMS\tUNSOUND\tDATASET\tLICENSE\tSOURCE (GitHub)")
	for _, d := range datasets.All() {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", d.Name, d.Problems, d.Unsound, d.Title, d.License, d.Source)
	}
	fmt.Fprintln(tw, "\nUnsound: problems whose upstream evaluation tests fail their own reference\nsolution; they count as unsolved. Each dataset's SOURCE.txt and licence are\nin the datasets/ folder of Capsule's repository.")
	return tw.Flush()
}

func formatList() string {
	var names []string
	for _, f := range dataset.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// flagSet reports whether the command line set the named flag.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
