package repoconfig

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Where a devcontainer.json is looked for, relative to the repository
// root, in this order; then in .devcontainer/NAME/devcontainer.json, one
// level down, in name order.
const (
	DevcontainerPath    = ".devcontainer/devcontainer.json"
	DevcontainerAltPath = ".devcontainer.json"
)

// Devcontainer is what Capsule takes from a repository's devcontainer.json
// when .github/capsule.yml sets neither image: nor setup:: the image it
// names (or its Dockerfile's base) mapped to one of Capsule's offline
// images, its create-time commands as the set-up, and its environment
// variables where safe. Everything else the file asks for is named in
// Notes, never dropped silently.
type Devcontainer struct {
	File string // the devcontainer.json, relative to the repository root
	Name string // its "name"; "" when none
	// Image is the registry image it names, or its Dockerfile's base;
	// Recipe the key of Capsule's offline image that stands for it.
	Image, Recipe string
	// Dockerfile is the build's Dockerfile, relative to the repository
	// root; "" when the file names an image.
	Dockerfile string
	// Setup is the set-up command: the Dockerfile's RUN commands, then
	// onCreateCommand, updateContentCommand and postCreateCommand, one
	// after another; "" when there is none.
	Setup string
	// Env are KEY=VALUE pairs from the Dockerfile's ENV, containerEnv and
	// remoteEnv (later ones win), set for the set-up and every test run.
	Env []string
	// Notes say what was mapped, and what is not supported or not run.
	Notes []string
}

// maxNotes bounds the notes about one file, and maxListed the features
// one note names, so that a hostile file cannot flood a comment.
const (
	maxNotes  = 40
	maxListed = 20
)

// MaxDevcontainerSize is the largest devcontainer.json, and Dockerfile,
// accepted, in bytes.
const MaxDevcontainerSize = MaxSize

// devcontainer stores devcontainer: true or false, whether a
// devcontainer.json may set the environment.
func (v value) devcontainer(c *Config) {
	use := !c.IgnoreDevcontainer
	v.boolean(&use)
	c.IgnoreDevcontainer = !use
}

// FindDevcontainer returns the devcontainer.json of the repository at
// repoDir, relative to its root, and the others found in
// .devcontainer/NAME/ that are not used; "" when there is none.
func FindDevcontainer(repoDir string) (file string, others []string, err error) {
	root, err := os.OpenRoot(repoDir)
	if err != nil {
		return "", nil, fmt.Errorf("open repository: %w", err)
	}
	defer root.Close()
	return findDevcontainer(root.FS())
}

// findDevcontainer is FindDevcontainer on a file system.
func findDevcontainer(fsys fs.FS) (string, []string, error) {
	var found []string
	for _, p := range []string{DevcontainerPath, DevcontainerAltPath} {
		if isFile(fsys, p) {
			found = append(found, p)
		}
	}
	// A .devcontainer that cannot be read as a directory has no
	// subfolders to look in.
	entries, _ := fs.ReadDir(fsys, ".devcontainer")
	for _, e := range entries { // sorted by name
		p := ".devcontainer/" + e.Name() + "/devcontainer.json"
		if e.IsDir() && isFile(fsys, p) {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return "", nil, nil
	case 1:
		return found[0], nil, nil
	}
	return found[0], found[1:], nil
}

// isFile reports whether p is a regular file of fsys.
func isFile(fsys fs.FS, p string) bool {
	info, err := fs.Stat(fsys, p)
	return err == nil && info.Mode().IsRegular()
}

// ReadDevcontainer reads the devcontainer.json of the repository at
// repoDir (see FindDevcontainer), and the Dockerfile it builds, through an
// os.Root; nil when there is none. workspace is where the repository is
// in the sandbox, which ${containerWorkspaceFolder} and the like stand
// for.
func ReadDevcontainer(repoDir, workspace string) (*Devcontainer, error) {
	root, err := os.OpenRoot(repoDir)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	defer root.Close()
	fsys := root.FS()
	file, others, err := findDevcontainer(fsys)
	if err != nil || file == "" {
		return nil, err
	}
	data, err := readFile(fsys, file, MaxDevcontainerSize+1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	read := func(name string) ([]byte, error) { return readFile(fsys, name, MaxDevcontainerSize+1) }
	d, err := ParseDevcontainer(file, data, read, workspace)
	if err != nil {
		return nil, err
	}
	if len(others) > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("also found %s, not used: Capsule uses the first of %s, %s and .devcontainer/NAME/devcontainer.json in name order", strings.Join(others, ", "), DevcontainerPath, DevcontainerAltPath))
	}
	return d, nil
}

