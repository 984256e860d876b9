package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	simulated "github.com/rolloutkit/rolloutkit/examples/controller/agent"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// padBytes is the size of each of the two ConfigMaps a chartAddon with pad
// renders beside its Deployment: addon-framework v1.2.0 splits manifests
// over 500 KiB into works of their own, so each cluster has two works.
const padBytes = 300 << 10

// TestRenderingDuringConfigRollout: the config changes (image B) and,
// while its rollout is at stg (dev soaked, stg applied and soaking), the
// agent chart changes too (addon-framework's manager restarted with two
// replicas): an add-on of two works per cluster, rendered by name. The new
// rendering joins the config change as one revision (ConfigAndRendering)
// that starts again from dev: dev's and stg's works take the two replicas
// in turn, each after the group before soaked them, and prod is handed B
// and takes it with the two replicas together, only after stg soaked them:
// prod's work never carries B with one replica.
//
// Prod needs an approval once the install is done, so that the chart
// changes while prod has not been handed B however slowly the machine
// runs: with only stg's soak between them, a loaded run could hand prod B
// before the second manager rendered, and then prod rightly takes B with
// one replica. The approval is given for the revision prod then waits at.
func TestRenderingDuringConfigRollout(t *testing.T) {
	t.Parallel()
	const soakFor = 6 * time.Second
	e := newEnv(t)
	// a deadline of 2 minutes: a held work's manager retries on its rate
	// limiter's back-off, which on a loaded CI machine took a released
	// dev past 60 s (the group then breached, and went on once dev was
	// done); the deadline is not what this test is about
	o := e.seed(t, testhub.SeedOptions{Strategy: testhub.Strategy(soakFor.String(), "120s", 0)})
	hashA, hashB := specHash(t, testhub.Image), specHash(t, newImage)
	e.gatedController(t)
	e.workAgents(t, applyTime, nil)
	v1 := e.runManager(t, &chartAddon{c: e.c, name: addonName, replicas: 1, pad: padBytes})
	require.NoError(t, e.c.Create(context.Background(), &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addonName}}))
	e.installed(t, o, addonName, hashA, 180*time.Second)
	for _, c := range o.Clusters() {
		require.Len(t, e.rawWorks(t, c), 2, "%s: the rendering is split over two works", c)
	}
	seen := e.watchRenderings(t)
	ctx := context.Background()
	var ar v1alpha1.AddOnRollout
	require.NoError(t, e.c.Get(ctx, types.NamespacedName{Name: addonName}, &ar))
	before := ar.DeepCopy()
	ar.Spec.ApprovalRequired = []string{"prod"}
	require.NoError(t, e.c.Patch(ctx, &ar, client.MergeFrom(before)))

	e.setAgentImage(t, newImage)
	// 3 minutes: when the install's last work landed after its add-on
	// applied (addon-framework packs a work refused at its first create
	// anew), the gate held it as a new rendering, and B joins that
	// rendering revision from dev, whose release settles first.
	c := &controlled{env: e, o: o}
	waitFor(t, 180*time.Second, "stg applied B and prod waits for an approval: the config rollout is at stg", func(ct *assert.CollectT) {
		assert.Equal(ct, hashB, e.addon(ct, "stg-cluster", addonName).applied)
		g, _ := c.group(ct, "prod")
		assert.Equal(ct, "Approval", g.WaitsFor, "%+v", g)
	})
	assert.Equal(t, hashA, e.addon(t, "prod-cluster", addonName).desired, "prod was handed B before the chart changed")
	v1.stop()
	e.runManager(t, &chartAddon{c: e.c, name: addonName, replicas: 2, pad: padBytes})

	kinds := e.watchKinds(t)
	waitFor(t, 300*time.Second, "prod waits for an approval of B with the new rendering", func(ct *assert.CollectT) {
		assert.Contains(ct, kinds.seen(), hubplan.KindConfigAndRendering, "the rendering has not joined the config change")
		assert.False(ct, seen.at("stg-cluster", 2).IsZero(), "stg's work has not two replicas")
		g, _ := c.group(ct, "prod")
		assert.Equal(ct, "Approval", g.WaitsFor, "%+v", g)
	})
	assert.True(t, seen.at("prod-cluster", 2).IsZero(), "prod's work took the new rendering before its approval")
	pending := c.rollout(t).Status.PendingApprovals
	require.Len(t, pending, 1, "%+v", pending)
	require.NoError(t, e.c.Create(ctx, &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "prod-b"},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: addonName, Placement: pending[0].Placement, Group: "prod", Revision: pending[0].Revision}}))
	e.installed(t, o, addonName, hashB, 180*time.Second)
	// the order first, so that a rendering that leaked is named as such
	// even when the rollout then cannot complete
	waitFor(t, 60*time.Second, "every work has two replicas", func(ct *assert.CollectT) {
		for _, c := range o.Clusters() {
			assert.False(ct, seen.at(c, 2).IsZero(), "%s's work has not two replicas", c)
		}
	})
	e.requireInOrder(t, seen, 2, soakFor, "dev-cluster", "stg-cluster", "prod-cluster")
	assert.Contains(t, kinds.seen(), hubplan.KindConfigAndRendering, "the rendering never joined the config change")
	assert.Equal(t, []string{testhub.Image}, seen.images("prod-cluster", 1), "prod's work carried B before stg soaked the new rendering")
	assert.Equal(t, []string{newImage}, seen.images("prod-cluster", 2), "prod took B and the new rendering together")
	e.waitCompleted(t, 60*time.Second)
	t.Logf("two replicas: dev %s, stg %s, prod %s", seen.at("dev-cluster", 2).Format(time.TimeOnly),
		seen.at("stg-cluster", 2).Format(time.TimeOnly), seen.at("prod-cluster", 2).Format(time.TimeOnly))
}

