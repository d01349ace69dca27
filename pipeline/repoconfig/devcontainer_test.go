package repoconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

// workspace is the sandbox's workspace in these tests, as in the sandbox.
const workspace = "/capsule/workspace"

// renderDevcontainer is the text a golden file holds: what was read, or
// the error.
func renderDevcontainer(d *Devcontainer, err error) string {
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	if d == nil {
		return "none\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "file: %s\nname: %s\nimage: %s\nrecipe: %s\n", d.File, d.Name, d.Image, d.Recipe)
	if d.Dockerfile != "" {
		fmt.Fprintf(&b, "dockerfile: %s\n", d.Dockerfile)
	}
	fmt.Fprintf(&b, "setup: %s\n", d.Setup)
	for _, kv := range d.Env {
		fmt.Fprintf(&b, "env: %s\n", kv)
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

// TestDevcontainerGolden reads the real repositories' files in
// testdata/devcontainer/NAME (see SOURCES.md there) and compares what
// Capsule takes from each with NAME.golden; run with -update to rewrite
// those.
func TestDevcontainerGolden(t *testing.T) {
	dirs, err := filepath.Glob("testdata/devcontainer/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			continue
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			got := renderDevcontainer(ReadDevcontainer(dir, workspace))
			goldenfile.Check(t, dir+".golden", got, *update)
		})
	}
	if n < 10 {
		t.Errorf("%d repositories in testdata/devcontainer, want at least 10", n)
	}
}

// parseDC parses text as .devcontainer/devcontainer.json, with files the
// other files of the repository.
func parseDC(text string, files map[string]string) (*Devcontainer, error) {
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
	return ParseDevcontainer(DevcontainerPath, []byte(text), read, workspace)
}

func TestJSONC(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // the name, or the error
	}{
		{"plain", `{"image": "python:3", "name": "a"}`, "a"},
		{"line comments", "// top\n{\"image\": \"python:3\", // here\n\"name\": \"a\" // there\n}\n", "a"},
		{"block comments", "/* a\nb */{\"image\": /* x */ \"python:3\", \"name\": \"a\"}", "a"},
		{"comment markers in strings", `{"image": "python:3", "name": "http://x/*y*/"}`, "http://x/*y*/"},
		{"escaped quote", `{"image": "python:3", "name": "a\"//b"}`, `a"//b`},
		{"trailing commas", "{\"image\": \"python:3\", \"name\": \"a\", \"forwardPorts\": [1, 2,],\n}", "a"},
		{"trailing comma before a comment", "{\"image\": \"python:3\", \"name\": \"a\", // end\n}", "a"},
		{"byte order mark", "\uFEFF{\"image\": \"python:3\", \"name\": \"a\"}", "a"},
		{"unclosed comment", "{\"image\": \"python:3\",\n/* never\n closed", "error: .devcontainer/devcontainer.json:2: a comment opened with /* is never closed with */"},
		{"duplicate key", "{\"image\": \"python:3\",\n\"image\": \"node:20\"}", `error: .devcontainer/devcontainer.json:2: duplicate key "image" (first on line 1)`},
		{"not an object", "[1, 2]", "error: .devcontainer/devcontainer.json:1: the file must be a JSON object ({...}), got a list"},
		{"empty", "", "error: .devcontainer/devcontainer.json:1: not valid JSON: the file ends too early"},
		{"after the object", "{\"image\": \"python:3\"}\n{}", "error: .devcontainer/devcontainer.json:2: more JSON after the end of the file's object: an object"},
		{"bad value", "{\n\"image\": \"python:3\",\n\"name\": nope\n}", "error: .devcontainer/devcontainer.json:3: not valid JSON: invalid character 'o' in literal null (expecting 'u')"},
		{"unterminated string", "{\"image\": \"python:3", "error: .devcontainer/devcontainer.json:1: not valid JSON: the file ends too early"},
		{"too large", "{\"name\": \"" + strings.Repeat("a", MaxDevcontainerSize) + "\"}", "error: .devcontainer/devcontainer.json: file is larger than the 64 KiB limit"},
		{"deep nesting", "{\"image\": \"python:3\", \"customizations\": " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}", "error: .devcontainer/devcontainer.json:1: not valid JSON: invalid character '[' exceeded max depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parseDC(tt.text, nil)
			got := ""
			if err != nil {
				got = "error: " + err.Error()
			} else {
				got = d.Name
			}
			if got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.File != DevcontainerPath {
					t.Errorf("error %T %v is not a ParseError naming the file", err, err)
				}
			}
		})
	}
}

