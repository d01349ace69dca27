package sandbox

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/capsulehq/capsule/internal/version"
	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
)

// pingTimeout bounds the first contact with the engine.
const pingTimeout = 5 * time.Second

// cleanupTimeout bounds the removal of a container once its work is over,
// also when the caller's context is already cancelled.
const cleanupTimeout = 30 * time.Second

// Options configure an Engine.
type Options struct {
	// AgentPath is a static Linux build of the Capsule binary to run as the
	// in-container agent; empty means this executable (see AgentBinary).
	AgentPath string
	// Logger receives the engine's logs; nil means slog.Default().
	Logger *slog.Logger
	// Host names this host in the owner label of containers; empty means
	// the host's name. Processes of one host must agree on it.
	Host string
}

// Engine is a connection to a Docker engine that runs sandbox containers.
type Engine struct {
	cli    *client.Client
	log    *slog.Logger
	owner  owner
	agent  string
	info   EngineInfo
	mu     sync.Mutex
	active map[string]struct{} // IDs of containers not yet removed
}

// EngineInfo describes the engine that answered.
type EngineInfo struct {
	Host             string // where the client connects, e.g. unix:///var/run/docker.sock
	APIVersion       string // the API version negotiated with the engine
	ServerAPIVersion string // the newest API version the engine speaks
}

// Connect reaches the engine named by the environment (DOCKER_HOST and
// friends, like the docker CLI), negotiates the API version and removes
// containers left behind by Capsule processes that no longer exist.
func Connect(ctx context.Context, opts Options) (*Engine, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEngineUnreachable, err)
	}
	pctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	ping, err := cli.Ping(pctx)
	if err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w at %s: %w (is dockerd running, and may this user use its socket?)", ErrEngineUnreachable, cli.DaemonHost(), err)
	}
	cli.NegotiateAPIVersionPing(ping)
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	e := &Engine{
		cli:    cli,
		log:    log,
		owner:  currentOwner(opts.Host),
		agent:  opts.AgentPath,
		active: make(map[string]struct{}),
		info: EngineInfo{
			Host:             cli.DaemonHost(),
			APIVersion:       cli.ClientVersion(),
			ServerAPIVersion: ping.APIVersion,
		},
	}
	if _, err := e.RemoveLeftovers(ctx, nil); err != nil {
		log.Warn("could not remove leftover sandbox containers", "err", err)
	}
	return e, nil
}

// Info describes the engine.
func (e *Engine) Info() EngineInfo { return e.info }

// Ping checks that the engine still answers.
func (e *Engine) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if _, err := e.cli.Ping(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrEngineUnreachable, err)
	}
	return nil
}

// Close removes every container this engine still runs and closes the
// connection.
func (e *Engine) Close() error {
	e.mu.Lock()
	ids := make([]string, 0, len(e.active))
	for id := range e.active {
		ids = append(ids, id)
	}
	e.mu.Unlock()
	for _, id := range ids {
		e.remove(id)
	}
	return e.cli.Close()
}

// RemoveLeftovers removes the sandbox containers no one wants any more,
// and returns how many it removed: those whose owner process on this host
// has ended, and, when keep is not nil, those of a job (see WithJob) that
// keep says no longer runs under its replica's lease, whichever host
// started them. A replica of the App calls it at start and now and then,
// so that the sandboxes of a replica that died, here or on another host
// sharing the engine, are removed once its jobs are taken up or ended.
func (e *Engine) RemoveLeftovers(ctx context.Context, keep Keep) (int, error) {
	list, err := e.cli.ContainerList(ctx, container.ListOptions{
		All:     true,
		Filters: filters.NewArgs(filters.Arg("label", LabelManaged+"=true")),
	})
	if err != nil {
		return 0, fmt.Errorf("list sandbox containers: %w", err)
	}
	removed := 0
	for _, c := range list {
		why, err := e.unwanted(ctx, c.Labels, keep)
		if err != nil {
			return removed, fmt.Errorf("judge sandbox container %.12s: %w", c.ID, err)
		}
		if why == "" {
			continue
		}
		err = e.cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
		if err != nil && !cerrdefs.IsNotFound(err) {
			return removed, fmt.Errorf("remove leftover container %.12s: %w", c.ID, err)
		}
		e.log.Info("removed leftover sandbox container", "container", c.ID[:12], "owner", c.Labels[LabelOwner],
			"job", c.Labels[LabelJob], "replica", c.Labels[LabelReplica], "why", why)
		removed++
	}
	return removed, nil
}

