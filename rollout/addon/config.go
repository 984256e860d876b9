package addon

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"k8s.io/apimachinery/pkg/util/validation/field"

	ifield "github.com/rolloutkit/rolloutkit/internal/field"
)

// Config is one configuration an add-on should run with: which config object
// and the spec hash of its current spec.
type Config struct {
	// GroupResource is the config's API group and resource, e.g.
	// proxy.open-cluster-management.io / managedproxyconfigurations.
	GroupResource addonv1beta1.ConfigGroupResource
	// Referent is the config object's namespace (empty when cluster-scoped)
	// and name.
	Referent addonv1beta1.ConfigReferent
	// SpecHash is the config's spec hash as the SpecHashFunc reported it.
	SpecHash string
}

// String names the config as kubectl does, resource.group "namespace/name":
//
//	managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy"
func (c Config) String() string {
	return configName(c.GroupResource, c.Referent)
}

// SpecHashFunc returns the current spec hash of one config object, typically
// hash.Spec of the object read from a cache or a map. It is called once for
// every config of every add-on passed to [Desired] (once per distinct config
// in [Evaluate]), so it should be cheap. An unknown config should be an
// error; the error is returned wrapped, naming the config.
type SpecHashFunc func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error)

// Desired returns the configs the add-on mca should run with, as OCM's add-on
// manager computes them, each with its spec hash from specHash:
//
//  1. the ClusterManagementAddOn's spec.defaultConfigs (an entry whose name
//     is empty or the reserved "__reserved_no_default__" declares a
//     supported config without a default and contributes nothing);
//  2. overridden by the configs of the install-strategy placement named
//     placement;
//  3. overridden by the ManagedClusterAddOn's spec.configs.
//
// Each level overrides whole group/resources: the first time a level names
// a group/resource, every config the earlier levels gave for it is dropped,
// and that level's configs of it are kept, in the order written, without
// repeats of a namespace/name. Group/resources a level does not name are
// kept. The result is ordered by group, then resource (OCM's order), then
// the order within the level that set them. (OCM keeps the placement's
// configs of one group/resource in a Go map, so their order there is random;
// it matters to nothing this package computes.)
//
// A zero placement (no namespace, no name) stands for OCM's defaults node:
// an add-on on a cluster that no install-strategy placement selects, or of
// a ClusterManagementAddOn whose install strategy is Manual. A non-zero
// placement must be listed in spec.installStrategy.placements, under an
// install strategy of type Placements.
//
// mca must not be nil: the configs of a placement without an add-on's
// overrides are [PlacementConfigs]. The inputs are not modified.
func Desired(cma *addonv1beta1.ClusterManagementAddOn, placement addonv1beta1.PlacementRef,
	mca *addonv1beta1.ManagedClusterAddOn, specHash SpecHashFunc) ([]Config, error) {
	if mca == nil {
		return nil, errors.New("desired configs: nil ManagedClusterAddOn: want an add-on (PlacementConfigs gives a placement's configs without one)")
	}
	refs, err := levels(cma, placement, specHash)
	if err != nil {
		return nil, err
	}
	return withHashes(override(refs, mca.Spec.Configs), specHash, cmaName(cma))
}

// PlacementConfigs returns the configs of the install-strategy placement
// named placement before any add-on's own overrides: the first two levels
// of [Desired], each with its spec hash from specHash. They are what the
// placement's install progression records, and what every add-on of the
// placement runs with unless it lists spec.configs of its own. A zero
// placement stands for OCM's defaults node, as in Desired. The inputs are
// not modified.
func PlacementConfigs(cma *addonv1beta1.ClusterManagementAddOn, placement addonv1beta1.PlacementRef, specHash SpecHashFunc) ([]Config, error) {
	refs, err := levels(cma, placement, specHash)
	if err != nil {
		return nil, err
	}
	return withHashes(refs, specHash, cmaName(cma))
}

// levels checks the arguments of Desired and PlacementConfigs and returns
// the configs of the defaults and the placement level, sorted.
func levels(cma *addonv1beta1.ClusterManagementAddOn, placement addonv1beta1.PlacementRef, specHash SpecHashFunc) ([]ref, error) {
	if cma == nil {
		return nil, errors.New("desired configs: nil ClusterManagementAddOn: want an object")
	}
	if specHash == nil {
		return nil, fmt.Errorf("desired configs of %s: nil SpecHashFunc: want a spec hash lookup", cmaName(cma))
	}
	return placementRefs(cma, placement)
}

// ref is a config without its hash yet.
type ref struct {
	gr       addonv1beta1.ConfigGroupResource
	referent addonv1beta1.ConfigReferent
}

// placementRefs returns the configs of the defaults and the placement level,
// sorted.
func placementRefs(cma *addonv1beta1.ClusterManagementAddOn, placement addonv1beta1.PlacementRef) ([]ref, error) {
	refs, err := defaults(cma)
	if err != nil {
		return nil, err
	}
	if placement == (addonv1beta1.PlacementRef{}) {
		return refs, nil
	}
	strategy, err := findPlacement(cma, placement)
	if err != nil {
		return nil, err
	}
	return override(refs, strategy.Configs), nil
}

