package server

import (
	"errors"
	"io"
	"log/slog"

	"github.com/google/go-github/v88/github"
)

// noClients has no installations.
type noClients struct{}

func (noClients) Installation(int64) (*github.Client, error) {
	return nil, errors.New("no installations in this test")
}
func (noClients) Forget(int64) {}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
