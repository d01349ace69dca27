package fakegithub

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"path"
	"strings"
)

// codeloadPrefix is where the fake serves archives, like GitHub's
// codeload.github.com. It is outside the API, so it is not validated.
const codeloadPrefix = "/_codeload/"

// getTarball redirects, as GitHub does, to the archive of the commit ref
// names: {server}/_codeload/{owner}/{repo}/legacy.tar.gz/{sha}.
func getTarball(c *call) reply {
	sha, found := c.repo.resolve(c.params["ref"])
	if !found {
		return notFound()
	}
	loc := fmt.Sprintf("%s%s%s/%s/legacy.tar.gz/%s", c.s.srv.URL, codeloadPrefix, c.repo.owner, c.repo.name, sha)
	return reply{status: http.StatusFound, header: http.Header{"Location": {loc}}}
}

// serveCodeload answers a download of an archive made by getTarball.
func (s *Server) serveCodeload(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, codeloadPrefix), "/")
	if len(parts) == 4 && parts[2] == "job-logs" && r.Method == http.MethodGet {
		s.serveJobLog(w, r, parts[0], parts[1], parts[3])
		return
	}
	if len(parts) != 4 || parts[2] != "legacy.tar.gz" || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	st := s.repos[strings.ToLower(parts[0]+"/"+parts[1])]
	var data []byte
	var name string
	var err error
	if st != nil {
		if sha, found := st.resolve(parts[3]); found {
			name = fmt.Sprintf("%s-%s-%s", st.owner, st.name, sha[:7])
			data, err = st.tarball(sha, name)
		}
	}
	s.mu.Unlock()
	switch {
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	case data == nil:
		http.NotFound(w, r)
	default:
		w.Header().Set("Content-Type", "application/x-gzip")
		w.Header().Set("Content-Disposition", "attachment; filename="+name+".tar.gz")
		_, _ = w.Write(data)
	}
}

// tarball is the gzipped tar of commit sha as GitHub makes it: a pax global
// header whose comment is the commit id, then everything under one
// directory named top ("{owner}-{repo}-{sha7}").
func (st *repoState) tarball(sha, top string) ([]byte, error) {
	cm := st.objects[sha].commit
	when := cm.committer.when
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	write := func(h *tar.Header, data []byte) error {
		h.ModTime = when
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("tar %s: %w", h.Name, err)
		}
		if _, err := tw.Write(data); err != nil {
			return fmt.Errorf("tar %s: %w", h.Name, err)
		}
		return nil
	}
	global := &tar.Header{Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": sha}}
	if err := tw.WriteHeader(global); err != nil {
		return nil, fmt.Errorf("tar global header: %w", err)
	}
	if err := write(&tar.Header{Typeflag: tar.TypeDir, Name: top + "/", Mode: 0o775}, nil); err != nil {
		return nil, err
	}
	var walk func(tree, prefix string) error
	walk = func(tree, prefix string) error {
		for _, e := range st.objects[tree].tree {
			name := path.Join(prefix, e.name)
			var err error
			switch e.mode {
			case modeTree:
				if err = write(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o775}, nil); err == nil {
					err = walk(e.sha, name)
				}
			case modeCommit:
				err = write(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o775}, nil)
			case modeSymlink:
				err = write(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: string(st.objects[e.sha].data), Mode: 0o777}, nil)
			default:
				data := st.objects[e.sha].data
				mode := int64(0o664)
				if e.mode == modeExec {
					mode = 0o775
				}
				err = write(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(data)), Mode: mode}, data)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(cm.tree, top); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("close tar: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("close gzip: %w", err)
	}
	return buf.Bytes(), nil
}
