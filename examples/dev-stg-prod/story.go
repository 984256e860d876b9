package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	_ "time/tzdata" // -window names a time zone; work on machines without a tz database

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/internal/seed"
	"github.com/rolloutkit/rolloutkit/placement"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// oldTag is the cluster-proxy version the fleet runs before the upgrade to
// the seed's vX.Y.Z.
const oldTag = "v0.9.0"

// defaultStart is the simulated start: a Monday, midnight UTC.
func defaultStart() time.Time { return time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC) }

// scenario is everything the story needs, checked before anything is told.
type scenario struct {
	start   time.Time
	p       *clusterv1beta1.Placement
	cma     *addonv1beta1.ClusterManagementAddOn
	ps      addonv1beta1.PlacementStrategy
	sched   placement.Result
	fleet   simulate.Fleet
	planner rollout.Planner
}

// prepare loads the seed, schedules the Placement and checks the flags
// against the fleet.
func prepare(o options) (scenario, error) {
	sc := scenario{start: o.start}
	if sc.start.IsZero() {
		sc.start = defaultStart()
	}
	clusters, err := fleetClusters(o.clusters)
	if err != nil {
		return sc, err
	}
	if sc.p, err = seed.Placement(); err != nil {
		return sc, err
	}
	if sc.cma, err = seed.ClusterManagementAddOn(); err != nil {
		return sc, err
	}
	sc.ps = sc.cma.Spec.InstallStrategy.Placements[0]
	if sc.sched, err = (placement.Scheduler{Clock: fake.New(sc.start)}).Schedule(sc.p, clusters); err != nil {
		return sc, err
	}
	if sc.fleet, err = simFleet(o, sc.sched); err != nil {
		return sc, err
	}
	if len(o.approve) > 0 {
		g, err := approval(o.approve, sc.sched.Groups)
		if err != nil {
			return sc, err
		}
		sc.planner.Gates = append(sc.planner.Gates, g)
	}
	if o.window != "" {
		g, err := rollout.ParseWindow(o.window)
		if err != nil {
			return sc, err
		}
		sc.planner.Gates = append(sc.planner.Gates, g)
	}
	return sc, nil
}

// story tells the seed's story on w and reports whether the rollout
// completed.
func story(o options, w io.Writer) (bool, error) {
	sc, err := prepare(o)
	if err != nil {
		return false, err
	}

	// 1. The decision groups.
	fmt.Fprintf(w, "1. Placement %s/%s puts %d clusters into %d decision groups:\n\n", sc.p.Namespace, sc.p.Name, len(sc.sched.Clusters), len(sc.sched.Groups))
	if err := groupTable(w, sc.sched); err != nil {
		return false, err
	}
	for _, warn := range sc.sched.Warnings {
		fmt.Fprintf(w, "   warning: %s\n", warn)
	}

	// 2. The spec hash, before and after the tag change.
	if err := hashStep(w, sc.cma, sc.p, sc.sched); err != nil {
		return false, err
	}

	// 3. The rollout, simulated.
	res, err := simulate.Run(simulate.Options{Strategy: sc.ps.RolloutStrategy, Planner: sc.planner, Start: sc.start}, sc.fleet)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(w, "\n3. %s rollout (%s), simulated from %s:\n\n", sc.ps.RolloutStrategy.Type, strategySummary(sc.ps), sc.start.UTC().Format("Mon 2006-01-02 15:04 MST"))
	for _, line := range strings.SplitAfter(strings.TrimRight(res.Timeline(), "\n"), "\n") {
		fmt.Fprint(w, "   "+line)
	}
	fmt.Fprint(w, "\n\n")
	if err := groupTimes(w, res); err != nil {
		return false, err
	}
	if o.svg != "" {
		if err := svgFile(o.svg, res, sc); err != nil {
			return false, err
		}
		fmt.Fprintf(w, "\nSVG timeline written to %s\n", o.svg)
	}
	return res.Outcome == simulate.Completed, nil
}

// svgFile writes the SVG chart of res to path.
func svgFile(path string, res simulate.Result, sc scenario) error {
	minSuccess := time.Duration(0)
	if c := sc.ps.RolloutStrategy.ProgressivePerGroup; c != nil {
		minSuccess = c.MinSuccessTime.Duration
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	werr := writeSVG(f, res, sc.sched.Groups, minSuccess)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("-svg %s: %w", path, werr)
	}
	return nil
}

// fleetClusters returns the seed's three clusters, or n per environment
// named dev-cluster-01, ... when n > 1.
func fleetClusters(n int) ([]*clusterv1.ManagedCluster, error) {
	mcs, err := seed.ManagedClusters()
	if err != nil || n == 1 {
		return mcs, err
	}
	var out []*clusterv1.ManagedCluster
	for _, mc := range mcs {
		for i := 1; i <= n; i++ {
			c := mc.DeepCopy()
			c.Name = fmt.Sprintf("%s-%0*d", mc.Name, len(fmt.Sprint(n)), i)
			out = append(out, c)
		}
	}
	return out, nil
}

func groupTable(w io.Writer, sched placement.Result) error {
	pdOf := map[string]string{}
	for _, d := range sched.Decisions {
		for _, c := range d.Status.Decisions {
			pdOf[c.ClusterName] = d.Name
		}
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "   group index\tgroup\tPlacementDecision\tcluster")
	for _, g := range sched.Groups {
		for _, c := range g.Clusters {
			fmt.Fprintf(tw, "   %d\t%s\t%s\t%s\n", g.Index, g.Name, pdOf[c], c)
		}
	}
	return tw.Flush()
}

