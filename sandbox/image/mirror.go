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
	suite, entries, err := hostEntries()
	if err != nil {
		return Source{}, err
	}
	for _, e := range entries {
		if slices.Contains(e.suites, suite) {
			return Source{URI: e.uri, Suite: suite}, nil
		}
	}
	return Source{}, fmt.Errorf("no apt source for %q in %s or %s: the offline image build needs a Debian host with a reachable mirror", suite, aptSourcesList, aptSourcesDir)
}

// HostSources returns the one-line apt sources (`deb URI SUITE COMPONENTS`)
// of every archive the host's apt uses for its release and the release's
// updates (SUITE-updates, SUITE-security, ...): the chroot of the offline
// build gets them, so that it installs the same versions the host would.
func HostSources() ([]string, error) {
	suite, entries, err := hostEntries()
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, e := range entries {
		comps := strings.Join(e.comps, " ")
		if comps == "" {
			comps = "main"
		}
		for _, s := range e.suites {
			if s == suite || strings.HasPrefix(s, suite+"-") {
				if line := fmt.Sprintf("deb %s %s %s", e.uri, s, comps); !slices.Contains(lines, line) {
					lines = append(lines, line)
				}
			}
		}
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("no apt source for %q in %s or %s: the offline image build needs a Debian host with a reachable mirror", suite, aptSourcesList, aptSourcesDir)
	}
	return lines, nil
}

// aptEntry is one archive of the host's apt configuration.
type aptEntry struct {
	uri    string
	suites []string
	comps  []string
}

// hostEntries returns the host's release and the deb entries of its apt
// configuration, in the order apt reads them.
func hostEntries() (string, []aptEntry, error) {
	suite, err := codename(osRelease)
	if err != nil {
		return "", nil, err
	}
	var files []string
	if _, err := os.Stat(aptSourcesList); err == nil {
		files = append(files, aptSourcesList)
	}
	more, _ := filepath.Glob(filepath.Join(aptSourcesDir, "*"))
	files = append(files, more...)
	var entries []aptEntry
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		switch {
		case strings.HasSuffix(name, ".sources"):
			entries = append(entries, deb822Entries(f)...)
		case strings.HasSuffix(name, ".list"):
			entries = append(entries, oneLineEntries(f)...)
		}
		f.Close()
	}
	return suite, entries, nil
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

// deb822Entries returns the enabled deb stanzas of a deb822 file.
func deb822Entries(r io.Reader) []aptEntry {
	var entries []aptEntry
	fields := map[string]string{}
	check := func() {
		defer clear(fields)
		if !slices.Contains(strings.Fields(fields["types"]), "deb") || fields["enabled"] == "no" {
			return
		}
		if uris := strings.Fields(fields["uris"]); len(uris) > 0 {
			entries = append(entries, aptEntry{uri: uris[0], suites: strings.Fields(fields["suites"]), comps: strings.Fields(fields["components"])})
		}
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			check()
			continue
		}
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	check()
	return entries
}

// oneLineEntries returns the `deb URI suite components...` lines of a
// one-line sources file.
func oneLineEntries(r io.Reader) []aptEntry {
	var entries []aptEntry
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
		if len(f) >= 2 {
			entries = append(entries, aptEntry{uri: f[0], suites: f[1:2], comps: f[2:]})
		}
	}
	return entries
}
