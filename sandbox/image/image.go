// Package image builds Capsule's sandbox images: capsule-python (Debian
// with python3 and pytest), the default; capsule-bigcodebench (the
// default plus the Debian packages of BigCodeBench's libraries); and one
// per other ecosystem, capsule-node, capsule-rust, capsule-java and
// capsule-go, each with its toolchain and test runner usable offline. Where a
// registry is reachable it builds from a Dockerfile; where none is, it
// builds offline from the host's own Debian mirror with debootstrap and
// imports the result.
package image

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/capsulehq/capsule/internal/version"
)

// Name is the repository name of the default image. A bare "capsule-python"
// without a tag means the registry's image of that name, never this one.
const Name = "capsule-python"

// LabelRecipe holds the hash of the recipe an image was built from, so a
// changed recipe triggers a rebuild.
const LabelRecipe = "dev.capsule.recipe"

// Recipe is one image Capsule builds: Debian's minimal system, the
// packages, files and environment variables, then set-up commands.
type Recipe struct {
	// Key is what `capsule sandbox image --name` takes.
	Key string
	// Name is the image's repository name; Ref tags it with Capsule's
	// version.
	Name string
	// Packages are the Debian packages installed, without recommends.
	Packages []string
	// Env holds KEY=VALUE pairs set in the image.
	Env []string
	// Files maps absolute paths in the image to their content.
	Files map[string]string
	// Archives are unpacked into the image after the packages and files,
	// before Setup.
	Archives []Archive
	// Setup are shell commands run as root once the packages, files and
	// archives are in place; a failing one fails the build. They may use
	// the network (the npm registry).
	Setup []string
}

// Python is the default image: python3 and pytest.
var Python = Recipe{
	Key:      "python",
	Name:     Name,
	Packages: []string{"python3", "python3-pytest", "python3-pip", "ca-certificates"},
}

// Packages are the Debian packages of the default image.
var Packages = Python.Packages

// Recipes returns every image Capsule builds, the default first.
func Recipes() []Recipe { return []Recipe{Python, BigCodeBench, Node, Rust, Java, Go} }

// Lookup returns the recipe whose Key or Name is name.
func Lookup(name string) (Recipe, bool) {
	for _, r := range Recipes() {
		if name == r.Key || name == r.Name {
			return r, true
		}
	}
	return Recipe{}, false
}

// Own returns the recipe of ref when ref is one of Capsule's own images,
// which are built by `capsule sandbox image`, never pulled.
func Own(ref string) (Recipe, bool) {
	for _, r := range Recipes() {
		if ref == r.Ref() {
			return r, true
		}
	}
	return Recipe{}, false
}

// Ensurer is what Ensure needs of a sandbox engine.
type Ensurer interface {
	// EnsureImage makes sure ref is present, pulling it when missing if
	// pull is set.
	EnsureImage(ctx context.Context, ref string, pull bool) error
}

// Ensure makes sure the image ref is present: Capsule's own images must
// have been built, and a missing one's error says which command builds
// it; any other image is pulled when missing.
func Ensure(ctx context.Context, e Ensurer, ref string) error {
	r, ours := Own(ref)
	err := e.EnsureImage(ctx, ref, !ours)
	if err != nil && ours {
		return fmt.Errorf("%w; build it with `%s`", err, r.BuildCommand())
	}
	return err
}

// BuildCommand is the command that builds the recipe's image.
func (r Recipe) BuildCommand() string {
	if r.Key == Python.Key {
		return "capsule sandbox image"
	}
	return "capsule sandbox image --name " + r.Key
}

// Keys returns the recipes' keys, comma-separated.
func Keys() string {
	var keys []string
	for _, r := range Recipes() {
		keys = append(keys, r.Key)
	}
	return strings.Join(keys, ", ")
}

// Ref is the recipe's image reference: Name tagged with Capsule's version.
func (r Recipe) Ref() string { return r.Name + ":" + version.Version }

// Default is the reference of the default sandbox image: Name tagged with
// Capsule's version.
func Default() string { return Python.Ref() }

//go:embed Dockerfile.tmpl
var dockerfileSource string

var dockerfileTemplate = template.Must(template.New("Dockerfile").
	Funcs(template.FuncMap{"join": strings.Join}).Parse(dockerfileSource))

// Dockerfile is the recipe for a build where the registry is reachable;
// the build context holds Files under their paths without the leading
// slash.
func (r Recipe) Dockerfile() string {
	var b strings.Builder
	data := struct {
		Recipe
		Paths []string
	}{r, r.paths()}
	if err := dockerfileTemplate.Execute(&b, data); err != nil {
		panic(fmt.Sprintf("image: Dockerfile template: %v", err)) // the template is embedded and tested
	}
	return b.String()
}

// paths returns the paths of Files, sorted.
func (r Recipe) paths() []string {
	var ps []string
	for p := range r.Files {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// Hash identifies the recipe; both build methods label the image with it.
func (r Recipe) Hash() string {
	h := sha256.New()
	h.Write([]byte(r.Dockerfile()))
	for _, p := range r.paths() {
		fmt.Fprintf(h, "\x00%s\x00%s", p, r.Files[p])
	}
	for _, a := range r.Archives {
		fmt.Fprintf(h, "\x01%s\x00%s\x00%s\x00%s", a.URL, a.SHA256, a.Strip, a.Dest)
	}
	sum := h.Sum(nil)
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
