package addon

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/rollout"

	ifield "github.com/rolloutkit/rolloutkit/internal/field"
)

// Cluster is the add-on of one cluster, evaluated for a rollout: a
// ManagedClusterAddOn's status and the configs it should run with.
type Cluster struct {
	// Status is the add-on's observed rollout status, from [ClusterStatus];
	// Status.Cluster is the add-on's namespace.
	Status rollout.ClusterStatus
	// Configs are the configs the add-on should run with, from [Desired].
	// Write them to the add-on's status.configReferences[].desiredConfig when
	// the rollout lists its cluster, with [ConfigReferences].
	Configs []Config
	// Custom reports that the add-on has spec.configs of its own. It is
	// compared with its desired configs by value, like any other add-on
	// (docs/semantics.md §5.3); OCM compares such configs by pointer, so
	// its install progression never counts such an add-on as succeeded or
	// failed (docs/compatibility.md, A3).
	Custom bool
}

// Evaluate computes [Desired] and [ClusterStatus] for each ManagedClusterAddOn
// of one install-strategy placement of cma (a zero placement: the add-ons no
// placement selects, see [Desired]). mcas should be the add-ons named
// cma.Name on the clusters the placement selects; the result is ordered by
// cluster name. Each distinct config is looked up once, however many add-ons
// use it.
//
// Every problem is reported, joined: a nil entry, an add-on not named
// cma.Name, two add-ons in one namespace, and the errors of Desired and
// ClusterStatus. The inputs are not modified.
func Evaluate(cma *addonv1beta1.ClusterManagementAddOn, placement addonv1beta1.PlacementRef,
	mcas []*addonv1beta1.ManagedClusterAddOn, specHash SpecHashFunc) ([]Cluster, error) {
	if cma == nil {
		return nil, errors.New("evaluate add-ons: nil ClusterManagementAddOn: want an object")
	}
	if specHash == nil {
		return nil, fmt.Errorf("evaluate add-ons of %s: nil SpecHashFunc: want a spec hash lookup", cmaName(cma))
	}
	base, err := placementRefs(cma, placement)
	if err != nil {
		return nil, err
	}
	lookup := memoize(specHash)
	shared, err := withHashes(base, lookup, cmaName(cma))
	if err != nil {
		return nil, err
	}

	var errs []error
	out := make([]Cluster, 0, len(mcas))
	byCluster := make(map[string]int, len(mcas))
	for i, mca := range mcas {
		if err := checkMember(cma, mcas, i, byCluster); err != nil {
			errs = append(errs, err)
			continue
		}
		a := Cluster{Configs: shared, Custom: len(mca.Spec.Configs) > 0}
		if a.Custom {
			a.Configs, err = withHashes(override(base, mca.Spec.Configs), lookup, mcaName(mca))
			if err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if a.Status, err = ClusterStatus(mca, a.Configs); err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, a)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortFunc(out, func(a, b Cluster) int { return cmp.Compare(a.Status.Cluster, b.Status.Cluster) })
	// The add-ons without overrides share one Configs slice; give each its
	// own so that a caller changing one does not change the others.
	for i := range out {
		if !out[i].Custom {
			out[i].Configs = slices.Clone(shared)
		}
	}
	return out, nil
}

// checkMember checks that mcas[i] is an add-on of cma on a cluster not seen
// before, and records its cluster in byCluster.
func checkMember(cma *addonv1beta1.ClusterManagementAddOn, mcas []*addonv1beta1.ManagedClusterAddOn, i int, byCluster map[string]int) error {
	mca := mcas[i]
	if mca == nil {
		return fmt.Errorf("managedclusteraddons[%d]: nil: want an object", i)
	}
	if mca.Name != cma.Name {
		return ifield.About(mcaName(mca), field.Invalid(field.NewPath("metadata", "name"), mca.Name,
			fmt.Sprintf("want %q, the name of the ClusterManagementAddOn", cma.Name)))
	}
	if first, dup := byCluster[mca.Namespace]; dup {
		e := field.Duplicate(field.NewPath("metadata", "namespace"), mca.Namespace)
		e.Detail = fmt.Sprintf("want one add-on per cluster (managedclusteraddons[%d] is in it too)", first)
		return ifield.About(mcaName(mca), e)
	}
	byCluster[mca.Namespace] = i
	return nil
}

// memoize wraps f so that each config is looked up once; errors are
// remembered too.
func memoize(f SpecHashFunc) SpecHashFunc {
	type answer struct {
		hash string
		err  error
	}
	seen := map[ref]answer{}
	return func(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) (string, error) {
		k := ref{gr: gr, referent: r}
		if a, ok := seen[k]; ok {
			return a.hash, a.err
		}
		h, err := f(gr, r)
		seen[k] = answer{h, err}
		return h, err
	}
}

// Statuses returns the Status of each add-on, in the same order: the
// statuses argument of rollout.Planner.Plan.
func Statuses(addons []Cluster) []rollout.ClusterStatus {
	out := make([]rollout.ClusterStatus, len(addons))
	for i, a := range addons {
		out[i] = a.Status
	}
	return out
}
