package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// newFlagSet makes the flag set of subcommand name, whose help prints
// usage and then the flags (see printFlags).
func newFlagSet(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), strings.TrimRight(usage, "\n"))
		printFlags(fs.Output(), fs)
	}
	return fs
}

// parseFlags parses args with fs and maps the outcome to an exit code:
// -1 to go on, exitOK after the help (-h), which goes to standard output,
// exitUsage on a bad flag, which is said with the help on standard error.
// With env.parseOnly, flags that parse end the subcommand with exitOK.
func parseFlags(fs *flag.FlagSet, env *environment, args []string) int {
	usage := fs.Usage
	fs.Usage = func() {} // the flag package's call; printed below where it belongs
	fs.SetOutput(env.stderr)
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(env.stdout)
		fs.Usage()
		return exitOK
	case err != nil:
		fs.Usage()
		return exitUsage
	case env.parseOnly:
		env.leftArgs = fs.Args()
		return exitOK
	}
	return -1
}

// secretFlags are the flags whose value (from the environment) help must
// not print.
var secretFlags = map[string]bool{"api-key": true, "private-key": true, "webhook-secret": true, "database": true}

// argName is a flag usage's `NAME` of its argument.
var argName = regexp.MustCompile("`([A-Z][A-Z0-9_]*)`")

// printFlags writes fs's flags, each once: its name and the name of its
// argument (a `NAME` in its usage, else its type), its usage, and its
// default unless the usage tells it or it is the zero value. A secret's
// value is never printed.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprintln(w, "\nFlags:")
			first = false
		}
		usage, arg := f.Usage, ""
		if m := argName.FindStringSubmatchIndex(usage); m != nil {
			arg = usage[m[2]:m[3]]
			usage = usage[:m[0]] + arg + usage[m[1]:]
		} else if arg, _ = flag.UnquoteUsage(&flag.Flag{Value: f.Value}); arg != "" {
			arg = strings.ToUpper(arg)
		}
		fmt.Fprintf(w, "  --%s", f.Name)
		if arg != "" {
			fmt.Fprintf(w, " %s", arg)
		}
		fmt.Fprintf(w, "\n        %s", usage)
		switch def := f.DefValue; {
		case def == "" || def == "0" || def == "false" || def == "0s":
		case secretFlags[f.Name]:
			fmt.Fprint(w, " (set; not shown)")
		case strings.Contains(usage, "default"):
		case arg == "STRING":
			fmt.Fprintf(w, " (default %q)", def)
		default:
			fmt.Fprintf(w, " (default %s)", def)
		}
		fmt.Fprintln(w)
	})
}
