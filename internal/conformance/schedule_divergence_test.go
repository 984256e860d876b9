package conformance

// One test per scheduler divergence of docs/compatibility.md, each running
// OCM v1.2.0's scheduling controller and placement.ScheduleHub on one
// hand-made hub and asserting both results. None is parallel: OCM reads
// package-level clocks.

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/placement"
)

// fourClusters are a and b in region us, c and d in eu, nothing else.
func fourClusters() []*clusterv1.ManagedCluster {
	return []*clusterv1.ManagedCluster{
		managedCluster("a", labelled("region", "us")), managedCluster("b", labelled("region", "us")),
		managedCluster("c", labelled("region", "eu")), managedCluster("d", labelled("region", "eu")),
	}
}

// groupClusters lists the clusters of each decision group, in index order.
func groupClusters(o scheduleOutcome) [][]string {
	var out [][]string
	for _, g := range o.Groups {
		out = append(out, g.Clusters)
	}
	return out
}

// S1: OCM evaluates CEL selectors; ours refuses a Placement that has one.
func TestScheduleDivergence_CELSelectorRefused(t *testing.T) {
	hc := hubCase{Now: hubNow, Hub: everySetHub("ns", fourClusters()...), Placement: newPlacement("ns", "p",
		predicate(nil, nil, `managedCluster.metadata.labels["region"] == "eu"`))}
	theirs := runOCMScheduler(hc)
	assert.Equal(t, [][]string{{"c", "d"}}, groupClusters(theirs))

	ours, res := runOurScheduler(hc)
	assert.Empty(t, celRefused(&hc, ours, res))
}

// S2: OCM's requeue for a toleration with tolerationSeconds counts only
// the clusters of the Placement's decisions before the sync: the sync that
// first selects a tolerated cluster does not requeue, the next one does.
// Ours says when at once.
func TestScheduleDivergence_RequeueFromTheFirstSync(t *testing.T) {
	hour := int64(3600)
	hc := hubCase{Now: hubNow, Hub: everySetHub("ns",
		managedCluster("a", tainted(clusterv1.ManagedClusterTaintUnreachable, "", clusterv1.TaintEffectNoSelect, hubNow.Add(-10*time.Minute))),
		managedCluster("b")),
		Placement: newPlacement("ns", "p", tolerating(clusterv1beta1.Toleration{
			Key: clusterv1.ManagedClusterTaintUnreachable, Operator: clusterv1beta1.TolerationOpExists, TolerationSeconds: &hour}))}
	theirs := runOCMScheduler(hc)
	assert.Equal(t, [][]string{{"a", "b"}}, groupClusters(theirs))
	assert.Zero(t, theirs.RecheckAfter, "OCM's first sync: no requeue")
	next := runOCMScheduler(nextSync(hc, theirs))
	assert.InDelta(t, 50*time.Minute, next.RecheckAfter, float64(time.Second), "OCM's next sync")

	ours, _ := runOurScheduler(hc)
	assert.Equal(t, groupClusters(theirs), groupClusters(ours))
	assert.Equal(t, 50*time.Minute, ours.RecheckAfter)
}

// S3: OCM never requeues when an AddOnPlacementScore it read expires; ours
// says when.
func TestScheduleDivergence_ScoreExpiryRequeues(t *testing.T) {
	until := hubNow.Add(20 * time.Minute)
	hub := everySetHub("ns", fourClusters()...)
	hub.Scores = append(hub.Scores, placementScore("a", "res", &until, "s", "90"), placementScore("b", "res", nil, "s", "50"))
	hc := hubCase{Now: hubNow, Hub: hub, Placement: newPlacement("ns", "p", numberOfClusters(1),
		prioritizerMode(clusterv1beta1.PrioritizerPolicyModeExact), addOnScore("res", "s", 1))}
	theirs := runOCMScheduler(hc)
	assert.Equal(t, [][]string{{"a"}}, groupClusters(theirs))
	assert.Zero(t, theirs.RecheckAfter)
	assert.Zero(t, runOCMScheduler(nextSync(hc, theirs)).RecheckAfter)

	ours, _ := runOurScheduler(hc)
	assert.Equal(t, [][]string{{"a"}}, groupClusters(ours))
	assert.Equal(t, 20*time.Minute, ours.RecheckAfter)
}

