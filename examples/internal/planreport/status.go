package planreport

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rolloutkit/rolloutkit/addonrollout"
	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// StatusOptions are what [Report.WriteStatus] says beyond the report.
type StatusOptions struct {
	// Command is the CLI as its user invoked it ("rolloutctl",
	// "kubectl rolloutkit"), for the commands the status suggests.
	Command string
	// Note is said under the header when not empty: that the controller
	// does not take the add-on, say.
	Note string
}

// WriteStatus writes r as an operator reads a rollout's status: whose
// controls hold it, the placements' revisions, one table of the groups of
// every placement (as the AddOnRollout's status says them, or as the
// planner does without one), the approvals pending with the command that
// gives each, the verifications due, the problems of the spec, the
// conditions and the warnings. It writes once, when the text is complete.
func (r *Report) WriteStatus(w io.Writer, o StatusOptions) error {
	var b strings.Builder
	fmt.Fprintf(&b, "add-on %q at %s\n", r.Addon, Timestamp(r.Now))
	if o.Note != "" {
		fmt.Fprintln(&b, o.Note)
	}
	writeRolloutLine(&b, r, o.Command)
	for _, pl := range r.Placements {
		fmt.Fprintf(&b, "placement %s/%s: %s\n", pl.Namespace, pl.Name, placementState(pl))
	}
	fmt.Fprintln(&b)
	if err := writeGroupTable(&b, r); err != nil {
		return err
	}
	if r.Rollout != nil {
		if err := writeControls(&b, o.Command, r.Addon, len(r.Placements) > 1, r.Rollout); err != nil {
			return err
		}
	}
	writeWarnings(&b, r.Warnings)
	_, err := io.WriteString(w, b.String())
	return err
}

// placementState says whether a placement was planned, and at which
// revision.
func placementState(pl Placement) string {
	switch {
	case pl.NotPlanned != nil:
		return fmt.Sprintf("not planned (%s): %s", pl.NotPlanned.Reason, pl.NotPlanned.Message)
	case pl.Revision != "" && pl.Kind == addonrollout.KindRendering:
		return fmt.Sprintf("revision %s (a new rendering of unchanged configs, held by the work gate until released), %s", pl.Revision, pl.Strategy)
	case pl.Revision != "":
		return fmt.Sprintf("revision %s, %s", pl.Revision, pl.Strategy)
	}
	return pl.Strategy
}

// writeRolloutLine says which AddOnRollout holds the add-on, and whether
// its status is up to date with its spec.
func writeRolloutLine(b *strings.Builder, rep *Report, command string) {
	r := rep.Rollout
	if r == nil {
		fmt.Fprintf(b, "no AddOnRollout %q: rolled out without operator controls, as OCM's add-on manager would (%s pause creates one)\n", rep.Addon, command)
		return
	}
	state := "the controller has written it for the current spec"
	switch {
	case r.ObservedGeneration == 0:
		state = "the controller has not written it yet (is it running, with -addons?)"
	case r.ObservedGeneration < r.Generation:
		state = "the controller has not caught up with the spec yet"
	}
	paused := ""
	if r.Paused {
		paused = ", paused"
	}
	fmt.Fprintf(b, "AddOnRollout %q%s: generation %d, status of generation %d: %s\n", r.Name, paused, r.Generation, r.ObservedGeneration, state)
	writeInvalid(b, "invalid: the add-on is held until the AddOnRollout's spec is fixed:", r.Invalid)
}

// writeInvalid writes head and the problems of an invalid spec, one a
// line; nothing when there are none.
func writeInvalid(b *strings.Builder, head string, problems []string) {
	if len(problems) == 0 {
		return
	}
	fmt.Fprintln(b, head)
	for _, p := range problems {
		fmt.Fprintf(b, "  - %s\n", p)
	}
}

// writeWarnings writes the warnings, under a heading; nothing when there
// are none.
func writeWarnings(b *strings.Builder, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	fmt.Fprintln(b, "\nwarnings:")
	for _, w := range warnings {
		fmt.Fprintf(b, "  - %s\n", w)
	}
}

