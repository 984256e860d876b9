package addon_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Progress of the seed's three clusters.
var (
	starting = addon.Progress{Selected: 3, Rolling: 1}
	halfway  = addon.Progress{Selected: 3, Rolling: 1, Succeeded: 1}
	finished = addon.Progress{Selected: 3, Succeeded: 3}
)

// progressing returns p's condition as set at since.
func progressing(p addon.Progress, since time.Time) metav1.Condition {
	c := p.Condition()
	c.LastTransitionTime = metav1.NewTime(since)
	return c
}

// proxyInstallConfig returns an install progression's config reference to
// a ManagedProxyConfiguration with the desired, last-applied and
// last-known-good spec hashes ("" for none).
func proxyInstallConfig(name, desired, applied, good string) addonv1beta1.InstallConfigReference {
	return addonv1beta1.InstallConfigReference{
		ConfigGroupResource: addontest.ProxyGR(),
		DesiredConfig:       specHash("", name, desired),
		LastAppliedConfig:   specHash("", name, applied),
		LastKnownGoodConfig: specHash("", name, good),
	}
}

// seedProgression returns the install progression of the seed's placement
// for the cluster-proxy config.
func seedProgression(desired, applied, good string, conds ...metav1.Condition) addonv1beta1.InstallProgression {
	return addonv1beta1.InstallProgression{
		PlacementRef:     addontest.SeedPlacement(),
		ConfigReferences: []addonv1beta1.InstallConfigReference{proxyInstallConfig("cluster-proxy", desired, applied, good)},
		Conditions:       conds,
	}
}

func cloneProgressions(ps []addonv1beta1.InstallProgression) []addonv1beta1.InstallProgression {
	if ps == nil {
		return nil
	}
	out := make([]addonv1beta1.InstallProgression, len(ps))
	for i := range ps {
		ps[i].DeepCopyInto(&out[i])
	}
	return out
}

