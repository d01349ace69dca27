package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/jsonmessage"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// The repository root, seen from this package's directory.
const repoDir = "../.."

// hostCABundle is the CA bundle the offline image build copies, as
// make docker-image does.
const hostCABundle = "/etc/ssl/certs/ca-certificates.crt"

// The user the server image (the Dockerfile) runs as, and the one the
// GitHub Action's image (Dockerfile.action) runs as.
const (
	imageUser  = "65532:65532"
	actionUser = "0:0"
)

// The two Dockerfiles and the script that lays out the root file system of
// every image, relative to the repository root.
const (
	serverDockerfile = "Dockerfile"
	actionDockerfile = "Dockerfile.action"
	rootfsScript     = "scripts/rootfs.sh"
)

// rootfsLayout is every entry scripts/rootfs.sh writes, and so every file
// of the images, with its type (tar's flag: 0 a file, 5 a directory) and
// mode.
var rootfsLayout = map[string]string{
	"capsule":                           "0 0755",
	"etc/":                              "5 0755",
	"etc/passwd":                        "0 0644",
	"etc/group":                         "0 0644",
	"etc/ssl/":                          "5 0755",
	"etc/ssl/certs/":                    "5 0755",
	"etc/ssl/certs/ca-certificates.crt": "0 0644",
	"tmp/":                              "5 1777",
}

// dockerfileStage is one stage of a Dockerfile: its FROM line and the
// instructions that follow, each joined onto one line.
type dockerfileStage struct {
	name, from   string
	instructions []string
}

// dockerfile is a parsed Dockerfile: its path in the repository and its
// stages in file order.
type dockerfile struct {
	path   string
	stages []dockerfileStage
}

// parseDockerfile splits the Dockerfile at path (relative to the
// repository root) into stages. It understands what Capsule's Dockerfiles
// use: comments, line continuations, FROM [--flag] x [AS name].
func parseDockerfile(t *testing.T, path string) dockerfile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoDir, path))
	if err != nil {
		t.Fatal(err)
	}
	var (
		stages []dockerfileStage
		line   strings.Builder
	)
	flush := func() {
		text := strings.TrimSpace(line.String())
		line.Reset()
		if text == "" {
			return
		}
		fields := strings.Fields(text)
		if strings.EqualFold(fields[0], "FROM") {
			fields = slices.DeleteFunc(fields[1:], func(f string) bool { return strings.HasPrefix(f, "--") })
			s := dockerfileStage{from: fields[0]}
			if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
				s.name = fields[2]
			}
			stages = append(stages, s)
			return
		}
		if len(stages) == 0 {
			return // global ARGs
		}
		stages[len(stages)-1].instructions = append(stages[len(stages)-1].instructions, text)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		text := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(text, "#") {
			continue
		}
		if cont, ok := strings.CutSuffix(text, `\`); ok {
			line.WriteString(cont + " ")
			continue
		}
		line.WriteString(text)
		flush()
	}
	flush()
	if len(stages) == 0 {
		t.Fatalf("%s has no stages", path)
	}
	return dockerfile{path: path, stages: stages}
}

// instruction returns the arguments of the last instruction named kind in
// the stage, and whether there is one.
func (s dockerfileStage) instruction(kind string) (string, bool) {
	for _, in := range slices.Backward(s.instructions) {
		name, args, _ := strings.Cut(in, " ")
		if strings.EqualFold(name, kind) {
			return strings.TrimSpace(args), true
		}
	}
	return "", false
}

// has reports whether the stage has the instruction, compared with its
// words normalised.
func (s dockerfileStage) has(instruction string) bool {
	want := strings.Join(strings.Fields(instruction), " ")
	return slices.ContainsFunc(s.instructions, func(in string) bool {
		return strings.EqualFold(strings.Join(strings.Fields(in), " "), want)
	})
}

func (d dockerfile) names() []string {
	names := make([]string, len(d.stages))
	for i, s := range d.stages {
		names[i] = s.name
	}
	return names
}

func (d dockerfile) stage(t *testing.T, name string) (int, dockerfileStage) {
	t.Helper()
	for i, s := range d.stages {
		if s.name == name {
			return i, s
		}
	}
	t.Fatalf("%s has no stage %q", d.path, name)
	return 0, dockerfileStage{}
}

func (d dockerfile) last() dockerfileStage { return d.stages[len(d.stages)-1] }

// setting returns what the image the stage builds has for kind (USER,
// STOPSIGNAL, ENTRYPOINT...): the stage's last such instruction, else what
// the earlier stage it is FROM has.
func (d dockerfile) setting(s dockerfileStage, kind string) (string, bool) {
	for {
		if v, ok := s.instruction(kind); ok {
			return v, true
		}
		i := slices.IndexFunc(d.stages, func(p dockerfileStage) bool { return p.name != "" && p.name == s.from })
		if i < 0 {
			return "", false
		}
		s = d.stages[i]
	}
}

// makefileLDFLAGS returns the Makefile's LDFLAGS as a Dockerfile writes
// them, with ${VERSION} for $(VERSION).
func makefileLDFLAGS(t *testing.T) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^LDFLAGS\s*:?=\s*(.*)$`).FindSubmatch(readRepoFile(t, "Makefile"))
	if m == nil {
		t.Fatal("the Makefile sets no LDFLAGS")
	}
	return strings.ReplaceAll(strings.TrimSpace(string(m[1])), "$(VERSION)", "${VERSION}")
}

