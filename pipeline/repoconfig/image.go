package repoconfig

import (
	"path"
	"strings"
)

// imageTools maps the programs a test command may run to the key of the
// Capsule image that has them (`capsule sandbox image --name KEY`).
var imageTools = map[string]string{
	"npm": "node", "npx": "node", "pnpm": "node", "yarn": "node", "node": "node", "jest": "node", "vitest": "node",
	"cargo": "rust", "rustc": "rust",
	"mvn": "java", "mvnw": "java", "gradle": "java", "gradlew": "java", "java": "java",
	"go": "go",
}

// ImageFor names the Capsule image a test command needs: the key of
// `capsule sandbox image --name` ("node", "rust", "java" or "go") and the
// program that decided it, taken from the first word of the command that
// names one of those toolchains' programs. Both are "" when none does:
// the default image (Python) runs the command.
func ImageFor(command string) (key, program string) {
	for _, word := range programs(command) {
		if key, ok := imageTools[word]; ok {
			return key, word
		}
	}
	return "", ""
}

// programs returns the words of a shell command without their folders
// (./mvnw is mvnw), split at white space and the shell's operators and
// quotes: a rough reading, enough to spot the programs it names.
func programs(command string) []string {
	words := strings.FieldsFunc(command, func(r rune) bool {
		return strings.ContainsRune(" \t\n;&|()`$<>\"'", r)
	})
	for i, w := range words {
		words[i] = path.Base(w)
	}
	return words
}
