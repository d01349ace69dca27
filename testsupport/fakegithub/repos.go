package fakegithub

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// repoState is everything the fake knows about one repository. It is
// guarded by the server's mutex.
type repoState struct {
	id            int64
	owner, name   string
	private       bool
	defaultBranch string
	created       time.Time
	objects       map[string]*gitObject
	refs          map[string]string // "refs/heads/main" → commit id
	issues        map[int]*issue    // issues and pull requests by number
	labels        []*label
	perms         map[string]string // lower-case login → role
	checkRuns     []*CheckRun
	workflowRuns  []*WorkflowRun
}

// Repo is a handle on one of the fake's repositories, for seeding and
// assertions. Its methods are safe for concurrent use.
type Repo struct {
	s  *Server
	st *repoState
}

// initialDate is the date of every repository's first commit, so that its
// id is the same from run to run.
var initialDate = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// AddRepo creates the repository owner/name, private, with default branch
// "main" holding one commit ("Initial commit", by owner, dated 2024-01-01)
// of files, keyed by slash-separated path ("src/calc.py").
func (s *Server) AddRepo(owner, name string, files map[string]string) *Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(owner + "/" + name)
	if s.repos[key] != nil {
		s.fatalf("fakegithub: AddRepo: %s/%s already exists", owner, name)
	}
	st := &repoState{
		id:            s.newID(),
		owner:         owner,
		name:          name,
		private:       true,
		defaultBranch: "main",
		created:       initialDate,
		objects:       map[string]*gitObject{},
		refs:          map[string]string{},
		issues:        map[int]*issue{},
		perms:         map[string]string{},
	}
	s.userID(owner)
	who := signature{name: owner, email: owner + "@users.noreply.github.com", when: initialDate}
	st.refs["refs/heads/main"] = st.commitFiles("", "Initial commit", who, files, nil)
	s.repos[key] = st
	return &Repo{s: s, st: st}
}

// Repo returns the repository owner/name; it fails the test if there is
// none.
func (s *Server) Repo(owner, name string) *Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.repos[strings.ToLower(owner+"/"+name)]
	if st == nil {
		s.fatalf("fakegithub: no repository %s/%s", owner, name)
	}
	return &Repo{s: s, st: st}
}

// FullName returns "owner/name".
func (r *Repo) FullName() string { return r.st.owner + "/" + r.st.name }

// SetPrivate sets whether the repository is private (the default) or
// public. Users without a role read public repositories.
func (r *Repo) SetPrivate(private bool) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.st.private = private
}

// resolve returns the commit that ref names: a commit id, a full ref
// ("refs/heads/x"), "heads/x" or "tags/x", or a branch or tag name.
func (st *repoState) resolve(ref string) (string, bool) {
	if len(ref) == 40 {
		if _, err := hex.DecodeString(ref); err == nil {
			if st.object(ref, "commit") != nil {
				return strings.ToLower(ref), true
			}
			return "", false
		}
	}
	candidates := []string{ref, "refs/" + ref, "refs/heads/" + ref, "refs/tags/" + ref}
	for _, c := range candidates {
		if sha, ok := st.refs[c]; ok {
			return sha, true
		}
	}
	return "", false
}

// Files returns the files at ref (a branch, tag or commit id), by path.
func (r *Repo) Files(ref string) (map[string]string, error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	sha, ok := r.st.resolve(ref)
	if !ok {
		return nil, fmt.Errorf("%s: no ref %q", r.FullName(), ref)
	}
	out := map[string]string{}
	for p, l := range r.st.flatten(r.st.objects[sha].commit.tree) {
		if o := r.st.object(l.sha, "blob"); o != nil {
			out[p] = string(o.data)
		}
	}
	return out, nil
}

// Commit is a commit of a fake repository.
type Commit struct {
	SHA            string
	Tree           string
	Parents        []string
	Message        string
	AuthorName     string
	AuthorEmail    string
	AuthorDate     time.Time
	CommitterName  string
	CommitterEmail string
}

// Commit returns the commit ref (a branch, tag or commit id) names.
func (r *Repo) Commit(ref string) (Commit, error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	sha, ok := r.st.resolve(ref)
	if !ok {
		return Commit{}, fmt.Errorf("%s: no ref %q", r.FullName(), ref)
	}
	c := r.st.objects[sha].commit
	return Commit{
		SHA:            sha,
		Tree:           c.tree,
		Parents:        append([]string(nil), c.parents...),
		Message:        c.message,
		AuthorName:     c.author.name,
		AuthorEmail:    c.author.email,
		AuthorDate:     c.author.when,
		CommitterName:  c.committer.name,
		CommitterEmail: c.committer.email,
	}, nil
}

