package fakegithub

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"
)

// This file holds the Git database endpoints: refs, blobs, trees, commits.

func (c *call) repoAPI() string {
	return c.s.apiBase() + "/repos/" + c.repo.owner + "/" + c.repo.name
}

func (c *call) refJSON(ref, sha string) map[string]any {
	return map[string]any{
		"ref":     ref,
		"node_id": nodeID("REF", int64(len(ref))) + hex.EncodeToString([]byte(ref)),
		"url":     c.repoAPI() + "/git/" + ref,
		"object": map[string]any{
			"type": "commit",
			"sha":  sha,
			"url":  c.repoAPI() + "/git/commits/" + sha,
		},
	}
}

func getRef(c *call) reply {
	ref := "refs/" + c.params["ref"]
	sha, found := c.repo.refs[ref]
	if !found {
		return notFound()
	}
	return ok(c.refJSON(ref, sha))
}

func listMatchingRefs(c *call) reply {
	prefix := "refs/" + c.params["ref"]
	var names []string
	for ref := range c.repo.refs {
		if strings.HasPrefix(ref, prefix) {
			names = append(names, ref)
		}
	}
	sort.Strings(names)
	out := []any{}
	for _, ref := range names {
		out = append(out, c.refJSON(ref, c.repo.refs[ref]))
	}
	return ok(out)
}

// validRefName applies the rules of git check-ref-format that matter here.
func validRefName(ref string) bool {
	if !strings.HasPrefix(ref, "refs/") || strings.Count(ref, "/") < 2 {
		return false
	}
	if strings.Contains(ref, "..") || strings.Contains(ref, "//") || strings.Contains(ref, "@{") ||
		strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".") || strings.HasSuffix(ref, ".lock") {
		return false
	}
	for _, r := range ref {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return false
		}
	}
	for _, part := range strings.Split(ref, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	return true
}

func createRef(c *call) reply {
	var req struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if rep, good := c.decode(&req); !good {
		return rep
	}
	if !validRefName(req.Ref) {
		return errorReply(http.StatusUnprocessableEntity, fmt.Sprintf("%q is not a valid ref name.", req.Ref))
	}
	if c.repo.object(req.SHA, "") == nil {
		return errorReply(http.StatusUnprocessableEntity, "Object does not exist")
	}
	if _, exists := c.repo.refs[req.Ref]; exists {
		return errorReply(http.StatusUnprocessableEntity, "Reference already exists")
	}
	sha := strings.ToLower(req.SHA)
	c.repo.refs[req.Ref] = sha
	rep := created(c.refJSON(req.Ref, sha))
	rep.header = http.Header{"Location": {c.repoAPI() + "/git/" + req.Ref}}
	return rep
}

func updateRef(c *call) reply {
	ref := "refs/" + c.params["ref"]
	var req struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if rep, good := c.decode(&req); !good {
		return rep
	}
	old, exists := c.repo.refs[ref]
	if !exists {
		return errorReply(http.StatusUnprocessableEntity, "Reference does not exist")
	}
	sha := strings.ToLower(req.SHA)
	if c.repo.object(sha, "commit") == nil {
		return errorReply(http.StatusUnprocessableEntity, "Object does not exist")
	}
	if !req.Force && !c.repo.isAncestor(old, sha) {
		return errorReply(http.StatusUnprocessableEntity, "Update is not a fast forward")
	}
	c.repo.refs[ref] = sha
	return ok(c.refJSON(ref, sha))
}

func deleteRef(c *call) reply {
	ref := "refs/" + c.params["ref"]
	if _, exists := c.repo.refs[ref]; !exists {
		return errorReply(http.StatusUnprocessableEntity, "Reference does not exist")
	}
	delete(c.repo.refs, ref)
	return noContent()
}

