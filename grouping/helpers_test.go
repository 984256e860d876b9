package grouping_test

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// cl builds a cluster from "key=value" labels.
func cl(name string, labels ...string) grouping.Cluster {
	c := grouping.Cluster{Name: name}
	if len(labels) > 0 {
		c.Labels = kv(labels...)
	}
	return c
}

// withClaims adds "name=value" claims to c.
func withClaims(c grouping.Cluster, claims ...string) grouping.Cluster {
	c.Claims = kv(claims...)
	return c
}

func kv(pairs ...string) map[string]string {
	m := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return m
}

// byLabel is a decision group whose label selector is matchLabels key=value.
func byLabel(name, key, value string) clusterv1beta1.DecisionGroup {
	return clusterv1beta1.DecisionGroup{
		GroupName: name,
		ClusterSelector: clusterv1beta1.GroupClusterSelector{
			LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{key: value}},
		},
	}
}

// byExpr is a decision group with one label selector expression.
func byExpr(name, key string, op metav1.LabelSelectorOperator, values ...string) clusterv1beta1.DecisionGroup {
	return clusterv1beta1.DecisionGroup{
		GroupName: name,
		ClusterSelector: clusterv1beta1.GroupClusterSelector{
			LabelSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}},
		},
	}
}

// byClaim is a decision group with one claim selector expression.
func byClaim(name, key string, op metav1.LabelSelectorOperator, values ...string) clusterv1beta1.DecisionGroup {
	return clusterv1beta1.DecisionGroup{
		GroupName: name,
		ClusterSelector: clusterv1beta1.GroupClusterSelector{
			ClaimSelector: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}},
		},
	}
}

func strategy(length intstr.IntOrString, groups ...clusterv1beta1.DecisionGroup) clusterv1beta1.GroupStrategy {
	return clusterv1beta1.GroupStrategy{ClustersPerDecisionGroup: length, DecisionGroups: groups}
}

// seedStrategy is the seed's groupStrategy: dev, stg, prod by environment,
// 100% per group.
func seedStrategy() clusterv1beta1.GroupStrategy {
	return strategy(intstr.FromString("100%"),
		byLabel("dev", "environment", "dev"),
		byLabel("stg", "environment", "stg"),
		byLabel("prod", "environment", "prod"))
}

func group(name string, index int32, clusters ...string) grouping.Group {
	g := grouping.Group{GroupKey: grouping.GroupKey{Name: name, Index: index}}
	if len(clusters) > 0 {
		g.Clusters = clusters
	}
	return g
}

// numbered returns n clusters named prefix-000 ... with the labels given.
func numbered(prefix string, n int, labels ...string) []grouping.Cluster {
	out := make([]grouping.Cluster, n)
	for i := range out {
		out[i] = cl(fmt.Sprintf("%s-%03d", prefix, i), labels...)
	}
	return out
}

func names(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s-%03d", prefix, i))
	}
	return out
}

// apimachinery's details for a bad label key and a bad label value.
const (
	labelKeyDetail = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
		"(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	labelValueDetail = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
		"(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

// fieldErrors requires err to be one flat join of *field.Error values (or
// one of them), each naming its field and saying what is wrong, and
// returns them.
func fieldErrors(t *testing.T, err error) []*field.Error {
	t.Helper()
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	out := make([]*field.Error, len(errs))
	for i, e := range errs {
		fe, ok := e.(*field.Error)
		if !ok {
			t.Fatalf("problem %d, %q, is a %T, not a *field.Error", i, e, e)
		}
		if fe.Field == "" || fe.Detail == "" {
			t.Fatalf("problem %d, %q, does not name its field and what is wrong", i, e)
		}
		out[i] = fe
	}
	return out
}
