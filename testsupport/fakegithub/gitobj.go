package fakegithub

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

// Git modes as git writes them in tree objects. The API spells a tree's
// mode "040000".
const (
	modeFile    = "100644"
	modeExec    = "100755"
	modeSymlink = "120000"
	modeTree    = "40000"
	modeCommit  = "160000"
)

// gitObject is a git object as git stores it, with its parsed form.
type gitObject struct {
	typ    string // "blob", "tree" or "commit"
	data   []byte // the content git hashes after "<type> <len>\x00"
	tree   []treeEntry
	commit *commitObject
}

// treeEntry is one entry of a tree object.
type treeEntry struct {
	mode string // in git's spelling (modeTree is "40000")
	name string
	sha  string
}

func (e treeEntry) objectType() string {
	switch e.mode {
	case modeTree:
		return "tree"
	case modeCommit:
		return "commit"
	default:
		return "blob"
	}
}

// apiMode is the mode as the API shows it.
func apiMode(mode string) string {
	if mode == modeTree {
		return "040000"
	}
	return mode
}

// gitMode is the mode as git writes it.
func gitMode(mode string) string {
	if mode == "040000" {
		return modeTree
	}
	return mode
}

// signature is a commit's author or committer.
type signature struct {
	name, email string
	when        time.Time
}

func (s signature) encode() string {
	_, offset := s.when.Zone()
	sign := '+'
	if offset < 0 {
		sign, offset = '-', -offset
	}
	return fmt.Sprintf("%s <%s> %d %c%02d%02d", s.name, s.email, s.when.Unix(), sign, offset/3600, offset%3600/60)
}

// commitObject is a parsed commit.
type commitObject struct {
	tree      string
	parents   []string
	author    signature
	committer signature
	message   string
}

// objectID is git's object id: SHA-1 of "<type> <len>\x00<data>".
func objectID(typ string, data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", typ, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// encodeTree sorts entries as git does (a tree's name compares as if it
// ended in "/") and encodes them.
func encodeTree(entries []treeEntry) ([]treeEntry, []byte) {
	sorted := append([]treeEntry(nil), entries...)
	key := func(e treeEntry) string {
		if e.mode == modeTree {
			return e.name + "/"
		}
		return e.name
	}
	sort.Slice(sorted, func(i, j int) bool { return key(sorted[i]) < key(sorted[j]) })
	var buf bytes.Buffer
	for _, e := range sorted {
		raw, _ := hex.DecodeString(e.sha) // shas are validated before they get here
		fmt.Fprintf(&buf, "%s %s\x00", e.mode, e.name)
		buf.Write(raw)
	}
	return sorted, buf.Bytes()
}

func encodeCommit(c *commitObject) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "tree %s\n", c.tree)
	for _, p := range c.parents {
		fmt.Fprintf(&buf, "parent %s\n", p)
	}
	fmt.Fprintf(&buf, "author %s\ncommitter %s\n\n%s", c.author.encode(), c.committer.encode(), c.message)
	return buf.Bytes()
}

func (st *repoState) putBlob(content []byte) string {
	sha := objectID("blob", content)
	if st.objects[sha] == nil {
		st.objects[sha] = &gitObject{typ: "blob", data: bytes.Clone(content)}
	}
	return sha
}

func (st *repoState) putTree(entries []treeEntry) string {
	sorted, data := encodeTree(entries)
	sha := objectID("tree", data)
	if st.objects[sha] == nil {
		st.objects[sha] = &gitObject{typ: "tree", data: data, tree: sorted}
	}
	return sha
}

func (st *repoState) putCommit(c *commitObject) string {
	data := encodeCommit(c)
	sha := objectID("commit", data)
	if st.objects[sha] == nil {
		st.objects[sha] = &gitObject{typ: "commit", data: data, commit: c}
	}
	return sha
}

// object returns the object sha of type typ, or nil.
func (st *repoState) object(sha, typ string) *gitObject {
	o := st.objects[strings.ToLower(sha)]
	if o == nil || (typ != "" && o.typ != typ) {
		return nil
	}
	return o
}

// leaf is a non-tree entry of a flattened tree.
type leaf struct {
	mode string
	sha  string
}

// flatten lists every blob (and submodule) under tree sha by full path.
func (st *repoState) flatten(sha string) map[string]leaf {
	out := map[string]leaf{}
	var walk func(sha, prefix string)
	walk = func(sha, prefix string) {
		o := st.object(sha, "tree")
		if o == nil {
			return
		}
		for _, e := range o.tree {
			p := path.Join(prefix, e.name)
			if e.mode == modeTree {
				walk(e.sha, p)
				continue
			}
			out[p] = leaf{mode: e.mode, sha: e.sha}
		}
	}
	walk(sha, "")
	return out
}

// buildTree writes the tree objects for the flattened files and returns the
// root tree's id.
func (st *repoState) buildTree(files map[string]leaf) string {
	type dir struct {
		files map[string]leaf
		dirs  map[string]*dir
	}
	newDir := func() *dir { return &dir{files: map[string]leaf{}, dirs: map[string]*dir{}} }
	root := newDir()
	for p, l := range files {
		d := root
		parts := strings.Split(p, "/")
		for _, part := range parts[:len(parts)-1] {
			if d.dirs[part] == nil {
				d.dirs[part] = newDir()
			}
			d = d.dirs[part]
		}
		d.files[parts[len(parts)-1]] = l
	}
	var write func(d *dir) string
	write = func(d *dir) string {
		var entries []treeEntry
		for name, l := range d.files {
			entries = append(entries, treeEntry{mode: l.mode, name: name, sha: l.sha})
		}
		for name, sub := range d.dirs {
			entries = append(entries, treeEntry{mode: modeTree, name: name, sha: write(sub)})
		}
		return st.putTree(entries)
	}
	return write(root)
}

// isAncestor reports whether commit a is reachable from commit b (a commit
// is its own ancestor).
func (st *repoState) isAncestor(a, b string) bool {
	seen := map[string]bool{}
	stack := []string{b}
	for len(stack) > 0 {
		sha := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if sha == a {
			return true
		}
		if seen[sha] {
			continue
		}
		seen[sha] = true
		if o := st.object(sha, "commit"); o != nil {
			stack = append(stack, o.commit.parents...)
		}
	}
	return false
}

// commitFiles writes a commit on top of parent (may be "") whose tree is
// parent's with set written and remove deleted.
func (st *repoState) commitFiles(parent, message string, who signature, set map[string]string, remove []string) string {
	files := map[string]leaf{}
	var parents []string
	if parent != "" {
		parents = []string{parent}
		files = st.flatten(st.objects[parent].commit.tree)
	}
	for p, content := range set {
		files[strings.Trim(p, "/")] = leaf{mode: modeFile, sha: st.putBlob([]byte(content))}
	}
	for _, p := range remove {
		delete(files, strings.Trim(p, "/"))
	}
	return st.putCommit(&commitObject{
		tree:      st.buildTree(files),
		parents:   parents,
		author:    who,
		committer: who,
		message:   message,
	})
}
