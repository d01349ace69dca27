package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/programmer"
)

// testModelEnv names the environment variable of --test-model.
const testModelEnv = "CAPSULE_TEST_MODEL"

// registerTestModel adds --test-model to fs: the operator's choice of the
// test designer's model, never the repository's (the operator pays for
// it).
func registerTestModel(fs *flag.FlagSet) *string {
	return fs.String("test-model", os.Getenv(testModelEnv),
		"model of the test designer, which writes the test that shows the issue, on the same endpoint; default the --model ($"+testModelEnv+")")
}

// testDesigner returns the test designer's client: main's settings with
// the model name, or nil (main's model) when name is empty or main's.
func testDesigner(main *programmer.Client, name string) (pipeline.Model, error) {
	if name == "" || name == main.Config().Model {
		return nil, nil
	}
	cfg := main.Config()
	cfg.Model = name
	c, err := programmer.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: --test-model: %w", errUsage, err)
	}
	return c, nil
}
