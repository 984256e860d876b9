package realhub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The environment variables of the test API server, as
// internal/sidebyside and examples/controller's testhub read them.
const (
	// EnvAssets names the directory of etcd and kube-apiserver.
	EnvAssets = "KUBEBUILDER_ASSETS"
	// EnvRequire, set, fails a test that finds no API server.
	EnvRequire = "ROLLOUTKIT_REQUIRE_APISERVER"
	// EnvCache overrides ~/.cache/rolloutkit.
	EnvCache = "ROLLOUTKIT_CACHE"
)

// CacheDir is where hack/test-apiserver.sh caches what it builds:
// $ROLLOUTKIT_CACHE, else ~/.cache/rolloutkit.
func CacheDir() (string, error) {
	if dir := os.Getenv(EnvCache); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".cache", "rolloutkit"), nil
}

// APIServerAssets returns the directory holding etcd and kube-apiserver
// ($KUBEBUILDER_ASSETS, else hack/test-apiserver.sh's cache), or an error
// saying how to build them.
func APIServerAssets() (string, error) {
	dir := os.Getenv(EnvAssets)
	if dir == "" {
		cache, err := CacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(cache, "k8s-v1.37.2", "bin")
	}
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return "", fmt.Errorf("no %s in %s: build the test API server with hack/test-apiserver.sh (or set %s)", b, dir, EnvAssets)
		}
	}
	return dir, nil
}

// NeedAPIServer skips tb without the test API server (fails it when
// ROLLOUTKIT_REQUIRE_APISERVER is set, as CI sets it) and in -short mode,
// as internal/sidebyside does.
func NeedAPIServer(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("needs a real kube-apiserver: not in -short mode")
	}
	if _, err := APIServerAssets(); err != nil {
		if os.Getenv(EnvRequire) != "" {
			tb.Fatalf("%s is set and there is no test API server: %v", EnvRequire, err)
		}
		tb.Skipf("SKIP (no test API server): %v", err)
	}
}

// HubPrograms are the programs of examples/controller the test runs: the
// test hub (etcd and kube-apiserver with OCM's CRDs) and the rolloutkit
// controller.
type HubPrograms struct {
	// Testhub and Controller are the paths of the two programs.
	Testhub, Controller string
}

// BuildHubPrograms builds the test hub and the controller from their own
// module, examples/controller (../../examples/controller from the
// test's module, a sibling of this one). They are built into the cache
// (its directory name), where go build relinks them only when their code has
// changed (a link of both takes most of a minute on a busy 2-core
// machine), one test process at a time, then hard-linked (or copied) into
// dir, so that another process's rebuild never changes the files this
// test runs.
func BuildHubPrograms(tb testing.TB, dir, name string) HubPrograms {
	tb.Helper()
	cache, err := CacheDir()
	if err != nil {
		tb.Fatal(err)
	}
	bin := filepath.Join(cache, name)
	if err := os.MkdirAll(bin, 0o755); err != nil {
		tb.Fatal(err)
	}
	unlock, err := lockFile(filepath.Join(bin, ".lock"))
	if err != nil {
		tb.Fatal(err)
	}
	defer unlock()
	src, err := filepath.Abs(filepath.Join("..", "..", "examples", "controller"))
	if err != nil {
		tb.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), ".", "./cmd/testhub")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("go build . ./cmd/testhub in %s: %v\n%s", src, err, out)
	}
	p := HubPrograms{Testhub: filepath.Join(dir, "testhub"), Controller: filepath.Join(dir, "controller")}
	for _, f := range []string{p.Testhub, p.Controller} {
		if err := linkOrCopy(filepath.Join(bin, filepath.Base(f)), f); err != nil {
			tb.Fatal(err)
		}
	}
	return p
}

// lockFile takes an exclusive lock on the file path, made if missing, and
// returns what releases it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// linkOrCopy makes dst the file src: a hard link, or a copy where a link
// cannot be made (another file system).
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Process is a program the test started, its stdout and stderr each
// going to a file.
type Process struct {
	name           string
	cmd            *exec.Cmd
	stdout, stderr string // the files
	done           chan struct{}
	err            error // what Wait returned, once done is closed
	// group: the process leads a process group of its own (a test hub
	// and its etcd and kube-apiserver), killed whole if it does not stop.
	group bool
}