// writeGroupTable writes one line per group of every placement.
func writeGroupTable(b *strings.Builder, rep *Report) error {
	tw := tabwriter.NewWriter(b, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "PLACEMENT\tGROUP\tINDEX\tPHASE\tWAITS FOR\tOK/RUN/FAIL/TIMEOUT/TODO\tUNTIL\tMESSAGE")
	for _, pl := range rep.Placements {
		for _, g := range pl.Groups {
			row := g.Row()
			fmt.Fprintf(tw, "%s/%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", pl.Namespace, pl.Name, groupName(g), g.Index, row.Phase, row.WaitsFor, row.Counts, row.Until, row.Message)
		}
	}
	return tw.Flush()
}

// groupName is g's name, or (unnamed).
func groupName(g Group) string {
	if g.Name == "" {
		return "(unnamed)"
	}
	return g.Name
}

// GroupRow is a group as the status shows it, each column "-" when it
// says nothing.
type GroupRow struct {
	// Phase is the group's phase.
	Phase string
	// WaitsFor is what it waits for.
	WaitsFor string
	// Counts are its clusters succeeded/progressing/failed/timed out/to
	// apply, and how many have a work the work gate holds.
	Counts string
	// Until is when its wait ends.
	Until string
	// Message says why.
	Message string
}

// Row is g as the status shows it: from its status under an AddOnRollout,
// else from the planner's phase, wait and reason (no counts).
func (g Group) Row() GroupRow {
	if s := g.Status; s != nil {
		r := GroupRow{Phase: s.Phase, WaitsFor: orDash(s.WaitsFor), Counts: countsOf(s.Counts), Until: "-", Message: s.Message}
		if s.Until != nil {
			r.Until = Timestamp(s.Until.Time)
		}
		return r
	}
	r := GroupRow{Phase: g.Phase, WaitsFor: "-", Counts: "-", Until: "-", Message: g.Reason}
	if g.Wait != nil {
		r.WaitsFor = g.Wait.Kind
		if g.Wait.Until != nil {
			r.Until = Timestamp(*g.Wait.Until)
		}
	}
	return r
}

// countsOf shows a group's clusters succeeded/progressing/failed/timed
// out/to apply, and how many of them have a work the work gate holds.
func countsOf(c v1alpha1.GroupCounts) string {
	counts := fmt.Sprintf("%d/%d/%d/%d/%d", c.Succeeded, c.Progressing, c.Failed, c.TimedOut, c.ToApply)
	if c.Held > 0 {
		counts += fmt.Sprintf(" (%d held)", c.Held)
	}
	return counts
}

// writeControls writes the approvals pending (with the command that
// approves each), the verifications due, and the conditions.
func writeControls(b *strings.Builder, command, addOn string, placements bool, r *Rollout) error {
	fmt.Fprintln(b)
	if len(r.PendingApprovals) == 0 {
		fmt.Fprintln(b, "pending approvals: none")
	} else {
		fmt.Fprintln(b, "pending approvals:")
		for _, pa := range r.PendingApprovals {
			cmd := command + " approve " + addOn + " " + pa.Group
			if placements {
				cmd += " --placement " + pa.Placement.Namespace + "/" + pa.Placement.Name
			}
			fmt.Fprintf(b, "  %s/%s group %q, revision %s: %s\n", pa.Placement.Namespace, pa.Placement.Name, pa.Group, pa.Revision, cmd)
		}
	}
	if len(r.Checks) > 0 {
		fmt.Fprintln(b, "verifications due (the controller runs them; the groups after wait until they pass):")
		for _, c := range r.Checks {
			fmt.Fprintf(b, "  %s/%s group %q: %s\n", c.Placement.Namespace, c.Placement.Name, c.Group.Name, c.Name)
		}
	}
	fmt.Fprintln(b, "\nconditions:")
	tw := tabwriter.NewWriter(b, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  TYPE\tSTATUS\tREASON\tMESSAGE")
	for _, c := range r.Conditions {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	return tw.Flush()
}

// Timestamp shows t as the status shows every time: date, time and zone,
// in t's own location (UTC, as the API server writes times, unless the
// planner computed it from the local clock).
func Timestamp(t time.Time) string {
	return t.Format("2006-01-02 15:04:05 MST")
}

// orDash is s, or "-" for an empty column.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
