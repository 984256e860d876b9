package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rolloutkit/rolloutkit/addonrollout"
	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/internal/planreport"
)

// statusFlags registers status's flags.
func statusFlags(fs *flag.FlagSet) action {
	output := fs.String("o", "text", "output: text, or json (the report of examples/plan -o json)")
	version := versionFlag(fs)
	return func(ctx context.Context, s session, args []string) error {
		if *output != "text" && *output != "json" {
			return badUsage("status: -o %q: want text or json", *output)
		}
		if err := checkVersion(*version); err != nil {
			return err
		}
		c, err := s.connect()
		if err != nil {
			return err
		}
		p, err := plan(ctx, c, args[0], *version, s.now)
		if err != nil {
			return err
		}
		if *output == "json" {
			return p.report.WriteJSON(s.out)
		}
		return writeStatus(s.out, p)
	}
}

// writeStatus writes the rollout for a person: whose controls hold it,
// the placements' revisions, a table of the groups, the approvals pending,
// the verifications due, the problems of the spec, the conditions and the
// scheduler's and planner's warnings. It writes once, when the text is
// complete.
func writeStatus(w io.Writer, p planned) error {
	rep := p.report
	var b strings.Builder
	fmt.Fprintf(&b, "add-on %q at %s\n", rep.Addon, rep.Now.Format(time.RFC3339))
	if note := lifecycleNote(p.hub, rep.Addon); note != "" {
		fmt.Fprintln(&b, note)
	}
	writeRolloutLine(&b, p)
	for _, pl := range rep.Placements {
		fmt.Fprintf(&b, "placement %s/%s: ", pl.Namespace, pl.Name)
		switch {
		case pl.NotPlanned != nil:
			fmt.Fprintf(&b, "not planned (%s): %s\n", pl.NotPlanned.Reason, pl.NotPlanned.Message)
		case pl.Revision != "" && pl.Kind == addonrollout.KindRendering:
			fmt.Fprintf(&b, "revision %s (a new rendering of unchanged configs, held by the work gate until released), %s\n", pl.Revision, pl.Strategy)
		case pl.Revision != "":
			fmt.Fprintf(&b, "revision %s, %s\n", pl.Revision, pl.Strategy)
		default:
			fmt.Fprintln(&b, pl.Strategy)
		}
	}
	fmt.Fprintln(&b)
	if err := writeGroupTable(&b, rep); err != nil {
		return err
	}
	if r := rep.Rollout; r != nil {
		if err := writeControls(&b, rep.Addon, len(rep.Placements) > 1, r); err != nil {
			return err
		}
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprintln(&b, "\nwarnings:")
		for _, w := range rep.Warnings {
			fmt.Fprintf(&b, "  - %s\n", w)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// lifecycleNote warns when the controller, with its default -lifecycle,
// does not take the add-on: then nobody carries out the plan shown.
func lifecycleNote(h *planreport.Hub, addOn string) string {
	for _, cma := range h.ClusterManagementAddOns {
		if cma.Name != addOn {
			continue
		}
		if v := cma.Annotations[hubctl.LifecycleAnnotation]; v != hubctl.DefaultLifecycle {
			return fmt.Sprintf("note: its annotation %s is %q, not %q: the controller takes it only if its -lifecycle names that value",
				hubctl.LifecycleAnnotation, v, hubctl.DefaultLifecycle)
		}
	}
	return ""
}

// writeRolloutLine says which AddOnRollout holds the add-on, and whether
// its status is up to date with its spec.
func writeRolloutLine(b *strings.Builder, p planned) {
	r := p.report.Rollout
	if r == nil {
		fmt.Fprintf(b, "no AddOnRollout %q: rolled out without operator controls, as OCM's add-on manager would (rolloutctl pause creates one)\n", p.report.Addon)
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
	if len(r.Invalid) > 0 {
		fmt.Fprintln(b, "invalid: the add-on is held until the AddOnRollout's spec is fixed:")
		for _, problem := range r.Invalid {
			fmt.Fprintf(b, "  - %s\n", problem)
		}
	}
}

// writeGroupTable writes one line per group of every placement: as the
// AddOnRollout's status says it, or as the planner does without one.
func writeGroupTable(b *strings.Builder, rep *planreport.Report) error {
	tw := tabwriter.NewWriter(b, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "PLACEMENT\tGROUP\tINDEX\tPHASE\tWAITS FOR\tOK/RUN/FAIL/TIMEOUT/TODO\tUNTIL\tMESSAGE")
	for _, pl := range rep.Placements {
		for _, g := range pl.Groups {
			row := groupRow(g, rep.Now)
			name := g.Name
			if name == "" {
				name = "(unnamed)"
			}
			fmt.Fprintf(tw, "%s/%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", pl.Namespace, pl.Name, name, g.Index, row.phase, row.waitsFor, row.counts, row.until, row.message)
		}
	}
	return tw.Flush()
}

// row is a group's line of the table.
type row struct {
	phase, waitsFor, counts, until, message string
}

// groupRow is g's line: from its status under an AddOnRollout, else from
// the planner's phase, wait and reason (no counts).
func groupRow(g planreport.Group, now time.Time) row {
	if s := g.Status; s != nil {
		r := row{phase: s.Phase, waitsFor: orDash(s.WaitsFor), counts: countsOf(s.Counts), until: "-", message: s.Message}
		if s.Until != nil {
			r.until = planreport.ClockTime(s.Until.Time, now)
		}
		return r
	}
	r := row{phase: g.Phase, waitsFor: "-", counts: "-", until: "-", message: g.Reason}
	if g.Wait != nil {
		r.waitsFor = g.Wait.Kind
		if g.Wait.Until != nil {
			r.until = planreport.ClockTime(*g.Wait.Until, now)
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
func writeControls(b *strings.Builder, addOn string, placements bool, r *planreport.Rollout) error {
	fmt.Fprintln(b)
	if len(r.PendingApprovals) == 0 {
		fmt.Fprintln(b, "pending approvals: none")
	} else {
		fmt.Fprintln(b, "pending approvals:")
		for _, pa := range r.PendingApprovals {
			cmd := "rolloutctl approve " + addOn + " " + pa.Group
			if placements {
				cmd += " -placement " + pa.Placement.Namespace + "/" + pa.Placement.Name
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
