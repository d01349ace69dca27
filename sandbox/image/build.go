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

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/jsonmessage"
)

// baseImage is the registry image the Dockerfile starts from.
const baseImage = "debian:bookworm-slim"

// Options control Build.
type Options struct {
	Ref      string    // image reference to build; empty means Default()
	Rebuild  bool      // build even when the image is present
	Progress io.Writer // receives build output; nil discards it
	// Offline skips the registry and builds with debootstrap at once.
	Offline bool
}

// Build makes sure the default sandbox image exists and says how.
func Build(ctx context.Context, cli *client.Client, opts Options) (Method, error) {
	if opts.Ref == "" {
		opts.Ref = Default()
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	if !opts.Rebuild {
		ok, err := current(ctx, cli, opts.Ref)
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

// current reports whether ref exists and was built from this recipe.
func current(ctx context.Context, cli *client.Client, ref string) (bool, error) {
	info, err := cli.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inspect %s: %w", ref, err)
	}
	return info.Config != nil && info.Config.Labels[LabelRecipe] == RecipeHash(), nil
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
	var buildContext bytes.Buffer
	tw := tar.NewWriter(&buildContext)
	df := []byte(Dockerfile())
	if err := tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(df))}); err != nil {
		return err
	}
	if _, err := tw.Write(df); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	resp, err := cli.ImageBuild(ctx, &buildContext, build.ImageBuildOptions{
		Tags:        []string{opts.Ref},
		Labels:      map[string]string{LabelRecipe: RecipeHash()},
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

// buildWithDebootstrap installs a minimal Debian with Packages into a
// temporary folder, using the host's own mirror, and imports it.
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

	fmt.Fprintf(opts.Progress, "debootstrap %s from %s\n", src.Suite, src.URI)
	cmd := exec.CommandContext(ctx, "debootstrap", "--variant=minbase", "--include="+joinComma(Packages), src.Suite, dir, src.URI)
	cmd.Stdout, cmd.Stderr = opts.Progress, opts.Progress
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("debootstrap %s: %w", src.Suite, err)
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
	rc, err := cli.ImageImport(ctx, image.ImportSource{Source: tarOut, SourceName: "-"}, opts.Ref, image.ImportOptions{
		Changes: []string{
			"ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"ENV LANG=C.UTF-8",
			"LABEL " + LabelRecipe + "=" + RecipeHash(),
			"CMD " + string(cmdJSON),
		},
	})
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