// TestRenderingSuperseded: a new chart (two replicas) rolls out as a
// rendering revision; once stg took it, and before prod's turn, a second
// chart (three replicas) arrives. The gate holds the second rendering on
// dev, which took the first: a new revision opens in its place and starts
// again from dev. Three replicas reach dev, stg and prod in order, each
// after the group before soaked them, and prod never takes the first
// chart's two.
func TestRenderingSuperseded(t *testing.T) {
	t.Parallel()
	const soakFor = 10 * time.Second
	e := newEnv(t)
	o := e.seed(t, testhub.SeedOptions{Strategy: testhub.Strategy(soakFor.String(), "60s", 0)})
	hashA := specHash(t, testhub.Image)
	e.gatedController(t)
	e.workAgents(t, applyTime, nil)
	m := e.runManager(t, &chartAddon{c: e.c, name: addonName, replicas: 1})
	require.NoError(t, e.c.Create(context.Background(), &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addonName}}))
	e.installed(t, o, addonName, hashA, 120*time.Second)
	seen := e.watchRenderings(t)

	m.stop()
	m = e.runManager(t, &chartAddon{c: e.c, name: addonName, replicas: 2})
	waitFor(t, 90*time.Second, "stg took the first chart", func(ct *assert.CollectT) {
		assert.False(ct, seen.at("stg-cluster", 2).IsZero())
	})
	first := e.renderingRevision(t)
	m.stop()
	e.runManager(t, &chartAddon{c: e.c, name: addonName, replicas: 3})

	waitFor(t, 120*time.Second, "every work has three replicas", func(ct *assert.CollectT) {
		for _, c := range o.Clusters() {
			assert.False(ct, seen.at(c, 3).IsZero(), "%s's work has not three replicas", c)
		}
	})
	e.requireInOrder(t, seen, 3, soakFor, "dev-cluster", "stg-cluster", "prod-cluster")
	e.waitCompleted(t, 60*time.Second)
	second := e.renderingRevision(t)
	assert.NotEqual(t, first, second, "the second chart rolled out under the first's revision")
	assert.True(t, seen.at("prod-cluster", 2).IsZero(), "prod took the superseded chart")
	assert.True(t, seen.at("stg-cluster", 3).After(seen.at("dev-cluster", 3)), "stg took the second chart before dev")
	for _, c := range o.Clusters() {
		assert.Equal(t, []int32{3}, e.works(t, addonName)[c].replicas, c)
	}
	t.Logf("revisions %s then %s; three replicas: dev %s, stg %s, prod %s", first, second, seen.at("dev-cluster", 3).Format(time.TimeOnly),
		seen.at("stg-cluster", 3).Format(time.TimeOnly), seen.at("prod-cluster", 3).Format(time.TimeOnly))
	assert.False(t, slices.Contains(seen.images("prod-cluster", 2), testhub.Image))
}

