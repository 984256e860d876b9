package planreport

import (
	"fmt"
	"slices"
	"strings"

	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

// configsVisible refuses an add-on whose spec names no config while its
// status, or its add-ons', name some: the configs are there, but the input
// cannot see them. It happens when a hub without OCM's conversion webhook
// serves v1alpha1 add-ons as v1beta1 (a CRD conversion strategy of None
// drops v1alpha1's supportedConfigs), and a plan from the empty set would
// say a rollout to no config is due. The controller does not refuse this
// (it reads add-ons in the version the hub stores them, and an add-on
// whose configs were removed has its status rewritten); a report does,
// rather than be silently wrong.
func configsVisible(cma *addonv1beta1.ClusterManagementAddOn, mcas []*addonv1beta1.ManagedClusterAddOn) error {
	if len(cma.Spec.DefaultConfigs) > 0 {
		return nil
	}
	for _, p := range cma.Spec.InstallStrategy.Placements {
		if len(p.Configs) > 0 {
			return nil
		}
	}
	named := statusConfigs(cma, mcas)
	if len(named) == 0 {
		return nil
	}
	return fmt.Errorf("clustermanagementaddon %q: its spec names no config, but the configs status records (%s) say it has some: "+
		"the input cannot see them. A hub whose add-on CRDs convert between versions with strategy None serves v1alpha1 add-ons "+
		"as v1beta1 without their configs: read them as the hub stores them (kubectl get clustermanagementaddons.v1alpha1.addon.open-cluster-management.io,"+
		"managedclusteraddons.v1alpha1.addon.open-cluster-management.io -A -o yaml), or, if the configs were just removed, "+
		"plan again once the controller has written the status",
		cma.Name, strings.Join(named, ", "))
}

// statusConfigs are the configs the add-on's status and its add-ons'
// status name as desired, each "resource.group namespace/name", sorted.
// An add-on's own spec.configs are not the ClusterManagementAddOn's: a
// config its status names that its spec names too is left out.
func statusConfigs(cma *addonv1beta1.ClusterManagementAddOn, mcas []*addonv1beta1.ManagedClusterAddOn) []string {
	var out []string
	add := func(gr addonv1beta1.ConfigGroupResource, d *addonv1beta1.ConfigSpecHash) {
		if d == nil {
			return
		}
		name := d.Name
		if d.Namespace != "" {
			name = d.Namespace + "/" + name
		}
		if s := gr.Resource + "." + gr.Group + " " + name; !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, r := range cma.Status.DefaultConfigReferences {
		add(r.ConfigGroupResource, r.DesiredConfig)
	}
	for _, ip := range cma.Status.InstallProgressions {
		for _, r := range ip.ConfigReferences {
			add(r.ConfigGroupResource, r.DesiredConfig)
		}
	}
	for _, m := range mcas {
		for _, r := range m.Status.ConfigReferences {
			own := slices.ContainsFunc(m.Spec.Configs, func(c addonv1beta1.AddOnConfig) bool { return c.ConfigGroupResource == r.ConfigGroupResource })
			if !own {
				add(r.ConfigGroupResource, r.DesiredConfig)
			}
		}
	}
	slices.Sort(out)
	return out
}
