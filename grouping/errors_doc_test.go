package grouping_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// TestErrorsDocExamples: every example docs/errors.md gives of grouping's
// errors is the text of a real one (up to a "..." where the doc cuts
// apimachinery's long text short).
func TestErrorsDocExamples(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/errors.md")
	require.NoError(t, err)
	divide := func(gs clusterv1beta1.GroupStrategy, clusters ...grouping.Cluster) error {
		_, err := grouping.Divide(gs, clusters)
		return err
	}
	tests := []struct {
		err  error
		want string
	}{
		{divide(strategy(intstr.FromString("150%"))),
			`clustersPerDecisionGroup: Invalid value: "150%": want a positive integer or a percentage 1%-100%`},
		{divide(strategy(intstr.FromInt32(-3))),
			`clustersPerDecisionGroup: Invalid value: -3: want a positive integer or a percentage 1%-100%`},
		{divide(strategy(intstr.IntOrString{}, byLabel("dev", "environment", "dev"), byExpr("stg", "environment", "Equals", "stg"))),
			`decisionGroups[1].groupClusterSelector.labelSelector.matchExpressions[0].operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"`},
		{divide(strategy(intstr.IntOrString{}, byExpr("dev", "environment", metav1.LabelSelectorOpIn))),
			"decisionGroups[0].groupClusterSelector.labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"},
		{divide(strategy(intstr.IntOrString{}, byClaim("aws", "platform", metav1.LabelSelectorOpExists, "AWS"))),
			"decisionGroups[0].groupClusterSelector.claimSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"},
		{divide(strategy(intstr.IntOrString{}, byLabel("dev", "environment", "not ok!"))),
			`decisionGroups[0].groupClusterSelector.labelSelector.matchLabels[environment]: Invalid value: "not ok!": a valid label must be an empty string or consist of alphanumeric characters, ...`},
		{divide(strategy(intstr.IntOrString{}, byExpr("dev", "bad key!", metav1.LabelSelectorOpExists))),
			`decisionGroups[0].groupClusterSelector.labelSelector.matchExpressions[0].key: Invalid value: "bad key!": name part must consist of alphanumeric characters, ...`},
		{divide(seedStrategy(), cl("a"), cl("b"), cl("c"), cl("")),
			`clusters[3].Name: Required value: a cluster name`},
		{divide(seedStrategy(), cl("dev-cluster"), cl("a"), cl("b"), cl("c"), cl("dev-cluster")),
			`clusters[4].Name: Duplicate value: "dev-cluster": want each cluster once (clusters[0] has it too)`},
	}
	for _, tt := range tests {
		assert.Contains(t, string(doc), tt.want, "docs/errors.md does not give this example")
		assert.True(t, documents(tt.err, tt.want), "no problem of %q reads as the example %q", tt.err, tt.want)
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