func TestInstallProgression(t *testing.T) {
	t.Parallel()
	var (
		installed = time.Date(2026, 11, 2, 9, 14, 27, 0, time.UTC)  // the seed's add-ons completed
		upgraded  = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)  // the new config's rollout started
		reverted  = time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)  // the revert's rollout started
		now       = time.Date(2026, 11, 30, 15, 30, 0, 0, time.UTC) // this call
	)
	proxyNew := []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash)}
	proxyOld := []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash)}
	otherPlacement := addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "canary"}
	tests := []struct {
		name    string
		prev    []addonv1beta1.InstallProgression
		desired []addon.Config
		p       addon.Progress
		want    addonv1beta1.InstallProgression
	}{
		{
			name:    "first rollout: nothing applied or known good yet",
			desired: proxyNew,
			p:       starting,
			want:    seedProgression(addontest.NewHash, "", "", progressing(starting, now)),
		},
		{
			name:    "first rollout done: both become the desired config",
			desired: proxyNew,
			p:       finished,
			want:    seedProgression(addontest.NewHash, addontest.NewHash, addontest.NewHash, progressing(finished, now)),
		},
		{
			name:    "cluster-proxy upgrade starts: last-known-good stays the old config",
			prev:    []addonv1beta1.InstallProgression{seedProgression(addontest.OldHash, addontest.OldHash, addontest.OldHash, progressing(finished, installed))},
			desired: proxyNew,
			p:       starting,
			want:    seedProgression(addontest.NewHash, addontest.OldHash, addontest.OldHash, progressing(starting, now)),
		},
		{
			name:    "cluster-proxy upgrade in flight: the condition keeps its time, its message moves on",
			prev:    []addonv1beta1.InstallProgression{seedProgression(addontest.NewHash, addontest.OldHash, addontest.OldHash, progressing(starting, upgraded))},
			desired: proxyNew,
			p:       halfway,
			want:    seedProgression(addontest.NewHash, addontest.OldHash, addontest.OldHash, progressing(halfway, upgraded)),
		},
		{
			name:    "cluster-proxy upgrade done: both become the new config",
			prev:    []addonv1beta1.InstallProgression{seedProgression(addontest.NewHash, addontest.OldHash, addontest.OldHash, progressing(halfway, upgraded))},
			desired: proxyNew,
			p:       finished,
			want:    seedProgression(addontest.NewHash, addontest.NewHash, addontest.NewHash, progressing(finished, now)),
		},
		{
			name:    "revert after the upgrade: last-known-good stays the new config until done",
			prev:    []addonv1beta1.InstallProgression{seedProgression(addontest.NewHash, addontest.NewHash, addontest.NewHash, progressing(finished, upgraded))},
			desired: proxyOld,
			p:       halfway,
			want:    seedProgression(addontest.OldHash, addontest.NewHash, addontest.NewHash, progressing(halfway, now)),
		},
		{
			name:    "revert done: both become the old config again",
			prev:    []addonv1beta1.InstallProgression{seedProgression(addontest.OldHash, addontest.NewHash, addontest.NewHash, progressing(halfway, reverted))},
			desired: proxyOld,
			p:       finished,
			want:    seedProgression(addontest.OldHash, addontest.OldHash, addontest.OldHash, progressing(finished, now)),
		},
		{
			name:    "revert while the upgrade is in flight: last-known-good stays the old config",
			prev:    []addonv1beta1.InstallProgression{seedProgression(addontest.NewHash, addontest.OldHash, addontest.OldHash, progressing(halfway, upgraded))},
			desired: proxyOld,
			p:       starting,
			want:    seedProgression(addontest.OldHash, addontest.OldHash, addontest.OldHash, progressing(starting, upgraded)),
		},
		{
			name:    "an empty placement never completes: last-known-good stays",
			prev:    []addonv1beta1.InstallProgression{seedProgression(addontest.NewHash, addontest.OldHash, addontest.OldHash, progressing(starting, upgraded))},
			desired: proxyNew,
			p:       addon.Progress{},
			want:    seedProgression(addontest.NewHash, addontest.OldHash, addontest.OldHash, progressing(addon.Progress{}, upgraded)),
		},
		{
			name: "another config: the entry starts afresh, old conditions and all",
			prev: []addonv1beta1.InstallProgression{{
				PlacementRef:     addontest.SeedPlacement(),
				ConfigReferences: []addonv1beta1.InstallConfigReference{proxyInstallConfig("cluster-proxy-v1", addontest.OldHash, addontest.OldHash, addontest.OldHash)},
				Conditions:       []metav1.Condition{progressing(starting, upgraded)},
			}},
			desired: proxyNew,
			p:       halfway,
			want:    seedProgression(addontest.NewHash, "", "", progressing(halfway, now)),
		},
		{
			name: "another placement's entry is not used",
			prev: []addonv1beta1.InstallProgression{{
				PlacementRef:     otherPlacement,
				ConfigReferences: []addonv1beta1.InstallConfigReference{proxyInstallConfig("cluster-proxy", addontest.NewHash, addontest.OldHash, addontest.OldHash)},
				Conditions:       []metav1.Condition{progressing(starting, upgraded)},
			}},
			desired: proxyNew,
			p:       halfway,
			want:    seedProgression(addontest.NewHash, "", "", progressing(halfway, now)),
		},
		{
			name: "an old entry listing more configs is carried over, as in OCM",
			prev: []addonv1beta1.InstallProgression{{
				PlacementRef: addontest.SeedPlacement(),
				ConfigReferences: []addonv1beta1.InstallConfigReference{
					{ConfigGroupResource: deployGR, DesiredConfig: specHash("", "deploy", "h1")},
					proxyInstallConfig("cluster-proxy", addontest.NewHash, addontest.OldHash, addontest.OldHash),
				},
				Conditions: []metav1.Condition{progressing(starting, upgraded)},
			}},
			desired: proxyNew,
			p:       halfway,
			want:    seedProgression(addontest.NewHash, addontest.OldHash, addontest.OldHash, progressing(halfway, upgraded)),
		},
		{
			name: "an old config reference without desiredConfig matches nothing",
			prev: []addonv1beta1.InstallProgression{{
				PlacementRef:     addontest.SeedPlacement(),
				ConfigReferences: []addonv1beta1.InstallConfigReference{{ConfigGroupResource: addontest.ProxyGR(), LastKnownGoodConfig: specHash("", "cluster-proxy", addontest.OldHash)}},
				Conditions:       []metav1.Condition{progressing(starting, upgraded)},
			}},
			desired: proxyNew,
			p:       halfway,
			want:    seedProgression(addontest.NewHash, "", "", progressing(halfway, now)),
		},
		{
			name: "the first entry for the placement that lists the configs is used",
			prev: []addonv1beta1.InstallProgression{
				{ // lists another config
					PlacementRef:     addontest.SeedPlacement(),
					ConfigReferences: []addonv1beta1.InstallConfigReference{proxyInstallConfig("cluster-proxy-v1", addontest.OldHash, "x", "x")},
					Conditions:       []metav1.Condition{progressing(starting, installed)},
				},
				seedProgression(addontest.NewHash, addontest.OldHash, addontest.OldHash, progressing(starting, upgraded)),
				seedProgression(addontest.NewHash, "y", "y", progressing(starting, reverted)),
			},
			desired: []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash)},
			p:       halfway,
			want:    seedProgression(addontest.NewHash, addontest.OldHash, addontest.OldHash, progressing(halfway, upgraded)),
		},
		{
			name: "several configs, each with its own history, in desired order",
			prev: []addonv1beta1.InstallProgression{{
				PlacementRef: addontest.SeedPlacement(),
				ConfigReferences: []addonv1beta1.InstallConfigReference{
					proxyInstallConfig("cluster-proxy", addontest.OldHash, addontest.OldHash, addontest.OldHash),
					{ConfigGroupResource: deployGR, DesiredConfig: specHash("ns", "deploy", "h2"), LastAppliedConfig: specHash("ns", "deploy", "h1"), LastKnownGoodConfig: specHash("ns", "deploy", "h0")},
				},
			}},
			desired: []addon.Config{config(deployGR, "ns", "deploy", "h2"), config(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash)},
			p:       starting,
			want: addonv1beta1.InstallProgression{
				PlacementRef: addontest.SeedPlacement(),
				ConfigReferences: []addonv1beta1.InstallConfigReference{
					{ConfigGroupResource: deployGR, DesiredConfig: specHash("ns", "deploy", "h2"), LastAppliedConfig: specHash("ns", "deploy", "h1"), LastKnownGoodConfig: specHash("ns", "deploy", "h0")},
					proxyInstallConfig("cluster-proxy", addontest.NewHash, addontest.OldHash, addontest.OldHash),
				},
				Conditions: []metav1.Condition{progressing(starting, now)},
			},
		},
		{
			name:    "a config repeated in desired is taken once, the first time",
			desired: []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash), config(addontest.ProxyGR(), "", "cluster-proxy", addontest.OldHash)},
			p:       finished,
			want:    seedProgression(addontest.NewHash, addontest.NewHash, addontest.NewHash, progressing(finished, now)),
		},
		{
			name: "no configs",
			p:    finished,
			want: addonv1beta1.InstallProgression{PlacementRef: addontest.SeedPlacement(), Conditions: []metav1.Condition{progressing(finished, now)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			prev, desired := cloneProgressions(tt.prev), append([]addon.Config(nil), tt.desired...)

			got := addon.InstallProgression(prev, addontest.SeedPlacement(), desired, tt.p, fake.New(now))
			assert.Equal(t, tt.want, got)

			// The inputs are untouched, and the result shares nothing with them.
			for i := range got.ConfigReferences {
				r := &got.ConfigReferences[i]
				for _, h := range []*addonv1beta1.ConfigSpecHash{r.DesiredConfig, r.LastAppliedConfig, r.LastKnownGoodConfig} {
					if h != nil {
						h.SpecHash, h.Name = "mutated", "mutated"
					}
				}
			}
			for i := range got.Conditions {
				got.Conditions[i].Message = "mutated"
			}
			assert.Equal(t, tt.prev, prev)
			assert.Equal(t, tt.desired, desired)
		})
	}
}

