package conformance

// Install and removal: OCM v1.2.0's addon-management controller (its
// install reconciler, over fake clientsets) beside rolloutkit's
// addon.Install, on the seed's hub.

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"open-cluster-management.io/ocm/pkg/addon/controllers/addonmanagement"

	"github.com/rolloutkit/rolloutkit/placement"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// runOCMInstall runs one sync of OCM v1.2.0's addon-management controller
// on the hub and returns the clusters it created an add-on in and those it
// deleted one from, sorted, and the owner references of the created ones.
func runOCMInstall(t *testing.T, cma *addonv1alpha1.ClusterManagementAddOn, placements []*clusterv1beta1.Placement,
	decisions []*clusterv1beta1.PlacementDecision, existing []string) (create, remove []string, owners [][]metav1.OwnerReference) {
	t.Helper()
	addonObjs := []runtime.Object{cma.DeepCopy()}
	for _, c := range existing {
		addonObjs = append(addonObjs, &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: c, Name: cma.Name}})
	}
	var clusterObjs []runtime.Object
	for _, p := range placements {
		clusterObjs = append(clusterObjs, p.DeepCopy())
	}
	for _, d := range decisions {
		clusterObjs = append(clusterObjs, d.DeepCopy())
	}
	in := newOCMAddonInformers(t, addonObjs, clusterObjs)
	addonClient := in.addonClient
	everything := func(any) bool { return true }
	ctrl := addonmanagement.NewAddonManagementController(addonClient, in.mcas, in.cmas, in.placements, in.decisions, everything)
	addonClient.ClearActions()
	require.NoError(t, ctrl.Sync(context.Background(), ctrl.SyncContext(), cma.Name))
	for _, a := range addonClient.Actions() {
		switch a.GetVerb() {
		case "create":
			create = append(create, a.GetNamespace())
			mca, err := addonClient.AddonV1alpha1().ManagedClusterAddOns(a.GetNamespace()).Get(context.Background(), cma.Name, metav1.GetOptions{})
			require.NoError(t, err)
			owners = append(owners, mca.OwnerReferences)
		case "delete":
			remove = append(remove, a.GetNamespace())
		}
	}
	slices.Sort(create)
	slices.Sort(remove)
	return create, remove, owners
}

// TestInstallAgrees: which ManagedClusterAddOns OCM's add-on manager
// creates and deletes, and which addon.Install says to, on the seed's hub:
// a fresh install, a cluster that left, a Manual strategy, and a missing
// Placement (OCM skips it: its clusters are not required, and their
// add-ons go).
func TestInstallAgrees(t *testing.T) {
	t.Parallel()
	h := seedAddonHub(t, time.Now(), clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All})
	manual := h.cma.DeepCopy()
	manual.Spec.InstallStrategy = addonv1alpha1.InstallStrategy{Type: addonv1alpha1.AddonInstallStrategyManual}
	for _, tt := range []struct {
		name       string
		cma        *addonv1alpha1.ClusterManagementAddOn
		placements []*clusterv1beta1.Placement
		existing   []string
		create     []string
		remove     []string
	}{
		{name: "fresh hub", cma: h.cma, placements: []*clusterv1beta1.Placement{h.placement},
			create: []string{"dev-cluster", "prod-cluster", "stg-cluster"}},
		{name: "a cluster left the placement", cma: h.cma, placements: []*clusterv1beta1.Placement{h.placement},
			existing: []string{"dev-cluster", "gone-cluster", "prod-cluster", "stg-cluster"}, remove: []string{"gone-cluster"}},
		{name: "manual strategy", cma: manual, placements: []*clusterv1beta1.Placement{h.placement},
			existing: []string{"gone-cluster"}},
		{name: "missing Placement", cma: h.cma,
			existing: []string{"dev-cluster", "stg-cluster"}, remove: []string{"dev-cluster", "stg-cluster"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ocmCreate, ocmRemove, owners := runOCMInstall(t, tt.cma, tt.placements, h.decisions, tt.existing)
			assert.Equal(t, tt.create, ocmCreate, "OCM creates")
			assert.Equal(t, tt.remove, ocmRemove, "OCM deletes")
			for _, o := range owners {
				require.Len(t, o, 1)
				assert.True(t, *o[0].Controller, "OCM's add-on is controlled by its ClusterManagementAddOn")
			}

			cma := &addonv1beta1.ClusterManagementAddOn{}
			require.NoError(t, addonv1beta1.Convert_v1alpha1_ClusterManagementAddOn_To_v1beta1_ClusterManagementAddOn(tt.cma.DeepCopy(), cma, nil))
			groups, err := placement.GroupsFromDecisions(h.decisions)
			require.NoError(t, err)
			inputs := make([]addon.PlacementInput, len(cma.Spec.InstallStrategy.Placements))
			for i := range inputs {
				inputs[i].Groups = groups
				if len(tt.placements) > 0 {
					inputs[i].Placement = tt.placements[0]
				}
			}
			create, remove := addon.Install(cma, inputs, tt.existing)
			assert.Equal(t, tt.create, create, "rolloutkit creates")
			assert.Equal(t, tt.remove, remove, "rolloutkit deletes")
		})
	}
}
