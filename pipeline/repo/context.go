package repo

import "github.com/capsulehq/capsule/pipeline/repocontext"

// Context builds the repository context Solve gives the model for
// plan: `capsule context` prints it.
func Context(plan Plan) (repocontext.Context, error) {
	return repocontext.Build(plan.Dir, repocontext.Issue{Title: plan.Title, Body: plan.Body}, ContextOptions(plan))
}

// ContextOptions are the options Context builds with, for a caller that
// adds its own (`capsule context --file` adds Explain).
func ContextOptions(plan Plan) repocontext.Options {
	return repocontext.Options{
		Budget:    plan.ContextBudget,
		Protected: plan.readOnly,
	}
}
