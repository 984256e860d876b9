package sidebyside

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The environment variables the test hub reads (as examples/controller's
// testhub package does).
const (
	envAssets  = "KUBEBUILDER_ASSETS"
	envRequire = "ROLLOUTKIT_REQUIRE_APISERVER"
	envCache   = "ROLLOUTKIT_CACHE"
)

// assets returns the directory holding etcd and kube-apiserver, or an error
// saying how to build them.
func assets() (string, error) {
	dir := os.Getenv(envAssets)
	if dir == "" {
		base := os.Getenv(envCache)
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", err
			}
			base = filepath.Join(home, ".cache", "rolloutkit")
		}
		dir = filepath.Join(base, "k8s-v1.37.2", "bin")
	}
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return "", fmt.Errorf("no %s in %s: build the test API server with hack/test-apiserver.sh (or set %s)", b, dir, envAssets)
		}
	}
	return dir, nil
}

// needHub skips tb without the test API server (fails it when CI requires
// one) and in -short mode.
func needHub(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("needs a real kube-apiserver: not in -short mode")
	}
	dir, err := assets()
	if err != nil {
		if os.Getenv(envRequire) != "" {
			tb.Fatalf("%s is set and there is no test API server: %v", envRequire, err)
		}
		tb.Skipf("SKIP (no test API server): %v", err)
	}
	return dir
}

// binaries are the programs every side runs, built once per test binary.
type binaries struct {
	testhub, controller, ocm string
}

var (
	buildOnce sync.Once
	built     binaries
	buildErr  error
	buildDir  string
)

// TestMain removes the built programs after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// programs builds the hub, the rolloutkit controller and OCM's add-on
// manager, each from its own module, once.
func programs(tb testing.TB) binaries {
	tb.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "sidebyside-bin-")
		if buildErr != nil {
			return
		}
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			buildErr = err
			return
		}
		ctl := filepath.Join(root, "examples", "controller")
		b := binaries{
			testhub:    filepath.Join(buildDir, "testhub"),
			controller: filepath.Join(buildDir, "controller"),
			ocm:        filepath.Join(buildDir, "ocm-addon-manager"),
		}
		for _, s := range []struct{ dir, out, pkg string }{
			{ctl, b.testhub, "./cmd/testhub"},
			{ctl, b.controller, "."},
			{".", b.ocm, "./cmd/ocm-addon-manager"},
		} {
			cmd := exec.Command("go", "build", "-o", s.out, s.pkg)
			cmd.Dir = s.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s in %s: %w\n%s", s.pkg, s.dir, err, out)
				return
			}
		}
		built = b
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return built
}

// proc is a program the test started.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string // the file its output goes to
	done chan struct{}
	err  error // what Wait returned, once done is closed
	// group: the process leads a process group of its own, killed whole
	// when it does not stop.
	group bool
}

// start runs bin with args, its output going to a file in dir.
func start(tb testing.TB, dir, name, bin string, args ...string) *proc {
	tb.Helper()
	logPath := filepath.Join(dir, fmt.Sprintf("%s-%d.log", name, time.Now().UnixNano()))
	f, err := os.Create(logPath)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		tb.Fatalf("starting %s: %v", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	tb.Cleanup(func() { p.stop(tb) })
	return p
}

// stop ends p with SIGTERM (SIGKILL after 30s) and waits for it; stopping a
// stopped process does nothing.
func (p *proc) stop(tb testing.TB) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		tb.Logf("%s did not stop within 30s of SIGTERM: killing it", p.name)
		if p.group {
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		} else {
			_ = p.cmd.Process.Kill()
		}
		<-p.done
	}
}

// exited tells whether p has exited, and how.
func (p *proc) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// tail returns the last lines of p's output.
func (p *proc) tail(lines int) string {
	data, err := os.ReadFile(p.log)
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// usage is what /proc says a process used.
type usage struct {
	peakMiB    float64 // VmHWM
	cpuSeconds float64 // user + system
}

// procUsage reads a running process's peak resident memory and CPU time.
func procUsage(pid int) (usage, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return usage{}, err
	}
	status, err := p.NewStatus()
	if err != nil {
		return usage{}, err
	}
	stat, err := p.Stat()
	if err != nil {
		return usage{}, err
	}
	return usage{peakMiB: float64(status.VmHWM) / (1 << 20), cpuSeconds: stat.CPUTime()}, nil
}

// machineBusySeconds is the CPU time of the whole machine, all its cores,
// but for idle and iowait (and guest time, which user time counts).
func machineBusySeconds() (float64, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, err
	}
	s, err := fs.Stat()
	if err != nil {
		return 0, err
	}
	c := s.CPUTotal
	return c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal, nil
}

// childrenByName returns the child processes of pid by their command
// name.
func childrenByName(pid int) (map[string]int, error) {
	procs, err := procfs.AllProcs()
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, p := range procs {
		stat, err := p.Stat()
		if err != nil || stat.PPID != pid {
			continue // it ended, or it is not a child
		}
		out[stat.Comm] = p.PID
	}
	return out, nil
}

// TestProcReaders: the /proc readers the benchmark reports with, on this
// test's own process and a child it starts.
func TestProcReaders(t *testing.T) {
	t.Parallel()
	u, err := procUsage(os.Getpid())
	require.NoError(t, err)
	assert.Greater(t, u.peakMiB, 1.0, "a Go test binary's peak resident memory, in MiB")
	assert.GreaterOrEqual(t, u.cpuSeconds, 0.0)

	busy, err := machineBusySeconds()
	require.NoError(t, err)
	assert.Greater(t, busy, 0.0)

	sleep := exec.Command("sleep", "60")
	require.NoError(t, sleep.Start())
	t.Cleanup(func() {
		_ = sleep.Process.Kill()
		_ = sleep.Wait()
	})
	kids, err := childrenByName(os.Getpid())
	require.NoError(t, err)
	assert.Equal(t, sleep.Process.Pid, kids["sleep"], "children: %v", kids)
}

// freeAddr returns a free 127.0.0.1 address.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startHub starts the test hub program (OCM's CRDs, nothing seeded) and
// returns it with the kubeconfig it wrote, once it says it is running.
func startHub(tb testing.TB, bin binaries, dir string) (*proc, string) {
	tb.Helper()
	kubeconfig := filepath.Join(dir, "hub.kubeconfig")
	cmd := exec.Command(bin.testhub, "-kubeconfig", kubeconfig, "-seed=false")
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	logPath := filepath.Join(dir, "testhub.log")
	f, err := os.Create(logPath)
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = f
	// Its own process group: etcd and kube-apiserver are its children, and
	// a hub that does not stop is killed with them.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting the test hub: %v", err)
	}
	p := &proc{name: "testhub", cmd: cmd, log: logPath, done: make(chan struct{}), group: true}
	ready := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		signalled := false
		for sc.Scan() {
			fmt.Fprintln(f, sc.Text())
			if !signalled && strings.HasPrefix(sc.Text(), "hub running") {
				signalled = true
				close(ready)
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	go func() {
		<-read // Wait closes the pipe: read it to its end first
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	tb.Cleanup(func() { p.stop(tb) })
	select {
	case <-ready:
		return p, kubeconfig
	case <-p.done:
		tb.Fatalf("the test hub exited: %v\n%s", p.err, p.tail(30))
	case <-time.After(3 * time.Minute):
		tb.Fatalf("the test hub did not start within 3m:\n%s", p.tail(30))
	}
	return nil, ""
}