// ParseDevcontainer reads the devcontainer.json called file (relative to
// the repository root) whose content is data, as JSON with comments and
// trailing commas. read reads another file of the repository, relative to
// its root: the Dockerfile of a build. workspace is where the repository
// is in the sandbox.
func ParseDevcontainer(file string, data []byte, read func(name string) ([]byte, error), workspace string) (*Devcontainer, error) {
	if len(data) > MaxDevcontainerSize {
		return nil, &ParseError{File: file, Msg: fmt.Sprintf("file is larger than the %d KiB limit", MaxDevcontainerSize>>10)}
	}
	doc, err := parseJSONC(file, data)
	if err != nil {
		return nil, err
	}
	entries, err := doc.top()
	if err != nil {
		return nil, err
	}
	b := &devBuilder{doc: doc, read: read, vars: devVars(workspace), d: &Devcontainer{File: file}, workspace: workspace}
	for _, e := range entries {
		if err := b.entry(e); err != nil {
			return nil, err
		}
	}
	return b.finish()
}

// devBuilder gathers a Devcontainer from the members of its file.
type devBuilder struct {
	doc       *jsoncDoc
	read      func(string) ([]byte, error)
	vars      *strings.Replacer
	workspace string
	d         *Devcontainer

	imageLine       int
	build           *jsoncEntry
	legacyBuild     []jsoncEntry // top-level dockerFile and context
	compose         int          // line of dockerComposeFile; 0 when none
	commands        [3][]string  // onCreate, updateContent, postCreate
	containerEnv    []envVar
	remoteEnv       []envVar
	dockerfileEnv   []envVar
	dockerfileSetup []string
}

// envVar is one environment variable and where it came from.
type envVar struct{ name, value, from string }

// lifecycle are the commands that become the set-up, in the order run.
var lifecycle = []string{"onCreateCommand", "updateContentCommand", "postCreateCommand"}

// ignored says, for each key Capsule does not act on, why.
var ignored = map[string]string{
	"postStartCommand":            "not run: it runs each time the container starts, and the sandbox starts no dev container",
	"postAttachCommand":           "not run: it runs when an editor attaches, and none does",
	"initializeCommand":           "not run: it runs on the host, which Capsule never lets a repository do",
	"waitFor":                     "not used: the set-up always finishes before the tests",
	"mounts":                      "not mounted: the sandbox mounts nothing of the host",
	"workspaceMount":              "not used: the repository is copied into the sandbox",
	"workspaceFolder":             "not used: the repository is at the sandbox's workspace",
	"runArgs":                     "not passed: the sandbox's container options are Capsule's own",
	"privileged":                  "not granted: the sandbox's container is never privileged",
	"capAdd":                      "not granted: the sandbox's container has no added capabilities",
	"securityOpt":                 "not applied: the sandbox's security options are Capsule's own",
	"init":                        "not used: the sandbox's agent is the container's first process",
	"forwardPorts":                "not forwarded: the tests run without a network",
	"portsAttributes":             "not used: no port is forwarded",
	"otherPortsAttributes":        "not used: no port is forwarded",
	"appPort":                     "not published: the tests run without a network",
	"remoteUser":                  "not used: commands run as the sandbox's unprivileged user",
	"containerUser":               "not used: commands run as the sandbox's unprivileged user",
	"updateRemoteUserUID":         "not used: commands run as the sandbox's unprivileged user",
	"userEnvProbe":                "not used: the environment is containerEnv and remoteEnv as written",
	"hostRequirements":            "not used: memory:, cpus: and disk: in " + Path + " size the sandbox",
	"shutdownAction":              "not used: Capsule removes the sandbox when the job ends",
	"overrideCommand":             "not used: the sandbox runs Capsule's agent",
	"overrideFeatureInstallOrder": "not used: features are not installed",
	"customizations":              "not used: editor and tool settings",
	"settings":                    "not used: editor settings",
	"extensions":                  "not used: editor extensions",
	"service":                     "not used: Docker Compose is not run",
	"runServices":                 "not used: Docker Compose is not run",
	"secrets":                     "not used: the sandbox receives no secrets from devcontainer.json",
}

