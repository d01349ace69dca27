// Package image builds Capsule's default sandbox image, capsule-python:
// Debian with python3 and pytest. Where a registry is reachable it builds
// from a Dockerfile; where none is, it builds offline from the host's own
// Debian mirror with debootstrap and imports the result.
package image

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/capsulehq/capsule/internal/version"
)

// Name is the repository name of the default image. A bare "capsule-python"
// without a tag means the registry's image of that name, never this one.
const Name = "capsule-python"

// LabelRecipe holds the hash of the recipe an image was built from, so a
// changed recipe triggers a rebuild.
const LabelRecipe = "dev.capsule.recipe"

// Packages are the Debian packages of the default image.
var Packages = []string{"python3", "python3-pytest", "python3-pip", "ca-certificates"}

// Default is the reference of the default sandbox image: Name tagged with
// Capsule's version.
func Default() string { return Name + ":" + version.Version }

//go:embed Dockerfile.tmpl
var dockerfileTemplate string

// Dockerfile is the recipe for a build where the registry is reachable.
func Dockerfile() string {
	return strings.ReplaceAll(dockerfileTemplate, "{{PACKAGES}}", strings.Join(Packages, " "))
}

// RecipeHash identifies the recipe; both build methods label the image
// with it.
func RecipeHash() string {
	sum := sha256.Sum256([]byte(Dockerfile()))
	return hex.EncodeToString(sum[:8])
}

// Method says how an image came to be.
type Method string

// The ways Build can end.
const (
	Present         Method = "present"     // already there, nothing done
	FromDockerfile  Method = "dockerfile"  // built from the Dockerfile
	FromDebootstrap Method = "debootstrap" // built offline from the host's Debian mirror
)

// Describe is the line `capsule sandbox image` prints.
func (m Method) Describe(ref string) string {
	switch m {
	case Present:
		return fmt.Sprintf("%s is present (use --rebuild to build it again)", ref)
	case FromDockerfile:
		return fmt.Sprintf("built %s from its Dockerfile", ref)
	default:
		return fmt.Sprintf("built %s offline with debootstrap from the host's Debian mirror", ref)
	}
}
