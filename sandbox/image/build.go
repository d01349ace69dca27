package image

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/jsonmessage"
)

// baseImage is the registry image the Dockerfile starts from.
const baseImage = "debian:bookworm-slim"

// Options control Build.
type Options struct {
	// Recipe is the image to build; the zero Recipe means Python.
	Recipe   Recipe
	Ref      string    // image reference to build; empty means Recipe.Ref()
	Rebuild  bool      // build even when the image is present
	Progress io.Writer // receives build output; nil discards it
	// Offline skips the registry and builds with debootstrap at once.
	Offline bool
}

// Build makes sure the recipe's image exists and says how.
func Build(ctx context.Context, cli *client.Client, opts Options) (Method, error) {
	if opts.Recipe.Name == "" {
		opts.Recipe = Python
	}
	if opts.Ref == "" {
		opts.Ref = opts.Recipe.Ref()
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	if !opts.Rebuild {
		ok, err := current(ctx, cli, opts.Ref, opts.Recipe.Hash())
		if err != nil || ok {
			return Present, err
		}
	}
	if !opts.Offline {
		err := buildFromDockerfile(ctx, cli, opts)
		if err == nil {
			return FromDockerfile, nil
		}
		if !errors.Is(err, errNoRegistry) {
			return "", err
		}
		fmt.Fprintf(opts.Progress, "no registry reachable (%v); building offline\n", errors.Unwrap(err))
	}
	if err := buildWithDebootstrap(ctx, cli, opts); err != nil {
		return "", err
	}
	return FromDebootstrap, nil
}

// current reports whether ref exists and was built from the recipe with
// the given hash.
func current(ctx context.Context, cli *client.Client, ref, hash string) (bool, error) {
	info, err := cli.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inspect %s: %w", ref, err)
	}
	return info.Config != nil && info.Config.Labels[LabelRecipe] == hash, nil
}

var errNoRegistry = errors.New("registry unreachable")

// buildFromDockerfile pulls the base image when missing, then builds.
func buildFromDockerfile(ctx context.Context, cli *client.Client, opts Options) error {
	if _, err := cli.ImageInspect(ctx, baseImage); cerrdefs.IsNotFound(err) {
		rc, err := cli.ImagePull(ctx, baseImage, image.PullOptions{})
		if err != nil {
			return fmt.Errorf("%w: %w", errNoRegistry, err)
		}
		err = jsonmessage.DisplayJSONMessagesStream(rc, opts.Progress, 0, false, nil)
		rc.Close()
		if err != nil {
			return fmt.Errorf("%w: %w", errNoRegistry, err)
		}
	}
	buildContext, err := contextTar(ctx, opts.Recipe)
	if err != nil {
		return fmt.Errorf("build %s: %w", opts.Ref, err)
	}
	resp, err := cli.ImageBuild(ctx, buildContext, build.ImageBuildOptions{
		Tags:        []string{opts.Ref},
		Labels:      map[string]string{LabelRecipe: opts.Recipe.Hash()},
		Remove:      true,
		ForceRemove: true,
	})
	if err != nil {
		return fmt.Errorf("build %s: %w", opts.Ref, err)
	}
	defer resp.Body.Close()
	if err := jsonmessage.DisplayJSONMessagesStream(resp.Body, opts.Progress, 0, false, nil); err != nil {
		return fmt.Errorf("build %s: %w", opts.Ref, err)
	}
	return nil
}

// contextTar is the build context of the recipe's Dockerfile: the
// Dockerfile, the recipe's files and its archives as tar files.
func contextTar(ctx context.Context, r Recipe) (*bytes.Buffer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	files := map[string]string{"Dockerfile": r.Dockerfile()}
	for p, content := range r.Files {
		files[p[1:]] = content
	}
	for i, a := range r.Archives {
		data, err := a.tarBytes(ctx)
		if err != nil {
			return nil, err
		}
		files[fmt.Sprintf("archive%d.tar", i)] = string(data)
	}
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			return nil, err
		}
	}
	return &buf, tw.Close()
}

