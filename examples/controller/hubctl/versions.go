package hubctl

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/addonversion"
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

// snapshot is the edge between the hub's add-on version and the
// reconcilers, which work in v1beta1 only: it converts each add-on object
// read to v1beta1 once, remembers the object as read, and writes a v1beta1
// status back onto that object, in the hub's version, so that no field the
// other version lacks is ever lost. One snapshot serves one reconcile.
type snapshot struct {
	api addonAPI
	raw map[types.NamespacedName]client.Object
}

func (a addonAPI) snapshot() *snapshot {
	return &snapshot{api: a, raw: make(map[types.NamespacedName]client.Object)}
}

// cma returns the v1beta1 form of a ClusterManagementAddOn read in the
// hub's version, and remembers obj. The result shares nothing with obj.
func (s *snapshot) cma(obj client.Object) (*addonv1beta1.ClusterManagementAddOn, error) {
	out := &addonv1beta1.ClusterManagementAddOn{}
	switch o := obj.(type) {
	case *addonv1beta1.ClusterManagementAddOn:
		out = o.DeepCopy()
	case *addonv1alpha1.ClusterManagementAddOn:
		var err error
		if out, err = addonversion.ClusterManagementAddOnToV1beta1(o); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("not a ClusterManagementAddOn: %T", obj)
	}
	s.raw[client.ObjectKeyFromObject(obj)] = obj
	return out, nil
}

// mca returns the v1beta1 form of a ManagedClusterAddOn read in the hub's
// version, and remembers obj. The result shares nothing with obj.
func (s *snapshot) mca(obj client.Object) (*addonv1beta1.ManagedClusterAddOn, error) {
	out := &addonv1beta1.ManagedClusterAddOn{}
	switch o := obj.(type) {
	case *addonv1beta1.ManagedClusterAddOn:
		out = o.DeepCopy()
	case *addonv1alpha1.ManagedClusterAddOn:
		var err error
		if out, err = addonversion.ManagedClusterAddOnToV1beta1(o); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("not a ManagedClusterAddOn: %T", obj)
	}
	s.raw[client.ObjectKeyFromObject(obj)] = obj
	return out, nil
}

