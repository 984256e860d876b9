package addon_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// edit returns a deep copy of mca changed by f.
func edit(mca *addonv1beta1.ManagedClusterAddOn, f func(*addonv1beta1.ManagedClusterAddOn)) *addonv1beta1.ManagedClusterAddOn {
	c := mca.DeepCopy()
	f(c)
	return c
}

// setProgressing replaces the reason (and time) of mca's Progressing
// condition; an empty reason removes the condition.
func setProgressing(reason, ltt string) func(*addonv1beta1.ManagedClusterAddOn) {
	return func(m *addonv1beta1.ManagedClusterAddOn) {
		var kept []metav1.Condition
		for _, c := range m.Status.Conditions {
			if c.Type != addonv1beta1.ManagedClusterAddOnConditionProgressing {
				kept = append(kept, c)
			}
		}
		if reason != "" {
			kept = append(kept, metav1.Condition{
				Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse,
				Reason: reason, LastTransitionTime: metav1.NewTime(at(ltt)),
			})
		}
		m.Status.Conditions = kept
	}
}

func TestClusterStatus(t *testing.T) {
	t.Parallel()
	succeeded := readMCAs(t, "managedclusteraddons.yaml")
	require.Len(t, succeeded, 3)
	dev := succeeded[0]
	progressing := readMCA(t, "managedclusteraddon-progressing.yaml")
	failed := readMCA(t, "managedclusteraddon-failed.yaml")
	fresh := readMCA(t, "managedclusteraddon-new.yaml")

	oldCfg := []addon.Config{{GroupResource: addontest.ProxyGR(), Referent: addontest.ProxyReferent(), SpecHash: addontest.OldHash}}
	newCfg := []addon.Config{{GroupResource: addontest.ProxyGR(), Referent: addontest.ProxyReferent(), SpecHash: addontest.NewHash}}
	other := addonv1beta1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"}

	tests := []struct {
		name    string
		mca     *addonv1beta1.ManagedClusterAddOn
		desired []addon.Config
		want    rollout.ClusterStatus
	}{
		{"nil add-on: not created yet", nil, oldCfg,
			rollout.ClusterStatus{Status: rollout.ToApply}},
		{"completed on the desired hash: Succeeded since Completed", dev, oldCfg,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.Succeeded, LastTransitionTime: at("2026-11-02T09:15:02Z")}},
		{"prod completed too", succeeded[2], oldCfg,
			rollout.ClusterStatus{Cluster: "prod-cluster", Status: rollout.Succeeded, LastTransitionTime: at("2026-11-02T09:18:02Z")}},
		{"new spec hash: ToApply", dev, newCfg,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.ToApply}},
		{"no configReferences yet: ToApply", fresh, oldCfg,
			rollout.ClusterStatus{Cluster: "prod-cluster", Status: rollout.ToApply}},
		{"no configReferences and nothing desired: Succeeded, time unknown", fresh, nil,
			rollout.ClusterStatus{Cluster: "prod-cluster", Status: rollout.Succeeded}},
		{"nothing desired, one referenced: ToApply", dev, nil,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.ToApply}},
		{"one more config desired: ToApply", dev, append(append([]addon.Config{}, oldCfg...), addon.Config{GroupResource: other, Referent: addonv1beta1.ConfigReferent{Namespace: "ns", Name: "d"}, SpecHash: "x"}),
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.ToApply}},
		{"referenced config is another name: ToApply", dev, []addon.Config{{GroupResource: addontest.ProxyGR(), Referent: addonv1beta1.ConfigReferent{Name: "other"}, SpecHash: addontest.OldHash}},
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.ToApply}},
		{"referenced config is another namespace: ToApply", dev, []addon.Config{{GroupResource: addontest.ProxyGR(), Referent: addonv1beta1.ConfigReferent{Namespace: "x", Name: "cluster-proxy"}, SpecHash: addontest.OldHash}},
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.ToApply}},
		{"referenced config is another resource: ToApply", dev, []addon.Config{{GroupResource: other, Referent: addontest.ProxyReferent(), SpecHash: addontest.OldHash}},
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.ToApply}},
		{"applying, reason Progressing: Progressing since then", progressing, newCfg,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.Progressing, LastTransitionTime: at("2026-11-30T12:00:05Z")}},
		{"applying, reason Failed: Failed since then", failed, newCfg,
			rollout.ClusterStatus{Cluster: "stg-cluster", Status: rollout.Failed, LastTransitionTime: at("2026-11-30T12:06:12Z")}},
		{"applying but desired moved on again: ToApply", progressing, oldCfg,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.ToApply}},
		{"applying, other reason: Progressing, time unknown",
			edit(progressing, setProgressing("WaitingForManifestApplied", "2026-11-30T12:00:09Z")), newCfg,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.Progressing}},
		{"applying, reason Completed (stale condition): Progressing, time unknown",
			edit(progressing, setProgressing(addonv1beta1.ProgressingReasonCompleted, "2026-11-30T12:00:09Z")), newCfg,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.Progressing}},
		{"applying, no Progressing condition: Progressing, time unknown",
			edit(progressing, setProgressing("", "")), newCfg,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.Progressing}},
		{"never applied (lastAppliedConfig absent), reason Progressing",
			edit(progressing, func(m *addonv1beta1.ManagedClusterAddOn) { m.Status.ConfigReferences[0].LastAppliedConfig = nil }), newCfg,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.Progressing, LastTransitionTime: at("2026-11-30T12:00:05Z")}},
		{"applied, reason Progressing (agent unhealthy later): Succeeded, time unknown",
			edit(dev, setProgressing(addonv1beta1.ProgressingReasonProgressing, "2026-11-30T13:00:00Z")), oldCfg,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.Succeeded}},
		{"applied, reason Failed: Succeeded, time unknown",
			edit(dev, setProgressing(addonv1beta1.ProgressingReasonFailed, "2026-11-30T13:00:00Z")), oldCfg,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.Succeeded}},
		{"applied, no Progressing condition: Succeeded, time unknown",
			edit(dev, setProgressing("", "")), oldCfg,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.Succeeded}},
		{"the first Progressing condition counts",
			edit(dev, func(m *addonv1beta1.ManagedClusterAddOn) {
				m.Status.Conditions = append(m.Status.Conditions, metav1.Condition{Type: "Progressing", Reason: "Failed"})
			}), oldCfg,
			rollout.ClusterStatus{Cluster: "dev-cluster", Status: rollout.Succeeded, LastTransitionTime: at("2026-11-02T09:15:02Z")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.mca.DeepCopy()
			got, err := addon.ClusterStatus(tt.mca, tt.desired)
			require.NoError(t, err)
			assert.Equal(t, tt.want.Cluster, got.Cluster)
			assert.Equal(t, tt.want.Status, got.Status, "status")
			assert.True(t, tt.want.LastTransitionTime.Equal(got.LastTransitionTime),
				"last transition time: want %v, got %v", tt.want.LastTransitionTime, got.LastTransitionTime)
			assert.Equal(t, tt.want.LastTransitionTime.IsZero(), got.LastTransitionTime.IsZero())
			assert.True(t, got.RecheckTime.IsZero())
			assert.Equal(t, before, tt.mca, "ClusterStatus must not modify the add-on")
		})
	}
}