// makeRecipe returns the recipe lines of the Makefile's target.
func makeRecipe(t *testing.T, target string) []string {
	t.Helper()
	var recipe []string
	in := false
	for _, line := range strings.Split(string(readRepoFile(t, "Makefile")), "\n") {
		switch {
		case strings.HasPrefix(line, target+":"):
			in = true
		case in && strings.HasPrefix(line, "\t"):
			recipe = append(recipe, strings.TrimSpace(line))
		case in:
			return recipe
		}
	}
	if !in {
		t.Fatalf("the Makefile has no %s target", target)
	}
	return recipe
}

func readRepoFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoDir, path))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// rootfsCall returns the OUTDIR a command line passes to scripts/rootfs.sh,
// and whether it calls the script with its three arguments.
func rootfsCall(command string) (string, bool) {
	m := regexp.MustCompile(`(?:^|[\s;&|])(?:sh\s+)?(?:\./)?scripts/rootfs\.sh\s+(\S+)\s+(\S+)\s+([^\s;&|]+)`).FindStringSubmatch(command)
	if m == nil {
		return "", false
	}
	return m[3], true
}

// checkBuildStage checks the from-source build stage of a Dockerfile: the
// flags of `make build` and the rootfs laid out by scripts/rootfs.sh, in
// the directory the final stage copies. It returns the stage.
func checkBuildStage(t *testing.T, d dockerfile) dockerfileStage {
	t.Helper()
	_, build := d.stage(t, "build")
	run, _ := build.instruction("RUN")
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", `-ldflags "` + makefileLDFLAGS(t) + `"`, "./cmd/capsule"} {
		if !strings.Contains(run, want) {
			t.Errorf("%s: the build stage's go build lacks %s (the Makefile's flags):\n%s", d.path, want, run)
		}
	}
	out, ok := rootfsCall(run)
	if !ok {
		t.Errorf("%s: the build stage does not lay out the rootfs with %s BINARY CA_BUNDLE OUTDIR:\n%s", d.path, rootfsScript, run)
		return build
	}
	copyRootfs := "COPY --from=build " + strings.TrimSuffix(out, "/") + "/ /"
	if !d.last().has(copyRootfs) {
		t.Errorf("%s: the last stage does not %s (the rootfs the build stage lays out)", d.path, copyRootfs)
	}
	return build
}

// checkImageSettings checks what the image of d's last stage runs as.
func checkImageSettings(t *testing.T, d dockerfile, want map[string]string) {
	t.Helper()
	last := d.last()
	for _, kind := range slices.Sorted(maps.Keys(want)) {
		if got, _ := d.setting(last, kind); got != want[kind] {
			t.Errorf("%s: the last stage, %s, has %s %q, want %q", d.path, last.name, kind, got, want[kind])
		}
	}
}

