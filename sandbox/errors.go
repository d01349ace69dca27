package sandbox

import "errors"

// Errors that callers tell apart; each is wrapped with the details.
var (
	// ErrEngineUnreachable means no Docker engine answered.
	ErrEngineUnreachable = errors.New("docker engine unreachable")
	// ErrImageNotFound means the image is neither present nor pullable.
	ErrImageNotFound = errors.New("sandbox image not found")
	// ErrWorkspace means the workspace directory cannot be used.
	ErrWorkspace = errors.New("bad workspace")
	// ErrAgent means the in-container agent could not be provided or
	// stopped answering.
	ErrAgent = errors.New("sandbox agent failed")
)
