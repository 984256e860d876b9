package placement

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// spreadConstraint is one spec.spreadPolicy.spreadConstraints entry,
// parsed.
type spreadConstraint struct {
	key   string
	claim bool // the key names a cluster claim, not a label
	// maxSkew is at least 1.
	maxSkew int
	// hard: DoNotSchedule; else ScheduleAnyway.
	hard bool
}

// parseSpread reads spec.spreadPolicy.spreadConstraints. A maxSkew of 0
// (unset in Go) is the CRD's default, 1, and an empty whenUnsatisfiable its
// default, ScheduleAnyway. OCM v1.2.0 reads none of it, so a problem here
// is not one OCM would report.
func parseSpread(sp clusterv1beta1.SpreadPolicy) ([]spreadConstraint, []error) {
	var out []spreadConstraint
	var errs []error
	for i, t := range sp.SpreadConstraints {
		path := field.NewPath("spec", "spreadPolicy", "spreadConstraints").Index(i)
		c := spreadConstraint{key: t.TopologyKey, maxSkew: max(1, int(t.MaxSkew))}
		if t.TopologyKey == "" {
			errs = append(errs, field.Required(path.Child("topologyKey"), "want a label key or a cluster claim name"))
		}
		switch t.TopologyKeyType {
		case clusterv1beta1.TopologyKeyTypeLabel:
		case clusterv1beta1.TopologyKeyTypeClaim:
			c.claim = true
		default:
			errs = append(errs, field.NotSupported(path.Child("topologyKeyType"), string(t.TopologyKeyType),
				[]clusterv1beta1.TopologyKeyType{clusterv1beta1.TopologyKeyTypeLabel, clusterv1beta1.TopologyKeyTypeClaim}))
		}
		if t.MaxSkew < 0 {
			errs = append(errs, field.Invalid(path.Child("maxSkew"), t.MaxSkew, "want 1 or more (0, unset, means 1)"))
		}
		switch t.WhenUnsatisfiable {
		case clusterv1beta1.DoNotSchedule:
			c.hard = true
		case clusterv1beta1.ScheduleAnyway, "":
		default:
			errs = append(errs, field.NotSupported(path.Child("whenUnsatisfiable"), string(t.WhenUnsatisfiable),
				[]clusterv1beta1.UnsatisfiableMaxSkewAction{clusterv1beta1.DoNotSchedule, clusterv1beta1.ScheduleAnyway}))
		}
		out = append(out, c)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// topology returns the cluster's value for c's key, and whether it has one.
func (c *spreadConstraint) topology(cl *grouping.Cluster) (string, bool) {
	if c.claim {
		v, ok := cl.Claims[c.key]
		return v, ok
	}
	v, ok := cl.Labels[c.key]
	return v, ok
}

// skew counts the clusters chosen in each topology (domain) of one
// constraint, and the smallest count (the global minimum), to tell whether
// one more cluster in a domain keeps the skew within maxSkew. Every domain
// that some candidate is in counts, chosen or not.
type skew struct {
	counts []int // by domain
	levels []int // levels[n]: how many domains have n chosen
	min    int
}

func newSkew(domains int) *skew {
	return &skew{counts: make([]int, domains), levels: []int{domains}}
}

// fits reports whether one more cluster in domain d keeps the skew (the
// count of d minus the global minimum, both after the addition) within
// maxSkew. A cluster in no domain (d < 0) never fits.
func (s *skew) fits(d, maxSkew int) bool {
	if d < 0 {
		return false
	}
	c, low := s.counts[d], s.min
	if c == s.min && s.levels[c] == 1 {
		low++ // d was the only domain at the minimum
	}
	return c+1-low <= maxSkew
}

// add counts one more cluster in domain d.
func (s *skew) add(d int) {
	c := s.counts[d]
	s.counts[d]++
	s.levels[c]--
	if c+1 == len(s.levels) {
		s.levels = append(s.levels, 0)
	}
	s.levels[c+1]++
	if c == s.min && s.levels[c] == 0 {
		s.min++
	}
}
