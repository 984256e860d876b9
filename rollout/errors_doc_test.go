package rollout_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// TestErrorsDocExamples: every example docs/errors.md gives of the errors
// of rollout, rollout/addon (an invalid AddOnRollout's problems included)
// and rollout/simulate is the text of a real one (up to a "..." where the
// doc cuts it short).
func TestErrorsDocExamples(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/errors.md")
	require.NoError(t, err)
	plan := func(p rollout.Planner, s clusterv1alpha1.RolloutStrategy, groups []grouping.Group, statuses ...rollout.ClusterStatus) error {
		p.Clock = plannerAt(t0()).Clock
		_, err := p.Plan(s, groups, statuses)
		return err
	}
	window := func(loc *time.Location, days []time.Weekday, start, end time.Duration) error {
		_, err := rollout.Window(loc, days, start, end)
		return err
	}
	parse := func(line string) error {
		_, err := rollout.ParseWindow(line)
		return err
	}
	ok := status("dev-cluster", rollout.Succeeded, t0())
	weekdays := []time.Weekday{time.Monday}
	tests := []docExample{
		{rollout.Validate(clusterv1alpha1.RolloutStrategy{Type: "Canary"}),
			`type: Unsupported value: "Canary": supported values: "All", "Progressive", "ProgressivePerGroup"`},
		{rollout.Validate(strategy(perGroup, cfg{deadline: "15x"})),
			`progressivePerGroup.progressDeadline: Invalid value: "15x": want "None" or a non-negative duration such as "90s" or "1h30m"`},
		{rollout.Validate(strategy(progressive, cfg{soak: -time.Second})),
			`progressive.minSuccessTime: Invalid value: "-1s": want a non-negative duration`},
		{rollout.Validate(strategy(progressive, cfg{}, concurrency(intstr.FromString("150%")))),
			`progressive.maxConcurrency: Invalid value: "150%": want a non-negative integer or a percentage 0%-100%`},
		{rollout.Validate(strategy(perGroup, cfg{maxFail: intstr.FromInt32(-1)})),
			`progressivePerGroup.maxFailures: Invalid value: -1: ...`},
		{rollout.Validate(strategy(progressive, cfg{}, mandatory(byIndex(-1)))),
			`progressive.mandatoryDecisionGroups[0].groupIndex: Invalid value: -1: want a group index >= 0 or a groupName`},
		{plan(rollout.Planner{DefaultConcurrency: ptr(intstr.FromString("abc"))}, strategy(progressive, cfg{}), seedGroups()),
			`Planner.DefaultConcurrency: Invalid value: "abc": want a non-negative integer or a percentage 0%-100%`},
		{plan(rollout.Planner{}, strategy(all, cfg{}), seedGroups(), ok, ok),
			`statuses[1].Cluster: Duplicate value: "dev-cluster": want one status per cluster (statuses[0] has it too)`},
		{plan(rollout.Planner{}, strategy(all, cfg{}), seedGroups(), ok, status("stg-cluster", rollout.Status(42), t0())),
			`statuses[1].Status: Invalid value: 42: want one of ToApply, Progressing, Succeeded, Failed, TimeOut or Skip, for cluster "stg-cluster"`},
		{plan(rollout.Planner{}, strategy(all, cfg{}), seedGroups(), status("", rollout.Succeeded, t0())),
			`statuses[0].Cluster: Required value: a cluster name`},
		{plan(rollout.Planner{}, strategy(all, cfg{}), []grouping.Group{group("stg", 1, "a", "b"), group("dev", 0, "a")}),
			`groups[0].Clusters[0]: Duplicate value: "a": want each cluster in one group, not in both dev#0 and stg#1`},
		{plan(rollout.Planner{}, strategy(all, cfg{}), []grouping.Group{group("dev", 0, "b", "a", "b")}),
			`groups[0].Clusters[2]: Duplicate value: "b": want each cluster once in its group, not twice in dev#0`},
		{plan(rollout.Planner{}, strategy(all, cfg{}), []grouping.Group{group("dev", 0, "a", "")}),
			`groups[0].Clusters[1]: Required value: a cluster name`},
		{plan(rollout.Planner{}, strategy(all, cfg{}), []grouping.Group{group("dev", 0, "a"), group("stg", 1, "b"), group("prod", 1, "c")}),
			`groups[2].Index: Duplicate value: 1: want a unique group index (groups[1], "stg", has it too)`},
		{window(nil, weekdays, hm(9, 0), hm(17, 0)),
			`window gate: loc: Required value: a time zone, e.g. time.LoadLocation("Europe/Berlin")`},
		{window(time.UTC, nil, hm(9, 0), hm(17, 0)),
			`window gate: days: Required value: at least one weekday`},
		{window(time.UTC, []time.Weekday{time.Monday, 7}, hm(9, 0), hm(17, 0)),
			`window gate: days[1]: Invalid value: 7: want a weekday from Sunday (0) to Saturday (6)`},
		{window(time.UTC, weekdays, 24*time.Hour, hm(17, 0)),
			`window gate: start: Invalid value: "24h0m0s": want a time of day in [0, 24h)`},
		{window(time.UTC, weekdays, hm(9, 0), hm(9, 0)),
			`window gate: end: Invalid value: "9h0m0s": want a time of day other than the start 9h0m0s`},
		{parse("Mon-Fri"),
			`window: Invalid value: "Mon-Fri": want "DAYS HH:MM-HH:MM ZONE", e.g. "Mon-Fri 09:00-17:00 Europe/Berlin"`},
		{parse("Mon-Fry 09:00-17:00 UTC"),
			`window "Mon-Fry 09:00-17:00 UTC": days: Invalid value: "Fry": want Mon, Tue, Wed, Thu, Fri, Sat or Sun`},
		{parse("Mon 9h-17:00 UTC"),
			`window "Mon 9h-17:00 UTC": start: Invalid value: "9h": want HH:MM from 00:00 to 23:59`},
		{parse("Mon 09:00 UTC"),
			`window "Mon 09:00 UTC": end: Required value: HH:MM after the start and a "-", e.g. 09:00-17:00`},
		{parse("Mon 09:00-17:00 Mars/Olympus"),
			`window "Mon 09:00-17:00 Mars/Olympus": zone: Invalid value: "Mars/Olympus": want an IANA name such as Europe/Berlin or UTC`},
	}
	windowOf := func(days []string, start, end, zone string) error {
		_, err := rollout.WindowOf(days, start, end, zone)
		return err
	}
	tests = append(tests,
		docExample{windowOf(nil, "09:00", "17:00", ""), `days: Required value: at least one day, e.g. Mon or Mon-Fri`},
		docExample{windowOf([]string{"Mon", "Fry"}, "09:00", "17:00", ""), `days[1]: Invalid value: "Fry": want Mon, Tue, Wed, Thu, Fri, Sat or Sun`},
		docExample{windowOf([]string{"Mon"}, "9h", "17:00", ""), `start: Invalid value: "9h": want HH:MM from 00:00 to 23:59`},
		docExample{windowOf([]string{"Mon"}, "09:00", "09:00", ""), `end: Invalid value: "09:00": want a time other than the start 09:00`},
		docExample{windowOf([]string{"Mon"}, "09:00", "17:00", "Mars/Olympus"),
			`timeZone: Invalid value: "Mars/Olympus": want an IANA name such as Europe/Berlin or UTC`},
	)
	tests = append(tests, addonExamples()...)
	tests = append(tests, controlsExamples()...)
	tests = append(tests, simulateExamples()...)
	for _, tt := range tests {
		assert.Contains(t, string(doc), tt.want, "docs/errors.md does not give this example")
		assert.True(t, documents(tt.err, tt.want), "no problem of %q reads as the example %q", tt.err, tt.want)
	}
}

