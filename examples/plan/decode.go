package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/version"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// decoder decodes the hub's objects, one JSON document at a time, with a
// scheme of the API types plan reads.
type decoder struct {
	meta   jsonserializer.MetaFactory
	codec  runtime.Decoder
	wanted map[string][]schema.GroupVersion // a used kind -> its versions, preferred first
}

// newScheme returns the types plan reads: OCM's cluster, add-on and work
// types in every version a hub serves, rolloutkit's controls, and the
// `kind: List` that kubectl prints. ManagedClusterSets and bindings of
// cluster.open-cluster-management.io/v1beta1, which older hubs serve with
// the fields of v1beta2 and which the API module no longer has, are
// decoded into the v1beta2 types.
func newScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	var errs []error
	for _, install := range []func(*runtime.Scheme) error{
		clusterv1.Install, clusterv1alpha1.Install, clusterv1beta1.Install, clusterv1beta2.Install,
		addonv1alpha1.Install, addonv1beta1.Install, workv1.Install, v1alpha1.AddToScheme,
	} {
		errs = append(errs, install(s))
	}
	old := schema.GroupVersion{Group: clusterv1beta2.GroupName, Version: "v1beta1"}
	s.AddKnownTypeWithName(old.WithKind("ManagedClusterSet"), &clusterv1beta2.ManagedClusterSet{})
	s.AddKnownTypeWithName(old.WithKind("ManagedClusterSetBinding"), &clusterv1beta2.ManagedClusterSetBinding{})
	s.AddKnownTypeWithName(metav1.SchemeGroupVersion.WithKind("List"), &metav1.List{})
	return s, errors.Join(errs...)
}

// newDecoder returns a decoder of the kinds hub.add uses. An object of one
// of them in a version the scheme does not know is refused, never read as
// a config object; objects of every other kind are kept unstructured, as
// read (the config objects, whose spec is hashed).
func newDecoder() (*decoder, error) {
	used := []string{
		"ManagedCluster", "ManagedClusterSet", "ManagedClusterSetBinding", "AddOnPlacementScore",
		"Placement", "PlacementDecision", "ClusterManagementAddOn", "ManagedClusterAddOn",
		"ManifestWork", "AddOnRollout", "RolloutApproval",
	}
	s, err := newScheme()
	if err != nil {
		return nil, err
	}
	d := &decoder{
		meta: jsonserializer.DefaultMetaFactory,
		// Strict, so that an unknown field of rolloutkit's own types is
		// refused (decodeControl); OCM's types ignore one, as before.
		codec:  serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer(),
		wanted: map[string][]schema.GroupVersion{},
	}
	for gvk := range s.AllKnownTypes() {
		if slices.Contains(used, gvk.Kind) {
			d.wanted[gvk.Kind] = append(d.wanted[gvk.Kind], gvk.GroupVersion())
		}
	}
	for _, gvs := range d.wanted {
		// The order in which the API server prefers versions: v1, then
		// v1beta2, v1beta1, v1alpha1.
		slices.SortFunc(gvs, func(a, b schema.GroupVersion) int {
			if c := version.CompareKubeAwareVersionStrings(a.Version, b.Version); c != 0 {
				return -c
			}
			return strings.Compare(a.Group, b.Group)
		})
	}
	return d, nil
}

// decoded is one JSON document decoded: a typed object of a used kind, a
// list's items, or an object of another kind, unstructured.
type decoded struct {
	gvk   schema.GroupVersionKind
	typed runtime.Object
	items [][]byte // a list's items, as JSON
	other *unstructured.Unstructured
}

// decode decodes one JSON object; where names it in errors, and what
// (its kind and name) is added to the errors about the object itself.
func (d *decoder) decode(js []byte, where string) (decoded, error) {
	gvk, err := d.meta.Interpret(js)
	if err != nil {
		return decoded{}, fmt.Errorf("%s: want a Kubernetes object with apiVersion and kind: %w", where, err)
	}
	if gvk.Kind == "" {
		return decoded{}, fmt.Errorf("%s: no kind: want a Kubernetes object such as a ManagedCluster or a Placement", where)
	}
	what := named(gvk.Kind, js)
	if gvk.Kind == "ClusterManagementAddOn" {
		// Before decoding: the decoder names no field of a bad duration.
		if errs := checkDurations(js); len(errs) > 0 {
			return decoded{}, fmt.Errorf("%s: %s: %w", where, what, errs.ToAggregate())
		}
	}
	obj, _, err := d.codec.Decode(js, nil, nil)
	switch {
	case runtime.IsNotRegisteredError(err) || runtime.IsMissingVersion(err):
		if gvs, used := d.wanted[gvk.Kind]; used {
			return decoded{}, fmt.Errorf("%s: %s: %s", where, what, wantVersion(gvk.GroupVersion(), gvs))
		}
		return d.decodeOther(js, *gvk, where)
	case runtime.IsStrictDecodingError(err) && !isControl(obj):
		err = nil // an unknown field of OCM's types is ignored, as the API server ignores it
	}
	if err != nil {
		return decoded{}, fmt.Errorf("%s: %s: %w", where, what, err)
	}
	if list, ok := obj.(*metav1.List); ok {
		items := make([][]byte, len(list.Items))
		for i, it := range list.Items {
			items[i] = it.Raw
		}
		return decoded{gvk: *gvk, items: items}, nil
	}
	if _, used := d.wanted[gvk.Kind]; !used || isList(obj) {
		// A registered type plan does not use (an AddOnDeploymentConfig,
		// a typed list): kept as read, for its hash.
		return d.decodeOther(js, *gvk, where)
	}
	return decoded{gvk: *gvk, typed: obj}, nil
}

// decodeOther decodes an object of a kind plan does not use, or a list of
// any kind, unstructured.
func (d *decoder) decodeOther(js []byte, gvk schema.GroupVersionKind, where string) (decoded, error) {
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(js, nil, nil)
	if err != nil {
		return decoded{}, fmt.Errorf("%s: %s: %w", where, named(gvk.Kind, js), err)
	}
	switch o := obj.(type) {
	case *unstructured.UnstructuredList:
		items := make([][]byte, len(o.Items))
		for i := range o.Items {
			if items[i], err = o.Items[i].MarshalJSON(); err != nil {
				return decoded{}, fmt.Errorf("%s: %s: items[%d]: %w", where, gvk.Kind, i, err)
			}
		}
		return decoded{gvk: gvk, items: items}, nil
	case *unstructured.Unstructured:
		return decoded{gvk: gvk, other: o}, nil
	}
	return decoded{}, fmt.Errorf("%s: %s: decoded as %T: want an object or a list", where, gvk.Kind, obj)
}

// wantVersion says which versions of a used kind plan reads, given the
// one found.
func wantVersion(found schema.GroupVersion, gvs []schema.GroupVersion) string {
	names := make([]string, len(gvs))
	for i, gv := range gvs {
		names[i] = gv.String()
	}
	want := "want " + strings.Join(names, " or ")
	if found.Version == "" {
		return "no apiVersion: " + want
	}
	return fmt.Sprintf("apiVersion %q: %s", found.String(), want)
}

func isList(obj runtime.Object) bool {
	_, ok := obj.(metav1.ListInterface)
	return ok
}