// hashStep hashes the ManagedProxyConfiguration at the old tag and at the
// seed's tag, and shows that every add-on then needs the new config.
func hashStep(w io.Writer, cma *addonv1beta1.ClusterManagementAddOn, p *clusterv1beta1.Placement, sched placement.Result) error {
	upgraded, err := seed.ManagedProxyConfiguration()
	if err != nil {
		return err
	}
	before := upgraded.DeepCopy()
	for _, path := range [][]string{{"spec", "proxyServer", "image"}, {"spec", "proxyAgent", "image"}} {
		img, _, err := unstructured.NestedString(before.Object, path...)
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedField(before.Object, strings.Replace(img, "vX.Y.Z", oldTag, 1), path...); err != nil {
			return err
		}
	}
	oldHash, err := hash.Spec(before)
	if err != nil {
		return err
	}
	newHash, err := hash.Spec(upgraded)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n2. ManagedProxyConfiguration %q, helm upgrade %s -> vX.Y.Z:\n\n", upgraded.GetName(), oldTag)
	fmt.Fprintf(w, "   spec hash before  %s\n   spec hash after   %s\n", oldHash, newHash)
	if oldHash == newHash {
		fmt.Fprintln(w, "   the spec hash did not change: no rollout starts")
		return nil
	}

	// Every add-on last applied the old config; with the new desired hash
	// each one needs the new config.
	var mcas []*addonv1beta1.ManagedClusterAddOn
	for _, c := range sched.Clusters {
		mcas = append(mcas, appliedAddon(cma, c, oldHash))
	}
	specHash := func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) {
		return newHash, nil
	}
	addons, err := addon.Evaluate(cma, addonv1beta1.PlacementRef{Namespace: p.Namespace, Name: p.Name}, mcas, specHash)
	if err != nil {
		return err
	}
	toApply := 0
	for _, a := range addons {
		if a.Status.Status == rollout.ToApply {
			toApply++
		}
	}
	fmt.Fprintf(w, "   the spec hash changed: %d of %d cluster-proxy add-ons are now ToApply, and the staged rollout starts.\n", toApply, len(addons))
	fmt.Fprintln(w, "   (proxyServer.image is in the same spec: the hub's proxy-server updates at once, not staged.)")
	return nil
}

// appliedAddon is a ManagedClusterAddOn that completed with the config of
// spec hash h.
func appliedAddon(cma *addonv1beta1.ClusterManagementAddOn, cluster, h string) *addonv1beta1.ManagedClusterAddOn {
	ref := addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: cma.Spec.DefaultConfigs[0].Name}, SpecHash: h}
	return &addonv1beta1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: cma.Name},
		Status: addonv1beta1.ManagedClusterAddOnStatus{
			ConfigReferences: []addonv1beta1.ConfigReference{{
				ConfigGroupResource: cma.Spec.DefaultConfigs[0].ConfigGroupResource,
				DesiredConfig:       ref.DeepCopy(),
				LastAppliedConfig:   ref.DeepCopy(),
			}},
			Conditions: []metav1.Condition{{Type: "Progressing", Status: metav1.ConditionFalse, Reason: "Completed"}},
		},
	}
}

func simFleet(o options, sched placement.Result) (simulate.Fleet, error) {
	f := simulate.Fleet{Groups: sched.Groups, Default: simulate.Behavior{ApplyDuration: o.apply}, Behaviors: map[string]simulate.Behavior{}}
	known := map[string]bool{}
	for _, c := range sched.Clusters {
		known[c] = true
	}
	for _, c := range o.fail {
		if !known[c] {
			names := append([]string(nil), sched.Clusters...)
			sort.Strings(names)
			if len(names) > 6 {
				names = append(names[:6], "...")
			}
			return f, fmt.Errorf("-fail %q: no such cluster; the clusters are %s", c, strings.Join(names, ", "))
		}
		f.Behaviors[c] = simulate.Behavior{ApplyDuration: o.apply, Fail: true, RecoverAfter: o.recoverAfter}
	}
	return f, nil
}

func strategySummary(ps addonv1beta1.PlacementStrategy) string {
	c := ps.RolloutStrategy.ProgressivePerGroup
	if c == nil {
		return "defaults"
	}
	return fmt.Sprintf("minSuccessTime %s, progressDeadline %s, maxFailures %s", c.MinSuccessTime.Duration, c.ProgressDeadline, c.MaxFailures.String())
}

func groupTimes(w io.Writer, res simulate.Result) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "   group\tstarted\tcomplete")
	at := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return offset(t.Sub(res.Start))
	}
	for _, g := range res.Groups {
		fmt.Fprintf(tw, "   %s\t%s\t%s\n", g.GroupKey, at(g.Started), at(g.Finished))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n   %s\n", res.Reason)
	return nil
}

// offset formats a simulated offset as the timeline does: +MM:SS under an
// hour, +H:MM:SS after.
func offset(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Hour {
		return fmt.Sprintf("+%02d:%02d", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	return fmt.Sprintf("+%d:%02d:%02d", int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second))
}

// approval is the -approve gate: the named groups may start, the others are
// held. A name that is no group is an error.
func approval(names []string, groups []grouping.Group) (rollout.Gate, error) {
	known := map[string]bool{}
	var all []string
	for _, g := range groups {
		if !known[g.Name] {
			all = append(all, g.Name)
		}
		known[g.Name] = true
	}
	keys := make([]grouping.GroupKey, len(names))
	for i, n := range names {
		if !known[n] {
			return nil, fmt.Errorf("-approve %q: no such group; the groups are %s", n, strings.Join(all, ", "))
		}
		keys[i] = grouping.GroupKey{Name: n}
	}
	return rollout.Approval(keys...), nil
}
