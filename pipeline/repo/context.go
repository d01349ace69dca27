package repo

import "github.com/capsulehq/capsule/pipeline/repocontext"

// Context builds the repository context Solve gives the model for
// plan: `capsule context` prints it.
func Context(plan Plan) (repocontext.Context, error) {
	return repocontext.Build(plan.Dir, repocontext.Issue{Title: plan.Title, Body: plan.Body}, repocontext.Options{
		Budget:    plan.ContextBudget,
		Protected: plan.readOnly,
	})
}
