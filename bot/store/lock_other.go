//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package store

import (
	"fmt"
	"os"
	"runtime"
)

// lockFile would take an exclusive advisory lock on path; this platform has
// no flock, so the store refuses to open rather than run unguarded.
func lockFile(path string) (*os.File, error) {
	return nil, fmt.Errorf("locking %s: no flock on %s", path, runtime.GOOS)
}
