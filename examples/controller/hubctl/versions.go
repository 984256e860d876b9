package hubctl

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The two versions ClusterManagementAddOns and ManagedClusterAddOns are served in.
const (
	V1alpha1 = "v1alpha1"
	V1beta1  = "v1beta1"
)

// StorageVersion returns the version in which the hub stores
// ClusterManagementAddOns and ManagedClusterAddOns, read from their
// CustomResourceDefinitions. OCM's CRDs store v1alpha1 and serve v1beta1
// through the add-on manager's conversion webhook; on a hub without that
// webhook a v1beta1 read or write loses every field v1alpha1 lacks, so the
// stored version is the one to use. The two must store the same version.
func StorageVersion(ctx context.Context, c client.Reader) (string, error) {
	var versions []string
	for _, plural := range []string{"clustermanagementaddons", "managedclusteraddons"} {
		v, err := storedVersion(ctx, c, plural+"."+addonv1beta1.GroupName)
		if err != nil {
			return "", err
		}
		versions = append(versions, v)
	}
	if versions[0] != versions[1] {
		return "", fmt.Errorf("clustermanagementaddons are stored in %s and managedclusteraddons in %s: want one version for both (set it with -addon-version)", versions[0], versions[1])
	}
	return versions[0], nil
}

func storedVersion(ctx context.Context, c client.Reader, name string) (string, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := c.Get(ctx, types.NamespacedName{Name: name}, &crd); err != nil {
		return "", fmt.Errorf("reading customresourcedefinition %q: %w", name, err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			if v.Name != V1alpha1 && v.Name != V1beta1 {
				return "", fmt.Errorf("customresourcedefinition %q stores version %q: want %s or %s", name, v.Name, V1alpha1, V1beta1)
			}
			return v.Name, nil
		}
	}
	return "", fmt.Errorf("customresourcedefinition %q has no storage version", name)
}

// addonAPI reads and writes add-on objects in one served version, and hands
// the library their v1beta1 form.
type addonAPI struct {
	version string
}

func newAddonAPI(version string) (addonAPI, error) {
	if version != V1alpha1 && version != V1beta1 {
		return addonAPI{}, fmt.Errorf("add-on API version %q: want %s or %s", version, V1alpha1, V1beta1)
	}
	return addonAPI{version: version}, nil
}

func (a addonAPI) alpha() bool { return a.version == V1alpha1 }

func (a addonAPI) newCMA() client.Object {
	if a.alpha() {
		return &addonv1alpha1.ClusterManagementAddOn{}
	}
	return &addonv1beta1.ClusterManagementAddOn{}
}

func (a addonAPI) newCMAList() client.ObjectList {
	if a.alpha() {
		return &addonv1alpha1.ClusterManagementAddOnList{}
	}
	return &addonv1beta1.ClusterManagementAddOnList{}
}

func (a addonAPI) newMCA() client.Object {
	if a.alpha() {
		return &addonv1alpha1.ManagedClusterAddOn{}
	}
	return &addonv1beta1.ManagedClusterAddOn{}
}

func (a addonAPI) newMCAList() client.ObjectList {
	if a.alpha() {
		return &addonv1alpha1.ManagedClusterAddOnList{}
	}
	return &addonv1beta1.ManagedClusterAddOnList{}
}

