package planreport

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// WriteJSON writes r as one indented JSON object and a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// fastRollbackText says a placement's revision rolls out by the fast
// path of spec.fastRollback.
const fastRollbackText = "fast rollback: a revision every cluster taking it ran before, with no soak, approval, window or verification"

// WriteText writes r for a person: per placement a table of its groups,
// the held groups, the clusters to start now and those in flight, then the
// totals and the warnings. Under an AddOnRollout it also says which, the
// problems of its spec, each placement's revision (and what a rendering
// revision rolls out) and its configs, each group's phase and what it
// waits for as the AddOnRollout's status says them, what the work gate
// holds of each group's clusters, the approvals pending, the
// verifications due and the conditions.
// It writes once, when the text is complete.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "add-on %q at %s\n", r.Addon, r.Now.UTC().Format(time.RFC3339))
	if r.Rollout != nil {
		writeRolloutHead(&b, r.Rollout)
	}
	for _, p := range r.Placements {
		fmt.Fprintf(&b, "\nplacement %q, %s, groups from %s\n", p.Namespace+"/"+p.Name, p.Strategy, p.Source)
		if kind := revisionKind(p); p.Revision != "" && kind != "" {
			fmt.Fprintf(&b, "  revision: %s (%s)\n", p.Revision, kind)
		} else if p.Revision != "" {
			fmt.Fprintf(&b, "  revision: %s\n", p.Revision)
		}
		if p.FastRollback {
			fmt.Fprintf(&b, "  %s\n", fastRollbackText)
		}
		for _, c := range p.Configs {
			fmt.Fprintf(&b, "  %s\n", configLine(c))
		}
		if p.NotPlanned != nil {
			fmt.Fprintf(&b, "  not planned (%s): %s\n", p.NotPlanned.Reason, p.NotPlanned.Message)
		}
		if err := writeGroups(&b, p.Groups, r.Rollout != nil, r.Now); err != nil {
			return err
		}
		fmt.Fprintf(&b, "  start now: %s\n", listOrNone(p.Start))
		fmt.Fprintf(&b, "  in flight: %s\n", inFlightList(p.InFlight, r.Now))
		fmt.Fprintf(&b, "  progression: %s\n", p.Progress)
	}
	fmt.Fprintf(&b, "\nclusters to start now: %s\n", listOrNone(r.Start))
	fmt.Fprintf(&b, "clusters in flight (already updating): %s\n", inFlightList(r.InFlight, r.Now))
	fmt.Fprintf(&b, "timed out: %s\n", listOrNone(r.TimedOut))
	fmt.Fprintf(&b, "removed: %s\n", listOrNone(r.Removed))
	fmt.Fprintf(&b, "failure budget breached: %t\n", r.Breach)
	if r.RecheckAfter > 0 {
		fmt.Fprintf(&b, "look again in: %s\n", time.Duration(r.RecheckAfter*float64(time.Second)).Round(time.Second))
	} else {
		fmt.Fprintln(&b, "look again in: (nothing to wait for)")
	}
	if r.Rollout != nil {
		writeRolloutTail(&b, r.Addon, r.Rollout)
	}
	writeWarnings(&b, r.Warnings)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeGroups writes the table of a placement's groups, then a line for