// docExample is an error and the example docs/errors.md gives of it.
type docExample struct {
	err  error
	want string
}

// addonExamples are rollout/addon's errors, on the seed's add-on.
func addonExamples() []docExample {
	gr := addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	placementRef := addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}
	cma := func(edit func(*addonv1beta1.ClusterManagementAddOnSpec)) *addonv1beta1.ClusterManagementAddOn {
		c := &addonv1beta1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}}
		c.Spec.InstallStrategy = addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyPlacements,
			Placements: []addonv1beta1.PlacementStrategy{{PlacementRef: placementRef}}}
		edit(&c.Spec)
		return c
	}
	mca := func(namespace string) *addonv1beta1.ManagedClusterAddOn {
		return &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "cluster-proxy"}}
	}
	notFound := errors.New("not found")
	specHash := func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) {
		return "", notFound
	}
	desired := func(c *addonv1beta1.ClusterManagementAddOn, p addonv1beta1.PlacementRef) error {
		_, err := addon.PlacementConfigs(c, p, specHash)
		return err
	}
	clusterStatus := func(m *addonv1beta1.ManagedClusterAddOn) error {
		_, err := addon.ClusterStatus(m, nil)
		return err
	}
	evaluate := func(mcas ...*addonv1beta1.ManagedClusterAddOn) error {
		_, err := addon.Evaluate(cma(func(*addonv1beta1.ClusterManagementAddOnSpec) {}), placementRef, mcas, specHash)
		return err
	}
	notPlanned := func(edit func(*addonv1beta1.ClusterManagementAddOnSpec), p *clusterv1beta1.Placement) error {
		steps, err := addon.PlanAddon(rollout.Planner{}, cma(edit), []addon.PlacementInput{{Placement: p}}, nil, specHash)
		if err != nil {
			return err
		}
		return steps[0].Err
	}
	placementObj := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: placementRef.Namespace, Name: placementRef.Name}}
	noDesired := mca("dev-cluster")
	noDesired.Status.ConfigReferences = []addonv1beta1.ConfigReference{{ConfigGroupResource: gr}}
	custom := mca("dev-cluster")
	custom.Spec.Configs = []addonv1beta1.AddOnConfig{{ConfigGroupResource: gr, ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}}}
	return []docExample{
		{clusterStatus(noDesired),
			`managedclusteraddon "dev-cluster/cluster-proxy": status.configReferences[0].desiredConfig: Required value: the desired namespace/name and spec hash of managedproxyconfigurations.proxy.open-cluster-management.io`},
		{desired(cma(func(*addonv1beta1.ClusterManagementAddOnSpec) {}), addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "other"}),
			`clustermanagementaddon "cluster-proxy": spec.installStrategy.placements: Not found: "open-cluster-management/other": want one of the listed placements: "open-cluster-management/cluster-proxy-placement"`},
		{desired(cma(func(s *addonv1beta1.ClusterManagementAddOnSpec) {
			s.InstallStrategy.Placements = append(s.InstallStrategy.Placements, s.InstallStrategy.Placements[0])
		}), placementRef),
			`clustermanagementaddon "cluster-proxy": spec.installStrategy.placements[1]: Duplicate value: "open-cluster-management/cluster-proxy-placement": want each placement listed once (spec.installStrategy.placements[0] has it)`},
		{desired(cma(func(s *addonv1beta1.ClusterManagementAddOnSpec) {
			s.InstallStrategy.Type = addonv1beta1.AddonInstallStrategyManual
		}), placementRef),
			`clustermanagementaddon "cluster-proxy": spec.installStrategy.type: Invalid value: "Manual": want "Placements" to roll out by placement "open-cluster-management/cluster-proxy-placement" (a Manual strategy uses no placement: pass a zero PlacementRef)`},
		{desired(cma(func(s *addonv1beta1.ClusterManagementAddOnSpec) {
			s.DefaultConfigs = []addonv1beta1.AddOnConfig{{ConfigGroupResource: gr}, {ConfigGroupResource: gr}}
		}), addonv1beta1.PlacementRef{}),
			`clustermanagementaddon "cluster-proxy": spec.defaultConfigs[1]: Duplicate value: "managedproxyconfigurations.proxy.open-cluster-management.io": want one entry per group and resource (spec.defaultConfigs[0] has it)`},
		{evaluate(mca("dev-cluster"), mca("dev-cluster")),
			`managedclusteraddon "dev-cluster/cluster-proxy": metadata.namespace: Duplicate value: "dev-cluster": want one add-on per cluster (managedclusteraddons[0] is in it too)`},
		{clusterStatus(mca("")),
			`managedclusteraddon "cluster-proxy": metadata.namespace: Required value: the name of the managed cluster`},
		{evaluate(custom),
			`managedclusteraddon "dev-cluster/cluster-proxy": spec hash of managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy": ...`},
		{notPlanned(func(*addonv1beta1.ClusterManagementAddOnSpec) {}, nil),
			`placement "open-cluster-management/cluster-proxy-placement" (spec.installStrategy.placements[0]) not found: nothing is rolled out for it`},
		{notPlanned(func(s *addonv1beta1.ClusterManagementAddOnSpec) {
			s.InstallStrategy.Placements[0].RolloutStrategy = clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup,
				ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "10mfoo"}}}
		}, placementObj),
			`spec.installStrategy.placements[0].rolloutStrategy.progressivePerGroup.progressDeadline: Invalid value: "10mfoo": want "None" or a non-negative duration such as "90s" or "1h30m"`},
		{notPlanned(func(s *addonv1beta1.ClusterManagementAddOnSpec) {
			s.DefaultConfigs = []addonv1beta1.AddOnConfig{{ConfigGroupResource: gr, ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}}}
		}, placementObj),
			`clustermanagementaddon "cluster-proxy": spec hash of managedproxyconfigurations.proxy.open-cluster-management.io "cluster-proxy": not found`},
	}
}

