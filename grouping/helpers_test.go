package grouping_test

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
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
