package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/addons"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// newHistoryCommand lists an add-on's revision history.
func newHistoryCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:               "history ADDON",
		Short:             "List the add-on's revision history: each revision's number, placement, configs and whether it completed",
		Args:              exactArgs("ADDON"),
		ValidArgsFunction: c.completeAddons,
	}
	output := cmd.Flags().StringP("output", "o", "text", "text or json")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if *output != "text" && *output != "json" {
			return badUsage("--output %q: want text or json", *output)
		}
		cl, err := c.client()
		if err != nil {
			return err
		}
		if err := checkAddon(cmd.Context(), cl, args[0]); err != nil {
			return err
		}
		history, current, err := c.history(cmd.Context(), cl, args[0])
		if err != nil {
			return err
		}
		if *output == "json" {
			enc := json.NewEncoder(c.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(historyJSON(history, current))
		}
		return writeHistory(c.stdout, args[0], history, current)
	}
	return cmd
}

// history reads the add-on's history from the controller's namespace,
// and the configs revision each placement is at now, by
// "namespace/name".
func (c *cli) history(ctx context.Context, cl client.Client, addOn string) ([]hubplan.HistoryEntry, map[string]string, error) {
	crs, err := hubclient.ListHistory(ctx, cl, c.controllerNamespace(), addOn)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (--namespace names the controller's)", err)
	}
	history, err := hubplan.HistoryOf(addOn, crs)
	if err != nil {
		return nil, nil, err
	}
	current := map[string]string{}
	var ar v1alpha1.AddOnRollout
	if err := cl.Get(ctx, types.NamespacedName{Name: addOn}, &ar); err != nil && !apierrors.IsNotFound(err) {
		return nil, nil, fmt.Errorf("reading addonrollout %q: %w", addOn, err)
	}
	for _, ps := range ar.Status.Placements {
		if len(ps.Configs) > 0 {
			current[ps.Namespace+"/"+ps.Name] = hubplan.ConfigsRevision(ps.Configs)
		}
	}
	return history, current, nil
}

// revisionJSON is one revision as history -o json prints it.
type revisionJSON struct {
	Number    int64                     `json:"number"`
	Placement v1alpha1.PlacementRef     `json:"placement"`
	Revision  string                    `json:"revision"`
	Current   bool                      `json:"current"`
	Started   time.Time                 `json:"started"`
	Completed *time.Time                `json:"completed,omitempty"`
	Clusters  int                       `json:"clusters,omitempty"`
	Configs   []v1alpha1.RevisionConfig `json:"configs"`
}

func historyJSON(history []hubplan.HistoryEntry, current map[string]string) []revisionJSON {
	out := make([]revisionJSON, 0, len(history))
	for _, e := range history {
		r := revisionJSON{Number: e.Number, Placement: e.Record.Placement, Revision: e.Record.Revision, Started: e.Created.UTC(),
			Current: current[placementKey(e.Record.Placement)] == e.Record.Revision, Clusters: len(e.Clusters)}
		if e.Completed != nil {
			t := e.Completed.UTC()
			r.Completed = &t
		}
		for _, c := range e.Record.Configs {
			r.Configs = append(r.Configs, c.RevisionConfig)
		}
		out = append(out, r)
	}
	return out
}

