package hubplan

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/placement"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Hub is what [ReadInputs] reads of a hub for one add-on: a controller's
// cache, a live read of the API server, or the objects of a `kubectl get
// -o yaml`. Each method reads one kind of object; an error is a failed
// read (the hub could not be asked), not an absence.
type Hub interface {
	// ClusterManagementAddOn returns the add-on named name, in v1beta1;
	// nil when the hub has none.
	ClusterManagementAddOn(name string) (*addonv1beta1.ClusterManagementAddOn, error)
	// Placement returns the Placement namespace/name; nil when the hub has
	// none.
	Placement(namespace, name string) (*clusterv1beta1.Placement, error)
	// PlacementDecisions returns the PlacementDecisions of the Placement
	// namespace/name: those of its namespace that carry its name in the
	// label cluster.open-cluster-management.io/placement.
	PlacementDecisions(namespace, name string) ([]*clusterv1beta1.PlacementDecision, error)
	// ManagedClusterAddOns returns the add-ons named addOn, one per
	// cluster, in v1beta1.
	ManagedClusterAddOns(addOn string) ([]*addonv1beta1.ManagedClusterAddOn, error)
	// AddOnRollout returns the AddOnRollout named addOn; nil when there is
	// none, or when the hub does not serve AddOnRollouts.
	AddOnRollout(addOn string) (*v1alpha1.AddOnRollout, error)
	// RolloutApprovals returns the RolloutApprovals whose spec.addOn is
	// addOn.
	RolloutApprovals(addOn string) ([]*v1alpha1.RolloutApproval, error)
	// ManifestWorks returns the add-on's ManifestWorks (labelled
	// addon.open-cluster-management.io/addon-name=addOn), and read false
	// when they were not read at all (an offline input without them): the
	// add-on is then planned on its configs only.
	ManifestWorks(addOn string) (works []*workv1.ManifestWork, read bool, err error)
	// Config returns the config object gr/ref names. An error names why it
	// cannot be read: the hub does not serve its resource, the caller may
	// not read it, or it does not exist.
	Config(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (*unstructured.Unstructured, error)
}

// Inputs are what [Planner.Plan] takes for one add-on, as [ReadInputs]
// reads them.
type Inputs struct {
	// AddOn is the add-on's name.
	AddOn string
	// ClusterManagementAddOn is the add-on; nil when the hub has none
	// (a mistyped AddOnRollout, or an add-on deleted): only the
	// AddOnRollout's and the approvals' statuses are then planned.
	ClusterManagementAddOn *addonv1beta1.ClusterManagementAddOn
	// Placements are the Placement and decision groups of each
	// install-strategy placement, in order.
	Placements []addon.PlacementInput
	// Addons are the add-on's ManagedClusterAddOns.
	Addons []*addonv1beta1.ManagedClusterAddOn
	// Controls are the AddOnRollout, the approvals and the works, with
	// DefaultReleaseSettle, and the configs' images (ConfigImage). The
	// caller sets what the hub's objects do not say: WorkGate.
	Controls Controls
	// SpecHash hashes a config object as the hub holds it (hash.Spec),
	// and fails when it cannot be read.
	SpecHash addon.SpecHashFunc
}

// ReadInputs reads from h what the plan of the add-on named addOn needs,
// the one way a controller, its dry run, a CLI and an offline report read
// it, so that their plans are the same:
//
//   - a placement's decision groups come from its PlacementDecisions only,
//     as OCM's add-on manager takes them: a Placement without decisions has
//     no groups yet, and a missing Placement is nil (the placement is not
//     planned, reason PlacementNotFound);
//   - a config's spec hash is the hash of the config object; a config that
//     cannot be read fails its placement's plan (reason
//     ConfigurationError), never falls back to a hash recorded in a status;
//   - the controls are the AddOnRollout named after the add-on, the
//     approvals that name it, and, when the works were read, what its
//     ManifestWorks say.
//
// Without a ClusterManagementAddOn of that name, only the controls are
// read. The error is a failed read of h, or decision groups that do not
// parse.
func ReadInputs(h Hub, addOn string) (Inputs, error) {
	if addOn == "" {
		return Inputs{}, fmt.Errorf("read inputs: add-on name \"\": want the name of a ClusterManagementAddOn")
	}
	in := Inputs{AddOn: addOn}
	var err error
	if in.ClusterManagementAddOn, err = h.ClusterManagementAddOn(addOn); err != nil {
		return Inputs{}, err
	}
	if in.Controls, err = readControls(h, addOn); err != nil {
		return Inputs{}, err
	}
	cma := in.ClusterManagementAddOn
	if cma == nil {
		return in, nil
	}
	if in.Placements, err = PlacementInputs(h, cma); err != nil {
		return Inputs{}, err
	}
	if in.Addons, err = h.ManagedClusterAddOns(addOn); err != nil {
		return Inputs{}, err
	}
	in.SpecHash = func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (string, error) {
		obj, err := h.Config(gr, ref)
		if err != nil {
			return "", err
		}
		return hash.Spec(obj)
	}
	return in, nil
}

// PlacementInputs reads the Placement and the decision groups of every
// install-strategy placement of cma, as ReadInputs does: groups from
// PlacementDecisions only, and a zero input for a missing Placement.
func PlacementInputs(h Hub, cma *addonv1beta1.ClusterManagementAddOn) ([]addon.PlacementInput, error) {
	inputs := make([]addon.PlacementInput, len(cma.Spec.InstallStrategy.Placements))
	for i, ps := range cma.Spec.InstallStrategy.Placements {
		in, err := placementInput(h, ps.PlacementRef)
		if err != nil {
			return nil, fmt.Errorf("placement %q: %w", ps.Namespace+"/"+ps.Name, err)
		}
		inputs[i] = in
	}
	return inputs, nil
}

// placementInput reads the Placement ref and its decision groups: none
// without PlacementDecisions, and a zero input without the Placement.
func placementInput(h Hub, ref addonv1beta1.PlacementRef) (addon.PlacementInput, error) {
	p, err := h.Placement(ref.Namespace, ref.Name)
	if err != nil || p == nil {
		return addon.PlacementInput{}, err
	}
	ds, err := h.PlacementDecisions(ref.Namespace, ref.Name)
	if err != nil || len(ds) == 0 {
		return addon.PlacementInput{Placement: p}, err
	}
	gs, err := placement.GroupsFromDecisions(ds)
	return addon.PlacementInput{Placement: p, Groups: gs}, err
}

// readControls reads the AddOnRollout, the approvals and the works of the
// add-on name.
func readControls(h Hub, name string) (Controls, error) {
	var ctl Controls
	var err error
	if ctl.Rollout, err = h.AddOnRollout(name); err != nil {
		return Controls{}, err
	}
	if ctl.Approvals, err = h.RolloutApprovals(name); err != nil {
		return Controls{}, err
	}
	works, read, err := h.ManifestWorks(name)
	if err != nil {
		return Controls{}, err
	}
	if read {
		ctl.Works, ctl.ReleaseSettle = WorksOf(name, works), DefaultReleaseSettle
	}
	ctl.Images = func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) string {
		obj, err := h.Config(gr, ref)
		if err != nil {
			return "" // the spec hash's read of the same object reports it
		}
		return ConfigImage(obj)
	}
	return ctl, nil
}
