package e2e_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/addons"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// TestRevert: after a halt in stg, the config is put back. That is a new
// rollout of the old hash: dev (which applied the bad config) and stg
// (which failed it) get the old hash again, dev first; prod, which never
// left the old config, is done at once and its desiredConfig is never
// written.
func TestRevert(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	o := seedHub(t, e, "4s")
	ctl := e.controller(t)
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	// One agent throughout: stg fails to apply the new config, and only it.
	e.agents(t, applyTime, failingOn(e.stg, newHash))
	e.installed(t, o, e.addonName, oldHash, 60*time.Second)
	prodWrites := func() int { return ctl.writes.count("/namespaces/" + e.prod + "/managedclusteraddons") }
	prodBefore := prodWrites()
	ob := e.observe(t, o.Clusters(), e.addonName, oldHash)
	e.haltAtStg(t, ctl, newHash)

	e.setAgentImage(t, testhub.Image)
	e.installed(t, o, e.addonName, oldHash, 60*time.Second)
	ob.close()

	assert.Equal(t, []string{oldHash, newHash, oldHash}, ob.desired[e.dev])
	assert.Equal(t, []string{oldHash, newHash, oldHash}, ob.applied[e.dev])
	assert.Equal(t, []string{oldHash, newHash, oldHash}, ob.desired[e.stg])
	assert.Equal(t, []string{oldHash}, ob.applied[e.stg], "stg never applied the bad config")
	assert.Equal(t, []string{oldHash}, ob.desired[e.prod], "prod's desiredConfig was written")
	// Reverting: stg got the old hash again only after dev had applied it
	// and soaked (dev's Completed time is stored to the second).
	require.Len(t, ob.desiredAt[e.stg], 3)
	devDone := e.addon(t, e.dev, e.addonName).progressing
	require.NotNil(t, devDone)
	stgAgain := ob.desiredAt[e.stg][2]
	assert.False(t, stgAgain.Before(devDone.LastTransitionTime.Add(soak)),
		"stg reverted at %s, before dev's soak ended at %s", stgAgain, devDone.LastTransitionTime.Add(soak))
	// Prod's add-on was written only to flip its Configured condition
	// (not configured while the bad config was desired, configured again).
	assert.LessOrEqual(t, prodWrites()-prodBefore, 2)
	ip, _ := e.progression(t, e.addonName)
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
	e := sharedEnv(t)
	o := seedHub(t, e, "30s")
	ctx := context.Background()
	badStrategy, brokenPlacement, missingConfig := e.named("bad-strategy"), e.named("broken-placement"), e.named("missing-config")
	notYetName := e.named("not-yet")

	cma, err := e.seedAddon(testhub.SeedOptions{})
	require.NoError(t, err)
	bad := cma.DeepCopy()
	bad.Name = badStrategy
	bad.Spec.InstallStrategy.Placements[0].RolloutStrategy = testhub.Strategy("2s", "10mfoo", 0)
	broken := cma.DeepCopy()
	broken.Name = brokenPlacement
	broken.Spec.InstallStrategy.Placements[0].Name = "broken"
	missing := cma.DeepCopy()
	missing.Name = missingConfig
	missing.Spec.DefaultConfigs[0].Name = notYetName
	missing.Spec.InstallStrategy.Placements[0].RolloutStrategy = o.Strategy
	for _, c := range []*addonv1beta1.ClusterManagementAddOn{bad, broken, missing} {
		alpha, err := testhub.AddonV1alpha1(c)
		require.NoError(t, err)
		require.NoError(t, e.c.Create(ctx, alpha))
	}
	// Their add-ons already exist (installed earlier, say).
	versions := map[string]string{}
	for _, name := range []string{badStrategy, brokenPlacement} {
		for _, c := range o.Clusters() {
			m := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: c, Name: name}}
			require.NoError(t, e.c.Create(ctx, m))
			versions[c+"/"+name] = m.ResourceVersion
		}
	}
	p, err := seed.Placement()
	require.NoError(t, err)
	p.Namespace, p.Name = e.namespace, "broken"
	p.Spec.Predicates[0].RequiredClusterSelector.LabelSelector.MatchExpressions[0].Operator = "Within"
	require.NoError(t, e.c.Create(ctx, p))

	e.controller(t)
	e.agents(t, applyTime, nil)
	e.installed(t, o, e.addonName, specHash(t, testhub.Image), 60*time.Second)

	c := e.progressingWith(t, badStrategy, addons.ReasonInvalidRolloutStrategy, "")
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Contains(t, c.Message, `spec.installStrategy.placements[0].rolloutStrategy.progressivePerGroup.progressDeadline: Invalid value: "10mfoo"`)
	e.eventAbout(t, badStrategy, addons.ReasonInvalidRolloutStrategy, "10mfoo")

	// A config object that does not exist: the install progression and an
	// event name it; once it is created, the add-on rolls out.
	c = e.progressingWith(t, missingConfig, addon.ReasonConfigurationError, `managedproxyconfigurations.proxy.open-cluster-management.io "`+notYetName+`"`)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	e.eventAbout(t, missingConfig, addon.ReasonConfigurationError, `"`+notYetName+`"`)
	notYet := e.proxyConfig(t, testhub.Image)
	notYet.SetName(notYetName)
	require.NoError(t, e.c.Create(ctx, notYet))
	e.installed(t, o, missingConfig, specHash(t, testhub.Image), 90*time.Second)

	e.misconfigured(t, p.Namespace, p.Name)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		mcas, _ := e.addonObjects(ct, brokenPlacement)
		assert.Empty(ct, mcas, "add-ons left")
	}, 30*time.Second, poll, "broken-placement's add-ons removed")
	var l addonv1alpha1.ManagedClusterAddOnList
	require.NoError(t, e.c.List(ctx, &l))
	checked := 0
	for _, m := range l.Items {
		if _, ok := versions[m.Namespace+"/"+m.Name]; ok && m.Name == badStrategy {
			assert.Empty(t, m.Status.ConfigReferences, "%s/%s was rolled out", m.Namespace, m.Name)
			for _, c := range m.Status.Conditions {
				assert.Equal(t, addonv1beta1.ManagedClusterAddOnConditionProgressing, c.Type, "%s/%s: condition %s written", m.Namespace, m.Name, c.Type)
			}
			checked++
		}
	}
	assert.Equal(t, len(o.Clusters()), checked)
}

