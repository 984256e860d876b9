package planreport

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
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
// controls hold it, whether the controller confirms its status (or it is
// stale: past its recheck time unconfirmed), the placements' revisions
// (and what a rendering revision rolls out) and their configs, one table
// of the groups of every placement (as the AddOnRollout's status says
// them, or as the planner does without one; as the status last said them
// when it is stale), the clusters whose works the work gate holds, one a
// line under their group, the approvals pending with the command that
// gives each, the approvals given and by whom, the
// verifications due, the problems of the spec, the conditions and the
// warnings. Every time that has passed shows as past, judged at r.Now.
// It writes once, when the text is complete.
func (r *Report) WriteStatus(w io.Writer, o StatusOptions) error {
	var b strings.Builder
	fmt.Fprintf(&b, "add-on %q at %s\n", r.Addon, Timestamp(r.Now))
	if o.Note != "" {
		fmt.Fprintln(&b, o.Note)
	}
	writeRolloutLine(&b, r, o.Command)
	for _, pl := range r.Placements {
		fmt.Fprintf(&b, "placement %s/%s: %s\n", pl.Namespace, pl.Name, placementState(pl))
		if pl.FastRollback {
			fmt.Fprintf(&b, "  %s\n", fastRollbackText)
		}
		writeConfigs(&b, pl)
	}
	fmt.Fprintln(&b)
	if err := writeGroupTable(&b, r); err != nil {
		return err
	}
	if r.Rollout != nil {
		if err := writeControls(&b, o.Command, r, r.Rollout); err != nil {
			return err
		}
	}
	writeWarnings(&b, r.Warnings)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeConfigs lists the configs of a placement's revision, one a line;
// it says so when the status lists none for a revision.
func writeConfigs(b *strings.Builder, pl Placement) {
	if pl.Revision == "" {
		return
	}
	if len(pl.Configs) == 0 {
		fmt.Fprintln(b, "  configs: none listed in the status")
		return
	}
	for _, c := range pl.Configs {
		fmt.Fprintf(b, "  %s\n", configLine(c))
	}
}

// configLine says one config of a revision: its resource, its name, its
// spec hash and the image it gives.
func configLine(c v1alpha1.RevisionConfig) string {
	line := fmt.Sprintf("config %s: spec hash %s", hubplan.ConfigRef(c), c.SpecHash)
	if c.Image != "" {
		line += ", image " + c.Image
	}
	return line
}

// placementState says whether a placement was planned, and at which
// revision of which kind.
func placementState(pl Placement) string {
	switch {
	case pl.NotPlanned != nil:
		return fmt.Sprintf("not planned (%s): %s", pl.NotPlanned.Reason, pl.NotPlanned.Message)
	case pl.Revision != "" && revisionKind(pl) != "":
		return fmt.Sprintf("revision %s (%s), %s", pl.Revision, revisionKind(pl), pl.Strategy)
	case pl.Revision != "":
		return fmt.Sprintf("revision %s, %s", pl.Revision, pl.Strategy)
	}
	return pl.Strategy
}

// writeRolloutLine says which AddOnRollout holds the add-on, whether its
// status is up to date with its spec, and whether it is stale.
func writeRolloutLine(b *strings.Builder, rep *Report, command string) {
	r := rep.Rollout
	if r == nil {
		fmt.Fprintf(b, "no AddOnRollout %q: rolled out without operator controls, as OCM's add-on manager would (%s pause creates one)\n", rep.Addon, command)
		return
	}
	paused := ""
	if r.Paused {
		paused = ", paused"
	}
	fmt.Fprintf(b, "AddOnRollout %q%s: generation %d, status of generation %d: %s\n", r.Name, paused, r.Generation, r.ObservedGeneration, statusState(r, rep.Now))
	writeInvalid(b, "invalid: the add-on is held until the AddOnRollout's spec is fixed:", r.Invalid)
}

// statusState says whether the controller has written the status for the
// current spec, and when it last confirmed it; for a stale status, that
// it is stale, and since when.
func statusState(r *Rollout, now time.Time) string {
	c := r.Confirmation
	confirmed := ""
	if c.LastConfirmed != nil {
		confirmed = "the controller last confirmed it at " + TimestampFrom(*c.LastConfirmed, now)
		if c.Source == SourceStatusWrite {
			confirmed = "the controller last wrote it at " + TimestampFrom(*c.LastConfirmed, now)
		}
	}
	switch {
	case c.Stale && confirmed != "":
		return fmt.Sprintf("status is stale: %s and was due to recheck by %s: is the controller running?", confirmed, TimestampFrom(*c.RecheckTime, now))
	case c.Stale:
		return fmt.Sprintf("status is stale: it was due to be rechecked by %s: is the controller running?", TimestampFrom(*c.RecheckTime, now))
	case r.ObservedGeneration == 0:
		return "the controller has not written it yet (is it running, with -addons?)"
	case r.ObservedGeneration < r.Generation:
		return "the controller has not caught up with the spec yet"
	case len(r.NotActedOn) > 0:
		return notActedOnState(r.NotActedOn, confirmed)
	}
	state := "the controller has written it for the current spec"
	if confirmed != "" {
		state += "; " + confirmed
	}
	if c.RecheckTime != nil {
		state += ", and rechecks it by " + TimestampFrom(*c.RecheckTime, now)
	}
	return state
}

// notActedOnState says that the controller has not acted on the
// revisions the hub's configs make now, with their configs, and what the
// status describes instead; confirmed says when it last confirmed that.
func notActedOnState(list []NotActedOn, confirmed string) string {
	var parts []string
	for _, n := range list {
		configs := make([]string, len(n.Configs))
		for i, c := range n.Configs {
			configs[i] = configLine(c)
		}
		parts = append(parts, fmt.Sprintf("the controller has not acted on revision %s yet (placement %s/%s, %s): the status describes revision %s",
			n.Revision, n.Placement.Namespace, n.Placement.Name, strings.Join(configs, "; "), n.Written))
	}
	state := strings.Join(parts, "; ")
	if confirmed != "" {
		state += ", as " + confirmed
	}
	return state
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

// writeGroupTable writes one line per group of every placement: as the
// plan at rep.Now says them, or, when the status is stale, as the status
// last said them, followed by what a running controller would start; then
// what the work gate holds of each group's clusters.
func writeGroupTable(b *strings.Builder, rep *Report) error {
	lines, written := groupLines(rep)
	if written {
		fmt.Fprintln(b, writtenHead(rep.Rollout))
	}
	tw := tabwriter.NewWriter(b, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "PLACEMENT\tGROUP\tINDEX\tPHASE\tWAITS FOR\tOK/RUN/FAIL/TIMEOUT/TODO\tUNTIL\tMESSAGE")
	for _, l := range lines {
		row := l.group.Row(rep.Now)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", l.placement, groupName(l.group), l.group.Index, row.Phase, row.WaitsFor, row.Counts, row.Until, row.Message)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if written && len(rep.Start) > 0 {
		fmt.Fprintf(b, "a running controller would start: %s\n", strings.Join(rep.Start, ", "))
	}
	writeHolds(b, lines, rep.Now)
	return nil
}

// writtenHead heads the groups of a status that does not describe the
// hub now: stale, or written for revisions the configs no longer make.
func writtenHead(r *Rollout) string {
	if r.Confirmation.Stale {
		return "the groups as the stale status last said them; nothing acts on them until a controller runs:"
	}
	return "the groups as the status last said them, for the revisions before the change; nothing acts on the change until the controller does:"
}

// groupLine is one group of the status's table, and its placement
// (namespace/name).
type groupLine struct {
	placement string
	group     Group
}

// groupLines are the groups of every placement as the plan says them,
// or, when rep's status does not describe the hub now (written true: it
// is stale, or the controller has not acted on a change), as the status
// last said them.
func groupLines(rep *Report) (lines []groupLine, written bool) {
	if rep.Rollout != nil && rep.Rollout.Written != nil {
		for _, ps := range rep.Rollout.Written.Placements {
			for _, gs := range ps.Groups {
				lines = append(lines, groupLine{ps.Namespace + "/" + ps.Name, Group{Index: gs.Index, Name: gs.Name, Status: gs.DeepCopy()}})
			}
		}
		return lines, true
	}
	for _, pl := range rep.Placements {
		for _, g := range pl.Groups {
			lines = append(lines, groupLine{pl.Namespace + "/" + pl.Name, g})
		}
	}
	return lines, false
}

// writeHolds writes, under a heading, the clusters whose works the work
// gate holds, by group, each on its own line (the longest held first),
// and how many more a group has than its status lists; nothing when the
// gate holds none.
func writeHolds(b *strings.Builder, lines []groupLine, now time.Time) {
	head := "works the work gate holds, the longest held first:"
	for _, l := range lines {
		holds := holdLines(l.group.Status, now)
		if len(holds) == 0 {
			continue
		}
		if head != "" {
			fmt.Fprintln(b, head)
			head = ""
		}
		fmt.Fprintf(b, "  %s %s:\n", l.placement, groupLabel(l.group))
		for _, h := range holds {
			fmt.Fprintf(b, "    %s\n", h)
		}
	}
}

// groupLabel names g in a sentence: group "NAME", or group INDEX
// (unnamed).
func groupLabel(g Group) string {
	if g.Name == "" {
		return fmt.Sprintf("group %d (unnamed)", g.Index)
	}
	return fmt.Sprintf("group %q", g.Name)
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
	// apply, and how many have a work the work gate holds, since when the
	// oldest hold has waited, and how many of those miss a work.
	Counts string
	// Until is when its wait ends, and how long ago or in how long.
	Until string
	// Message says why.
	Message string
}

// Row is g as the status shows it at now: from its status under an
// AddOnRollout, else from the planner's phase, wait and reason (no
// counts). Until says how long ago or in how long, so that a time passed
// shows as past.
func (g Group) Row(now time.Time) GroupRow {
	if s := g.Status; s != nil {
		r := GroupRow{Phase: s.Phase, WaitsFor: orDash(s.WaitsFor), Counts: countsOf(s, now), Until: "-", Message: s.Message}
		if s.Until != nil {
			r.Until = TimestampFrom(s.Until.Time, now)
		}
		return r
	}
	r := GroupRow{Phase: g.Phase, WaitsFor: "-", Counts: "-", Until: "-", Message: g.Reason}
	if g.Wait != nil {
		r.WaitsFor = g.Wait.Kind
		if g.Wait.Until != nil {
			r.Until = TimestampFrom(*g.Wait.Until, now)
		}
	}
	return r
}

// countsOf shows a group's clusters succeeded/progressing/failed/timed
// out/to apply, and what the work gate holds of them (heldSummary), at
// now.
func countsOf(s *v1alpha1.GroupStatus, now time.Time) string {
	c := s.Counts
	counts := fmt.Sprintf("%d/%d/%d/%d/%d", c.Succeeded, c.Progressing, c.Failed, c.TimedOut, c.ToApply)
	if held := heldSummary(s, now); held != "" {
		counts += " (" + held + ")"
	}
	return counts
}

// writeControls writes the approvals pending (with the command that
// approves each, at the revision it waits at), the approvals given and
// who gave them, the verifications due, and the conditions (as the status
// last said them when it is stale).
func writeControls(b *strings.Builder, command string, rep *Report, r *Rollout) error {
	fmt.Fprintln(b)
	if len(r.PendingApprovals) == 0 {
		fmt.Fprintln(b, "pending approvals: none")
	} else {
		fmt.Fprintln(b, "pending approvals:")
		for _, pa := range r.PendingApprovals {
			cmd := command + " approve " + rep.Addon + " " + pa.Group
			if len(rep.Placements) > 1 {
				cmd += " --placement " + pa.Placement.Namespace + "/" + pa.Placement.Name
			}
			progress := ""
			if p := hubplan.PendingProgress(pa); p != "" {
				progress = " (" + p + ")"
			}
			fmt.Fprintf(b, "  %s/%s group %q, revision %s%s: %s --revision %s\n", pa.Placement.Namespace, pa.Placement.Name, pa.Group, pa.Revision, progress, cmd, pa.Revision)
		}
	}
	if err := writeApprovals(b, r.Approvals); err != nil {
		return err
	}
	if len(r.Checks) > 0 {
		fmt.Fprintln(b, "verifications due (the controller runs them; the groups after wait until they pass):")
		for _, c := range r.Checks {
			fmt.Fprintf(b, "  %s/%s group %q: %s\n", c.Placement.Namespace, c.Placement.Name, c.Group.Name, c.Name)
		}
	}
	conds, head := r.Conditions, "\nconditions:"
	if r.Written != nil {
		conds, head = r.Written.Conditions, "\nconditions, as the status last said them before the change:"
		if r.Confirmation.Stale {
			head = "\nconditions, as the stale status last said them:"
		}
	}
	fmt.Fprintln(b, head)
	tw := tabwriter.NewWriter(b, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  TYPE\tSTATUS\tREASON\tMESSAGE")
	for _, c := range conds {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	return tw.Flush()
}

// writeApprovals writes the add-on's approvals, who created each and what
// its status says it did; nothing when there are none.
func writeApprovals(b *strings.Builder, approvals []Approval) error {
	if len(approvals) == 0 {
		return nil
	}
	fmt.Fprintln(b, "approvals:")
	tw := tabwriter.NewWriter(b, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tPLACEMENT\tGROUP\tREVISION\tBY\tAPPROVED")
	for _, a := range approvals {
		verdict := "not judged yet"
		if a.Reason != "" {
			verdict = a.Reason + ": " + a.Message
		}
		by := a.Username
		if by == "" {
			by = "(not recorded)"
		}
		fmt.Fprintf(tw, "  %s\t%s/%s\t%s\t%s\t%s\t%s\n", a.Name, a.Placement.Namespace, a.Placement.Name, a.Group, a.Revision, by, verdict)
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
