package testhub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ControllerManager is the binary, beside etcd and kube-apiserver in
// Assets' directory, that runs the garbage collector.
const ControllerManager = "kube-controller-manager"

// gcReadyTimeout bounds how long StartGC waits for the garbage collector to
// collect its first object. Its informers list every resource the hub
// serves first: a few seconds on a test hub.
const gcReadyTimeout = 90 * time.Second

// ForTestWithGC is ForTest on a hub that also runs the garbage collector
// (StartGC), so that owner references cascade as on a real hub. The
// garbage collector is stopped before the hub. A missing
// kube-controller-manager skips the test as a missing API server does
// (fails it when EnvRequire is set).
func ForTestWithGC(t testing.TB) (*Hub, client.Client) {
	t.Helper()
	h, c := ForTest(t)
	if _, err := controllerManager(); err != nil {
		if os.Getenv(EnvRequire) != "" {
			t.Fatalf("%s is set and there is no %s: %v", EnvRequire, ControllerManager, err)
		}
		t.Skipf("SKIP (no %s): %v", ControllerManager, err)
	}
	began := time.Now()
	gc, err := h.StartGC()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("garbage collector (%s) collecting after %s", ControllerManager, time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := gc.Stop(); err != nil {
			t.Errorf("stopping the garbage collector: %v", err)
		}
	})
	return h, c
}

// GC is a kube-controller-manager that runs only the garbage collector
// against a hub.
type GC struct {
	cmd  *exec.Cmd
	dir  string
	log  string
	done chan struct{} // closed when the process has exited
	err  error         // how it exited, once done is closed
}

// controllerManager returns the path of kube-controller-manager in Assets'
// directory; the error says how to build it.
func controllerManager() (string, error) {
	dir, err := Assets()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, ControllerManager)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("no %s in %s: build it with hack/test-apiserver.sh (or set %s)", ControllerManager, dir, EnvAssets)
	}
	return path, nil
}

// StartGC starts kube-controller-manager with its garbage collector alone
// (--controllers=garbagecollector) against h, as an administrator
// (KubeConfig), with its own credentials rather than a ServiceAccount's
// per controller (the test hub runs no token controller), no leader
// election, and nothing served (--secure-port=0). It returns once the
// garbage collector has deleted a probe: a ConfigMap owned by one that was
// deleted. Stop it before the hub.
func (h *Hub) StartGC() (*GC, error) {
	bin, err := controllerManager()
	if err != nil {
		return nil, err
	}
	kubeconfig, err := h.KubeConfig()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "rolloutkit-gc-")
	if err != nil {
		return nil, err
	}
	g := &GC{dir: dir, log: filepath.Join(dir, "kube-controller-manager.log"), done: make(chan struct{})}
	if err := os.WriteFile(filepath.Join(dir, "kubeconfig"), kubeconfig, 0o600); err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	out, err := os.Create(g.log)
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	g.cmd = exec.Command(bin,
		"--kubeconfig="+filepath.Join(dir, "kubeconfig"),
		"--controllers=garbagecollector",
		"--use-service-account-credentials=false",
		"--leader-elect=false",
		"--secure-port=0",
		"--v=1",
	)
	g.cmd.Stdout, g.cmd.Stderr = out, out
	if err := g.cmd.Start(); err != nil {
		return nil, errors.Join(fmt.Errorf("starting %s: %w", ControllerManager, err), out.Close(), os.RemoveAll(dir))
	}
	go func() {
		g.err = g.cmd.Wait()
		_ = out.Close()
		close(g.done)
	}()
	c, err := h.Client()
	if err == nil {
		err = g.probe(c)
	}
	if err != nil {
		return nil, errors.Join(err, g.Stop())
	}
	return g, nil
}

// probe creates a ConfigMap owned by another, deletes the owner, and waits
// until the garbage collector has deleted the dependent.
func (g *GC) probe(c client.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), gcReadyTimeout)
	defer cancel()
	name := "rolloutkit-gc-probe-" + rand.String(5)
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: name}}
	if err := c.Create(ctx, owner); err != nil {
		return fmt.Errorf("garbage collector probe: %w", err)
	}
	dependent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: name + "-dependent",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: name, UID: owner.UID}}}}
	if err := c.Create(ctx, dependent); err != nil {
		return fmt.Errorf("garbage collector probe: %w", err)
	}
	if err := c.Delete(ctx, owner); err != nil {
		return fmt.Errorf("garbage collector probe: %w", err)
	}
	for {
		err := c.Get(ctx, types.NamespacedName{Namespace: dependent.Namespace, Name: dependent.Name}, &corev1.ConfigMap{})
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil && ctx.Err() == nil:
			return fmt.Errorf("garbage collector probe: %w", err)
		}
		select {
		case <-g.done:
			return fmt.Errorf("%s exited (%v) before it collected garbage: %s", ControllerManager, g.err, g.tail())
		case <-ctx.Done():
			return fmt.Errorf("%s collected no garbage within %s: %s", ControllerManager, gcReadyTimeout, g.tail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop stops kube-controller-manager (SIGTERM, then SIGKILL after 10
// seconds) and removes its files. A nil GC has nothing to stop.
func (g *GC) Stop() error {
	if g == nil {
		return nil
	}
	var err error
	select {
	case <-g.done:
	default:
		_ = g.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-g.done:
		case <-time.After(10 * time.Second):
			_ = g.cmd.Process.Kill()
			<-g.done
			err = fmt.Errorf("%s did not stop on SIGTERM within 10s: killed", ControllerManager)
		}
	}
	return errors.Join(err, os.RemoveAll(g.dir))
}

// tail returns the end of kube-controller-manager's log.
func (g *GC) tail() string {
	b, err := os.ReadFile(g.log)
	if err != nil {
		return err.Error()
	}
	const max = 4000
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(bytes.TrimSpace(b))
}