// buildWithDebootstrap installs a minimal Debian with the default image's
// packages into a temporary folder, using the host's own mirror, adds the
// recipe's other packages with apt-get in a chroot (apt resolves a large
// closure better than debootstrap does), its files and set-up, and imports
// the result.
func buildWithDebootstrap(ctx context.Context, cli *client.Client, opts Options) error {
	if os.Geteuid() != 0 {
		return errors.New("the offline image build runs debootstrap, which needs root: run `capsule sandbox image` as root")
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return errors.New("the offline image build needs debootstrap: apt-get install debootstrap")
	}
	src, err := HostMirror()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "capsule-rootfs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	if err := baseRootfs(ctx, cli, dir, src, opts); err != nil {
		return err
	}
	if err := finishRootfs(ctx, dir, opts); err != nil {
		return err
	}
	for _, junk := range []string{"var/cache/apt/archives", "var/lib/apt/lists", "usr/share/doc", "usr/share/man"} {
		clearDir(dir + "/" + junk)
	}

	tarCmd := exec.CommandContext(ctx, "tar", "--numeric-owner", "-C", dir, "-c", ".")
	tarOut, err := tarCmd.StdoutPipe()
	if err != nil {
		return err
	}
	var tarErr bytes.Buffer
	tarCmd.Stderr = &tarErr
	if err := tarCmd.Start(); err != nil {
		return fmt.Errorf("tar the root filesystem: %w", err)
	}
	cmdJSON, _ := json.Marshal([]string{"python3"})
	changes := []string{
		"ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"ENV LANG=C.UTF-8",
	}
	for _, kv := range opts.Recipe.Env {
		changes = append(changes, "ENV "+kv)
	}
	changes = append(changes, "LABEL "+LabelRecipe+"="+opts.Recipe.Hash(), "CMD "+string(cmdJSON))
	rc, err := cli.ImageImport(ctx, image.ImportSource{Source: tarOut, SourceName: "-"}, opts.Ref, image.ImportOptions{Changes: changes})
	if err != nil {
		_ = tarCmd.Process.Kill()
		_ = tarCmd.Wait()
		return fmt.Errorf("import %s: %w", opts.Ref, err)
	}
	_, copyErr := io.Copy(io.Discard, rc)
	rc.Close()
	if err := tarCmd.Wait(); err != nil {
		return fmt.Errorf("tar the root filesystem: %w: %s", err, tarErr.String())
	}
	if copyErr != nil {
		return fmt.Errorf("import %s: %w", opts.Ref, copyErr)
	}
	return nil
}

// baseRootfs lays the default image's files into dir: for another recipe
// they are exported from the default image when it is present and
// current, which saves a debootstrap; else debootstrap installs them.
func baseRootfs(ctx context.Context, cli *client.Client, dir string, src Source, opts Options) error {
	if opts.Recipe.Key != Python.Key {
		if ok, err := current(ctx, cli, Python.Ref(), Python.Hash()); err == nil && ok {
			fmt.Fprintf(opts.Progress, "start from %s's files\n", Python.Ref())
			return exportImage(ctx, cli, Python.Ref(), dir)
		}
	}
	fmt.Fprintf(opts.Progress, "debootstrap %s from %s\n", src.Suite, src.URI)
	cmd := exec.CommandContext(ctx, "debootstrap", "--variant=minbase", "--include="+joinComma(Python.Packages), src.Suite, dir, src.URI)
	cmd.Stdout, cmd.Stderr = opts.Progress, opts.Progress
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("debootstrap %s: %w", src.Suite, err)
	}
	return nil
}

