package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// prodWork is the add-on's work on prod-cluster, which the hub does not
// have: the work gate holds it from being created.
const prodWork = "addon-cluster-proxy-deploy-0"

// unavailable is what the add-on's manager reports when no replica of
// the work gate answered the API server.
const unavailable = `Internal error occurred: failed calling webhook "manifestworks.gate.rolloutkit.io": no endpoints available`

// withProdHeld returns the seed hub's objects with the work gate's hold
// of prod-cluster's works for reason (the work prodWork held from being
// created since 12:25, 5m before now) recorded on its add-on; for
// GateUnavailable, its manager's report of a write refused for want of
// the gate instead.
func withProdHeld(t *testing.T, reason, why string) []client.Object {
	t.Helper()
	objs := seedHub(t)
	since := metav1.NewTime(now.Add(-5 * time.Minute))
	for _, o := range objs {
		m, ok := o.(*addonv1alpha1.ManagedClusterAddOn)
		if !ok || m.Namespace != "prod-cluster" {
			continue
		}
		if reason == hubplan.ReasonGateUnavailable {
			m.Status.Conditions = append(m.Status.Conditions, metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnManifestApplied,
				Status: metav1.ConditionFalse, Reason: "ManifestWorkApplyFailed", Message: why, LastTransitionTime: since})
			continue
		}
		value, err := hubplan.Hold{Since: since, Reason: reason, Why: why, Works: map[string]string{prodWork: ""}}.Annotation()
		require.NoError(t, err)
		m.Annotations = map[string]string{hubplan.HoldAnnotation: value}
	}
	return objs
}

// TestStatusHolds: status says, in prod's counts, how many of its
// clusters the work gate holds, since when and how many miss a work;
// under the groups, each held cluster's works, since when, the gate's
// reason and why; and, for a rendering revision, which one the placement
// rolls out.
func TestStatusHolds(t *testing.T) {
	t.Parallel()
	rendering := hubplan.NewRenderingRevision(now).Revision
	const moved = "config managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy has moved on"
	tests := []struct {
		name  string
		objs  []client.Object
		lines [][]string
	}{
		{
			name: "a config change held: prod's work missing",
			objs: append(withProdHeld(t, "ConfigMovedOn", moved), needProd()),
			lines: [][]string{
				{"placement " + place + ": revision " + revision + ", ProgressivePerGroup"},
				{place, "prod", "2", "Blocked", "Approval", "0/0/0/0/1 (1 held since 12:25:00, 5m ago; 1 with a missing work)", `held: waiting for approval of group "prod"`},
				{"works the work gate holds, the longest held first:"},
				{"  " + place + ` group "prod":`},
				{"    prod-cluster: work " + prodWork + " missing, held since 12:25:00 (5m ago): ConfigMovedOn: " + moved},
			},
		},
		{
			name: "a new rendering held: joined with the config change",
			objs: append(withProdHeld(t, hubplan.HoldRenderingHeld, "new content of unchanged configs"), rollout(v1alpha1.AddOnRolloutSpec{})),
			lines: [][]string{
				{"placement " + place + ": revision " + hubplan.CombinedRevision(revision, rendering) + " (a config change joined with rendering revision " +
					rendering + ": one revision of both, from the first group), ProgressivePerGroup"},
				{"    prod-cluster: work " + prodWork + " missing, held since 12:25:00 (5m ago): RenderingHeld: new content of unchanged configs"},
			},
		},
		{
			name: "no replica of the gate answered: no works named",
			objs: append(withProdHeld(t, hubplan.ReasonGateUnavailable, unavailable), rollout(v1alpha1.AddOnRolloutSpec{})),
			lines: [][]string{
				{place, "prod", "0/0/0/0/1 (1 held since 12:25:00, 5m ago)"},
				{"    prod-cluster: held since 12:25:00 (5m ago): GateUnavailable: " + unavailable},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runWith(t, fakeHub(t, true, tt.objs...), "status", addonName)
			require.Equal(t, 0, code, errOut)
			for _, parts := range tt.lines {
				assert.NotEmpty(t, lineWith(out, parts...), "no line with %q in\n%s", parts, out)
			}
		})
	}
}

// TestStatusReportHolds: -o json and -o yaml carry the kind and the
// rendering revision of a placement's revision, and what the work gate
// holds of each group: heldSince, holds and counts.missing.
func TestStatusReportHolds(t *testing.T) {
	t.Parallel()
	rendering := hubplan.NewRenderingRevision(now).Revision
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			c := fakeHub(t, true, append(withProdHeld(t, hubplan.HoldRenderingHeld, "new content"), rollout(v1alpha1.AddOnRolloutSpec{}))...)
			code, out, errOut := runWith(t, c, "status", addonName, "-o", format)
			require.Equal(t, 0, code, errOut)
			var got report
			require.NoError(t, yaml.Unmarshal([]byte(out), &got), out)
			require.Len(t, got.Placements, 1)
			p := got.Placements[0]
			assert.Equal(t, hubplan.KindConfigAndRendering, p.Kind)
			assert.Equal(t, rendering, p.Rendering)
			assert.Equal(t, hubplan.CombinedRevision(revision, rendering), p.Revision)
			require.Len(t, p.Groups, 3)
			prod := p.Groups[2].Status
			require.NotNil(t, prod)
			since := metav1.NewTime(now.Add(-5 * time.Minute))
			assert.Equal(t, v1alpha1.GroupCounts{ToApply: 1, Held: 1, Missing: 1}, prod.Counts)
			require.NotNil(t, prod.HeldSince)
			assert.True(t, since.Equal(prod.HeldSince), "heldSince %s", prod.HeldSince)
			require.Len(t, prod.Holds, 1)
			h := prod.Holds[0]
			assert.True(t, since.Equal(&h.Since), "since %s", h.Since)
			h.Since = metav1.Time{}
			assert.Equal(t, v1alpha1.ClusterHold{Cluster: "prod-cluster", Works: []string{prodWork}, Missing: []string{prodWork},
				Reason: hubplan.HoldRenderingHeld, Message: "new content"}, h)
		})
	}
}