// unwanted says why a container with labels is no longer wanted, or ""
// when it is (or cannot be judged).
func (e *Engine) unwanted(ctx context.Context, labels map[string]string, keep Keep) (string, error) {
	o, ok := parseOwner(labels[LabelOwner])
	switch {
	case !ok:
		return "no owner", nil
	case o.gone(e.owner):
		return "its process on this host ended", nil
	}
	j, ok := parseJob(labels)
	if !ok || keep == nil {
		return "", nil
	}
	wanted, err := keep(ctx, j)
	if err != nil || wanted {
		return "", err
	}
	return "its job no longer runs under its replica's lease", nil
}

// ImagePresent reports whether ref is in the engine's image store.
func (e *Engine) ImagePresent(ctx context.Context, ref string) (bool, error) {
	_, err := e.cli.ImageInspect(ctx, ref)
	switch {
	case err == nil:
		return true, nil
	case cerrdefs.IsNotFound(err):
		return false, nil
	default:
		return false, fmt.Errorf("inspect image %s: %w", ref, err)
	}
}

// EnsureImage makes sure ref is present. A missing image is pulled when
// pull is set; otherwise, or when the pull fails, the error wraps
// ErrImageNotFound.
func (e *Engine) EnsureImage(ctx context.Context, ref string, pull bool) error {
	ok, err := e.ImagePresent(ctx, ref)
	if err != nil || ok {
		return err
	}
	if !pull {
		return fmt.Errorf("%w: %s is not in the engine's image store", ErrImageNotFound, ref)
	}
	rc, err := e.cli.ImagePull(ctx, ref, image.PullOptions{})
	if err != nil {
		return fmt.Errorf("%w: %s is not present and pulling it failed: %w", ErrImageNotFound, ref, err)
	}
	defer rc.Close()
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return fmt.Errorf("%w: pull %s: %w", ErrImageNotFound, ref, err)
	}
	return nil
}

// Client exposes the Docker client for the image builder.
func (e *Engine) Client() *client.Client { return e.cli }

// labels are the labels of a container this engine creates, with the
// job's when ctx names one (WithJob).
func (e *Engine) labels(ctx context.Context) map[string]string {
	l := map[string]string{
		LabelManaged: "true",
		LabelOwner:   e.owner.String(),
		LabelVersion: version.Version,
	}
	if j, ok := jobOf(ctx); ok {
		j.addLabels(l)
	}
	return l
}

func (e *Engine) track(id string) {
	e.mu.Lock()
	e.active[id] = struct{}{}
	e.mu.Unlock()
}

// remove force-removes a container and its volumes, whatever state the
// caller's context is in.
func (e *Engine) remove(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	err := e.cli.ContainerRemove(ctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		e.log.Warn("could not remove sandbox container", "container", id[:12], "err", err)
		return
	}
	e.mu.Lock()
	delete(e.active, id)
	e.mu.Unlock()
}

// isNotFound reports whether err says an object does not exist.
func isNotFound(err error) bool {
	return cerrdefs.IsNotFound(err)
}

// Owned lists the IDs of the containers this process owns, running or not.
func (e *Engine) Owned(ctx context.Context) ([]string, error) {
	list, err := e.cli.ContainerList(ctx, container.ListOptions{
		All:     true,
		Filters: filters.NewArgs(filters.Arg("label", LabelOwner+"="+e.owner.String())),
	})
	if err != nil {
		return nil, fmt.Errorf("list sandbox containers: %w", err)
	}
	ids := make([]string, len(list))
	for i, c := range list {
		ids[i] = c.ID
	}
	return ids, nil
}
