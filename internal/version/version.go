// Package version holds Capsule's version, set at build time with
// -ldflags "-X github.com/capsulehq/capsule/internal/version.Version=v1.2.3".
package version

// Version is Capsule's release version; it also tags the default sandbox
// image, so it must be a valid Docker tag.
var Version = "0.1.0-dev"
