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

	"github.com/rolloutkit/rolloutkit/examples/internal/planreport"
	"github.com/rolloutkit/rolloutkit/grouping"
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
}

// run is the program; it returns the exit code: 0 on success, 1 when the
// input is refused, 2 on bad flags.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "plan:", err)
		return 2
	}
	in := stdin
	if opts.file != "-" {
		f, err := os.Open(opts.file)
		if err != nil {
			fmt.Fprintln(stderr, "plan:", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	h, err := readHub(in, opts.maxBytes)
	if err != nil {
		fmt.Fprintf(stderr, "plan: %s: %v\n", opts.file, err)
		return 1
	}
	rep, err := planreport.Plan(h.planHub(), opts.addon, opts.now, opts.gates)
	if err != nil {
		fmt.Fprintln(stderr, "plan:", err)
		return 1
	}
	if opts.output == "json" {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "plan:", err)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	var now, approve, window, pause string
	fs.StringVar(&o.file, "f", "", "the hub's objects as Kubernetes YAML or JSON: a file, or - for stdin (required)")
	fs.StringVar(&o.addon, "addon", "", "the ClusterManagementAddOn to plan (default: the only one in the input)")
	fs.StringVar(&o.output, "o", "text", "output format: text or json")
	fs.StringVar(&now, "now", "", "evaluate at this time, RFC 3339 (default: the current time)")
	fs.Int64Var(&o.maxBytes, "max-bytes", 64<<20, "refuse input larger than this many bytes")
	fs.StringVar(&approve, "approve", "", "gate: comma-separated groups approved to start; groups not listed are held")
	fs.StringVar(&window, "window", "", `gate: start clusters only inside this time window, e.g. "Mon-Fri 09:00-17:00 Europe/Berlin"`)
	fs.StringVar(&pause, "pause", "", "gate: pause the rollout with this reason (in-flight clusters still finish)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: plan -f FILE [-addon NAME] [-o text|json] [-now RFC3339]\n\n"+
			"Reads `kubectl get managedclusters,placements,placementdecisions,clustermanagementaddons,managedclusteraddons -A -o yaml`\n"+
			"output and prints the next step of the add-on's rollout, and why.\n\n")
		fs.PrintDefaults()
	}
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
	if approve != "" {
		var keys []grouping.GroupKey
		for _, g := range strings.Split(approve, ",") {
			if g = strings.TrimSpace(g); g != "" {
				keys = append(keys, grouping.GroupKey{Name: g})
			}
		}
		o.gates = append(o.gates, rollout.Approval(keys...))
	}
	if window != "" {
		g, err := rollout.ParseWindow(window)
		if err != nil {
			return o, fmt.Errorf("-window: %w", err)
		}
		o.gates = append(o.gates, g)
	}
	if pause != "" {
		o.gates = append(o.gates, rollout.Paused(pause))
	}
	o.now = time.Now()
	if now != "" {
		t, err := time.Parse(time.RFC3339, now)
		if err != nil {
			return o, fmt.Errorf("-now %q: want an RFC 3339 time such as 2026-11-30T12:00:00Z", now)
		}
		o.now = t
	}
	return o, nil
}
