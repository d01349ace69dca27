//go:build linux

package agent

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// newReport creates ReportFile empty for a run: root's, in the sticky
// /tmp, so that the run may append to it (and, having write permission,
// rewrite it) but neither remove, rename nor replace it, nor change its
// mode.
func newReport() error {
	if err := os.Remove(ReportFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the old test report: %w", err)
	}
	f, err := os.OpenFile(ReportFile, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o622)
	if err != nil {
		return fmt.Errorf("create the test report: %w", err)
	}
	defer f.Close()
	// The umask may have cleared the others' write bit.
	if err := f.Chmod(0o622); err != nil {
		return fmt.Errorf("create the test report: %w", err)
	}
	return nil
}

// readReport returns the first MaxReport bytes of ReportFile and its size.
func readReport() ([]byte, int64, error) {
	f, err := os.OpenFile(ReportFile, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("read the test report: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("read the test report: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("read the test report: %s is no longer a regular file", ReportFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxReport))
	if err != nil {
		return nil, 0, fmt.Errorf("read the test report: %w", err)
	}
	return data, max(info.Size(), int64(len(data))), nil
}
