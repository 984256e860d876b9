package planreport_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// deployWork is the name of the add-on's work on a cluster.
const deployWork = "addon-cluster-proxy-deploy-0"

// heldSince is when the work gate began to hold prod's work: 12:01:05.
func heldSince() time.Time { return at(12, 1).Add(5 * time.Second) }

// withHold is h with the work gate's hold of prod-cluster's works for
// reason recorded on its add-on: deployWork held from being created, and
// not there. The hub's works are read (none), as the controller reads
// them.
func withHold(h *planreport.Hub, reason, why string) *planreport.Hub {
	hold := hubplan.Hold{Since: metav1.NewTime(heldSince()), Reason: reason, Why: why, Works: map[string]string{deployWork: ""}}
	value, err := hold.Annotation()
	if err != nil {
		panic(err)
	}
	mcas := make([]*addonv1beta1.ManagedClusterAddOn, len(h.ManagedClusterAddOns))
	for i, m := range h.ManagedClusterAddOns {
		mcas[i] = m.DeepCopy()
		if m.Namespace == "prod-cluster" {
			mcas[i].Annotations = map[string]string{hubplan.HoldAnnotation: value}
		}
	}
	h.ManagedClusterAddOns = mcas
	h.Works = []*workv1.ManifestWork{}
	return h
}

// allDone is h with the seed's add-ons at 12:20 with prod done too, at
// 12:11: every cluster runs the configs.
func allDone(h *planreport.Hub) *planreport.Hub {
	h.ManagedClusterAddOns = stgDone()
	h.ManagedClusterAddOns[2] = managedAddon("prod-cluster", newHash, newHash, addonv1beta1.ProgressingReasonCompleted, at(12, 11))
	return h
}

// staleHolds is a status the controller last confirmed at 12:11 and was
// to recheck by 12:15, whose prod group it said the gate held 12 clusters
// of, listing two.
func staleHolds() v1alpha1.AddOnRolloutStatus {
	st := soakingStatus(true, true)
	since := metav1.NewTime(heldSince())
	prod := &st.Placements[0].Groups[2]
	prod.Counts.Held, prod.Counts.Missing, prod.HeldSince = 12, 1, &since
	prod.Holds = []v1alpha1.ClusterHold{
		{Cluster: "prod-cluster", Works: []string{deployWork}, Missing: []string{deployWork}, Reason: "ConfigMovedOn", Since: since, Message: "moved on"},
		{Cluster: "prod-cluster-2", Works: []string{deployWork}, Reason: "NotHandedOver", Since: metav1.NewTime(at(12, 3)), Message: "not handed over"},
	}
	return st
}

