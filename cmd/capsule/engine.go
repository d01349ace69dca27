package main

import (
	"context"

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
	if err := image.Ensure(ctx, eng, ref); err != nil {
		eng.Close()
		return nil, err
	}
	return eng, nil
}