// TestRenderingDoneByWorks: a rendering-only change (one agent replica to
// two) rolls out to a stg group of three clusters under a 30 s deadline,
// once with addon-framework v1.2.0's manager, which reports ManifestApplied
// from the work's Applied condition, and once with a manager that reports
// it from its own writes (True on every write that lands). Either way a
// released cluster is done once its works took the new content and are
// Applied and Available: no cluster times out, no group breaches, and the
// revision completes with every work at two replicas.
func TestRenderingDoneByWorks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		start func(e *env, t *testing.T, replicas int32) (stop func())
	}{
		{name: "from the work's status", start: func(e *env, t *testing.T, replicas int32) func() {
			return e.runManager(t, &chartAddon{c: e.c, name: addonName, replicas: replicas}).stop
		}},
		{name: "from its writes", start: func(e *env, t *testing.T, replicas int32) func() {
			return e.start(t, func(mgr ctrl.Manager) error {
				return (&simulated.Deployer{Client: mgr.GetClient(), Mapper: mgr.GetRESTMapper(), Version: hubclient.V1alpha1, ByName: true,
					ConfigKinds: []schema.GroupVersionKind{simulated.ProxyConfigKind()}, AppliedFromWrites: true, Replicas: replicas}).SetupWithManager(mgr)
			}).cancel
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			o := e.seed(t, testhub.SeedOptions{Sizes: [3]int{1, 3, 1}, Strategy: testhub.Strategy(soak.String(), "30s", 0)})
			h := specHash(t, testhub.Image)
			e.gatedController(t)
			e.workAgents(t, applyTime, nil)
			stop := tc.start(e, t, 1)
			require.NoError(t, e.c.Create(context.Background(), &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addonName}}))
			e.installed(t, o, addonName, h, 120*time.Second)
			seen := e.watchRenderings(t)
			trouble := e.watchTrouble(t)

			stop()
			tc.start(e, t, 2)
			waitFor(t, 120*time.Second, "every work has two replicas, and the AddOnRollout says complete", func(ct *assert.CollectT) {
				for _, c := range o.Clusters() {
					assert.False(ct, seen.at(c, 2).IsZero(), "%s's work has not two replicas", c)
				}
				c := meta.FindStatusCondition(e.rolloutStatus(ct).Conditions, hubplan.ConditionProgressing)
				require.NotNil(ct, c)
				assert.Equal(ct, hubplan.ReasonCompleted, c.Reason, "%+v", c)
				assert.NotEmpty(ct, e.rolloutStatus(ct).Placements[0].Rendering)
			})
			assert.Empty(t, trouble.seen(), "a cluster timed out or a group breached")
			e.requireInOrder(t, seen, 2, soak, "dev-0001", "stg-0001", "prod-0001")
		})
	}
}

// trouble records what the AddOnRollout's status ever said: the groups
// timed out or breached (watchTrouble), the kinds of revision
// (watchKinds).
type trouble struct {
	mu   sync.Mutex
	list []string
}

func (tr *trouble) seen() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return slices.Clone(tr.list)
}

// watchTrouble polls the AddOnRollout's status every 100ms until the test
// ends, recording each group that has a cluster timed out or breached.
func (e *env) watchTrouble(t testing.TB) *trouble {
	t.Helper()
	tr := &trouble{}
	e.watchStatus(t, func(ps v1alpha1.PlacementStatus) []string {
		var out []string
		for _, g := range ps.Groups {
			if g.Counts.TimedOut > 0 || g.Phase == "Breached" {
				out = append(out, fmt.Sprintf("revision %s group %s: %s %+v", ps.Revision, g.Name, g.Phase, g.Counts))
			}
		}
		return out
	}, tr)
	return tr
}

// watchKinds records, every 100ms until the test ends, the kinds of
// revision the AddOnRollout's status shows, each once.
func (e *env) watchKinds(t testing.TB) *trouble {
	t.Helper()
	kinds := &trouble{}
	e.watchStatus(t, func(ps v1alpha1.PlacementStatus) []string { return []string{ps.Kind} }, kinds)
	return kinds
}

// watchStatus polls the AddOnRollout's status every 100ms until the test
// ends, and records in into what seen says of each placement's status,
// each once.
func (e *env) watchStatus(t testing.TB, seen func(v1alpha1.PlacementStatus) []string, into *trouble) {
	t.Helper()
	pollUntilEnd(t, poll, func(ctx context.Context) {
		var ar v1alpha1.AddOnRollout
		if err := e.c.Get(ctx, types.NamespacedName{Name: e.addonName}, &ar); err != nil {
			return
		}
		into.mu.Lock()
		defer into.mu.Unlock()
		for _, ps := range ar.Status.Placements {
			for _, s := range seen(ps) {
				if !slices.Contains(into.list, s) {
					into.list = append(into.list, s)
				}
			}
		}
	})
}

// waitCompleted waits up to d for the AddOnRollout to say its rollout is
// complete.
func (e *env) waitCompleted(t *testing.T, d time.Duration) {
	t.Helper()
	waitFor(t, d, "the AddOnRollout says complete", func(ct *assert.CollectT) {
		c := meta.FindStatusCondition(e.rolloutStatus(ct).Conditions, hubplan.ConditionProgressing)
		require.NotNil(ct, c)
		assert.Equal(ct, hubplan.ReasonCompleted, c.Reason, "%+v", c)
	})
}
