package image

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Source is a Debian archive and the suite to install from it.
type Source struct {
	URI   string
	Suite string
}

// Where the host's apt configuration and release name live; variables so
// tests can point them elsewhere.
var (
	aptSourcesList = "/etc/apt/sources.list"
	aptSourcesDir  = "/etc/apt/sources.list.d"
	osRelease      = "/etc/os-release"
)

// HostMirror returns the archive the host's apt uses for its own release,
// so that the offline build reaches exactly what the host may reach.
func HostMirror() (Source, error) {
	suite, err := codename(osRelease)
	if err != nil {
		return Source{}, err
	}
	var files []string
	if _, err := os.Stat(aptSourcesList); err == nil {
		files = append(files, aptSourcesList)
	}
	more, _ := filepath.Glob(filepath.Join(aptSourcesDir, "*"))
	files = append(files, more...)
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		var uri string
		switch {
		case strings.HasSuffix(name, ".sources"):
			uri = findDeb822(f, suite)
		case strings.HasSuffix(name, ".list"):
			uri = findOneLine(f, suite)
		}
		f.Close()
		if uri != "" {
			return Source{URI: uri, Suite: suite}, nil
		}
	}
	return Source{}, fmt.Errorf("no apt source for %q in %s or %s: the offline image build needs a Debian host with a reachable mirror", suite, aptSourcesList, aptSourcesDir)
}

// codename reads VERSION_CODENAME from an os-release file.
func codename(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VERSION_CODENAME="); ok {
			if v = strings.Trim(v, `"' `); v != "" {
				return v, nil
			}
		}
	}
	return "", errors.New("the host names no Debian release (VERSION_CODENAME in " + path + "); the offline image build needs a Debian host")
}

// findDeb822 returns the first URI of a deb822 stanza that serves suite.
func findDeb822(r io.Reader, suite string) string {
	fields := map[string]string{}
	check := func() string {
		defer clear(fields)
		if !slices.Contains(strings.Fields(fields["types"]), "deb") || fields["enabled"] == "no" {
			return ""
		}
		if !slices.Contains(strings.Fields(fields["suites"]), suite) {
			return ""
		}
		if uris := strings.Fields(fields["uris"]); len(uris) > 0 {
			return uris[0]
		}
		return ""
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			if uri := check(); uri != "" {
				return uri
			}
			continue
		}
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	return check()
}

// findOneLine returns the URI of the first `deb URI suite ...` line for
// suite.
func findOneLine(r io.Reader, suite string) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || f[0] != "deb" {
			continue
		}
		f = f[1:]
		if strings.HasPrefix(f[0], "[") { // options: [arch=amd64 signed-by=...]
			for len(f) > 0 && !strings.HasSuffix(f[0], "]") {
				f = f[1:]
			}
			if len(f) == 0 {
				continue
			}
			f = f[1:]
		}
		if len(f) >= 2 && f[1] == suite {
			return f[0]
		}
	}
	return ""
}
