package repo

import (
	"errors"
	"fmt"
	"github.com/capsulehq/capsule/pipeline"
	"slices"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repocontext"
	"github.com/capsulehq/capsule/pipeline/response"
)

// repoAnswer is the form of repository mode's answers.
var repoAnswer = pipeline.AnswerForm{
	Shorter:  "Answer again with only the files the fix needs.",
	Complete: "the files were",
	Reminder: response.RepoFormatReminder,
}

// wholeFileMax is the size in bytes up to which an answer may rewrite an
// existing file whole: about what the repository context shows whole
// (repocontext.SmallFileTokens at four bytes a token). A larger file is
// changed with SEARCH/REPLACE blocks, which is all the context shows of it.
const wholeFileMax = repocontext.SmallFileTokens * 4

// placeAnswer places an answer's files, after the parts kept from the
// previous answer when its blocks could not all be placed, and sets
// a.Code to the answer as placed. When some block cannot be placed, it
// sets the feedback, keeps the parts that could be for the next answer,
// and reports false. The error is non-nil only when the repository cannot
// be read.
func placeAnswer(a *attemptlog.Attempt, repo string, kept *[]edits.FileEdit, files []edits.FileEdit) ([]edits.Edit, bool, error) {
	answer := mergeKept(*kept, files)
	a.Code = programmer.FormatFiles(answer)
	proposed, err := edits.Resolve(repo, answer, wholeFileMax)
	var me *edits.MatchError
	switch {
	case errors.As(err, &me):
		*kept = me.Matched
		for _, f := range me.Failed {
			a.Refused = append(a.Refused, fmt.Sprintf("block %d (%s): %s", f.N, f.Path, f.Reason))
		}
		a.Feedback, a.FeedbackKind = me.Error(), "unmatched"
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("place the answer: %w", err)
	}
	*kept = nil
	return proposed, true, nil
}

// mergeKept puts the kept parts of the previous answer before the files of
// this one and numbers the blocks in order. A whole file in the answer
// replaces what was kept of it; a block sent again is not applied twice.
func mergeKept(kept, files []edits.FileEdit) []edits.FileEdit {
	out := make([]edits.FileEdit, 0, len(kept)+len(files))
	index := make(map[string]int, len(kept)+len(files))
	for _, f := range kept {
		index[f.Path] = len(out)
		f.Blocks = slices.Clone(f.Blocks) // numbered below: kept is left as it is
		out = append(out, f)
	}
	for _, f := range files {
		f.Blocks = slices.Clone(f.Blocks)
		i, ok := index[f.Path]
		switch {
		case !ok:
			index[f.Path] = len(out)
			out = append(out, f)
		case f.Whole:
			out[i] = f
		default:
			for _, b := range f.Blocks {
				if !hasBlock(out[i].Blocks, b) {
					out[i].Blocks = append(out[i].Blocks, b)
				}
			}
		}
	}
	n := 0
	for i := range out {
		for j := range out[i].Blocks {
			n++
			out[i].Blocks[j].N = n
		}
	}
	return out
}

// hasBlock reports whether blocks holds b, numbers aside, in any of its
// readings: a kept block holds the one that was placed.
func hasBlock(blocks []edits.Block, b edits.Block) bool {
	readings := append([]edits.Split{{Search: b.Search, Replace: b.Replace}}, b.Splits...)
	for _, x := range blocks {
		for _, r := range readings {
			if x.Search == r.Search && x.Replace == r.Replace {
				return true
			}
		}
	}
	return false
}