func createBlob(c *call) reply {
	var req struct {
		Content  string `json:"content"`
		Encoding string `json:"encoding"`
	}
	if rep, good := c.decode(&req); !good {
		return rep
	}
	content := []byte(req.Content)
	switch req.Encoding {
	case "", "utf-8", "utf8":
	case "base64":
		var err error
		if content, err = base64.StdEncoding.DecodeString(req.Content); err != nil {
			return errorReply(http.StatusUnprocessableEntity, "content is not valid Base64")
		}
	default:
		return errorReply(http.StatusUnprocessableEntity, fmt.Sprintf("encoding must be utf-8 or base64, not %q", req.Encoding))
	}
	sha := c.repo.putBlob(content)
	rep := created(map[string]any{"url": c.repoAPI() + "/git/blobs/" + sha, "sha": sha})
	rep.header = http.Header{"Location": {c.repoAPI() + "/git/blobs/" + sha}}
	return rep
}

// wrap64 is base64 as GitHub sends file content: lines of 60 characters,
// each ending in "\n".
func wrap64(data []byte) string {
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(enc) > 60 {
		b.WriteString(enc[:60])
		b.WriteByte('\n')
		enc = enc[60:]
	}
	if enc != "" {
		b.WriteString(enc)
		b.WriteByte('\n')
	}
	return b.String()
}

func getBlob(c *call) reply {
	sha := strings.ToLower(c.params["file_sha"])
	o := c.repo.object(sha, "blob")
	if o == nil {
		return notFound()
	}
	if wantsRaw(c.r) {
		return rawReply(o.data)
	}
	return ok(map[string]any{
		"sha":      sha,
		"node_id":  nodeID("B", int64(len(o.data))) + sha[:8],
		"size":     len(o.data),
		"url":      c.repoAPI() + "/git/blobs/" + sha,
		"content":  wrap64(o.data),
		"encoding": "base64",
	})
}

// cleanTreePath checks a tree entry path: relative, no empty, "." or ".."
// components.
func cleanTreePath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." || part == ".git" {
			return false
		}
	}
	return true
}

// removePath deletes p, whether a file or a directory, from files, along
// with any file where a directory on p's way should be.
func removePath(files map[string]leaf, p string) {
	delete(files, p)
	for f := range files {
		if strings.HasPrefix(f, p+"/") {
			delete(files, f)
		}
	}
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		delete(files, dir)
	}
}

func createTree(c *call) reply {
	var req struct {
		BaseTree *string                      `json:"base_tree"`
		Tree     []map[string]json.RawMessage `json:"tree"`
	}
	if rep, good := c.decode(&req); !good {
		return rep
	}
	st := c.repo
	files := map[string]leaf{}
	if req.BaseTree != nil {
		if st.object(*req.BaseTree, "tree") == nil {
			return errorReply(http.StatusUnprocessableEntity, "base_tree is not a valid tree oid")
		}
		files = st.flatten(strings.ToLower(*req.BaseTree))
	}
	for _, e := range req.Tree {
		var p, mode, typ string
		var sha, content *string
		for k, dst := range map[string]*string{"path": &p, "mode": &mode, "type": &typ} {
			if raw, has := e[k]; has {
				_ = json.Unmarshal(raw, dst) // the description checked the types
			}
		}
		shaRaw, hasSHA := e["sha"]
		deleting := hasSHA && string(shaRaw) == "null"
		if hasSHA && !deleting {
			sha = new(string)
			_ = json.Unmarshal(shaRaw, sha)
		}
		if raw, has := e["content"]; has && string(raw) != "null" {
			content = new(string)
			_ = json.Unmarshal(raw, content)
		}
		if !cleanTreePath(p) {
			return errorReply(http.StatusUnprocessableEntity, fmt.Sprintf("tree.path %q contains a malformed path component", p))
		}
		if mode == "" {
			return errorReply(http.StatusUnprocessableEntity, "Must supply a valid tree.mode")
		}
		mode = gitMode(mode)
		if typ == "" {
			typ = treeEntry{mode: mode}.objectType()
		}
		if typ != (treeEntry{mode: mode}).objectType() {
			return errorReply(http.StatusUnprocessableEntity, fmt.Sprintf("tree.type %q does not match tree.mode %q", typ, apiMode(mode)))
		}
		switch {
		case sha != nil && content != nil:
			return errorReply(http.StatusUnprocessableEntity, "Only one of tree.sha or tree.content may be specified")
		case deleting:
			removePath(files, p)
		case content != nil:
			if typ != "blob" {
				return errorReply(http.StatusUnprocessableEntity, "tree.content may only be given for a blob")
			}
			removePath(files, p)
			files[p] = leaf{mode: mode, sha: st.putBlob([]byte(*content))}
		case sha != nil:
			id := strings.ToLower(*sha)
			switch typ {
			case "tree":
				if st.object(id, "tree") == nil {
					return errorReply(http.StatusUnprocessableEntity, fmt.Sprintf("tree.sha %s is not a valid tree", *sha))
				}
				removePath(files, p)
				for sub, l := range st.flatten(id) {
					files[p+"/"+sub] = l
				}
			case "blob":
				if st.object(id, "blob") == nil {
					return errorReply(http.StatusUnprocessableEntity, fmt.Sprintf("tree.sha %s is not a valid blob", *sha))
				}
				removePath(files, p)
				files[p] = leaf{mode: mode, sha: id}
			default: // a submodule's commit lives in another repository
				if _, err := hex.DecodeString(id); err != nil || len(id) != 40 {
					return errorReply(http.StatusUnprocessableEntity, fmt.Sprintf("tree.sha %s is not a valid commit id", *sha))
				}
				removePath(files, p)
				files[p] = leaf{mode: mode, sha: id}
			}
		default:
			return errorReply(http.StatusUnprocessableEntity, "Must supply either tree.sha or tree.content")
		}
	}
	sha := st.buildTree(files)
	rep := created(c.treeJSON(sha, false))
	rep.header = http.Header{"Location": {c.repoAPI() + "/git/trees/" + sha}}
	return rep
}

