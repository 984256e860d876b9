package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/internal/seed"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// TestRevert: after a halt in stg, the config is put back. That is a new
// rollout of the old hash: dev (which applied the bad config) and stg
// (which failed it) get the old hash again, dev first; prod, which never
// left the old config, is done at once and its desiredConfig is never
// written.
func TestRevert(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	o := seedHub(t, e, "4s")
	ctl := e.controller(t)
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	// One agent throughout: stg fails to apply the new config, and only it.
	e.agents(t, applyTime, failingOn("stg-cluster", newHash))
	e.installed(t, o, addonName, oldHash, 60*time.Second)
	prodWrites := func() int { return ctl.writes.count("/namespaces/prod-cluster/managedclusteraddons") }
	prodBefore := prodWrites()
	ob := e.observe(t, o.Clusters(), addonName, oldHash)
	e.haltAtStg(t, o, ctl, newHash)

	require.NoError(t, testhub.SetAgentImage(context.Background(), e.c, testhub.Image))
	e.installed(t, o, addonName, oldHash, 60*time.Second)
	ob.close()

	assert.Equal(t, []string{oldHash, newHash, oldHash}, ob.desired["dev-cluster"])
	assert.Equal(t, []string{oldHash, newHash, oldHash}, ob.applied["dev-cluster"])
	assert.Equal(t, []string{oldHash, newHash, oldHash}, ob.desired["stg-cluster"])
	assert.Equal(t, []string{oldHash}, ob.applied["stg-cluster"], "stg never applied the bad config")
	assert.Equal(t, []string{oldHash}, ob.desired["prod-cluster"], "prod's desiredConfig was written")
	// Reverting: stg got the old hash again only after dev had applied it
	// and soaked (dev's Completed time is stored to the second).
	require.Len(t, ob.desiredAt["stg-cluster"], 3)
	devDone := e.addon(t, "dev-cluster", addonName).progressing
	require.NotNil(t, devDone)
	stgAgain := ob.desiredAt["stg-cluster"][2]
	assert.False(t, stgAgain.Before(devDone.LastTransitionTime.Add(soak)),
		"stg reverted at %s, before dev's soak ended at %s", stgAgain, devDone.LastTransitionTime.Add(soak))
	// Prod's add-on was written only to flip its Configured condition
	// (not configured while the bad config was desired, configured again).
	assert.LessOrEqual(t, prodWrites()-prodBefore, 2)
	ip, _ := e.progression(t, addonName)
	assert.Equal(t, oldHash, ip.ConfigReferences[0].LastKnownGoodConfig.SpecHash)
}