// TestWriteHolds: the status and the report say what the work gate holds
// of each group's clusters (how many, since when, how many miss a work,
// then each hold on its own line and how many more there are), and what
// a rendering revision rolls out; the JSON carries them.
func TestWriteHolds(t *testing.T) {
	t.Parallel()
	rendering := hubplan.NewRenderingRevision(at(12, 20)).Revision
	combined := hubplan.CombinedRevision(seedRevision(), rendering)
	const moved = "config managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy has moved on"
	holdLine := func(reason, why string) string {
		return "    prod-cluster: work " + deployWork + " missing, held since 12:01:05 (18m ago): " + reason + ": " + why + "\n"
	}
	tests := []struct {
		name                      string
		hub                       *planreport.Hub
		now                       time.Time
		kind, rendering, revision string
		counts                    string // prod's counts column in the status
		status, text              []string
	}{
		{
			name: "a config change held: a work missing", now: at(12, 20),
			hub:  withHold(controlled(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}, v1alpha1.AddOnRolloutStatus{}), "ConfigMovedOn", moved),
			kind: hubplan.KindConfig, revision: seedRevision(),
			counts: "0/0/0/0/1 (1 held since 12:01:05, 18m ago; 1 with a missing work)",
			status: []string{
				"placement open-cluster-management/cluster-proxy-placement: revision " + seedRevision() + ", ProgressivePerGroup\n",
				"works the work gate holds, the longest held first:\n  open-cluster-management/cluster-proxy-placement group \"prod\":\n" + holdLine("ConfigMovedOn", moved),
			},
			text: []string{
				"  revision: " + seedRevision() + "\n",
				`  held: group "prod", waits for Approval: waiting for approval of group "prod"` + "\n" +
					`  work gate: group "prod": 1 held since 12:01:05, 18m ago; 1 with a missing work` + "\n" + holdLine("ConfigMovedOn", moved),
			},
		},
		{
			name: "a rendering of unchanged configs", now: at(12, 20),
			hub:  withHold(allDone(controlled(v1alpha1.AddOnRolloutSpec{}, v1alpha1.AddOnRolloutStatus{})), hubplan.HoldRenderingHeld, "new content"),
			kind: hubplan.KindRendering, rendering: rendering, revision: combined,
			counts: "0/0/0/0/1 (1 held since 12:01:05, 18m ago; 1 with a missing work)",
			status: []string{
				"placement open-cluster-management/cluster-proxy-placement: revision " + combined + " (rendering revision " + rendering +
					" of unchanged configs, held by the work gate until released), ProgressivePerGroup\n",
				holdLine("RenderingHeld", "new content"),
			},
			text: []string{
				"  revision: " + combined + " (rendering revision " + rendering + " of unchanged configs, held by the work gate until released)\n",
				`  work gate: group "prod": 1 held since 12:01:05, 18m ago; 1 with a missing work` + "\n" + holdLine("RenderingHeld", "new content"),
			},
		},
		{
			name: "a rendering joined with a config change", now: at(12, 20),
			hub:  withHold(controlled(v1alpha1.AddOnRolloutSpec{}, v1alpha1.AddOnRolloutStatus{}), hubplan.HoldRenderingHeld, "new content"),
			kind: hubplan.KindConfigAndRendering, rendering: rendering, revision: combined,
			counts: "0/0/0/0/1 (1 held since 12:01:05, 18m ago; 1 with a missing work)",
			status: []string{
				"placement open-cluster-management/cluster-proxy-placement: revision " + combined + " (a config change joined with rendering revision " + rendering +
					": one revision of both, from the first group), ProgressivePerGroup\n",
			},
			text: []string{
				"  revision: " + combined + " (a config change joined with rendering revision " + rendering + ": one revision of both, from the first group)\n",
			},
		},
		{
			name: "stale: the holds the status last said, and how many more", now: at(12, 20),
			hub:      controlled(v1alpha1.AddOnRolloutSpec{}, staleHolds()),
			revision: seedRevision(), // no works read: no kind
			counts:   "0/0/0/0/1",
			status: []string{
				"0/0/0/0/1 (12 held since 12:01:05, 18m ago; 1 with a missing work)",
				"a running controller would start: prod-cluster\n" +
					"works the work gate holds, the longest held first:\n" +
					"  open-cluster-management/cluster-proxy-placement group \"prod\":\n" +
					holdLine("ConfigMovedOn", "moved on") +
					"    prod-cluster-2: work " + deployWork + ", held since 12:03:00 (17m ago): NotHandedOver: not handed over\n" +
					"    and 10 more held clusters, not listed\n",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := planreport.New(tt.hub, addonName, tt.now, nil)
			require.NoError(t, err)
			p := rep.Placements[0]
			assert.Equal(t, tt.kind, p.Kind)
			assert.Equal(t, tt.rendering, p.Rendering)
			assert.Equal(t, tt.revision, p.Revision)
			assert.Equal(t, tt.counts, p.Groups[2].Row(tt.now).Counts)

			var status, text bytes.Buffer
			require.NoError(t, rep.WriteStatus(&status, planreport.StatusOptions{Command: "rolloutctl"}))
			for _, want := range tt.status {
				assert.Contains(t, status.String(), want)
			}
			require.NoError(t, rep.WriteText(&text))
			for _, want := range tt.text {
				assert.Contains(t, text.String(), want)
			}
		})
	}
}

// TestWriteJSONHolds pins the JSON of what the work gate holds and of a
// rendering revision: the placement's kind and rendering revision, and
// the group's heldSince, holds and counts.missing.
func TestWriteJSONHolds(t *testing.T) {
	t.Parallel()
	h := withHold(controlled(v1alpha1.AddOnRolloutSpec{}, v1alpha1.AddOnRolloutStatus{}), hubplan.HoldRenderingHeld, "new content")
	rep, err := planreport.New(h, addonName, at(12, 20), nil)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, rep.WriteJSON(&b))
	var doc struct {
		Placements []struct {
			Kind      *string `json:"kind"`
			Rendering *string `json:"rendering"`
			Groups    []struct {
				Status map[string]json.RawMessage `json:"status"`
			} `json:"groups"`
		} `json:"placements"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	require.Len(t, doc.Placements, 1)
	p := doc.Placements[0]
	require.NotNil(t, p.Kind)
	assert.Equal(t, hubplan.KindConfigAndRendering, *p.Kind)
	require.NotNil(t, p.Rendering)
	assert.Equal(t, hubplan.NewRenderingRevision(at(12, 20)).Revision, *p.Rendering)
	require.Len(t, p.Groups, 3)
	prod := p.Groups[2].Status
	assert.JSONEq(t, `"2026-11-30T12:01:05Z"`, string(prod["heldSince"]))
	assert.JSONEq(t, `[{"cluster": "prod-cluster", "works": ["`+deployWork+`"], "missing": ["`+deployWork+`"], "reason": "RenderingHeld",
		"since": "2026-11-30T12:01:05Z", "message": "new content"}]`, string(prod["holds"]))
	assert.JSONEq(t, `{"succeeded": 0, "progressing": 0, "failed": 0, "timedOut": 0, "toApply": 1, "held": 1, "missing": 1}`, string(prod["counts"]))
	assert.NotContains(t, p.Groups[0].Status, "holds", "dev: nothing held")
}
