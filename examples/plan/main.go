package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	_ "time/tzdata" // -window names a time zone; work on machines without a tz database

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
	"github.com/rolloutkit/rolloutkit/rollout"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// options are the command line.
type options struct {
	file     string
	addon    string
	output   string
	now      time.Time
	maxBytes int64
	gates    []rollout.Gate
	// approve are the -approve groups, checked against the plan's groups.
	approve []string
}

// Exit codes, as every example program has them.
const (
	exitDone     = 0 // the plan is printed
	exitFailed   = 1 // the plan could not be written
	exitBadInput = 2 // bad flags, or input the planner refuses
)

// run is the program; it returns the exit code: 0 when the plan is
// printed, 2 on bad flags or input (a file that cannot be read or parsed,
// objects the planner refuses, an -approve group that is no group), 1 when
// the plan cannot be written.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitDone
	}
	if err != nil {
		fmt.Fprintln(stderr, "plan:", err)
		return exitBadInput
	}
	in := stdin
	if opts.file != "-" {
		f, err := os.Open(opts.file)
		if err != nil {
			fmt.Fprintln(stderr, "plan:", err)
			return exitBadInput
		}
		defer f.Close()
		in = f
	}
	h, err := readHub(in, opts.maxBytes)
	if err != nil {
		fmt.Fprintf(stderr, "plan: %s: %v\n", opts.file, err)
		return exitBadInput
	}
	rep, err := planreport.New(h.planHub(), opts.addon, opts.now, opts.gates)
	if err == nil {
		err = checkApproved(opts.approve, rep)
	}
	if err != nil {
		fmt.Fprintln(stderr, "plan:", err)
		return exitBadInput
	}
	if opts.output == "json" {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "plan:", err)
		return exitFailed
	}
	return exitDone
}

// checkApproved fails when an -approve name is no group of the plan, as a
// typo would otherwise hold its group quietly.
func checkApproved(approve []string, rep *planreport.Report) error {
	known := map[string]bool{}
	var names []string
	for _, p := range rep.Placements {
		for _, g := range p.Groups {
			if g.Name != "" && !known[g.Name] {
				known[g.Name] = true
				names = append(names, g.Name)
			}
		}
	}
	for _, a := range approve {
		if !known[a] {
			groups := "none are named"
			if len(names) > 0 {
				groups = "the groups are " + strings.Join(names, ", ")
			}
			return fmt.Errorf("-approve %q: no such group; %s", a, groups)
		}
	}
	return nil
}

// rawFlags are the flags parsed into options only after checking.
type rawFlags struct {
	now, approve, window, pause string
}

// newFlagSet returns plan's flags, set into o and raw.
func newFlagSet(o *options, raw *rawFlags, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.file, "f", "", "the hub's objects as Kubernetes YAML or JSON: a file, or - for stdin (required)")
	fs.StringVar(&o.addon, "addon", "", "the ClusterManagementAddOn to plan (default: the only one in the input)")
	fs.StringVar(&o.output, "o", "text", "output format: text or json")
	fs.StringVar(&raw.now, "now", "", "evaluate at this time, RFC 3339 (default: the current time)")
	fs.Int64Var(&o.maxBytes, "max-bytes", 64<<20, "refuse input larger than this many bytes")
	fs.StringVar(&raw.approve, "approve", "", "gate: comma-separated groups approved to start; groups not listed are held, and a name that is no group is an error")
	fs.StringVar(&raw.window, "window", "", `gate: start clusters only inside this time window, e.g. "Mon-Fri 09:00-17:00 Europe/Berlin"`)
	fs.StringVar(&raw.pause, "pause", "", "gate: pause the rollout with this reason (in-flight clusters still finish)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// usage is what -h prints before the flags.
const usage = "usage: plan -f FILE [-addon NAME] [-o text|json] [-now RFC3339]\n\n" +
	"Reads the output of\n  kubectl get " + kinds + ",CONFIGS -A -o yaml\n" +
	"where CONFIGS are the resources of the add-on's config objects (cluster-proxy's:\n" +
	"managedproxyconfigurations), and prints the next step of the add-on's rollout,\n" +
	"and why. A Placement without PlacementDecisions is scheduled as OCM would, from\n" +
	"the cluster sets bound to its namespace; with no ManagedClusterSet and no binding\n" +
	"in the input, every cluster is a candidate (a warning says so).\n" +
	"ClusterManagementAddOns and ManagedClusterAddOns are read as v1beta1 (the\n" +
	"version kubectl prints) or v1alpha1 (the version a hub stores, converted as OCM's\n" +
	"conversion webhook converts it); other versions are refused.\n" +
	"On a hub with rolloutkit's CRDs, add " + controlKinds + " to the kubectl get: the\n" +
	"add-on's AddOnRollout then holds the plan as the controller holds the rollout\n" +
	"(pause, approvals, windows, verifications); an invalid one holds the add-on, and\n" +
	"each field at fault is reported.\n" +
	"Exit code: 0 when the plan is printed (held, halted or invalid AddOnRollout\n" +
	"included), 2 on bad flags or input, 1 when the plan cannot be written.\n\n"

// parseFlags parses and checks the command line.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	var raw rawFlags
	fs := newFlagSet(&o, &raw, stderr)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q: want flags only", fs.Args())
	case o.file == "":
		return o, errors.New("-f is required: a YAML file, or - for stdin")
	case o.output != "text" && o.output != "json":
		return o, fmt.Errorf("-o %q: want text or json", o.output)
	case o.maxBytes <= 0:
		return o, fmt.Errorf("-max-bytes %d: want a positive number of bytes", o.maxBytes)
	}
	var err error
	if o.gates, o.approve, err = raw.gates(); err != nil {
		return o, err
	}
	o.now = time.Now()
	if raw.now != "" {
		t, err := time.Parse(time.RFC3339, raw.now)
		if err != nil {
			return o, fmt.Errorf("-now %q: want an RFC 3339 time such as 2026-11-30T12:00:00Z", raw.now)
		}
		o.now = t
	}
	return o, nil
}

// gates returns the gates of -approve, -window and -pause, in that order,
// and the groups -approve names.
func (raw rawFlags) gates() ([]rollout.Gate, []string, error) {
	var gates []rollout.Gate
	var approved []string
	if raw.approve != "" {
		var keys []grouping.GroupKey
		for _, g := range strings.Split(raw.approve, ",") {
			if g = strings.TrimSpace(g); g != "" {
				keys = append(keys, grouping.GroupKey{Name: g})
				approved = append(approved, g)
			}
		}
		if len(keys) == 0 {
			return nil, nil, fmt.Errorf("-approve %q: want comma-separated group names", raw.approve)
		}
		gates = append(gates, rollout.Approval(keys...))
	}
	if raw.window != "" {
		g, err := rollout.ParseWindow(raw.window)
		if err != nil {
			return nil, nil, fmt.Errorf("-window: %w", err)
		}
		gates = append(gates, g)
	}
	if raw.pause != "" {
		gates = append(gates, rollout.Paused(raw.pause))
	}
	return gates, approved, nil
}
