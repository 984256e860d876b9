package placement

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"

	ifield "github.com/rolloutkit/rolloutkit/internal/field"
)

// globalSet is the name of OCM's cluster set that holds every cluster.
const globalSet = "global"

// boundSets is what the cluster sets make of one Placement: how many
// bindings OCM counts, the eligible sets, and how to tell their members.
type boundSets struct {
	// bindings counts the ManagedClusterSetBindings in the Placement's
	// namespace whose set exists.
	bindings int
	// eligible are the names of the bound sets, narrowed to
	// spec.clusterSets when that is set, sorted.
	eligible []string
	// all: an eligible set selects every cluster.
	all bool
	// exclusive are the eligible sets that take the clusters labelled
	// cluster.open-cluster-management.io/clusterset=<set>.
	exclusive map[string]bool
	// selectors are those of the eligible LabelSelector sets.
	selectors []labels.Selector
}

// everyCluster is what Schedule binds: the global set, holding every
// cluster given.
func everyCluster() boundSets {
	return boundSets{bindings: 1, eligible: []string{globalSet}, all: true}
}

// bindSets finds the sets eligible for p as OCM's scheduling controller
// does. A binding counts when it is in p's namespace and a set of its name
// exists (the name, not spec.clusterSet, is what OCM reads; its webhook
// keeps the two equal). An eligible set whose selector cannot be built is
// an error: OCM's controller then fails and writes nothing.
func bindSets(p *clusterv1beta1.Placement, sets []*clusterv1beta2.ManagedClusterSet, bindings []*clusterv1beta2.ManagedClusterSetBinding) (boundSets, []error) {
	byName := make(map[string]*clusterv1beta2.ManagedClusterSet, len(sets))
	for _, s := range sets {
		byName[s.Name] = s
	}
	var out boundSets
	bound := map[string]bool{}
	for _, b := range bindings {
		if b.Namespace == p.Namespace && byName[b.Name] != nil {
			out.bindings++
			bound[b.Name] = true
		}
	}
	if len(p.Spec.ClusterSets) > 0 {
		wanted := make(map[string]bool, len(p.Spec.ClusterSets))
		for _, name := range p.Spec.ClusterSets {
			wanted[name] = true
		}
		for name := range bound {
			bound[name] = wanted[name]
		}
	}
	for name, ok := range bound {
		if ok {
			out.eligible = append(out.eligible, name)
		}
	}
	slices.Sort(out.eligible)
	var errs []error
	for _, name := range out.eligible {
		if err := out.addSelector(byName[name]); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ifield.Object("managedclusterset", "", name), err))
		}
	}
	return out, errs
}

// addSelector adds how set s selects its members: by the exclusive label
// (selectorType ExclusiveClusterSetLabel or empty) or by its label selector
// (LabelSelector; a nil selector selects nothing, an empty one
// everything).
func (b *boundSets) addSelector(s *clusterv1beta2.ManagedClusterSet) error {
	path := field.NewPath("spec", "clusterSelector")
	switch st := s.Spec.ClusterSelector.SelectorType; st {
	case "", clusterv1beta2.ExclusiveClusterSetLabel:
		if b.exclusive == nil {
			b.exclusive = map[string]bool{}
		}
		b.exclusive[s.Name] = true
	case clusterv1beta2.LabelSelector:
		sel, err := metav1.LabelSelectorAsSelector(s.Spec.ClusterSelector.LabelSelector)
		if err != nil {
			return field.Invalid(path.Child("labelSelector"), s.Spec.ClusterSelector.LabelSelector.String(),
				"want a valid label selector: "+err.Error())
		}
		if sel.Empty() {
			b.all = true
		}
		b.selectors = append(b.selectors, sel)
	default:
		return field.NotSupported(path.Child("selectorType"), string(st),
			[]clusterv1beta2.SelectorType{clusterv1beta2.ExclusiveClusterSetLabel, clusterv1beta2.LabelSelector})
	}
	return nil
}

// member reports whether a cluster with these labels is in an eligible
// set.
func (b *boundSets) member(ls map[string]string) bool {
	if b.all {
		return true
	}
	if len(b.exclusive) > 0 {
		if set, ok := ls[clusterv1beta2.ClusterSetLabel]; ok && b.exclusive[set] {
			return true
		}
	}
	for _, sel := range b.selectors {
		if sel.Matches(labels.Set(ls)) {
			return true
		}
	}
	return false
}
