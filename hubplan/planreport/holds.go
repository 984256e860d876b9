package planreport

import (
	"fmt"
	"strings"
	"time"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// This file says what the work gate holds of a group's clusters, as the
// AddOnRollout's status records it (GroupStatus's Counts.Held and
// Counts.Missing, HeldSince and Holds), for both the status and the
// offline report.

// heldSummary says how many of a group's clusters the work gate holds,
// since when the oldest hold has waited, and how many of them miss a work
// the gate holds from being created: "2 held since 12:01:05, 5m ago; 1
// with a missing work". It is "" when the gate holds none.
func heldSummary(s *v1alpha1.GroupStatus, now time.Time) string {
	if s == nil || s.Counts.Held == 0 {
		return ""
	}
	text := fmt.Sprintf("%d held", s.Counts.Held)
	if s.HeldSince != nil {
		text += fmt.Sprintf(" since %s, %s", ClockTime(s.HeldSince.Time, now), Relative(s.HeldSince.Time, now))
	}
	if s.Counts.Missing > 0 {
		text += fmt.Sprintf("; %d with a missing work", s.Counts.Missing)
	}
	return text
}

// holdLines says each hold the status lists of a group, one a line, the
// longest held first, then how many held clusters it does not list
// (Counts.Held counts them all, Holds lists at most 10).
func holdLines(s *v1alpha1.GroupStatus, now time.Time) []string {
	if s == nil {
		return nil
	}
	lines := make([]string, 0, len(s.Holds)+1)
	for _, h := range s.Holds {
		lines = append(lines, holdLine(h, now))
	}
	if more := int(s.Counts.Held) - len(s.Holds); more > 0 {
		lines = append(lines, fmt.Sprintf("and %s, not listed", heldClusters(more)))
	}
	return lines
}

// holdLine says one cluster's hold: the works held (each missing one
// marked so), since when, the gate's reason and its message, e.g.
// "prod-cluster: work addon-cluster-proxy-deploy-0 missing, held since
// 12:01:05 (5m ago): ConfigMovedOn: ...".
func holdLine(h v1alpha1.ClusterHold, now time.Time) string {
	line := h.Cluster + ": "
	if works := heldWorks(h); works != "" {
		line += works + ", "
	}
	line += fmt.Sprintf("held since %s (%s): %s", ClockTime(h.Since.Time, now), Relative(h.Since.Time, now), orDash(h.Reason))
	if h.Message != "" {
		line += ": " + h.Message
	}
	return line
}

// heldWorks names the works of a hold, each "work NAME", with " missing"
// after those the gate holds from being created that do not exist: "work
// a, work b missing". A missing work the hold does not list among its
// works is named all the same. It is "" for a hold that names no work
// (GateUnavailable: the gate could not record which).
func heldWorks(h v1alpha1.ClusterHold) string {
	missing := make(map[string]bool, len(h.Missing))
	for _, m := range h.Missing {
		missing[m] = true
	}
	parts := make([]string, 0, len(h.Works)+len(h.Missing))
	for _, w := range h.Works {
		parts = append(parts, workName(w, missing[w]))
		delete(missing, w)
	}
	for _, m := range h.Missing {
		if missing[m] {
			parts = append(parts, workName(m, true))
		}
	}
	return strings.Join(parts, ", ")
}

// workName is "work NAME", and " missing" after it when it is.
func workName(name string, missing bool) string {
	if missing {
		return "work " + name + " missing"
	}
	return "work " + name
}

// heldClusters is "1 more held cluster", or n more held clusters.
func heldClusters(n int) string {
	if n == 1 {
		return "1 more held cluster"
	}
	return fmt.Sprintf("%d more held clusters", n)
}
