package repo

import (
	"errors"
	"fmt"
	"github.com/capsulehq/capsule/pipeline"

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
func placeAnswer(a *attemptlog.Attempt, repo string, kept *[]edits.FileEdit, files []response.File) ([]edits.Edit, bool, error) {
	answer := mergeKept(*kept, files)
	a.Code = formatAnswer(answer)
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
func mergeKept(kept []edits.FileEdit, files []response.File) []edits.FileEdit {
	out := make([]edits.FileEdit, 0, len(kept)+len(files))
	index := make(map[string]int, len(kept)+len(files))
	for _, f := range kept {
		index[f.Path] = len(out)
		out = append(out, edits.FileEdit{Path: f.Path, Whole: f.Whole, Content: f.Content, Blocks: append([]edits.Block(nil), f.Blocks...)})
	}
	for _, f := range files {
		fe := edits.FileEdit{Path: f.Path, Whole: f.Blocks == nil, Content: f.Content}
		for _, b := range f.Blocks {
			bl := edits.Block{Search: b.Search, Replace: b.Replace}
			for _, sp := range b.Splits {
				bl.Splits = append(bl.Splits, edits.Split{Search: sp.Search, Replace: sp.Replace})
			}
			fe.Blocks = append(fe.Blocks, bl)
		}
		i, ok := index[f.Path]
		switch {
		case !ok:
			index[f.Path] = len(out)
			out = append(out, fe)
		case fe.Whole:
			out[i] = fe
		default:
			for _, b := range fe.Blocks {
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

// formatAnswer renders an answer as placed, in the answer format, for the
// fix prompt: a file given whole and then changed by blocks takes two
// sections.
func formatAnswer(files []edits.FileEdit) string {
	var shown []programmer.File
	for _, f := range files {
		if f.Whole {
			shown = append(shown, programmer.File{Path: f.Path, Content: f.Content})
		}
		if len(f.Blocks) == 0 {
			continue
		}
		pf := programmer.File{Path: f.Path, Blocks: make([]programmer.Block, len(f.Blocks))}
		for i, b := range f.Blocks {
			pf.Blocks[i] = programmer.Block{Search: b.Search, Replace: b.Replace}
		}
		shown = append(shown, pf)
	}
	return programmer.FormatFiles(shown)
}
