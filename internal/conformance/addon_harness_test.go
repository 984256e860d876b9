package conformance

// The add-on hub: the seed's cluster-proxy add-on on dev-cluster,
// stg-cluster and prod-cluster, run through OCM's add-on manager
// (open-cluster-management.io/ocm v1.2.0, its addon-configuration
// controller over fake clientsets and informers, as OCM's own
// controller_test.go builds it) and through rolloutkit's rollout/addon.

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	testingclock "k8s.io/utils/clock/testing"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	fakeaddon "open-cluster-management.io/api/client/addon/clientset/versioned/fake"
	addoninformers "open-cluster-management.io/api/client/addon/informers/externalversions"
	addoninformersv1alpha1 "open-cluster-management.io/api/client/addon/informers/externalversions/addon/v1alpha1"
	fakecluster "open-cluster-management.io/api/client/cluster/clientset/versioned/fake"
	clusterinformers "open-cluster-management.io/api/client/cluster/informers/externalversions"
	clusterinformersv1beta1 "open-cluster-management.io/api/client/cluster/informers/externalversions/cluster/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"open-cluster-management.io/ocm/pkg/addon/controllers/addonconfiguration"
	addonindex "open-cluster-management.io/ocm/pkg/addon/index"
	ocm "open-cluster-management.io/sdk-go/pkg/apis/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/placement"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

const addonName = "cluster-proxy"

var (
	proxyGR       = addonv1alpha1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	proxyReferent = addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}
	seedPlacement = addonv1alpha1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}
)

// addonHub is what the hub's API server holds, in the v1alpha1 form OCM
// v1.2.0's add-on manager reads.
type addonHub struct {
	cma        *addonv1alpha1.ClusterManagementAddOn
	mcas       []*addonv1alpha1.ManagedClusterAddOn
	placement  *clusterv1beta1.Placement
	decisions  []*clusterv1beta1.PlacementDecision
	configHash string // spec hash of the seed's ManagedProxyConfiguration
}

// seedAddonHub returns the seed's hub after the add-on of each cluster has
// applied the ClusterManagementAddOn's default config, an hour before now:
// desiredConfig == lastAppliedConfig, Progressing Completed. The add-ons of
// the clusters named in custom list that same config in their own
// spec.configs.
func seedAddonHub(t *testing.T, now time.Time, strategy clusterv1alpha1.RolloutStrategy, custom ...string) addonHub {
	t.Helper()
	p, err := seed.ScheduledPlacement()
	require.NoError(t, err)
	decisions, err := seed.PlacementDecisions()
	require.NoError(t, err)
	cfg, err := seed.ManagedProxyConfiguration()
	require.NoError(t, err)
	h := addonHub{placement: p, decisions: decisions}
	h.configHash, err = hash.Spec(cfg)
	require.NoError(t, err)
	h.cma = h.clusterManagementAddOn(strategy)

	isCustom := make(map[string]bool, len(custom))
	for _, c := range custom {
		isCustom[c] = true
	}
	applied := metav1.NewTime(now.Add(-time.Hour))
	for _, d := range decisions {
		for _, dec := range d.Status.Decisions {
			h.mcas = append(h.mcas, h.appliedAddon(dec.ClusterName, applied, isCustom[dec.ClusterName]))
			delete(isCustom, dec.ClusterName)
		}
	}
	require.Len(t, h.mcas, 3, "the seed's clusters")
	require.Empty(t, isCustom, "custom: want clusters of the seed")
	return h
}

// desired is the config every add-on should run with.
func (h addonHub) desired() *addonv1alpha1.ConfigSpecHash {
	return &addonv1alpha1.ConfigSpecHash{ConfigReferent: proxyReferent, SpecHash: h.configHash}
}

// clusterManagementAddOn is the seed's ClusterManagementAddOn in v1alpha1,
// with the status OCM's other add-on controllers write before this one
// reads it: the default config's spec hash, and an install progression for
// the placement that carries it.
func (h addonHub) clusterManagementAddOn(strategy clusterv1alpha1.RolloutStrategy) *addonv1alpha1.ClusterManagementAddOn {
	def := proxyReferent
	return &addonv1alpha1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{
			Name:        addonName,
			Annotations: map[string]string{addonv1alpha1.AddonLifecycleAnnotationKey: addonv1alpha1.AddonLifecycleAddonManagerAnnotationValue},
		},
		Spec: addonv1alpha1.ClusterManagementAddOnSpec{
			AddOnMeta:        addonv1alpha1.AddOnMeta{DisplayName: addonName, Description: addonName},
			SupportedConfigs: []addonv1alpha1.ConfigMeta{{ConfigGroupResource: proxyGR, DefaultConfig: &def}},
			InstallStrategy: addonv1alpha1.InstallStrategy{
				Type:       addonv1alpha1.AddonInstallStrategyPlacements,
				Placements: []addonv1alpha1.PlacementStrategy{{PlacementRef: seedPlacement, RolloutStrategy: strategy}},
			},
		},
		Status: addonv1alpha1.ClusterManagementAddOnStatus{
			DefaultConfigReferences: []addonv1alpha1.DefaultConfigReference{{ConfigGroupResource: proxyGR, DesiredConfig: h.desired()}},
			InstallProgressions: []addonv1alpha1.InstallProgression{{
				PlacementRef:     seedPlacement,
				ConfigReferences: []addonv1alpha1.InstallConfigReference{{ConfigGroupResource: proxyGR, DesiredConfig: h.desired()}},
			}},
		},
	}
}

