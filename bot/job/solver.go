package job

import (
	"context"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/reposolve"
)

// Solver runs repo mode on a task; *reposolve.Sandboxed is the one the
// App and the Action use.
type Solver interface {
	// Solve returns the outcome (possibly partial) and an error when the
	// configuration, the model or the sandbox failed.
	Solve(ctx context.Context, t reposolve.Task) (*pipeline.RepoOutcome, error)
}
