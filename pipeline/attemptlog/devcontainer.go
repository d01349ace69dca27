package attemptlog

import (
	"fmt"
	"strings"

	"github.com/capsulehq/capsule/internal/markdown"
)

// Devcontainer records a job's use of the repository's devcontainer.json:
// the file, the image it names and the one that stood for it, and the
// notes that say what was not supported or not run.
type Devcontainer struct {
	File string `json:"file"`
	// Used is false when .github/capsule.yml set the environment instead.
	Used bool `json:"used"`
	// Image is the image the file names (or its Dockerfile's base);
	// Sandbox the image the job ran in instead.
	Image   string `json:"image,omitempty"`
	Sandbox string `json:"sandbox_image,omitempty"`
	// Dockerfile is the build's Dockerfile, when the file names one.
	Dockerfile string   `json:"dockerfile,omitempty"`
	Setup      string   `json:"setup,omitempty"`
	Env        []string `json:"env,omitempty"` // the names set, without values
	Notes      []string `json:"notes,omitempty"`
}

// Lines renders the record as plain lines, for a terminal: what the file
// gave, then each note.
func (d *Devcontainer) Lines() []string {
	if !d.Used {
		return d.Notes
	}
	first := fmt.Sprintf("the environment comes from %s: image %s stands for %s", d.File, d.Sandbox, d.Image)
	if d.Dockerfile != "" {
		first += ", the base of " + d.Dockerfile
	}
	lines := []string{first}
	if d.Setup != "" {
		lines = append(lines, "set-up: "+d.Setup)
	}
	if len(d.Env) > 0 {
		lines = append(lines, "environment variables: "+strings.Join(d.Env, ", "))
	}
	return append(lines, d.Notes...)
}

// devcontainer writes the record: a sentence naming the file, then its
// lines in a fenced block, since they quote the repository's file.
func (m *rendering) devcontainer(d *Devcontainer) {
	if d == nil {
		return
	}
	if d.Used {
		fmt.Fprintf(m, "The environment comes from `%s`; what Capsule took from it and what it did not:\n\n", d.File)
	} else {
		fmt.Fprintf(m, "`%s` was not used:\n\n", d.File)
	}
	m.WriteString(markdown.Fence("text", strings.Join(d.Lines(), "\n")) + "\n\n")
}
