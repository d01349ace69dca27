package server

import (
	"context"
	"sync"
)

// outbox runs the GitHub writes no request waits for (the status comment
// of a queued job, the note of a second trigger) on a few goroutines, in
// the order they came. A burst of deliveries queues them here rather than
// starting a goroutine, and a request to GitHub, for each.
type outbox struct {
	mu    sync.Mutex
	tasks []func(context.Context)
	more  chan struct{} // a task was added
}

func newOutbox() *outbox { return &outbox{more: make(chan struct{}, 1)} }

// add queues task; it runs once Run's senders get to it.
func (o *outbox) add(task func(context.Context)) {
	o.mu.Lock()
	o.tasks = append(o.tasks, task)
	o.mu.Unlock()
	select {
	case o.more <- struct{}{}:
	default:
	}
}

// next takes the oldest task, or nil when there is none.
func (o *outbox) next() func(context.Context) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.tasks) == 0 {
		return nil
	}
	task := o.tasks[0]
	o.tasks[0] = nil
	o.tasks = o.tasks[1:]
	return task
}

// run runs the tasks with n goroutines until ctx ends; the tasks left
// then are dropped (a queued job is announced by its run anyway).
func (o *outbox) run(ctx context.Context, n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				if task := o.next(); task != nil {
					task(ctx)
					continue
				}
				select {
				case <-ctx.Done():
				case <-o.more:
					o.wakeAnother()
				}
			}
		})
	}
	wg.Wait()
}

// wakeAnother passes the signal on when more tasks wait, so that one
// signal for many tasks wakes every sender.
func (o *outbox) wakeAnother() {
	o.mu.Lock()
	waiting := len(o.tasks) > 1
	o.mu.Unlock()
	if waiting {
		select {
		case o.more <- struct{}{}:
		default:
		}
	}
}
