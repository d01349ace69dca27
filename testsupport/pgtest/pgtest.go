// Package pgtest connects tests to a real PostgreSQL server: a throwaway
// cluster per test binary, started on first use with Debian's server
// binaries (initdb, postgres) in a temporary directory, listening only on a
// private Unix socket, and stopped when the tests end. Each test gets a
// database of its own.
//
// initdb refuses to run as root, so a test binary running as root runs
// the cluster as the postgres user. Tests skip when no cluster can start
// on a developer's machine, and fail when the CI environment variable is
// set, so CI can never pass by skipping. scripts/ensure-postgres.sh
// installs the binaries.
//
// A package using it calls Main from its TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Main runs m's tests and stops the cluster, if one was started, before
// the binary exits.
func Main(m *testing.M) {
	code := m.Run()
	if c := started.Load(); c != nil {
		if err := c.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	os.Exit(code)
}

var (
	startOnce sync.Once
	started   atomic.Pointer[cluster]
	startErr  error
	databases atomic.Int64
)

// DSN returns the URL (postgres://...) of a new, empty database on the test
// binary's cluster, which it starts on first use. The database is dropped
// when the test ends.
func DSN(t testing.TB) string {
	t.Helper()
	startOnce.Do(func() {
		c, err := start(false)
		if err != nil {
			startErr = err
			return
		}
		started.Store(c)
	})
	c := started.Load()
	if c == nil {
		unavailable(t, startErr)
	}
	return c.database(t)
}

// database creates a new database on c, dropped after t ends, and returns
// its URL.
func (c *cluster) database(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test_%d_%d", os.Getpid(), databases.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// FILE_COPY copies the template's few files rather than logging each
	// of its pages: about half the time for a fresh database.
	if err := c.exec(ctx, "CREATE DATABASE "+name+" STRATEGY FILE_COPY"); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	// The drop runs in the background, so that the next test need not
	// wait for it; stop waits for every drop and reports their errors.
	t.Cleanup(func() {
		c.drops.Add(1)
		go func() {
			defer c.drops.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := c.exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
				c.dropErrs.Store(fmt.Errorf("drop %s: %w", name, err))
			}
		}()
	})
	return c.dsn(name)
}

// unavailable fails the test under CI and skips it elsewhere.
func unavailable(t testing.TB, why error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("PostgreSQL is required under CI: %v", why)
	}
	t.Skipf("no PostgreSQL cluster (run scripts/ensure-postgres.sh): %v", why)
}

// cluster is a running throwaway cluster.
type cluster struct {
	dir   string // holds data/, the socket and the log
	port  int
	bin   string              // the directory of initdb and postgres
	runAs *syscall.Credential // nil: the test's own user
	// durable keeps fsync on: commits reach the disk.
	durable bool

	server *exec.Cmd
	exited <-chan error // the server's Wait

	drops    sync.WaitGroup // the databases being dropped
	dropErrs atomic.Value   // the last drop's error
}

// start makes and starts a cluster in a new temporary directory.
func start(durable bool) (*cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "capsule-pgtest-")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, bin: bin, runAs: cred, durable: durable}
	if err := c.init(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

// init runs initdb, then the server, as the postgres user when the test
// runs as root. The server is the test binary's child, not pg_ctl's
// daemon, and is killed with it however it ends (a panic, a timeout),
// so that no cluster outlives its tests.
func (c *cluster) init() error {
	if c.runAs != nil {
		if err := os.Chown(c.dir, int(c.runAs.Uid), int(c.runAs.Gid)); err != nil {
			return err
		}
	}
	data := filepath.Join(c.dir, "data")
	if err := c.run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	c.port = port
	return c.serve()
}

// serve starts the server on the cluster's data and waits until it
// answers.
func (c *cluster) serve() error {
	data := filepath.Join(c.dir, "data")
	log, err := os.OpenFile(filepath.Join(c.dir, "log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	// No TCP: the socket in the private directory is the only way in.
	// Durability is not what tests are about, so fsync is off unless the
	// cluster is durable (for benchmarks).
	args := []string{"-D", data, "-k", c.dir, "-p", strconv.Itoa(c.port), "-c", "listen_addresses=", "-c", "max_connections=200"}
	if !c.durable {
		args = append(args, "-c", "fsync=off", "-c", "full_page_writes=off")
	}
	c.server = exec.Command(filepath.Join(c.bin, "postgres"), args...)
	c.server.Stdout, c.server.Stderr = log, log
	c.server.SysProcAttr = &syscall.SysProcAttr{Credential: c.runAs, Pdeathsig: syscall.SIGKILL}
	if err := c.server.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- c.server.Wait() }()
	c.exited = exited
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.exec(ctx, "SELECT 1")
		cancel()
		if err == nil {
			return nil
		}
		select {
		case werr := <-exited:
			return fmt.Errorf("postgres exited: %v: %s", werr, c.log())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.halt()
			return fmt.Errorf("postgres did not answer within 60s: %v: %s", err, c.log())
		}
	}
}

// stop waits for the databases being dropped, then stops the server and
// removes the cluster's directory.
func (c *cluster) stop() error {
	c.drops.Wait()
	dropErr, _ := c.dropErrs.Load().(error)
	return errors.Join(dropErr, c.halt(), os.RemoveAll(c.dir))
}

// halt stops the server at once (SIGQUIT: immediate shutdown, as a crash
// would), keeping its data.
func (c *cluster) halt() error {
	if c.server.Process.Signal(syscall.SIGQUIT) != nil {
		return nil // it has exited already
	}
	select {
	case <-c.exited:
		return nil
	case <-time.After(30 * time.Second):
		return errors.Join(errors.New("postgres did not stop within 30s"), c.server.Process.Kill())
	}
}

// log is the server's log so far.
func (c *cluster) log() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "log"))
	return string(b)
}

// run runs one of the server's programs as the cluster's user.
func (c *cluster) run(name string, args ...string) error {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	if c.runAs != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.runAs}
		cmd.Env = append(os.Environ(), "HOME="+c.dir)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", name, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// dsn is the URL of database name, on the cluster's socket.
func (c *cluster) dsn(name string) string {
	q := url.Values{"host": {c.dir}, "port": {strconv.Itoa(c.port)}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/" + name, RawQuery: q.Encode()}).String()
}

// exec runs one statement in the postgres database.
func (c *cluster) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, c.dsn("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	return nil
}

// binDir finds the directory of initdb and postgres: Debian's newest
// /usr/lib/postgresql/N/bin, else PATH.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	p, err := exec.LookPath("initdb")
	if err != nil {
		return "", errors.New("no initdb in /usr/lib/postgresql/*/bin or on PATH")
	}
	return filepath.Dir(p), nil
}

// version is the major version in a path /usr/lib/postgresql/N/bin.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// credential is the postgres user's, when the test runs as root; nil
// otherwise, as the cluster then runs as the test's own user.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, and initdb refuses root: %w", err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// freePort is a TCP port nobody listens on now. The cluster listens on
// no TCP port, but the port names its socket file, and a free one keeps
// clear of a system cluster's lock files.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
