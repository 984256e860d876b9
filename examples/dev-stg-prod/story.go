package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
	_ "time/tzdata" // -window names a time zone; work on machines without a tz database

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/placement"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// The cluster-proxy versions of the upgrade: the fleet runs oldTag, and the
// seed's manifests name the new one vX.Y.Z (seedTag), which the story
// replaces with newTag so that it tells a concrete upgrade.
const (
	oldTag  = "v0.9.0"
	newTag  = "v0.9.1"
	seedTag = "vX.Y.Z"
)

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
		return sc, badInput{err}
	}
	if len(o.approve) > 0 {
		g, err := approval(o.approve, sc.sched.Groups)
		if err != nil {
			return sc, badInput{err}
		}
		sc.planner.Gates = append(sc.planner.Gates, g)
	}
	if o.window != nil {
		sc.planner.Gates = append(sc.planner.Gates, o.window)
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
	summary := o.detail.summary(len(sc.sched.Clusters))

	// 1. The decision groups.
	fmt.Fprintf(w, "1. Placement %s/%s puts %d clusters into %d decision groups:\n\n", sc.p.Namespace, sc.p.Name, len(sc.sched.Clusters), len(sc.sched.Groups))
	table := groupTable
	if summary {
		table = groupSummaryTable
	}
	if err := table(w, sc.sched); err != nil {
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
	res, err := rolloutStep(w, sc, summary)
	if err != nil {
		return false, err
	}
	if o.svg != "" {
		if err := svgFile(o.svg, res, sc, summary); err != nil {
			return false, err
		}
		fmt.Fprintf(w, "\nSVG timeline written to %s\n", o.svg)
	}
	return res.Outcome == simulate.Completed, nil
}

// rolloutStep simulates the rollout and tells it: what a soak and an
// offset are, the timeline (in summary, a line per group and event), and
// when each group started and completed.
func rolloutStep(w io.Writer, sc scenario, summary bool) (simulate.Result, error) {
	res, err := simulate.Run(simulate.Options{Strategy: sc.ps.RolloutStrategy, Planner: sc.planner, Start: sc.start}, sc.fleet)
	if err != nil {
		return res, err
	}
	fmt.Fprintf(w, "\n3. %s rollout (%s), simulated from %s:\n\n", sc.ps.RolloutStrategy.Type, strategySummary(sc.ps), sc.start.UTC().Format("Mon 2006-01-02 15:04 MST"))
	if soak := minSuccessTime(sc.ps); soak > 0 {
		fmt.Fprintf(w, "   A soak (minSuccessTime %s): a cluster that succeeded must stay healthy this long before its group completes and the next group starts.\n", duration(soak))
	}
	fmt.Fprintln(w, "   Times are offsets from the start: +7m is 7 minutes in, +1h05m an hour and 5 minutes.")
	if summary {
		fmt.Fprintf(w, "   Summary of %d clusters: a line per group and event (-detail full: a line per cluster).\n", len(sc.sched.Clusters))
	}
	fmt.Fprintln(w)
	if err := writeTimeline(w, timeline(res, summary)); err != nil {
		return res, err
	}
	fmt.Fprintln(w)
	return res, groupTimes(w, res)
}

// minSuccessTime is the soak of the strategy; 0 when it has none.
func minSuccessTime(ps addonv1beta1.PlacementStrategy) time.Duration {
	if c := ps.RolloutStrategy.ProgressivePerGroup; c != nil {
		return c.MinSuccessTime.Duration
	}
	return 0
}

// svgFile writes the SVG chart of res to path: a row per cluster, or in
// summary a row per group.
func svgFile(path string, res simulate.Result, sc scenario, summary bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	werr := writeSVG(f, res, sc.sched.Groups, minSuccessTime(sc.ps), summary)
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

// hashStep hashes the ManagedProxyConfiguration at the old tag and at the
// new one, and shows that every add-on then needs the new config.
func hashStep(w io.Writer, cma *addonv1beta1.ClusterManagementAddOn, p *clusterv1beta1.Placement, sched placement.Result) error {
	config, err := seed.ManagedProxyConfiguration()
	if err != nil {
		return err
	}
	before, err := withTag(config, oldTag)
	if err != nil {
		return err
	}
	upgraded, err := withTag(config, newTag)
	if err != nil {
		return err
	}
	oldHash, err := hash.Spec(before)
	if err != nil {
		return err
	}
	newHash, err := hash.Spec(upgraded)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n2. ManagedProxyConfiguration %q, helm upgrade %s -> %s:\n\n", upgraded.GetName(), oldTag, newTag)
	fmt.Fprintf(w, "   spec hash before  %s\n   spec hash after   %s\n", oldHash, newHash)
	fmt.Fprintln(w, "   A spec hash is the SHA-256 of a config's spec: an add-on whose last applied hash is not the desired one must update.")
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
	fmt.Fprintln(w, "   ToApply: the add-on needs the new config and has not started applying it.")
	fmt.Fprintln(w, "   (proxyServer.image is in the same spec: the hub's proxy-server updates at once, not staged.)")
	return nil
}

// withTag returns a copy of the seed's ManagedProxyConfiguration with its
// images at tag instead of the seed's vX.Y.Z.
func withTag(config *unstructured.Unstructured, tag string) (*unstructured.Unstructured, error) {
	out := config.DeepCopy()
	for _, path := range [][]string{{"spec", "proxyServer", "image"}, {"spec", "proxyAgent", "image"}} {
		img, found, err := unstructured.NestedString(out.Object, path...)
		if err != nil {
			return nil, err
		}
		if !found || !strings.Contains(img, seedTag) {
			return nil, fmt.Errorf("seed ManagedProxyConfiguration: %s %q: want an image tagged %s", strings.Join(path, "."), img, seedTag)
		}
		if err := unstructured.SetNestedField(out.Object, strings.Replace(img, seedTag, tag, 1), path...); err != nil {
			return nil, err
		}
	}
	return out, nil
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
	return fmt.Sprintf("minSuccessTime %s, progressDeadline %s, maxFailures %s", duration(c.MinSuccessTime.Duration), c.ProgressDeadline, c.MaxFailures.String())
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
