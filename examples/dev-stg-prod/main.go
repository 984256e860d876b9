package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command line.
type options struct {
	fail         []string
	recoverAfter time.Duration
	svg          string
	clusters     int
	apply        time.Duration
	approve      []string
	window       string
	start        time.Time
}

// run is the program. It returns the exit code: 0 when the simulated
// rollout completes, 1 when it halts, is stuck or cannot run, 2 on bad
// flags.
func run(args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "dev-stg-prod:", err)
		return 2
	}
	done, err := story(opts, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "dev-stg-prod:", err)
		return 1
	}
	if !done {
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("dev-stg-prod", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := options{}
	var fail, approve, start string
	fs.StringVar(&fail, "fail", "", "comma-separated clusters that fail (e.g. stg-cluster); they time out after progressDeadline and the rollout halts")
	fs.DurationVar(&o.recoverAfter, "recover-after", 0, "with -fail: the failing clusters recover this long after they were applied (e.g. 40m), and the rollout resumes after the soak")
	fs.StringVar(&o.svg, "svg", "", "write the timeline as an SVG chart to this file")
	fs.IntVar(&o.clusters, "clusters", 1, "clusters per environment (dev, stg, prod)")
	fs.DurationVar(&o.apply, "apply", 2*time.Minute, "how long a cluster takes to apply the config")
	fs.StringVar(&approve, "approve", "", "comma-separated groups approved to start (e.g. dev,stg); groups not listed are held. Unset: no approval gate")
	fs.StringVar(&o.window, "window", "", `start clusters only inside this time window, e.g. "Mon-Fri 09:00-17:00 Europe/Berlin"`)
	fs.StringVar(&start, "start", "", "simulated start time, RFC 3339 (default 2026-01-05T00:00:00Z, a Monday)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: dev-stg-prod [flags]\n\n"+
			"Replays the seed's cluster-proxy rollout dev -> stg -> prod on a simulated clock.\n"+
			"Exit code: 0 when the rollout completes, 1 when it halts or is stuck.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q: want flags only", fs.Args())
	case o.clusters < 1 || o.clusters > 10000:
		return o, fmt.Errorf("-clusters %d: want 1 to 10000", o.clusters)
	case o.apply < 0:
		return o, fmt.Errorf("-apply %s: want a non-negative duration", o.apply)
	case o.recoverAfter < 0:
		return o, fmt.Errorf("-recover-after %s: want a non-negative duration", o.recoverAfter)
	case o.recoverAfter > 0 && fail == "":
		return o, errors.New("-recover-after needs -fail: only failing clusters recover")
	case o.recoverAfter > 0 && o.recoverAfter <= o.apply:
		return o, fmt.Errorf("-recover-after %s: want longer than -apply %s (a cluster fails first, then recovers)", o.recoverAfter, o.apply)
	}
	o.fail = splitList(fail)
	o.approve = splitList(approve)
	if approve != "" && len(o.approve) == 0 {
		return o, fmt.Errorf("-approve %q: want comma-separated group names", approve)
	}
	if start != "" {
		t, err := time.Parse(time.RFC3339, start)
		if err != nil {
			return o, fmt.Errorf("-start %q: want an RFC 3339 time such as 2026-01-05T08:00:00Z", start)
		}
		o.start = t
	}
	return o, nil
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