// TestInstallProgressionUnchanged checks that a caller can skip the write:
// with nothing to change, later, the result is equal to the previous entry
// (and the condition keeps its time).
func TestInstallProgressionUnchanged(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	later := since.Add(90 * time.Minute)
	proxyNew := []addon.Config{config(addontest.ProxyGR(), "", "cluster-proxy", addontest.NewHash)}
	tests := []struct {
		name    string
		prev    addonv1beta1.InstallProgression
		desired []addon.Config
		p       addon.Progress
	}{
		{"installed", seedProgression(addontest.NewHash, addontest.NewHash, addontest.NewHash, progressing(finished, since)), proxyNew, finished},
		{"upgrading", seedProgression(addontest.NewHash, addontest.OldHash, addontest.OldHash, progressing(halfway, since)), proxyNew, halfway},
		{"first rollout", seedProgression(addontest.NewHash, "", "", progressing(starting, since)), proxyNew, starting},
		{"no configs, nil", addonv1beta1.InstallProgression{PlacementRef: addontest.SeedPlacement(), Conditions: []metav1.Condition{progressing(finished, since)}}, nil, finished},
		{"no configs, empty", addonv1beta1.InstallProgression{
			PlacementRef: addontest.SeedPlacement(), ConfigReferences: []addonv1beta1.InstallConfigReference{},
			Conditions: []metav1.Condition{progressing(finished, since)},
		}, nil, finished},
		{"other conditions are kept", addonv1beta1.InstallProgression{
			PlacementRef:     addontest.SeedPlacement(),
			ConfigReferences: []addonv1beta1.InstallConfigReference{proxyInstallConfig("cluster-proxy", addontest.NewHash, addontest.NewHash, addontest.NewHash)},
			Conditions: []metav1.Condition{
				{Type: "Other", Status: metav1.ConditionTrue, Reason: "Set", LastTransitionTime: metav1.NewTime(since)},
				progressing(finished, since),
			},
		}, proxyNew, finished},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			other := addonv1beta1.InstallProgression{PlacementRef: addonv1beta1.PlacementRef{Namespace: "ns", Name: "other"}}
			prev := []addonv1beta1.InstallProgression{other, tt.prev}
			got := addon.InstallProgression(prev, addontest.SeedPlacement(), tt.desired, tt.p, fake.New(later))
			assert.True(t, reflect.DeepEqual(tt.prev, got), "reflect.DeepEqual:\nprev %#v\ngot  %#v", tt.prev, got)
		})
	}
}