// twoConfigs returns an add-on referencing bars "a" (applying, reason
// Progressing) and foos "b" (its desired hash is stale), in the given
// order.
func twoConfigs(progressingFirst bool) *addonv1beta1.ManagedClusterAddOn {
	bars := addonv1beta1.ConfigReference{
		ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "core", Resource: "bars"},
		DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "a"}, SpecHash: "new-a"},
		LastAppliedConfig:   &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "a"}, SpecHash: "old-a"},
	}
	foos := addonv1beta1.ConfigReference{
		ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "core", Resource: "foos"},
		DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "b"}, SpecHash: "old-b"},
		LastAppliedConfig:   &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "b"}, SpecHash: "old-b"},
	}
	refs := []addonv1beta1.ConfigReference{foos, bars}
	if progressingFirst {
		refs = []addonv1beta1.ConfigReference{bars, foos}
	}
	return &addonv1beta1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "test"},
		Status: addonv1beta1.ManagedClusterAddOnStatus{
			ConfigReferences: refs,
			Conditions:       []metav1.Condition{{Type: "Progressing", Reason: "Progressing", LastTransitionTime: metav1.NewTime(at("2026-11-30T12:00:00Z"))}},
		},
	}
}

// TestClusterStatusFirstReferenceDecides shows OCM's rule that the first
// reference that decides wins, so the order of status.configReferences can
// change the answer.
func TestClusterStatusFirstReferenceDecides(t *testing.T) {
	t.Parallel()
	desired := []addon.Config{cfg("core", "bars", "", "a", "new-a"), cfg("core", "foos", "", "b", "new-b")}
	tests := []struct {
		name string
		mca  *addonv1beta1.ManagedClusterAddOn
		want rollout.Status
	}{
		{"applying reference first: Progressing", twoConfigs(true), rollout.Progressing},
		{"stale reference first: ToApply", twoConfigs(false), rollout.ToApply},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := addon.ClusterStatus(tt.mca, desired)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Status)
		})
	}
}

