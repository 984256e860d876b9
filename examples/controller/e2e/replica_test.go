package e2e_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// replicaPrefix begins the name of the user each controller process
// authenticates as: the audit log tells the processes apart by it.
const replicaPrefix = "rolloutkit-replica-"

// isReplica reports whether user is one of the controller processes.
func isReplica(user string) bool { return strings.HasPrefix(user, replicaPrefix) }

// leaseTiming is the leader election's timing, as the controller's flags
// set it.
type leaseTiming struct{ duration, renew, retry time.Duration }

func (l leaseTiming) flags() []string {
	return []string{"-leader-elect", "-leader-elect-lease-duration", l.duration.String(),
		"-leader-elect-renew-deadline", l.renew.String(), "-leader-elect-retry-period", l.retry.String()}
}

// failover bounds the time from a leader's death to another replica's
// taking the Lease: the lease duration, counted from when the candidate
// last saw the Lease renewed (up to one retry period, jittered by
// client-go's factor 1.2, after the renewal), then up to one more retry
// period until the candidate looks again, and two seconds for the
// candidate's own reads and write of the Lease on a loaded machine.
func (l leaseTiming) failover() time.Duration {
	return l.duration + 2*time.Duration(1.2*float64(l.retry)) + 2*time.Second
}

// pods plays a Deployment of the compiled controller: each replica is a
// process of its own, as a pod is, with a client certificate of its own
// (a user named replicaPrefix and a number, in system:masters), a probe
// address and a log file. Every replica gets the same flags.
type pods struct {
	e    *env
	bin  string
	args []string
	dir  string
	// tapped puts a tap between each replica and the API server.
	tapped bool

	mu  sync.Mutex
	n   int        // replicas named so far
	all []*replica // replicas started
}

// replica is one controller process.
type replica struct {
	user  string
	cmd   *exec.Cmd
	probe string // host:port of /healthz and /readyz
	log   string
	tap   *tap          // nil unless its pods are tapped
	done  chan struct{} // closed when the process has exited
	err   error         // how it exited, once done is closed

	killed atomic.Bool // by the test (kill), not by a crash
}

// newPods compiles nothing: bin is the controller binary (see binary).
// Every replica runs with args, after its own -kubeconfig and
// -health-probe-bind-address.
func (e *env) newPods(t *testing.T, bin string, args ...string) *pods {
	p := &pods{e: e, bin: bin, args: args, dir: t.TempDir()}
	t.Cleanup(func() { p.stopAll(t) })
	return p
}

// start starts one more replica and returns it at once.
func (p *pods) start(t *testing.T) *replica {
	t.Helper()
	r, err := p.launch()
	require.NoError(t, err)
	return r
}

// launch starts one more replica, as start does, from any goroutine.
func (p *pods) launch() (*replica, error) {
	p.mu.Lock()
	p.n++
	user := fmt.Sprintf("%s%d", replicaPrefix, p.n)
	p.mu.Unlock()
	r := &replica{user: user, log: filepath.Join(p.dir, user+".log"), done: make(chan struct{})}
	if err := r.run(p, user); err != nil {
		if r.tap != nil {
			r.tap.close()
		}
		return nil, fmt.Errorf("starting %s: %w", user, err)
	}
	p.mu.Lock()
	p.all = append(p.all, r)
	p.mu.Unlock()
	return r, nil
}

// run starts r's process (and its tap, for tapped pods).
func (r *replica) run(p *pods, user string) error {
	kc, err := p.e.hub.KubeConfigAs(user, "system:masters")
	if err == nil && p.tapped {
		kc, err = r.tapIn(kc)
	}
	if err != nil {
		return err
	}
	kubeconfig := filepath.Join(p.dir, user+".kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		return err
	}
	if r.probe, err = loopbackAddr(); err != nil {
		return err
	}
	logs, err := os.Create(r.log)
	if err != nil {
		return err
	}
	r.cmd = exec.Command(p.bin, append([]string{"-kubeconfig", kubeconfig, "-health-probe-bind-address", r.probe,
		"-lifecycle", testhub.Lifecycle, "-placements"}, p.args...)...)
	r.cmd.Stdout, r.cmd.Stderr = logs, logs
	if err := r.cmd.Start(); err != nil {
		logs.Close()
		return err
	}
	go func() {
		r.err = r.cmd.Wait()
		logs.Close()
		close(r.done)
	}()
	return nil
}

// tapIn starts r's tap, which reaches the API server with kc, and returns
// the kubeconfig that reaches it through the tap.
func (r *replica) tapIn(kc []byte) ([]byte, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
	if err != nil {
		return nil, err
	}
	if r.tap, err = newTap(cfg); err != nil {
		return nil, err
	}
	return r.tap.kubeconfig()
}

// loopbackAddr returns a free address on 127.0.0.1, as hubtest.FreeAddr does, from
// any goroutine.
func loopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// byUser returns the replica that authenticates as user, nil if none.
func (p *pods) byUser(user string) *replica {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.all {
		if r.user == user {
			return r
		}
	}
	return nil
}

// count returns how many replicas have been started.
func (p *pods) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.all)
}

// running returns the replicas whose process has not exited.
func (p *pods) running() []*replica {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*replica
	for _, r := range p.all {
		if !r.exited() {
			out = append(out, r)
		}
	}
	return out
}

// stopAll interrupts every replica still running and waits for it (kills
// it after 30s); on a failed test it logs the end of every replica's log.
func (p *pods) stopAll(t *testing.T) {
	p.mu.Lock()
	all := append([]*replica(nil), p.all...)
	p.mu.Unlock()
	for _, r := range all {
		if !r.exited() {
			_ = r.cmd.Process.Signal(os.Interrupt)
		}
	}
	for _, r := range all {
		select {
		case <-r.done:
		case <-time.After(30 * time.Second):
			_ = r.cmd.Process.Kill()
			<-r.done
		}
		if r.tap != nil {
			r.tap.close()
		}
		if t.Failed() {
			b, _ := os.ReadFile(r.log)
			t.Logf("%s (exit: %v) log:\n%s", r.user, r.err, tailOf(b, 6000))
		}
	}
}

// kill sends the process SIGKILL, as a node's failure or an OOM kill does
// to a pod, and waits until it has exited. It returns when the signal was
// sent.
func (r *replica) kill(t *testing.T) time.Time {
	t.Helper()
	at := time.Now()
	r.killed.Store(true)
	require.NoError(t, r.cmd.Process.Signal(syscall.SIGKILL))
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not exit within 30s of SIGKILL", r.user)
	}
	return at
}

// exited reports whether the process has exited.
func (r *replica) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// readyz returns the HTTP status of the replica's /readyz, 0 when nothing
// answers within 10s.
func (r *replica) readyz() int {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + r.probe + "/readyz")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
