package main

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/addonversion"
)

// addAddon adds a ClusterManagementAddOn or a ManagedClusterAddOn of either
// version a hub serves, as v1beta1, the version the planner works in. A
// v1alpha1 one is converted as OCM's conversion webhook converts it
// (addonversion). A v1alpha1 ManagedClusterAddOn whose
// status.configReferences[] names a config other than its desiredConfig's,
// or has no desiredConfig, is refused: v1beta1 names the config only there,
// so the plan would compare the wrong config, or none.
func (h *hub) addAddon(obj runtime.Object) error {
	switch o := obj.(type) {
	case *addonv1beta1.ClusterManagementAddOn:
		h.cmas = append(h.cmas, o)
	case *addonv1beta1.ManagedClusterAddOn:
		h.mcas = append(h.mcas, o)
	case *addonv1alpha1.ClusterManagementAddOn:
		cma, err := addonversion.ClusterManagementAddOnToV1beta1(o)
		if err != nil {
			return err
		}
		h.cmas = append(h.cmas, cma)
	case *addonv1alpha1.ManagedClusterAddOn:
		if errs := addonversion.CheckReferences(o); len(errs) > 0 {
			return errs.ToAggregate()
		}
		mca, err := addonversion.ManagedClusterAddOnToV1beta1(o)
		if err != nil {
			return err
		}
		h.mcas = append(h.mcas, mca)
	default:
		return fmt.Errorf("decoded as %T: plan has no use for it", obj)
	}
	return nil
}

// named returns kind with the namespace/name (or name) of the object in js,
// quoted, for errors about the object, some of which come before it is
// decoded; kind alone when its metadata cannot be read (the decoder then
// says why).
func named(kind string, js []byte) string {
	var obj struct {
		Metadata struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"metadata"`
	}
	if json.Unmarshal(js, &obj) != nil || obj.Metadata.Name == "" {
		return kind
	}
	name := obj.Metadata.Name
	if obj.Metadata.Namespace != "" {
		name = obj.Metadata.Namespace + "/" + name
	}
	return fmt.Sprintf("%s %q", kind, name)
}
