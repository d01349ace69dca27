package sandbox

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtractToLeavesOutEscapes checks the copy out of the workspace
// (tarx's own tests cover its rules): what would reach outside the
// target is left out, and the rest is collected.
func TestExtractToLeavesOutEscapes(t *testing.T) {
	tests := []struct {
		name    string
		entries []tar.Header
		absent  []string // paths, relative to the parent of the target, that must not exist
	}{
		{name: "parent path", entries: []tar.Header{{Name: "../evil", Typeflag: tar.TypeReg}}, absent: []string{"evil"}},
		{name: "absolute path", entries: []tar.Header{{Name: "/abs", Typeflag: tar.TypeReg}}, absent: []string{"ws/abs"}},
		{name: "link out then write through it", entries: []tar.Header{
			{Name: "out", Typeflag: tar.TypeSymlink, Linkname: "../"},
			{Name: "out/evil", Typeflag: tar.TypeReg},
		}, absent: []string{"evil"}},
		{name: "absolute link", entries: []tar.Header{
			{Name: "abs", Typeflag: tar.TypeSymlink, Linkname: "/etc"},
		}, absent: []string{"ws/abs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			for _, h := range append(tt.entries, tar.Header{Name: "kept.py", Typeflag: tar.TypeReg}) {
				h.Mode = 0o644
				tw.WriteHeader(&h)
			}
			tw.Close()
			parent := t.TempDir()
			dir := filepath.Join(parent, "ws")
			if err := extractTo(&buf, dir); err != nil {
				t.Fatalf("extractTo() = %v", err)
			}
			for _, p := range tt.absent {
				if _, err := os.Lstat(filepath.Join(parent, p)); err == nil {
					t.Errorf("%s was written", p)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "kept.py")); err != nil {
				t.Errorf("the rest of the archive was not collected: %v", err)
			}
		})
	}
}

func TestFilesArchiveRefusesEscapes(t *testing.T) {
	for _, name := range []string{"../x", "/etc/passwd", "a/../../x"} {
		if _, err := FilesArchive(map[string][]byte{name: nil}); err == nil {
			t.Errorf("FilesArchive accepted %q", name)
		}
	}
	data, err := FilesArchive(map[string][]byte{"b/c.py": []byte("x"), "a.py": []byte("y")})
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(data))
	var names []string
	for h, err := tr.Next(); err == nil; h, err = tr.Next() {
		names = append(names, h.Name)
	}
	if len(names) != 2 || names[0] != "a.py" || names[1] != "b/c.py" {
		t.Errorf("entries %v, want sorted a.py, b/c.py", names)
	}
}

// The seed lays the helper files out read-only under the plugin
// directory, with the directories they need, and makes the channel's
// directory; a helper path that is not clean and relative is refused.
func TestWriteSeedHelpers(t *testing.T) {
	agentBin := filepath.Join(t.TempDir(), "agent")
	if err := os.WriteFile(agentBin, []byte("bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	helpers := map[string][]byte{"boot.py": []byte("b"), "userbase/lib/python3.11/site-packages/x.pth": []byte("p")}
	if err := writeSeed(&buf, agentBin, Spec{Helpers: helpers}); err != nil {
		t.Fatal(err)
	}
	var got []string
	tr := tar.NewReader(&buf)
	for h, err := tr.Next(); err == nil; h, err = tr.Next() {
		got = append(got, fmt.Sprintf("%s %o %d:%d", h.Name, h.Mode, h.Uid, h.Gid))
	}
	want := []string{"agent 500 0:0", "base/ 700 0:0", "layer/ 700 0:0", "workspace/ 755 0:0", "plugin/ 555 0:0", "channel/ 755 0:0",
		"plugin/boot.py 444 0:0", "plugin/userbase/ 555 0:0", "plugin/userbase/lib/ 555 0:0", "plugin/userbase/lib/python3.11/ 555 0:0",
		"plugin/userbase/lib/python3.11/site-packages/ 555 0:0", "plugin/userbase/lib/python3.11/site-packages/x.pth 444 0:0"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("seed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, name := range []string{"../x", "/abs", "a/../b", "./a", ""} {
		if err := writeSeed(io.Discard, agentBin, Spec{Helpers: map[string][]byte{name: nil}}); err == nil {
			t.Errorf("helper %q accepted", name)
		}
	}
}