// TestImageDockerfile checks the Dockerfile's layout without an engine:
// the targets the README and the Makefile rely on, the server image as its
// last (default) stage, and the order that lets the legacy builder build
// the prebuilt target offline.
func TestImageDockerfile(t *testing.T) {
	d := parseDockerfile(t, serverDockerfile)
	names := d.names()
	t.Logf("stages: %v", names)

	_, base := d.stage(t, "base")
	if base.from != "scratch" {
		t.Errorf("base is FROM %s, want scratch", base.from)
	}
	for kind, want := range map[string]string{
		"USER":       imageUser,
		"STOPSIGNAL": "SIGINT",
		"ENTRYPOINT": `["/capsule"]`,
		"CMD":        `["serve"]`,
		"EXPOSE":     "8080",
	} {
		if got, _ := base.instruction(kind); got != want {
			t.Errorf("base: %s %q, want %q", kind, got, want)
		}
	}

	prebuiltAt, prebuilt := d.stage(t, "prebuilt")
	if prebuilt.from != "base" {
		t.Errorf("prebuilt is FROM %s, want base", prebuilt.from)
	}
	if !prebuilt.has("COPY bin/rootfs/ /") {
		t.Error("prebuilt does not COPY bin/rootfs/ /, what make docker-image lays out")
	}
	// The legacy builder runs every stage before the target: none of them
	// may need a registry.
	for _, s := range d.stages[:prebuiltAt+1] {
		if s.from != "scratch" && !slices.Contains(names, s.from) {
			t.Errorf("stage %q (FROM %s) comes before prebuilt and needs a registry", s.name, s.from)
		}
	}

	checkBuildStage(t, d)

	// `docker build .` builds the last stage: the server image, non-root.
	if last := d.last(); last.name != "capsule" || last.from != "base" {
		t.Errorf("the last stage is %q FROM %s, want capsule FROM base", last.name, last.from)
	}
	checkImageSettings(t, d, map[string]string{
		"USER":       imageUser,
		"STOPSIGNAL": "SIGINT",
		"ENTRYPOINT": `["/capsule"]`,
		"CMD":        `["serve"]`,
	})
	// No image of this file runs as root: that is Dockerfile.action's.
	for _, s := range d.stages {
		if s.name == "build" {
			continue
		}
		if user, _ := d.setting(s, "USER"); user != imageUser {
			t.Errorf("stage %q runs as %q, want %s", s.name, user, imageUser)
		}
	}
}

// TestImageDockerfileAction checks, without an engine, the image GitHub
// builds for action.yml: the same build as the Dockerfile's, run as root.
// The test cannot build it: its build stage needs the Go image, which only
// a registry gives; CI's image job builds and runs it.
func TestImageDockerfileAction(t *testing.T) {
	d := parseDockerfile(t, actionDockerfile)
	t.Logf("stages: %v", d.names())

	build := checkBuildStage(t, d)
	server := parseDockerfile(t, serverDockerfile)
	_, serverBuild := server.stage(t, "build")
	if build.from != serverBuild.from || !slices.Equal(build.instructions, serverBuild.instructions) {
		t.Errorf("the build stages differ: %s builds FROM %s\n  %s\n%s FROM %s\n  %s",
			d.path, build.from, strings.Join(build.instructions, "\n  "),
			server.path, serverBuild.from, strings.Join(serverBuild.instructions, "\n  "))
	}

	last := d.last()
	if last.from != "scratch" {
		t.Errorf("the last stage is FROM %s, want scratch: the binary, the CA bundle and the accounts only", last.from)
	}
	// GitHub runs the image with no --user; only root may use the socket,
	// workspace and output files it mounts (see Dockerfile.action).
	checkImageSettings(t, d, map[string]string{
		"USER":       actionUser,
		"STOPSIGNAL": "SIGINT",
		"ENTRYPOINT": `["/capsule"]`,
	})
}

