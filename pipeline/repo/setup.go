package repo

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/setupcache"
	"github.com/capsulehq/capsule/pipeline/setupsecret"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/agent"
)

// layered is a sandbox whose committed set-up can be exported and
// restored: *sandbox.Session. The set-up cache and the set-up secrets,
// whose kept result must be scanned, need it.
type layered interface {
	ImageID(ctx context.Context) (string, error)
	ExportLayer(ctx context.Context, w io.Writer) (sandbox.LayerInfo, error)
	RestoreLayer(ctx context.Context, archive string) (time.Duration, error)
}

// setup brings the sandbox to the state after the set-up: it restores
// the kept set-up of the same key when the plan has a cache that holds
// one; else it runs the set-up command once (with its secrets when the
// set-up inputs can be trusted), committing what it leaves as the
// starting state of every test run, checks that no secret was left in
// it, and keeps it. The network is cut after.
func setup(ctx context.Context, box Sandbox, plan Plan, log *attemptlog.Log) (bool, error) {
	lb, isLayered := box.(layered)
	inputs, err := setupcache.Inputs(plan.Dir, plan.SetupInputs)
	if err != nil {
		return false, err
	}
	secrets := trustedSecrets(ctx, plan, inputs, isLayered, log)
	logger := cmp.Or(plan.Logger, slog.Default())

	cache := plan.SetupCache
	if !isLayered {
		cache = nil
	}
	var id string
	var key setupcache.Key
	if cache != nil {
		imageID, err := lb.ImageID(ctx)
		if err != nil {
			return false, err
		}
		key = setupcache.Key{Repository: plan.Repository, Installation: plan.Installation, ImageID: imageID, Setup: plan.Setup, Network: plan.SetupNetwork,
			Inputs: setupcache.Digest(inputs), Secrets: secrets.Names(), Env: plan.Env}
		id = key.ID()
		e, ok, why, err := cache.Lookup(id, func() (string, error) { return setupcache.TreeDigest(plan.Dir) })
		if err != nil {
			return false, err
		}
		if ok {
			took, err := lb.RestoreLayer(ctx, e.Archive)
			if err != nil {
				return false, err
			}
			log.SetupCache = &attemptlog.SetupCache{Key: id, Reused: true, Copy: took, Built: e.Meta.SetupTime, Bytes: e.Meta.Bytes}
			logger.Info("set-up: reused the kept set-up", "key", id, "copy", took, "built_in", e.Meta.SetupTime, "bytes", e.Meta.Bytes)
			return true, cutNetwork(ctx, box, plan)
		}
		log.SetupCache = &attemptlog.SetupCache{Key: id, Why: why}
	}

	cmd := []string{"sh", "-c", plan.Setup}
	res, err := box.Run(ctx, sandbox.Run{Cmd: cmd, Env: secrets.Env(), Commit: true, Timeout: plan.Limits.Timeout})
	if err != nil {
		return false, fmt.Errorf("set-up: %w", err)
	}
	log.Setup = runRecord(cmd, plan.Settings.Image, res)
	var printed []setupsecret.Hit
	log.Setup.Output, printed = secrets.Redact(log.Setup.Output)
	if err := cutNetwork(ctx, box, plan); err != nil {
		return false, err
	}
	if !log.Setup.Passed {
		return setupFailed(log, setupFailure(plan, log.Setup))
	}
	if len(printed) > 0 {
		h := printed[0]
		return setupFailed(log, &attemptlog.Environment{Phase: "set-up", Command: plan.Setup,
			What: fmt.Sprintf("the set-up printed the value of its secret %s (%s); the record shows it redacted", h.Name, h.How),
			Fix:  "keep the set-up from printing its secrets (no `set -x`, no echo of the token or of a URL that holds it)"})
	}
	if cache == nil && len(secrets) == 0 {
		return true, nil
	}
	kept, leak, err := keepSetup(ctx, lb, plan, cache, id, key, secrets, res.Duration)
	if err != nil {
		return false, err
	}
	if leak != nil {
		if log.SetupCache != nil {
			log.SetupCache.NotKept = "it left a secret in the workspace"
		}
		return setupFailed(log, &attemptlog.Environment{Phase: "set-up", Command: plan.Setup, What: leak.Error(),
			Fix: "give the secret to the tool in the environment only, and write no file that holds it (or remove it before the set-up ends)"})
	}
	if log.SetupCache != nil {
		log.SetupCache.Kept, log.SetupCache.NotKept, log.SetupCache.Bytes, log.SetupCache.Evicted = kept.kept, kept.notKept, kept.bytes, kept.evicted
		logger.Info("set-up: ran", "key", id, "why", log.SetupCache.Why, "took", res.Duration, "kept", kept.kept, "not_kept", kept.notKept, "bytes", kept.bytes, "evicted", kept.evicted)
	}
	return true, nil
}

// setupFailed records a set-up that failed and stops the job.
func setupFailed(log *attemptlog.Log, env *attemptlog.Environment) (bool, error) {
	log.Environment = env
	log.Stopped = env.Text()
	return false, nil
}

