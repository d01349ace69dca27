package fakegithub

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"
)

func TestTarballRoundTrip(t *testing.T) {
	s := newServer(t)
	files := map[string]string{
		"README.md":           "# calc\n",
		"src/calc.py":         "def add(a, b):\n    return a + b\n",
		"src/pkg/__init__.py": "",
	}
	repo := s.AddRepo("octo", "calc", files)
	sha, err := repo.Push("capsule/issue-1", "Add notes", map[string]string{"docs/notes.md": "notes\n"})
	if err != nil {
		t.Fatal(err)
	}
	gh := tokenClient(s, staticToken)
	ctx := context.Background()
	for _, ref := range []string{"main", "capsule/issue-1", sha} {
		t.Run(ref, func(t *testing.T) {
			link, _, err := gh.Repositories.GetArchiveLink(ctx, "octo", "calc", github.Tarball, &github.RepositoryContentGetOptions{Ref: ref}, 3)
			if err != nil {
				t.Fatalf("GetArchiveLink: %v", err)
			}
			head, err := repo.Commit(ref)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(link.Path, "/_codeload/octo/calc/legacy.tar.gz/"+head.SHA) {
				t.Errorf("link = %s", link)
			}
			resp, err := http.Get(link.String())
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("download: %s", resp.Status)
			}
			got, top, comment := untar(t, resp.Body)
			if want := "octo-calc-" + head.SHA[:7]; top != want {
				t.Errorf("top directory = %q, want %q", top, want)
			}
			if comment != head.SHA {
				t.Errorf("pax comment = %q, want the commit id", comment)
			}
			want, err := repo.Files(ref)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("archive has %d files, want %d: %v", len(got), len(want), got)
			}
			for p, content := range want {
				if got[p] != content {
					t.Errorf("%s = %q, want %q", p, got[p], content)
				}
			}
		})
	}
	s.FailNext("GET", "/_codeload/**", 1, http.StatusBadGateway, nil)
	link, _, err := gh.Repositories.GetArchiveLink(ctx, "octo", "calc", github.Tarball, &github.RepositoryContentGetOptions{Ref: "main"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []int{502, 200} {
		resp, err := http.Get(link.String())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("download with a fault: %s, want %d", resp.Status, want)
		}
	}

	_, resp, err := gh.Repositories.GetArchiveLink(ctx, "octo", "calc", github.Tarball, &github.RepositoryContentGetOptions{Ref: "nope"}, 1)
	if err == nil || resp == nil || resp.StatusCode != 404 {
		t.Errorf("unknown ref: %v, want 404", err)
	}
}

// untar reads a GitHub-style tarball: the files under its one top-level
// directory, that directory's name, and the pax global header's comment.
func untar(t *testing.T, r io.Reader) (files map[string]string, top, comment string) {
	t.Helper()
	zr, err := gzip.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	files = map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, top, comment
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			comment = h.PAXRecords["comment"]
			continue
		}
		first, rest, _ := strings.Cut(strings.TrimSuffix(h.Name, "/"), "/")
		if top == "" {
			top = first
		} else if first != top {
			t.Errorf("entry %s outside %s/", h.Name, top)
		}
		if h.Typeflag == tar.TypeReg {
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[rest] = string(data)
		}
	}
}
