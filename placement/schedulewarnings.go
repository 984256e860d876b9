package placement

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rolloutkit/rolloutkit/internal/field"
)

// scheduleWarnings explains what the scheduler left out and why: the
// cluster sets, the taints, the tolerations that will expire,
// numberOfClusters and spreadPolicy.
func scheduleWarnings(c *config, f *fleet, sets *boundSets, specSets []string, ch *choice) []Warning {
	var out []Warning
	if w, ok := setWarning(f.namespace, sets, specSets, ch.available); ok {
		out = append(out, w)
	}
	out = append(out, taintWarnings(f, ch.drops)...)
	if len(ch.expiring) > 0 {
		out = append(out, expiringWarning(f, ch.expiring))
	}
	if c.number > len(ch.chosen) {
		out = append(out, Warning{Kind: NumberOfClusters, Message: fmt.Sprintf(
			"numberOfClusters is %d but only %s selected: %d cluster decisions unscheduled",
			c.number, count(len(ch.chosen), "cluster is", "clusters are"), c.number-len(ch.chosen))})
	}
	if len(c.spread) > 0 {
		out = append(out, spreadWarning(f, ch))
	}
	return out
}

// setWarning says why the cluster sets leave no candidate, if they do.
func setWarning(namespace string, sets *boundSets, specSets []string, available int) (Warning, bool) {
	var msg string
	switch {
	case sets.bindings == 0:
		msg = fmt.Sprintf("no ManagedClusterSetBinding in namespace %q binds an existing ManagedClusterSet, "+
			"so no cluster can be selected: bind a set (such as %q) to the namespace", namespace, globalSet)
	case len(sets.eligible) == 0:
		msg = fmt.Sprintf("none of spec.clusterSets %q is bound to namespace %q, so no cluster can be selected",
			specSets, namespace)
	case available == 0:
		msg = fmt.Sprintf("the ManagedClusterSets %q bound to namespace %q have no member (or only clusters being deleted), "+
			"so no cluster can be selected", sets.eligible, namespace)
	default:
		return Warning{}, false
	}
	return Warning{Kind: NoClusterSetBinding, Message: msg}, true
}

// taintWarnings names the clusters dropped by each taint, one warning per
// taint key, effect and cause (not tolerated, or tolerated no more), in
// that order.
func taintWarnings(f *fleet, drops []drop) []Warning {
	if len(drops) == 0 {
		return nil
	}
	type cause struct {
		key, effect string
		expired     bool
	}
	byCause := map[cause][]string{} // the first few names, in name order
	counts := map[cause]int{}
	for _, d := range drops {
		taint := f.managed(d.cluster).Spec.Taints[d.taint]
		c := cause{taint.Key, string(taint.Effect), d.expired}
		if counts[c]++; len(byCause[c]) < shownNames {
			byCause[c] = append(byCause[c], f.clusters[d.cluster].Name)
		}
	}
	causes := make([]cause, 0, len(counts))
	for c := range counts {
		causes = append(causes, c)
	}
	slices.SortFunc(causes, func(a, b cause) int {
		return cmp.Or(strings.Compare(a.key, b.key), strings.Compare(a.effect, b.effect), boolCompare(a.expired, b.expired))
	})
	out := make([]Warning, 0, len(causes))
	for _, c := range causes {
		why := "which the Placement does not tolerate"
		switch {
		case c.expired:
			why = "whose toleration has expired (tolerationSeconds counted from the taint's timeAdded)"
		case c.effect == "NoSelectIfNew":
			why = "which keeps out clusters not already among the Placement's decisions"
		}
		out = append(out, Warning{Kind: Tainted, Message: fmt.Sprintf("%s matched the predicates but %s dropped by the taint %s (%s), %s: %s",
			count(counts[c], "cluster"), plural(counts[c], "was", "were"), strconv.Quote(c.key), c.effect, why,
			field.Names(byCause[c], counts[c], shownNames))})
	}
	return out
}

// expiringWarning names the selected clusters that tolerations keep only
// for a while, the soonest to leave first.
func expiringWarning(f *fleet, expiring []timed) Warning {
	sorted := slices.Clone(expiring)
	slices.SortFunc(sorted, func(a, b timed) int { return cmp.Or(a.until.Compare(b.until), cmp.Compare(a.cluster, b.cluster)) })
	shown := make([]string, 0, shownNames)
	for _, t := range sorted[:min(len(sorted), shownNames)] {
		shown = append(shown, fmt.Sprintf("%q at %s", f.clusters[t.cluster].Name, t.until.UTC().Format(time.RFC3339)))
	}
	msg := fmt.Sprintf("%s selected only because a toleration with tolerationSeconds tolerates %s taint, and will leave the decisions when it expires: %s",
		count(len(sorted), "cluster is", "clusters are"), plural(len(sorted), "its", "their"), strings.Join(shown, ", "))
	if rest := len(sorted) - len(shown); rest > 0 {
		msg += fmt.Sprintf(" and %d more", rest)
	}
	return Warning{Kind: TolerationExpiring, Message: msg}
}

// spreadWarning says that OCM v1.2.0 ignores spreadPolicy, and which
// clusters it would choose instead.
func spreadWarning(f *fleet, ch *choice) Warning {
	onlyHere, onlyOCM := difference(ch.chosen, ch.byScore)
	msg := "spreadPolicy is applied here, but OCM v1.2.0 ignores it and selects by score alone"
	if len(onlyHere)+len(onlyOCM) == 0 {
		return Warning{Kind: SpreadPolicy, Message: msg + ": here that makes no difference"}
	}
	nameOf := func(is []int) []string {
		out := make([]string, 0, shownNames)
		for _, i := range is[:min(len(is), shownNames)] {
			out = append(out, f.clusters[i].Name)
		}
		return out
	}
	var parts []string
	if len(onlyOCM) > 0 {
		parts = append(parts, "OCM would also select "+field.Names(nameOf(onlyOCM), len(onlyOCM), shownNames))
	}
	if len(onlyHere) > 0 {
		parts = append(parts, "OCM would not select "+field.Names(nameOf(onlyHere), len(onlyHere), shownNames))
	}
	return Warning{Kind: SpreadPolicy, Message: msg + ": " + strings.Join(parts, "; ")}
}

// difference returns what only a has and what only b has; both are
// ascending.
func difference(a, b []int) (onlyA, onlyB []int) {
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			onlyA, a = append(onlyA, a[0]), a[1:]
		case a[0] > b[0]:
			onlyB, b = append(onlyB, b[0]), b[1:]
		default:
			a, b = a[1:], b[1:]
		}
	}
	return append(onlyA, a...), append(onlyB, b...)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