// each held group. Under an AddOnRollout (controlled) the table shows the
// groups as its status does: the phase, what each waits for, and why;
// and under it what the work gate holds of each group's clusters, at now.
func writeGroups(b *strings.Builder, groups []Group, controlled bool, now time.Time) error {
	tw := tabwriter.NewWriter(b, 2, 8, 2, ' ', 0)
	if controlled {
		fmt.Fprintln(tw, "  INDEX\tGROUP\tPHASE\tWAITS FOR\tCLUSTERS\tREASON")
	} else {
		fmt.Fprintln(tw, "  INDEX\tGROUP\tPHASE\tCLUSTERS\tREASON")
	}
	for _, g := range groups {
		name := groupName(g)
		if !controlled {
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\n", g.Index, name, g.Phase, clusterList(g.Clusters), g.Reason)
			continue
		}
		phase, waitsFor, reason := g.Phase, "-", g.Reason
		if s := g.Status; s != nil {
			phase, reason = s.Phase, s.Message
			if s.WaitsFor != "" {
				waitsFor = s.WaitsFor
			}
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\n", g.Index, name, phase, waitsFor, clusterList(g.Clusters), reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, g := range groups {
		switch s := g.Status; {
		case s != nil && s.Phase == "Blocked":
			fmt.Fprintf(b, "  held: group %q, waits for %s: %s\n", g.Name, s.WaitsFor, strings.TrimPrefix(s.Message, "held: "))
		case s == nil && g.Phase == "Blocked":
			fmt.Fprintf(b, "  held: group %q: %s\n", g.Name, heldBy(g))
		}
	}
	for _, g := range groups {
		writeGateHolds(b, g, now)
	}
	return nil
}

// writeGateHolds writes what the work gate holds of g's clusters, as its
// status says: how many, since when and how many miss a work, then each
// hold on its own line; nothing when it holds none.
func writeGateHolds(b *strings.Builder, g Group, now time.Time) {
	summary := heldSummary(g.Status, now)
	if summary == "" {
		return
	}
	fmt.Fprintf(b, "  work gate: %s: %s\n", groupLabel(g), summary)
	for _, h := range holdLines(g.Status, now) {
		fmt.Fprintf(b, "    %s\n", h)
	}
}

// writeRolloutHead says which AddOnRollout controls the add-on, and what
// is wrong with its spec.
func writeRolloutHead(b *strings.Builder, r *Rollout) {
	paused := ""
	if r.Paused {
		paused = ", paused (spec.paused): no cluster starts; clusters in flight finish"
	}
	fmt.Fprintf(b, "controlled by AddOnRollout %q, generation %d%s\n", r.Name, r.Generation, paused)
	writeInvalid(b, "invalid AddOnRollout: the add-on is held until its spec is fixed:", r.Invalid)
}

// writeRolloutTail writes the approvals pending, the verifications due
// and the AddOnRollout's conditions.
func writeRolloutTail(b *strings.Builder, addOn string, r *Rollout) {
	if len(r.PendingApprovals) == 0 {
		fmt.Fprintln(b, "\npending approvals: (none)")
	} else {
		fmt.Fprintln(b, "\npending approvals:")
		for _, pa := range r.PendingApprovals {
			progress := ""
			if p := hubplan.PendingProgress(pa); p != "" {
				progress = ", " + p
			}
			fmt.Fprintf(b, "  - placement %q, group %q, revision %s%s (approve: kubectl rolloutkit approve %s %s --revision %s)\n",
				pa.Placement.Namespace+"/"+pa.Placement.Name, pa.Group, pa.Revision, progress, addOn, pa.Group, pa.Revision)
		}
	}
	if len(r.Checks) == 0 {
		fmt.Fprintln(b, "verifications due now: (none)")
	} else {
		fmt.Fprintln(b, "verifications due now (the controller runs them; the groups after wait until they pass):")
		for _, c := range r.Checks {
			fmt.Fprintf(b, "  - placement %q, group %q: %s: %s\n", c.Placement.Namespace+"/"+c.Placement.Name, c.Group.Name, c.Name, checkTarget(c.Verification))
		}
	}
	fmt.Fprintln(b, "conditions:")
	for _, c := range r.Conditions {
		fmt.Fprintf(b, "  %s=%s (%s): %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
}

// checkTarget says what a verification asks.
func checkTarget(v v1alpha1.Verification) string {
	switch {
	case v.Webhook != nil:
		return "webhook POST " + v.Webhook.URL
	case v.Prometheus != nil:
		return fmt.Sprintf("prometheus %s query %q", v.Prometheus.Address, v.Prometheus.Query)
	}
	return "no check"
}

// clusterList shows the first clusters of a group, quoted, and how many more.
func clusterList(names []string) string {
	const show = 3
	if len(names) == 0 {
		return "(none)"
	}
	s := strings.Join(quoted(names[:min(len(names), show)]), " ")
	if len(names) > show {
		s += fmt.Sprintf(" +%d more", len(names)-show)
	}
	return s
}

// listOrNone shows names quoted and comma-separated, or (none).
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(quoted(names), ", ")
}

// inFlightList shows clusters in flight quoted, each with what it is doing
// and until when (in now's location), or (none).
func inFlightList(fs []InFlight, now time.Time) string {
	if len(fs) == 0 {
		return "(none)"
	}
	q := make([]string, len(fs))
	for i, f := range fs {
		q[i] = fmt.Sprintf("%q (%s)", f.Cluster, f.doing(now))
	}
	return strings.Join(q, ", ")
}

// doing says what an in-flight cluster is doing as the planner's reasons
// say it, e.g. "soaking until 12:06:00".
func (f InFlight) doing(now time.Time) string {
	switch {
	case f.Until == nil && f.Status == "Succeeded":
		return "soaking"
	case f.Until == nil:
		return strings.ToLower(f.Status) + ", no deadline"
	case f.Status == "Succeeded":
		return "soaking until " + ClockTime(*f.Until, now)
	case f.Status == "Failed":
		return "failed, retrying until the deadline " + ClockTime(*f.Until, now)
	}
	return strings.ToLower(f.Status) + ", deadline " + ClockTime(*f.Until, now)
}

// ClockTime formats t as a report shows a time: in now's location, with
// the date when it is not now's day.
func ClockTime(t, now time.Time) string {
	t = t.In(now.Location())
	if y, m, d := t.Date(); y != now.Year() || m != now.Month() || d != now.Day() {
		return t.Format(time.DateTime)
	}
	return t.Format(time.TimeOnly)
}

// heldBy says what holds a Blocked group: its gates' reasons, from the
// structured wait (its Reason already starts with "held: ").
func heldBy(g Group) string {
	if g.Wait != nil && len(g.Wait.Gates) > 0 {
		return strings.Join(g.Wait.Gates, "; ")
	}
	return g.Reason
}

// quoted returns each name quoted, in a new slice: the one quoting the
// report's lists share.
func quoted(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return q
}