// cmas reads the ClusterManagementAddOns of a list made by newCMAList.
func (s *snapshot) cmas(list client.ObjectList) ([]*addonv1beta1.ClusterManagementAddOn, error) {
	var out []*addonv1beta1.ClusterManagementAddOn
	for _, o := range s.api.cmas(list) {
		c, err := s.cma(o)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// mcas reads the ManagedClusterAddOns of a list made by newMCAList.
func (s *snapshot) mcas(list client.ObjectList) ([]*addonv1beta1.ManagedClusterAddOn, error) {
	var out []*addonv1beta1.ManagedClusterAddOn
	for _, o := range s.api.mcas(list) {
		m, err := s.mca(o)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// read returns the object as read for key.
func (s *snapshot) read(key types.NamespacedName) (client.Object, error) {
	obj, ok := s.raw[key]
	if !ok {
		return nil, fmt.Errorf("%s was not read in this reconcile", key)
	}
	return obj, nil
}

// wrote records obj, as a write returned it, as the object read for its
// key: the later writes of the reconcile are locked on its resourceVersion.
func (s *snapshot) wrote(obj client.Object) {
	s.raw[client.ObjectKeyFromObject(obj)] = obj
}

// patchAddonStatus writes the status.configReferences and
// status.conditions of mca (v1beta1) onto the ManagedClusterAddOn as read,
// in the hub's version, when they differ, with the read's resourceVersion
// as a lock. Every other field is left as read.
func (s *snapshot) patchAddonStatus(ctx context.Context, c client.Client, mca *addonv1beta1.ManagedClusterAddOn) error {
	obj, err := s.read(client.ObjectKeyFromObject(mca))
	if err != nil {
		return err
	}
	next, err := s.api.withAddonStatus(obj, mca.Status.ConfigReferences, mca.Status.Conditions)
	if err != nil {
		return err
	}
	if sameAddonStatus(obj, next) {
		return nil
	}
	return patchStatus(ctx, c, obj, next)
}

// patchProgressions writes cma's status.installProgressions (v1beta1) onto
// the ClusterManagementAddOn as read, in the hub's version, with the read's
// resourceVersion as a lock.
func (s *snapshot) patchProgressions(ctx context.Context, c client.Client, cma *addonv1beta1.ClusterManagementAddOn) error {
	obj, err := s.read(client.ObjectKeyFromObject(cma))
	if err != nil {
		return err
	}
	next, err := s.api.withProgressions(obj, cma.Status.InstallProgressions)
	if err != nil {
		return err
	}
	return patchStatus(ctx, c, obj, next)
}

// newAddon returns a new ManagedClusterAddOn named after the
// ClusterManagementAddOn cma in the cluster namespace ns, controlled by cma
// (a controller owner reference), as OCM's add-on manager creates one for
// a selected cluster.
func (a addonAPI) newAddon(cma *addonv1beta1.ClusterManagementAddOn, ns string) client.Object {
	om := metav1.ObjectMeta{
		Name:      cma.Name,
		Namespace: ns,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cma,
			schema.GroupVersionKind{Group: addonv1beta1.GroupName, Version: a.version, Kind: "ClusterManagementAddOn"})},
	}
	if a.alpha() {
		return &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: om}
	}
	return &addonv1beta1.ManagedClusterAddOn{ObjectMeta: om}
}

// withAddonStatus returns a copy of the ManagedClusterAddOn obj (in a's
// version) whose status.configReferences are refs and whose
// status.conditions are conds. Every other field is left as read.
func (a addonAPI) withAddonStatus(obj client.Object, refs []addonv1beta1.ConfigReference, conds []metav1.Condition) (client.Object, error) {
	switch o := obj.(type) {
	case *addonv1beta1.ManagedClusterAddOn:
		n := o.DeepCopy()
		n.Status.ConfigReferences = refs
		n.Status.Conditions = conds
		return n, nil
	case *addonv1alpha1.ManagedClusterAddOn:
		n := o.DeepCopy()
		n.Status.ConfigReferences = make([]addonv1alpha1.ConfigReference, len(refs))
		for i := range refs {
			out, err := addonversion.ConfigReferenceToV1alpha1(&refs[i])
			if err != nil {
				return nil, err
			}
			// v1alpha1 also names the config beside its hashes (a name
			// the CRD requires). v1beta1 has no name to convert: it is
			// the desiredConfig's, as OCM's conversion webhook names it,
			// or, for a reference without one (as add-on managers before
			// rollouts wrote them), the one read.
			if refs[i].DesiredConfig == nil && i < len(o.Status.ConfigReferences) && o.Status.ConfigReferences[i].ConfigGroupResource == out.ConfigGroupResource {
				out.ConfigReferent = o.Status.ConfigReferences[i].ConfigReferent
			}
			n.Status.ConfigReferences[i] = out
		}
		if refs == nil {
			n.Status.ConfigReferences = nil
		}
		n.Status.Conditions = conds
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

// sameAddonStatus tells whether two versions of one ManagedClusterAddOn,
// in one API version, carry the same status.
func sameAddonStatus(a, b client.Object) bool {
	switch x := a.(type) {
	case *addonv1beta1.ManagedClusterAddOn:
		y, ok := b.(*addonv1beta1.ManagedClusterAddOn)
		return ok && equality.Semantic.DeepEqual(x.Status, y.Status)
	case *addonv1alpha1.ManagedClusterAddOn:
		y, ok := b.(*addonv1alpha1.ManagedClusterAddOn)
		return ok && equality.Semantic.DeepEqual(x.Status, y.Status)
	}
	return false
}