// TestSeedUpgradeWithPlanner runs the seed's upgrade end to end, one
// reconcile a minute: the planner picks the clusters, ConfigReferences
// writes the new config to their add-ons, a fake agent applies it
// (Progressing one minute, Completed the next), and InstallProgression keeps
// the ClusterManagementAddOn's bookkeeping. Last-known-good stays the seed's
// config until every cluster has soaked the new one.
func TestSeedUpgradeWithPlanner(t *testing.T) {
	t.Parallel()
	cma := addontest.SeedCMA(t)
	strategy := cma.Spec.InstallStrategy.Placements[0].RolloutStrategy
	groups := []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
	}
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	w := &world{cma: cma, strategy: strategy, groups: groups, mcas: readMCAs(t, "managedclusteraddons.yaml")}

	// Before the upgrade: the seed's config everywhere, complete.
	w.reconcile(t, lookup(t, proxyConfig(t)), start.Add(-time.Hour))
	assert.Equal(t, seedProgression(addontest.OldHash, addontest.OldHash, addontest.OldHash, progressing(finished, start.Add(-time.Hour))), w.progression[0])

	upgraded := lookup(t, proxyConfig(t, "proxyAgent", "proxyServer"))
	var (
		order []string // clusters in the order the rollout first lists them
		seen  = map[string]bool{}
		done  time.Time
	)
	for now := start; now.Before(start.Add(time.Hour)); now = now.Add(time.Minute) {
		listed := w.reconcile(t, upgraded, now)
		t.Logf("%s wrote %v: %s", now.Format("15:04"), listed, w.progression[0].Conditions[0].Message)
		for _, c := range listed {
			if !seen[c] {
				seen[c] = true
				order = append(order, c)
			}
		}
		if w.progression[0].Conditions[0].Reason == addonv1beta1.ProgressingReasonCompleted {
			done = now
			break
		}
		assert.Equal(t, seedProgression(addontest.NewHash, addontest.OldHash, addontest.OldHash, w.progression[0].Conditions[0]), w.progression[0], now)
		assert.Equal(t, metav1.ConditionTrue, w.progression[0].Conditions[0].Status, now)
		assert.Equal(t, start, w.progression[0].Conditions[0].LastTransitionTime.Time, "the rollout keeps its start time: %s", now)
		w.agent(now)
	}
	assert.Equal(t, []string{"dev-cluster", "stg-cluster", "prod-cluster"}, order)
	// Each group: listed, Progressing a minute later, Completed the next,
	// then soaked for minSuccessTime (5m).
	assert.Equal(t, start.Add(3*(1+5)*time.Minute), done)
	assert.Equal(t, seedProgression(addontest.NewHash, addontest.NewHash, addontest.NewHash, progressing(finished, done)), w.progression[0])

	// Done: the next reconcile writes nothing.
	before := cloneProgressions(w.progression)
	assert.Empty(t, w.reconcile(t, upgraded, done.Add(time.Minute)))
	assert.Equal(t, before, w.progression)
}

