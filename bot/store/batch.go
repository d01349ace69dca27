package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/capsulehq/capsule/bot/work"
)

// maxBatch bounds how many Enqueue calls share a transaction.
const maxBatch = 256

// enqueueCall is an Enqueue waiting for the committer.
type enqueueCall struct {
	ctx  context.Context
	req  work.Request
	done chan enqueueResult // buffered, so the committer never blocks on it
}

// enqueueResult is what the committer answers an enqueueCall with.
type enqueueResult struct {
	job     Job
	outcome Outcome
	err     error
}

// commitLoop is the one goroutine that carries out Enqueue calls, until
// the store closes. It takes the calls waiting when it is free, commits
// them in one transaction, answers them, and goes round again: while one
// batch is being fsynced, the next one gathers. Nothing waits for a batch
// to fill, so a lone call costs one commit, as it would without batching.
func (s *Store) commitLoop() {
	defer close(s.loopDone)
	batch := make([]*enqueueCall, 0, maxBatch)
	for {
		select {
		case <-s.closing:
			return
		case c := <-s.calls:
			batch = append(batch[:0], c)
		}
	gather:
		for len(batch) < maxBatch {
			select {
			case c := <-s.calls:
				batch = append(batch, c)
			default:
				break gather
			}
		}
		s.commitBatch(batch)
		clear(batch) // let the answered calls go
	}
}

// commitBatch carries out batch in one transaction and answers each call.
// A call whose context has ended by its turn is skipped; one that fails is
// rolled back to its savepoint and answered with its error, and the rest
// go ahead. If the transaction fails to commit, every call is answered
// with that failure.
func (s *Store) commitBatch(batch []*enqueueCall) {
	results := make([]enqueueResult, len(batch))
	// Statements run under a context of their own: the transaction is
	// shared, and a call's context ending halfway through a statement
	// could otherwise roll back the other calls' work.
	ctx := context.Background()
	err := s.write(ctx, func(tx *sql.Tx) error {
		for i, c := range batch {
			if err := c.ctx.Err(); err != nil {
				results[i].err = err
				continue
			}
			r, err := s.enqueueSavepoint(ctx, tx, c.req)
			if err != nil {
				return err
			}
			results[i] = r
		}
		return nil
	})
	for i, c := range batch {
		r := results[i]
		if err != nil && r.err == nil {
			r = enqueueResult{err: err}
		}
		c.done <- r
	}
}

// enqueueSavepoint does one Enqueue in tx, in a savepoint. The result
// carries the call's own failure; the error is for a failure that leaves
// tx unusable.
func (s *Store) enqueueSavepoint(ctx context.Context, tx *sql.Tx, req work.Request) (enqueueResult, error) {
	if _, err := tx.ExecContext(ctx, "SAVEPOINT enqueue"); err != nil {
		return enqueueResult{}, fmt.Errorf("savepoint: %w", err)
	}
	var r enqueueResult
	r.job, r.outcome, r.err = s.enqueue(ctx, tx, req)
	if r.err != nil {
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO enqueue"); err != nil {
			return enqueueResult{}, fmt.Errorf("rolling back delivery %s after %v: %w", req.Delivery, r.err, err)
		}
	}
	if _, err := tx.ExecContext(ctx, "RELEASE enqueue"); err != nil {
		return enqueueResult{}, fmt.Errorf("releasing savepoint: %w", err)
	}
	return r, nil
}
