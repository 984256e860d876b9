package hubplan_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// TestPlanControlledConfigs: each placement's status lists its revision's
// configs with the spec hash rolled out and the image the config gives,
// and an approval waited for names them too.
func TestPlanControlledConfigs(t *testing.T) {
	t.Parallel()
	h := newControlHub(t, &v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"dev"}})
	h.ctl.Images = func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) string {
		return "quay.io/" + ref.Name + ":" + h.hash
	}
	p := h.plan()
	require.Len(t, p.Status.Placements, 1)
	configs := p.Status.Placements[0].Configs
	require.NotEmpty(t, configs)
	for _, c := range configs {
		assert.Equal(t, "v2", c.SpecHash, "the hash rolled out")
		assert.Equal(t, "quay.io/"+c.Name+":v2", c.Image)
		assert.NotEmpty(t, c.Resource)
	}
	require.Len(t, p.Status.PendingApprovals, 1)
	assert.Equal(t, configs, p.Status.PendingApprovals[0].Configs, "what an approval approves")
}

// TestPlanControlledConfirms: the status is confirmed when it changes and
// again at its recheckTime, not in between; the plan asks to be run again
// by then.
func TestPlanControlledConfirms(t *testing.T) {
	t.Parallel()
	h := newControlHub(t, &v1alpha1.AddOnRolloutSpec{Paused: true})
	first := h.step(0)
	require.NotNil(t, first.Status.LastConfirmedTime)
	assert.Equal(t, addontest.PlanNow, first.Status.LastConfirmedTime.Time)
	assert.Equal(t, addontest.PlanNow.Add(hubplan.ConfirmInterval), first.Status.RecheckTime.Time)
	assert.Equal(t, hubplan.ConfirmInterval, first.RecheckAfter)
	for _, tc := range []struct {
		name      string
		after     time.Duration // since the last step
		confirmed time.Time
		recheck   time.Duration
	}{
		{"a minute on, nothing changed: as read", time.Minute, addontest.PlanNow, hubplan.ConfirmInterval - time.Minute},
		{"at the recheck time: confirmed again", hubplan.ConfirmInterval - time.Minute, addontest.PlanNow.Add(hubplan.ConfirmInterval),
			hubplan.ConfirmInterval},
	} {
		p := h.step(tc.after)
		assert.Equal(t, tc.confirmed, p.Status.LastConfirmedTime.Time, tc.name)
		assert.Equal(t, tc.recheck, p.RecheckAfter, tc.name)
	}
}

// TestPlanControlledExpires: an approval of a superseded revision is in
// Plan.Expired once its placement's new revision is older than the
// retention; the plan asks to be run again then.
func TestPlanControlledExpires(t *testing.T) {
	t.Parallel()
	h := newControlHub(t, &v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}})
	h.planner.ApprovalRetention = time.Hour
	h.approve("old", "prod", revision("v1"))
	p := h.step(0)
	assert.Equal(t, hubplan.ReasonRevisionMismatch, h.approvedReason("old"))
	assert.Empty(t, p.Expired)
	assert.Equal(t, hubplan.ConfirmInterval, p.RecheckAfter)
	p = h.step(59 * time.Minute)
	assert.Empty(t, p.Expired)
	assert.Equal(t, time.Minute, p.RecheckAfter, "the expiry is the soonest")
	p = h.step(time.Minute)
	require.Len(t, p.Expired, 1)
	assert.Equal(t, hubplan.Expiry{Name: "old", Revision: revision("v1"), Current: revision("v2"), Since: addontest.PlanNow}, p.Expired[0])
}

// TestPlanWithoutAddOn: without its add-on, an AddOnRollout says so in its
// Progressing condition and lists nothing; each approval of the add-on
// says so in its Approved condition; others are left alone.
func TestPlanWithoutAddOn(t *testing.T) {
	t.Parallel()
	clk := fake.New(addontest.PlanNow)
	ar := &v1alpha1.AddOnRollout{}
	ar.Name, ar.Generation = "cluster-prxy", 3
	ar.Status.Placements = []v1alpha1.PlacementStatus{{Namespace: "ns", Name: "p", Revision: "r1"}}
	mine, other := approval("mine", "prod", "r1"), approval("other", "prod", "r1")
	mine.Spec.AddOn = "cluster-prxy"
	for _, tc := range []struct {
		name     string
		ctl      hubplan.Controls
		status   bool
		approved []string
	}{
		{"an AddOnRollout and an approval", hubplan.Controls{Rollout: ar, Approvals: []*v1alpha1.RolloutApproval{mine, other}}, true, []string{"mine"}},
		{"an approval alone", hubplan.Controls{Approvals: []*v1alpha1.RolloutApproval{mine}}, false, []string{"mine"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := hubplan.Planner{Rollout: rollout.Planner{Clock: clk}}.Plan(hubplan.Inputs{AddOn: "cluster-prxy", Controls: tc.ctl})
			require.NoError(t, err)
			var names []string
			for _, a := range p.Approvals {
				names = append(names, a.Name)
				c := addontest.Condition(a.Conditions, hubplan.ConditionApproved)
				assert.Equal(t, hubplan.ReasonAddOnNotFound, c.Reason)
				assert.Contains(t, c.Message, `no ClusterManagementAddOn "cluster-prxy"`)
			}
			assert.Equal(t, tc.approved, names)
			if !tc.status {
				assert.Zero(t, p.Status)
				return
			}
			c := addontest.Condition(p.Status.Conditions, hubplan.ConditionProgressing)
			assert.Equal(t, hubplan.ReasonAddOnNotFound, c.Reason)
			assert.Equal(t, "False", string(c.Status))
			assert.Contains(t, c.Message, "kubectl get clustermanagementaddons")
			assert.Empty(t, p.Status.Placements, "nothing rolls out")
			assert.Equal(t, int64(3), p.Status.ObservedGeneration)
			assert.Equal(t, addontest.PlanNow.Add(hubplan.ConfirmInterval), p.Status.RecheckTime.Time)
			assert.Equal(t, hubplan.ConfirmInterval, p.RecheckAfter)
		})
	}
}

// TestConfigImage: the image a config gives is its spec.proxyAgent.image.
func TestConfigImage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		obj  map[string]any
		want string
	}{
		{"a ManagedProxyConfiguration", map[string]any{"spec": map[string]any{"proxyAgent": map[string]any{"image": "quay.io/p:v2"}}}, "quay.io/p:v2"},
		{"no image", map[string]any{"spec": map[string]any{"replicas": int64(2)}}, ""},
		{"not a string", map[string]any{"spec": map[string]any{"proxyAgent": map[string]any{"image": int64(2)}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, hubplan.ConfigImage(&unstructured.Unstructured{Object: tc.obj}))
		})
	}
	assert.Empty(t, hubplan.ConfigImage(nil))
}

// TestConfigsText: a revision's configs on one line, hashes shortened.
func TestConfigsText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		configs []v1alpha1.RevisionConfig
		want    string
	}{
		{"none", nil, "no configs"},
		{"two", []v1alpha1.RevisionConfig{
			{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs", Namespace: "ns", Name: "deploy", SpecHash: "0123456789abcdef"},
			{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations", Name: "cluster-proxy", SpecHash: "fedcba", Image: "quay.io/p:v2"}},
			"addondeploymentconfigs.addon.open-cluster-management.io ns/deploy spec 0123456789ab; " +
				"managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy spec fedcba image quay.io/p:v2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, hubplan.ConfigsText(tc.configs))
		})
	}
}
