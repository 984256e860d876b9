package addons

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/dryrun"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// groupsOnlyInStatus drops the canary placement's PlacementDecisions and
// leaves their groups in its Placement's status only, on a hub whose
// ManagedClusters the Placement (no predicate) selects all of: OCM's add-on
// manager, and the controller, take groups from PlacementDecisions, so the
// canary has none; scheduling the Placement would give it every cluster.
func groupsOnlyInStatus(objs []client.Object) []client.Object {
	out := []client.Object{hubtest.Cluster("dev-cluster"), hubtest.Cluster("stg-cluster"), hubtest.Cluster("prod-cluster"), hubtest.Cluster("qa-cluster"), hubtest.Cluster("edge-cluster")}
	for _, o := range objs {
		switch o := o.(type) {
		case *clusterv1beta1.PlacementDecision:
			if o.Labels[clusterv1beta1.PlacementLabel] == hubtest.CanaryRef.Name {
				continue
			}
		case *clusterv1beta1.Placement:
			if o.Name == hubtest.CanaryRef.Name {
				p := o.DeepCopy()
				p.Status.NumberOfSelectedClusters = 3
				p.Status.DecisionGroups = []clusterv1beta1.DecisionGroupStatus{{DecisionGroupIndex: 0, ClustersCount: 3,
					Decisions: []string{hubtest.CanaryRef.Name + "-decision-1"}}}
				out = append(out, p)
				continue
			}
		}
		out = append(out, o)
	}
	return out
}

// configUnreadable drops the add-on's config object: the controller cannot
// hash it, and plans nothing on it.
func configUnreadable(objs []client.Object) []client.Object {
	var out []client.Object
	for _, o := range objs {
		if u, ok := o.(*unstructured.Unstructured); ok && u.GetKind() == hubtest.ProxyGVK.Kind {
			continue
		}
		out = append(out, o)
	}
	return out
}

