package repoconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// A devcontainer's Dockerfile is not built: no registry is reachable to
// pull its base. Capsule reads the subset it can reproduce offline on one
// of its own images:
//
//   - one FROM, whose image (after ARG substitution) maps to a Capsule
//     image as devcontainer.json's image does;
//   - ARG, with its default or build.args' value, used in FROM and given
//     to the RUN commands that use it;
//   - ENV, set like containerEnv;
//   - RUN, shell or exec form, run in the set-up, in order, before the
//     lifecycle commands, as the sandbox's unprivileged user in the
//     workspace; those that install system packages (apt-get, apk, ...)
//     are not run, since the sandbox can neither download them nor be
//     root.
//
// COPY and ADD are not copied (the repository is already the workspace),
// WORKDIR, USER and the rest are not applied; each is named in a note. A
// second FROM (a multi-stage build) is an error.

// dockerBuild reads build (or the older top-level dockerFile) and the
// Dockerfile it names.
func (b *devBuilder) dockerBuild() error {
	e := *b.build
	members, err := b.doc.members(e)
	if err != nil {
		return err
	}
	var dockerfile string
	args := make(map[string]string)
	for _, m := range members {
		switch m.key {
		case "dockerfile":
			if json.Unmarshal(m.value, &dockerfile) != nil || strings.TrimSpace(dockerfile) == "" {
				return b.doc.errorf(e.line, "build.dockerfile: expected the Dockerfile's path, got %s", describeRaw(m.value))
			}
		case "args":
			if err := json.Unmarshal(m.value, &args); err != nil {
				return b.doc.errorf(e.line, "build.args: expected an object of strings, got %s", describeRaw(m.value))
			}
		case "context":
			b.note(e.line, "build.context not used: the repository is the workspace, and COPY is not copied")
		case "target", "options", "cacheFrom":
			b.note(e.line, "build.%s not used: the Dockerfile is not built", m.key)
		default:
			b.note(e.line, "build.%s: not a key Capsule knows; not used", shorten(m.key, 40))
		}
	}
	if dockerfile == "" {
		return b.doc.errorf(e.line, "build: names no dockerfile: set image: and setup: in %s", Path)
	}
	if b.d.Image != "" {
		b.note(b.imageLine, "image not used: build.dockerfile is the image")
		b.d.Image = ""
	}
	p := path.Clean(path.Join(path.Dir(b.d.File), dockerfile))
	if !fs.ValidPath(p) || path.IsAbs(dockerfile) {
		return b.doc.errorf(e.line, "build.dockerfile: %q is outside the repository", shorten(dockerfile, 80))
	}
	data, err := b.read(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return b.doc.errorf(e.line, "build.dockerfile: %s does not exist", p)
	case err != nil:
		return b.doc.errorf(e.line, "build.dockerfile: read %s: %v", p, err)
	case len(data) > MaxDevcontainerSize:
		return b.doc.errorf(e.line, "build.dockerfile: %s is larger than the %d KiB limit", p, MaxDevcontainerSize>>10)
	}
	b.d.Dockerfile = p
	return b.dockerfile(p, string(data), args)
}

// instruction is one instruction of a Dockerfile, continuation lines
// joined.
type instruction struct {
	line int    // where it starts
	verb string // upper case
	rest string
}

