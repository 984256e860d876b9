package planreport

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteJSON writes r as one indented JSON object and a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes r for a person: per placement a table of its groups,
// the held groups and the next clusters, then the totals and the warnings.
// It writes once, when the text is complete.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "add-on %q at %s\n", r.Addon, r.Now.UTC().Format(time.RFC3339))
	for _, p := range r.Placements {
		fmt.Fprintf(&b, "\nplacement %q, %s, groups from %s\n", p.Namespace+"/"+p.Name, p.Strategy, p.Source)
		tw := tabwriter.NewWriter(&b, 2, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "  INDEX\tGROUP\tPHASE\tCLUSTERS\tREASON")
		for _, g := range p.Groups {
			name := g.Name
			if name == "" {
				name = "(unnamed)"
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\n", g.Index, name, g.Phase, clusterList(g.Clusters), g.Reason)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, g := range p.Groups {
			if g.Phase == "Blocked" {
				fmt.Fprintf(&b, "  held: group %q: %s\n", g.Name, g.Reason)
			}
		}
		fmt.Fprintf(&b, "  next: %s\n", listOrNone(p.Next))
		fmt.Fprintf(&b, "  progression: %s\n", p.Progress)
	}
	fmt.Fprintf(&b, "\nnext clusters to update: %s\n", listOrNone(r.Next))
	fmt.Fprintf(&b, "timed out: %s\n", listOrNone(r.TimedOut))
	fmt.Fprintf(&b, "removed: %s\n", listOrNone(r.Removed))
	fmt.Fprintf(&b, "failure budget breached: %t\n", r.Breach)
	if r.RecheckAfter > 0 {
		fmt.Fprintf(&b, "look again in: %s\n", time.Duration(r.RecheckAfter*float64(time.Second)).Round(time.Second))
	} else {
		fmt.Fprintln(&b, "look again in: (nothing to wait for)")
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(&b, "\nwarnings:")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "  - %s\n", w)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clusterList shows the first clusters of a group, quoted, and how many more.
func clusterList(names []string) string {
	const show = 3
	if len(names) == 0 {
		return "(none)"
	}
	q := make([]string, 0, show)
	for _, n := range names[:min(len(names), show)] {
		q = append(q, fmt.Sprintf("%q", n))
	}
	s := strings.Join(q, " ")
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
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
