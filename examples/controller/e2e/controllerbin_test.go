package e2e_test

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// controllerBinary is a command of the controller module compiled once
// for the package's tests: the controller, for those that run it as a
// process of its own (TestChaos's seeds, TestLeaderFailover,
// TestAPIServerOutage), as a Deployment runs it, and the plugin and the
// test hub for those that run them as a person does. A go build of each
// links it again (the plugin alone was linked by six tests); on a fresh
// machine several at once would each compile its dependencies too.
type controllerBinary struct {
	pkg  string // relative to the controller module's root; "" is "."
	once sync.Once
	dir  string // removed by TestMain
	path string
	err  error
}

// get returns the binary's path, building it at the first call.
func (b *controllerBinary) get(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "rolloutkit-e2e-bin-"); b.err != nil {
			return
		}
		pkg := cmp.Or(b.pkg, ".")
		b.path = filepath.Join(b.dir, filepath.Base(filepath.Clean(pkg)))
		if pkg == "." {
			b.path = filepath.Join(b.dir, "controller")
		}
		cmd := exec.Command("go", "build", "-o", b.path, pkg)
		cmd.Dir = ".." // the controller module's root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %w: %s", pkg, err, out)
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

// binaries are the commands other than the controller that tests build,
// by package, each once.
type binaries struct {
	mu    sync.Mutex
	byPkg map[string]*controllerBinary
}

// get returns the binary of pkg, building it at the first call for pkg.
func (bs *binaries) get(t testing.TB, pkg string) string {
	t.Helper()
	bs.mu.Lock()
	if bs.byPkg == nil {
		bs.byPkg = map[string]*controllerBinary{}
	}
	b, ok := bs.byPkg[pkg]
	if !ok {
		b = &controllerBinary{pkg: pkg}
		bs.byPkg[pkg] = b
	}
	bs.mu.Unlock()
	return b.get(t)
}

// remove removes every binary built.
func (bs *binaries) remove() error {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var errs []error
	for _, b := range bs.byPkg {
		errs = append(errs, b.remove())
	}
	return errors.Join(errs...)
}

// suite is what the package's tests share: the shared hub (sharedEnv) and
// the compiled commands. TestMain releases them once every test has run.
type suite struct {
	hub        sharedHub
	controller controllerBinary
	commands   binaries
}

// release stops the shared hub and removes the compiled commands.
func (s *suite) release() error {
	return errors.Join(s.hub.stop(), s.controller.remove(), s.commands.remove())
}