// controlsExamples are the problems of an invalid AddOnRollout, as
// Planner.Plan lists them in Plan.Invalid, on the seed's groups.
func controlsExamples() []docExample {
	ref := addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}
	cma := &addonv1beta1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}}
	cma.Spec.InstallStrategy = addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyPlacements,
		Placements: []addonv1beta1.PlacementStrategy{{PlacementRef: ref}}}
	placements := []addon.PlacementInput{{
		Placement: &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}},
		Groups:    seedGroups(),
	}}
	specHash := func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) { return "h", nil }
	invalid := func(spec v1alpha1.AddOnRolloutSpec) error {
		ctl := hubplan.Controls{Rollout: &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}, Spec: spec}}
		p, err := hubplan.Planner{Rollout: plannerAt(t0())}.Plan(hubplan.Inputs{ClusterManagementAddOn: cma, Placements: placements, Controls: ctl, SpecHash: specHash})
		if err != nil {
			return err
		}
		return p.Invalid
	}
	window := func(w ...v1alpha1.RolloutWindow) error { return invalid(v1alpha1.AddOnRolloutSpec{Windows: w}) }
	checks := func(v ...v1alpha1.Verification) error { return invalid(v1alpha1.AddOnRolloutSpec{Verifications: v}) }
	hook := &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}
	prom := &v1alpha1.PrometheusCheck{Address: "http://prometheus.example:9090", Query: "up"}
	badDays := window(v1alpha1.RolloutWindow{Days: []string{"Mon"}, Start: "09:00", End: "17:00"},
		v1alpha1.RolloutWindow{Days: []string{"Mon", "Fry"}, Start: "9am", End: "17:00"})
	unknownGroups := invalid(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod", "qa"},
		Windows:       []v1alpha1.RolloutWindow{{Groups: []string{"canary"}, Days: []string{"Mon"}, Start: "09:00", End: "17:00"}},
		Verifications: []v1alpha1.Verification{{Groups: []string{"Prod"}, Webhook: hook}}})
	badURLs := checks(v1alpha1.Verification{Webhook: &v1alpha1.WebhookCheck{URL: "verifier.example/verify"}},
		v1alpha1.Verification{Prometheus: &v1alpha1.PrometheusCheck{Address: "ftp://prometheus", Query: "up"}})
	badQueries := checks(v1alpha1.Verification{Name: "a", Prometheus: &v1alpha1.PrometheusCheck{Address: "http://p.example", Query: " "}})
	bothNeither := checks(v1alpha1.Verification{Name: "both", Webhook: hook, Prometheus: prom}, v1alpha1.Verification{Name: "neither"})
	durations := checks(v1alpha1.Verification{Interval: &metav1.Duration{},
		Webhook: &v1alpha1.WebhookCheck{URL: "http://v.example", Timeout: &metav1.Duration{Duration: -time.Second}}})
	return []docExample{
		{window(v1alpha1.RolloutWindow{Days: []string{"Mon"}, Start: "09:00", End: "17:00", TimeZone: "Mars/Olympus"}),
			`spec.windows[0].timeZone: Invalid value: "Mars/Olympus": want an IANA name such as Europe/Berlin or UTC`},
		{badDays, `spec.windows[1].days[1]: Invalid value: "Fry": want Mon, Tue, Wed, Thu, Fri, Sat or Sun`},
		{badDays, `spec.windows[1].start: Invalid value: "9am": want HH:MM from 00:00 to 23:59`},
		{unknownGroups, `spec.approvalRequired[1]: Unsupported value: "qa": supported values: "dev", "prod", "stg"`},
		{unknownGroups, `spec.windows[0].groups[0]: Unsupported value: "canary": ...`},
		{unknownGroups, `spec.verifications[0].groups[0]: Unsupported value: "Prod": ...`},
		{badURLs, `spec.verifications[0].webhook.url: Invalid value: "verifier.example/verify": want an absolute http or https URL, e.g. http://verifier.example:8080/verify`},
		{badURLs, `spec.verifications[1].prometheus.address: Invalid value: "ftp://prometheus": ...`},
		{badQueries, `spec.verifications[0].prometheus.query: Invalid value: " ": want a PromQL expression, e.g. max(addon_error_ratio) < 0.01`},
		{bothNeither, `spec.verifications[0].prometheus: Forbidden: set only one of webhook and prometheus`},
		{bothNeither, `spec.verifications[1]: Required value: one of webhook and prometheus`},
		{durations, `spec.verifications[0].interval: Invalid value: "0s": want a positive duration, e.g. 30s`},
		{durations, `spec.verifications[0].webhook.timeout: Invalid value: "-1s": ...`},
		{checks(v1alpha1.Verification{Name: "slo", Webhook: hook}, v1alpha1.Verification{Name: "slo", Prometheus: prom}),
			`spec.verifications[1].name: Duplicate value: "slo": want a name of its own (spec.verifications[0] has it)`},
	}
}

