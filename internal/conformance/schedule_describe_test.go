package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
)

// String dumps the scenario compactly, one object a line, enough to
// rebuild it by hand; the first line says how to replay it.
func (sc hubScenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "schedule seed=%d scenario=%d (replay: go test -run 'TestScheduleParity$' -schedule-seed=%d -schedule-scenario=%d -v)\n",
		sc.Seed, sc.Index, sc.Seed, sc.Index)
	b.WriteString(sc.hubCase.String())
	return b.String()
}

// String dumps the case: now relative times are written as offsets.
func (hc hubCase) String() string {
	var b strings.Builder
	spec, _ := json.Marshal(hc.Placement.Spec) // a spec of plain fields always encodes
	fmt.Fprintf(&b, "  now=%s placement %s/%s %s\n", hc.Now.Format(time.RFC3339), hc.Placement.Namespace, hc.Placement.Name, spec)
	for _, mc := range hc.Hub.Clusters {
		b.WriteString("  cluster " + describeCluster(mc, hc.Now) + "\n")
	}
	for _, s := range hc.Hub.ClusterSets {
		b.WriteString("  set " + describeSet(s) + "\n")
	}
	for _, bd := range hc.Hub.Bindings {
		fmt.Fprintf(&b, "  binding %s/%s -> %s %v\n", bd.Namespace, bd.Name, bd.Spec.ClusterSet, conditionStatuses(bd.Status.Conditions))
	}
	for _, s := range hc.Hub.Scores {
		until := "-"
		if s.Status.ValidUntil != nil {
			until = rel(s.Status.ValidUntil.Time, hc.Now)
		}
		fmt.Fprintf(&b, "  score %s/%s until=%s %v\n", s.Namespace, s.Name, until, s.Status.Scores)
	}
	for _, d := range hc.Hub.Decisions {
		var cs []string
		for _, c := range d.Status.Decisions {
			cs = append(cs, c.ClusterName)
		}
		fmt.Fprintf(&b, "  decision %s/%s %v %v\n", d.Namespace, d.Name, sortedMap(d.Labels), cs)
	}
	return b.String()
}

func describeCluster(mc *clusterv1.ManagedCluster, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %v", mc.Name, sortedMap(mc.Labels))
	if len(mc.Status.ClusterClaims) > 0 {
		claims := map[string]string{}
		for _, c := range mc.Status.ClusterClaims {
			claims[c.Name] = c.Value
		}
		fmt.Fprintf(&b, " claims=%v", sortedMap(claims))
	}
	for _, t := range mc.Spec.Taints {
		added := "never"
		if !t.TimeAdded.IsZero() {
			added = rel(t.TimeAdded.Time, now)
		}
		fmt.Fprintf(&b, " taint=%s=%s:%s@%s", t.Key, t.Value, t.Effect, added)
	}
	for _, r := range []clusterv1.ResourceName{clusterv1.ResourceCPU, clusterv1.ResourceMemory} {
		a, c := "-", "-"
		if q, ok := mc.Status.Allocatable[r]; ok {
			a = q.String()
		}
		if q, ok := mc.Status.Capacity[r]; ok {
			c = q.String()
		}
		fmt.Fprintf(&b, " %s=%s/%s", r, a, c)
	}
	if mc.DeletionTimestamp != nil {
		b.WriteString(" deleting")
	}
	return b.String()
}

func describeSet(s *clusterv1beta2.ManagedClusterSet) string {
	sel := s.Spec.ClusterSelector
	switch {
	case sel.SelectorType != clusterv1beta2.LabelSelector:
		return fmt.Sprintf("%s exclusive(%q)", s.Name, sel.SelectorType)
	case sel.LabelSelector == nil:
		return s.Name + " labelSelector=nil"
	}
	ls, _ := json.Marshal(sel.LabelSelector) // plain fields always encode
	return fmt.Sprintf("%s labelSelector=%s", s.Name, ls)
}

func conditionStatuses(conds []metav1.Condition) []string {
	var out []string
	for _, c := range conds {
		out = append(out, c.Type+"="+string(c.Status))
	}
	return out
}

// sortedMap writes a map as k=v pairs in key order.
func sortedMap(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// String writes an outcome on a few lines, for failure messages.
func (o scheduleOutcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "selected=%d satisfied=%s misconfigured=%s recheck=%s", o.Selected, o.Satisfied, o.Misconfig, o.RecheckAfter)
	if o.Err != nil {
		fmt.Fprintf(&b, " err=%v", o.Err)
	}
	for _, g := range o.Groups {
		fmt.Fprintf(&b, "\n    group %d %q count=%d %v %v", g.Index, g.Name, g.Count, g.Decisions, g.Clusters)
	}
	return b.String()
}
