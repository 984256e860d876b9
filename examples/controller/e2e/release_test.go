package e2e_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// upgradeFrom is the commit TestUpgrade upgrades from and
// TestCRDChangesAdditive compares with: the last released state of main.
// Move it on at each release, to the commit the release was cut from.
const upgradeFrom = "a79262b78a336236d970c4572379c01b1d767842"

// envSkipUpgrade, set, skips the tests that need upgradeFrom where the
// clone does not have it (a shallow clone). Without it they fail there:
// CI clones are full clones.
const envSkipUpgrade = "ROLLOUTKIT_SKIP_UPGRADE"

// release is the tree of upgradeFrom, extracted from the clone with git
// archive, and its controller binary, both cached under
// $HOME/.cache/rolloutkit/upgrade-from/<commit> (or $ROLLOUTKIT_CACHE):
// a warm run neither extracts nor builds them again.
type release struct {
	dir string // the cache directory of the commit
}

// earlierRelease returns upgradeFrom's tree, extracting it on the first
// call on a machine. The commit must be an ancestor of HEAD; a clone
// without it fails the test (skips it with envSkipUpgrade set).
func earlierRelease(t testing.TB) release {
	t.Helper()
	r := release{dir: filepath.Join(cacheDir(t), "upgrade-from", upgradeFrom)}
	root := repoRoot(t)
	if err := exec.Command("git", "-C", root, "cat-file", "-e", upgradeFrom+"^{commit}").Run(); err != nil {
		if os.Getenv(envSkipUpgrade) != "" {
			t.Skipf("SKIP (%s is set): the clone at %s has no commit %s", envSkipUpgrade, root, upgradeFrom)
		}
		t.Fatalf("the clone at %s has no commit %s, the release the upgrade starts from (a shallow clone? git fetch --unshallow, or set %s=1 to skip): %v",
			root, upgradeFrom, envSkipUpgrade, err)
	}
	if err := exec.Command("git", "-C", root, "merge-base", "--is-ancestor", upgradeFrom, "HEAD").Run(); err != nil {
		t.Fatalf("commit %s is not an ancestor of HEAD: the upgrade must start from a release of this history", upgradeFrom)
	}
	if _, err := os.Stat(r.tree()); err == nil {
		return r
	}
	require.NoError(t, os.MkdirAll(r.dir, 0o755))
	tmp, err := os.MkdirTemp(r.dir, "tree-")
	require.NoError(t, err)
	defer os.RemoveAll(tmp)
	archive := exec.Command("git", "-C", root, "archive", "--format=tar", upgradeFrom)
	untar := exec.Command("tar", "-x", "-C", tmp)
	var archiveErr, untarErr bytes.Buffer
	archive.Stderr, untar.Stderr = &archiveErr, &untarErr
	untar.Stdin, err = archive.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, untar.Start())
	require.NoError(t, archive.Run(), "git archive %s: %s", upgradeFrom, &archiveErr)
	require.NoError(t, untar.Wait(), "extracting git archive %s: %s", upgradeFrom, &untarErr)
	// Another test may have renamed its own copy into place meanwhile.
	if err := os.Rename(tmp, r.tree()); err != nil && !errors.Is(err, os.ErrExist) {
		if _, statErr := os.Stat(r.tree()); statErr != nil {
			require.NoError(t, err)
		}
	}
	return r
}

// tree is the directory of the commit's files.
func (r release) tree() string { return filepath.Join(r.dir, "tree") }

// config is the commit's examples/controller/config/<dir>.
func (r release) config(dir string) string {
	return filepath.Join(r.tree(), "examples", "controller", "config", dir)
}

// binary returns the commit's controller binary, built with go build in
// its tree (its own go.mod and go.sum, through the module cache) at the
// first call on a machine.
func (r release) binary(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(r.dir, "controller")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	tmp := fmt.Sprintf("%s.%d", bin, os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, ".")
	cmd.Dir = filepath.Join(r.tree(), "examples", "controller")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build the controller of %s: %s", upgradeFrom, out)
	require.NoError(t, os.Rename(tmp, bin))
	return bin
}

// cacheDir is where the tests cache what they build: $ROLLOUTKIT_CACHE,
// else $HOME/.cache/rolloutkit, as hack/test-apiserver.sh does.
func cacheDir(t testing.TB) string {
	t.Helper()
	if c := os.Getenv("ROLLOUTKIT_CACHE"); c != "" {
		return c
	}
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	return filepath.Join(home, ".cache", "rolloutkit")
}

// repoRoot is the top of the clone the tests run in.
func repoRoot(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	require.NoError(t, err, "git rev-parse --show-toplevel: the tests need the git clone they run in")
	return strings.TrimSpace(string(out))
}
