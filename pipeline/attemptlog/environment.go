package attemptlog

import (
	"fmt"
	"strings"

	"github.com/capsulehq/capsule/internal/markdown"
)

// Environment says why a job's tests cannot run at all in the sandbox: its
// set-up failed, or the environment cannot run the test command (not
// found, no test runner, nothing collected, a third-party module missing).
// The job stops there, before any model call.
type Environment struct {
	// Phase is the step that failed: "set-up" or "baseline".
	Phase string `json:"phase"`
	// What says what failed, e.g. "`pytest` was not found (exit status 127)".
	What string `json:"what"`
	// Command is the command that failed, as configured.
	Command string `json:"command"`
	// Tail is the last lines of the command's output.
	Tail string `json:"tail,omitempty"`
	// Fix says what to change in the repository's configuration.
	Fix string `json:"fix"`
}

// Text renders the failure as plain text, for a terminal and for
// Log.Stopped: what failed, the command, what to fix, and the output's
// tail, indented.
func (e *Environment) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s The %s failed: %s.\nCommand: %s\nFix: %s\n", noModel, e.Phase, e.What, e.Command, e.Fix)
	if e.Tail != "" {
		b.WriteString("The output's last lines:\n")
		for _, l := range strings.Split(e.Tail, "\n") {
			b.WriteString("    " + l + "\n")
		}
	}
	return b.String()
}

// noModel opens both renderings of a failure of the environment.
const noModel = "The tests cannot run in the sandbox, so no model was asked (0 tokens spent)."

// Report renders the failure for people in Markdown: what failed, the
// command, what to fix, and the output's tail.
func (e *Environment) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s The %s failed: %s.\n\n", noModel, e.Phase, e.What)
	fmt.Fprintf(&b, "Command: `%s`\n\n", e.Command)
	fmt.Fprintf(&b, "Fix: %s\n", e.Fix)
	if e.Tail != "" {
		fmt.Fprintf(&b, "\nThe output's last lines:\n\n%s\n", markdown.Fence("text", e.Tail))
	}
	return b.String()
}
