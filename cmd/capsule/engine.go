package main

import (
	"context"
	"fmt"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
)

// openEngine connects to the Docker engine and makes sure the image ref is
// there: Capsule's own images must have been built; any other is pulled
// when missing.
func openEngine(ctx context.Context, env *environment, ref string) (*sandbox.Engine, error) {
	eng, err := sandbox.Connect(ctx, sandbox.Options{Logger: env.log})
	if err != nil {
		return nil, err
	}
	recipe, ours := image.Own(ref)
	if err := eng.EnsureImage(ctx, ref, !ours); err != nil {
		eng.Close()
		if ours {
			err = fmt.Errorf("%w; build it with `%s`", err, recipe.BuildCommand())
		}
		return nil, err
	}
	return eng, nil
}
