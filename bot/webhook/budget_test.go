package webhook

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/capsulehq/capsule/bot/work"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestHandlerRefusesBeforeReading checks that a delivery refused by its
// headers costs none of its body.
func TestHandlerRefusesBeforeReading(t *testing.T) {
	labeled := edit(t, fixture(t, "issues__labeled.payload.json"), withInstallation(1))
	tests := []struct {
		name   string
		change func(r *http.Request)
		code   int
	}{
		{"signature missing", func(r *http.Request) { r.Header.Del("X-Hub-Signature-256") }, http.StatusUnauthorized},
		{"signature malformed", func(r *http.Request) { r.Header.Set("X-Hub-Signature-256", "sha256=zz") }, http.StatusUnauthorized},
		{"delivery id too long", func(r *http.Request) {
			r.Header.Set("X-GitHub-Delivery", strings.Repeat("d", MaxDeliveryID+1))
		}, http.StatusBadRequest},
		{"delivery id with a newline", func(r *http.Request) { r.Header.Set("X-GitHub-Delivery", "a\nb") }, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := newHarness(t, nil)
			r := post("issues", labeled)
			tt.change(r)
			body := &countingReader{r: bytes.NewReader(labeled)}
			r.Body = io.NopCloser(body)
			code, resp := hs.serve(t, r)
			if code != tt.code || resp.Reason == "" {
				t.Errorf("answer %d %+v, want %d with a reason", code, resp, tt.code)
			}
			if body.n != 0 {
				t.Errorf("%d bytes of the body read, want none", body.n)
			}
		})
	}
}

// TestHandlerLongDeliveryIDs checks that two long delivery ids with a
// common prefix reach the sink whole, as two deliveries.
func TestHandlerLongDeliveryIDs(t *testing.T) {
	labeled := edit(t, fixture(t, "issues__labeled.payload.json"), withInstallation(1))
	hs := newHarness(t, nil)
	prefix := strings.Repeat("p", MaxDeliveryID-1)
	for _, id := range []string{prefix + "1", prefix + "2"} {
		r := post("issues", labeled)
		r.Header.Set("X-GitHub-Delivery", id)
		hs.observed = nil
		if code, resp := hs.serve(t, r); code != http.StatusAccepted {
			t.Fatalf("id of %d bytes: answer %d %+v, want 202", len(id), code, resp)
		}
	}
	got := hs.sink.requests()
	if len(got) != 2 || got[0].Delivery != prefix+"1" || got[1].Delivery != prefix+"2" {
		t.Errorf("sink got %d requests with ids of %v; want the two whole ids", len(got), deliveryLengths(got))
	}
}

func deliveryLengths(rs []work.Request) []int {
	var n []int
	for _, r := range rs {
		n = append(n, len(r.Delivery))
	}
	return n
}

// blockingReader gives n bytes and then blocks until released, like a
// sender still sending.
type blockingReader struct {
	n       int
	release chan struct{}
	reached chan struct{}
	once    sync.Once
}

func (b *blockingReader) Read(p []byte) (int, error) {
	if b.n == 0 {
		b.once.Do(func() { close(b.reached) })
		<-b.release
		return 0, io.EOF
	}
	n := min(len(p), b.n)
	clear(p[:n])
	b.n -= n
	return n, nil
}

// TestHandlerInFlightBudget holds large bodies in flight until the budget
// is used up and checks that the next delivery is answered 503 with
// Retry-After, that a small delivery still fits in the quarter kept for
// small bodies, and that the budget is whole again once the bodies end.
func TestHandlerInFlightBudget(t *testing.T) {
	labeled := edit(t, fixture(t, "issues__labeled.payload.json"), withInstallation(1))
	const limit = 8 << 20
	hs := newHarness(t, func(o *Options) {
		o.MaxBodyBytes, o.MaxInFlightBytes = 4<<20, limit
		o.Observe = nil // called from several goroutines here
	})
	h := hs.h.(*handler)

	// Two 2.5 MiB bodies, held open: most of the large part (6 MiB).
	release := make(chan struct{})
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		body := &blockingReader{n: 5 << 19, release: release, reached: make(chan struct{})}
		r := post("issues", labeled)
		r.Body, r.ContentLength = io.NopCloser(body), -1
		wg.Go(func() {
			w := &recorder{h: http.Header{}}
			h.ServeHTTP(w, r)
			codes[i] = w.code
		})
		<-body.reached
	}

	big := post("issues", bytes.Repeat([]byte(" "), 2<<20))
	w := &recorder{h: http.Header{}}
	h.ServeHTTP(w, big)
	if w.code != http.StatusServiceUnavailable || w.h.Get("Retry-After") == "" {
		t.Errorf("a third large body: answer %d, Retry-After %q; want 503 with Retry-After", w.code, w.h.Get("Retry-After"))
	}
	small := post("issues", labeled)
	small.Header.Set("X-GitHub-Delivery", "small-one")
	w = &recorder{h: http.Header{}}
	h.ServeHTTP(w, small)
	if w.code != http.StatusAccepted {
		t.Errorf("a small delivery beside them: answer %d, want 202", w.code)
	}

	close(release)
	wg.Wait()
	for i, code := range codes {
		if code != http.StatusUnauthorized {
			t.Errorf("held body %d: answer %d, want 401 (it is not signed)", i, code)
		}
	}
	h.budget.mu.Lock()
	used, free := h.budget.used, len(h.budget.free)
	h.budget.mu.Unlock()
	if used != 0 || free > keepIdle {
		t.Errorf("after the bodies: %d bytes in use, %d chunks kept; want none in use and at most %d kept", used, free, keepIdle)
	}
	if n := len(hs.sink.requests()); n != 1 {
		t.Errorf("sink got %d requests, want the small one", n)
	}
}

func TestNewHandlerBudgetBelowBody(t *testing.T) {
	_, err := NewHandler(Options{Secret: testSecret, Sink: &sink{}, MaxBodyBytes: 2 << 20, MaxInFlightBytes: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "MaxInFlightBytes") {
		t.Errorf("NewHandler = %v, want an error about MaxInFlightBytes", err)
	}
}

// recorder is a ResponseWriter safe to use from another goroutine than
// the test's.
type recorder struct {
	h    http.Header
	code int
}

func (w *recorder) Header() http.Header         { return w.h }
func (w *recorder) Write(b []byte) (int, error) { return len(b), nil }
func (w *recorder) WriteHeader(code int)        { w.code = code }