// S4: OCM v1.2.0 ignores spreadPolicy and keeps the best numberOfClusters
// by score (here all tie: name order); ours spreads them.
func TestScheduleDivergence_SpreadPolicy(t *testing.T) {
	hc := hubCase{Now: hubNow, Hub: everySetHub("ns", fourClusters()...), Placement: newPlacement("ns", "p", numberOfClusters(2),
		func(p *clusterv1beta1.Placement) {
			p.Spec.SpreadPolicy.SpreadConstraints = []clusterv1beta1.SpreadConstraintsTerm{{
				TopologyKey: "region", TopologyKeyType: clusterv1beta1.TopologyKeyTypeLabel, MaxSkew: 1,
				WhenUnsatisfiable: clusterv1beta1.DoNotSchedule}}
		})}
	theirs := runOCMScheduler(hc)
	assert.Equal(t, [][]string{{"a", "b"}}, groupClusters(theirs))

	ours, res := runOurScheduler(hc)
	require.NoError(t, ours.Err)
	assert.Equal(t, [][]string{{"a", "c"}}, groupClusters(ours))
	assert.Contains(t, warningKinds(res), placement.SpreadPolicy, "ours says OCM would choose otherwise")
}

// S6: OCM's controller does nothing for a Placement annotated
// cluster.open-cluster-management.io/experimental-scheduling-disable:
// "true" (another scheduler owns its decisions); ours schedules it.
func TestScheduleDivergence_SchedulingDisabled(t *testing.T) {
	hub := everySetHub("ns", fourClusters()...)
	hub.Decisions = append(hub.Decisions, decisionsOf("ns", "p", "p-decision-1", "a"))
	hc := hubCase{Now: hubNow, Hub: hub, Placement: newPlacement("ns", "p", func(p *clusterv1beta1.Placement) {
		p.Annotations = map[string]string{clusterv1beta1.PlacementDisableAnnotation: "true"}
	})}
	theirs := runOCMScheduler(hc)
	assert.Empty(t, theirs.Groups, "OCM writes no status")
	assert.Equal(t, "<none>", theirs.Satisfied.Reason)

	ours, _ := runOurScheduler(hc)
	assert.Equal(t, [][]string{{"a", "b", "c", "d"}}, groupClusters(ours))
}

// P1, P2, P6 (clustersPerDecisionGroup), on a whole hub.
func TestScheduleDivergence_ClustersPerDecisionGroup(t *testing.T) {
	var clusters []*clusterv1.ManagedCluster
	for i := range 25 {
		clusters = append(clusters, managedCluster(fmt.Sprintf("c%02d", i)))
	}
	sizes := func(o scheduleOutcome) []int32 {
		var out []int32
		for _, g := range o.Groups {
			out = append(out, g.Count)
		}
		return out
	}
	for _, c := range []struct {
		id              string
		value           intstr.IntOrString
		ocm, ours       []int32
		ocmMisconfigMsg string
	}{
		{id: "P1", value: intstr.FromString("28%"), ocm: []int32{8, 8, 8, 1}, ours: []int32{7, 7, 7, 4}},
		{id: "P2", value: intstr.FromString("150%"), ocm: []int32{25}},
		{id: "P6", value: intstr.FromString("3"), ocmMisconfigMsg: ":3 invalid type: string is not a percentage",
			ours: []int32{3, 3, 3, 3, 3, 3, 3, 3, 1}},
	} {
		hc := hubCase{Now: hubNow, Hub: everySetHub("ns", clusters...), Placement: newPlacement("ns", "p",
			groupStrategy(clusterv1beta1.GroupStrategy{ClustersPerDecisionGroup: c.value}))}
		theirs := runOCMScheduler(hc)
		ours, _ := runOurScheduler(hc)
		assert.Equal(t, c.ocm, sizes(theirs), c.id)
		assert.Equal(t, c.ours, sizes(ours), c.id)
		if c.ocmMisconfigMsg != "" {
			assert.Equal(t, c.ocmMisconfigMsg, theirs.Misconfig.Message, c.id)
			assert.Equal(t, metav1.ConditionFalse, ours.Misconfig.Status, c.id)
		}
		if c.ours == nil {
			assert.Error(t, ours.Err, c.id)
			assert.Equal(t, metav1.ConditionTrue, ours.Misconfig.Status, c.id)
		}
	}
}

func warningKinds(res placement.Result) []placement.WarningKind {
	var out []placement.WarningKind
	for _, w := range res.Warnings {
		out = append(out, w.Kind)
	}
	return out
}
