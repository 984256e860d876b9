package conformance

// Deletion: who makes a ManagedClusterAddOn go with its
// ClusterManagementAddOn. OCM v1.2.0's addonowner and addonmanagement
// controllers, over fake clientsets, on the cases the rolloutkit
// controller's adoption (examples/controller/hubctl/addons/owner.go) decides.

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"open-cluster-management.io/addon-framework/pkg/utils"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"open-cluster-management.io/ocm/pkg/addon/controllers/addonowner"
)

// runOCMAddonOwner runs one sync of OCM v1.2.0's addonowner controller, as
// its add-on manager builds it (filter utils.ManagedByAddonManager), for
// mca, beside cma (nil: none), and returns mca's owner references as it
// left them and whether it wrote.
func runOCMAddonOwner(t *testing.T, cma *addonv1alpha1.ClusterManagementAddOn, mca *addonv1alpha1.ManagedClusterAddOn) ([]metav1.OwnerReference, bool) {
	t.Helper()
	objs := []runtime.Object{mca.DeepCopy()}
	if cma != nil {
		objs = append(objs, cma.DeepCopy())
	}
	in := newOCMAddonInformers(t, objs, nil)
	ctrl := addonowner.NewAddonOwnerController(in.addonClient, in.mcas, in.cmas, utils.ManagedByAddonManager)
	in.addonClient.ClearActions()
	ctx := context.Background()
	require.NoError(t, ctrl.Sync(ctx, ctrl.SyncContext(), mca.Namespace+"/"+mca.Name))
	wrote := false
	for _, a := range in.addonClient.Actions() {
		wrote = wrote || a.GetVerb() == "update"
	}
	got, err := in.addonClient.AddonV1alpha1().ManagedClusterAddOns(mca.Namespace).Get(ctx, mca.Name, metav1.GetOptions{})
	require.NoError(t, err)
	return got.OwnerReferences, wrote
}

// TestAddonOwner: OCM's addonowner controller makes every add-on of a
// ClusterManagementAddOn OCM takes controlled by it, whoever made the
// add-on, so that the garbage collector deletes the add-on with it (and
// addon-framework's registration, which waits for that owner, deploys
// it). It stands down for an add-on OCM does not take, rolloutkit's
// included: there the rolloutkit controller adopts the add-ons itself,
// with the same owner reference (addons.TestOwnedBy), except in the two
// cases marked below.
func TestAddonOwner(t *testing.T) {
	t.Parallel()
	const name = "cluster-proxy"
	cma := func(lifecycle string) *addonv1alpha1.ClusterManagementAddOn {
		return &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: name, UID: "cma-uid",
			Annotations: map[string]string{addonv1alpha1.AddonLifecycleAnnotationKey: lifecycle}}}
	}
	// What both write: a controller reference in v1alpha1 (the version
	// OCM's CRDs store, which the controller writes on such a hub) that
	// blocks the owner's foreground deletion.
	controller := metav1.OwnerReference{APIVersion: "addon.open-cluster-management.io/v1alpha1", Kind: "ClusterManagementAddOn",
		Name: name, UID: "cma-uid", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	earlier := controller
	earlier.UID = "an-earlier-uid"
	plain := metav1.OwnerReference{APIVersion: "addon.open-cluster-management.io/v1alpha1", Kind: "ClusterManagementAddOn", Name: name, UID: "cma-uid"}
	installer := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "installer", UID: "installer-uid", Controller: ptr.To(true)}
	for _, tt := range []struct {
		name  string
		cma   *addonv1alpha1.ClusterManagementAddOn
		refs  []metav1.OwnerReference
		want  []metav1.OwnerReference
		wrote bool
		// invalid: OCM's result is one the API server refuses (two
		// controllers), so its update fails on every sync.
		invalid bool
	}{
		{name: "addon-manager, made by hand", cma: cma("addon-manager"),
			want: []metav1.OwnerReference{controller}, wrote: true},
		{name: "rolloutkit, made by hand: OCM stands down", cma: cma("rolloutkit")},
		{name: "addon-manager, owned by an earlier ClusterManagementAddOn of that name", cma: cma("addon-manager"),
			refs: []metav1.OwnerReference{earlier}, want: []metav1.OwnerReference{controller}, wrote: true},
		// rolloutkit differs: a reference with the UID is kept as it is
		// (the garbage collector follows it all the same).
		{name: "addon-manager, owned by its UID, not as controller", cma: cma("addon-manager"),
			refs: []metav1.OwnerReference{plain}, want: []metav1.OwnerReference{controller}, wrote: true},
		// rolloutkit differs: the add-on is another object's, and is
		// left as it is.
		{name: "addon-manager, controlled by another object", cma: cma("addon-manager"),
			refs: []metav1.OwnerReference{installer}, want: []metav1.OwnerReference{installer, controller}, wrote: true, invalid: true},
		{name: "no ClusterManagementAddOn"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "cluster1", Name: name, OwnerReferences: tt.refs}}
			got, wrote := runOCMAddonOwner(t, tt.cma, mca)
			assert.Equal(t, tt.wrote, wrote, "OCM writes")
			if tt.wrote {
				assert.Equal(t, tt.want, got, "OCM's owner references")
			} else {
				assert.Equal(t, tt.refs, got)
			}
			errs := validation.ValidateOwnerReferences(got, field.NewPath("metadata", "ownerReferences"))
			if tt.invalid {
				require.Len(t, errs, 1, "the API server accepts OCM's owner references")
				assert.Contains(t, errs[0].Error(), "Only one reference can have Controller set to true")
			} else {
				assert.Empty(t, errs)
			}
		})
	}
}

// TestAddonInstallWhileDeleting: OCM's addonmanagement reads no
// deletionTimestamp, so while a ClusterManagementAddOn waits for its
// add-ons in a foreground deletion, it creates the add-on of every
// selected cluster that has none, as it would on a live one: an add-on
// the garbage collector has just deleted is created again. The rolloutkit
// controller creates, adopts and writes nothing for a
// ClusterManagementAddOn being deleted (addons.TestAddonReconcileDeleting).
func TestAddonInstallWhileDeleting(t *testing.T) {
	t.Parallel()
	h := seedAddonHub(t, time.Now(), clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All})
	deleting := h.cma.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	deleting.Finalizers = []string{metav1.FinalizerDeleteDependents}
	create, remove, _ := runOCMInstall(t, deleting, []*clusterv1beta1.Placement{h.placement}, h.decisions, []string{"dev-cluster"})
	assert.Equal(t, []string{"prod-cluster", "stg-cluster"}, create, "OCM creates add-ons for a ClusterManagementAddOn being deleted")
	assert.Empty(t, remove)
}
