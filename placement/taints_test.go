package placement_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/placement"
)

const unreachable = "cluster.open-cluster-management.io/unreachable"

// TestScheduleTaints schedules cluster "t", with the taints given, beside
// an untainted cluster "free", at seedTime.
func TestScheduleTaints(t *testing.T) {
	t.Parallel()
	now := seedTime()
	hourAgo := now.Add(-time.Hour)
	none := int64(-1)
	tests := []struct {
		name        string
		taints      []clusterv1.Taint
		tolerations []clusterv1beta1.Toleration
		inDecisions bool // t is among the Placement's own decisions
		kept        bool
		recheck     time.Duration
		warnings    []placement.Warning
	}{
		{
			name:   "NoSelect, not tolerated",
			taints: []clusterv1.Taint{taint(unreachable, "", clusterv1.TaintEffectNoSelect, hourAgo)},
			warnings: []placement.Warning{{Kind: placement.Tainted, Message: `1 cluster matched the predicates but was dropped by the taint ` +
				`"cluster.open-cluster-management.io/unreachable" (NoSelect), which the Placement does not tolerate: "t"`}},
		},
		{
			name:        "Equal: key and value match",
			taints:      []clusterv1.Taint{taint("gpu", "a100", clusterv1.TaintEffectNoSelect, hourAgo)},
			tolerations: []clusterv1beta1.Toleration{toleration("gpu", clusterv1beta1.TolerationOpEqual, "a100", "", none)},
			kept:        true,
		},
		{
			name:        "Equal: another value",
			taints:      []clusterv1.Taint{taint("gpu", "a100", clusterv1.TaintEffectNoSelect, hourAgo)},
			tolerations: []clusterv1beta1.Toleration{toleration("gpu", clusterv1beta1.TolerationOpEqual, "h100", "", none)},
			warnings: []placement.Warning{{Kind: placement.Tainted,
				Message: `1 cluster matched the predicates but was dropped by the taint "gpu" (NoSelect), which the Placement does not tolerate: "t"`}},
		},
		{
			name:        "an empty operator is Equal",
			taints:      []clusterv1.Taint{taint("gpu", "a100", clusterv1.TaintEffectNoSelect, hourAgo)},
			tolerations: []clusterv1beta1.Toleration{toleration("gpu", "", "a100", "", none)},
			kept:        true,
		},
		{
			name:        "Exists: any value",
			taints:      []clusterv1.Taint{taint("gpu", "a100", clusterv1.TaintEffectNoSelect, hourAgo)},
			tolerations: []clusterv1beta1.Toleration{toleration("gpu", clusterv1beta1.TolerationOpExists, "", "", none)},
			kept:        true,
		},
		{
			name:        "Exists with no key: every taint",
			taints:      []clusterv1.Taint{taint("gpu", "a100", clusterv1.TaintEffectNoSelect, hourAgo), taint(unreachable, "", clusterv1.TaintEffectNoSelect, hourAgo)},
			tolerations: []clusterv1beta1.Toleration{toleration("", clusterv1beta1.TolerationOpExists, "", "", none)},
			kept:        true,
		},
		{
			name:        "an unknown operator matches nothing, as in OCM",
			taints:      []clusterv1.Taint{taint("gpu", "a100", clusterv1.TaintEffectNoSelect, hourAgo)},
			tolerations: []clusterv1beta1.Toleration{toleration("gpu", "In", "a100", "", none)},
			warnings: []placement.Warning{{Kind: placement.Tainted,
				Message: `1 cluster matched the predicates but was dropped by the taint "gpu" (NoSelect), which the Placement does not tolerate: "t"`}},
		},
		{
			name:        "a toleration of another effect does not apply",
			taints:      []clusterv1.Taint{taint("gpu", "", clusterv1.TaintEffectNoSelect, hourAgo)},
			tolerations: []clusterv1beta1.Toleration{toleration("gpu", clusterv1beta1.TolerationOpExists, "", clusterv1.TaintEffectNoSelectIfNew, none)},
			warnings: []placement.Warning{{Kind: placement.Tainted,
				Message: `1 cluster matched the predicates but was dropped by the taint "gpu" (NoSelect), which the Placement does not tolerate: "t"`}},
		},
		{
			name:        "a toleration of the same effect applies",
			taints:      []clusterv1.Taint{taint("gpu", "", clusterv1.TaintEffectNoSelect, hourAgo)},
			tolerations: []clusterv1beta1.Toleration{toleration("gpu", clusterv1beta1.TolerationOpExists, "", clusterv1.TaintEffectNoSelect, none)},
			kept:        true,
		},
		{
			name:   "PreferNoSelect needs no toleration",
			taints: []clusterv1.Taint{taint("spot", "", clusterv1.TaintEffectPreferNoSelect, hourAgo)},
			kept:   true,
		},
		{
			name:   "NoSelectIfNew keeps out a new cluster",
			taints: []clusterv1.Taint{taint("draining", "", clusterv1.TaintEffectNoSelectIfNew, hourAgo)},
			warnings: []placement.Warning{{Kind: placement.Tainted, Message: `1 cluster matched the predicates but was dropped by the taint "draining" (NoSelectIfNew), ` +
				`which keeps out clusters not already among the Placement's decisions: "t"`}},
		},
		{
			name:        "NoSelectIfNew keeps a cluster already decided",
			taints:      []clusterv1.Taint{taint("draining", "", clusterv1.TaintEffectNoSelectIfNew, hourAgo)},
			inDecisions: true,
			kept:        true,
		},
		{
			name:        "NoSelectIfNew, tolerated",
			taints:      []clusterv1.Taint{taint("draining", "", clusterv1.TaintEffectNoSelectIfNew, hourAgo)},
			tolerations: []clusterv1beta1.Toleration{toleration("draining", clusterv1beta1.TolerationOpExists, "", "", none)},
			kept:        true,
		},
		{
			// Once the result is written the cluster is among the
			// decisions, where its NoSelectIfNew taint needs no toleration:
			// the expiry changes nothing, as OCM's next pass finds.
			name:        "NoSelectIfNew tolerated for a while keeps a new cluster for good",
			taints:      []clusterv1.Taint{taint("draining", "", clusterv1.TaintEffectNoSelectIfNew, now)},
			tolerations: []clusterv1beta1.Toleration{toleration("", clusterv1beta1.TolerationOpExists, "", "", 60)},
			kept:        true,
		},
		{
			name:   "an unknown effect needs a toleration",
			taints: []clusterv1.Taint{taint("x", "", "NoSchedule", hourAgo)},
			warnings: []placement.Warning{{Kind: placement.Tainted,
				Message: `1 cluster matched the predicates but was dropped by the taint "x" (NoSchedule), which the Placement does not tolerate: "t"`}},
		},
		{
			name:        "tolerationSeconds not run out: kept, look again when they do",
			taints:      []clusterv1.Taint{taint(unreachable, "", clusterv1.TaintEffectNoSelect, now.Add(-2*time.Minute))},
			tolerations: []clusterv1beta1.Toleration{toleration(unreachable, clusterv1beta1.TolerationOpExists, "", "", 300)},
			kept:        true, recheck: 3 * time.Minute,
			warnings: []placement.Warning{{Kind: placement.TolerationExpiring, Message: `1 cluster is selected only because a toleration with tolerationSeconds ` +
				`tolerates its taint, and will leave the decisions when it expires: "t" at 2026-11-30T12:03:00Z`}},
		},
		{
			name:        "tolerationSeconds run out: dropped",
			taints:      []clusterv1.Taint{taint(unreachable, "", clusterv1.TaintEffectNoSelect, now.Add(-10*time.Minute))},
			tolerations: []clusterv1beta1.Toleration{toleration(unreachable, clusterv1beta1.TolerationOpExists, "", "", 300)},
			warnings: []placement.Warning{{Kind: placement.Tainted, Message: `1 cluster matched the predicates but was dropped by the taint ` +
				`"cluster.open-cluster-management.io/unreachable" (NoSelect), whose toleration has expired (tolerationSeconds counted from the taint's timeAdded): "t"`}},
		},
		{
			name:        "tolerationSeconds run out exactly now: dropped",
			taints:      []clusterv1.Taint{taint(unreachable, "", clusterv1.TaintEffectNoSelect, now.Add(-5*time.Minute))},
			tolerations: []clusterv1beta1.Toleration{toleration(unreachable, clusterv1beta1.TolerationOpExists, "", "", 300)},
			warnings: []placement.Warning{{Kind: placement.Tainted, Message: `1 cluster matched the predicates but was dropped by the taint ` +
				`"cluster.open-cluster-management.io/unreachable" (NoSelect), whose toleration has expired (tolerationSeconds counted from the taint's timeAdded): "t"`}},
		},
		{
			name:        "a taint without timeAdded: tolerationSeconds ran out long ago",
			taints:      []clusterv1.Taint{taint(unreachable, "", clusterv1.TaintEffectNoSelect, time.Time{})},
			tolerations: []clusterv1beta1.Toleration{toleration(unreachable, clusterv1beta1.TolerationOpExists, "", "", 300)},
			warnings: []placement.Warning{{Kind: placement.Tainted, Message: `1 cluster matched the predicates but was dropped by the taint ` +
				`"cluster.open-cluster-management.io/unreachable" (NoSelect), whose toleration has expired (tolerationSeconds counted from the taint's timeAdded): "t"`}},
		},
		{
			name:   "an expiring toleration first, one for ever second: OCM looks again at the first's expiry; the cluster stays",
			taints: []clusterv1.Taint{taint(unreachable, "", clusterv1.TaintEffectNoSelect, now)},
			tolerations: []clusterv1beta1.Toleration{
				toleration(unreachable, clusterv1beta1.TolerationOpExists, "", "", 60),
				toleration("", clusterv1beta1.TolerationOpExists, "", "", none),
			},
			kept: true, recheck: time.Minute,
		},
		{
			name:   "a toleration for ever first: no need to look again",
			taints: []clusterv1.Taint{taint(unreachable, "", clusterv1.TaintEffectNoSelect, now)},
			tolerations: []clusterv1beta1.Toleration{
				toleration("", clusterv1beta1.TolerationOpExists, "", "", none),
				toleration(unreachable, clusterv1beta1.TolerationOpExists, "", "", 60),
			},
			kept: true,
		},
		{
			name:   "two expiring tolerations of one taint: the cluster stays until the later",
			taints: []clusterv1.Taint{taint(unreachable, "", clusterv1.TaintEffectNoSelect, now)},
			tolerations: []clusterv1beta1.Toleration{
				toleration(unreachable, clusterv1beta1.TolerationOpExists, "", "", 60),
				toleration("", clusterv1beta1.TolerationOpExists, "", "", 600),
			},
			kept: true, recheck: time.Minute,
			warnings: []placement.Warning{{Kind: placement.TolerationExpiring, Message: `1 cluster is selected only because a toleration with tolerationSeconds ` +
				`tolerates its taint, and will leave the decisions when it expires: "t" at 2026-11-30T12:10:00Z`}},
		},
		{
			name: "two taints, each tolerated for a while: the earlier counts",
			taints: []clusterv1.Taint{
				taint(unreachable, "", clusterv1.TaintEffectNoSelect, now.Add(-time.Minute)),
				taint("gpu", "", clusterv1.TaintEffectNoSelect, now),
			},
			tolerations: []clusterv1beta1.Toleration{
				toleration(unreachable, clusterv1beta1.TolerationOpExists, "", "", 600),
				toleration("gpu", clusterv1beta1.TolerationOpExists, "", "", 120),
			},
			kept: true, recheck: 2 * time.Minute,
			warnings: []placement.Warning{{Kind: placement.TolerationExpiring, Message: `1 cluster is selected only because a toleration with tolerationSeconds ` +
				`tolerates its taint, and will leave the decisions when it expires: "t" at 2026-11-30T12:02:00Z`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPlacement(intstr.IntOrString{}, nil)
			p.Spec.Tolerations = tt.tolerations
			hub := globalHub(tainted(mc("t"), tt.taints...), mc("free"))
			if tt.inDecisions {
				hub.Decisions = append(hub.Decisions, placementDecision("ns", "p", "t"))
			}
			res, err := placement.Scheduler{Clock: fake.New(now)}.ScheduleHub(p, hub)
			require.NoError(t, err)
			want := []string{"free"}
			if tt.kept {
				want = []string{"free", "t"}
			}
			assert.Equal(t, want, res.Clusters)
			assert.Equal(t, tt.recheck, res.RecheckAfter)
			assert.Equal(t, tt.warnings, res.Warnings)
		})
	}
}

// TestScheduleRecheckFromDecisions: as in OCM, a cluster of the
// Placement's own decisions that a toleration keeps for a while makes the
// result say when to look again, even when the predicates no longer
// select it; a NoSelectIfNew taint on such a cluster needs no toleration.
func TestScheduleRecheckFromDecisions(t *testing.T) {
	t.Parallel()
	now := seedTime()
	p := newPlacement(intstr.IntOrString{}, []clusterv1beta1.ClusterPredicate{labelPredicate("env=prod")})
	p.Spec.Tolerations = []clusterv1beta1.Toleration{toleration(unreachable, clusterv1beta1.TolerationOpExists, "", "", 600)}
	old := tainted(mc("old", "env=dev"),
		taint(unreachable, "", clusterv1.TaintEffectNoSelect, now.Add(-time.Minute)),
		taint("draining", "", clusterv1.TaintEffectNoSelectIfNew, now))
	hub := globalHub(old, mc("prod", "env=prod"))
	hub.Decisions = append(hub.Decisions, placementDecision("ns", "p", "old", "gone"), placementDecision("other", "p", "prod"))
	res, err := placement.Scheduler{Clock: fake.New(now)}.ScheduleHub(p, hub)
	require.NoError(t, err)
	assert.Equal(t, []string{"prod"}, res.Clusters)
	assert.Equal(t, 9*time.Minute, res.RecheckAfter)
	assert.Empty(t, res.Warnings)
}

// TestScheduleRecheckWithoutCandidates: OCM checks the predicates only
// when some candidate exists. With none (no binding here), a bad predicate
// stops nothing in OCM, which still looks again when a toleration of its
// current decisions expires; the error is ours alone.
func TestScheduleRecheckWithoutCandidates(t *testing.T) {
	t.Parallel()
	now := seedTime()
	bad := clusterv1beta1.ClusterPredicate{}
	bad.RequiredClusterSelector.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn}}
	p := newPlacement(intstr.IntOrString{}, []clusterv1beta1.ClusterPredicate{bad})
	p.Spec.Tolerations = []clusterv1beta1.Toleration{toleration(unreachable, clusterv1beta1.TolerationOpExists, "", "", 600)}
	old := tainted(mc("old", "env=dev"), taint(unreachable, "", clusterv1.TaintEffectNoSelect, now.Add(-time.Minute)))
	hub := placement.Hub{Clusters: []*clusterv1.ManagedCluster{old}, Decisions: []*clusterv1beta1.PlacementDecision{placementDecision("ns", "p", "old")}}
	res, err := placement.Scheduler{Clock: fake.New(now)}.ScheduleHub(p, hub)
	var fe *field.Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "spec.predicates[0].requiredClusterSelector.labelSelector.matchExpressions[0].values", fe.Field)
	assert.Empty(t, res.Clusters)
	assert.Equal(t, 9*time.Minute, res.RecheckAfter)
}