// entry takes one top-level member of the file.
func (b *devBuilder) entry(e jsoncEntry) error {
	switch e.key {
	case "$schema":
		return nil
	case "name":
		err := b.str(e, &b.d.Name)
		b.d.Name = b.vars.Replace(b.d.Name)
		return err
	case "image":
		b.imageLine = e.line
		return b.str(e, &b.d.Image)
	case "build":
		b.build = &e
		return nil
	case "dockerFile", "dockerfile", "context":
		b.legacyBuild = append(b.legacyBuild, e)
		return nil
	case "dockerComposeFile":
		b.compose = e.line
		return nil
	case "onCreateCommand", "updateContentCommand", "postCreateCommand":
		cmds, err := b.command(e)
		b.commands[slices.Index(lifecycle, e.key)] = cmds
		for _, c := range cmds {
			if pm := usesSystemPackages(c); pm != "" {
				b.note(e.line, "%s uses %s, which the sandbox cannot run (it is not root and downloads nothing): the set-up will most likely fail", e.key, pm)
			}
		}
		return err
	case "containerEnv", "remoteEnv":
		vars, err := b.env(e)
		if e.key == "containerEnv" {
			b.containerEnv = vars
		} else {
			b.remoteEnv = vars
		}
		return err
	case "features":
		return b.features(e)
	}
	if why, ok := ignored[e.key]; ok {
		if string(e.value) != "null" {
			b.note(e.line, "%s %s", e.key, why)
		}
		return nil
	}
	b.note(e.line, "%s: not a key Capsule knows; not used", shorten(e.key, 40))
	return nil
}

// note adds a note about line of the file.
func (b *devBuilder) note(line int, format string, args ...any) {
	b.d.Notes = append(b.d.Notes, fmt.Sprintf("%s:%d: ", b.d.File, line)+fmt.Sprintf(format, args...))
}

// str decodes a string member.
func (b *devBuilder) str(e jsoncEntry, dst *string) error {
	if err := json.Unmarshal(e.value, dst); err != nil {
		return b.doc.errorf(e.line, "%s: expected a string, got %s", e.key, describeRaw(e.value))
	}
	return nil
}

// describeRaw names the kind of a JSON value for a message.
func describeRaw(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "":
		return "nothing"
	case s[0] == '{':
		return "an object"
	case s[0] == '[':
		return "a list"
	case s[0] == '"':
		return "a string"
	case s == "null":
		return "null"
	case s == "true" || s == "false":
		return s
	}
	return "the number " + shorten(s, 20)
}

// command decodes a lifecycle command: a string run by /bin/sh, a list
// run without a shell, or an object of such commands. Each is returned as
// a command for sh -c.
func (b *devBuilder) command(e jsoncEntry) ([]string, error) {
	s := strings.TrimSpace(string(e.value))
	switch {
	case s == "null":
		return nil, nil
	case strings.HasPrefix(s, "{"):
		members, err := b.doc.members(e)
		if err != nil {
			return nil, err
		}
		var cmds []string
		for _, m := range members {
			c, err := b.oneCommand(e.key+"."+m.key, m.line, m.value)
			if err != nil {
				return nil, err
			}
			if c != "" {
				cmds = append(cmds, c)
			}
		}
		if len(cmds) > 1 {
			b.note(e.line, "%s: its %d commands run one after another, in the order written, not in parallel", e.key, len(cmds))
		}
		return cmds, nil
	}
	c, err := b.oneCommand(e.key, e.line, e.value)
	if err != nil || c == "" {
		return nil, err
	}
	return []string{c}, nil
}

// oneCommand decodes a command given as a string or a list of strings.
func (b *devBuilder) oneCommand(what string, line int, raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return b.expandCommand(what, line, strings.TrimSpace(s)), nil
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		if len(argv) == 0 {
			return "", nil
		}
		for i := range argv {
			argv[i] = b.expandCommand(what, line, argv[i])
		}
		return shellQuoteAll(argv), nil
	}
	return "", b.doc.errorf(line, "%s: expected a command (a string, or a list of strings), got %s", what, describeRaw(raw))
}

// devVarPattern matches the variables devcontainer.json may use.
var devVarPattern = regexp.MustCompile(`\$\{(localEnv|containerEnv|env):([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}|\$\{devcontainerId\}`)

// devVars replaces the workspace's variables with the sandbox's
// workspace.
func devVars(workspace string) *strings.Replacer {
	base := path.Base(workspace)
	return strings.NewReplacer(
		"${localWorkspaceFolder}", workspace, "${containerWorkspaceFolder}", workspace,
		"${localWorkspaceFolderBasename}", base, "${containerWorkspaceFolderBasename}", base,
	)
}

// expandCommand replaces a command's variables: the workspace's by the
// sandbox's, ${containerEnv:NAME} by the shell's ${NAME}, and
// ${localEnv:NAME}, the host's, by its default (empty when none): no
// variable of Capsule's host reaches a command.
func (b *devBuilder) expandCommand(what string, line int, s string) string {
	s = b.vars.Replace(s)
	return devVarPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := devVarPattern.FindStringSubmatch(m)
		switch sub[1] {
		case "containerEnv":
			if sub[3] != "" {
				return "${" + sub[2] + ":-" + sub[3] + "}"
			}
			return "${" + sub[2] + "}"
		case "":
			b.note(line, "%s: ${devcontainerId} stands for %q", what, "capsule")
			return "capsule"
		}
		b.note(line, "%s: %s is the host's variable, never given to the sandbox: it stands for %q, its default", what, m, sub[3])
		return sub[3]
	})
}