// TestImageRootfs checks scripts/rootfs.sh, the one place the images'
// root file system is laid out, and that every build calls it: the two
// Dockerfiles' build stages and make docker-image.
func TestImageRootfs(t *testing.T) {
	for _, path := range []string{serverDockerfile, actionDockerfile} {
		d := parseDockerfile(t, path)
		_, build := d.stage(t, "build")
		if run, _ := build.instruction("RUN"); !strings.Contains(run, rootfsScript) {
			t.Errorf("%s: the build stage does not call %s", path, rootfsScript)
		}
	}
	recipe := makeRecipe(t, "docker-image")
	rootfsAt := slices.IndexFunc(recipe, func(line string) bool { _, ok := rootfsCall(line); return ok })
	buildAt := slices.IndexFunc(recipe, func(line string) bool { return strings.HasPrefix(line, "docker build --target prebuilt ") })
	switch {
	case rootfsAt < 0:
		t.Errorf("make docker-image does not lay out bin/rootfs with %s:\n%s", rootfsScript, strings.Join(recipe, "\n"))
	case buildAt < rootfsAt:
		t.Errorf("make docker-image does not build the prebuilt target after %s:\n%s", rootfsScript, strings.Join(recipe, "\n"))
	default:
		if out, _ := rootfsCall(recipe[rootfsAt]); strings.TrimSuffix(out, "/") != "bin/rootfs" {
			t.Errorf("make docker-image lays out %s, but the prebuilt target copies bin/rootfs/", out)
		}
	}

	// The script itself, on stand-ins for the binary and the CA bundle,
	// under a umask that would spoil modes it did not set.
	dir := t.TempDir()
	binary := filepath.Join(dir, "capsule-binary")
	ca := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(binary, []byte("#!/bin/false\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "rootfs")
	runRootfsScript(t, "umask 077;", binary, ca, out)
	got := rootfsEntries(t, out)
	if !maps.Equal(got, rootfsLayout) {
		t.Errorf("%s laid out\n  %v\nwant\n  %v", rootfsScript, got, rootfsLayout)
	}
	for name, from := range map[string]string{"capsule": binary, "etc/ssl/certs/ca-certificates.crt": ca} {
		if readFile(t, filepath.Join(out, name)) != readFile(t, from) {
			t.Errorf("/%s differs from %s", name, from)
		}
	}
	for name, want := range map[string]string{
		"etc/passwd": "root:x:0:0:root:/root:/sbin/nologin\ncapsule:x:65532:65532:capsule:/nonexistent:/sbin/nologin\n",
		"etc/group":  "root:x:0:\ncapsule:x:65532:\n",
	} {
		if got := readFile(t, filepath.Join(out, name)); got != want {
			t.Errorf("/%s is\n%s\nwant\n%s", name, got, want)
		}
	}

	// It refuses to write over an earlier rootfs, and wants its arguments.
	for what, args := range map[string][]string{
		"an OUTDIR that is not empty": {binary, ca, out},
		"a missing binary":            {filepath.Join(dir, "nonexistent"), ca, filepath.Join(dir, "other")},
		"two arguments":               {binary, ca},
	} {
		cmd := exec.Command("sh", append([]string{filepath.Join(repoDir, rootfsScript)}, args...)...)
		if msg, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("%s with %s succeeded:\n%s", rootfsScript, what, msg)
		}
	}
}

// runRootfsScript runs scripts/rootfs.sh BINARY CA_BUNDLE OUTDIR with sh,
// after the shell commands in prefix.
func runRootfsScript(t *testing.T, prefix, binary, ca, out string) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join(repoDir, rootfsScript))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", prefix+` exec sh "$0" "$@"`, script, binary, ca, out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s %s %s: %v\n%s", rootfsScript, binary, ca, out, err, msg)
	}
}

