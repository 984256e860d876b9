package addons

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
)

// An add-on's ManagedClusterAddOns are removed with it by the garbage
// collector, through their owner references to its ClusterManagementAddOn.
// The controller sets one on each add-on it creates (install), as OCM's
// addonmanagement does, and adopts the add-ons of a taken
// ClusterManagementAddOn that others made (by hand under a Manual install
// strategy, say, or before the controller took it), as OCM's addonowner
// controller does for the add-ons OCM takes: addonowner stands down for
// an add-on OCM does not take, so without adoption those add-ons would be
// left behind when the ClusterManagementAddOn is deleted, and
// addon-framework, whose registration waits for that owner reference,
// would never deploy them.
//
// Adoption is level-based and needs no finalizer: the garbage collector
// removes the adopted add-ons even when the controller is not running.

// adopt makes the ClusterManagementAddOn cma the controller owner of each
// of its add-ons mcas that is not owned by it yet (ownedBy), with a merge
// patch of its owner references locked on the resourceVersion read. An
// add-on being deleted is left alone, and so is one that another object
// controls: it is that object's to delete.
func (r *pass) adopt(ctx context.Context, cma *addonv1beta1.ClusterManagementAddOn,
	mcas []*addonv1beta1.ManagedClusterAddOn) error {
	var errs []error
	var adopted []string
	for _, m := range mcas {
		if !m.DeletionTimestamp.IsZero() {
			continue
		}
		refs, ok := ownedBy(m.OwnerReferences, cma, r.api.Version())
		if !ok {
			continue
		}
		cur, err := r.snap.Read(client.ObjectKeyFromObject(m))
		if err != nil {
			return err
		}
		next := cur.DeepCopyObject().(client.Object)
		next.SetOwnerReferences(refs)
		switch err := hubclient.PatchObject(ctx, r.Client, cur, next); {
		case apierrors.IsNotFound(err): // deleted since it was read (by install, say)
		case err != nil:
			errs = append(errs, fmt.Errorf("adopting managedclusteraddon %q: %w", m.Namespace+"/"+m.Name, err))
		default:
			r.snap.Wrote(next)
			adopted = append(adopted, m.Namespace)
		}
	}
	if len(adopted) > 0 {
		log.FromContext(ctx).Info("add-ons adopted: controlled by their ClusterManagementAddOn, so that they are deleted with it", "clusters", adopted)
	}
	return errors.Join(errs...)
}

// ownedBy returns the owner references refs should become for an add-on of
// the ClusterManagementAddOn cma, and whether they differ from refs: refs
// with a controller reference to cma (in API version version) instead of
// any reference to an earlier ClusterManagementAddOn of that name (another
// UID). refs are unchanged when one of them already names cma's UID,
// controller or not (the garbage collector follows either), and when
// another object is their controller (an object has at most one). refs is
// not modified.
//
// OCM's addonowner (addon-framework's utils.MergeOwnerRefs) matches a
// reference by group, kind and name too, but it rewrites a reference that
// names cma's UID into its own, and it adds a second controller reference,
// which the API server refuses, where we leave the add-on alone.
func ownedBy(refs []metav1.OwnerReference, cma *addonv1beta1.ClusterManagementAddOn, version string) ([]metav1.OwnerReference, bool) {
	gvk := schema.GroupVersionKind{Group: addonv1beta1.GroupName, Version: version, Kind: "ClusterManagementAddOn"}
	out := make([]metav1.OwnerReference, 0, len(refs)+1)
	for _, ref := range refs {
		if ref.UID == cma.UID {
			return refs, false
		}
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil && gv.Group == gvk.Group && ref.Kind == gvk.Kind && ref.Name == cma.Name {
			continue // an earlier ClusterManagementAddOn of that name
		}
		if ref.Controller != nil && *ref.Controller {
			return refs, false
		}
		out = append(out, ref)
	}
	return append(out, *metav1.NewControllerRef(cma, gvk)), true
}
