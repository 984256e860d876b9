package rollout

import (
	"cmp"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// The problems of Plan's groups and statuses, each a *field.Error whose
// path points into the arguments as the caller wrote them:
// groups[2].Clusters[0], statuses[1].Status.

// inputs names the caller's groups in errors. The fleet orders them by
// index (grouping.InOrder keeps the input order of groups that share an
// index), so an error finds a group's place in the caller's slice again.
type inputs struct {
	groups []grouping.Group
	order  []int // order[gi]: the caller's place of ordered group gi; made at the first error
}

// group returns the caller's place of ordered group gi, and the group.
func (in *inputs) group(gi int) (int, grouping.Group) {
	if in.order == nil {
		in.order = make([]int, len(in.groups))
		for i := range in.order {
			in.order[i] = i
		}
		slices.SortStableFunc(in.order, func(a, b int) int { return cmp.Compare(in.groups[a].Index, in.groups[b].Index) })
	}
	j := in.order[gi]
	return j, in.groups[j]
}

// groupPath is the path of ordered group gi: groups[j].
func (in *inputs) groupPath(gi int) *field.Path {
	j, _ := in.group(gi)
	return field.NewPath("groups").Index(j)
}

// cluster is the path of the nth (from 0) occurrence of name among the
// clusters of ordered group gi, as the caller listed them:
// groups[j].Clusters[k].
func (in *inputs) cluster(gi int, name string, nth int) *field.Path {
	j, g := in.group(gi)
	p := field.NewPath("groups").Index(j).Child("Clusters")
	for k, c := range g.Clusters {
		if c == name {
			if nth == 0 {
				return p.Index(k)
			}
			nth--
		}
	}
	return p
}

// duplicateIndex is the error for ordered group gi, whose index ordered
// group earlier has too.
func (in *inputs) duplicateIndex(earlier, gi int) error {
	j, g := in.group(earlier)
	e := field.Duplicate(in.groupPath(gi).Child("Index"), g.Index)
	e.Detail = "want a unique group index (groups[" + strconv.Itoa(j) + "], " + strconv.Quote(g.Name) + ", has it too)"
	return e
}

// duplicateCluster is the error for entry second, whose cluster entry
// first (earlier in the fleet) is too: in another group, or in the same.
func (f *fleet) duplicateCluster(in *inputs, first, second int) error {
	e, name := f.entries[second], f.name(second)
	span := f.groups[e.group]
	nth := 0 // how many entries of the same name come before second in its group
	for i := second; i > span.start && f.name(i-1) == name; i-- {
		nth++
	}
	a, b := f.groups[f.entries[first].group].key, span.key
	want := "want each cluster once in its group, not twice in " + b.String()
	if a != b {
		want = "want each cluster in one group, not in both " + a.String() + " and " + b.String()
	}
	err := field.Duplicate(in.cluster(int(e.group), name, nth), name)
	err.Detail = want
	return err
}

// statusErrors reports, in input order, the statuses without a cluster
// name and those whose value is none of the six.
func statusErrors(statuses []ClusterStatus) []error {
	var errs []error
	for j := range statuses {
		if statuses[j].Cluster == "" {
			errs = append(errs, field.Required(statusPath(j).Child("Cluster"), "a cluster name"))
		}
		if st := statuses[j].Status; st < ToApply || st > Skip {
			errs = append(errs, unknownStatus(j, statuses[j].Cluster, st))
		}
	}
	return errs
}

func statusPath(j int) *field.Path { return field.NewPath("statuses").Index(j) }

// duplicateStatus is the error for statuses[later], whose cluster
// statuses[earlier] has too.
func duplicateStatus(statuses []ClusterStatus, earlier, later int) error {
	e := field.Duplicate(statusPath(later).Child("Cluster"), statuses[later].Cluster)
	e.Detail = "want one status per cluster (statuses[" + strconv.Itoa(earlier) + "] has it too)"
	return e
}

// unknownStatus is the error for status j, of cluster, whose value is none
// of OCM's six: it is not guessed to be Progressing (docs/semantics.md §3.1).
func unknownStatus(j int, cluster string, st Status) error {
	return field.Invalid(statusPath(j).Child("Status"), int(st),
		"want one of ToApply, Progressing, Succeeded, Failed, TimeOut or Skip, for cluster "+strconv.Quote(cluster))
}
