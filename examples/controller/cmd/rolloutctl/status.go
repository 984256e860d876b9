package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/addonrollout"
	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/internal/planreport"
)

// statusOutputs are the formats of status -o, the default first.
func statusOutputs() []string { return []string{"text", "json", "yaml"} }

// newStatusCommand is status: the add-on's rollout as the controller
// plans it.
func newStatusCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:               "status ADDON",
		Short:             "Show the add-on's rollout as the controller plans it: one line per group, approvals pending, conditions",
		Args:              exactArgs("ADDON"),
		ValidArgsFunction: c.completeAddons,
	}
	output := cmd.Flags().StringP("output", "o", "text", "output: text, json or yaml (the report of examples/plan -o json)")
	mustComplete(cmd, "output", cobra.FixedCompletions(statusOutputs(), cobra.ShellCompDirectiveNoFileComp))
	version := addonVersionFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if !slices.Contains(statusOutputs(), *output) {
			return badUsage("status: -o %q: want %s", *output, strings.Join(statusOutputs(), ", "))
		}
		if err := checkVersion(*version); err != nil {
			return err
		}
		cl, err := c.client()
		if err != nil {
			return err
		}
		p, err := plan(cmd.Context(), cl, args[0], *version, c.now())
		if err != nil {
			return err
		}
		if *output == "text" {
			return writeStatus(c.stdout, p, c.name)
		}
		return writeReport(c.stdout, p.report, *output)
	}
	return cmd
}

// writeReport writes the report of examples/plan, as JSON (its -o json)
// or as the same document in YAML.
func writeReport(w io.Writer, rep *planreport.Report, format string) error {
	if format == "json" {
		return rep.WriteJSON(w)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		return err
	}
	y, err := yaml.JSONToYAML(b.Bytes())
	if err != nil {
		return fmt.Errorf("writing the report as YAML: %w", err)
	}
	_, err = w.Write(y)
	return err
}

// writeStatus writes the rollout for a person: whose controls hold it,
// the placements' revisions, a table of the groups, the approvals pending,
// the verifications due, the problems of the spec, the conditions and the
// scheduler's and planner's warnings; self is the command as invoked,
// for the commands it suggests. It writes once, when the text is
// complete.
func writeStatus(w io.Writer, p planned, self string) error {
	rep := p.report
	var b strings.Builder
	fmt.Fprintf(&b, "add-on %q at %s\n", rep.Addon, timestamp(rep.Now))
	if note := lifecycleNote(p.hub, rep.Addon); note != "" {
		fmt.Fprintln(&b, note)
	}
	writeRolloutLine(&b, p, self)
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
		if err := writeControls(&b, self, rep.Addon, len(rep.Placements) > 1, r); err != nil {
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
		if cma.Name != addOn || hubctl.Takes(nil, cma.Annotations) {
			continue
		}
		if v, ok := cma.Annotations[hubctl.LifecycleAnnotation]; ok {
			return fmt.Sprintf("note: its annotation %s is %q, not %q: the controller takes it only if its -lifecycle names that value",
				hubctl.LifecycleAnnotation, v, hubctl.DefaultLifecycle)
		}
		return fmt.Sprintf("note: it has no annotation %s, so it is OCM's add-on manager's: the controller takes it only if its -lifecycle names %q, or once annotated %q",
			hubctl.LifecycleAnnotation, addonv1alpha1.AddonLifecycleAddonManagerAnnotationValue, hubctl.DefaultLifecycle)
	}
	return ""
}

// writeRolloutLine says which AddOnRollout holds the add-on, and whether
// its status is up to date with its spec.
func writeRolloutLine(b *strings.Builder, p planned, self string) {
	r := p.report.Rollout
	if r == nil {
		fmt.Fprintf(b, "no AddOnRollout %q: rolled out without operator controls, as OCM's add-on manager would (%s pause creates one)\n", p.report.Addon, self)
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
			row := groupRow(g)
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
func groupRow(g planreport.Group) row {
	if s := g.Status; s != nil {
		r := row{phase: s.Phase, waitsFor: orDash(s.WaitsFor), counts: countsOf(s.Counts), until: "-", message: s.Message}
		if s.Until != nil {
			r.until = timestamp(s.Until.Time)
		}
		return r
	}
	r := row{phase: g.Phase, waitsFor: "-", counts: "-", until: "-", message: g.Reason}
	if g.Wait != nil {
		r.waitsFor = g.Wait.Kind
		if g.Wait.Until != nil {
			r.until = timestamp(*g.Wait.Until)
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
func writeControls(b *strings.Builder, self, addOn string, placements bool, r *planreport.Rollout) error {
	fmt.Fprintln(b)
	if len(r.PendingApprovals) == 0 {
		fmt.Fprintln(b, "pending approvals: none")
	} else {
		fmt.Fprintln(b, "pending approvals:")
		for _, pa := range r.PendingApprovals {
			cmd := self + " approve " + addOn + " " + pa.Group
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

// timestamp shows t as every time rolloutctl prints: date, time and
// zone, in t's own location (UTC, as the API server writes times, unless
// the planner computed it from the local clock).
func timestamp(t time.Time) string {
	return t.Format("2006-01-02 15:04:05 MST")
}

// orDash is s, or "-" for an empty column.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
