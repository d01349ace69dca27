package fakegithub

import (
	"net/http"
	"net/url"
	"path"
	"strings"
)

// getContents answers GET /repos/{owner}/{repo}/contents/{path}?ref=: a
// file (base64, or its bytes for the raw media type) or a directory
// listing, at ref or the default branch.
func getContents(c *call) reply {
	st := c.repo
	ref := c.query.Get("ref")
	if ref == "" {
		ref = st.defaultBranch
	}
	commit, found := st.resolve(ref)
	if !found {
		return errorReply(http.StatusNotFound, "No commit found for the ref "+ref)
	}
	p := strings.Trim(c.params["path"], "/")
	e, found := st.lookup(st.objects[commit].commit.tree, p)
	if !found {
		return notFound()
	}
	if e.mode == modeTree {
		out := []any{}
		for _, child := range st.objects[e.sha].tree {
			out = append(out, c.contentJSON(ref, path.Join(p, child.name), child, false))
		}
		return ok(out)
	}
	if o := st.object(e.sha, "blob"); o != nil && wantsRaw(c.r) {
		return rawReply(o.data)
	}
	return ok(c.contentJSON(ref, p, e, true))
}

// lookup finds the entry at p under tree; "" is the tree itself.
func (st *repoState) lookup(tree, p string) (treeEntry, bool) {
	e := treeEntry{mode: modeTree, sha: tree}
	if p == "" {
		return e, true
	}
	for _, part := range strings.Split(p, "/") {
		if e.mode != modeTree {
			return treeEntry{}, false
		}
		var next *treeEntry
		for i := range st.objects[e.sha].tree {
			if te := st.objects[e.sha].tree[i]; te.name == part {
				next = &te
				break
			}
		}
		if next == nil {
			return treeEntry{}, false
		}
		e = *next
	}
	return e, true
}

// contentJSON is one entry of the contents API, with its content when
// withContent (a single file).
func (c *call) contentJSON(ref, p string, e treeEntry, withContent bool) map[string]any {
	st := c.repo
	full := st.owner + "/" + st.name
	escaped := (&url.URL{Path: p}).EscapedPath()
	self := c.repoAPI() + "/contents/" + escaped + "?ref=" + url.QueryEscape(ref)
	typ, gitURL, htmlKind := "file", c.repoAPI()+"/git/blobs/"+e.sha, "blob"
	size := 0
	switch e.mode {
	case modeTree:
		typ, gitURL, htmlKind = "dir", c.repoAPI()+"/git/trees/"+e.sha, "tree"
	case modeCommit:
		typ, gitURL = "submodule", ""
	case modeSymlink:
		typ = "symlink"
	}
	var download any
	if o := st.object(e.sha, "blob"); o != nil {
		size = len(o.data)
		download = c.s.webBase() + "/raw/" + full + "/" + ref + "/" + escaped
	}
	html := c.s.webBase() + "/" + full + "/" + htmlKind + "/" + ref + "/" + escaped
	out := map[string]any{
		"type":         typ,
		"name":         path.Base(p),
		"path":         p,
		"sha":          e.sha,
		"size":         size,
		"url":          self,
		"git_url":      gitURL,
		"html_url":     html,
		"download_url": download,
		"_links":       map[string]any{"self": self, "git": gitURL, "html": html},
	}
	if withContent {
		if o := st.object(e.sha, "blob"); o != nil {
			out["encoding"] = "base64"
			out["content"] = wrap64(o.data)
			if e.mode == modeSymlink {
				out["target"] = string(o.data)
			}
		}
	}
	return out
}
