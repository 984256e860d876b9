package addons

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
)

// controllerRef is the owner reference the controller gives an add-on of
// the seed's ClusterManagementAddOn in version.
func controllerRef(version string) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: addonv1beta1.GroupName + "/" + version, Kind: "ClusterManagementAddOn",
		Name: hubtest.SeedAddonName, UID: "cluster-proxy-uid", Controller: hubtest.PtrTo(true), BlockOwnerDeletion: hubtest.PtrTo(true),
	}
}

// TestOwnedBy: an add-on of a taken ClusterManagementAddOn gets a
// controller reference to it unless it already names its UID or another
// object controls it; a reference to an earlier ClusterManagementAddOn of
// that name is replaced, and other owners are kept.
func TestOwnedBy(t *testing.T) {
	t.Parallel()
	cma := hubtest.SeedAddon(t, hubclient.DefaultLifecycle)
	ours := controllerRef(hubclient.V1alpha1)
	earlier := ours
	earlier.UID = "an-earlier-uid"
	plain := metav1.OwnerReference{APIVersion: addonv1beta1.GroupName + "/" + hubclient.V1beta1, Kind: "ClusterManagementAddOn", Name: hubtest.SeedAddonName, UID: "cluster-proxy-uid"}
	other := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "installer", UID: "installer-uid"}
	otherController := other
	otherController.Controller = hubtest.PtrTo(true)
	for _, tc := range []struct {
		name    string
		refs    []metav1.OwnerReference
		want    []metav1.OwnerReference
		changed bool
	}{
		{name: "none", refs: nil, want: []metav1.OwnerReference{ours}, changed: true},
		{name: "already controlled by it", refs: []metav1.OwnerReference{ours}, want: []metav1.OwnerReference{ours}},
		{name: "owned by its UID, not as controller, in the other version", refs: []metav1.OwnerReference{plain}, want: []metav1.OwnerReference{plain}},
		{name: "an earlier ClusterManagementAddOn of that name", refs: []metav1.OwnerReference{earlier}, want: []metav1.OwnerReference{ours}, changed: true},
		{name: "another owner, not a controller", refs: []metav1.OwnerReference{other}, want: []metav1.OwnerReference{other, ours}, changed: true},
		{name: "controlled by another object", refs: []metav1.OwnerReference{otherController}, want: []metav1.OwnerReference{otherController}},
		{name: "an earlier one beside another controller", refs: []metav1.OwnerReference{earlier, otherController}, want: []metav1.OwnerReference{earlier, otherController}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := append([]metav1.OwnerReference(nil), tc.refs...)
			got, changed := ownedBy(in, cma, hubclient.V1alpha1)
			assert.Equal(t, tc.changed, changed)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.refs, in, "the input was modified")
		})
	}
}