// TestScheduleTaintedWarning groups the dropped clusters by taint and
// names a few of each.
func TestScheduleTaintedWarning(t *testing.T) {
	t.Parallel()
	now := seedTime()
	var clusters []*clusterv1.ManagedCluster
	for _, c := range numbered("prod", 7, "env=prod") {
		clusters = append(clusters, tainted(c, taint(unreachable, "", clusterv1.TaintEffectNoSelect, now)))
	}
	clusters = append(clusters,
		tainted(mc("dev", "env=dev"), taint("gpu", "x", clusterv1.TaintEffectNoSelect, now), taint(unreachable, "", clusterv1.TaintEffectNoSelect, now)),
		tainted(mc("qa", "env=qa"), taint(unreachable, "", clusterv1.TaintEffectNoSelect, now)))
	p := newPlacement(intstr.IntOrString{}, []clusterv1beta1.ClusterPredicate{labelPredicate("env=prod"), labelPredicate("env=dev")})
	res, err := placement.Scheduler{Clock: fake.New(now)}.Schedule(p, clusters)
	require.NoError(t, err)
	assert.Nil(t, res.Clusters)
	assert.Equal(t, []placement.Warning{
		{Kind: placement.Tainted, Message: `7 clusters matched the predicates but were dropped by the taint "cluster.open-cluster-management.io/unreachable" (NoSelect), ` +
			`which the Placement does not tolerate: "prod-000", "prod-001", "prod-002", "prod-003", "prod-004" and 2 more`},
		{Kind: placement.Tainted, Message: `1 cluster matched the predicates but was dropped by the taint "gpu" (NoSelect), which the Placement does not tolerate: "dev"`},
	}, res.Warnings)
}