// world is the hub of TestSeedUpgradeWithPlanner: the add-ons' and the
// ClusterManagementAddOn's status, as a controller and the agents leave them.
type world struct {
	cma         *addonv1beta1.ClusterManagementAddOn
	strategy    clusterv1alpha1.RolloutStrategy
	groups      []grouping.Group
	mcas        []*addonv1beta1.ManagedClusterAddOn
	progression []addonv1beta1.InstallProgression
	fail        map[string]bool // clusters whose agent fails to apply
}

// reconcile is one pass of the controller at now; it returns the clusters
// whose add-on status it wrote.
func (w *world) reconcile(t *testing.T, specHash addon.SpecHashFunc, now time.Time) []string {
	t.Helper()
	addons, err := addon.Evaluate(w.cma, addontest.SeedPlacement(), w.mcas, specHash)
	require.NoError(t, err)
	result, err := rollout.Planner{Clock: fake.New(now)}.Plan(w.strategy, w.groups, addon.Statuses(addons))
	require.NoError(t, err)
	var written []string
	for _, c := range result.ToRollout {
		i := slices.IndexFunc(addons, func(a addon.Cluster) bool { return a.Status.Cluster == c.Cluster })
		j := slices.IndexFunc(w.mcas, func(m *addonv1beta1.ManagedClusterAddOn) bool { return m.Namespace == c.Cluster })
		require.True(t, i >= 0 && j >= 0, c.Cluster)
		refs := addon.ConfigReferences(w.mcas[j].Status.ConfigReferences, addons[i].Configs)
		if reflect.DeepEqual(refs, w.mcas[j].Status.ConfigReferences) {
			continue
		}
		mca := w.mcas[j].DeepCopy()
		mca.Status.ConfigReferences = refs
		w.mcas = slices.Clone(w.mcas)
		w.mcas[j] = mca
		written = append(written, c.Cluster)
	}
	desired, err := addon.PlacementConfigs(w.cma, addontest.SeedPlacement(), specHash)
	require.NoError(t, err)
	next := addon.InstallProgression(w.progression, addontest.SeedPlacement(), desired, addon.Tally(w.groups, addons, result), fake.New(now))
	w.progression = []addonv1beta1.InstallProgression{next}
	return written
}

// agent is every cluster's add-on agent at now: it starts applying a new
// desired config (Progressing), and a minute later has applied it
// (Completed).
func (w *world) agent(now time.Time) {
	for j, m := range w.mcas {
		ref := m.Status.ConfigReferences[0]
		cond := metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, LastTransitionTime: metav1.NewTime(now)}
		old := meta.FindStatusCondition(m.Status.Conditions, cond.Type)
		applied := reflect.DeepEqual(ref.DesiredConfig, ref.LastAppliedConfig)
		switch {
		case applied && old != nil && old.Reason != addonv1beta1.ProgressingReasonCompleted:
			// What is desired already runs (a revert): the work is applied.
			cond.Status, cond.Reason = metav1.ConditionFalse, addonv1beta1.ProgressingReasonCompleted
		case applied, old != nil && old.Reason == addonv1beta1.ProgressingReasonFailed:
			continue
		case meta.IsStatusConditionTrue(m.Status.Conditions, cond.Type) && w.fail[m.Namespace]:
			cond.Status, cond.Reason = metav1.ConditionFalse, addonv1beta1.ProgressingReasonFailed
		default:
			cond = applyStep(m, cond)
		}
		mca := m.DeepCopy()
		if cond.Reason == addonv1beta1.ProgressingReasonCompleted && !applied {
			mca.Status.ConfigReferences[0].LastAppliedConfig = ref.DesiredConfig.DeepCopy()
		}
		meta.SetStatusCondition(&mca.Status.Conditions, cond)
		w.mcas = slices.Clone(w.mcas)
		w.mcas[j] = mca
	}
}