// cmas returns the items of a list made by newCMAList.
func (a addonAPI) cmas(list client.ObjectList) []client.Object {
	var out []client.Object
	switch l := list.(type) {
	case *addonv1alpha1.ClusterManagementAddOnList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *addonv1beta1.ClusterManagementAddOnList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	return out
}

// mcas returns the items of a list made by newMCAList.
func (a addonAPI) mcas(list client.ObjectList) []client.Object {
	var out []client.Object
	switch l := list.(type) {
	case *addonv1alpha1.ManagedClusterAddOnList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *addonv1beta1.ManagedClusterAddOnList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	return out
}

// cma returns the v1beta1 form of a ClusterManagementAddOn read in a's
// version. The result shares nothing with obj.
func (a addonAPI) cma(obj client.Object) (*addonv1beta1.ClusterManagementAddOn, error) {
	switch o := obj.(type) {
	case *addonv1beta1.ClusterManagementAddOn:
		return o.DeepCopy(), nil
	case *addonv1alpha1.ClusterManagementAddOn:
		out := &addonv1beta1.ClusterManagementAddOn{}
		if err := addonv1beta1.Convert_v1alpha1_ClusterManagementAddOn_To_v1beta1_ClusterManagementAddOn(o.DeepCopy(), out, nil); err != nil {
			return nil, fmt.Errorf("converting clustermanagementaddon %q to v1beta1: %w", o.Name, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("not a ClusterManagementAddOn: %T", obj)
}

// mca returns the v1beta1 form of a ManagedClusterAddOn read in a's
// version. The result shares nothing with obj.
func (a addonAPI) mca(obj client.Object) (*addonv1beta1.ManagedClusterAddOn, error) {
	switch o := obj.(type) {
	case *addonv1beta1.ManagedClusterAddOn:
		return o.DeepCopy(), nil
	case *addonv1alpha1.ManagedClusterAddOn:
		out := &addonv1beta1.ManagedClusterAddOn{}
		if err := addonv1beta1.Convert_v1alpha1_ManagedClusterAddOn_To_v1beta1_ManagedClusterAddOn(o.DeepCopy(), out, nil); err != nil {
			return nil, fmt.Errorf("converting managedclusteraddon %q to v1beta1: %w", o.Namespace+"/"+o.Name, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("not a ManagedClusterAddOn: %T", obj)
}

// newAddon returns a new ManagedClusterAddOn named name in the cluster
// namespace ns, owned (not controlled) by the ClusterManagementAddOn cma, as
// OCM's add-on manager creates one for a selected cluster.
func (a addonAPI) newAddon(cma client.Object, ns string) client.Object {
	om := metav1.ObjectMeta{
		Name:      cma.GetName(),
		Namespace: ns,
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: addonv1beta1.GroupName + "/" + a.version,
			Kind:       "ClusterManagementAddOn",
			Name:       cma.GetName(),
			UID:        cma.GetUID(),
		}},
	}
	if a.alpha() {
		return &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: om}
	}
	return &addonv1beta1.ManagedClusterAddOn{ObjectMeta: om}
}

// withAddonStatus returns a copy of the ManagedClusterAddOn obj (in a's
// version) whose status.configReferences are refs and whose Configured
// condition is cond. Every other field is left as read, the agent's
// lastAppliedConfig and conditions included.
func (a addonAPI) withAddonStatus(obj client.Object, refs []addonv1beta1.ConfigReference, cond metav1.Condition) (client.Object, error) {
	switch o := obj.(type) {
	case *addonv1beta1.ManagedClusterAddOn:
		n := o.DeepCopy()
		n.Status.ConfigReferences = refs
		meta.SetStatusCondition(&n.Status.Conditions, cond)
		return n, nil
	case *addonv1alpha1.ManagedClusterAddOn:
		n := o.DeepCopy()
		n.Status.ConfigReferences = make([]addonv1alpha1.ConfigReference, len(refs))
		for i := range refs {
			in := refs[i].DeepCopy()
			out := &n.Status.ConfigReferences[i]
			if err := addonv1beta1.Convert_v1beta1_ConfigReference_To_v1alpha1_ConfigReference(in, out, nil); err != nil {
				return nil, err
			}
			// v1alpha1 also names the config beside its hashes.
			if in.DesiredConfig != nil {
				out.ConfigReferent = addonv1alpha1.ConfigReferent(in.DesiredConfig.ConfigReferent)
			}
		}
		meta.SetStatusCondition(&n.Status.Conditions, cond)
		return n, nil
	}
	return nil, fmt.Errorf("not a ManagedClusterAddOn: %T", obj)
}

// withProgressions returns a copy of the ClusterManagementAddOn obj (in a's
// version) whose status.installProgressions are ips.
func (a addonAPI) withProgressions(obj client.Object, ips []addonv1beta1.InstallProgression) (client.Object, error) {
	switch o := obj.(type) {
	case *addonv1beta1.ClusterManagementAddOn:
		n := o.DeepCopy()
		n.Status.InstallProgressions = ips
		return n, nil
	case *addonv1alpha1.ClusterManagementAddOn:
		n := o.DeepCopy()
		n.Status.InstallProgressions = make([]addonv1alpha1.InstallProgression, len(ips))
		for i := range ips {
			if err := addonv1beta1.Convert_v1beta1_InstallProgression_To_v1alpha1_InstallProgression(ips[i].DeepCopy(), &n.Status.InstallProgressions[i], nil); err != nil {
				return nil, err
			}
		}
		return n, nil
	}
	return nil, fmt.Errorf("not a ClusterManagementAddOn: %T", obj)
}