// StartProcess runs bin with args and the test's environment plus env,
// in the working directory wd (empty: the test's), its output going to
// files in dir, and stops it when the test ends.
func StartProcess(tb testing.TB, dir, wd, name string, env []string, group bool, bin string, args ...string) *Process {
	tb.Helper()
	p := &Process{name: name, done: make(chan struct{}), group: group,
		stdout: filepath.Join(dir, name+".stdout"), stderr: filepath.Join(dir, name+".stderr")}
	stdout, err := os.Create(p.stdout)
	if err != nil {
		tb.Fatal(err)
	}
	stderr, err := os.Create(p.stderr)
	if err != nil {
		stdout.Close()
		tb.Fatal(err)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = stdout, stderr
	p.cmd.Dir = wd
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: group}
	if err := p.cmd.Start(); err != nil {
		stdout.Close()
		stderr.Close()
		tb.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		stdout.Close()
		stderr.Close()
		close(p.done)
	}()
	tb.Cleanup(func() { p.Stop(tb) })
	return p
}

// stop ends p with SIGTERM (SIGKILL, of its group if it leads one, after
// 60s) and waits for it; stopping a stopped Process does nothing.
func (p *Process) Stop(tb testing.TB) {
	if p.Exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if p.Wait(60 * time.Second) {
		return
	}
	tb.Logf("%s did not stop within 60s of SIGTERM: killing it", p.name)
	if p.group {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	} else {
		_ = p.cmd.Process.Kill()
	}
	<-p.done
}

// Signal sends sig to the process (its own, not its group).
func (p *Process) Signal(sig os.Signal) error {
	return p.cmd.Process.Signal(sig)
}

// wait waits up to timeout for p to exit, and tells whether it has.
func (p *Process) Wait(timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// exited tells whether p has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitCode is p's exit code once it has exited: -1 if a signal ended it.
func (p *Process) ExitCode() int {
	<-p.done
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		return -1
	}
	return 0
}

// output returns what p has written so far to its stderr ("stderr") or
// stdout.
func (p *Process) Output(stream string) string {
	path := p.stdout
	if stream == "stderr" {
		path = p.stderr
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(data)
}

// describe names p and says whether it has exited, with the last lines of
// its stderr, for a failure message.
func (p *Process) Describe() string {
	state := "running"
	if p.Exited() {
		state = fmt.Sprintf("exited with code %d", p.ExitCode())
	}
	lines := strings.Split(strings.TrimRight(p.Output("stderr"), "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return fmt.Sprintf("%s (%s), the end of its stderr:\n%s", p.name, state, strings.Join(lines, "\n"))
}

// StartTestHub starts the test hub (etcd and kube-apiserver on 127.0.0.1
// with OCM's CRDs, nothing seeded) in the working directory wd (empty:
// the test's), stopped when the test ends, and returns it and its
// kubeconfig once it says it is running. The hub takes OCM's CRDs from
// the module of open-cluster-management.io/api that wd's module requires.
func StartTestHub(tb testing.TB, bin, dir, wd string) (*Process, string) {
	tb.Helper()
	kubeconfig := filepath.Join(dir, "hub.kubeconfig")
	h := StartProcess(tb, dir, wd, "testhub", nil, true, bin, "-kubeconfig", kubeconfig, "-seed=false")
	Poll(tb, 3*time.Minute, "the test hub to start", func() (bool, string, error) {
		if h.Exited() {
			return false, "", errors.New(h.Describe())
		}
		return strings.Contains(h.Output("stdout"), "hub running"), h.Describe(), nil
	})
	return h, kubeconfig
}

// Poll calls cond every 200ms until it is done, and fails tb, saying what
// it waited for and cond's last status, when cond returns an error or
// timeout has passed.
func Poll(tb testing.TB, timeout time.Duration, what string, cond func() (done bool, status string, err error)) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		done, status, err := cond()
		switch {
		case err != nil:
			tb.Fatalf("waiting for %s: %v", what, err)
		case done:
			return
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("%s did not happen within %s; last seen: %s", what, timeout, status)
		case <-tick.C:
		}
	}
}

// FreeAddr returns a 127.0.0.1 address with a port free now.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
