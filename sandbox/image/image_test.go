package image

import (
	"context"
	"errors"
	"testing"
)

// fakeEngine records what Ensure asked and answers with err.
type fakeEngine struct {
	ref  string
	pull bool
	err  error
}

func (f *fakeEngine) EnsureImage(_ context.Context, ref string, pull bool) error {
	f.ref, f.pull = ref, pull
	return f.err
}

// TestEnsure builds Capsule's own images, never pulls them, and says how
// to build a missing one; any other image is pulled.
func TestEnsure(t *testing.T) {
	missing := errors.New("image not found")
	tests := []struct {
		ref     string
		pull    bool
		err     error
		wantErr string
	}{
		{ref: Default(), err: missing, wantErr: "image not found; build it with `capsule sandbox image`"},
		{ref: Node.Ref(), err: missing, wantErr: "image not found; build it with `capsule sandbox image --name node`"},
		{ref: Java.Ref()},
		{ref: "node:18", pull: true, err: missing, wantErr: "image not found"},
		{ref: "capsule-node", pull: true},
	}
	for _, tt := range tests {
		f := &fakeEngine{err: tt.err}
		err := Ensure(context.Background(), f, tt.ref)
		if f.ref != tt.ref || f.pull != tt.pull {
			t.Errorf("Ensure(%q) asked for %q with pull %v, want pull %v", tt.ref, f.ref, f.pull, tt.pull)
		}
		if got := errString(err); got != tt.wantErr || tt.err != nil && !errors.Is(err, tt.err) {
			t.Errorf("Ensure(%q) = %q, want %q wrapping %v", tt.ref, got, tt.wantErr, tt.err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
