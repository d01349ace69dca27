package repo

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repocontext"
	"github.com/capsulehq/capsule/pipeline/response"
	"github.com/capsulehq/capsule/pipeline/untrusted"
)

// Requests. Once before each answer with code, the programmer may answer
// with a request to see more of the repository instead (response.Request:
// a file, whole or some of its lines; the definition of a name; the lines
// that hold a string). It is answered from the tree the context was built
// from, the repository as the model was shown it (never a previous
// answer's change: an answer's blocks apply to that tree), by
// repocontext.Lookup, with the context's exclusions and rendering, within
// a third of the context's budget; the text goes back inside the issue's
// boundary, and the model is asked again in the same attempt. A request
// refused as a whole (a path outside the repository, a secret file,
// nothing found, no readable item, one request too many in the attempt
// or the job) gets a note back and uses up nothing; after maxRefusals of
// them in one attempt, the next answer is taken as the attempt's answer.

// DefaultMaxRequests is the most requests answered in one job when the
// operator sets none.
const DefaultMaxRequests = 3

// maxRefusals is the most refused requests of one attempt that are
// answered with a note and a new call.
const maxRefusals = 2

// asker answers the programmer's requests in one job.
type asker struct {
	// lookup reads the repository; nil when requests are off.
	lookup    *repocontext.Lookup
	max, used int
	// budget is the tokens of one request's answer.
	budget   int
	boundary untrusted.Boundary
	conv     *programmer.Conversation
}

// newAsker prepares the answers to the programmer's requests in conv,
// which it allows when the plan does; boundary encloses the issue.
func newAsker(plan Plan, conv *programmer.Conversation, boundary untrusted.Boundary) (*asker, error) {
	k := &asker{max: plan.MaxRequests, budget: cmp.Or(plan.ContextBudget, repocontext.DefaultBudget) / 3, boundary: boundary, conv: conv}
	if k.max <= 0 {
		return k, nil
	}
	var err error
	if k.lookup, err = repocontext.OpenLookup(plan.Dir, repocontext.Options{Protected: plan.readOnly}); err != nil {
		return nil, fmt.Errorf("open the repository for requests: %w", err)
	}
	conv.AllowRequests(k.max, response.MaxRequestItems)
	return k, nil
}

// close releases the repository.
func (k *asker) close() {
	if k.lookup != nil {
		k.lookup.Close()
	}
}

// ask makes an attempt's model call as repoAnswer.Ask does; while the
// answer is a request rather than code, it answers or refuses it and
// calls the model again with the exchange. The attempt records each
// request, and its tokens and model time add up every call.
func (k *asker) ask(ctx context.Context, model pipeline.Model, msgs []chat.Message) (attemptlog.Attempt, programmer.Reply, bool, error) {
	var (
		reqs               []attemptlog.Request
		prompt, completion int
		spent              time.Duration
		answered           bool
		refused            int
	)
	for {
		a, reply, ok, err := repoAnswer.Ask(ctx, model, msgs)
		prompt, completion, spent = prompt+a.PromptTokens, completion+a.CompletionTokens, spent+a.ModelDuration
		a.Requests, a.PromptTokens, a.CompletionTokens, a.ModelDuration = reqs, prompt, completion, spent
		if err != nil || !ok || k.lookup == nil || refused >= maxRefusals {
			return a, reply, ok, err
		}
		if parsed, _ := response.Parse(reply.Content); len(parsed.Files) > 0 {
			return a, reply, ok, nil
		}
		req, found := response.ParseRequest(reply.Content)
		if !found {
			return a, reply, ok, nil
		}
		r := k.answer(req, answered)
		r.Text = reply.Content
		r.PromptTokens, r.CompletionTokens, r.ModelDuration = reply.PromptTokens, reply.CompletionTokens, reply.Duration
		reqs = append(reqs, r)
		if r.Refused != "" {
			refused++
			msgs = k.conv.Asked(msgs, reply.Content, r.Reply)
			continue
		}
		answered = true
		msgs = k.conv.Answered(msgs, reply.Content, r.Reply)
	}
}

// answer answers a request, or refuses it as a whole when the attempt's
// request was answered already, the job's are used up, or nothing of it
// can be shown. Only an answered request counts against the maximum.
func (k *asker) answer(req response.Request, answered bool) attemptlog.Request {
	var r attemptlog.Request
	for _, it := range req.Items {
		r.Items = append(r.Items, it.String())
	}
	switch {
	case answered:
		return refuse(r, "one request is answered before each answer with code, and this one's was", false)
	case k.used >= k.max:
		return refuse(r, fmt.Sprintf("this job answers at most %s, and none is left", plural(k.max, "request")), false)
	case len(req.Items) == 0:
		return refuse(r, "no item could be read: an item is a line \"file PATH\", \"file PATH A-B\", \"definition NAME\" or \"search TEXT\"", true, req.Problems...)
	}
	var text strings.Builder
	notes := req.Problems
	left := k.budget
	for _, it := range req.Items {
		if left <= 0 {
			notes = append(notes, fmt.Sprintf("`%s`: left out: this request's %d tokens are spent", it, k.budget))
			continue
		}
		var f repocontext.Found
		switch it.Kind {
		case response.ItemFile:
			f = k.lookup.File(it.Path, it.From, it.To, left)
		case response.ItemDefinition:
			f = k.lookup.Definition(it.Name, left)
		default:
			f = k.lookup.Search(it.Text, left)
		}
		if f.Refused != "" {
			f.Notes = append([]string{f.Refused}, f.Notes...)
		}
		for _, n := range f.Notes {
			notes = append(notes, fmt.Sprintf("`%s`: %s", it, n))
		}
		text.WriteString(f.Text)
		left -= repocontext.EstimateTokens(f.Text)
	}
	if text.Len() == 0 {
		return refuse(r, "nothing it asked for can be shown", true, notes...)
	}
	k.used++
	r.Number, r.Notes, r.Tokens = k.used, notes, repocontext.EstimateTokens(text.String())
	r.Reply = programmer.RequestAnswer{Number: k.used, Max: k.max, Text: text.String(), Notes: notes, Boundary: k.boundary}.Render()
	return r
}

// refuse records a request refused as a whole, for why and the notes
// after it; retry says whether a corrected request may still be
// answered in the attempt.
func refuse(r attemptlog.Request, why string, retry bool, notes ...string) attemptlog.Request {
	r.Refused, r.Notes = why, notes
	r.Reply = programmer.RequestRefused{Notes: append([]string{why}, notes...), Retry: retry}.Render()
	return r
}

// requestSummary describes an attempt's requests in a few words for
// progress lines, e.g. "1 request answered, 1 refused; ".
func requestSummary(a attemptlog.Attempt) string {
	answered, refused := 0, 0
	for _, r := range a.Requests {
		if r.Refused != "" {
			refused++
		} else {
			answered++
		}
	}
	switch {
	case answered+refused == 0:
		return ""
	case refused == 0:
		return fmt.Sprintf("%d request answered; ", answered)
	case answered == 0:
		return plural(refused, "request") + " refused; "
	}
	return fmt.Sprintf("%d request answered, %d refused; ", answered, refused)
}

// plural counts things: "1 request", "3 requests".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
