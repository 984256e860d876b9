package hubplan_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// BenchmarkPlanner: what the operator's controls cost a reconcile.
// The seed's add-on over n clusters (dev 1%, stg 9%, prod 90%), dev done
// and stg applying the new config, planned by PlanAddon (the baseline) and
// by Planner.Plan under an AddOnRollout with every kind of gate (a
// window around now, prod needing an approval, a verification of stg)
// plus its status; the two run in one loop, so that their ratio
// (x-PlanAddon) is measured under the same load.
func BenchmarkPlanner(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			cma, in, mcas, specHash := controlledFleet(b, n)
			clk := fake.New(addontest.PlanNow)
			planner := rollout.Planner{Clock: clk}
			ctl := hubplan.Controls{Rollout: &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: cma.Name, Generation: 1},
				Spec: v1alpha1.AddOnRolloutSpec{
					ApprovalRequired: []string{"prod"},
					Windows:          []v1alpha1.RolloutWindow{{Groups: []string{"prod"}, Days: []string{"Mon-Sun"}, Start: "00:00", End: "23:59"}},
					Verifications: []v1alpha1.Verification{{Groups: []string{"stg"},
						Webhook: &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}}},
				}}}
			hp := hubplan.Planner{Rollout: planner}
			inputs := hubplan.Inputs{ClusterManagementAddOn: cma, Placements: in, Addons: mcas, Controls: ctl, SpecHash: specHash}
			var base, controlled time.Duration
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				if _, err := addon.PlanAddon(planner, cma, in, mcas, specHash); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := hp.Plan(inputs); err != nil {
					b.Fatal(err)
				}
				base, controlled = base+t1.Sub(t0), controlled+time.Since(t1)
			}
			b.ReportMetric(float64(controlled)/float64(base), "x-PlanAddon")
		})
	}
}

// controlledFleet is the seed's add-on over n clusters: dev done, stg
// applying the new config "v2", prod on the old "v1".
func controlledFleet(b *testing.B, n int) (*addonv1beta1.ClusterManagementAddOn, []addon.PlacementInput, []*addonv1beta1.ManagedClusterAddOn, addon.SpecHashFunc) {
	cma := addontest.SeedCMA(b)
	sizes := []int{n / 100, n * 9 / 100, n - n/100 - n*9/100}
	groups := make([]grouping.Group, 3)
	var mcas []*addonv1beta1.ManagedClusterAddOn
	for gi, name := range []string{"dev", "stg", "prod"} {
		groups[gi].GroupKey = grouping.GroupKey{Name: name, Index: int32(gi)}
		for i := range sizes[gi] {
			c := fmt.Sprintf("%s-%06d", name, i)
			groups[gi].Clusters = append(groups[gi].Clusters, c)
			switch name {
			case "dev":
				mcas = append(mcas, addontest.AppliedAddon(c, "v2", addontest.PlanNow.Add(-time.Hour)))
			case "stg":
				m := addontest.AppliedAddon(c, "v1", addontest.PlanNow.Add(-time.Hour))
				m.Status.ConfigReferences[0].DesiredConfig.SpecHash = "v2"
				mcas = append(mcas, m)
			default:
				mcas = append(mcas, addontest.AppliedAddon(c, "v1", addontest.PlanNow.Add(-time.Hour)))
			}
		}
	}
	specHash := func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) { return "v2", nil }
	in := []addon.PlacementInput{{Placement: addontest.PlacementObject(addontest.SeedPlacement(), intstr.FromString("100%")), Groups: groups}}
	return cma, in, mcas, specHash
}
