package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/rolloutkit/rolloutkit/placement"
)

// groupTable writes the seed's table: a row per cluster, with its group and
// its PlacementDecision.
func groupTable(w io.Writer, sched placement.Result) error {
	pdOf := decisionOf(sched)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "   group index\tgroup\tPlacementDecision\tcluster")
	for _, g := range sched.Groups {
		for _, c := range g.Clusters {
			fmt.Fprintf(tw, "   %d\t%s\t%s\t%s\n", g.Index, g.Name, pdOf[c], c)
		}
	}
	return tw.Flush()
}

// groupSummaryTable writes a row per group: its PlacementDecisions and its
// clusters, each as a count with the first and the last.
func groupSummaryTable(w io.Writer, sched placement.Result) error {
	pdOf := decisionOf(sched)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "   group index\tgroup\tPlacementDecisions\tclusters")
	for _, g := range sched.Groups {
		var pds []string
		seen := map[string]bool{}
		for _, c := range g.Clusters {
			if pd := pdOf[c]; !seen[pd] {
				seen[pd] = true
				pds = append(pds, pd)
			}
		}
		fmt.Fprintf(tw, "   %d\t%s\t%s\t%s\n", g.Index, g.Name, span(pds), span(g.Clusters))
	}
	return tw.Flush()
}

// decisionOf maps every cluster to the name of its PlacementDecision.
func decisionOf(sched placement.Result) map[string]string {
	pdOf := make(map[string]string, len(sched.Clusters))
	for _, d := range sched.Decisions {
		for _, c := range d.Status.Decisions {
			pdOf[c.ClusterName] = d.Name
		}
	}
	return pdOf
}

// span shows a list by its length, first and last: "a", "a, b", or
// "3: a to c".
func span(names []string) string {
	switch len(names) {
	case 0:
		return "-"
	case 1:
		return names[0]
	case 2:
		return names[0] + ", " + names[1]
	}
	return fmt.Sprintf("%d: %s to %s", len(names), names[0], names[len(names)-1])
}
