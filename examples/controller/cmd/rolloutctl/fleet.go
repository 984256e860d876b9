package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/dryrun"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// Annotations pause --all and pause --reason record on an AddOnRollout, so
// that status says why and since when an add-on is held.
const (
	// PauseReasonAnnotation is the reason given to pause --reason.
	PauseReasonAnnotation = "rolloutkit.io/pause-reason"
	// PausedAtAnnotation is when pause set spec.paused, RFC 3339 in UTC.
	PausedAtAnnotation = "rolloutkit.io/paused-at"
)

// fleetRow is one line of the fleet table: one placement of one add-on.
type fleetRow struct {
	addOn, placement, governed, revision, phase, waits string
}

// fleetRows plans every add-on of h at now, with the controller's call
// (planreport.New, as status ADDON and -dry-run), and returns the table's
// rows in the add-ons' and placements' order.
func fleetRows(h *planreport.Hub, now time.Time) ([]fleetRow, error) {
	var rows []fleetRow
	for _, name := range h.AddonNames() {
		rep, err := planreport.New(h, name, now, nil)
		if err != nil {
			return nil, fmt.Errorf("planning add-on %q: %w", name, err)
		}
		governed := governance(h, name)
		if len(rep.Placements) == 0 {
			rows = append(rows, fleetRow{addOn: name, placement: "-", governed: governed, revision: "-", phase: "-", waits: "no install-strategy placement"})
		}
		for _, p := range rep.Placements {
			phase, waits := placementPhase(p)
			rows = append(rows, fleetRow{addOn: name, placement: p.Namespace + "/" + p.Name, governed: governed,
				revision: orDash(p.Revision), phase: phase, waits: waits})
		}
	}
	return rows, nil
}

// governance says whether an AddOnRollout governs the add-on name, and
// whether it is paused and why.
func governance(h *planreport.Hub, name string) string {
	for _, ar := range h.AddOnRollouts {
		if ar.Name != name {
			continue
		}
		if !ar.Spec.Paused {
			return "yes"
		}
		s := "paused"
		if r := ar.Annotations[PauseReasonAnnotation]; r != "" {
			s += fmt.Sprintf(" (%s)", r)
		}
		if at := ar.Annotations[PausedAtAnnotation]; at != "" {
			s += " since " + at
		}
		return s
	}
	return "not governed"
}

// placementPhase is the phase of a placement's first group not complete,
// and what it waits for: the AddOnRollout's status of the group when
// there is one (its gates: approval, window, paused, verification), else
// the planner's. A placement not planned says why.
func placementPhase(p planreport.Placement) (phase, waits string) {
	if p.NotPlanned != nil {
		return "NotPlanned", p.NotPlanned.Reason
	}
	for _, g := range p.Groups {
		phase, waits := g.Phase, ""
		if g.Wait != nil {
			waits = g.Wait.Kind
		}
		if g.Status != nil {
			phase, waits = g.Status.Phase, g.Status.WaitsFor
		}
		if phase == "Complete" {
			continue
		}
		return phase, fmt.Sprintf("group %s: %s", groupLabel(g), orDash(waits))
	}
	return "Complete", "-"
}

// groupLabel names a group by its name, or its index when it has none.
func groupLabel(g planreport.Group) string {
	if g.Name != "" {
		return g.Name
	}
	return fmt.Sprint(g.Index)
}

// orDash is s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeFleet writes the rows as a table, a header first.
func writeFleet(w io.Writer, rows []fleetRow) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ADDON\tPLACEMENT\tROLLOUT\tREVISION\tPHASE\tWAITS FOR")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join([]string{r.addOn, r.placement, r.governed, r.revision, r.phase, r.waits}, "\t"))
	}
	return tw.Flush()
}

// fleetStatus reads the hub once through c as the controller does and
// writes every add-on's rollout as one table.
func fleetStatus(ctx context.Context, w io.Writer, c client.Client, version, historyNamespace string, now time.Time) error {
	version, err := storedVersion(ctx, c, version)
	if err != nil {
		return err
	}
	h, err := dryrun.ReadHub(ctx, c, c.RESTMapper(), version)
	if err != nil {
		return err
	}
	if h.Revisions, err = dryrun.ReadHistory(ctx, c, historyNamespace); err != nil {
		return err
	}
	rows, err := fleetRows(h, now)
	if err != nil {
		return err
	}
	return writeFleet(w, rows)
}

// pausedBy are the annotations pause records with spec.paused: the
// reason, when given, and when.
func pausedBy(reason string, now time.Time) map[string]string {
	a := map[string]string{PausedAtAnnotation: now.UTC().Format(time.RFC3339)}
	if reason != "" {
		a[PauseReasonAnnotation] = reason
	}
	return a
}

// addonOrNone checks the positional arguments of a command that takes an
// add-on or, for the whole fleet, none: at most one, not empty.
func addonOrNone(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return badUsage("%s: want ADDON or none, got %d arguments %q", cmd.Name(), len(args), args)
	}
	return exactArgs(slices.Repeat([]string{"ADDON"}, len(args))...)(cmd, args)
}