// simulateExamples are rollout/simulate's errors.
func simulateExamples() []docExample {
	run := func(opts simulate.Options, behaviors map[string]simulate.Behavior, groups ...grouping.Group) error {
		if groups == nil {
			groups = seedGroups()
		}
		_, err := simulate.Run(opts, simulate.Fleet{Groups: groups, Behaviors: behaviors})
		return err
	}
	return []docExample{
		{run(simulate.Options{}, map[string]simulate.Behavior{"stg-cluster": {ApplyDuration: -time.Second}}),
			`fleet.Behaviors[stg-cluster].ApplyDuration: Invalid value: "-1s": want a non-negative duration`},
		{run(simulate.Options{}, map[string]simulate.Behavior{"stg-cluster": {Fail: true, ApplyDuration: 2 * time.Minute, RecoverAfter: 2 * time.Minute}}),
			`fleet.Behaviors[stg-cluster].RecoverAfter: Invalid value: "2m0s": want more than ApplyDuration (2m0s): the cluster fails first, then recovers`},
		{run(simulate.Options{}, map[string]simulate.Behavior{"qa-cluster": {}}),
			`fleet.Behaviors[qa-cluster]: Not found: "qa-cluster": want a cluster of one of fleet.Groups`},
		{run(simulate.Options{Limit: -time.Hour}, nil),
			`opts.Limit: Invalid value: "-1h0m0s": want a non-negative duration (0: 30 days)`},
		{run(simulate.Options{MaxPlans: -1}, nil),
			`opts.MaxPlans: Invalid value: -1: ...`},
		{run(simulate.Options{Strategy: strategy(perGroup, cfg{deadline: "15x"})}, nil),
			`opts.Strategy.progressivePerGroup.progressDeadline: Invalid value: "15x": ...`},
		{run(simulate.Options{}, nil, group("a", 0, "x"), group("b", 1, "x")),
			`fleet.Groups[1].Clusters[0]: Duplicate value: "x": ...`},
	}
}

// documents reports whether a line of err's text is want, or begins with
// it when want ends in "...".
func documents(err error, want string) bool {
	if err == nil {
		return false
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if prefix, cut := strings.CutSuffix(want, "..."); line == want || cut && strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}