// TestClusterStatusManyConfigs covers add-ons with more configs than the
// linear scan handles, and a config listed twice in desired (the first
// entry wins, as in OCM).
func TestClusterStatusManyConfigs(t *testing.T) {
	t.Parallel()
	build := func(n int) (*addonv1beta1.ManagedClusterAddOn, []addon.Config) {
		mca := &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "c1", Name: "test"}}
		var desired []addon.Config
		for i := range n {
			c := cfg("core", "bars", "ns", fmt.Sprintf("c%02d", i), fmt.Sprintf("h%02d", i))
			desired = append(desired, c)
			h := &addonv1beta1.ConfigSpecHash{ConfigReferent: c.Referent, SpecHash: c.SpecHash}
			mca.Status.ConfigReferences = append(mca.Status.ConfigReferences, addonv1beta1.ConfigReference{
				ConfigGroupResource: c.GroupResource, DesiredConfig: h, LastAppliedConfig: h.DeepCopy(),
			})
		}
		// Reverse the status order: matching is by config, not by position.
		refs := mca.Status.ConfigReferences
		for i, j := 0, len(refs)-1; i < j; i, j = i+1, j-1 {
			refs[i], refs[j] = refs[j], refs[i]
		}
		return mca, desired
	}
	for _, n := range []int{1, 8, 9, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			mca, desired := build(n)
			got, err := addon.ClusterStatus(mca, desired)
			require.NoError(t, err)
			assert.Equal(t, rollout.Succeeded, got.Status)

			stale := append([]addon.Config(nil), desired...)
			stale[n-1].SpecHash = "changed"
			got, err = addon.ClusterStatus(mca, stale)
			require.NoError(t, err)
			assert.Equal(t, rollout.ToApply, got.Status)

			// A config listed twice: the first entry's hash is compared.
			if n >= 2 {
				dup := append([]addon.Config(nil), desired[:n-1]...)
				dup = append(dup, desired[0])
				dup[n-1].SpecHash = "ignored"
				mca.Status.ConfigReferences = mca.Status.ConfigReferences[1:] // drop the last config
				mca.Status.ConfigReferences = append(mca.Status.ConfigReferences, mca.Status.ConfigReferences[len(mca.Status.ConfigReferences)-1])
				got, err = addon.ClusterStatus(mca, dup)
				require.NoError(t, err)
				assert.Equal(t, rollout.Succeeded, got.Status)
			}
		})
	}
}

