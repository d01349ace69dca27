package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// TestCanceledCreateLeavesNoContainer ends a session's start after the
// engine made its container but before the answer naming it came back:
// the container is removed all the same. A proxy in front of the real
// engine cancels the start on the create answer and holds that answer
// back a moment, as a loaded machine does when a signal arrives.
func TestCanceledCreateLeavesNoContainer(t *testing.T) {
	eng := sandboxtest.Engine(t) // the engine and the image are there
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t.Setenv("DOCKER_HOST", delayedCreateProxy(t, eng.Info().Host, cancel))
	host := fmt.Sprintf("canceled-create-%d", time.Now().UnixNano())
	proxied := sandboxtest.EngineOnHost(t, host)

	spec := sandbox.Spec{Image: image.Default(), Workspace: t.TempDir(), Limits: sandbox.DefaultLimits()}
	s, err := proxied.NewSession(ctx, spec)
	if err == nil {
		s.Close()
		t.Fatal("the session started though its start was canceled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want one wrapping context.Canceled", err)
	}
	list, err := eng.Client().ContainerList(context.Background(), container.ListOptions{
		All: true, Filters: filters.NewArgs(filters.Arg("label", sandbox.LabelManaged+"=true")),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		if strings.HasPrefix(c.Labels[sandbox.LabelOwner], host+"/") {
			t.Errorf("container %.12s of the canceled start is left", c.ID)
		}
	}
}

// delayedCreateProxy serves the engine at daemon (a unix:// or tcp://
// address) over TCP; on each container-create answer it calls onCreate
// and waits a moment before passing the answer on. It returns the
// DOCKER_HOST that reaches it.
func delayedCreateProxy(t *testing.T, daemon string, onCreate func()) string {
	t.Helper()
	u, err := url.Parse(daemon)
	if err != nil {
		t.Fatal(err)
	}
	network, addr := u.Scheme, u.Host
	if network == "unix" {
		addr = u.Path
	}
	transport := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = "http", "docker"
		},
		Transport: transport,
		ModifyResponse: func(resp *http.Response) error {
			if resp.Request.Method == http.MethodPost && strings.HasSuffix(resp.Request.URL.Path, "/containers/create") {
				onCreate()
				time.Sleep(300 * time.Millisecond)
			}
			return nil
		},
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	t.Cleanup(transport.CloseIdleConnections)
	return "tcp://" + srv.Listener.Addr().String()
}
