package repoconfig

import (
	"fmt"
	"strings"
)

// The keys of Capsule's offline images (package sandbox/image's recipes)
// that devcontainer images map to.
const (
	RecipePython = "python"
	RecipeNode   = "node"
	RecipeGo     = "go"
	RecipeRust   = "rust"
	RecipeJava   = "java"
)

// recipeLanguage says what each recipe has, for notes.
var recipeLanguage = map[string]string{
	RecipePython: "Debian bookworm with its python3, pip and pytest",
	RecipeNode:   "Debian bookworm with Node.js",
	RecipeGo:     "Debian bookworm with Go",
	RecipeRust:   "Debian bookworm with Rust and Cargo",
	RecipeJava:   "Debian bookworm with a JDK and Maven",
}

// devImage maps the repository of a registry image to a recipe.
type devImage struct {
	repo   string // without the tag, the registry's library/ prefix or docker.io/
	recipe string
}

// devImages are the registry images devcontainer.json files name most,
// mapped to the Capsule image closest to them. Every image is matched
// without its tag: the version the tag asks for is not honoured.
var devImages = []devImage{
	// The Dev Containers project's images, and their older names.
	{"mcr.microsoft.com/devcontainers/python", RecipePython},
	{"mcr.microsoft.com/vscode/devcontainers/python", RecipePython},
	{"mcr.microsoft.com/devcontainers/base", RecipePython},
	{"mcr.microsoft.com/vscode/devcontainers/base", RecipePython},
	{"mcr.microsoft.com/devcontainers/universal", RecipePython},
	{"mcr.microsoft.com/vscode/devcontainers/universal", RecipePython},
	{"mcr.microsoft.com/devcontainers/javascript-node", RecipeNode},
	{"mcr.microsoft.com/vscode/devcontainers/javascript-node", RecipeNode},
	{"mcr.microsoft.com/devcontainers/typescript-node", RecipeNode},
	{"mcr.microsoft.com/vscode/devcontainers/typescript-node", RecipeNode},
	{"mcr.microsoft.com/devcontainers/go", RecipeGo},
	{"mcr.microsoft.com/vscode/devcontainers/go", RecipeGo},
	{"mcr.microsoft.com/devcontainers/rust", RecipeRust},
	{"mcr.microsoft.com/vscode/devcontainers/rust", RecipeRust},
	{"mcr.microsoft.com/devcontainers/java", RecipeJava},
	{"mcr.microsoft.com/vscode/devcontainers/java", RecipeJava},
	// Docker Hub's official images.
	{"python", RecipePython},
	{"debian", RecipePython},
	{"ubuntu", RecipePython},
	{"buildpack-deps", RecipePython},
	{"node", RecipeNode},
	{"golang", RecipeGo},
	{"rust", RecipeRust},
	{"openjdk", RecipeJava},
	{"eclipse-temurin", RecipeJava},
	{"maven", RecipeJava},
}

// mapImage returns the recipe the registry image ref maps to and the note
// that says so, or an error naming what to set instead.
func mapImage(ref string) (recipe, note string, err error) {
	repo, tag := splitImage(ref)
	for _, d := range devImages {
		if repo != d.repo {
			continue
		}
		note = fmt.Sprintf("image %s is not pulled (no registry is reachable); Capsule's offline %s image stands for it: %s", ref, d.recipe, recipeLanguage[d.recipe])
		if tag != "" && tag != "latest" {
			note += fmt.Sprintf(" (the version of tag %q is not honoured)", tag)
		}
		return d.recipe, note, nil
	}
	return "", "", fmt.Errorf("image %q is not one Capsule can stand in for offline (it maps the Dev Containers images python, base, universal, javascript-node, typescript-node, go, rust and java, and Docker Hub's python, node, golang, rust, openjdk, eclipse-temurin, maven, debian and ubuntu): set image: (an image present in the sandbox's engine) and setup: in %s", shorten(ref, 80), Path)
}

// splitImage splits an image reference into its repository, without
// docker.io/ or library/, and its tag; a digest is dropped.
func splitImage(ref string) (repo, tag string) {
	ref, _, _ = strings.Cut(ref, "@")
	repo = ref
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		repo, tag = ref[:i], ref[i+1:]
	}
	repo = strings.TrimPrefix(repo, "docker.io/")
	repo = strings.TrimPrefix(repo, "index.docker.io/")
	repo = strings.TrimPrefix(repo, "library/")
	return strings.ToLower(repo), tag
}
