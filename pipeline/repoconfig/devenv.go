package repoconfig

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// envName matches the names of environment variables Capsule sets.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// maxEnvValue bounds one variable's value, in bytes.
const maxEnvValue = 4 << 10

// unsafeEnv says, for each variable a devcontainer.json may not set, why.
// Capsule sets some itself; the others change how programs start or what
// a test run reports, which the tests' verdict depends on.
var unsafeEnv = map[string]string{
	"PATH":                           "the image's PATH is kept so that the tools are found",
	"HOME":                           "Capsule sets it",
	"TMPDIR":                         "Capsule sets it",
	"USER":                           "Capsule sets it",
	"SHELL":                          "Capsule sets it",
	"PWD":                            "Capsule sets it",
	"LANG":                           "Capsule sets it",
	"PYTHONUNBUFFERED":               "Capsule sets it",
	"PYTHONDONTWRITEBYTECODE":        "Capsule sets it",
	"PYTHONUSERBASE":                 "Capsule sets it: the set-up's pip install --user lands in the workspace",
	"PIP_BREAK_SYSTEM_PACKAGES":      "Capsule sets it",
	"PIP_NO_WARN_SCRIPT_LOCATION":    "Capsule sets it",
	"PYTHONHOME":                     "it changes how Python starts",
	"PYTHONSTARTUP":                  "it changes how Python starts",
	"PYTHONINSPECT":                  "it changes how Python starts",
	"PYTHONSAFEPATH":                 "it changes how Python starts",
	"BASH_ENV":                       "it runs code in every shell",
	"ENV":                            "it runs code in every shell",
	"NODE_OPTIONS":                   "it changes how Node.js starts",
	"JAVA_TOOL_OPTIONS":              "it changes how the JVM starts",
	"_JAVA_OPTIONS":                  "it changes how the JVM starts",
	"PERL5OPT":                       "it changes how Perl starts",
	"RUBYOPT":                        "it changes how Ruby starts",
	"PYTEST_ADDOPTS":                 "it changes how pytest reports the tests' results",
	"PYTEST_PLUGINS":                 "it changes how pytest reports the tests' results",
	"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "it changes how pytest reports the tests' results",
}

// unsafeEnvPrefixes are prefixes of names refused for the same reasons.
var unsafeEnvPrefixes = map[string]string{
	"LD_":      "it changes how every program is loaded",
	"CAPSULE_": "Capsule's own variables",
	"DOCKER_":  "not for the sandbox",
}

// envRefusal says why a variable may not be set; "" when it may.
func envRefusal(name string) string {
	if why, ok := unsafeEnv[name]; ok {
		return why
	}
	for prefix, why := range unsafeEnvPrefixes {
		if strings.HasPrefix(name, prefix) {
			return why
		}
	}
	return ""
}

// env decodes containerEnv or remoteEnv: the variables that are safe to
// set, in the order written; each refused one is named in a note.
func (b *devBuilder) env(e jsoncEntry) ([]envVar, error) {
	members, err := b.doc.members(e)
	if err != nil {
		return nil, err
	}
	var vars []envVar
	for _, m := range members {
		if string(m.value) == "null" {
			continue // remoteEnv's way to unset a variable: none is set
		}
		var v string
		if err := json.Unmarshal(m.value, &v); err != nil {
			return nil, b.doc.errorf(m.line, "%s.%s: expected a string, got %s", e.key, shorten(m.key, 40), describeRaw(m.value))
		}
		if ev, ok := b.envVar(e.key, fmt.Sprintf("%s:%d", b.d.File, m.line), m.key, v); ok {
			vars = append(vars, ev)
		}
	}
	return vars, nil
}

// envVar checks one variable from where (containerEnv, remoteEnv or the
// Dockerfile's ENV), written at at (file:line), and expands the
// workspace's variables in its value; ok is false, with a note, when it
// is not set.
func (b *devBuilder) envVar(where, at, name, value string) (envVar, bool) {
	refuse := func(why string) (envVar, bool) {
		b.d.Notes = append(b.d.Notes, fmt.Sprintf("%s: %s.%s not set: %s", at, where, shorten(name, 40), why))
		return envVar{}, false
	}
	switch {
	case !envName.MatchString(name):
		return refuse("not a variable name")
	case envRefusal(name) != "":
		return refuse(envRefusal(name))
	case len(value) > maxEnvValue:
		return refuse(fmt.Sprintf("its value is longer than %d bytes", maxEnvValue))
	case strings.ContainsRune(value, 0):
		return refuse("its value holds a NUL byte")
	}
	value = b.vars.Replace(value)
	if m := devVarPattern.FindString(value); m != "" {
		return refuse(m + " cannot be given a value in the sandbox (the host's variables never reach it)")
	}
	return envVar{name, value, where}, true
}

// environment returns the variables as KEY=VALUE, the Dockerfile's, then
// containerEnv, then remoteEnv, a later one replacing an earlier one.
func (b *devBuilder) environment() []string {
	var names []string
	values := make(map[string]string)
	for _, list := range [][]envVar{b.dockerfileEnv, b.containerEnv, b.remoteEnv} {
		for _, v := range list {
			if _, ok := values[v.name]; !ok {
				names = append(names, v.name)
			}
			values[v.name] = v.value
		}
	}
	var env []string
	for _, n := range names {
		env = append(env, n+"="+values[n])
	}
	return env
}