func TestDevcontainerCommands(t *testing.T) {
	tests := []struct {
		name, members string
		setup         string
		notes         []string
		err           string
	}{
		{"string", `"postCreateCommand": "pip install --user -e ."`, "pip install --user -e .", nil, ""},
		{"list, run without a shell", `"postCreateCommand": ["echo", "a b", "$HOME"]`, `echo 'a b' '$HOME'`, nil, ""},
		{"in lifecycle order, not file order", `"postCreateCommand": "c", "onCreateCommand": "a", "updateContentCommand": "b"`, "a && b && c", nil, ""},
		{"each in its own shell", `"onCreateCommand": "cd sub; make", "postCreateCommand": "make test"`, `sh -c 'cd sub; make' && make test`, nil, ""},
		{"object, in the order written", `"postCreateCommand": {"z": "first", "a": ["second", "x"]}`, "first && second x",
			[]string{".devcontainer/devcontainer.json:2: postCreateCommand: its 2 commands run one after another, in the order written, not in parallel"}, ""},
		{"null and empty", `"onCreateCommand": null, "postCreateCommand": []`, "", nil, ""},
		{"workspace variables", `"postCreateCommand": "bash ${containerWorkspaceFolder}/x.sh ${localWorkspaceFolderBasename}"`, "bash /capsule/workspace/x.sh workspace", nil, ""},
		{"container variables stay the shell's", `"postCreateCommand": "echo ${containerEnv:HOME} ${containerEnv:X:fallback}"`, "echo ${HOME} ${X:-fallback}", nil, ""},
		{"host variables never reach the sandbox", `"postCreateCommand": "echo ${localEnv:GITHUB_TOKEN}${localEnv:A:dflt}"`, "echo dflt",
			[]string{
				`.devcontainer/devcontainer.json:2: postCreateCommand: ${localEnv:GITHUB_TOKEN} is the host's variable, never given to the sandbox: it stands for "", its default`,
				`.devcontainer/devcontainer.json:2: postCreateCommand: ${localEnv:A:dflt} is the host's variable, never given to the sandbox: it stands for "dflt", its default`,
			}, ""},
		{"not run", `"postStartCommand": "a", "postAttachCommand": "b", "initializeCommand": "c"`, "",
			[]string{
				".devcontainer/devcontainer.json:2: postStartCommand not run: it runs each time the container starts, and the sandbox starts no dev container",
				".devcontainer/devcontainer.json:2: postAttachCommand not run: it runs when an editor attaches, and none does",
				".devcontainer/devcontainer.json:2: initializeCommand not run: it runs on the host, which Capsule never lets a repository do",
			}, ""},
		{"system packages", `"postCreateCommand": "sudo apt-get install -y make"`, "sudo apt-get install -y make",
			[]string{".devcontainer/devcontainer.json:2: postCreateCommand uses apt-get, which the sandbox cannot run (it is not root and downloads nothing): the set-up will most likely fail"}, ""},
		{"wrong type", `"postCreateCommand": 3`, "", nil, ".devcontainer/devcontainer.json:2: postCreateCommand: expected a command (a string, or a list of strings), got the number 3"},
		{"wrong type in an object", `"postCreateCommand": {"a": {"b": 1}}`, "", nil, ".devcontainer/devcontainer.json:2: postCreateCommand.a: expected a command (a string, or a list of strings), got an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parseDC("{\"image\": \"python:3\",\n"+tt.members+"}", nil)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Setup != tt.setup {
				t.Errorf("setup %q, want %q", d.Setup, tt.setup)
			}
			if notes := d.Notes[1:]; !reflect.DeepEqual(notes, tt.notes) && len(notes)+len(tt.notes) > 0 {
				t.Errorf("notes\n%q\nwant\n%q", notes, tt.notes)
			}
		})
	}
}

