package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/docker/errdefs"
	"github.com/docker/docker/pkg/jsonmessage"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/capsulehq/capsule/internal/sandboxtest"
	"github.com/capsulehq/capsule/sandbox"
)

// The repository root, seen from this package's directory.
const repoDir = "../.."

// hostCABundle is the CA bundle the offline image build copies, as
// make docker-image does.
const hostCABundle = "/etc/ssl/certs/ca-certificates.crt"

// imageUser is the user the image runs as, and the one the action stage
// switches back to root.
const (
	imageUser  = "65532:65532"
	actionUser = "0:0"
)

// dockerfileStage is one stage of a Dockerfile: its FROM line and the
// instructions that follow, each joined onto one line.
type dockerfileStage struct {
	name, from   string
	instructions []string
}

// parseDockerfile splits a Dockerfile into stages. It understands what
// Capsule's Dockerfile uses: comments, line continuations, FROM [--flag] x
// [AS name].
func parseDockerfile(t *testing.T, path string) []dockerfileStage {
	t.Helper()
	data, err := os.ReadFile(path)
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
	return stages
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

func stageNamed(t *testing.T, stages []dockerfileStage, name string) (int, dockerfileStage) {
	t.Helper()
	for i, s := range stages {
		if s.name == name {
			return i, s
		}
	}
	t.Fatalf("the Dockerfile has no stage %q", name)
	return 0, dockerfileStage{}
}

// quotedLines returns the single-quoted arguments of the line in text that
// writes to target, e.g. printf '%s\n' 'a' 'b' >target gives a and b.
func quotedLines(t *testing.T, text, target string) []string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, ">"+target) {
			continue
		}
		var lines []string
		for _, m := range regexp.MustCompile(`'([^']*)'`).FindAllStringSubmatch(line, -1) {
			if m[1] != `%s\n` {
				lines = append(lines, m[1])
			}
		}
		return lines
	}
	t.Fatalf("nothing writes %s", target)
	return nil
}

// rootfsAccounts returns the /etc/passwd and /etc/group of the image, as
// the Dockerfile's from-source build writes them, after checking that
// make docker-image writes the same for the prebuilt variant.
func rootfsAccounts(t *testing.T) (passwd, group string) {
	t.Helper()
	dockerfile, err := os.ReadFile(filepath.Join(repoDir, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join(repoDir, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		out  *string
	}{{"passwd", &passwd}, {"group", &group}} {
		fromSource := quotedLines(t, string(dockerfile), "/rootfs/etc/"+f.name)
		prebuilt := quotedLines(t, string(makefile), "bin/rootfs/etc/"+f.name)
		if !slices.Equal(fromSource, prebuilt) {
			t.Errorf("/etc/%s: the Dockerfile writes %q, make docker-image %q", f.name, fromSource, prebuilt)
		}
		*f.out = strings.Join(fromSource, "\n") + "\n"
	}
	return passwd, group
}

// TestImageDockerfile checks the Dockerfile's layout without an engine:
// the targets the README, the Makefile and action.yml rely on, and the
// order that lets the legacy builder build the prebuilt target offline.
func TestImageDockerfile(t *testing.T) {
	stages := parseDockerfile(t, filepath.Join(repoDir, "Dockerfile"))
	names := make([]string, len(stages))
	for i, s := range stages {
		names[i] = s.name
	}
	t.Logf("stages: %v", names)

	_, base := stageNamed(t, stages, "base")
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

	prebuiltAt, prebuilt := stageNamed(t, stages, "prebuilt")
	if prebuilt.from != "base" {
		t.Errorf("prebuilt is FROM %s, want base", prebuilt.from)
	}
	// The legacy builder runs every stage before the target: none of them
	// may need a registry.
	for _, s := range stages[:prebuiltAt+1] {
		if s.from != "scratch" && !slices.Contains(names, s.from) {
			t.Errorf("stage %q (FROM %s) comes before prebuilt and needs a registry", s.name, s.from)
		}
	}

	_, buildStage := stageNamed(t, stages, "build")
	run, _ := buildStage.instruction("RUN")
	makefile, err := os.ReadFile(filepath.Join(repoDir, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^LDFLAGS\s*:?=\s*(.*)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile sets no LDFLAGS")
	}
	ldflags := strings.ReplaceAll(string(m[1]), "$(VERSION)", "${VERSION}")
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", `-ldflags "` + ldflags + `"`} {
		if !strings.Contains(run, want) {
			t.Errorf("the build stage's go build lacks %s (the Makefile's flags):\n%s", want, run)
		}
	}

	if _, capsule := stageNamed(t, stages, "capsule"); capsule.from != "base" {
		t.Errorf("capsule is FROM %s, want base", capsule.from)
	}
	// GitHub builds the last stage for action.yml, and runs it as the
	// image's user: it must be root (see the Dockerfile).
	last := stages[len(stages)-1]
	if last.name != "action" || last.from != "capsule" {
		t.Errorf("the last stage is %q FROM %s, want action FROM capsule", last.name, last.from)
	}
	if user, _ := last.instruction("USER"); user != actionUser {
		t.Errorf("the action stage runs as %q, want %s", user, actionUser)
	}
	rootfsAccounts(t)
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
	passwd, group := rootfsAccounts(t)
	files := map[string][]byte{
		"capsule":                           binary,
		"etc/passwd":                        []byte(passwd),
		"etc/group":                         []byte(group),
		"etc/ssl/certs/ca-certificates.crt": ca,
	}
	buildContext := imageBuildContext(t, files)

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
		if _, err := cli.ImageRemove(context.Background(), ref, image.RemoveOptions{Force: true, PruneChildren: true}); err != nil && !errdefs.IsNotFound(err) {
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
		want := map[string]string{
			"capsule":                           "0 0755",
			"etc/":                              "5 0755",
			"etc/passwd":                        "0 0644",
			"etc/group":                         "0 0644",
			"etc/ssl/":                          "5 0755",
			"etc/ssl/certs/":                    "5 0755",
			"etc/ssl/certs/ca-certificates.crt": "0 0644",
			"tmp/":                              "5 1777",
		}
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
// repository's Dockerfile and .dockerignore, and files under bin/rootfs/,
// laid out as make docker-image lays them out.
func imageBuildContext(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(h *tar.Header, content []byte) {
		h.Size = int64(len(content))
		h.ModTime = time.Now()
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(content); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"Dockerfile", ".dockerignore"} {
		content, err := os.ReadFile(filepath.Join(repoDir, name))
		if err != nil {
			t.Fatal(err)
		}
		add(&tar.Header{Name: name, Mode: 0o644}, content)
	}
	for _, dir := range []string{"bin/", "bin/rootfs/", "bin/rootfs/etc/", "bin/rootfs/etc/ssl/", "bin/rootfs/etc/ssl/certs/"} {
		add(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o755}, nil)
	}
	add(&tar.Header{Typeflag: tar.TypeDir, Name: "bin/rootfs/tmp/", Mode: 0o1777}, nil)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		mode := int64(0o644)
		if name == "capsule" {
			mode = 0o755
		}
		add(&tar.Header{Typeflag: tar.TypeReg, Name: "bin/rootfs/" + name, Mode: mode}, files[name])
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
		if err := cli.ContainerRemove(context.Background(), resp.ID, container.RemoveOptions{Force: true}); err != nil && !errdefs.IsNotFound(err) {
			t.Errorf("remove container %s: %v", resp.ID, err)
		}
	})
	return resp.ID
}