// dockerfileInstructions splits a Dockerfile into instructions. Comment
// lines and parser directives are skipped; a line ending in a backslash
// goes on on the next.
func dockerfileInstructions(text string) []instruction {
	var out []instruction
	var cur *instruction
	for i, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "#") || cur == nil && trimmed == "" {
			continue
		}
		cont := strings.HasSuffix(trimmed, "\\")
		trimmed = strings.TrimSuffix(trimmed, "\\")
		if cur == nil {
			verb, rest, _ := strings.Cut(trimmed, " ")
			cur = &instruction{line: i + 1, verb: strings.ToUpper(strings.TrimSpace(verb)), rest: strings.TrimSpace(rest)}
		} else if trimmed != "" {
			cur.rest += " " + strings.TrimSpace(trimmed)
		}
		if !cont {
			out = append(out, *cur)
			cur = nil
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// dockerVar matches $NAME, ${NAME} and ${NAME:-default} in a Dockerfile.
var dockerVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// systemPackages are the commands whose RUN is not run.
var systemPackages = []string{"apt-get", "apt", "aptitude", "dpkg", "apk", "yum", "dnf", "microdnf", "zypper", "pacman"}

// dockerfile reads the Dockerfile called name, whose build args are args.
func (b *devBuilder) dockerfile(name, text string, args map[string]string) error {
	at := func(line int) string { return fmt.Sprintf("%s:%d", name, line) }
	note := func(line int, format string, a ...any) {
		b.d.Notes = append(b.d.Notes, at(line)+": "+fmt.Sprintf(format, a...))
	}
	fail := func(line int, format string, a ...any) error {
		return &ParseError{File: name, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	scope := make(map[string]string) // ARGs in effect
	envs := make(map[string]string)  // ENVs so far, which win over ARGs
	subst := func(s string) string {
		return dockerVar.ReplaceAllStringFunc(s, func(m string) string {
			sub := dockerVar.FindStringSubmatch(m)
			n := sub[1] + sub[3]
			if v, ok := envs[n]; ok && v != "" {
				return v
			}
			if v, ok := scope[n]; ok && v != "" {
				return v
			}
			return sub[2]
		})
	}
	from := 0
	for _, in := range dockerfileInstructions(text) {
		switch in.verb {
		case "ARG":
			n, def, hasDef := strings.Cut(in.rest, "=")
			n = strings.TrimSpace(n)
			if v, ok := args[n]; ok {
				def = v
			} else if hasDef {
				def = unquote(subst(strings.TrimSpace(def)))
			}
			scope[n] = def
		case "FROM":
			if from > 0 {
				return fail(in.line, "a second FROM: multi-stage builds are not supported (the first is on line %d); set image: and setup: in %s", from, Path)
			}
			from = in.line
			fields := strings.Fields(subst(in.rest))
			for len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
				fields = fields[1:] // --platform
			}
			if len(fields) == 0 {
				return fail(in.line, "FROM names no image")
			}
			b.d.Image = fields[0]
		case "ENV":
			if from == 0 {
				return fail(in.line, "ENV before FROM")
			}
			for _, kv := range envPairs(in.rest) {
				v := subst(kv[1])
				envs[kv[0]] = v
				if ev, ok := b.envVar("ENV", at(in.line), kv[0], v); ok {
					b.dockerfileEnv = append(b.dockerfileEnv, ev)
				}
			}
		case "RUN":
			if from == 0 {
				return fail(in.line, "RUN before FROM")
			}
			cmd, opts := runCommand(in.rest)
			if opts != "" {
				note(in.line, "RUN options %s not used", opts)
			}
			if pm := usesSystemPackages(cmd); pm != "" {
				note(in.line, "RUN not run: it installs system packages with %s, which the sandbox can neither download nor install (it is not root): %s", pm, shorten(cmd, 120))
				continue
			}
			b.dockerfileSetup = append(b.dockerfileSetup, withArgs(cmd, scope))
		case "COPY", "ADD":
			note(in.line, "%s %s not copied: the repository is already in the sandbox's workspace, at %s; a RUN that reads the copy elsewhere will not find it", in.verb, shorten(in.rest, 80), b.workspace)
		case "WORKDIR":
			note(in.line, "WORKDIR %s not applied: the set-up runs in the workspace's root", shorten(in.rest, 80))
		case "USER":
			note(in.line, "USER %s not applied: commands run as the sandbox's unprivileged user", shorten(in.rest, 40))
		case "EXPOSE", "LABEL", "CMD", "ENTRYPOINT", "VOLUME", "HEALTHCHECK", "SHELL", "STOPSIGNAL", "ONBUILD", "MAINTAINER":
			note(in.line, "%s not applied: the sandbox runs Capsule's agent", in.verb)
		default:
			return fail(in.line, "unknown instruction %q", shorten(in.verb, 20))
		}
	}
	if from == 0 {
		return fail(0, "no FROM")
	}
	return nil
}

// unquote removes one pair of matching quotes around s.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// envPairs reads ENV's KEY=VALUE pairs, or its older KEY VALUE form.
func envPairs(rest string) [][2]string {
	if k, v, ok := strings.Cut(rest, " "); ok && !strings.Contains(k, "=") {
		return [][2]string{{k, strings.TrimSpace(v)}}
	}
	var pairs [][2]string
	for _, w := range shellWords(rest) {
		if k, v, ok := strings.Cut(w, "="); ok {
			pairs = append(pairs, [2]string{k, v})
		}
	}
	return pairs
}

// shellWords splits s at white space outside quotes, removing the quotes.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote, in = c, true
		case c == '\\' && quote != '\'' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			in = true
		case quote == 0 && (c == ' ' || c == '\t'):
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// runCommand returns RUN's command for sh -c, from its shell form or its
// exec form, and the --options before it.
func runCommand(rest string) (cmd, opts string) {
	var used []string
	for strings.HasPrefix(rest, "--") {
		opt, after, _ := strings.Cut(rest, " ")
		used = append(used, opt)
		rest = strings.TrimSpace(after)
	}
	var argv []string
	if strings.HasPrefix(rest, "[") && json.Unmarshal([]byte(rest), &argv) == nil && len(argv) > 0 {
		rest = shellQuoteAll(argv)
	}
	return rest, strings.Join(used, " ")
}

// usesSystemPackages returns the system package manager cmd runs, if any.
func usesSystemPackages(cmd string) string {
	for _, w := range strings.FieldsFunc(cmd, func(r rune) bool { return strings.ContainsRune(" \t;&|()", r) }) {
		for _, pm := range systemPackages {
			if w == pm || strings.HasSuffix(w, "/"+pm) {
				return pm
			}
		}
	}
	return ""
}

// withArgs gives cmd the build args it uses, as Docker gives them to RUN
// as variables.
func withArgs(cmd string, scope map[string]string) string {
	var assign []string
	done := make(map[string]bool)
	for _, m := range dockerVar.FindAllStringSubmatch(cmd, -1) {
		n := m[1] + m[3]
		if v, ok := scope[n]; ok && !done[n] {
			done[n] = true
			assign = append(assign, n+"="+shellQuote(v))
		}
	}
	if len(assign) == 0 {
		return cmd
	}
	return "export " + strings.Join(assign, " ") + "; " + cmd
}
