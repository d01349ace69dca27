package setupcache

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/capsulehq/capsule/pipeline/setupsecret"
)

// Leak is a secret's value found in what the set-up left.
type Leak struct {
	setupsecret.Hit
	File string // the file, relative to the workspace
}

func (l Leak) Error() string {
	return fmt.Sprintf("the set-up left the value of its secret %s (%s) in %s; a set-up must not keep its secrets in the workspace (mind .npmrc, pip's direct_url.json and caches: pass tokens in the environment, keep caches in $HOME, which is emptied)", l.Name, l.How, l.File)
}

// Findings is what Inspect found in a set-up's archive.
type Findings struct {
	// Leak is the first secret found, if any.
	Leak *Leak
	// SourceInstalled names the packages the set-up installed from the
	// workspace without -e (a non-editable `pip install .`): their files
	// are copies of the repository's source.
	SourceInstalled []string
}

// Inspect reads a set-up archive (sandbox.Session.ExportLayer's): it
// scans every entry's name, link and contents for the secrets' values,
// and reads pip's direct_url.json records to find a non-editable install
// of the workspace (a directory below workspace).
func Inspect(archive string, secrets setupsecret.Set, workspace string) (Findings, error) {
	var found Findings
	f, err := os.Open(archive)
	if err != nil {
		return found, err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return found, nil
		}
		if err != nil {
			return found, fmt.Errorf("read the set-up archive: %w", err)
		}
		name := strings.TrimSuffix(hdr.Name, "/")
		if hit, ok := secrets.Find([]byte(name + "\x00" + hdr.Linkname)); ok && found.Leak == nil {
			found.Leak = &Leak{hit, name}
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		var body io.Reader = tr
		var direct []byte
		if path.Base(name) == "direct_url.json" && strings.HasSuffix(path.Dir(name), ".dist-info") && hdr.Size < 1<<20 {
			if direct, err = io.ReadAll(tr); err != nil {
				return found, fmt.Errorf("read the set-up archive: %w", err)
			}
			body = strings.NewReader(string(direct))
			if localInstall(direct, workspace) {
				found.SourceInstalled = append(found.SourceInstalled, strings.TrimSuffix(path.Base(path.Dir(name)), ".dist-info"))
			}
		}
		if len(secrets) > 0 && found.Leak == nil {
			hit, ok, err := secrets.Scan(body)
			if err != nil {
				return found, fmt.Errorf("read the set-up archive: %w", err)
			}
			if ok {
				found.Leak = &Leak{hit, name}
			}
		}
	}
}

// localInstall reports whether a direct_url.json (PEP 610) records an
// install from a directory below workspace that is not editable.
func localInstall(data []byte, workspace string) bool {
	var d struct {
		URL     string `json:"url"`
		DirInfo *struct {
			Editable bool `json:"editable"`
		} `json:"dir_info"`
	}
	if json.Unmarshal(data, &d) != nil || d.DirInfo == nil || d.DirInfo.Editable {
		return false
	}
	p, ok := strings.CutPrefix(d.URL, "file://")
	return ok && (p == workspace || strings.HasPrefix(p, workspace+"/"))
}