// Branches returns the names of the branches, sorted.
func (r *Repo) Branches() []string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	var out []string
	for ref := range r.st.refs {
		if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			out = append(out, b)
		}
	}
	sort.Strings(out)
	return out
}

// Object returns the type and content of git object sha as git stores it
// (the bytes hashed after the "<type> <len>\x00" header), for checking ids
// with git itself.
func (r *Repo) Object(sha string) (typ string, data []byte, err error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	o := r.st.object(sha, "")
	if o == nil {
		return "", nil, fmt.Errorf("%s: no object %s", r.FullName(), sha)
	}
	return o.typ, append([]byte(nil), o.data...), nil
}

// Push commits to branch (created from the default branch if missing), as
// someone pushing from outside: set writes files, remove deletes paths. It
// returns the new commit's id.
func (r *Repo) Push(branch, message string, set map[string]string, remove ...string) (string, error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	parent, ok := r.st.refs["refs/heads/"+branch]
	if !ok {
		if parent, ok = r.st.refs["refs/heads/"+r.st.defaultBranch]; !ok {
			return "", errors.New("no default branch to start from")
		}
	}
	who := signature{name: r.st.owner, email: r.st.owner + "@users.noreply.github.com", when: time.Now().UTC().Truncate(time.Second)}
	sha := r.st.commitFiles(parent, message, who, set, remove)
	r.st.refs["refs/heads/"+branch] = sha
	return sha, nil
}

// roles maps each repository role to the legacy permission GitHub reports.
var roles = map[string]string{
	"admin":    "admin",
	"maintain": "write",
	"write":    "write",
	"triage":   "read",
	"read":     "read",
	"none":     "none",
}

// SetPermission gives user a role on owner/repo: admin, maintain, write,
// triage, read or none ("none" makes a known user without access). Users
// never given a role (and not the owner or an issue or comment author)
// do not exist: asking for their permission answers 404.
func (s *Server) SetPermission(owner, repo, user, role string) {
	if _, ok := roles[role]; !ok {
		s.fatalf("fakegithub: SetPermission: unknown role %q", role)
	}
	r := s.Repo(owner, repo)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.userID(user)
	r.st.perms[strings.ToLower(user)] = role
}

func getRepo(c *call) reply {
	body := c.s.repoJSON(c.repo)
	body["permissions"] = map[string]any{"admin": false, "maintain": false, "push": true, "triage": true, "pull": true}
	return ok(body)
}

func getBranch(c *call) reply {
	st := c.repo
	name := c.params["branch"]
	sha, found := st.refs["refs/heads/"+name]
	if !found {
		return errorReply(http.StatusNotFound, "Branch not found")
	}
	base := c.s.apiBase() + "/repos/" + st.owner + "/" + st.name
	return ok(map[string]any{
		"name":      name,
		"commit":    c.s.commitJSON(st, sha),
		"protected": false,
		"_links": map[string]any{
			"self": base + "/branches/" + name,
			"html": c.s.webBase() + "/" + st.owner + "/" + st.name + "/tree/" + name,
		},
		"protection_url": base + "/branches/" + name + "/protection",
	})
}

func getPermission(c *call) reply {
	st := c.repo
	user := c.params["username"]
	key := strings.ToLower(user)
	role, has := st.perms[key]
	if !has {
		if _, exists := c.s.users[key]; !exists {
			return notFound()
		}
		switch {
		case strings.EqualFold(user, st.owner):
			role = "admin"
		case st.private:
			role = "none"
		default:
			role = "read"
		}
	}
	perm := roles[role]
	u := c.s.userJSON(user)
	u["role_name"] = role
	u["permissions"] = map[string]any{
		"admin":    role == "admin",
		"maintain": role == "admin" || role == "maintain",
		"push":     perm == "admin" || perm == "write",
		"triage":   perm == "admin" || perm == "write" || role == "triage",
		"pull":     perm != "none",
	}
	return ok(map[string]any{"permission": perm, "role_name": role, "user": u})
}