func TestClusterStatusErrors(t *testing.T) {
	t.Parallel()
	dev := readMCAs(t, "managedclusteraddons.yaml")[0]
	desired := []addon.Config{{GroupResource: addontest.ProxyGR(), Referent: addontest.ProxyReferent(), SpecHash: addontest.OldHash}}
	tests := []struct {
		name    string
		mca     *addonv1beta1.ManagedClusterAddOn
		wantErr []string
	}{
		{"nil desiredConfig", edit(dev, func(m *addonv1beta1.ManagedClusterAddOn) { m.Status.ConfigReferences[0].DesiredConfig = nil }),
			[]string{`managedclusteraddon "dev-cluster/cluster-proxy": status.configReferences[0].desiredConfig: Required value: the desired namespace/name and spec hash of managedproxyconfigurations.proxy.open-cluster-management.io`}},
		{"nil desiredConfig even when the counts differ", edit(dev, func(m *addonv1beta1.ManagedClusterAddOn) {
			m.Status.ConfigReferences = append(m.Status.ConfigReferences, addonv1beta1.ConfigReference{ConfigGroupResource: addonv1beta1.ConfigGroupResource{Resource: "configmaps"}})
		}), []string{`status.configReferences[1].desiredConfig: Required value: the desired namespace/name and spec hash of configmaps`}},
		{"no namespace, and a nil desiredConfig: both reported", edit(dev, func(m *addonv1beta1.ManagedClusterAddOn) {
			m.Namespace = ""
			m.Status.ConfigReferences[0].DesiredConfig = nil
		}), []string{
			"managedclusteraddon \"cluster-proxy\": metadata.namespace: Required value: the name of the managed cluster\n" +
				`status.configReferences[0].desiredConfig: Required value: `,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := addon.ClusterStatus(tt.mca, desired)
			require.Error(t, err)
			assert.Equal(t, rollout.ClusterStatus{}, got)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
			var fe *field.Error
			assert.True(t, errors.As(err, &fe))
			assert.Equal(t, 1, strings.Count(err.Error(), "managedclusteraddon "), "the add-on is named once")
		})
	}
}

// TestSeedCaveats runs the seed's three add-ons, all completed on the seed's
// ManagedProxyConfiguration, against the config after each kind of change.
func TestSeedCaveats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		images []string // spec.<component>.image fields moved to the new tag
		want   rollout.Status
	}{
		{"new proxyAgent.image: every add-on ToApply, the rollout starts", []string{"proxyAgent"}, rollout.ToApply},
		{"Helm upgrade, both images: every add-on ToApply", []string{"proxyAgent", "proxyServer"}, rollout.ToApply},
		{"proxyServer.image alone: spec hash changes, so the agents are rolled out in stages while the hub updates at once", []string{"proxyServer"}, rollout.ToApply},
		{"new agent chart, unchanged spec: no hash changes, every add-on stays Succeeded, no rollout", nil, rollout.Succeeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			specHash := lookup(t, proxyConfig(t, tt.images...))
			for _, mca := range readMCAs(t, "managedclusteraddons.yaml") {
				desired, err := addon.Desired(addontest.SeedCMA(t), addontest.SeedPlacement(), mca, specHash)
				require.NoError(t, err)
				got, err := addon.ClusterStatus(mca, desired)
				require.NoError(t, err)
				assert.Equal(t, tt.want, got.Status, mca.Namespace)
			}
		})
	}
}

// TestApplied: an add-on has applied its configs when each desired
// config is its last applied one.
func TestApplied(t *testing.T) {
	t.Parallel()
	gr := addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	ref := func(desired, applied string) addonv1beta1.ConfigReference {
		r := addonv1beta1.ConfigReference{ConfigGroupResource: gr}
		if desired != "" {
			r.DesiredConfig = &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: desired}
		}
		if applied != "" {
			r.LastAppliedConfig = &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: applied}
		}
		return r
	}
	for _, tt := range []struct {
		name    string
		refs    []addonv1beta1.ConfigReference
		handing bool // the handover is under way: not applied
	}{
		{name: "no configs", handing: false},
		{name: "installing: nothing applied yet", refs: []addonv1beta1.ConfigReference{ref("h1", "")}, handing: true},
		{name: "handed a new spec", refs: []addonv1beta1.ConfigReference{ref("h2", "h1")}, handing: true},
		{name: "applied", refs: []addonv1beta1.ConfigReference{ref("h1", "h1")}, handing: false},
		{name: "one of two not applied", refs: []addonv1beta1.ConfigReference{ref("h1", "h1"), ref("h2", "h1")}, handing: true},
		{name: "nothing handed", refs: []addonv1beta1.ConfigReference{ref("", "h1")}, handing: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, !tt.handing, addon.Applied(tt.refs))
		})
	}
}
