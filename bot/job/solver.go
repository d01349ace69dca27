package job

import (
	"context"

	"github.com/capsulehq/capsule/pipeline/repo"
)

// Solver runs repo mode on a task; *repo.Sandboxed is the one the
// App and the Action use.
type Solver interface {
	// Solve returns the outcome (possibly partial) and an error when the
	// configuration, the model or the sandbox failed.
	Solve(ctx context.Context, t repo.Task) (*repo.Outcome, error)
}