// treeJSON lists tree sha, with every subtree's entries when recursive.
func (c *call) treeJSON(sha string, recursive bool) map[string]any {
	st := c.repo
	entries := []any{}
	var walk func(sha, prefix string)
	walk = func(sha, prefix string) {
		for _, e := range st.objects[sha].tree {
			p := path.Join(prefix, e.name)
			typ := e.objectType()
			entry := map[string]any{"path": p, "mode": apiMode(e.mode), "type": typ, "sha": e.sha}
			switch typ {
			case "blob":
				entry["size"] = len(st.objects[e.sha].data)
				entry["url"] = c.repoAPI() + "/git/blobs/" + e.sha
			case "tree":
				entry["url"] = c.repoAPI() + "/git/trees/" + e.sha
			}
			entries = append(entries, entry)
			if recursive && typ == "tree" {
				walk(e.sha, p)
			}
		}
	}
	walk(sha, "")
	return map[string]any{
		"sha":       sha,
		"url":       c.repoAPI() + "/git/trees/" + sha,
		"tree":      entries,
		"truncated": false,
	}
}

func getTree(c *call) reply {
	ref := c.params["tree_sha"]
	sha := strings.ToLower(ref)
	if c.repo.object(sha, "tree") == nil {
		commit, found := c.repo.resolve(ref)
		if !found {
			return notFound()
		}
		sha = c.repo.objects[commit].commit.tree
	}
	return ok(c.treeJSON(sha, c.query.Has("recursive")))
}

// person is the author or committer of a commit request.
type person struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

func (p *person) signature(fallback signature) (signature, error) {
	if p == nil {
		return fallback, nil
	}
	sig := signature{name: p.Name, email: p.Email, when: fallback.when}
	if p.Date != "" {
		t, err := time.Parse(time.RFC3339, p.Date)
		if err != nil {
			return signature{}, fmt.Errorf("date %q is not an ISO 8601 timestamp", p.Date)
		}
		sig.when = t
	}
	return sig, nil
}

