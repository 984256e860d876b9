package conformance

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/placement"
)

// pluginCase is a case of a plugin's test: the clusters it is given are
// the candidates of Placement test/test (bound through the global set),
// with the Placement's own decisions listing decided.
func pluginCase(now time.Time, p *clusterv1beta1.Placement, clusters []*clusterv1.ManagedCluster, decided ...string) hubCase {
	hub := everySetHub("test", clusters...)
	if len(decided) > 0 {
		hub.Decisions = append(hub.Decisions, decisionsOf("test", "test", "test", decided...))
	}
	return hubCase{Now: now, Placement: p, Hub: hub}
}

// refusesCEL is S1 on ours: the Placement is an error naming the field.
func refusesCEL(t *testing.T, hc hubCase, ours scheduleOutcome, res placement.Result) {
	assert.Empty(t, celRefused(&hc, ours, res))
}

// predicateCases are TestMatchWithClusterPredicates's cases
// (plugins/predicate/predicate_test.go).
func predicateCases() []portedCase {
	from := "predicate_test.go TestMatchWithClusterPredicates/"
	in := func(key string, values ...string) []metav1.LabelSelectorRequirement {
		return []metav1.LabelSelectorRequirement{{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}}
	}
	c := managedCluster
	run := func(p *clusterv1beta1.Placement, clusters ...*clusterv1.ManagedCluster) hubCase {
		return pluginCase(hubNow, p, clusters)
	}
	pl := func(opts ...placementOption) *clusterv1beta1.Placement { return newPlacement("test", "test", opts...) }
	cases := []portedCase{
		{from: "match with label", hc: run(pl(predicate(matchLabels("cloud", "Amazon"), nil)),
			c("cluster1", labelled("cloud", "Amazon")), c("cluster2", labelled("cloud", "Google"))), selected: []string{"cluster1"}},
		{from: "match with claim", hc: run(pl(predicate(nil, in("cloud", "Amazon"))),
			c("cluster1", claimed("cloud", "Amazon")), c("cluster2", claimed("cloud", "Google"))), selected: []string{"cluster1"}},
		{from: "match with both label and claim", hc: run(pl(predicate(matchLabels("cloud", "Amazon"), in("region", "us-east-1"))),
			c("cluster1", labelled("cloud", "Amazon"), claimed("region", "us-east-1")),
			c("cluster2", labelled("cloud", "Amazon"), claimed("region", "us-east-2"))), selected: []string{"cluster1"}},
		{from: "match with multiple predicates", hc: run(pl(predicate(matchLabels("cloud", "Amazon"), nil), predicate(nil, in("region", "us-east-1"))),
			c("cluster1", labelled("cloud", "Amazon")), c("cluster2", claimed("region", "us-east-1")), c("cluster3", claimed("region", "us-east-2"))),
			selected: []string{"cluster1", "cluster2"}},
		{from: "match with CEL expression on labels", hc: run(pl(predicate(nil, nil, `managedCluster.metadata.labels["region"] == "us-east-1"`)),
			c("cluster1", labelled("region", "us-east-1")), c("cluster2", labelled("region", "us-west-1"))), selected: []string{"cluster1"}},
		{from: "match with CEL expression on claims", hc: run(pl(predicate(nil, nil, `managedCluster.status.clusterClaims.exists(c, c.name == "cloud" && c.value == "Amazon")`)),
			c("cluster1", claimed("cloud", "Amazon")), c("cluster2", claimed("cloud", "Google"))), selected: []string{"cluster1"}},
		{from: "match with CEL score expression", hc: withTestScores(run(pl(predicate(nil, nil,
			`managedCluster.scores("test-addon").filter(s, s.name == 'test-score').all(e, e.value > 80)`)), c("cluster1"), c("cluster2"))),
			selected: []string{"cluster1"}},
		{from: "match with multiple CEL expressions", hc: withTestScores(run(pl(predicate(nil, nil, `managedCluster.metadata.labels["env"] == "prod"`,
			`managedCluster.scores("test-addon").filter(s, s.name == 'test-score').all(e, e.value > 80)`)),
			c("cluster1", labelled("env", "prod")), c("cluster2", labelled("env", "prod")))), selected: []string{"cluster1"}},
		{from: "match with CEL expression and other selectors", hc: run(pl(predicate(matchLabels("env", "prod"), nil,
			`managedCluster.status.clusterClaims.exists(c, c.name == "cloud" && c.value == "Amazon")`)),
			c("cluster1", labelled("env", "prod"), claimed("cloud", "Amazon")), c("cluster2", labelled("env", "prod"), claimed("cloud", "Azure"))),
			selected: []string{"cluster1"}},
		{from: "invalid CEL expression", hc: run(pl(predicate(nil, nil, `invalid.expression`)), c("cluster1")),
			misconfigured: "Predicate:compilation failed: ERROR: <input>:1:1: undeclared reference to 'invalid' (in container '')\n | invalid.expression\n | ^",
			satisfied:     "NoManagedClusterMatched"},
		{from: "empty CEL expressions", hc: run(pl(predicate(nil, nil)), c("cluster1")), selected: []string{"cluster1"}},
	}
	for i := range cases {
		cases[i].from = from + cases[i].from
		if usesCEL(&cases[i].hc, scheduleOutcome{}) {
			cases[i].divergence, cases[i].ours = "S1", refusesCEL
		}
	}
	return cases
}

// withTestScores adds the AddOnPlacementScores test-addon of the predicate
// test's score cases.
func withTestScores(hc hubCase) hubCase {
	hc.Hub.Scores = append(hc.Hub.Scores, placementScore("cluster1", "test-addon", nil, "test-score", "90"),
		placementScore("cluster2", "test-addon", nil, "test-score", "70"))
	return hc
}