// rootfsEntries returns the entries under dir as rootfsLayout lists them.
func rootfsEntries(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if info.IsDir() {
			name += "/"
		}
		got[name] = fmt.Sprintf("%c %04o", h.Typeflag, h.Mode&0o7777)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestImage builds the image's prebuilt target with the engine's legacy
// builder, as make docker-image does where no registry answers, from the
// static binary and the host's CA bundle, then checks its settings, its
// files and that it runs.
func TestImage(t *testing.T) {
	bin := sandboxtest.AgentBinary(t)
	eng, err := sandbox.Connect(context.Background(), sandbox.Options{AgentPath: bin})
	if err != nil {
		sandboxtest.Unavailable(t, err)
	}
	t.Cleanup(func() { eng.Close() })
	cli := eng.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	wantVersion := string(out)
	fields := strings.Fields(wantVersion)
	if len(fields) < 2 || fields[0] != "capsule" {
		t.Fatalf("%s version printed %q", bin, wantVersion)
	}
	version := fields[1]

	ca, err := os.ReadFile(hostCABundle)
	if errors.Is(err, os.ErrNotExist) {
		sandboxtest.Unavailable(t, "no CA bundle at "+hostCABundle)
	}
	if err != nil {
		t.Fatal(err)
	}
	binary, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	// bin/rootfs/ as make docker-image lays it out.
	rootfs := filepath.Join(t.TempDir(), "rootfs")
	runRootfsScript(t, "", bin, hostCABundle, rootfs)
	passwd := readFile(t, filepath.Join(rootfs, "etc/passwd"))
	files := map[string][]byte{
		"capsule":                           binary,
		"etc/passwd":                        []byte(passwd),
		"etc/group":                         []byte(readFile(t, filepath.Join(rootfs, "etc/group"))),
		"etc/ssl/certs/ca-certificates.crt": ca,
	}
	buildContext := imageBuildContext(t, rootfs)

	ref := fmt.Sprintf("capsule-image-test:%d", time.Now().UnixNano())
	start := time.Now()
	resp, err := cli.ImageBuild(ctx, bytes.NewReader(buildContext), build.ImageBuildOptions{
		Tags:        []string{ref},
		Target:      "prebuilt",
		BuildArgs:   map[string]*string{"VERSION": &version},
		Version:     build.BuilderV1,
		Remove:      true,
		ForceRemove: true,
	})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	t.Cleanup(func() {
		if _, err := cli.ImageRemove(context.Background(), ref, image.RemoveOptions{Force: true, PruneChildren: true}); err != nil && !cerrdefs.IsNotFound(err) {
			t.Errorf("remove %s: %v", ref, err)
		}
	})
	var buildLog bytes.Buffer
	err = jsonmessage.DisplayJSONMessagesStream(resp.Body, &buildLog, 0, false, nil)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, buildLog.String())
	}
	t.Logf("built %s (legacy builder, target prebuilt) in %v", ref, time.Since(start).Round(time.Millisecond))

	t.Run("settings", func(t *testing.T) {
		info, err := cli.ImageInspect(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		cfg := info.Config
		if cfg == nil {
			t.Fatal("the image has no config")
		}
		if cfg.User != imageUser {
			t.Errorf("user %q, want %s (non-root)", cfg.User, imageUser)
		}
		if cfg.StopSignal != "SIGINT" {
			t.Errorf("stop signal %q, want SIGINT", cfg.StopSignal)
		}
		if !slices.Equal(cfg.Entrypoint, []string{"/capsule"}) {
			t.Errorf("entrypoint %q, want [/capsule]", cfg.Entrypoint)
		}
		if !slices.Equal(cfg.Cmd, []string{"serve"}) {
			t.Errorf("cmd %q, want [serve]", cfg.Cmd)
		}
		if _, ok := cfg.ExposedPorts["8080/tcp"]; !ok || len(cfg.ExposedPorts) != 1 {
			t.Errorf("exposed ports %v, want 8080/tcp", cfg.ExposedPorts)
		}
		for label, want := range map[string]string{
			"org.opencontainers.image.title":   "capsule",
			"org.opencontainers.image.version": version,
			"org.opencontainers.image.source":  "https://github.com/capsulehq/capsule",
		} {
			if got := cfg.Labels[label]; got != want {
				t.Errorf("label %s = %q, want %q", label, got, want)
			}
		}
		if cfg.Labels["org.opencontainers.image.description"] == "" {
			t.Error("no description label")
		}
		if !strings.Contains(passwd, "capsule:x:65532:65532:") {
			t.Errorf("/etc/passwd names no user 65532:\n%s", passwd)
		}
	})

	t.Run("files", func(t *testing.T) {
		id := imageTestContainer(t, cli, ref, "version")
		rc, err := cli.ContainerExport(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		got := map[string]string{}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if engineInitLayer[h.Name] {
				continue
			}
			if h.Uid != 0 || h.Gid != 0 {
				t.Errorf("%s is owned by %d:%d, want root", h.Name, h.Uid, h.Gid)
			}
			got[h.Name] = fmt.Sprintf("%c %04o", h.Typeflag, h.Mode&0o7777)
			if want, ok := files[h.Name]; ok {
				content, err := io.ReadAll(tr)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(content, want) {
					t.Errorf("/%s differs from the file it was built from", h.Name)
				}
			}
		}
		want := rootfsLayout
		for name, w := range want {
			if g, ok := got[name]; !ok {
				t.Errorf("the image lacks /%s", name)
			} else if g != w {
				t.Errorf("/%s: type and mode %q, want %q", name, g, w)
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("the image has /%s, which it should not", name)
			}
		}
	})

	t.Run("runs", func(t *testing.T) {
		id := imageTestContainer(t, cli, ref, "version")
		if err := cli.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
			t.Fatal(err)
		}
		waitC, errC := cli.ContainerWait(ctx, id, container.WaitConditionNotRunning)
		var code int64
		select {
		case w := <-waitC:
			code = w.StatusCode
		case err := <-errC:
			t.Fatal(err)
		}
		logs, err := cli.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true})
		if err != nil {
			t.Fatal(err)
		}
		defer logs.Close()
		var stdout, stderr bytes.Buffer
		if _, err := stdcopy.StdCopy(&stdout, &stderr, logs); err != nil {
			t.Fatal(err)
		}
		if code != 0 || stdout.String() != wantVersion {
			t.Errorf("capsule version in the image: exit %d, stdout %q, stderr %q; want 0 and %q", code, stdout.String(), stderr.String(), wantVersion)
		}
	})
}