// exportImage unpacks the files of image ref into dir, as root with their
// owners, through a container that never starts.
func exportImage(ctx context.Context, cli *client.Client, ref, dir string) error {
	c, err := cli.ContainerCreate(ctx, &container.Config{Image: ref, Cmd: []string{"true"}}, nil, nil, nil, "")
	if err != nil {
		return fmt.Errorf("export %s: %w", ref, err)
	}
	defer cli.ContainerRemove(context.WithoutCancel(ctx), c.ID, container.RemoveOptions{Force: true}) //nolint:errcheck // best effort
	rc, err := cli.ContainerExport(ctx, c.ID)
	if err != nil {
		return fmt.Errorf("export %s: %w", ref, err)
	}
	defer rc.Close()
	var tarErr bytes.Buffer
	cmd := exec.CommandContext(ctx, "tar", "--numeric-owner", "-C", dir, "-x")
	cmd.Stdin, cmd.Stderr = rc, &tarErr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("export %s: %w: %s", ref, err, tarErr.String())
	}
	return nil
}

// finishRootfs installs the recipe's packages beyond the default image's,
// writes its files and runs its set-up, all in a chroot of dir.
func finishRootfs(ctx context.Context, dir string, opts Options) error {
	r := opts.Recipe
	var extra []string
	for _, p := range r.Packages {
		if !slices.Contains(Python.Packages, p) {
			extra = append(extra, p)
		}
	}
	var install []string
	if len(extra) > 0 {
		// The chroot gets the host's release with its updates and
		// security archives (debootstrap wrote only the release).
		sources, err := HostSources()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "etc/apt/sources.list"), []byte(strings.Join(sources, "\n")+"\n"), 0o644); err != nil {
			return err
		}
		install = []string{"apt-get update", "apt-get install -y --no-install-recommends " + strings.Join(extra, " ")}
	}
	if len(install)+len(r.Setup)+len(r.Files)+len(r.Archives) == 0 {
		return nil
	}
	// apt-get needs the host's name servers, and some maintainer scripts
	// a /proc.
	resolv, err := os.ReadFile("/etc/resolv.conf")
	if err != nil {
		return fmt.Errorf("read the host's resolv.conf: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "etc/resolv.conf"), resolv, 0o644); err != nil {
		return err
	}
	proc := filepath.Join(dir, "proc")
	if out, err := exec.CommandContext(ctx, "mount", "-t", "proc", "proc", proc).CombinedOutput(); err != nil {
		return fmt.Errorf("mount /proc in the chroot: %w: %s", err, out)
	}
	defer exec.Command("umount", "-l", proc).Run() //nolint:errcheck // best effort; the folder is removed next
	env := append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "HOME=/root",
		"DEBIAN_FRONTEND=noninteractive"}, r.Env...)
	if err := chroot(ctx, dir, env, install, opts.Progress); err != nil {
		return err
	}
	if err := writeFiles(dir, r); err != nil {
		return err
	}
	for _, a := range r.Archives {
		fmt.Fprintf(opts.Progress, "unpack %s into %s\n", a.URL, a.Dest)
		if err := a.unpack(ctx, dir); err != nil {
			return err
		}
	}
	if err := chroot(ctx, dir, env, r.Setup, opts.Progress); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "etc/resolv.conf"), nil, 0o644)
}

// writeFiles writes the recipe's files into the root filesystem at dir,
// through an os.Root: a link the packages made is followed only within
// dir, never onto the host.
func writeFiles(dir string, r Recipe) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, p := range r.paths() {
		name := strings.TrimPrefix(p, "/")
		if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		if err := root.WriteFile(name, []byte(r.Files[p]), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

// chroot runs each step with /bin/sh in a chroot of dir.
func chroot(ctx context.Context, dir string, env, steps []string, progress io.Writer) error {
	for _, step := range steps {
		fmt.Fprintf(progress, "chroot: %s\n", step)
		cmd := exec.CommandContext(ctx, "chroot", dir, "/bin/sh", "-c", step)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, progress, progress
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w", step, err)
		}
	}
	return nil
}

func clearDir(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		_ = os.RemoveAll(dir + "/" + e.Name())
	}
}

func joinComma(items []string) string {
	var b bytes.Buffer
	for i, s := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s)
	}
	return b.String()
}
