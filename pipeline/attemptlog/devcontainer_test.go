package attemptlog

import (
	"strings"
	"testing"
)

// TestDevcontainerMarkdown: the record renders as a sentence and a fenced
// block that text from the repository (backticks included) cannot close;
// a file not used is one line.
func TestDevcontainerMarkdown(t *testing.T) {
	tests := []struct {
		name string
		d    *Devcontainer
		want string
	}{
		{"used", &Devcontainer{File: ".devcontainer/devcontainer.json", Used: true, Image: "mcr.microsoft.com/devcontainers/python:3", Sandbox: "capsule-python:1",
			Setup: "echo ```", Env: []string{"A"}, Notes: []string{"features not installed: x"}},
			"The environment comes from `.devcontainer/devcontainer.json`; what Capsule took from it and what it did not:\n\n" +
				"````text\nthe environment comes from .devcontainer/devcontainer.json: image capsule-python:1 stands for mcr.microsoft.com/devcontainers/python:3\n" +
				"set-up: echo ```\nenvironment variables: A\nfeatures not installed: x\n````\n\n"},
		{"with a Dockerfile", &Devcontainer{File: ".devcontainer.json", Used: true, Image: "python:3", Sandbox: "capsule-python:1", Dockerfile: "Dockerfile"},
			"The environment comes from `.devcontainer.json`; what Capsule took from it and what it did not:\n\n" +
				"```text\nthe environment comes from .devcontainer.json: image capsule-python:1 stands for python:3, the base of Dockerfile\n```\n\n"},
		{"not used", &Devcontainer{File: ".devcontainer.json", Notes: []string{".devcontainer.json not used: image: in .github/capsule.yml sets the environment"}},
			"`.devcontainer.json` was not used:\n\n```text\n.devcontainer.json not used: image: in .github/capsule.yml sets the environment\n```\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m rendering
			m.devcontainer(tt.d)
			if got := m.String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			var md strings.Builder
			if err := (&Log{Devcontainer: tt.d}).WriteMarkdown(&md); err != nil || !strings.Contains(md.String(), tt.want) {
				t.Errorf("the log's Markdown lacks the record (%v):\n%s", err, md.String())
			}
		})
	}
}
