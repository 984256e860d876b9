package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], env{stdout: os.Stdout, stderr: os.Stderr, connect: connect, now: time.Now}))
}

// Exit codes, as every example program has them.
const (
	exitDone     = 0 // done
	exitFailed   = 1 // refused, or the hub failed a request
	exitBadUsage = 2 // bad usage or input
)

// env is what the program is run with: its outputs, how it reaches the
// hub, and its clock.
type env struct {
	stdout, stderr io.Writer
	// connect returns a client of the hub that kubeconfig names (empty:
	// client-go's standard loading).
	connect func(kubeconfig string) (client.Client, error)
	// now is the time to plan at.
	now func() time.Time
}

// exitError is an error that ends the program with its code; any other
// error ends it with exitFailed.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badUsage is an error of the user's input: exit code 2.
func badUsage(format string, args ...any) error {
	return &exitError{code: exitBadUsage, err: fmt.Errorf(format, args...)}
}

// refused is an error of an act that cannot be done on the hub as it is:
// exit code 1.
func refused(format string, args ...any) error {
	return &exitError{code: exitFailed, err: fmt.Errorf(format, args...)}
}

// session is what a subcommand runs with once its flags are parsed.
type session struct {
	out     io.Writer
	warn    io.Writer
	now     time.Time
	connect func() (client.Client, error)
}

// action runs a subcommand with its positional arguments, checked in
// number.
type action func(ctx context.Context, s session, args []string) error

// command is one subcommand.
type command struct {
	name    string
	args    []string // the names of its positional arguments
	summary string
	// flags registers the subcommand's own flags on fs and returns what
	// runs it.
	flags func(fs *flag.FlagSet) action
}

// commands are the subcommands, in the order the usage lists them.
func commands() []command {
	return []command{
		{name: "status", args: []string{"ADDON"}, summary: "show the add-on's rollout as the controller plans it: one line per group, approvals pending, conditions", flags: statusFlags},
		{name: "pause", args: []string{"ADDON"}, summary: "set spec.paused of the add-on's AddOnRollout (created if need be): no cluster starts; clusters in flight finish", flags: pauseFlags(true)},
		{name: "resume", args: []string{"ADDON"}, summary: "clear spec.paused of the add-on's AddOnRollout: clusters start again", flags: pauseFlags(false)},
		{name: "approve", args: []string{"ADDON", "GROUP"}, summary: "create the RolloutApproval of the revision GROUP waits at; refused when nothing waits", flags: approveFlags},
	}
}

// run is the program; it returns the exit code.
func run(ctx context.Context, args []string, e env) int {
	err := dispatch(ctx, args, e)
	if errors.Is(err, flag.ErrHelp) {
		return exitDone
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "rolloutctl:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return exitFailed
	}
	return exitDone
}

// dispatch parses the global flags, finds the subcommand and runs it.
func dispatch(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("rolloutctl", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the hub (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	fs.Usage = func() { usage(fs) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return badUsage("%w", err)
	}
	if fs.NArg() == 0 {
		usage(fs)
		return badUsage("no subcommand: want one of %s", strings.Join(names(), ", "))
	}
	name := fs.Arg(0)
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, fs.Args()[1:], *kubeconfig, e)
		}
	}
	return badUsage("unknown subcommand %q: want one of %s", name, strings.Join(names(), ", "))
}

// run parses the subcommand's flags and arguments, which may come in any
// order, and runs it.
func (c command) run(ctx context.Context, args []string, kubeconfig string, e env) error {
	fs := flag.NewFlagSet("rolloutctl "+c.name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&kubeconfig, "kubeconfig", kubeconfig, "kubeconfig of the hub (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
	act := c.flags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: rolloutctl %s %s [flags]\n\n%s.\n\nflags:\n", c.name, strings.Join(c.args, " "), c.summary)
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return badUsage("%s: %w", c.name, err)
	}
	if len(pos) != len(c.args) {
		return badUsage("%s: want %s, got %d arguments %q (see rolloutctl %s -h)", c.name, strings.Join(c.args, " "), len(pos), pos, c.name)
	}
	for i, p := range pos {
		if p == "" {
			return badUsage("%s: %s is empty", c.name, c.args[i])
		}
	}
	s := session{out: e.stdout, warn: e.stderr, now: e.now(), connect: func() (client.Client, error) {
		cl, err := e.connect(kubeconfig)
		if err != nil {
			return nil, badUsage("%w", err)
		}
		return cl, nil
	}}
	return act(ctx, s, pos)
}

// parseInterleaved parses fs from args, flags and positional arguments
// mixed (approve ADDON GROUP -placement NS/NAME), and returns the
// positional ones; after "--" every argument is positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// usage writes the program's usage.
func usage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprintf(w, "usage: rolloutctl [-kubeconfig FILE] SUBCOMMAND [flags] ARGS\n\n"+
		"An operator's controls over the rollouts of the rolloutkit controller on a hub.\n\nsubcommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %-13s %s\n", c.name, strings.Join(c.args, " "), c.summary)
	}
	fmt.Fprintf(w, "\nrolloutctl SUBCOMMAND -h shows its flags.\n"+
		"Exit codes: 0 done, 1 refused (approve with nothing pending) or a failed request to the hub,\n"+
		"2 bad usage (a kubeconfig that cannot be loaded, an add-on the hub does not have, included).\n\nflags:\n")
	fs.PrintDefaults()
}

// names are the subcommands' names.
func names() []string {
	var out []string
	for _, c := range commands() {
		out = append(out, c.name)
	}
	return out
}

// connect returns a client of the hub kubeconfig names, or the one
// client-go's standard loading finds when it is empty ($KUBECONFIG,
// ~/.kube/config, in-cluster), with the controller's scheme.
func connect(kubeconfig string) (client.Client, error) {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	scheme, err := hubctl.NewScheme()
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}

// restConfig loads kubeconfig, or what client-go's standard loading rules
// find when it is empty.
func restConfig(kubeconfig string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		if kubeconfig != "" {
			return nil, fmt.Errorf("-kubeconfig %q: %w", kubeconfig, err)
		}
		return nil, fmt.Errorf("no hub: set -kubeconfig or $KUBECONFIG: %w", err)
	}
	return cfg, nil
}