// engineInitLayer are the entries the engine adds to every container (its init
// layer), which an export lists but the image does not hold.
var engineInitLayer = map[string]bool{
	".dockerenv": true, "dev/": true, "dev/console": true, "dev/pts/": true, "dev/shm/": true,
	"etc/hostname": true, "etc/hosts": true, "etc/mtab": true, "etc/resolv.conf": true,
	"proc/": true, "sys/": true,
}

// imageBuildContext returns the tar the prebuilt target builds from: the
// repository's Dockerfile and .dockerignore, and rootfs as bin/rootfs/, as
// the docker CLI sends them for make docker-image (modes and owners as on
// disk; COPY makes root the owner).
func imageBuildContext(t *testing.T, rootfs string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(h *tar.Header, content []byte) {
		h.Size = int64(len(content))
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(content); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{serverDockerfile, ".dockerignore"} {
		add(&tar.Header{Name: name, Mode: 0o644, ModTime: time.Now()}, readRepoFile(t, name))
	}
	add(&tar.Header{Typeflag: tar.TypeDir, Name: "bin/", Mode: 0o755, ModTime: time.Now()}, nil)
	err := filepath.WalkDir(rootfs, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(rootfs, path)
		if err != nil {
			return err
		}
		h.Name = "bin/rootfs"
		if rel != "." {
			h.Name += "/" + filepath.ToSlash(rel)
		}
		var content []byte
		switch {
		case info.IsDir():
			h.Name += "/"
		case info.Mode().IsRegular():
			if content, err = os.ReadFile(path); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: not a file or a directory", path)
		}
		add(h, content)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// imageTestContainer creates (and later removes) a container from ref running
// capsule with args.
func imageTestContainer(t *testing.T, cli *client.Client, ref string, args ...string) string {
	t.Helper()
	resp, err := cli.ContainerCreate(context.Background(), &container.Config{Image: ref, Cmd: args}, &container.HostConfig{NetworkMode: "none"}, nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cli.ContainerRemove(context.Background(), resp.ID, container.RemoveOptions{Force: true}); err != nil && !cerrdefs.IsNotFound(err) {
			t.Errorf("remove container %s: %v", resp.ID, err)
		}
	})
	return resp.ID
}
