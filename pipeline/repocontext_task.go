package pipeline

import "github.com/capsulehq/capsule/pipeline/repocontext"

// RepoContext builds the repository context SolveRepo gives the model for
// task: `capsule context` prints it.
func RepoContext(task RepoTask) (repocontext.Context, error) {
	return repocontext.Build(task.Repo, repocontext.Issue{Title: task.Title, Body: task.Body}, repocontext.Options{
		Budget:    task.ContextBudget,
		Protected: task.readOnly,
	})
}
