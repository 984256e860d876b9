package e2e_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// controllerBinary is the controller compiled once for the package's tests
// that run it as a process of its own (TestChaos's seeds,
// TestLeaderFailover, TestAPIServerOutage), as a Deployment runs it. A go
// build of each links it again; on a fresh machine several at once would
// each compile its dependencies too.
type controllerBinary struct {
	once sync.Once
	dir  string // removed by TestMain
	path string
	err  error
}

// get returns the binary's path, building it at the first call.
func (b *controllerBinary) get(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "rolloutkit-e2e-controller-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "controller")
		cmd := exec.Command("go", "build", "-o", b.path, ".")
		cmd.Dir = ".." // the controller module's root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build the controller: %w: %s", err, out)
		}
	})
	require.NoError(t, b.err)
	return b.path
}

// remove removes the binary, if a test built it.
func (b *controllerBinary) remove() error {
	if b.dir == "" {
		return nil
	}
	return os.RemoveAll(b.dir)
}

// suite is what the package's tests share: the shared hub (sharedEnv) and
// the compiled controller. TestMain releases both once every test has run.
type suite struct {
	hub        sharedHub
	controller controllerBinary
}

// release stops the shared hub and removes the controller binary.
func (s *suite) release() error {
	return errors.Join(s.hub.stop(), s.controller.remove())
}
