package repo

import (
	"cmp"
	"context"
	"fmt"
	"github.com/capsulehq/capsule/pipeline"
	"path"
	"strings"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/gate"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repocontext"
	"github.com/capsulehq/capsule/pipeline/response"
	"github.com/capsulehq/capsule/pipeline/testreport"
)

// Reproduce says whether a job first has the test designer write a test
// that shows the issue.
type Reproduce string

// The reproduction modes.
const (
	// ReproduceAuto writes a reproducing test when the issue names no
	// failing test, and goes on without one (an unproven fix at best)
	// when none is accepted.
	ReproduceAuto Reproduce = "auto"
	// ReproduceRequired ends a job not solved when no test shows the
	// issue.
	ReproduceRequired Reproduce = "required"
	// ReproduceOff never writes one.
	ReproduceOff Reproduce = "off"
)

// ParseReproduce reads a reproduction mode; "" is ReproduceAuto.
func ParseReproduce(s string) (Reproduce, error) {
	switch r := Reproduce(cmp.Or(s, string(ReproduceAuto))); r {
	case ReproduceAuto, ReproduceRequired, ReproduceOff:
		return r, nil
	}
	return "", fmt.Errorf("reproduce must be auto, required or off, got %q", s)
}

// DefaultReproduceTries is how many answers the test designer may give
// for one job when Plan.ReproduceTries is zero.
const DefaultReproduceTries = 3

// reproFile is the reproducing test's file name (see placeRepro).
const reproFile = "test_capsule_reproduction.py"

// reproduce has the test designer write a new test file that fails on the
// untouched tree, when the job has per-test results and the issue names no
// failing test. A file that is not collected, errors before its tests
// run, or passes, goes back to the designer with why and the output of its
// own tests, within plan.ReproduceTries answers. The accepted file becomes
// the job's targets and is returned, to lay under every attempt; nil when
// none was accepted or none was asked for. It records all of it in
// log.Reproduction.
func reproduce(ctx context.Context, model pipeline.Model, box Sandbox, plan Plan, rc repocontext.Context, pf *proof, log *attemptlog.Log) (*edits.Edit, error) {
	rec := &attemptlog.Reproduction{Mode: string(cmp.Or(plan.Reproduce, ReproduceAuto))}
	log.Reproduction = rec
	switch {
	case plan.Reproduce == ReproduceOff:
		rec.Skipped = "reproduce: off"
	case pf.baseline == nil:
		rec.Skipped = "the tests give no per-test results to check a reproducing test against"
	case len(pf.targets) > 0:
		rec.Skipped = "the issue names tests that fail on the untouched tree"
	}
	var pl placement
	if rec.Skipped == "" {
		pl, rec.Skipped = place(plan.Dir, pf, rc)
	}
	if rec.Skipped != "" {
		return nil, nil
	}
	designer := model
	if plan.TestModel != nil {
		designer = plan.TestModel
	}
	dt := programmer.DesignTask{Title: plan.Title, Body: plan.Body, Context: rc.Text + pl.nearby(plan.Dir, rc), Path: pl.Path, Language: pl.lang, Package: pl.pkgName, Class: pl.class, Framework: pl.framework, Crate: pl.crate, Edition: pl.edition}
	rec.File, rec.Placed = dt.Path, pl.Why
	msgs := dt.Messages()
	tries := cmp.Or(plan.ReproduceTries, DefaultReproduceTries)
	for range tries {
		reply, err := designer.Complete(ctx, msgs)
		if err != nil {
			return nil, fmt.Errorf("test designer: %w", err)
		}
		try := attemptlog.DesignTry{Answer: reply.Content, PromptTokens: reply.PromptTokens, CompletionTokens: reply.CompletionTokens, ModelDuration: reply.Duration}
		file, content, problem := designedFile(reply.Content, dt.Path, func(p string) string { return pl.check(plan.Dir, p) })
		if problem == "" && pl.lang == programmer.JavaTest {
			problem = onlyFile(reply.Content, file)
		}
		var output string
		if problem == "" {
			dt.Path, rec.File = file, file
			tf, why := pl.testFile(file, content)
			if problem = why; problem == "" {
				var rep *testreport.Report
				if try.Run, rep, problem, err = pf.tryReproduction(ctx, box, plan, log, tf, content); err != nil {
					return nil, err
				}
				if problem == "" {
					rec.Tries = append(rec.Tries, try)
					rec.Accepted, rec.Content = true, content
					pf.design = &design{model: designer, task: dt, file: tf, place: pl, msgs: msgs, answer: reply.Content}
					log.Baseline.TargetsFrom = "the test designer's " + dt.Path + ", failing on the untouched tree"
					return &edits.Edit{Path: dt.Path, Content: content}, nil
				}
				output = ownOutput(rep, tf)
				if output == "" && tf.Suite != "" && try.Run != nil {
					output = compilerLines(try.Run.Output, path.Base(tf.Path))
				}
			}
		}
		try.Problem = problem
		rec.Tries = append(rec.Tries, try)
		msgs = dt.Retry(msgs, reply.Content, problem, output)
	}
	rec.Stopped = fmt.Sprintf("no reproducing test was accepted in %d tries", tries)
	return nil, nil
}

