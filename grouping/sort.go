package grouping

import (
	"fmt"
	"slices"
	"strings"
)

// sortClusters returns clusters sorted by name, checking that every name is
// set and given once. Input already in strictly ascending order (as the
// placement package passes it) is returned as is; anything else is copied
// before sorting, so that the caller's slice is never reordered.
func sortClusters(clusters []Cluster) ([]Cluster, []error) {
	var errs []error
	for i := range clusters {
		if clusters[i].Name == "" {
			errs = append(errs, fmt.Errorf("clusters[%d]: empty cluster name: want a cluster name", i))
		}
	}
	if isStrictlySorted(clusters) {
		return clusters, errs
	}
	sorted := slices.Clone(clusters)
	slices.SortFunc(sorted, compareClusters)
	for _, name := range DuplicateNames(sorted) {
		if name != "" {
			errs = append(errs, fmt.Errorf("duplicate cluster name %q: want each cluster once", name))
		}
	}
	return sorted, errs
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
