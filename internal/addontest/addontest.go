package addontest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Spec hashes of the seed's ManagedProxyConfiguration and of its edits,
// and the image tag of the edit.
const (
	OldHash = "27341f6bf06bf9d2cf6f41076a6268f1fda70673eb53f5bed546ff24ea9402c1" // seed: both images vX.Y.Z
	NewHash = "d2c1bae8a01bb424ec2bd6b3cb5bb3692dd3faab365996ce6b2d89a4d339b222" // Helm upgrade: both images v1.2.3
	NewTag  = "quay.io/open-cluster-management/cluster-proxy:v1.2.3"
)

// PlanNow is the time the tests plan at.
var PlanNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// ProxyGR is the ManagedProxyConfiguration's group and resource.
func ProxyGR() addonv1beta1.ConfigGroupResource {
	return addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
}

// ProxyReferent is the seed's ManagedProxyConfiguration.
func ProxyReferent() addonv1beta1.ConfigReferent {
	return addonv1beta1.ConfigReferent{Name: "cluster-proxy"}
}

// SeedPlacement is the seed's install-strategy placement.
func SeedPlacement() addonv1beta1.PlacementRef {
	return addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}
}

// SeedCMA is the seed's cluster-proxy ClusterManagementAddOn.
func SeedCMA(t testing.TB) *addonv1beta1.ClusterManagementAddOn {
	t.Helper()
	cma, err := seed.ClusterManagementAddOn()
	require.NoError(t, err)
	return cma
}

// SeedGroups are the seed's decision groups, one cluster each.
func SeedGroups() []grouping.Group {
	return []grouping.Group{
		{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
		{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
	}
}

// PlacementObject is a Placement named ref with clustersPerDecisionGroup
// cpg.
func PlacementObject(ref addonv1beta1.PlacementRef, cpg intstr.IntOrString) *clusterv1beta1.Placement {
	p := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}}
	p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup = cpg
	return p
}

// EmptyAddon is an add-on as OCM's add-on manager creates it: no status.
func EmptyAddon(cluster string) *addonv1beta1.ManagedClusterAddOn {
	return &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "cluster-proxy"}}
}

// AppliedAddon has applied the config with spec hash h and completed at
// done.
func AppliedAddon(cluster, h string, done time.Time) *addonv1beta1.ManagedClusterAddOn {
	m := EmptyAddon(cluster)
	sh := &addonv1beta1.ConfigSpecHash{ConfigReferent: ProxyReferent(), SpecHash: h}
	m.Status.ConfigReferences = []addonv1beta1.ConfigReference{{ConfigGroupResource: ProxyGR(), DesiredConfig: sh, LastAppliedConfig: sh.DeepCopy()}}
	m.Status.Conditions = []metav1.Condition{
		{Type: "Progressing", Status: metav1.ConditionFalse, Reason: "Completed", LastTransitionTime: metav1.NewTime(done)},
		{Type: "Configured", Status: metav1.ConditionTrue, Reason: addon.ReasonConfigured, Message: "Configurations configured", LastTransitionTime: metav1.NewTime(done)},
	}
	return m
}

// StartingNow are the clusters res starts now.
func StartingNow(res rollout.Result) []string {
	var out []string
	for _, c := range res.Starting() {
		out = append(out, c.Cluster)
	}
	return out
}

// Condition is the condition of type typ in conds; zero when there is
// none.
func Condition(conds []metav1.Condition, typ string) metav1.Condition {
	for _, c := range conds {
		if c.Type == typ {
			return c
		}
	}
	return metav1.Condition{}
}

// Names returns a SpecHashFunc that answers "h-<resource>-<name>" for any
// config.
func Names() addon.SpecHashFunc {
	return func(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) (string, error) {
		return "h-" + gr.Resource + "-" + r.Name, nil
	}
}