// tryReproduction runs a test file alone on the untouched tree and checks
// that it reproduces the issue; when it does, its failing tests become the
// targets. problem says why it does not; rep is the run's report.
func (p *proof) tryReproduction(ctx context.Context, box Sandbox, plan Plan, log *attemptlog.Log, file gate.TestFile, content string) (*attemptlog.Run, *testreport.Report, string, error) {
	tr, err := p.runTargets(ctx, box, plan, map[string][]byte{file.Path: []byte(content)}, nil, file.Path, nil)
	if err != nil {
		return nil, nil, "", fmt.Errorf("run the reproducing test: %w", err)
	}
	targets, problem := gate.Reproduction(tr.gate, file, plan.Title+"\n"+plan.Body)
	if problem == "" {
		p.targets, log.Baseline.Targets = targets, nil
		for _, t := range targets {
			log.Baseline.Targets = append(log.Baseline.Targets, t.ID.String())
		}
	}
	return tr.record(plan.Settings.Image), tr.gate.Report, problem, nil
}

// design is the test designer's conversation that wrote the accepted
// test, kept for a revision.
type design struct {
	model     pipeline.Model
	task      programmer.DesignTask
	file      gate.TestFile
	place     placement
	msgs      []chat.Message
	answer    string // the accepted answer
	stuck     int    // consecutive attempts that failed only its tests
	revisions int
}

// Bounds of the revision of a reproducing test: after revisionAfter
// consecutive attempts that fail nothing but its tests, the test designer
// may revise it, at most maxRevisions times a job.
const (
	revisionAfter = 2
	maxRevisions  = 1
)

// onlyTargetsFail reports whether a verdict failed on its target tests
// alone: a trusted run, no regression, nothing missing or uncollected.
func onlyTargetsFail(v gate.Verdict) bool {
	return !v.Passed && v.Untrusted == "" && len(v.Regressions) == 0 && len(v.NewFailures) == 0 && len(v.Missing) == 0 && len(v.CollectErrors) == 0
}