func TestDevcontainerEnv(t *testing.T) {
	d, err := parseDC(`{"image": "python:3",
"containerEnv": {"PYTHONPATH": "${containerWorkspaceFolder}/src", "A": "1", "PATH": "/x:${containerEnv:PATH}", "LD_PRELOAD": "/evil.so"},
"remoteEnv": {"A": "2", "B": "${localEnv:HOME}", "bad name": "x", "PYTEST_ADDOPTS": "-p no:x", "C": null, "CAPSULE_TEST_CHANNEL": "/x"}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"PYTHONPATH=/capsule/workspace/src", "A=2"}
	if !reflect.DeepEqual(d.Env, want) {
		t.Errorf("env %q, want %q", d.Env, want)
	}
	for _, refused := range []string{"containerEnv.PATH not set", "containerEnv.LD_PRELOAD not set", "remoteEnv.B not set: ${localEnv:HOME}", "remoteEnv.bad name not set", "remoteEnv.PYTEST_ADDOPTS not set", "remoteEnv.CAPSULE_TEST_CHANNEL not set"} {
		if !strings.Contains(strings.Join(d.Notes, "\n"), refused) {
			t.Errorf("no note says %q:\n%s", refused, strings.Join(d.Notes, "\n"))
		}
	}
	if _, err := parseDC(`{"image": "python:3", "containerEnv": {"A": 1}}`, nil); err == nil || !strings.Contains(err.Error(), "containerEnv.A: expected a string, got the number 1") {
		t.Errorf("a number in containerEnv: %v", err)
	}
}

func TestDockerfile(t *testing.T) {
	tests := []struct {
		name, build, dockerfile string
		image, setup            string
		env                     []string
		note                    string // in the notes
		err                     string
	}{
		{name: "args and their defaults", build: `{"dockerfile": "Dockerfile", "args": {"V": "3.12"}}`,
			dockerfile: "ARG V=3.9\nARG W=\"x\"\nFROM python:${V}-${W}\nRUN echo $V ${W}\n",
			image:      "python:3.12-x", setup: "export V=3.12 W=x; echo $V ${W}", note: `(the version of tag "3.12-x" is not honoured)`},
		{name: "exec form and continuation", build: `{"dockerfile": "Dockerfile"}`,
			dockerfile: "FROM node:20\nRUN [\"npm\", \"ci\"]\nRUN a \\\n  # a comment inside\n  && b\n",
			image:      "node:20", setup: "npm ci && sh -c 'a && b'"},
		{name: "environment", build: `{"dockerfile": "Dockerfile"}`,
			dockerfile: "FROM python:3\nENV A=1 B=\"two words\"\nENV C ${A}/x\nENV PATH=/opt/bin:$PATH\n",
			image:      "python:3", env: []string{"A=1", "B=two words", "C=1/x"}, note: "ENV.PATH not set"},
		{name: "system packages are not installed", build: `{"dockerfile": "Dockerfile"}`,
			dockerfile: "FROM python:3\nRUN apt-get update && apt-get install -y git\nRUN --mount=type=cache,target=/x pip install --user tox\n",
			image:      "python:3", setup: "pip install --user tox", note: "Dockerfile:2: RUN not run: it installs system packages with apt-get"},
		{name: "copies are not made", build: `{"dockerfile": "Dockerfile", "context": ".."}`,
			dockerfile: "FROM python:3\nCOPY requirements.txt /tmp/\nWORKDIR /app\nUSER vscode\n",
			image:      "python:3", note: "COPY requirements.txt /tmp/ not copied: the repository is already in the sandbox's workspace, at /capsule/workspace"},
		{name: "path relative to the devcontainer.json", build: `{"dockerfile": "../docker/dev.Dockerfile"}`,
			dockerfile: "FROM golang:1.22\n", image: "golang:1.22"},
		{name: "multi-stage", build: `{"dockerfile": "Dockerfile"}`, dockerfile: "FROM python:3 AS a\nFROM python:3\n",
			err: ".devcontainer/Dockerfile:2: a second FROM: multi-stage builds are not supported (the first is on line 1); set image: and setup: in .github/capsule.yml"},
		{name: "unknown instruction", build: `{"dockerfile": "Dockerfile"}`, dockerfile: "FROM python:3\nFORM x\n",
			err: `.devcontainer/Dockerfile:2: unknown instruction "FORM"`},
		{name: "no FROM", build: `{"dockerfile": "Dockerfile"}`, dockerfile: "RUN x\n", err: ".devcontainer/Dockerfile:1: RUN before FROM"},
		{name: "missing", build: `{"dockerfile": "Nope"}`, err: ".devcontainer/devcontainer.json:2: build.dockerfile: .devcontainer/Nope does not exist"},
		{name: "outside the repository", build: `{"dockerfile": "../../x/Dockerfile"}`, err: `.devcontainer/devcontainer.json:2: build.dockerfile: "../../x/Dockerfile" is outside the repository`},
		{name: "unmapped base", build: `{"dockerfile": "Dockerfile"}`, dockerfile: "FROM alpine:3\n",
			err: `.devcontainer/devcontainer.json:2: image "alpine:3" is not one Capsule can stand in for offline`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			if tt.dockerfile != "" {
				files[".devcontainer/Dockerfile"] = tt.dockerfile
				files["docker/dev.Dockerfile"] = tt.dockerfile
			}
			d, err := parseDC("{\"name\": \"x\",\n\"build\": "+tt.build+"}", files)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("error %v\nwant %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Image != tt.image || d.Setup != tt.setup || !reflect.DeepEqual(d.Env, tt.env) {
				t.Errorf("image %q setup %q env %q\nwant %q %q %q", d.Image, d.Setup, d.Env, tt.image, tt.setup, tt.env)
			}
			if notes := strings.Join(d.Notes, "\n"); !strings.Contains(notes, tt.note) {
				t.Errorf("no note has %q:\n%s", tt.note, notes)
			}
		})
	}
}

func TestMapImage(t *testing.T) {
	tests := []struct{ ref, recipe string }{
		{"mcr.microsoft.com/devcontainers/python:1-3.12-bullseye", RecipePython},
		{"mcr.microsoft.com/vscode/devcontainers/python:0-3.9", RecipePython},
		{"mcr.microsoft.com/devcontainers/base:jammy", RecipePython},
		{"mcr.microsoft.com/devcontainers/universal:2", RecipePython},
		{"mcr.microsoft.com/devcontainers/typescript-node:24-bullseye@sha256:4823a29f", RecipeNode},
		{"mcr.microsoft.com/devcontainers/javascript-node", RecipeNode},
		{"mcr.microsoft.com/devcontainers/go:1.25", RecipeGo},
		{"mcr.microsoft.com/devcontainers/rust:1", RecipeRust},
		{"mcr.microsoft.com/devcontainers/java:21", RecipeJava},
		{"python:3.8-slim-buster", RecipePython},
		{"docker.io/library/python:3", RecipePython},
		{"Node:20", RecipeNode},
		{"golang", RecipeGo},
		{"ghcr.io/python/devcontainer:2024", ""},
		{"localhost:5000/python:3", ""},
		{"mcr.microsoft.com/devcontainers/dotnet:8", ""},
	}
	for _, tt := range tests {
		recipe, _, err := mapImage(tt.ref)
		if recipe != tt.recipe || (err != nil) != (tt.recipe == "") {
			t.Errorf("mapImage(%q) = %q, %v; want %q", tt.ref, recipe, err, tt.recipe)
		}
	}
}

func TestFindDevcontainer(t *testing.T) {
	file := &fstest.MapFile{Data: []byte("{}")}
	tests := []struct {
		name   string
		fsys   fstest.MapFS
		want   string
		others []string
	}{
		{"none", fstest.MapFS{"README.md": file}, "", nil},
		{"the usual place first", fstest.MapFS{".devcontainer/devcontainer.json": file, ".devcontainer.json": file, ".devcontainer/b/devcontainer.json": file},
			".devcontainer/devcontainer.json", []string{".devcontainer.json", ".devcontainer/b/devcontainer.json"}},
		{"at the root", fstest.MapFS{".devcontainer.json": file}, ".devcontainer.json", nil},
		{"subfolders in name order", fstest.MapFS{".devcontainer/docs/devcontainer.json": file, ".devcontainer/app/devcontainer.json": file},
			".devcontainer/app/devcontainer.json", []string{".devcontainer/docs/devcontainer.json"}},
		{"not two levels down", fstest.MapFS{".devcontainer/a/b/devcontainer.json": file}, "", nil},
		{"a directory is no file", fstest.MapFS{".devcontainer/devcontainer.json/x": file}, "", nil},
		{".devcontainer is a file", fstest.MapFS{".devcontainer": file}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, others, err := findDevcontainer(tt.fsys)
			if err != nil || got != tt.want || !reflect.DeepEqual(others, tt.others) {
				t.Errorf("got %q %q %v, want %q %q", got, others, err, tt.want, tt.others)
			}
		})
	}
}

// TestReadDevcontainerStaysInside: a devcontainer.json or a Dockerfile
// that is a symbolic link out of the repository is not followed.
func TestReadDevcontainerStaysInside(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "devcontainer.json"), []byte(`{"image": "python:3", "postCreateCommand": "leak"}`), 0o644)
	os.WriteFile(filepath.Join(outside, "Dockerfile"), []byte("FROM python:3\nRUN leak\n"), 0o644)

	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".devcontainer"), 0o755)
	if err := os.Symlink(filepath.Join(outside, "devcontainer.json"), filepath.Join(repo, ".devcontainer.json")); err != nil {
		t.Fatal(err)
	}
	if d, err := ReadDevcontainer(repo, workspace); d != nil || err != nil {
		t.Errorf("a link out of the repository was read: %+v, %v", d, err)
	}

	os.WriteFile(filepath.Join(repo, ".devcontainer", "devcontainer.json"), []byte(`{"build": {"dockerfile": "Dockerfile"}}`), 0o644)
	os.Symlink(filepath.Join(outside, "Dockerfile"), filepath.Join(repo, ".devcontainer", "Dockerfile"))
	d, err := ReadDevcontainer(repo, workspace)
	if err == nil || d != nil || !strings.Contains(err.Error(), "build.dockerfile") {
		t.Errorf("a Dockerfile linked out of the repository: %+v, %v", d, err)
	}
}

func TestDevcontainerKey(t *testing.T) {
	for text, ignore := range map[string]bool{"": false, "devcontainer: true\n": false, "devcontainer: false\n": true} {
		c, err := Parse(Path, []byte(text))
		if err != nil || c.IgnoreDevcontainer != ignore {
			t.Errorf("%q: IgnoreDevcontainer %v, %v; want %v", text, c.IgnoreDevcontainer, err, ignore)
		}
	}
	if _, err := Parse(Path, []byte("devcontainer: no\n")); err == nil || !strings.Contains(err.Error(), "devcontainer: expected true or false") {
		t.Errorf("devcontainer: no: %v", err)
	}
}

// TestDevcontainerNotesBounded: a file of many unknown keys and features
// yields a bounded list of notes.
func TestDevcontainerNotesBounded(t *testing.T) {
	var members []string
	for i := range 500 {
		members = append(members, fmt.Sprintf("%q: 1", fmt.Sprintf("k%d", i)))
	}
	var features []string
	for i := range 100 {
		features = append(features, fmt.Sprintf("%q: {}", fmt.Sprintf("ghcr.io/f/%d:1", i)))
	}
	d, err := parseDC(`{"image": "python:3", "features": {`+strings.Join(features, ",")+`}, `+strings.Join(members, ",")+`}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Notes) != maxNotes+1 || d.Notes[maxNotes] != "462 more notes not shown" {
		t.Errorf("%d notes, the last %q", len(d.Notes), d.Notes[len(d.Notes)-1])
	}
	if !strings.HasSuffix(d.Notes[1], "ghcr.io/f/19:1, and 80 more") {
		t.Errorf("features note: %s", d.Notes[1])
	}
}
