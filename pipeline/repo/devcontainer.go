package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/sandbox/agent"
	"github.com/capsulehq/capsule/sandbox/image"
)

// devcontainer applies the devcontainer.json of the tree at dir to cfg
// when cfg sets neither image: nor setup:, nor devcontainer: false (see
// repoconfig.Devcontainer): its set-up becomes cfg's, and its image the
// Capsule image that stands for it, unless the operator's imageOverride
// names one. It returns the
// record for the log, with the environment variables to set; nil when
// the tree has no devcontainer.json. A devcontainer.json that cfg
// overrides is recorded as not used.
func devcontainer(cfg *repoconfig.Config, dir, imageOverride string) (*attemptlog.Devcontainer, []string, error) {
	if dir == "" {
		return nil, nil, nil
	}
	src := cfg.Source
	if src == "" {
		src = repoconfig.Path
	}
	if cfg.Image != "" || cfg.Setup != "" || cfg.IgnoreDevcontainer {
		file, _, err := repoconfig.FindDevcontainer(dir)
		if file == "" || err != nil {
			return nil, nil, ignoreMissing(err)
		}
		why := fmt.Sprintf("image: in %s sets the environment", src)
		switch {
		case cfg.IgnoreDevcontainer:
			why = src + " says devcontainer: false"
		case cfg.Image == "":
			why = fmt.Sprintf("setup: in %s sets the environment", src)
		}
		return &attemptlog.Devcontainer{File: file, Notes: []string{file + " not used: " + why}}, nil, nil
	}
	d, err := repoconfig.ReadDevcontainer(dir, agent.Workspace)
	if d == nil || err != nil {
		return nil, nil, ignoreMissing(err)
	}
	rec := &attemptlog.Devcontainer{File: d.File, Used: true, Image: d.Image, Dockerfile: d.Dockerfile, Setup: d.Setup, Notes: d.Notes}
	for _, kv := range d.Env {
		name, _, _ := strings.Cut(kv, "=")
		rec.Env = append(rec.Env, name)
	}
	cfg.Setup = d.Setup
	if imageOverride != "" {
		rec.Sandbox = imageOverride
		rec.Notes = append(rec.Notes, fmt.Sprintf("the sandbox image is the operator's %s, not the %s image %s maps to", imageOverride, d.Recipe, d.Image))
	} else {
		r, ok := image.Lookup(d.Recipe)
		if !ok {
			return nil, nil, fmt.Errorf("%s: image %s maps to Capsule's %s image, which this Capsule does not build (it builds %s): set image: (an image present in the sandbox's engine) and setup: in %s", d.File, d.Image, d.Recipe, image.Keys(), src)
		}
		rec.Sandbox = r.Ref()
		if r.Ref() != image.Default() {
			cfg.Image = r.Ref()
		}
	}
	if d.Setup != "" && !cfg.Network {
		rec.Notes = append(rec.Notes, "the set-up runs without the network: network: true in "+src+" gives it the network (the tests never have it)")
	}
	return rec, d.Env, nil
}

// ignoreMissing is err, or nil when it says the tree does not exist:
// such a tree has no devcontainer.json, and the plan reports the tree.
func ignoreMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// protectDevcontainer extends protect to the devcontainer.json the plan's
// environment came from and its Dockerfile, which no answer may change.
func protectDevcontainer(protect func(string) (string, bool), rec *attemptlog.Devcontainer) func(string) (string, bool) {
	if rec == nil || !rec.Used {
		return protect
	}
	files := []string{rec.File, rec.Dockerfile}
	return func(p string) (string, bool) {
		for _, f := range files {
			if f != "" && p == f {
				return f, true
			}
		}
		return protect(p)
	}
}

// devcontainerSetupFix is what to fix when the plan's set-up, taken from
// a devcontainer.json, fails; fix when the set-up is setup:'s.
func devcontainerSetupFix(plan Plan, fix string) string {
	d := plan.Devcontainer
	if d == nil || !d.Used {
		return fix
	}
	return "make the set-up taken from " + d.File + " (its Dockerfile's RUN commands, then onCreateCommand, updateContentCommand and postCreateCommand) succeed in Capsule's offline image, or set `setup:` in .github/capsule.yml; it has the network only with `network: true`"
}