func TestScheduleTolerationsMisconfigured(t *testing.T) {
	t.Parallel()
	emptyKey := toleration("", clusterv1beta1.TolerationOpEqual, "", "", -1)
	existsValue := toleration("gpu", clusterv1beta1.TolerationOpExists, "a100", "", -1)
	tests := []struct {
		name        string
		tolerations []clusterv1beta1.Toleration
		clusters    []*clusterv1.ManagedCluster
		paths       []string
		message     string // OCM's; "" when OCM does not check
	}{
		{"an empty key needs Exists", []clusterv1beta1.Toleration{emptyKey}, []*clusterv1.ManagedCluster{mc("a")},
			[]string{"spec.tolerations[0].operator"}, "TaintToleration:If the key is empty, operator must be Exists."},
		{"Exists takes no value", []clusterv1beta1.Toleration{existsValue}, []*clusterv1.ManagedCluster{mc("a")},
			[]string{"spec.tolerations[0].value"}, "TaintToleration:If the operator is Exists, the value should be empty."},
		{"every problem; OCM names the first", []clusterv1beta1.Toleration{existsValue, emptyKey}, []*clusterv1.ManagedCluster{mc("a")},
			[]string{"spec.tolerations[0].value", "spec.tolerations[1].operator"}, "TaintToleration:If the operator is Exists, the value should be empty."},
		{"no cluster to filter: OCM does not look", []clusterv1beta1.Toleration{emptyKey}, nil,
			[]string{"spec.tolerations[0].operator"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPlacement(intstr.IntOrString{}, nil)
			p.Spec.Tolerations = tt.tolerations
			res, err := placement.Scheduler{Clock: fake.New(seedTime())}.Schedule(p, tt.clusters)
			require.Error(t, err)
			problems := problems(t, `placement "ns/p"`, err)
			require.Len(t, problems, len(tt.paths))
			for i, pr := range problems {
				var fe *field.Error
				require.True(t, errors.As(pr, &fe), "%v", pr)
				assert.Equal(t, tt.paths[i], fe.Field)
			}
			assert.Nil(t, res.Clusters)
			assert.Equal(t, []grouping.Group{group("", 0)}, res.Groups)
			mis := condition(t, res.Status, clusterv1beta1.PlacementConditionMisconfigured)
			if tt.message == "" {
				assert.Equal(t, "Succeedconfigured", mis.Reason)
				return
			}
			assert.Equal(t, "Misconfigured", mis.Reason)
			assert.Equal(t, tt.message, mis.Message)
		})
	}
}