// writeHistory prints the history as a table, newest first.
func writeHistory(w interface{ Write([]byte) (int, error) }, addOn string, history []hubplan.HistoryEntry, current map[string]string) error {
	if len(history) == 0 {
		_, err := fmt.Fprintf(w, "add-on %q has no revision history yet (the controller records a revision when it starts, for an add-on with an AddOnRollout)\n", addOn)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REVISION\tPLACEMENT\tHASH\tSTATE\tCONFIGS")
	for i := len(history) - 1; i >= 0; i-- {
		e := history[i]
		state := "not completed"
		if e.Completed != nil {
			state = fmt.Sprintf("completed %s on %d clusters", e.Completed.UTC().Format(time.RFC3339), len(e.Clusters))
		}
		if current[placementKey(e.Record.Placement)] == e.Record.Revision {
			state = "current, " + state
		}
		configs := make([]v1alpha1.RevisionConfig, len(e.Record.Configs))
		for j, c := range e.Record.Configs {
			configs[j] = c.RevisionConfig
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", e.Number, placementKey(e.Record.Placement), e.Record.Revision, state, hubplan.ConfigsText(configs))
	}
	return tw.Flush()
}

func placementKey(p v1alpha1.PlacementRef) string { return p.Namespace + "/" + p.Name }

// newUndoCommand restores the configs' specs of a revision of the
// add-on's history.
func newUndoCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use: "undo ADDON [--to-revision N] [--placement NAMESPACE/NAME]",
		Short: "Restore the configs' specs of an earlier revision (default: the last completed one before the current): " +
			"the controller rolls it out, through the work gate; with spec.fastRollback, without soaks, approvals, windows or verifications",
		Args:              exactArgs("ADDON"),
		ValidArgsFunction: c.completeAddons,
	}
	to := cmd.Flags().Int64("to-revision", 0, "the revision's number, as history lists it (default: the last completed one before the current)")
	placementFlag := cmd.Flags().String("placement", "", "the install-strategy placement, NAMESPACE/NAME (needed when the add-on has more than one)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		addOn := args[0]
		if *to < 0 {
			return badUsage("--to-revision %d: want a revision number, 1 or more", *to)
		}
		cl, err := c.client()
		if err != nil {
			return err
		}
		ctx := cmd.Context()
		if err := checkAddon(ctx, cl, addOn); err != nil {
			return err
		}
		history, current, err := c.history(ctx, cl, addOn)
		if err != nil {
			return err
		}
		ref, err := undoPlacement(*placementFlag, *to, history, current)
		if err != nil {
			return err
		}
		target, err := hubplan.UndoTarget(history, ref, current[placementKey(ref)], *to)
		if err != nil {
			return refused("undo %s: %w", addOn, err)
		}
		if target.Record.Revision == current[placementKey(ref)] {
			_, err := fmt.Fprintf(c.stdout, "add-on %q placement %s is at revision %d already: nothing to undo\n", addOn, placementKey(ref), target.Number)
			return err
		}
		if err := addons.RestoreConfigs(ctx, cl, configReader(ctx, cl), target.Record.Configs); err != nil {
			return fmt.Errorf("undo %s: %w", addOn, err)
		}
		configs := make([]v1alpha1.RevisionConfig, len(target.Record.Configs))
		for i, rc := range target.Record.Configs {
			configs[i] = rc.RevisionConfig
		}
		_, err = fmt.Fprintf(c.stdout, "add-on %q placement %s: restored revision %d (%s): %s\n  the controller rolls it out now; %s status %s shows where it stands\n",
			addOn, placementKey(ref), target.Number, target.Record.Revision, hubplan.ConfigsText(configs), c.name, addOn)
		return err
	}
	return cmd
}

// undoPlacement is the placement an undo is of: --placement, the
// placement of --to-revision, or the add-on's only placement.
func undoPlacement(flag string, to int64, history []hubplan.HistoryEntry, current map[string]string) (v1alpha1.PlacementRef, error) {
	if flag != "" {
		ns, name, ok := strings.Cut(flag, "/")
		if !ok || ns == "" || name == "" {
			return v1alpha1.PlacementRef{}, badUsage("--placement %q: want NAMESPACE/NAME", flag)
		}
		return v1alpha1.PlacementRef{Namespace: ns, Name: name}, nil
	}
	if to != 0 {
		for _, e := range history {
			if e.Number == to {
				return e.Record.Placement, nil
			}
		}
	}
	placements := map[v1alpha1.PlacementRef]bool{}
	for _, e := range history {
		placements[e.Record.Placement] = true
	}
	for key := range current {
		ns, name, _ := strings.Cut(key, "/")
		placements[v1alpha1.PlacementRef{Namespace: ns, Name: name}] = true
	}
	refs := slices.Collect(maps.Keys(placements))
	if len(refs) != 1 {
		return v1alpha1.PlacementRef{}, badUsage("the add-on's history has %d placements: name one with --placement NAMESPACE/NAME", len(refs))
	}
	return refs[0], nil
}

// configReader reads config objects from the hub, in the version its
// REST mapping prefers.
func configReader(ctx context.Context, cl client.Client) addons.ConfigReader {
	return func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (*unstructured.Unstructured, error) {
		gvk, err := cl.RESTMapper().KindFor(schema.GroupVersionResource{Group: gr.Group, Resource: gr.Resource})
		if err != nil {
			return nil, fmt.Errorf("the hub does not serve %s.%s: %w", gr.Resource, gr.Group, err)
		}
		obj := &unstructured.Unstructured{}
		obj.SetGroupVersionKind(gvk)
		if err := cl.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, obj); err != nil {
			return nil, err
		}
		return obj, nil
	}
}