// appliedAddon is the add-on of cluster after its agent applied the desired
// config at applied. Its Configured condition is already true, so OCM's
// controller has nothing to write to it.
func (h addonHub) appliedAddon(cluster string, applied metav1.Time, custom bool) *addonv1alpha1.ManagedClusterAddOn {
	mca := &addonv1alpha1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: addonName, Namespace: cluster},
		Status: addonv1alpha1.ManagedClusterAddOnStatus{
			ConfigReferences: []addonv1alpha1.ConfigReference{{
				ConfigGroupResource: proxyGR,
				ConfigReferent:      proxyReferent,
				DesiredConfig:       h.desired(),
				LastAppliedConfig:   h.desired(),
			}},
			Conditions: []metav1.Condition{{
				Type: addonv1alpha1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse,
				Reason: addonv1alpha1.ProgressingReasonCompleted, Message: "completed with no errors.",
				LastTransitionTime: applied,
			}, {
				Type: addonv1alpha1.ManagedClusterAddOnConditionConfigured, Status: metav1.ConditionTrue,
				Reason: "ConfigurationsConfigured", Message: "Configurations configured",
				LastTransitionTime: applied,
			}},
		},
	}
	if custom {
		mca.Spec.Configs = []addonv1alpha1.AddOnConfig{{ConfigGroupResource: proxyGR, ConfigReferent: proxyReferent}}
	}
	return mca
}

// runOCMAddonManager runs one sync of OCM v1.2.0's addon-configuration
// controller at now and returns the install progression it leaves in the
// ClusterManagementAddOn's status, and the names of the objects it wrote.
//
// The rollout inside reads the package-level RolloutClock, which this sets
// for the call and restores: callers must not run in parallel.
func runOCMAddonManager(t *testing.T, now time.Time, h addonHub) (addonv1alpha1.InstallProgression, []string) {
	t.Helper()
	cma, _, wrote, err := syncOCMAddonManager(t, now, h)
	require.NoError(t, err)
	require.Len(t, cma.Status.InstallProgressions, 1)
	return cma.Status.InstallProgressions[0], wrote
}

// syncOCMAddonManager runs one sync of OCM v1.2.0's addon-configuration
// controller at now and returns the ClusterManagementAddOn and the
// ManagedClusterAddOns as it left them, the names of the objects it wrote,
// and the sync's error. h.placement may
// be nil: the hub then has no Placement.
//
// The rollout inside reads the package-level RolloutClock, which this sets
// for the call and restores: callers must not run in parallel.
func syncOCMAddonManager(t *testing.T, now time.Time, h addonHub) (*addonv1alpha1.ClusterManagementAddOn, []addonv1alpha1.ManagedClusterAddOn, []string, error) {
	t.Helper()
	prev := ocm.RolloutClock
	ocm.RolloutClock = testingclock.NewFakeClock(now)
	defer func() { ocm.RolloutClock = prev }()

	addonObjs := []runtime.Object{h.cma.DeepCopy()}
	for _, mca := range h.mcas {
		addonObjs = append(addonObjs, mca.DeepCopy())
	}
	var clusterObjs []runtime.Object
	if h.placement != nil {
		clusterObjs = append(clusterObjs, h.placement.DeepCopy())
	}
	for _, d := range h.decisions {
		clusterObjs = append(clusterObjs, d.DeepCopy())
	}
	in := newOCMAddonInformers(t, addonObjs, clusterObjs)
	addonClient := in.addonClient

	// The hub's manager filters on the lifecycle annotation
	// (addon-framework's utils.ManagedByAddonManager); the seed's
	// ClusterManagementAddOn carries it, so every object passes here.
	everything := func(any) bool { return true }
	ctrl := addonconfiguration.NewAddonConfigurationController(addonClient, in.mcas, in.cmas, in.placements, in.decisions, everything)
	ctx := context.Background()
	addonClient.ClearActions()
	syncErr := ctrl.Sync(ctx, ctrl.SyncContext(), addonName)

	var wrote []string
	for _, a := range addonClient.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			wrote = append(wrote, a.GetVerb()+" "+a.GetResource().Resource+"/"+a.GetSubresource())
		}
	}
	cma, err := addonClient.AddonV1alpha1().ClusterManagementAddOns().Get(ctx, addonName, metav1.GetOptions{})
	require.NoError(t, err)
	mcas, err := addonClient.AddonV1alpha1().ManagedClusterAddOns("").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	return cma, mcas.Items, wrote, syncErr
}

