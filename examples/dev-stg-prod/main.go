package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rolloutkit/rolloutkit/rollout"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes, as every example program has them.
const (
	exitDone     = 0 // the rollout completed
	exitHalted   = 1 // the rollout halted or is stuck, or the program could not run
	exitBadInput = 2 // bad flags
)

// maxClusters caps -clusters: the simulation keeps every cluster and every
// event in memory, so a slip such as -clusters 10000000 would exhaust it.
// 10,000 per environment (30,000 clusters) runs in about a second.
const maxClusters = 10000

// options are the command line.
type options struct {
	fail         []string
	recoverAfter time.Duration
	svg          string
	clusters     int
	apply        time.Duration
	approve      []string
	window       rollout.Gate
	start        time.Time
	detail       detail
}

// badInput is an error in the flags found only against the fleet, such as
// a -fail cluster that is not in it.
type badInput struct{ err error }

func (e badInput) Error() string { return e.err.Error() }
func (e badInput) Unwrap() error { return e.err }

// run is the program. It returns the exit code: 0 when the simulated
// rollout completes, 1 when it halts, is stuck or cannot run, 2 on bad
// flags.
func run(args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitDone
	}
	if err != nil {
		fmt.Fprintln(stderr, "dev-stg-prod:", err)
		return exitBadInput
	}
	done, err := story(opts, stdout)
	var bad badInput
	switch {
	case errors.As(err, &bad):
		fmt.Fprintln(stderr, "dev-stg-prod:", err)
		return exitBadInput
	case err != nil:
		fmt.Fprintln(stderr, "dev-stg-prod:", err)
		return exitHalted
	case !done:
		return exitHalted
	}
	return exitDone
}

// textFlags are the flags read as text, which parseFlags turns into
// options once they are all parsed.
type textFlags struct {
	fail, approve string // comma-separated
	window, start string
}

// parseFlags parses args into options, or returns every problem with them
// (flag.ErrHelp for -h).
func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("dev-stg-prod", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: dev-stg-prod [flags]\n\n"+
			"Replays the seed's cluster-proxy rollout dev -> stg -> prod on a simulated clock.\n"+
			"Exit code: 0 when the rollout completes, 1 when it halts or is stuck, 2 on bad flags.\n\n")
		fs.PrintDefaults()
	}
	var o options
	text := o.bindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q: want flags only", fs.Args())
	}
	return o, o.complete(text)
}

// bindFlags defines the flags on fs, and returns those read as text.
func (o *options) bindFlags(fs *flag.FlagSet) *textFlags {
	t := &textFlags{}
	fs.StringVar(&t.fail, "fail", "", "comma-separated clusters that fail (e.g. stg-cluster); they time out after progressDeadline and the rollout halts")
	fs.DurationVar(&o.recoverAfter, "recover-after", 0, "with -fail: the failing clusters recover this long after they were applied (e.g. 40m), and the rollout resumes after the soak")
	fs.StringVar(&o.svg, "svg", "", "write the timeline as an SVG chart to this file")
	fs.IntVar(&o.clusters, "clusters", 1, fmt.Sprintf("clusters per environment (dev, stg, prod), 1 to %d. Capped because the simulation keeps\n"+
		"every cluster and event in memory: %d per environment runs in about a second, and a slip\n"+
		"such as 10000000 would exhaust the memory", maxClusters, maxClusters))
	fs.DurationVar(&o.apply, "apply", 2*time.Minute, "how long a cluster takes to apply the config")
	fs.StringVar(&t.approve, "approve", "", "comma-separated groups approved to start (e.g. dev,stg); groups not listed are held. Unset: no approval gate")
	fs.StringVar(&t.window, "window", "", `start clusters only inside this time window, e.g. "Mon-Fri 09:00-17:00 Europe/Berlin"`)
	fs.StringVar(&t.start, "start", "", "simulated start time, RFC 3339 (default 2026-01-05T00:00:00Z, a Monday)")
	fs.Var(&o.detail, "detail", fmt.Sprintf("how much to show: full (a line and an SVG row per cluster), summary (a line per group\n"+
		"and event, an SVG row per group), or auto: full up to %d clusters, summary above", fullUpTo))
	return t
}

// complete checks the options parsed and fills in those read as text: it
// returns every problem found.
func (o *options) complete(t *textFlags) error {
	var errs []error
	if o.clusters < 1 || o.clusters > maxClusters {
		errs = append(errs, fmt.Errorf("-clusters %d: want 1 to %d", o.clusters, maxClusters))
	}
	if o.apply < 0 {
		errs = append(errs, fmt.Errorf("-apply %s: want a non-negative duration", o.apply))
	}
	switch {
	case o.recoverAfter < 0:
		errs = append(errs, fmt.Errorf("-recover-after %s: want a non-negative duration", o.recoverAfter))
	case o.recoverAfter > 0 && t.fail == "":
		errs = append(errs, errors.New("-recover-after needs -fail: only failing clusters recover"))
	case o.recoverAfter > 0 && o.recoverAfter <= o.apply:
		errs = append(errs, fmt.Errorf("-recover-after %s: want longer than -apply %s (a cluster fails first, then recovers)", o.recoverAfter, o.apply))
	}
	o.fail, o.approve = splitList(t.fail), splitList(t.approve)
	if t.approve != "" && len(o.approve) == 0 {
		errs = append(errs, fmt.Errorf("-approve %q: want comma-separated group names", t.approve))
	}
	if t.window != "" {
		var err error
		if o.window, err = rollout.ParseWindow(t.window); err != nil {
			errs = append(errs, fmt.Errorf("-window: %w", err))
		}
	}
	if t.start != "" {
		var err error
		if o.start, err = time.Parse(time.RFC3339, t.start); err != nil {
			errs = append(errs, fmt.Errorf("-start %q: want an RFC 3339 time such as 2026-01-05T08:00:00Z", t.start))
		}
	}
	return errors.Join(errs...)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// detail is the -detail flag: how much of the fleet to show.
type detail int

const (
	detailAuto    detail = iota // full up to fullUpTo clusters, summary above
	detailFull                  // every cluster
	detailSummary               // every group
)

// fullUpTo is the largest fleet -detail auto shows in full: its timeline
// and its SVG rows still fit on a screen or two.
const fullUpTo = 30

// String returns the flag's value, as flag.Value asks.
func (d *detail) String() string {
	switch *d {
	case detailFull:
		return "full"
	case detailSummary:
		return "summary"
	}
	return "auto"
}

// Set parses the flag's value, as flag.Value asks.
func (d *detail) Set(s string) error {
	switch s {
	case "auto":
		*d = detailAuto
	case "full":
		*d = detailFull
	case "summary":
		*d = detailSummary
	default:
		return errors.New("want auto, full or summary")
	}
	return nil
}

// summary reports whether a fleet of n clusters is shown by group.
func (d detail) summary(n int) bool {
	return d == detailSummary || (d == detailAuto && n > fullUpTo)
}