// defaults reads spec.defaultConfigs: at most one config per group/resource
// (the CRD's list-map key), sorted.
func defaults(cma *addonv1beta1.ClusterManagementAddOn) ([]ref, error) {
	var (
		refs []ref
		errs []error
	)
	seen := make(map[addonv1beta1.ConfigGroupResource]int, len(cma.Spec.DefaultConfigs))
	path := field.NewPath("spec", "defaultConfigs")
	for i, c := range cma.Spec.DefaultConfigs {
		if first, dup := seen[c.ConfigGroupResource]; dup {
			e := field.Duplicate(path.Index(i), grName(c.ConfigGroupResource))
			e.Detail = fmt.Sprintf("want one entry per group and resource (%s has it)", path.Index(first))
			errs = append(errs, e)
			continue
		}
		seen[c.ConfigGroupResource] = i
		if c.Name == "" || c.Name == addonv1beta1.ReservedNoDefaultConfigName {
			continue // supported, no default
		}
		refs = append(refs, ref{gr: c.ConfigGroupResource, referent: c.ConfigReferent})
	}
	if err := ifield.About(cmaName(cma), errs...); err != nil {
		return nil, err
	}
	slices.SortStableFunc(refs, compareRefs)
	return refs, nil
}

// findPlacement returns the install-strategy entry of placement.
func findPlacement(cma *addonv1beta1.ClusterManagementAddOn, placement addonv1beta1.PlacementRef) (addonv1beta1.PlacementStrategy, error) {
	strategy := cma.Spec.InstallStrategy
	path := field.NewPath("spec", "installStrategy")
	if strategy.Type == "" || strategy.Type == addonv1beta1.AddonInstallStrategyManual {
		return addonv1beta1.PlacementStrategy{}, ifield.About(cmaName(cma), field.Invalid(path.Child("type"), strategy.Type,
			fmt.Sprintf("want %q to roll out by placement %q (a Manual strategy uses no placement: pass a zero PlacementRef)",
				addonv1beta1.AddonInstallStrategyPlacements, placementName(placement))))
	}
	found := -1
	listed := make([]string, 0, len(strategy.Placements))
	for i, p := range strategy.Placements {
		listed = append(listed, fmt.Sprintf("%q", placementName(p.PlacementRef)))
		if p.PlacementRef != placement {
			continue
		}
		if found >= 0 {
			e := field.Duplicate(path.Child("placements").Index(i), placementName(placement))
			e.Detail = fmt.Sprintf("want each placement listed once (%s has it)", path.Child("placements").Index(found))
			return addonv1beta1.PlacementStrategy{}, ifield.About(cmaName(cma), e)
		}
		found = i
	}
	if found < 0 {
		e := field.NotFound(path.Child("placements"), placementName(placement))
		e.Detail = "want a placement listed there (none is)"
		if len(listed) > 0 {
			e.Detail = "want one of the listed placements: " + strings.Join(listed, ", ")
		}
		return addonv1beta1.PlacementStrategy{}, ifield.About(cmaName(cma), e)
	}
	return strategy.Placements[found], nil
}

// override applies one level of configs to refs (sorted) and returns a new,
// sorted slice; refs is not modified. See Desired for the rule.
func override(refs []ref, level []addonv1beta1.AddOnConfig) []ref {
	if len(level) == 0 {
		return refs
	}
	named := make(map[addonv1beta1.ConfigGroupResource]bool, len(level))
	seen := make(map[ref]bool, len(level))
	var added []ref
	for _, c := range level {
		r := ref{gr: c.ConfigGroupResource, referent: c.ConfigReferent}
		named[r.gr] = true
		if seen[r] {
			continue
		}
		seen[r] = true
		added = append(added, r)
	}
	out := make([]ref, 0, len(refs)+len(added))
	for _, r := range refs {
		if !named[r.gr] {
			out = append(out, r)
		}
	}
	out = append(out, added...)
	// Stable: within a group/resource the level's order is kept.
	slices.SortStableFunc(out, compareRefs)
	return out
}

func compareRefs(a, b ref) int {
	return compareGroupResources(a.gr, b.gr)
}

// compareGroupResources orders group/resources as OCM's add-on manager
// does (orderedKeys): by group, then resource.
func compareGroupResources(a, b addonv1beta1.ConfigGroupResource) int {
	return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Resource, b.Resource))
}

// withHashes looks up the hash of every ref; all lookup errors are returned
// together.
func withHashes(refs []ref, specHash SpecHashFunc, owner string) ([]Config, error) {
	out := make([]Config, 0, len(refs))
	var errs []error
	for _, r := range refs {
		h, err := specHash(r.gr, r.referent)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: spec hash of %s: %w", owner, configName(r.gr, r.referent), err))
			continue
		}
		out = append(out, Config{GroupResource: r.gr, Referent: r.referent, SpecHash: h})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func grName(gr addonv1beta1.ConfigGroupResource) string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

func referentName(r addonv1beta1.ConfigReferent) string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

func configName(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) string {
	return fmt.Sprintf("%s %q", grName(gr), referentName(r))
}

func placementName(p addonv1beta1.PlacementRef) string {
	return p.Namespace + "/" + p.Name
}

func cmaName(cma *addonv1beta1.ClusterManagementAddOn) string {
	return ifield.Object("clustermanagementaddon", "", cma.Name)
}

func mcaName(mca *addonv1beta1.ManagedClusterAddOn) string {
	return ifield.Object("managedclusteraddon", mca.Namespace, mca.Name)
}