func createCommit(c *call) reply {
	var req struct {
		Message   string   `json:"message"`
		Tree      string   `json:"tree"`
		Parents   []string `json:"parents"`
		Author    *person  `json:"author"`
		Committer *person  `json:"committer"`
	}
	if rep, good := c.decode(&req); !good {
		return rep
	}
	st := c.repo
	tree := strings.ToLower(req.Tree)
	if st.object(tree, "tree") == nil {
		return errorReply(http.StatusUnprocessableEntity, "Tree SHA does not exist")
	}
	var parents []string
	for _, p := range req.Parents {
		if st.object(p, "commit") == nil {
			return errorReply(http.StatusUnprocessableEntity, "Parent SHA does not exist or is not a commit object")
		}
		parents = append(parents, strings.ToLower(p))
	}
	login := c.actor.login
	me := signature{
		name:  login,
		email: fmt.Sprintf("%d+%s@users.noreply.github.com", c.s.userID(login), login),
		when:  time.Now().UTC().Truncate(time.Second),
	}
	author, err := req.Author.signature(me)
	if err != nil {
		return errorReply(http.StatusUnprocessableEntity, "Invalid request.\n\nauthor."+err.Error())
	}
	committer, err := req.Committer.signature(author)
	if err != nil {
		return errorReply(http.StatusUnprocessableEntity, "Invalid request.\n\ncommitter."+err.Error())
	}
	sha := st.putCommit(&commitObject{tree: tree, parents: parents, author: author, committer: committer, message: req.Message})
	rep := created(c.gitCommitJSON(sha))
	rep.header = http.Header{"Location": {c.repoAPI() + "/git/commits/" + sha}}
	return rep
}

func sigJSON(s signature) map[string]any {
	return map[string]any{"name": s.name, "email": s.email, "date": timeJSON(s.when)}
}

func unsigned() map[string]any {
	return map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil}
}

// gitCommitJSON is a commit as the Git database API shows it.
func (c *call) gitCommitJSON(sha string) map[string]any {
	cm := c.repo.objects[sha].commit
	parents := []any{}
	for _, p := range cm.parents {
		parents = append(parents, map[string]any{
			"sha":      p,
			"url":      c.repoAPI() + "/git/commits/" + p,
			"html_url": c.s.webBase() + "/" + c.repo.owner + "/" + c.repo.name + "/commit/" + p,
		})
	}
	return map[string]any{
		"sha":          sha,
		"node_id":      "C_" + sha[:20],
		"url":          c.repoAPI() + "/git/commits/" + sha,
		"html_url":     c.s.webBase() + "/" + c.repo.owner + "/" + c.repo.name + "/commit/" + sha,
		"author":       sigJSON(cm.author),
		"committer":    sigJSON(cm.committer),
		"message":      cm.message,
		"tree":         map[string]any{"sha": cm.tree, "url": c.repoAPI() + "/git/trees/" + cm.tree},
		"parents":      parents,
		"verification": unsigned(),
	}
}

func getCommit(c *call) reply {
	sha := strings.ToLower(c.params["commit_sha"])
	if c.repo.object(sha, "commit") == nil {
		return notFound()
	}
	return ok(c.gitCommitJSON(sha))
}

// commitJSON is a commit as the repository API (branches, commits) shows
// it.
func (s *Server) commitJSON(st *repoState, sha string) map[string]any {
	cm := st.objects[sha].commit
	api := s.apiBase() + "/repos/" + st.owner + "/" + st.name
	web := s.webBase() + "/" + st.owner + "/" + st.name
	parents := []any{}
	for _, p := range cm.parents {
		parents = append(parents, map[string]any{"sha": p, "url": api + "/commits/" + p, "html_url": web + "/commit/" + p})
	}
	return map[string]any{
		"sha":          sha,
		"node_id":      "C_" + sha[:20],
		"url":          api + "/commits/" + sha,
		"html_url":     web + "/commit/" + sha,
		"comments_url": api + "/commits/" + sha + "/comments",
		"commit": map[string]any{
			"url":           api + "/git/commits/" + sha,
			"author":        sigJSON(cm.author),
			"committer":     sigJSON(cm.committer),
			"message":       cm.message,
			"comment_count": 0,
			"tree":          map[string]any{"sha": cm.tree, "url": api + "/git/trees/" + cm.tree},
			"verification":  unsigned(),
		},
		"author":    nil,
		"committer": nil,
		"parents":   parents,
	}
}
