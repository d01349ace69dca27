// Package logx holds the log/slog handlers of Capsule's server: JSON
// lines whose durations are Go duration strings ("1m30s", not
// nanoseconds), and Polls, which passes on a warning of a check that runs
// again and again once per change of state rather than once per check.
package logx

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// JSON returns a handler that writes JSON lines to w, as
// slog.NewJSONHandler does, with every duration written as a Go duration
// string. opts may be nil; its ReplaceAttr, when set, runs after.
func JSON(w io.Writer, opts *slog.HandlerOptions) slog.Handler {
	o := slog.HandlerOptions{}
	if opts != nil {
		o = *opts
	}
	then := o.ReplaceAttr
	o.ReplaceAttr = func(groups []string, a slog.Attr) slog.Attr {
		if a.Value.Kind() == slog.KindDuration {
			a.Value = slog.StringValue(a.Value.Duration().String())
		}
		if then != nil {
			return then(groups, a)
		}
		return a
	}
	return slog.NewJSONHandler(w, &o)
}

// Polls is a handler for what a check that runs again and again logs (a
// probe of the model endpoint every few seconds, say): the check calls
// Round after each run, and a record is passed on only when its level,
// message and attributes were not logged in the round before. A record
// that stops coming is said to be over, once, at Info. So a warning
// appears once per change of state, not once per check.
type Polls struct {
	next  slog.Handler
	state *pollState
}

type pollState struct {
	mu   sync.Mutex
	last map[string]string // key (level and message) → the attributes logged in the last round
	seen map[string]string // the same for this round
	msgs map[string]string // key → message
}

// NewPolls returns a Polls that passes records on to next.
func NewPolls(next slog.Handler) *Polls {
	return &Polls{next: next, state: &pollState{last: map[string]string{}, seen: map[string]string{}, msgs: map[string]string{}}}
}

// Enabled implements slog.Handler.
func (p *Polls) Enabled(ctx context.Context, l slog.Level) bool { return p.next.Enabled(ctx, l) }

// Handle implements slog.Handler: it passes r on unless the last round
// logged it alike.
func (p *Polls) Handle(ctx context.Context, r slog.Record) error {
	key := r.Level.String() + " " + r.Message
	var attrs strings.Builder
	r.Attrs(func(a slog.Attr) bool {
		attrs.WriteString(a.String())
		attrs.WriteByte('\n')
		return true
	})
	st := p.state
	st.mu.Lock()
	last, logged := st.last[key]
	_, again := st.seen[key]
	st.seen[key], st.msgs[key] = attrs.String(), r.Message
	st.mu.Unlock()
	if again || logged && last == attrs.String() {
		return nil
	}
	return p.next.Handle(ctx, r)
}

// WithAttrs implements slog.Handler; the result shares p's rounds.
func (p *Polls) WithAttrs(as []slog.Attr) slog.Handler {
	return &Polls{next: p.next.WithAttrs(as), state: p.state}
}

// WithGroup implements slog.Handler; the result shares p's rounds.
func (p *Polls) WithGroup(name string) slog.Handler {
	return &Polls{next: p.next.WithGroup(name), state: p.state}
}

// Round ends a run of the check: what the last round logged and this one
// did not is said to be over ("no longer: " and its message, at Info).
func (p *Polls) Round(ctx context.Context) {
	st := p.state
	st.mu.Lock()
	var over []string
	for key := range st.last {
		if _, ok := st.seen[key]; !ok {
			over = append(over, st.msgs[key])
			delete(st.msgs, key)
		}
	}
	st.last, st.seen = st.seen, map[string]string{}
	st.mu.Unlock()
	for _, msg := range over {
		_ = p.next.Handle(ctx, slog.NewRecord(time.Now(), slog.LevelInfo, "no longer: "+msg, 0))
	}
}
