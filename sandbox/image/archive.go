package image

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"strings"

	"github.com/capsulehq/capsule/internal/tarx"
)

// Archive is a zip file downloaded at build time on the host, checked
// against its pinned hash and unpacked into the image: what Debian does
// not package, such as a Go toolchain from the Go module proxy.
type Archive struct {
	URL    string // where the zip is downloaded from
	SHA256 string // hex SHA-256 of the zip; a download that differs fails the build
	// Strip is the folder every name in the zip starts with; it is
	// dropped, and a name outside it fails the build.
	Strip string
	Dest  string // absolute folder in the image the rest lands in
}

// maxArchive bounds a download and what it unpacks to.
const maxArchive = 1 << 30

// fetch downloads the archive into a temporary file and checks its hash;
// the caller removes the file.
func (a Archive) fetch(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("download %s: %w", a.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("download %s: %s", a.URL, resp.Status)
	}
	f, err := os.CreateTemp("", "capsule-archive-*.zip")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(resp.Body, maxArchive+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > maxArchive {
		err = fmt.Errorf("larger than %d bytes", maxArchive)
	}
	if got := hex.EncodeToString(h.Sum(nil)); err == nil && got != a.SHA256 {
		err = fmt.Errorf("its SHA-256 is %s, the recipe pins %s", got, a.SHA256)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("download %s: %w", a.URL, err)
	}
	return f.Name(), nil
}

// writeTar writes the zip at zipPath as a tar stream whose names are
// under Dest without its leading slash, keeping only folders and regular
// files and their execute bits.
func (a Archive) writeTar(zipPath string, w io.Writer) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return fmt.Errorf("open %s: %w", a.URL, err)
	}
	defer zr.Close()
	tw := tar.NewWriter(w)
	prefix := strings.TrimSuffix(a.Strip, "/") + "/"
	dest := strings.TrimPrefix(path.Clean(a.Dest), "/")
	var total int64
	for _, f := range zr.File {
		rest, ok := strings.CutPrefix(f.Name, prefix)
		if !ok {
			return fmt.Errorf("%s: %q is outside %s", a.URL, f.Name, prefix)
		}
		mode := f.Mode()
		h := &tar.Header{Name: path.Join(dest, rest), Mode: 0o644, ModTime: f.Modified}
		switch {
		case mode.IsDir() || strings.HasSuffix(rest, "/"):
			h.Typeflag, h.Mode, h.Name = tar.TypeDir, 0o755, h.Name+"/"
		case mode.IsRegular():
			h.Typeflag, h.Size = tar.TypeReg, int64(f.UncompressedSize64)
			if mode&0o111 != 0 {
				h.Mode = 0o755
			}
		default:
			return fmt.Errorf("%s: %q is neither a file nor a folder", a.URL, f.Name)
		}
		if total += h.Size; total > maxArchive {
			return fmt.Errorf("%s: unpacks to more than %d bytes", a.URL, maxArchive)
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if h.Typeflag == tar.TypeReg {
			rc, err := f.Open()
			if err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
			_, err = io.Copy(tw, rc)
			rc.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	}
	return tw.Close()
}

// unpack downloads the archive and unpacks it into the root filesystem
// at dir.
func (a Archive) unpack(ctx context.Context, dir string) error {
	zipPath, err := a.fetch(ctx)
	if err != nil {
		return err
	}
	defer os.Remove(zipPath)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(a.writeTar(zipPath, pw)) }()
	refused, err := tarx.Extract(pr, root, tarx.Options{})
	pr.CloseWithError(errors.New("stopped reading"))
	if err != nil {
		return fmt.Errorf("unpack %s: %w", a.URL, err)
	}
	if len(refused) > 0 {
		return fmt.Errorf("unpack %s: refused %s", a.URL, refused[0])
	}
	return nil
}

// tarBytes downloads the archive and returns it as a tar stream of the
// files under Dest, for a Dockerfile's build context.
func (a Archive) tarBytes(ctx context.Context) ([]byte, error) {
	zipPath, err := a.fetch(ctx)
	if err != nil {
		return nil, err
	}
	defer os.Remove(zipPath)
	var b bytes.Buffer
	if err := a.writeTar(zipPath, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
