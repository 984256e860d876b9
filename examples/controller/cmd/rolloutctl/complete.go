package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// completionTimeout bounds the hub's reads for one completion: a shell
// waits on them at every Tab.
const completionTimeout = 5 * time.Second

// completeAddons completes a subcommand's ADDON, its first argument, from
// the names of the hub's ClusterManagementAddOns.
func (c *cli) completeAddons(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return c.completeFromHub(cmd, toComplete, func(ctx context.Context, cl client.Client) ([]string, error) {
		return addonNames(ctx, cl)
	})
}

// completeApprove completes approve's ADDON, then its GROUP from the
// groups that wait for an approval (of --placement only, when it is set).
func (c *cli) completeApprove(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) != 1 {
		return c.completeAddons(cmd, args, toComplete)
	}
	only, err := placementRef(cmd.Flag("placement").Value.String())
	if err != nil {
		only = nil // complete every placement's groups meanwhile
	}
	return c.completeFromHub(cmd, toComplete, func(ctx context.Context, cl client.Client) ([]string, error) {
		p, err := plan(ctx, cl, args[0], "", c.controllerNamespace(), c.now())
		if err != nil || p.report.Rollout == nil {
			return nil, err
		}
		var groups []string
		for _, pa := range p.report.Rollout.PendingApprovals {
			if (only == nil || pa.Placement == *only) && !slices.Contains(groups, pa.Group) {
				groups = append(groups, pa.Group)
			}
		}
		return groups, nil
	})
}

// completePlacements completes approve's --placement from the add-on's
// install-strategy placements, once ADDON is given.
func (c *cli) completePlacements(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return c.completeFromHub(cmd, toComplete, func(ctx context.Context, cl client.Client) ([]string, error) {
		p, err := plan(ctx, cl, args[0], "", c.controllerNamespace(), c.now())
		if err != nil {
			return nil, err
		}
		var refs []string
		for _, pl := range p.report.Placements {
			refs = append(refs, pl.Namespace+"/"+pl.Name)
		}
		return refs, nil
	})
}

// completeFromHub completes toComplete from the words read from the
// hub. A hub that cannot be read completes nothing, and says why on
// stderr, which the shell does not show.
func (c *cli) completeFromHub(cmd *cobra.Command, toComplete string, read func(context.Context, client.Client) ([]string, error)) ([]string, cobra.ShellCompDirective) {
	ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
	defer cancel()
	cl, err := c.client()
	var words []string
	if err == nil {
		words, err = read(ctx, cl)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "%s: completing: %v\n", c.name, err)
		return nil, cobra.ShellCompDirectiveError | cobra.ShellCompDirectiveNoFileComp
	}
	return withPrefix(words, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeContexts completes --context from the kubeconfig's contexts.
func (c *cli) completeContexts(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	cfg, err := c.hub.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		fmt.Fprintf(c.stderr, "%s: completing: %v\n", c.name, err)
		return nil, cobra.ShellCompDirectiveError | cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for name := range cfg.Contexts {
		names = append(names, name)
	}
	slices.Sort(names)
	return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// withPrefix returns the words that start with prefix, in a new slice.
func withPrefix(words []string, prefix string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	return out
}
