package main

import (
	"runtime"

	"github.com/capsulehq/capsule/internal/version"
)

func versionString() string {
	return version.Version + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}