// progressingWith waits until the install progression of add-on name has
// a Progressing condition of reason whose message contains says, and
// returns it.
func (e *env) progressingWith(t testing.TB, name, reason, says string) *metav1.Condition {
	t.Helper()
	var c *metav1.Condition
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		ip, ok := e.progression(ct, name)
		require.True(ct, ok, "no progression")
		c = meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		require.NotNil(ct, c, "no condition")
		assert.Equal(ct, reason, c.Reason, c.Message)
		assert.Contains(ct, c.Message, says)
	}, 30*time.Second, poll, "%s: %s reported", name, reason)
	return c
}

// eventAbout waits for an event of reason about the object name whose
// note contains note.
func (e *env) eventAbout(t testing.TB, name, reason, note string) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var evs eventsv1.EventList
		require.NoError(ct, e.c.List(context.Background(), &evs))
		assert.True(ct, slices.ContainsFunc(evs.Items, func(ev eventsv1.Event) bool {
			return ev.Reason == reason && ev.Regarding.Name == name && strings.Contains(ev.Note, note)
		}), "no event")
	}, 30*time.Second, poll, "%s event about %s", reason, name)
}

// misconfigured waits until a Placement has OCM's PlacementMisconfigured
// condition, naming the bad operator Within.
func (e *env) misconfigured(t testing.TB, namespace, name string) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		mc := meta.FindStatusCondition(e.placementIn(ct, namespace, name).Status.Conditions, clusterv1beta1.PlacementConditionMisconfigured)
		require.NotNil(ct, mc, "no condition")
		assert.Equal(ct, metav1.ConditionTrue, mc.Status, mc.Message)
		assert.Equal(ct, "Misconfigured", mc.Reason, mc.Message)
		assert.Contains(ct, mc.Message, "Within")
	}, 30*time.Second, poll, "placement misconfigured")
}