// cutNetwork cuts the sandbox's network after a set-up that had it.
func cutNetwork(ctx context.Context, box Sandbox, plan Plan) error {
	if !plan.SetupNetwork {
		return nil
	}
	if err := box.CutNetwork(ctx); err != nil {
		return fmt.Errorf("cut the network after set-up: %w", err)
	}
	return nil
}

// keeping is what keepSetup did with a set-up's result.
type keeping struct {
	kept    bool
	notKept string
	bytes   int64
	evicted int
}

// keepSetup exports what the set-up left, scans it for the secrets'
// values (a leak is returned, and nothing is kept) and, with a cache,
// keeps it under id.
func keepSetup(ctx context.Context, lb layered, plan Plan, cache *setupcache.Cache, id string, key setupcache.Key, secrets setupsecret.Set, took time.Duration) (keeping, *setupcache.Leak, error) {
	var f *os.File
	var err error
	if cache != nil {
		f, err = cache.Temp()
	} else {
		f, err = os.CreateTemp("", "capsule-setup-*.tar")
	}
	if err != nil {
		return keeping{}, nil, err
	}
	defer os.Remove(f.Name())
	info, err := lb.ExportLayer(ctx, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return keeping{}, nil, err
	}
	found, err := setupcache.Inspect(f.Name(), secrets, agent.Workspace)
	if err != nil || found.Leak != nil || cache == nil {
		return keeping{}, found.Leak, err
	}
	k := keeping{bytes: info.Bytes}
	meta := setupcache.Meta{Key: key, Created: time.Now().UTC(), Bytes: info.Bytes, Entries: info.Entries, SetupTime: took}
	if plan.TrustedInput != nil {
		// A round's tree holds answers and pushes no one merged: a set-up
		// that runs its code must not become every later job's start.
		k.notKept = "the tree is not the default branch's head, and only a set-up of that tree is kept"
		return k, nil, nil
	}
	if len(info.Deleted) > 0 {
		k.notKept = fmt.Sprintf("the set-up deleted %s from the repository's tree", strings.Join(first(info.Deleted, 3), ", "))
		return k, nil, nil
	}
	inputs, err := setupcache.Inputs(plan.Dir, plan.SetupInputs)
	if err != nil {
		return k, nil, err
	}
	changed := slices.DeleteFunc(slices.Clone(info.Changed), func(p string) bool {
		return slices.ContainsFunc(inputs, func(in setupcache.Input) bool { return in.Path == p })
	})
	switch {
	case len(found.SourceInstalled) > 0:
		meta.SourceWhy = "installed the repository's source without -e (" + strings.Join(first(found.SourceInstalled, 3), ", ") + ")"
	case len(changed) > 0:
		meta.SourceWhy = "changed the repository's " + strings.Join(first(changed, 3), ", ")
	}
	if meta.SourceWhy != "" {
		if meta.Source, err = setupcache.TreeDigest(plan.Dir); err != nil {
			return k, nil, err
		}
	}
	evicted, err := cache.Put(id, meta, f.Name())
	if err != nil {
		return k, nil, err
	}
	k.kept, k.evicted = true, len(evicted)
	return k, nil, nil
}

// first is the first n items of list, with a count of the rest.
func first(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	return append(slices.Clone(list[:n]), fmt.Sprintf("%d more", len(list)-n))
}

// trustedSecrets returns the secrets the set-up may have, and says in
// the log which: none when the set-up inputs of the tree differ from
// those of the default branch's base commit (Task.TrustedInput), which
// an answer or a round may have changed, or when the sandbox cannot
// export what the set-up leaves, which must be scanned for them.
func trustedSecrets(ctx context.Context, plan Plan, inputs []setupcache.Input, isLayered bool, log *attemptlog.Log) setupsecret.Set {
	if len(plan.SetupSecretNames) == 0 {
		return nil
	}
	note := &attemptlog.SetupSecrets{Missing: plan.SecretsMissing}
	log.SetupSecrets = note
	withhold := func(why string) setupsecret.Set {
		note.Withheld = why + "; the set-up ran without " + strings.Join(plan.SetupSecretNames, ", ")
		return nil
	}
	if !isLayered {
		return withhold("this sandbox cannot export the set-up's result to scan it for them")
	}
	if plan.TrustedInput != nil {
		for _, in := range inputs {
			data, ok, err := plan.TrustedInput(ctx, in.Path)
			switch sum := sha256.Sum256(data); {
			case err != nil:
				return withhold(fmt.Sprintf("%s could not be read at the default branch's base commit (%v)", in.Path, err))
			case !ok:
				return withhold(in.Path + " is not in the default branch's base commit")
			case hex.EncodeToString(sum[:]) != in.Sum:
				return withhold(in.Path + " differs from the default branch's base commit")
			}
		}
	}
	note.Given = plan.SetupSecrets.Names()
	return plan.SetupSecrets
}
