package e2e_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// sharedHub is the one hub of the package that the tests needing no
// control plane of their own share, each under names of its own
// (sharedEnv). The first test that asks for it starts it; TestMain stops
// it once every test has run.
type sharedHub struct {
	once sync.Once
	hub  *testhub.Hub
	c    client.Client
	err  error // of the start, for every test that asks

	mu  sync.Mutex
	ids map[string]int // tenant id -> how many tests took it (-count=N)
}

// get returns the started hub and an uncached client of it, or skips the
// test as testhub.ForTest does when there is no test API server (fails it
// when testhub.EnvRequire is set).
func (s *sharedHub) get(t testing.TB) (*testhub.Hub, client.Client) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real kube-apiserver: not in -short mode")
	}
	if _, err := testhub.Assets(); err != nil {
		if os.Getenv(testhub.EnvRequire) != "" {
			t.Fatalf("%s is set and there is no test API server: %v", testhub.EnvRequire, err)
		}
		t.Skipf("SKIP (no test API server): %v", err)
	}
	s.once.Do(func() {
		if s.hub, s.err = testhub.Start(); s.err == nil {
			s.c, s.err = s.hub.Client()
		}
	})
	if s.err != nil {
		t.Fatalf("the shared hub: %v", s.err)
	}
	return s.hub, s.c
}

// claim returns id, or id-2, id-3... when a test of that id already ran
// on the hub (go test -count=N): the names of a test's objects are made
// from it, and objects outlive their test.
func (s *sharedHub) claim(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]int{}
	}
	s.ids[id]++
	if n := s.ids[id]; n > 1 {
		return fmt.Sprintf("%s-%d", id, n)
	}
	return id
}

// stop stops the hub if a test started it.
func (s *sharedHub) stop() error {
	if s.hub == nil {
		return nil
	}
	return s.hub.Stop()
}

// tenantID makes a test's name into a DNS label short enough to prefix
// the names of its clusters: TestSeedRollout is seedrollout. A longer one
// is cut, with a hash of the whole name in place of its end.
func tenantID(testName string) string {
	const limit = 24
	name := strings.TrimPrefix(testName, "Test")
	id := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return '-'
	}, name)
	id = strings.Trim(id, "-")
	if len(id) > limit {
		sum := sha256.Sum256([]byte(testName))
		id = fmt.Sprintf("%s-%x", strings.Trim(id[:limit-9], "-"), sum[:4])
	}
	return id
}

// sharedEnv gives the test the shared hub under names of its own
// (tenantNames): its seed (e.seed) and every manager it starts (e.start)
// see none of another test's namespaced objects, and its controllers take
// only its add-ons.
func sharedEnv(t testing.TB) *env {
	t.Helper()
	h, c := shared.hub.get(t)
	n := tenantNames(shared.hub.claim(tenantID(t.Name())))
	return &env{hub: h, c: c, names: n, scope: []string{n.namespace}}
}
