package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"open-cluster-management.io/addon-framework/pkg/addonmanager/controllers/cmamanagedby"
	"open-cluster-management.io/addon-framework/pkg/agent"
	"open-cluster-management.io/addon-framework/pkg/utils"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	fakeaddon "open-cluster-management.io/api/client/addon/clientset/versioned/fake"
	addoninformers "open-cluster-management.io/api/client/addon/informers/externalversions"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// handoverCMA is the ClusterManagementAddOn cluster-proxy with the
// lifecycle annotation set to value, or without annotations when value is
// "<none>".
func handoverCMA(value string) *addonv1alpha1.ClusterManagementAddOn {
	cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}}
	if value != "<none>" {
		cma.Annotations = map[string]string{addonv1alpha1.AddonLifecycleAnnotationKey: value}
	}
	return cma
}

// stubAgent is an add-on registered with addon-framework's manager; its
// manifests are never asked for here.
type stubAgent struct{ name string }

func (s stubAgent) Manifests(*clusterv1.ManagedCluster, *addonv1alpha1.ManagedClusterAddOn) ([]runtime.Object, error) {
	return nil, nil
}

func (s stubAgent) GetAgentAddonOptions() agent.AgentAddonOptions {
	return agent.AgentAddonOptions{AddonName: s.name}
}

// TestHandover shows from OCM's and addon-framework's own code which
// ClusterManagementAddOns each takes, by the annotation
// addon.open-cluster-management.io/lifecycle:
//
//   - OCM v1.2.0's add-on manager (pkg/addon/manager.go) gives
//     utils.ManagedByAddonManager of addon-framework v1.2.0 to each of its
//     controllers (addonmanagement, addonconfiguration, addonowner,
//     addonprogressing, cmainstallprogression). It takes a
//     ClusterManagementAddOn with no annotation or with "addon-manager".
//   - addon-framework v1.2.0 has no utils.ManagedBySelf, and no
//     self-managed install or rollout: its manager's only controller that
//     reads the annotation, cmamanagedby, clears the value "self" (to "",
//     which OCM's filter refuses too) and leaves any other value alone. Its
//     agentdeploy and registration controllers filter by registered
//     add-on name (utils.FilterByAddonName, utils.AllowAllAddOns) and so
//     render the works of a registered add-on whatever the annotation says.
//
// So "rolloutkit" is taken by neither for its lifecycle, while
// addon-framework still renders its works from the desired configs: OCM's
// addonprogressing controller, run with the add-on manager's filter on an
// add-on whose ClusterManagementAddOn says "rolloutkit", writes nothing.
func TestHandover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value         string
		addonManager  bool // utils.ManagedByAddonManager
		clearedToNone bool // cmamanagedby rewrites the value to ""
	}{
		{value: "<none>", addonManager: true},
		{value: addonv1alpha1.AddonLifecycleAddonManagerAnnotationValue, addonManager: true},
		{value: addonv1alpha1.AddonLifecycleSelfManageAnnotationValue, clearedToNone: true},
		{value: "rolloutkit"},
		{value: ""},
	}
	agents := map[string]agent.AgentAddon{"cluster-proxy": stubAgent{name: "cluster-proxy"}}
	for _, tt := range tests {
		name := tt.value
		if name == "" {
			name = "empty value"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cma := handoverCMA(tt.value)
			assert.Equal(t, tt.addonManager, utils.ManagedByAddonManager(cma), "OCM's add-on manager (utils.ManagedByAddonManager)")
			assert.True(t, utils.FilterByAddonName(agents)(cma), "addon-framework's manager takes every registered add-on for rendering")

			got := runCMAManagedBy(t, cma, agents)
			if tt.clearedToNone {
				assert.Equal(t, map[string]string{addonv1alpha1.AddonLifecycleAnnotationKey: ""}, got.Annotations, "cmamanagedby clears self")
				assert.False(t, utils.ManagedByAddonManager(got), "and OCM's filter does not take the cleared value either")
			} else {
				assert.Equal(t, cma.Annotations, got.Annotations, "cmamanagedby leaves %q alone", tt.value)
			}
		})
	}

	t.Run("OCM's addonprogressing skips a rolloutkit add-on", func(t *testing.T) {
		t.Parallel()
		pc := handoverAddon()
		for value, writes := range map[string]bool{"rolloutkit": false, "self": false, "<none>": true, "addon-manager": true} {
			pc.CMA = handoverCMA(value)
			o := runOCMProgressingWith(pc, utils.ManagedByAddonManager)
			require.NoError(t, o.Err, value)
			assert.Equal(t, writes, o.Wrote, "lifecycle %q: OCM's addonprogressing writes", value)
		}
	})
}

// handoverAddon is an add-on of cluster1 with a rendered, ready work:
// OCM's addonprogressing would mark it Completed.
func handoverAddon() progressingCase {
	mca := &addonv1alpha1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: "cluster1", Name: "cluster-proxy"},
		Status: addonv1alpha1.ManagedClusterAddOnStatus{Conditions: []metav1.Condition{
			{Type: addonv1alpha1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionTrue, Reason: "AddonManifestApplied"},
		}},
	}
	work := &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{Namespace: "cluster1", Name: "addon-cluster-proxy-deploy-0",
			Labels: map[string]string{addonv1alpha1.AddonLabelKey: "cluster-proxy"}},
		Status: workv1.ManifestWorkStatus{Conditions: []metav1.Condition{
			{Type: workv1.WorkApplied, Status: metav1.ConditionTrue},
			{Type: workv1.WorkAvailable, Status: metav1.ConditionTrue},
		}},
	}
	return progressingCase{MCA: mca, Works: []*workv1.ManifestWork{work}}
}

// runCMAManagedBy runs one sync of addon-framework v1.2.0's cmamanagedby
// controller, as its manager builds it, on cma and returns the
// ClusterManagementAddOn it leaves.
func runCMAManagedBy(t *testing.T, cma *addonv1alpha1.ClusterManagementAddOn, agents map[string]agent.AgentAddon) *addonv1alpha1.ClusterManagementAddOn {
	t.Helper()
	client := fakeaddon.NewSimpleClientset(cma.DeepCopy())
	informers := addoninformers.NewSharedInformerFactory(client, 10*time.Minute)
	cmas := informers.Addon().V1alpha1().ClusterManagementAddOns()
	require.NoError(t, cmas.Informer().GetStore().Add(cma.DeepCopy()))
	ctrl := cmamanagedby.NewCMAManagedByController(client, cmas, agents, utils.FilterByAddonName(agents))
	defer ctrl.SyncContext().Queue().ShutDown()
	ctx := klog.NewContext(context.Background(), logr.Discard())
	require.NoError(t, ctrl.Sync(ctx, recordingSyncContext{queue: &requeueRecorder{}}, cma.Name))
	got, err := client.AddonV1alpha1().ClusterManagementAddOns().Get(ctx, cma.Name, metav1.GetOptions{})
	require.NoError(t, err)
	return got
}