// TestAddonReconcileAdopts: the add-ons of a taken ClusterManagementAddOn
// that others made (here under a Manual install strategy) are adopted, so
// that the garbage collector deletes them with it: one with no owner, one
// owned by an earlier ClusterManagementAddOn of that name. One controlled
// by another object, one being deleted, and the add-ons of a
// ClusterManagementAddOn the controller does not take are left as they
// are. An adopted add-on is configured in the same reconcile: its status
// write is locked on the resourceVersion the adoption returned.
func TestAddonReconcileAdopts(t *testing.T) {
	t.Parallel()
	manual := func(cma *addonv1beta1.ClusterManagementAddOn) {
		cma.Spec.InstallStrategy = addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyManual}
	}
	for _, version := range hubtest.AddonVersions {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			cfg := hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")
			earlier := controllerRef(version)
			earlier.UID = "an-earlier-uid"
			installer := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "installer", UID: "installer-uid", Controller: hubtest.PtrTo(true)}
			withOwner := func(cluster string, ref metav1.OwnerReference) *addonv1beta1.ManagedClusterAddOn {
				m := hubtest.FreshAddon(cluster, hubtest.SeedAddonName)
				m.OwnerReferences = []metav1.OwnerReference{ref}
				return m
			}
			deleting := hubtest.FreshAddon("deleting-cluster", hubtest.SeedAddonName)
			deleting.Finalizers = []string{"example.io/hold"}
			deleting.DeletionTimestamp = &metav1.Time{Time: hubtest.Start}
			notTaken := hubtest.SeedAddon(t, "addon-manager", manual)
			notTaken.Name, notTaken.UID = "ocm-proxy", "ocm-proxy-uid"
			h := hubtest.NewAddonHub(t, version, nil,
				hubtest.SeedAddon(t, hubclient.DefaultLifecycle, manual), notTaken, cfg,
				hubtest.FreshAddon("by-hand", hubtest.SeedAddonName), withOwner("earlier", earlier), withOwner("installed", installer), deleting,
				hubtest.FreshAddon("by-hand", "ocm-proxy"))
			before := h.ResourceVersions()
			r := newAddonReconciler(h, clockfake.New(hubtest.Start), nil)
			_, err := reconcileAddon(r, hubtest.SeedAddonName)
			require.NoError(t, err)
			_, err = reconcileAddon(r, "ocm-proxy")
			require.NoError(t, err)

			owners := func(cluster, name string) []metav1.OwnerReference {
				obj := h.API.NewMCA()
				require.NoError(t, h.Client.Get(t.Context(), types.NamespacedName{Namespace: cluster, Name: name}, obj))
				return obj.GetOwnerReferences()
			}
			ours := []metav1.OwnerReference{controllerRef(version)}
			assert.Equal(t, ours, owners("by-hand", hubtest.SeedAddonName))
			assert.Equal(t, ours, owners("earlier", hubtest.SeedAddonName))
			assert.Equal(t, []metav1.OwnerReference{installer}, owners("installed", hubtest.SeedAddonName))
			assert.Empty(t, owners("deleting-cluster", hubtest.SeedAddonName))
			assert.Empty(t, owners("by-hand", "ocm-proxy"))
			k := "ManagedClusterAddOn/by-hand/ocm-proxy"
			assert.Equal(t, before[k], h.ResourceVersions()[k], "an add-on of an add-on not taken was written")
			// Adopted and configured in one reconcile, with no conflict.
			for _, c := range []string{"by-hand", "earlier", "installed"} {
				assert.Equal(t, hubtest.SpecHashOf(t, cfg), hubtest.DesiredHash(t, h.Addon(c, hubtest.SeedAddonName)), c)
			}
			writes := h.Writes.Load()
			_, err = reconcileAddon(r, hubtest.SeedAddonName)
			require.NoError(t, err)
			assert.Equal(t, writes, h.Writes.Load(), "a second reconcile wrote")
		})
	}
}

// TestAddonReconcileDeleting: a taken ClusterManagementAddOn being deleted
// (a foreground deletion waits for its add-ons) gets nothing from the
// controller: no add-on is created on a selected cluster that has none
// (OCM's addonmanagement creates it again, TestAddonInstallWhileDeleting
// in internal/conformance), none is adopted, and nothing is written. The
// garbage collector deletes the add-ons it owns.
func TestAddonReconcileDeleting(t *testing.T) {
	t.Parallel()
	deleting := func(cma *addonv1beta1.ClusterManagementAddOn) {
		cma.DeletionTimestamp = &metav1.Time{Time: hubtest.Start}
		cma.Finalizers = []string{metav1.FinalizerDeleteDependents}
	}
	for _, version := range hubtest.AddonVersions {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			h := hubtest.NewAddonHub(t, version, nil, hubtest.HubObjects(
				[]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle, deleting), hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")},
				hubtest.SeedPlacement(t), hubtest.FreshAddons(hubtest.SeedAddonName, "dev-cluster"))...)
			res, err := reconcileAddon(newAddonReconciler(h, clockfake.New(hubtest.Start), nil), hubtest.SeedAddonName)
			require.NoError(t, err)
			assert.Zero(t, res)
			assert.Zero(t, h.Writes.Load(), "something was written")
			assert.Equal(t, []string{"dev-cluster"}, h.AddonClusters(hubtest.SeedAddonName))
			assert.Empty(t, h.Addon("dev-cluster", hubtest.SeedAddonName).OwnerReferences)
		})
	}
}
