package hubclient

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

// AddonAPI reads and writes add-on objects in one served version, and hands
// the library their v1beta1 form.
type AddonAPI struct {
	version string
}

// NewAddonAPI returns the AddonAPI of version: V1alpha1 or V1beta1.
func NewAddonAPI(version string) (AddonAPI, error) {
	if version != V1alpha1 && version != V1beta1 {
		return AddonAPI{}, fmt.Errorf("add-on API version %q: want %s or %s", version, V1alpha1, V1beta1)
	}
	return AddonAPI{version: version}, nil
}

func (a AddonAPI) alpha() bool { return a.version == V1alpha1 }

// Version is the API version a reads and writes in.
func (a AddonAPI) Version() string { return a.version }

// NewCMA returns an empty ClusterManagementAddOn in a's version.
func (a AddonAPI) NewCMA() client.Object {
	if a.alpha() {
		return &addonv1alpha1.ClusterManagementAddOn{}
	}
	return &addonv1beta1.ClusterManagementAddOn{}
}

// NewCMAList returns an empty ClusterManagementAddOnList in a's version.
func (a AddonAPI) NewCMAList() client.ObjectList {
	if a.alpha() {
		return &addonv1alpha1.ClusterManagementAddOnList{}
	}
	return &addonv1beta1.ClusterManagementAddOnList{}
}

// NewMCA returns an empty ManagedClusterAddOn in a's version.
func (a AddonAPI) NewMCA() client.Object {
	if a.alpha() {
		return &addonv1alpha1.ManagedClusterAddOn{}
	}
	return &addonv1beta1.ManagedClusterAddOn{}
}

// NewMCAList returns an empty ManagedClusterAddOnList in a's version.
func (a AddonAPI) NewMCAList() client.ObjectList {
	if a.alpha() {
		return &addonv1alpha1.ManagedClusterAddOnList{}
	}
	return &addonv1beta1.ManagedClusterAddOnList{}
}

// CMAs returns the items of a list made by NewCMAList, as read.
func (a AddonAPI) CMAs(list client.ObjectList) []client.Object {
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

// MCAs returns the items of a list made by NewMCAList, as read.
func (a AddonAPI) MCAs(list client.ObjectList) []client.Object {
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

// Snapshot is the edge between the hub's add-on version and the
// reconcilers, which work in v1beta1 only: it converts each add-on object
// read to v1beta1 once, remembers the object as read, and writes a v1beta1
// status back onto that object, in the hub's version, so that no field the
// other version lacks is ever lost. One Snapshot serves one reconcile.
type Snapshot struct {
	api AddonAPI
	raw map[types.NamespacedName]client.Object
}

// Snapshot returns an empty Snapshot, for one reconcile.
func (a AddonAPI) Snapshot() *Snapshot {
	return &Snapshot{api: a, raw: make(map[types.NamespacedName]client.Object)}
}

// CMA returns the v1beta1 form of a ClusterManagementAddOn read in the
// hub's version, and remembers obj. The result shares nothing with obj.
func (s *Snapshot) CMA(obj client.Object) (*addonv1beta1.ClusterManagementAddOn, error) {
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

// MCA returns the v1beta1 form of a ManagedClusterAddOn read in the hub's
// version, and remembers obj. The result shares nothing with obj.
func (s *Snapshot) MCA(obj client.Object) (*addonv1beta1.ManagedClusterAddOn, error) {
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

// CMAs reads the ClusterManagementAddOns of a list made by NewCMAList.
func (s *Snapshot) CMAs(list client.ObjectList) ([]*addonv1beta1.ClusterManagementAddOn, error) {
	var out []*addonv1beta1.ClusterManagementAddOn
	for _, o := range s.api.CMAs(list) {
		c, err := s.CMA(o)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// MCAs reads the ManagedClusterAddOns of a list made by NewMCAList.
func (s *Snapshot) MCAs(list client.ObjectList) ([]*addonv1beta1.ManagedClusterAddOn, error) {
	var out []*addonv1beta1.ManagedClusterAddOn
	for _, o := range s.api.MCAs(list) {
		m, err := s.MCA(o)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Read returns the object as read for key.
func (s *Snapshot) Read(key types.NamespacedName) (client.Object, error) {
	obj, ok := s.raw[key]
	if !ok {
		return nil, fmt.Errorf("%s was not read in this reconcile", key)
	}
	return obj, nil
}

// Wrote records obj, as a write returned it, as the object read for its
// key: the later writes of the reconcile are locked on its resourceVersion.
func (s *Snapshot) Wrote(obj client.Object) {
	s.raw[client.ObjectKeyFromObject(obj)] = obj
}

// PatchAddonStatus writes the status.configReferences and
// status.conditions of mca (v1beta1) onto the ManagedClusterAddOn as read,
// in the hub's version, when they differ, with the read's resourceVersion
// as a lock. Every other field is left as read.
func (s *Snapshot) PatchAddonStatus(ctx context.Context, c client.Client, mca *addonv1beta1.ManagedClusterAddOn) error {
	obj, err := s.Read(client.ObjectKeyFromObject(mca))
	if err != nil {
		return err
	}
	next, err := s.api.WithAddonStatus(obj, mca.Status.ConfigReferences, mca.Status.Conditions)
	if err != nil {
		return err
	}
	if sameAddonStatus(obj, next) {
		return nil
	}
	return PatchStatus(ctx, c, obj, next)
}

// PatchProgressions writes cma's status.installProgressions (v1beta1) onto
// the ClusterManagementAddOn as read, in the hub's version, with the read's
// resourceVersion as a lock.
func (s *Snapshot) PatchProgressions(ctx context.Context, c client.Client, cma *addonv1beta1.ClusterManagementAddOn) error {
	obj, err := s.Read(client.ObjectKeyFromObject(cma))
	if err != nil {
		return err
	}
	next, err := s.api.WithProgressions(obj, cma.Status.InstallProgressions)
	if err != nil {
		return err
	}
	return PatchStatus(ctx, c, obj, next)
}

// NewAddon returns a new ManagedClusterAddOn named after the
// ClusterManagementAddOn cma in the cluster namespace ns, controlled by cma
// (a controller owner reference), as OCM's add-on manager creates one for
// a selected cluster.
func (a AddonAPI) NewAddon(cma *addonv1beta1.ClusterManagementAddOn, ns string) client.Object {
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

// WithAddonStatus returns a copy of the ManagedClusterAddOn obj (in a's
// version) whose status.configReferences are refs and whose
// status.conditions are conds. Every other field is left as read.
func (a AddonAPI) WithAddonStatus(obj client.Object, refs []addonv1beta1.ConfigReference, conds []metav1.Condition) (client.Object, error) {
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

// WithProgressions returns a copy of the ClusterManagementAddOn obj (in a's
// version) whose status.installProgressions are ips.
func (a AddonAPI) WithProgressions(obj client.Object, ips []addonv1beta1.InstallProgression) (client.Object, error) {
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
