package setupcache

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// format changes whenever what an entry holds changes meaning, so that
// an older Capsule's entries are never used.
const format = 1

// Key is what determines a set-up's result.
type Key struct {
	// Repository names the repository (or installation) whose set-up it
	// is: one tenant's set-up never serves another's.
	Repository   string `json:"repository"`
	Installation int64  `json:"installation,omitempty"`
	// ImageID is the image's ID, not its name: a rebuilt image is a new
	// key.
	ImageID string `json:"image_id"`
	Setup   string `json:"setup"`
	Network bool   `json:"network"`
	// Inputs is the Digest of the set-up's input files.
	Inputs string `json:"inputs"`
	// Secrets are the names of the secrets the set-up was given.
	Secrets []string `json:"secrets,omitempty"`
	// Env is the environment every run has (a devcontainer.json's
	// containerEnv), KEY=VALUE.
	Env []string `json:"env,omitempty"`
}

// ID is the key's hash, the entry's name in the cache.
func (k Key) ID() string {
	data, _ := json.Marshal(struct {
		Format int `json:"format"`
		Key
	}{format, k})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Meta describes an entry.
type Meta struct {
	Key     Key       `json:"key"`
	Created time.Time `json:"created"`
	// Bytes and Entries count the archive's contents.
	Bytes   int64 `json:"bytes"`
	Entries int   `json:"entries"`
	// SetupTime is how long the set-up took when it was built.
	SetupTime time.Duration `json:"setup_time_ns"`
	// Source, when set, is the TreeDigest of the tree the set-up ran on:
	// the set-up copied or changed the repository's source, so the entry
	// serves that tree only.
	Source string `json:"source,omitempty"`
	// SourceWhy says what made the entry depend on the source.
	SourceWhy string `json:"source_why,omitempty"`
}

// Entry is a kept set-up: its archive (sandbox.Session.ExportLayer's)
// and what describes it.
type Entry struct {
	ID      string
	Archive string
	Meta    Meta
}

// Cache is a directory of kept set-ups: for each, ID.tar and ID.json,
// whose modification time is its last use.
type Cache struct {
	Dir string
	// MaxAge evicts an entry unused for longer; zero keeps entries of any
	// age.
	MaxAge time.Duration
	// MaxBytes bounds the archives' total size: the least recently used
	// go first; zero means no bound.
	MaxBytes int64
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Defaults of the operator's settings.
const (
	DefaultMaxAge   = 7 * 24 * time.Hour
	DefaultMaxBytes = 20 << 30
)

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Open makes the cache's directory (mode 0700: the kept set-ups are the
// operator's) and evicts what is due, returning the IDs it evicted.
func (c *Cache) Open() ([]string, error) {
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("set-up cache: %w", err)
	}
	return c.Evict()
}

// Lookup returns the entry of id, touched as used; ok is false when
// there is none. source computes the tree's TreeDigest, needed only by
// an entry that depends on the source; why says why an entry that exists
// does not serve.
func (c *Cache) Lookup(id string, source func() (string, error)) (e Entry, ok bool, why string, err error) {
	data, err := os.ReadFile(c.path(id, ".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return Entry{}, false, "no set-up of this key is kept", nil
	}
	if err != nil {
		return Entry{}, false, "", fmt.Errorf("set-up cache: %w", err)
	}
	e = Entry{ID: id, Archive: c.path(id, ".tar")}
	if err := json.Unmarshal(data, &e.Meta); err != nil {
		return Entry{}, false, "the kept set-up's description does not parse", nil
	}
	if _, err := os.Stat(e.Archive); err != nil {
		return Entry{}, false, "the kept set-up's archive is gone", nil
	}
	if e.Meta.Source != "" {
		digest, err := source()
		if err != nil {
			return Entry{}, false, "", err
		}
		if digest != e.Meta.Source {
			return Entry{}, false, "the kept set-up " + e.Meta.SourceWhy + ", and the source differs", nil
		}
	}
	now := c.now()
	_ = os.Chtimes(c.path(id, ".json"), now, now)
	return e, true, "", nil
}

// Temp makes a file in the cache's directory for an archive that Put
// may keep.
func (c *Cache) Temp() (*os.File, error) {
	f, err := os.CreateTemp(c.Dir, "tmp-*.tar")
	if err != nil {
		return nil, fmt.Errorf("set-up cache: %w", err)
	}
	return f, nil
}

// Put keeps the archive at archive (a Temp file, which it moves) as the
// entry of id, then evicts what is due; it returns what it evicted.
func (c *Cache) Put(id string, meta Meta, archive string) ([]string, error) {
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return nil, err
	}
	tmp := archive + ".json"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return nil, fmt.Errorf("set-up cache: %w", err)
	}
	if err := os.Rename(archive, c.path(id, ".tar")); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("set-up cache: %w", err)
	}
	if err := os.Rename(tmp, c.path(id, ".json")); err != nil {
		return nil, fmt.Errorf("set-up cache: %w", err)
	}
	return c.Evict()
}

func (c *Cache) path(id, ext string) string { return filepath.Join(c.Dir, id+ext) }

// Evict removes the entries unused for longer than MaxAge, then the
// least recently used until the archives take at most MaxBytes, and
// leftover temporary files older than a day. It returns the IDs it
// removed.
func (c *Cache) Evict() ([]string, error) {
	dirents, err := os.ReadDir(c.Dir)
	if err != nil {
		return nil, fmt.Errorf("set-up cache: %w", err)
	}
	type entry struct {
		id    string
		used  time.Time
		bytes int64
	}
	var entries []entry
	now := c.now()
	for _, d := range dirents {
		info, err := d.Info()
		if err != nil {
			continue
		}
		name := d.Name()
		if strings.HasPrefix(name, "tmp-") {
			if now.Sub(info.ModTime()) > 24*time.Hour {
				os.Remove(filepath.Join(c.Dir, name))
			}
			continue
		}
		id, ok := strings.CutSuffix(name, ".json")
		if !ok {
			continue
		}
		var size int64
		if st, err := os.Stat(c.path(id, ".tar")); err == nil {
			size = st.Size()
		}
		entries = append(entries, entry{id, info.ModTime(), size})
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Or(a.used.Compare(b.used), strings.Compare(a.id, b.id)) })
	var total int64
	for _, e := range entries {
		total += e.bytes
	}
	var removed []string
	for _, e := range entries {
		old := c.MaxAge > 0 && now.Sub(e.used) > c.MaxAge
		big := c.MaxBytes > 0 && total > c.MaxBytes
		if !old && !big {
			continue
		}
		os.Remove(c.path(e.id, ".json"))
		os.Remove(c.path(e.id, ".tar"))
		total -= e.bytes
		removed = append(removed, e.id)
	}
	return removed, nil
}