// TestDryRunAgreesWithReconciler: on one hub, the dry run says what the
// add-on reconciler then does: the clusters it says start now are exactly
// those whose desiredConfig the reconcile changes, and each placement's
// progression is the message the reconcile writes in the placement's
// install progression. Under an AddOnRollout (paused, requiring an
// approval, invalid) it holds what the reconcile holds, and each group's
// status, the pending approvals and the Progressing condition it reports
// are those the reconcile writes in the AddOnRollout's status. The dry run
// writes nothing and plans only the add-ons the controller takes.
func TestDryRunAgreesWithReconciler(t *testing.T) {
	t.Parallel()
	rolloutOf := func(spec v1alpha1.AddOnRolloutSpec) *v1alpha1.AddOnRollout {
		return &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: hubtest.SeedAddonName, Generation: 1}, Spec: spec}
	}
	for _, tc := range []struct {
		name    string
		rollout *v1alpha1.AddOnRollout
		change  func([]client.Object) []client.Object
		start   []string
	}{
		{"no AddOnRollout", nil, nil, []string{"qa-cluster", "stg-cluster"}},
		{"paused", rolloutOf(v1alpha1.AddOnRolloutSpec{Paused: true}), nil, []string{}},
		{"prod needs an approval", rolloutOf(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}), nil, []string{"qa-cluster", "stg-cluster"}},
		{"invalid", rolloutOf(v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{{Days: []string{"Mon"}, Start: "09:00", End: "17:00", TimeZone: "Mars/Olympus"}}}),
			nil, []string{}},
		// where the dry run once differed: it scheduled a Placement without
		// PlacementDecisions, and hashed a config it could not read from a
		// status
		{"groups only in the Placement's status", nil, groupsOnlyInStatus, []string{}},
		{"an unreadable config", nil, configUnreadable, []string{}},
		{"an unreadable config, under an AddOnRollout", rolloutOf(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}), configUnreadable, []string{}},
	} {
		for _, version := range hubtest.AddonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				var extra []client.Object
				if tc.rollout != nil {
					extra = append(extra, tc.rollout)
				}
				h := hubtest.DryRunHubWith(t, version, tc.change, extra...)
				mapper := hubtest.WithRollouts(h.Mapper)
				var buf bytes.Buffer
				require.NoError(t, dryrun.DryRun(context.Background(), h.Client, mapper, version, historyNS, nil, hubtest.Start, &buf))
				text := buf.String()
				assert.Zero(t, h.Writes.Load(), "the dry run wrote")
				dry := hubtest.ParseDryRun(t, text)
				require.Equal(t, []string{hubtest.SeedAddonName}, dry.Addons, "the dry run planned another add-on than the controller's:\n%s", text)
				require.ElementsMatch(t, tc.start, dry.Start, "the story changed:\n%s", text)
				hub, err := dryrun.ReadHub(context.Background(), h.Client, mapper, version)
				require.NoError(t, err)
				rep, err := planreport.New(hub, hubtest.SeedAddonName, hubtest.Start, nil)
				require.NoError(t, err)

				clusters := []string{"dev-cluster", "stg-cluster", "prod-cluster", "qa-cluster", "edge-cluster"}
				before := map[string]string{}
				for _, c := range clusters {
					before[c] = hubtest.DesiredHash(t, h.Addon(c, hubtest.SeedAddonName))
				}
				_, err = reconcileAddon(newAddonReconciler(h, clockfake.New(hubtest.Start), nil), hubtest.SeedAddonName)
				require.NoError(t, err)
				changed := []string{}
				for _, c := range clusters {
					m := h.Addon(c, hubtest.SeedAddonName)
					if m == nil {
						continue // removed: no placement selects it (groups only in a Placement's status)
					}
					if hubtest.DesiredHash(t, m) != before[c] {
						changed = append(changed, c)
					}
				}
				assert.ElementsMatch(t, dry.Start, changed, "started now: the dry run and the reconcile disagree\n%s", text)

				cma := h.CMA(hubtest.SeedAddonName)
				require.Len(t, dry.Progression, len(cma.Spec.InstallStrategy.Placements), text)
				for _, ref := range []addonv1beta1.PlacementRef{hubtest.SeedRef, hubtest.CanaryRef} {
					key := ref.Namespace + "/" + ref.Name
					_, cond := hubtest.ProgressionOf(t, cma, ref)
					require.NotNil(t, cond)
					assert.Equal(t, cond.Message, dry.Progression[key], "%s: the dry run and the reconcile disagree", key)
				}
				assert.ElementsMatch(t, tc.start, dry.StartOf[hubtest.CanaryRef.Namespace+"/"+hubtest.CanaryRef.Name])
				assert.Empty(t, dry.StartOf[hubtest.SeedRef.Namespace+"/"+hubtest.SeedRef.Name], "prod waits for dev's soak")
				if tc.rollout == nil {
					assert.Nil(t, rep.Rollout)
					return
				}
				var ar v1alpha1.AddOnRollout
				require.NoError(t, h.Client.Get(context.Background(), types.NamespacedName{Name: hubtest.SeedAddonName}, &ar))
				assertReportsStatus(t, rep, &ar)
			})
		}
	}
}

// assertReportsStatus checks that the report says of each placement and
// group what the reconcile wrote in the AddOnRollout's status.
func assertReportsStatus(t *testing.T, rep *planreport.Report, ar *v1alpha1.AddOnRollout) {
	t.Helper()
	require.NotNil(t, rep.Rollout)
	require.Len(t, ar.Status.Placements, len(rep.Placements))
	for i, ps := range ar.Status.Placements {
		p := rep.Placements[i]
		assert.Equal(t, ps.Namespace+"/"+ps.Name, p.Namespace+"/"+p.Name)
		assert.Equal(t, ps.Revision, p.Revision, "%s/%s", ps.Namespace, ps.Name)
		var reported []v1alpha1.GroupStatus
		for _, g := range p.Groups {
			if g.Status != nil {
				reported = append(reported, *g.Status)
			}
		}
		assert.ElementsMatch(t, ps.Groups, reported, "%s/%s: the groups' status", ps.Namespace, ps.Name)
	}
	assert.Equal(t, ar.Status.PendingApprovals, nilIfEmpty(rep.Rollout.PendingApprovals))
	for _, typ := range []string{hubplan.ConditionValid, hubplan.ConditionPaused, hubplan.ConditionProgressing} {
		want := meta.FindStatusCondition(ar.Status.Conditions, typ)
		got := meta.FindStatusCondition(rep.Rollout.Conditions, typ)
		require.NotNil(t, want, typ)
		require.NotNil(t, got, typ)
		assert.Equal(t, string(want.Status)+" "+want.Reason+": "+want.Message, string(got.Status)+" "+got.Reason+": "+got.Message, typ)
	}
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