// revise asks the test designer to reconsider its test when the
// programmer's attempts keep failing it and nothing else: a test that asks
// for more than the issue must not make the job unwinnable. The designer
// sees why and its own tests' failure lines, never the programmer's code;
// a revised file must still fail on the untouched tree, else the old one
// stays. It is logged as a try of the reproduction, and the attempt's
// feedback says when the test changed.
func (p *proof) revise(ctx context.Context, box Sandbox, plan Plan, log *attemptlog.Log, a *attemptlog.Attempt) error {
	d := p.design
	if d == nil || a.Verdict == nil {
		return nil
	}
	if !onlyTargetsFail(*a.Verdict) {
		d.stuck = 0
		return nil
	}
	if d.stuck++; d.stuck < revisionAfter || d.revisions >= maxRevisions {
		return nil
	}
	d.stuck, d.revisions = 0, d.revisions+1
	why := fmt.Sprintf("the programmer's last %d attempts passed every other test but not yours. "+
		"If your test asks for something the issue does not, correct it; if it is right, give it again unchanged", revisionAfter)
	msgs := d.task.Retry(d.msgs, d.answer, why, ownFrames(p.last.Report, d.file))
	reply, err := d.model.Complete(ctx, msgs)
	if err != nil {
		return fmt.Errorf("test designer: %w", err)
	}
	rec := log.Reproduction
	try := attemptlog.DesignTry{Answer: reply.Content, Revision: true, PromptTokens: reply.PromptTokens, CompletionTokens: reply.CompletionTokens, ModelDuration: reply.Duration}
	_, content, problem := designedFile(reply.Content, d.task.Path, func(p string) string {
		return fmt.Sprintf("the answer writes %s: revise %s itself", p, d.task.Path)
	})
	if problem == "" && content == p.repro.Content {
		problem = "kept unchanged by the test designer"
	}
	var tf gate.TestFile
	if problem == "" {
		tf, problem = d.place.testFile(d.task.Path, content)
	}
	if problem == "" {
		if try.Run, _, problem, err = p.tryReproduction(ctx, box, plan, log, tf, content); err != nil {
			return err
		}
		if problem == "" {
			p.repro.Content, rec.Content, d.file = content, content, tf
			d.msgs, d.answer = msgs, reply.Content
			a.Feedback += fmt.Sprintf("\nThe test that shows the issue, %s, was revised by the test designer; the next attempt runs the new version:\n%s", d.task.Path, content)
		}
	}
	try.Problem = problem
	rec.Tries = append(rec.Tries, try)
	return nil
}

// ownFrames is what a run says about the tests of file, cut to the lines
// of the test's own frames and the exception lines (a Rust panic's
// message, on the line after its "panicked at" the file's line), so that
// a revision shows no line of the code under test.
func ownFrames(rep *testreport.Report, file gate.TestFile) string {
	mark := file.Path
	if file.Package != "" || file.Suite != "" {
		// go test, the JVM's stack traces and the compilers name a test
		// file by its base name.
		mark = path.Base(file.Path)
	}
	var kept []string
	panicked := false
	for _, line := range strings.Split(ownOutput(rep, file), "\n") {
		if strings.Contains(line, mark) || strings.HasPrefix(strings.TrimSpace(line), "E ") || panicked {
			kept = append(kept, line)
		}
		panicked = strings.Contains(line, "panicked at "+mark) && strings.HasSuffix(line, ":")
	}
	return strings.Join(kept, "\n")
}

// designedFile finds the test file of a test designer's answer: the one
// at want, else its only file of want's extension when check (which says why a path is
// refused) accepts that path. It returns the file's path and content, or
// why there is none.
func designedFile(answer, want string, check func(string) string) (file, content, problem string) {
	parsed, _ := response.Parse(answer)
	var others []string
	for _, f := range parsed.Files {
		if p := path.Clean(f.Path); p == want {
			return want, f.Content, ""
		} else if path.Ext(p) == path.Ext(want) {
			others = append(others, p)
		}
	}
	if len(others) == 1 {
		if why := check(others[0]); why != "" {
			return "", "", fmt.Sprintf("%s; write the test as the new file %s", why, want)
		}
		for _, f := range parsed.Files {
			if path.Clean(f.Path) == others[0] {
				return others[0], f.Content, ""
			}
		}
	}
	return "", "", fmt.Sprintf("the answer has no \"### File: %s\" block", want)
}

// ownOutput is what a run says about the tests of file only: their
// collection errors and the reports of its tests that did not pass, so the
// designer sees its test's own frames and nothing of the code's fix.
func ownOutput(rep *testreport.Report, file gate.TestFile) string {
	if rep == nil {
		return ""
	}
	var parts []string
	for _, e := range rep.CollectErrors() {
		if e.Path == cmp.Or(file.Binary, file.Suite, file.Path) || file.Package != "" && e.Path == file.Package {
			parts = append(parts, e.Message)
		}
	}
	for _, id := range rep.IDs() {
		res := rep.Tests[id]
		if file.Owns(id) && !res.Outcome.Passing() {
			parts = append(parts, fmt.Sprintf("%s %s: %s", id, res.Outcome, cmp.Or(res.Longrepr, res.Message)))
		}
	}
	return strings.Join(parts, "\n\n")
}
