package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
)

// cli is what every subcommand runs with: the program's environment and
// kubectl's flags, which say which hub.
type cli struct {
	env
	hub *genericclioptions.ConfigFlags
}

// client returns a client of the hub the flags name. A hub that cannot
// be named (no kubeconfig, an unknown context) is bad usage.
func (c *cli) client() (client.Client, error) {
	cl, err := c.connect(c.hub)
	if err == nil {
		return cl, nil
	}
	var named []string
	if k := *c.hub.KubeConfig; k != "" {
		named = append(named, fmt.Sprintf("--kubeconfig %q", k))
	}
	if ctx := *c.hub.Context; ctx != "" {
		named = append(named, fmt.Sprintf("--context %q", ctx))
	}
	if len(named) == 0 {
		return nil, badUsage("no hub: set --kubeconfig or $KUBECONFIG: %w", err)
	}
	return nil, badUsage("%s: %w", strings.Join(named, " "), err)
}

// newRootCommand is the program's command tree, run with e: kubectl's
// flags on every subcommand, and errors left to run, which maps them to
// exit codes.
func newRootCommand(e env) *cobra.Command {
	c := &cli{env: e, hub: genericclioptions.NewConfigFlags(true)}
	subs := []*cobra.Command{newStatusCommand(c), newPauseCommand(c, true), newPauseCommand(c, false), newApproveCommand(c), newHistoryCommand(c), newUndoCommand(c), newVersionCommand(c)}
	var names []string
	for _, s := range subs {
		names = append(names, s.Name())
	}
	root := &cobra.Command{
		Use:   strings.ReplaceAll(e.name, " ", "-") + " SUBCOMMAND",
		Short: "An operator's controls over the rollouts of the rolloutkit controller on a hub",
		Long: "An operator's controls over the rollouts of the rolloutkit controller on a hub.\n\n" +
			"Exit codes: 0 done, 1 refused (approve with nothing pending, pause, resume or approve of an add-on\n" +
			"the hub does not have) or a failed request to the hub, 2 bad usage (a kubeconfig or context that\n" +
			"cannot be loaded, status of an add-on the hub does not have, included).",
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: e.name},
		SilenceErrors: true,
		SilenceUsage:  true,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return badUsage("unknown subcommand %q: want one of %s", args[0], strings.Join(names, ", "))
			}
			return nil
		},
		RunE: func(*cobra.Command, []string) error {
			return badUsage("no subcommand: want one of %s", strings.Join(names, ", "))
		},
	}
	root.Version = buildinfo.Read().String()
	root.SetVersionTemplate("{{.DisplayName}} {{.Version}}\n")
	// Defined here, for cobra not to add its -v too: kubectl's -v is
	// the log level, which the plugin does not take.
	root.Flags().Bool("version", false, "print the version and VCS revision of this client, and exit (version says the controller's too)")
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(flagError)
	c.hub.AddFlags(root.PersistentFlags())
	mustComplete(root, "context", c.completeContexts)
	root.AddCommand(subs...)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	argsAreUsage(root)
	return root
}

// argsAreUsage makes the errors of the positional arguments of cmd's
// subcommands, cobra's own included (completion bash extra), bad usage.
func argsAreUsage(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		if check := sub.Args; check != nil {
			sub.Args = func(c *cobra.Command, args []string) error {
				err := check(c, args)
				var ee *exitError
				if err == nil || errors.As(err, &ee) {
					return err
				}
				return badUsage("%w", err)
			}
		}
		argsAreUsage(sub)
	}
}

// flagError makes a flag that cannot be parsed bad usage, and points a
// one-dash long flag (the syntax of rolloutctl before it was a kubectl
// plugin) to its two-dash spelling.
func flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		if name := ne.GetSpecifiedShortnames(); len(name) > 1 && cmd.Flags().Lookup(name) != nil {
			return badUsage("%w (long flags take two dashes: --%s)", err, name)
		}
	}
	return badUsage("%w", err)
}

// exactArgs checks a subcommand's positional arguments: one for each of
// names, none empty.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != len(names) {
			return badUsage("%s: want %s, got %d arguments %q", cmd.Name(), strings.Join(names, " "), len(args), args)
		}
		for i, a := range args {
			if a == "" {
				return badUsage("%s: %s is empty", cmd.Name(), names[i])
			}
		}
		return nil
	}
}

// addonVersionFlag registers --addon-version on cmd.
func addonVersionFlag(cmd *cobra.Command) *string {
	v := cmd.Flags().String("addon-version", "", "add-on API version to read, v1alpha1 or v1beta1 (default: the version the hub stores, as the controller reads it)")
	mustComplete(cmd, "addon-version", cobra.FixedCompletions([]string{hubclient.V1alpha1, hubclient.V1beta1}, cobra.ShellCompDirectiveNoFileComp))
	return v
}

// mustComplete registers the completion of cmd's flag name; a flag not
// defined is a programming error.
func mustComplete(cmd *cobra.Command, name string, f cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(name, f); err != nil {
		panic(fmt.Sprintf("completing --%s: %v", name, err))
	}
}
