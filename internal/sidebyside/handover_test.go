package sidebyside

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The field managers each side writes with: OCM's add-on manager writes
// with its program's name (client-go's default), ours with its own.
const (
	managerOCM  = "ocm-addon-manager"
	managerOurs = "rolloutkit-controller"
)

// checkHandover fails t when one side wrote to the other's add-on, except
// for the one write OCM's add-on manager makes to every
// ClusterManagementAddOn, whatever its lifecycle annotation: its
// cmainstallprogression controller sets status.defaultConfigReferences
// before it checks the annotation (without spec hashes, which only
// addon-framework's cmaconfig fills in, for the add-ons it takes). Ours
// reads nothing of it.
func (r *run) checkHandover(t *testing.T) {
	t.Helper()
	foreign := map[string]string{addonOCM: managerOurs, addonOurs: managerOCM}
	mcas, err := r.hub.addon.AddonV1alpha1().ManagedClusterAddOns("").List(r.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mcas.Items {
		for _, f := range m.ManagedFields {
			if f.Manager == foreign[m.Name] {
				t.Errorf("%s wrote the add-on %s/%s (%s %s): %s", f.Manager, m.Namespace, m.Name, f.Operation, f.Subresource, f.FieldsV1.Raw)
			}
		}
	}
	for _, s := range sides {
		cma, err := r.hub.addon.AddonV1alpha1().ClusterManagementAddOns().Get(r.ctx, s.addon, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range cma.ManagedFields {
			if f.Manager != foreign[s.addon] {
				continue
			}
			fields, err := statusFields(f)
			if err != nil {
				t.Fatal(err)
			}
			if s.addon != addonOurs || f.Subresource != "status" || !slices.Equal(fields, []string{"f:defaultconfigReferences"}) {
				t.Errorf("%s wrote the clustermanagementaddon %s (%s %s): %s", f.Manager, s.addon, f.Operation, f.Subresource, f.FieldsV1.Raw)
			}
		}
	}
}

// statusFields lists the fields of status an entry of managedFields owns.
func statusFields(f metav1.ManagedFieldsEntry) ([]string, error) {
	var owned map[string]map[string]json.RawMessage
	if f.FieldsV1 == nil {
		return nil, nil
	}
	if err := json.Unmarshal(f.FieldsV1.Raw, &owned); err != nil {
		return nil, fmt.Errorf("managed fields of %s: %w", f.Manager, err)
	}
	var out []string
	for k := range owned["f:status"] {
		if !strings.HasPrefix(k, ".") {
			out = append(out, k)
		}
	}
	for k := range owned {
		if k != "f:status" {
			out = append(out, "outside status: "+k)
		}
	}
	slices.Sort(out)
	return out, nil
}
