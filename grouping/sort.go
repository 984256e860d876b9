package grouping

import (
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// sortClusters returns clusters sorted by name, checking that every name is
// set and given once. Input already in strictly ascending order (as the
// placement package passes it) is returned as is; anything else is copied
// before sorting, so that the caller's slice is never reordered.
func sortClusters(clusters []Cluster) ([]Cluster, []error) {
	var errs []error
	for i := range clusters {
		if clusters[i].Name == "" {
			errs = append(errs, field.Required(clusterPath(i), "a cluster name"))
		}
	}
	if isStrictlySorted(clusters) {
		return clusters, errs
	}
	sorted := slices.Clone(clusters)
	slices.SortFunc(sorted, compareClusters)
	if dups := DuplicateNames(sorted); len(dups) > 0 {
		errs = append(errs, duplicateClusters(clusters, dups)...)
	}
	return sorted, errs
}

func clusterPath(i int) *field.Path { return field.NewPath("clusters").Index(i).Child("Name") }

// duplicateClusters reports, in input order, each cluster whose name (one
// of dups) an earlier cluster has. An empty name is reported as missing
// already.
func duplicateClusters(clusters []Cluster, dups []string) []error {
	first := make(map[string]int, len(dups))
	for _, name := range dups {
		if name != "" {
			first[name] = -1
		}
	}
	var errs []error
	for i := range clusters {
		name := clusters[i].Name
		switch j, ok := first[name]; {
		case !ok:
		case j < 0:
			first[name] = i
		default:
			e := field.Duplicate(clusterPath(i), name)
			e.Detail = "want each cluster once (clusters[" + strconv.Itoa(j) + "] has it too)"
			errs = append(errs, e)
		}
	}
	return errs
}

// DuplicateNames returns, in order, each name that sorted (clusters sorted
// by name) holds more than once: once, however often it repeats. Divide
// reports these as errors; so does the placement package, in its own words,
// for the ManagedClusters it reads.
func DuplicateNames(sorted []Cluster) []string {
	var names []string
	for i := 1; i < len(sorted); i++ {
		if name := sorted[i].Name; name == sorted[i-1].Name && (i < 2 || sorted[i-2].Name != name) {
			names = append(names, name)
		}
	}
	return names
}

func compareClusters(a, b Cluster) int { return strings.Compare(a.Name, b.Name) }

func isStrictlySorted(clusters []Cluster) bool {
	for i := 1; i < len(clusters); i++ {
		if clusters[i-1].Name >= clusters[i].Name {
			return false
		}
	}
	return true
}
