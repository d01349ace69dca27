package agent

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/capsulehq/capsule/internal/pathglob"
)

// Bounds of the report files one run sends back (Request.ReportFiles):
// past them the rest is left out and Response.ReportFilesCut says so.
const (
	MaxReportFiles     = 1000
	MaxReportFileBytes = 32 << 20
)

// reportArchiveLimit bounds the archive of report files: their bytes and
// a tar header and padding for each, and the archive's end.
const reportArchiveLimit = MaxReportFileBytes + (MaxReportFiles+2)<<10

// collectReports returns a tar archive of the regular files below dir
// that match one of globs and were written since start (a file of the
// repository that the run left alone is not its report), within
// MaxReportFiles files and MaxReportFileBytes bytes, and whether files
// were left out for those bounds. Symbolic links are not followed, and
// node_modules and .git directories are not entered.
func collectReports(dir string, globs []string, start time.Time) (archive []byte, cut bool, err error) {
	files, total := 0, int64(0)
	archive, err = archiveTree(dir, reportArchiveLimit, func(rel string, d fs.DirEntry, info fs.FileInfo) (bool, error) {
		if d.IsDir() {
			if name := d.Name(); name == "node_modules" || name == ".git" {
				return false, fs.SkipDir
			}
			return false, nil
		}
		if !d.Type().IsRegular() || info.ModTime().Before(start) {
			return false, nil
		}
		if _, ok := pathglob.MatchAny(rel, globs); !ok {
			return false, nil
		}
		if files+1 > MaxReportFiles || total+info.Size() > MaxReportFileBytes {
			cut = true
			return false, fs.SkipAll
		}
		files, total = files+1, total+info.Size()
		return true, nil
	})
	return archive, cut, err
}

// ReadReportFiles returns the files of a report archive
// (Response.ReportFiles) by their slash-separated path relative to the
// workspace. Entries other than regular files, and names that are not
// clean relative paths, are errors: the agent sends neither.
func ReadReportFiles(archive []byte) (map[string][]byte, error) {
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("report files: %w", err)
		}
		if h.Typeflag != tar.TypeReg || !fs.ValidPath(h.Name) || h.Size > MaxReportFileBytes {
			return nil, fmt.Errorf("report files: entry %q is not a report file", h.Name)
		}
		data, err := io.ReadAll(io.LimitReader(tr, MaxReportFileBytes))
		if err != nil {
			return nil, fmt.Errorf("report files: %w", err)
		}
		files[h.Name] = data
	}
}