// TestBadInput: an add-on whose rollout strategy is invalid gets a
// condition and an event carrying the field error, and nothing of it is
// rolled out: its ManagedClusterAddOns get no desiredConfig (only the
// Progressing condition that OCM's addonprogressing controller writes on
// every add-on it takes). A misconfigured Placement gets OCM's
// PlacementMisconfigured condition and selects no cluster, so the add-ons
// of the add-on installed on it are removed, as OCM's add-on manager
// removes the add-ons of clusters no placement selects. The valid add-on
// beside them installs as usual. An add-on whose config object does not
// exist yet says so on its install progression (ConfigurationError,
// naming the object) and in an event, and rolls out once it is created.
func TestBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	o := seedHub(t, e, "30s")
	ctx := context.Background()

	cma, err := seed.ClusterManagementAddOn()
	require.NoError(t, err)
	bad := cma.DeepCopy()
	bad.Name = "bad-strategy"
	bad.Spec.InstallStrategy.Placements[0].RolloutStrategy = testhub.Strategy("2s", "10mfoo", 0)
	broken := cma.DeepCopy()
	broken.Name = "broken-placement"
	broken.Spec.InstallStrategy.Placements[0].Name = "broken"
	missing := cma.DeepCopy()
	missing.Name = "missing-config"
	missing.Spec.DefaultConfigs[0].Name = "not-yet"
	missing.Spec.InstallStrategy.Placements[0].RolloutStrategy = o.Strategy
	for _, c := range []*addonv1beta1.ClusterManagementAddOn{bad, broken, missing} {
		c.Annotations[hubctl.LifecycleAnnotation] = testhub.Lifecycle
		alpha, err := testhub.AddonV1alpha1(c)
		require.NoError(t, err)
		require.NoError(t, e.c.Create(ctx, alpha))
	}
	// Their add-ons already exist (installed earlier, say).
	versions := map[string]string{}
	for _, name := range []string{"bad-strategy", "broken-placement"} {
		for _, c := range o.Clusters() {
			m := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: c, Name: name}}
			require.NoError(t, e.c.Create(ctx, m))
			versions[c+"/"+name] = m.ResourceVersion
		}
	}
	p, err := seed.Placement()
	require.NoError(t, err)
	p.Name = "broken"
	p.Spec.Predicates[0].RequiredClusterSelector.LabelSelector.MatchExpressions[0].Operator = "Within"
	require.NoError(t, e.c.Create(ctx, p))

	e.controller(t)
	e.agents(t, applyTime, nil)
	e.installed(t, o, addonName, specHash(t, testhub.Image), 60*time.Second)

	eventually(t, 30*time.Second, "invalid strategy reported", func() (bool, string) {
		ip, ok := e.progression(t, "bad-strategy")
		if !ok {
			return false, "no progression"
		}
		c := meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		if c == nil {
			return false, "no condition"
		}
		return c.Reason == hubctl.ReasonInvalidRolloutStrategy, c.Reason + ": " + c.Message
	})
	ip, _ := e.progression(t, "bad-strategy")
	c := meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Contains(t, c.Message, `spec.installStrategy.placements[0].rolloutStrategy.progressivePerGroup.progressDeadline: Invalid value: "10mfoo"`)
	eventually(t, 30*time.Second, "warning event", func() (bool, string) {
		var evs eventsv1.EventList
		if err := e.c.List(ctx, &evs); err != nil {
			return false, err.Error()
		}
		for _, ev := range evs.Items {
			if ev.Reason == hubctl.ReasonInvalidRolloutStrategy && ev.Regarding.Name == "bad-strategy" && strings.Contains(ev.Note, "10mfoo") {
				return true, ""
			}
		}
		return false, "no event"
	})

	// A config object that does not exist: the install progression and an
	// event name it; once it is created, the add-on rolls out.
	eventually(t, 30*time.Second, "missing config reported", func() (bool, string) {
		ip, ok := e.progression(t, "missing-config")
		if !ok {
			return false, "no progression"
		}
		c := meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		if c == nil {
			return false, "no condition"
		}
		return c.Reason == addon.ReasonConfigurationError && c.Status == metav1.ConditionFalse &&
			strings.Contains(c.Message, `managedproxyconfigurations.proxy.open-cluster-management.io "not-yet"`), c.Reason + ": " + c.Message
	})
	eventually(t, 30*time.Second, "missing config event", func() (bool, string) {
		var evs eventsv1.EventList
		if err := e.c.List(ctx, &evs); err != nil {
			return false, err.Error()
		}
		for _, ev := range evs.Items {
			if ev.Reason == addon.ReasonConfigurationError && ev.Regarding.Name == "missing-config" && strings.Contains(ev.Note, `"not-yet"`) {
				return true, ""
			}
		}
		return false, "no event"
	})
	notYet, err := testhub.ProxyConfig(testhub.Image)
	require.NoError(t, err)
	notYet.SetName("not-yet")
	require.NoError(t, e.c.Create(ctx, notYet))
	e.installed(t, o, "missing-config", specHash(t, testhub.Image), 90*time.Second)

	eventually(t, 30*time.Second, "placement misconfigured", func() (bool, string) {
		var bp clusterv1beta1.Placement
		if err := e.c.Get(ctx, types.NamespacedName{Namespace: p.Namespace, Name: "broken"}, &bp); err != nil {
			return false, err.Error()
		}
		mc := meta.FindStatusCondition(bp.Status.Conditions, clusterv1beta1.PlacementConditionMisconfigured)
		if mc == nil {
			return false, "no condition"
		}
		return mc.Status == metav1.ConditionTrue && mc.Reason == "Misconfigured" && strings.Contains(mc.Message, "Within"), mc.Message
	})
	eventually(t, 30*time.Second, "broken-placement's add-ons removed", func() (bool, string) {
		var l addonv1alpha1.ManagedClusterAddOnList
		require.NoError(t, e.c.List(ctx, &l))
		var left []string
		for _, m := range l.Items {
			if m.Name == "broken-placement" {
				left = append(left, m.Namespace)
			}
		}
		return len(left) == 0, fmt.Sprint(left)
	})
	var l addonv1alpha1.ManagedClusterAddOnList
	require.NoError(t, e.c.List(ctx, &l))
	checked := 0
	for _, m := range l.Items {
		if _, ok := versions[m.Namespace+"/"+m.Name]; ok && m.Name == "bad-strategy" {
			assert.Empty(t, m.Status.ConfigReferences, "%s/%s was rolled out", m.Namespace, m.Name)
			for _, c := range m.Status.Conditions {
				assert.Equal(t, addonv1beta1.ManagedClusterAddOnConditionProgressing, c.Type, "%s/%s: condition %s written", m.Namespace, m.Name, c.Type)
			}
			checked++
		}
	}
	assert.Equal(t, len(o.Clusters()), checked)
}