// ocmAddonInformers are the fake clientset and the informers OCM's add-on
// manager controllers are built on, their stores filled by hand (the
// informers are not started), as OCM's own tests do, so that one sync sees
// exactly the objects given.
type ocmAddonInformers struct {
	addonClient *fakeaddon.Clientset
	mcas        addoninformersv1alpha1.ManagedClusterAddOnInformer
	cmas        addoninformersv1alpha1.ClusterManagementAddOnInformer
	placements  clusterinformersv1beta1.PlacementInformer
	decisions   clusterinformersv1beta1.PlacementDecisionInformer
}

// newOCMAddonInformers holds addonObjs (ClusterManagementAddOns and
// ManagedClusterAddOns) and clusterObjs (Placements and
// PlacementDecisions), with the indexers OCM's add-on manager adds.
func newOCMAddonInformers(t *testing.T, addonObjs, clusterObjs []runtime.Object) ocmAddonInformers {
	t.Helper()
	in := ocmAddonInformers{addonClient: fakeaddon.NewSimpleClientset(addonObjs...)}
	addonInformers := addoninformers.NewSharedInformerFactory(in.addonClient, 10*time.Minute)
	clusterInformers := clusterinformers.NewSharedInformerFactory(fakecluster.NewSimpleClientset(clusterObjs...), 10*time.Minute)
	in.mcas = addonInformers.Addon().V1alpha1().ManagedClusterAddOns()
	require.NoError(t, in.mcas.Informer().AddIndexers(cache.Indexers{
		addonindex.ManagedClusterAddonByName: addonindex.IndexManagedClusterAddonByName,
	}))
	in.cmas = addonInformers.Addon().V1alpha1().ClusterManagementAddOns()
	require.NoError(t, in.cmas.Informer().AddIndexers(cache.Indexers{
		addonindex.ClusterManagementAddonByPlacement: addonindex.IndexClusterManagementAddonByPlacement,
	}))
	in.placements = clusterInformers.Cluster().V1beta1().Placements()
	in.decisions = clusterInformers.Cluster().V1beta1().PlacementDecisions()
	for _, o := range addonObjs {
		if _, ok := o.(*addonv1alpha1.ClusterManagementAddOn); ok {
			require.NoError(t, in.cmas.Informer().GetStore().Add(o))
		} else {
			require.NoError(t, in.mcas.Informer().GetStore().Add(o))
		}
	}
	for _, o := range clusterObjs {
		if _, ok := o.(*clusterv1beta1.Placement); ok {
			require.NoError(t, in.placements.Informer().GetStore().Add(o))
		} else {
			require.NoError(t, in.decisions.Informer().GetStore().Add(o))
		}
	}
	return in
}

// betaObjects are h's ClusterManagementAddOn and ManagedClusterAddOns
// converted to v1beta1, as the API server serves them.
func (h addonHub) betaObjects(t *testing.T) (*addonv1beta1.ClusterManagementAddOn, []*addonv1beta1.ManagedClusterAddOn) {
	t.Helper()
	cma := &addonv1beta1.ClusterManagementAddOn{}
	require.NoError(t, addonv1beta1.Convert_v1alpha1_ClusterManagementAddOn_To_v1beta1_ClusterManagementAddOn(h.cma.DeepCopy(), cma, nil))
	mcas := make([]*addonv1beta1.ManagedClusterAddOn, len(h.mcas))
	for i, in := range h.mcas {
		mcas[i] = &addonv1beta1.ManagedClusterAddOn{}
		require.NoError(t, addonv1beta1.Convert_v1alpha1_ManagedClusterAddOn_To_v1beta1_ManagedClusterAddOn(in.DeepCopy(), mcas[i], nil))
	}
	return cma, mcas
}

// runOurAddon runs rolloutkit on the same objects, converted to v1beta1 as
// the API server serves them: Evaluate, Plan, Tally, and the install
// progression entry of the placement.
func runOurAddon(t *testing.T, now time.Time, h addonHub) (addonv1beta1.InstallProgression, []addon.Cluster) {
	t.Helper()
	cma, mcas := h.betaObjects(t)
	ref := addonv1beta1.PlacementRef{Namespace: seedPlacement.Namespace, Name: seedPlacement.Name}
	specHash := func(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) (string, error) {
		require.Equal(t, addonv1beta1.ConfigGroupResource(proxyGR), gr)
		require.Equal(t, addonv1beta1.ConfigReferent(proxyReferent), r)
		return h.configHash, nil
	}

	groups, err := placement.GroupsFromDecisions(h.decisions)
	require.NoError(t, err)
	addons, err := addon.Evaluate(cma, ref, mcas, specHash)
	require.NoError(t, err)
	strategy := cma.Spec.InstallStrategy.Placements[0].RolloutStrategy
	res, err := rollout.Planner{Clock: testingclock.NewFakeClock(now)}.Plan(strategy, groups, addon.Statuses(addons))
	require.NoError(t, err)
	desired, err := addon.PlacementConfigs(cma, ref, specHash)
	require.NoError(t, err)
	ip := addon.InstallProgression(cma.Status.InstallProgressions, ref, desired, addon.Tally(groups, addons, res), fake.New(now))
	return ip, addons
}