// shellQuoteAll quotes each word for sh and joins them with spaces.
func shellQuoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

// shellQuote quotes s for sh when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// features names the features the file asks for, which are not
// installed.
func (b *devBuilder) features(e jsoncEntry) error {
	members, err := b.doc.members(e)
	if err != nil {
		return err
	}
	if len(members) == 0 {
		return nil
	}
	var ids []string
	for _, m := range members[:min(len(members), maxListed)] {
		ids = append(ids, shorten(m.key, 100))
	}
	if more := len(members) - len(ids); more > 0 {
		ids = append(ids, fmt.Sprintf("and %d more", more))
	}
	b.note(e.line, "features not installed (Capsule installs no Dev Container Features; what they add is missing unless the image has it): %s", strings.Join(ids, ", "))
	return nil
}

// finish checks what was gathered and builds the Devcontainer.
func (b *devBuilder) finish() (*Devcontainer, error) {
	d := b.d
	if len(b.legacyBuild) > 0 && b.build == nil {
		if err := b.legacy(); err != nil {
			return nil, err
		}
	}
	switch {
	case b.compose > 0 && d.Image == "" && b.build == nil:
		return nil, b.doc.errorf(b.compose, "dockerComposeFile: the dev container is a Docker Compose service, which Capsule does not run: set image: and setup: in %s", Path)
	case b.compose > 0:
		b.note(b.compose, "dockerComposeFile not used: Docker Compose is not run")
	}
	if b.build != nil {
		if err := b.dockerBuild(); err != nil {
			return nil, err
		}
	} else if d.Image == "" {
		return nil, b.doc.errorf(1, "names no image and no build.dockerfile: set image: and setup: in %s", Path)
	}
	line := b.imageLine
	if d.Dockerfile != "" {
		line = b.build.line
	}
	recipe, note, err := mapImage(d.Image)
	if err != nil {
		return nil, b.doc.errorf(line, "%v", err)
	}
	d.Recipe = recipe
	sortNotes(d.Notes, d.File)
	d.Notes = append([]string{fmt.Sprintf("%s:%d: %s", d.File, line, note)}, d.Notes...)
	var steps []string
	steps = append(steps, b.dockerfileSetup...)
	for _, cmds := range b.commands {
		steps = append(steps, cmds...)
	}
	d.Setup = joinCommands(steps)
	d.Env = b.environment()
	if more := len(d.Notes) - maxNotes; more > 0 {
		d.Notes = append(d.Notes[:maxNotes], fmt.Sprintf("%d more notes not shown", more))
	}
	return d, nil
}

// sortNotes orders the notes about file by line, before the others
// (its Dockerfile's), which keep their order.
func sortNotes(notes []string, file string) {
	line := func(n string) int {
		rest, ok := strings.CutPrefix(n, file+":")
		if !ok {
			return math.MaxInt
		}
		digits, _, _ := strings.Cut(rest, ":")
		l, err := strconv.Atoi(digits)
		if err != nil {
			return math.MaxInt
		}
		return l
	}
	slices.SortStableFunc(notes, func(a, b string) int { return cmp.Compare(line(a), line(b)) })
}

// joinCommands makes one command for sh -c of commands run one after
// another, stopping at the first that fails. A single one is kept as it
// is; with more, each runs in its own shell, so that none changes how
// another is read.
func joinCommands(cmds []string) string {
	if len(cmds) <= 1 {
		return strings.Join(cmds, "")
	}
	parts := make([]string, len(cmds))
	for i, c := range cmds {
		if strings.ContainsAny(c, ";&|<>()#\n`$'\"\\*?") {
			c = "sh -c " + shellQuote(c)
		}
		parts[i] = c
	}
	return strings.Join(parts, " && ")
}

// legacy reads the top-level dockerFile and context of older files as a
// build.
func (b *devBuilder) legacy() error {
	var members []string
	line := b.legacyBuild[0].line
	for _, e := range b.legacyBuild {
		key := e.key
		if key == "dockerFile" {
			key = "dockerfile"
		}
		members = append(members, fmt.Sprintf("%q:%s", key, e.value))
	}
	b.build = &jsoncEntry{key: "build", line: line, value: json.RawMessage("{" + strings.Join(members, ",") + "}")}
	return nil
}
