package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// statusOutputs are the formats of status -o, the default first.
func statusOutputs() []string { return []string{"text", "json", "yaml"} }

// newStatusCommand is status: the add-on's rollout as the controller
// plans it.
func newStatusCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:               "status [ADDON]",
		Short:             "Show the add-on's rollout as the controller plans it: one line per group, approvals pending, conditions; with no add-on, every add-on's in one table",
		Args:              addonOrNone,
		ValidArgsFunction: c.completeAddons,
	}
	output := cmd.Flags().StringP("output", "o", "text", "output: text, json or yaml (the report of examples/plan -o json)")
	mustComplete(cmd, "output", cobra.FixedCompletions(statusOutputs(), cobra.ShellCompDirectiveNoFileComp))
	version := addonVersionFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if !slices.Contains(statusOutputs(), *output) {
			return badUsage("status: -o %q: want %s", *output, strings.Join(statusOutputs(), ", "))
		}
		if len(args) == 0 {
			return c.fleet(cmd.Context(), *output, *version)
		}
		cl, p, err := c.plan(cmd.Context(), args[0], *version)
		var na *noAddonError
		if errors.As(err, &na) {
			return badUsage("%w", err) // a name to look up, not an act refused
		}
		if err != nil {
			return err
		}
		if *output != "text" {
			return writeReport(c.stdout, p.report, *output)
		}
		if err := writeStatus(c.stdout, p, c.name); err != nil {
			return err
		}
		// Who carries the plan out: the controller's version, or that
		// none reports. The status stands without it: a viewer bound to
		// a role from before the version lease still reads the rollout.
		cv, readErr := c.controllerVersion(cmd.Context(), cl)
		line := "controller: " + fmt.Sprint(readErr)
		if cv != nil {
			line = fmt.Sprintf("controller (lease %s): %s", cv.Lease, cv.summary())
			if readErr != nil {
				line += " (" + readErr.Error() + ")"
			}
		}
		_, err = fmt.Fprintf(c.stdout, "\n%s\n", line)
		return err
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

// writeStatus writes the rollout for a person (planreport's
// Report.WriteStatus), with a note when the controller does not take the
// add-on; self is the command as invoked, for the commands it suggests.
func writeStatus(w io.Writer, p planned, self string) error {
	return p.report.WriteStatus(w, planreport.StatusOptions{Command: self, Note: lifecycleNote(p.hub, p.report.Addon)})
}

// lifecycleNote warns when the controller, with its default -lifecycle,
// does not take the add-on: then nobody carries out the plan shown.
func lifecycleNote(h *planreport.Hub, addOn string) string {
	for _, cma := range h.ClusterManagementAddOns {
		if cma.Name != addOn || hubclient.Takes(nil, cma.Annotations) {
			continue
		}
		if v, ok := cma.Annotations[hubclient.LifecycleAnnotation]; ok {
			return fmt.Sprintf("note: its annotation %s is %q, not %q: the controller takes it only if its -lifecycle names that value",
				hubclient.LifecycleAnnotation, v, hubclient.DefaultLifecycle)
		}
		return fmt.Sprintf("note: it has no annotation %s, so it is OCM's add-on manager's: the controller takes it only if its -lifecycle names %q, or once annotated %q",
			hubclient.LifecycleAnnotation, addonv1alpha1.AddonLifecycleAddonManagerAnnotationValue, hubclient.DefaultLifecycle)
	}
	return ""
}

// fleet writes every add-on's rollout as one table (text only).
func (c *cli) fleet(ctx context.Context, output, version string) error {
	if output != "text" {
		return badUsage("status: -o %q needs an ADDON: the table of every add-on is text", output)
	}
	if err := checkVersion(version); err != nil {
		return err
	}
	cl, err := c.client()
	if err != nil {
		return err
	}
	return fleetStatus(ctx, c.stdout, cl, version, c.controllerNamespace(), c.now())
}
