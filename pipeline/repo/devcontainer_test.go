package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/sandbox/image"
)

// devcontainerTree writes a tree with a test and the files given.
func devcontainerTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["test_x.py"] = "def test_x():\n    pass\n"
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// dcCase is one case of TestPlanDevcontainer.
type dcCase struct {
	name      string
	dc        string // the devcontainer.json
	config    func(*repoconfig.Config)
	o         func(*Overrides)
	image     string
	setup     string
	env       []string
	used      bool
	notes     []string // each in one of the record's notes
	err       string
	protected bool // the devcontainer.json is protected
}

// TestPlanDevcontainer: a devcontainer.json sets the plan's image, set-up
// and variables when .github/capsule.yml sets neither image: nor setup:,
// and the plan says so either way.
func TestPlanDevcontainer(t *testing.T) {
	python := `{"image": "mcr.microsoft.com/devcontainers/python:3",
	"postCreateCommand": "pip install --user -e .", "containerEnv": {"A": "1"}, "features": {"ghcr.io/x/y:1": {}}}`
	_, hasNode := image.Lookup(repoconfig.RecipeNode)
	tests := []dcCase{
		{name: "python", dc: python, image: image.Default(), setup: "pip install --user -e .", env: []string{"A=1"}, used: true, protected: true,
			notes: []string{"Capsule's offline python image stands for it", "features not installed", "ghcr.io/x/y:1", "the set-up runs without the network: network: true in .github/capsule.yml"}},
		{name: "with the network", dc: python, config: func(c *repoconfig.Config) { c.Network = true }, image: image.Default(), setup: "pip install --user -e .", env: []string{"A=1"}, used: true, protected: true,
			notes: []string{"features not installed"}},
		{name: "image: wins", dc: python, config: func(c *repoconfig.Config) { c.Image = "my/image:1" }, image: "my/image:1",
			notes: []string{".devcontainer/devcontainer.json not used: image: in .github/capsule.yml sets the environment"}},
		{name: "devcontainer: false", dc: python, config: func(c *repoconfig.Config) { c.IgnoreDevcontainer = true }, image: image.Default(),
			notes: []string{"not used: .github/capsule.yml says devcontainer: false"}},
		{name: "setup: wins", dc: python, config: func(c *repoconfig.Config) { c.Setup = "make deps" }, image: image.Default(), setup: "make deps",
			notes: []string{"not used: setup: in .github/capsule.yml"}},
		{name: "the operator's image", dc: python, o: func(o *Overrides) { o.Image = "op/image:2" }, image: "op/image:2", setup: "pip install --user -e .", env: []string{"A=1"}, used: true, protected: true,
			notes: []string{"the sandbox image is the operator's op/image:2, not the python image"}},
		{name: "unknown image", dc: `{"image": "ghcr.io/x/y:1"}`, err: `.devcontainer/devcontainer.json:1: image "ghcr.io/x/y:1" is not one Capsule can stand in for offline`},
		{name: "broken file", dc: "{\n\"image\": \"python:3\"\n\"name\": \"x\"}", err: ".devcontainer/devcontainer.json:3: not valid JSON: invalid character '\"' after object key:value pair"},
	}
	if hasNode {
		r, _ := image.Lookup(repoconfig.RecipeNode)
		tests = append(tests, dcCase{name: "node", dc: `{"image": "node:20"}`, image: r.Ref(), used: true, protected: true})
	} else {
		tests = append(tests, dcCase{name: "node, not built", dc: `{"image": "node:20"}`, err: ".devcontainer/devcontainer.json: image node:20 maps to Capsule's node image, which this Capsule does not build (it builds " + image.Keys() + "): set image:"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := devcontainerTree(t, map[string]string{".devcontainer/devcontainer.json": tt.dc})
			cfg := repoconfig.Default()
			if tt.config != nil {
				tt.config(&cfg)
			}
			o := NoOverrides()
			if tt.o != nil {
				tt.o(&o)
			}
			plan, err := NewPlan(Task{ID: "issue-1", Dir: dir, Config: cfg}, o, testMaxima)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := plan.Devcontainer
			if d == nil {
				t.Fatal("the plan has no devcontainer record")
			}
			if plan.Image != tt.image || plan.Setup != tt.setup || strings.Join(plan.Env, " ") != strings.Join(tt.env, " ") || d.Used != tt.used {
				t.Errorf("image %q setup %q env %q used %v\nwant %q %q %q %v", plan.Image, plan.Setup, plan.Env, d.Used, tt.image, tt.setup, tt.env, tt.used)
			}
			notes := strings.Join(d.Lines(), "\n")
			for _, n := range tt.notes {
				if !strings.Contains(notes, n) {
					t.Errorf("no note has %q:\n%s", n, notes)
				}
			}
			if _, ok := plan.Protected(".devcontainer/devcontainer.json"); ok != tt.protected {
				t.Errorf("devcontainer.json protected: %v, want %v", ok, tt.protected)
			}
		})
	}
}

// TestPlanWithoutDevcontainer: a tree without one, or no tree, has no
// record.
func TestPlanWithoutDevcontainer(t *testing.T) {
	for _, dir := range []string{devcontainerTree(t, map[string]string{}), filepath.Join(t.TempDir(), "gone")} {
		cfg := repoconfig.Default()
		cfg.Test = "pytest"
		plan, err := NewPlan(Task{ID: "issue-1", Dir: dir, Config: cfg}, NoOverrides(), testMaxima)
		if err != nil || plan.Devcontainer != nil || plan.Env != nil {
			t.Errorf("%s: %+v, %v", dir, plan.Devcontainer, err)
		}
	}
}