// applyStep is one minute of a healthy apply: Progressing first, then
// Completed.
func applyStep(m *addonv1beta1.ManagedClusterAddOn, cond metav1.Condition) metav1.Condition {
	if meta.IsStatusConditionTrue(m.Status.Conditions, cond.Type) {
		cond.Status, cond.Reason = metav1.ConditionFalse, addonv1beta1.ProgressingReasonCompleted
		return cond
	}
	cond.Status, cond.Reason = metav1.ConditionTrue, addonv1beta1.ProgressingReasonProgressing
	return cond
}

// TestSeedRevertWithPlanner is docs/semantics.md §5.5: the new config halts
// in stg (its agent fails), and the config is put back. That is a new
// rollout of the old hash: dev, which applied the new config, gets the old
// one again first; stg, which never applied it, follows once dev has
// soaked; prod, which never left the old config, is done at once and its
// status is never written; and last-known-good stays the old config
// throughout.
func TestSeedRevertWithPlanner(t *testing.T) {
	t.Parallel()
	cma := addontest.SeedCMA(t)
	groups := []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
	}
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	w := &world{cma: cma, strategy: cma.Spec.InstallStrategy.Placements[0].RolloutStrategy, groups: groups,
		mcas: readMCAs(t, "managedclusteraddons.yaml"), fail: map[string]bool{"stg-cluster": true}}
	original, upgraded := lookup(t, proxyConfig(t)), lookup(t, proxyConfig(t, "proxyAgent", "proxyServer"))
	w.reconcile(t, original, start.Add(-time.Hour))

	now := start
	for ; now.Before(start.Add(30 * time.Minute)); now = now.Add(time.Minute) {
		written := w.reconcile(t, upgraded, now)
		assert.NotContains(t, written, "prod-cluster", now)
		w.agent(now)
	}
	require.Equal(t, addonv1beta1.ProgressingReasonFailed, meta.FindStatusCondition(w.mca("stg-cluster").Status.Conditions, "Progressing").Reason, "stg failed")
	require.Equal(t, addontest.NewHash, w.mca("dev-cluster").Status.ConfigReferences[0].LastAppliedConfig.SpecHash, "dev applied the new config")

	w.fail = nil
	var order []string
	prodBefore := w.mca("prod-cluster")
	for end := now.Add(time.Hour); now.Before(end); now = now.Add(time.Minute) {
		order = append(order, w.reconcile(t, original, now)...)
		if w.progression[0].Conditions[0].Reason == addonv1beta1.ProgressingReasonCompleted {
			break
		}
		assert.Equal(t, addontest.OldHash, w.progression[0].ConfigReferences[0].LastKnownGoodConfig.SpecHash, now)
		w.agent(now)
	}
	assert.Equal(t, []string{"dev-cluster", "stg-cluster"}, order, "the revert's writes, in order")
	assert.Equal(t, prodBefore, w.mca("prod-cluster"), "prod's add-on was written")
	assert.Equal(t, seedProgression(addontest.OldHash, addontest.OldHash, addontest.OldHash, w.progression[0].Conditions[0]), w.progression[0])
	for _, m := range w.mcas {
		assert.Equal(t, addontest.OldHash, m.Status.ConfigReferences[0].DesiredConfig.SpecHash, m.Namespace)
		assert.Equal(t, addontest.OldHash, m.Status.ConfigReferences[0].LastAppliedConfig.SpecHash, m.Namespace)
	}
}

// mca is the add-on of cluster.
func (w *world) mca(cluster string) *addonv1beta1.ManagedClusterAddOn {
	i := slices.IndexFunc(w.mcas, func(m *addonv1beta1.ManagedClusterAddOn) bool { return m.Namespace == cluster })
	return w.mcas[i]
}
