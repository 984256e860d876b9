package addons

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/clock"
	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// newAddonReconciler returns an AddonReconciler of the hub as SetupWithManager
// would make it, without a manager: config kinds are mapped by the hub's
// mapper and never watched.
func newAddonReconciler(h *hubtest.AddonHub, clk clock.PassiveClock, rec events.EventRecorder, lifecycles ...string) *AddonReconciler {
	return &AddonReconciler{Client: h.Client, Clock: clk, Recorder: rec, Version: h.Version, Lifecycles: lifecycles,
		api: h.API, phases: newPhaseLog(), rollouts: true,
		configs: newConfigWatches(h.Client, h.Mapper, func(schema.GroupVersionKind) error { return nil }, nil)}
}

// reconcileAddon runs one reconcile of the ClusterManagementAddOn name.
func reconcileAddon(r *AddonReconciler, name string) (ctrl.Result, error) {
	return r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Name: name}})
}

// TestAddonReconcileLifecycle: the controller takes a ClusterManagementAddOn
// only when its lifecycle annotation is one of the values it is given
// (rolloutkit when none), so that it never fights OCM's add-on manager
// (addon-manager, or no annotation) or addon-framework (self). One
// it does not take is not read into a plan: no add-on is created and
// nothing is written.
func TestAddonReconcileLifecycle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		annotation string // "" for none
		lifecycles []string
		taken      bool
	}{
		{name: "rolloutkit, by default", annotation: hubclient.DefaultLifecycle, taken: true},
		{name: "addon-manager: OCM's add-on manager's", annotation: "addon-manager"},
		{name: "self: the add-on's own", annotation: "self"},
		{name: "no annotation: OCM's add-on manager's", annotation: ""},
		{name: "no annotation, when the controller is given addon-manager", annotation: "", lifecycles: []string{"addon-manager"}, taken: true},
		{name: "self, when the controller is given addon-manager", annotation: "self", lifecycles: []string{"addon-manager"}},
		{name: "addon-manager, when the controller is given it", annotation: "addon-manager", lifecycles: []string{"addon-manager"}, taken: true},
		{name: "rolloutkit, when the controller is given only addon-manager", annotation: hubclient.DefaultLifecycle, lifecycles: []string{"addon-manager"}},
	} {
		for _, version := range hubtest.AddonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				h := hubtest.NewAddonHub(t, version, nil, hubtest.HubObjects(
					[]client.Object{hubtest.SeedAddon(t, tc.annotation), hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")}, hubtest.SeedPlacement(t))...)
				before := h.ResourceVersions()
				rec := events.NewFakeRecorder(10)
				res, err := reconcileAddon(newAddonReconciler(h, clockfake.New(hubtest.Start), rec, tc.lifecycles...), hubtest.SeedAddonName)
				require.NoError(t, err)
				if !tc.taken {
					assert.Zero(t, res)
					assert.Empty(t, h.AddonClusters(hubtest.SeedAddonName), "add-ons were created")
					assert.Zero(t, h.Writes.Load(), "something was written")
					assert.Equal(t, before, h.ResourceVersions())
					assert.Empty(t, h.CMA(hubtest.SeedAddonName).Status.InstallProgressions)
					assert.Empty(t, rec.Events)
					return
				}
				assert.ElementsMatch(t, hubtest.SeedClusters, h.AddonClusters(hubtest.SeedAddonName))
				_, cond := hubtest.ProgressionOf(t, h.CMA(hubtest.SeedAddonName), hubtest.SeedRef)
				require.NotNil(t, cond)
			})
		}
	}
}

// TestAddonReconcileInstall: an add-on is created on every cluster the
// placements select, controlled by its ClusterManagementAddOn, and deleted
// from a cluster no placement selects any more; with a Manual install
// strategy the controller installs and removes nothing.
func TestAddonReconcileInstall(t *testing.T) {
	t.Parallel()
	for _, version := range hubtest.AddonVersions {
		t.Run("placements/"+version, func(t *testing.T) {
			t.Parallel()
			h := hubtest.NewAddonHub(t, version, nil, hubtest.HubObjects(
				[]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")},
				hubtest.SeedPlacement(t), hubtest.FreshAddons(hubtest.SeedAddonName, "dev-cluster", "gone-cluster"))...)
			_, err := reconcileAddon(newAddonReconciler(h, clockfake.New(hubtest.Start), nil), hubtest.SeedAddonName)
			require.NoError(t, err)
			assert.Equal(t, []string{"dev-cluster", "prod-cluster", "stg-cluster"}, h.AddonClusters(hubtest.SeedAddonName))
			for _, c := range []string{"stg-cluster", "prod-cluster"} {
				owner := metav1.GetControllerOf(h.Addon(c, hubtest.SeedAddonName))
				require.NotNil(t, owner, "%s: no controller owner reference", c)
				assert.Equal(t, metav1.OwnerReference{
					APIVersion: addonv1beta1.GroupName + "/" + version, Kind: "ClusterManagementAddOn",
					Name: hubtest.SeedAddonName, UID: "cluster-proxy-uid",
					Controller: hubtest.PtrTo(true), BlockOwnerDeletion: hubtest.PtrTo(true),
				}, *owner, c)
			}
		})
		t.Run("manual/"+version, func(t *testing.T) {
			t.Parallel()
			manual := func(cma *addonv1beta1.ClusterManagementAddOn) {
				cma.Spec.InstallStrategy = addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyManual}
			}
			cfg := hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")
			h := hubtest.NewAddonHub(t, version, nil, hubtest.HubObjects(
				[]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle, manual), cfg},
				hubtest.SeedPlacement(t), hubtest.FreshAddons(hubtest.SeedAddonName, "gone-cluster"))...)
			res, err := reconcileAddon(newAddonReconciler(h, clockfake.New(hubtest.Start), nil), hubtest.SeedAddonName)
			require.NoError(t, err)
			assert.Zero(t, res)
			assert.Equal(t, []string{"gone-cluster"}, h.AddonClusters(hubtest.SeedAddonName), "nothing installed or removed")
			// The add-on made by hand is configured with the default
			// config, at once, as OCM's add-on manager's defaults node
			// does; there is no install progression.
			gone := h.Addon("gone-cluster", hubtest.SeedAddonName)
			assert.Equal(t, hubtest.SpecHashOf(t, cfg), hubtest.DesiredHash(t, gone))
			assert.Equal(t, int64(2), h.Writes.Load(), "two writes: the add-on's adoption (owner.go) and its status")
			assert.Empty(t, h.CMA(hubtest.SeedAddonName).Status.InstallProgressions)
		})
	}
}

// TestAddonReconcileSeedRollout: the seed's story with its add-ons freshly
// created. ProgressivePerGroup starts dev alone: dev is given the config's
// spec hash and Configured True, stg and prod are told they are not
// configured yet, and the install progression says 1/3. Nothing waits on
// the clock (dev has not started), so the reconcile asks for no requeue:
// dev's own write brings it back. The next reconcile, with nothing changed,
// writes nothing and comes back at dev's progress deadline (15m).
func TestAddonReconcileSeedRollout(t *testing.T) {
	t.Parallel()
	for _, version := range hubtest.AddonVersions {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			cfg := hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")
			h := hubtest.NewAddonHub(t, version, nil, hubtest.HubObjects(
				[]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), cfg},
				hubtest.SeedPlacement(t), hubtest.FreshAddons(hubtest.SeedAddonName, hubtest.SeedClusters...))...)
			rec := events.NewFakeRecorder(10)
			r := newAddonReconciler(h, clockfake.New(hubtest.Start), rec)
			res, err := reconcileAddon(r, hubtest.SeedAddonName)
			require.NoError(t, err)
			assert.Zero(t, res.RequeueAfter)

			dev := h.Addon("dev-cluster", hubtest.SeedAddonName)
			assert.Equal(t, hubtest.SpecHashOf(t, cfg), hubtest.DesiredHash(t, dev))
			assert.Equal(t, metav1.ConditionTrue, hubtest.ConfiguredStatus(dev))
			assert.Nil(t, dev.Status.ConfigReferences[0].LastAppliedConfig, "the agent's lastAppliedConfig was invented")
			for _, c := range []string{"stg-cluster", "prod-cluster"} {
				m := h.Addon(c, hubtest.SeedAddonName)
				assert.Empty(t, hubtest.DesiredHash(t, m), c)
				assert.Equal(t, metav1.ConditionFalse, hubtest.ConfiguredStatus(m), c)
			}
			if version == hubclient.V1alpha1 {
				var raw addonv1alpha1.ManagedClusterAddOn
				require.NoError(t, h.Client.Get(context.Background(), types.NamespacedName{Namespace: "dev-cluster", Name: hubtest.SeedAddonName}, &raw))
				assert.Equal(t, "cluster-proxy", raw.Status.ConfigReferences[0].Name, "v1alpha1 names the config beside its hashes")
			}

			ip, cond := hubtest.ProgressionOf(t, h.CMA(hubtest.SeedAddonName), hubtest.SeedRef)
			require.NotNil(t, cond)
			assert.Equal(t, metav1.ConditionTrue, cond.Status)
			assert.Equal(t, "selected clusters 3. configured addons 1/3 progressing..., 0 failed 0 timeout.", cond.Message)
			require.Len(t, ip.ConfigReferences, 1)
			assert.Equal(t, hubtest.SpecHashOf(t, cfg), ip.ConfigReferences[0].DesiredConfig.SpecHash)
			assert.Empty(t, rec.Events)

			before, rvs := h.Writes.Load(), h.ResourceVersions()
			res, err = reconcileAddon(r, hubtest.SeedAddonName)
			require.NoError(t, err)
			assert.Equal(t, 15*time.Minute, res.RequeueAfter, "dev's progress deadline")
			assert.Equal(t, before, h.Writes.Load(), "a reconcile with nothing changed wrote")
			assert.Equal(t, rvs, h.ResourceVersions())
		})
	}
}

// TestAddonReconcileOverlappingPlacements: a cluster two placements select
// belongs to the last of them, which alone rolls it out, with its own
// configs and strategy.
func TestAddonReconcileOverlappingPlacements(t *testing.T) {
	t.Parallel()
	seedCfg, canaryCfg := hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0"), hubtest.ProxyConfig(t, "cluster-proxy-canary", "v1.1.0")
	canaryFirst := func(cma *addonv1beta1.ClusterManagementAddOn) {
		ps := cma.Spec.InstallStrategy.Placements
		ps[0], ps[1] = ps[1], ps[0]
	}
	for _, tc := range []struct {
		name   string
		with   []func(*addonv1beta1.ClusterManagementAddOn)
		stg    string // stg-cluster's desired hash
		seeded string // the seed placement's progression
		canary string // the canary placement's progression
	}{
		{name: "canary last: it rolls stg out at once, with its config",
			with: []func(*addonv1beta1.ClusterManagementAddOn){hubtest.AlsoPlacing(hubtest.CanaryRef, canaryCfg.GetName())}, stg: hubtest.SpecHashOf(t, canaryCfg),
			seeded: "selected clusters 2. configured addons 1/2 progressing..., 0 failed 0 timeout.",
			canary: "selected clusters 1. configured addons 1/1 progressing..., 0 failed 0 timeout."},
		{name: "seed last: stg waits for dev",
			with: []func(*addonv1beta1.ClusterManagementAddOn){hubtest.AlsoPlacing(hubtest.CanaryRef, canaryCfg.GetName()), canaryFirst}, stg: "",
			seeded: "selected clusters 3. configured addons 1/3 progressing..., 0 failed 0 timeout.",
			canary: "selected clusters 0. configured addons 0/0 progressing..., 0 failed 0 timeout."}, // an empty placement never completes, as in OCM
	} {
		for _, version := range hubtest.AddonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				h := hubtest.NewAddonHub(t, version, nil, hubtest.HubObjects(
					[]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle, tc.with...), seedCfg, canaryCfg},
					hubtest.SeedPlacement(t), hubtest.PlacementWith(hubtest.CanaryRef, "stg-cluster"), hubtest.FreshAddons(hubtest.SeedAddonName, hubtest.SeedClusters...))...)
				_, err := reconcileAddon(newAddonReconciler(h, clockfake.New(hubtest.Start), nil), hubtest.SeedAddonName)
				require.NoError(t, err)
				assert.Equal(t, hubtest.SpecHashOf(t, seedCfg), hubtest.DesiredHash(t, h.Addon("dev-cluster", hubtest.SeedAddonName)))
				assert.Equal(t, tc.stg, hubtest.DesiredHash(t, h.Addon("stg-cluster", hubtest.SeedAddonName)))
				assert.Empty(t, hubtest.DesiredHash(t, h.Addon("prod-cluster", hubtest.SeedAddonName)))
				cma := h.CMA(hubtest.SeedAddonName)
				for ref, want := range map[addonv1beta1.PlacementRef]string{hubtest.SeedRef: tc.seeded, hubtest.CanaryRef: tc.canary} {
					_, cond := hubtest.ProgressionOf(t, cma, ref)
					require.NotNil(t, cond)
					assert.Equal(t, want, cond.Message, ref.Name)
				}
			})
		}
	}
}

// TestAddonReconcileBadInput: a placement that cannot be planned (a rollout
// strategy that does not validate, a config object or a Placement that is
// missing) gets a Progressing False condition whose reason says why and
// whose message names the field or the object, and a Warning event; its
// add-ons are not written. The add-on's other placement still rolls out,
// and the reconcile comes back within notPlannedRetry.
func TestAddonReconcileBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		spoil  func(*addonv1beta1.ClusterManagementAddOn)
		addons []string // the clusters with an add-on
		ref    addonv1beta1.PlacementRef
		reason string
		names  string // what the message and the event must name
	}{
		{name: "invalid rollout strategy",
			spoil: func(cma *addonv1beta1.ClusterManagementAddOn) {
				cma.Spec.InstallStrategy.Placements[0].RolloutStrategy.ProgressivePerGroup.ProgressDeadline = "10mfoo"
			},
			addons: hubtest.SeedClusters, ref: hubtest.SeedRef, reason: ReasonInvalidRolloutStrategy,
			names: "spec.installStrategy.placements[0].rolloutStrategy.progressivePerGroup.progressDeadline"},
		{name: "missing config object",
			spoil: func(cma *addonv1beta1.ClusterManagementAddOn) {
				cma.Spec.InstallStrategy.Placements[0].Configs = []addonv1beta1.AddOnConfig{
					{ConfigGroupResource: hubtest.ProxyGR, ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy-v2"}}}
			},
			addons: hubtest.SeedClusters, ref: hubtest.SeedRef, reason: addon.ReasonConfigurationError, names: "cluster-proxy-v2"},
		{name: "missing placement",
			spoil: func(cma *addonv1beta1.ClusterManagementAddOn) {
				cma.Spec.InstallStrategy.Placements[0].Name = "gone"
			},
			// A missing Placement selects nothing: an add-on on dev or
			// prod would be removed, so there is none.
			addons: []string{"stg-cluster"}, ref: addonv1beta1.PlacementRef{Namespace: hubtest.SeedNamespace, Name: "gone"},
			reason: addon.ReasonPlacementNotFound, names: `"open-cluster-management/gone"`},
	} {
		for _, version := range hubtest.AddonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				cfg := hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")
				h := hubtest.NewAddonHub(t, version, nil, hubtest.HubObjects(
					[]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle, hubtest.AlsoPlacing(hubtest.CanaryRef, ""), tc.spoil), cfg},
					hubtest.SeedPlacement(t), hubtest.PlacementWith(hubtest.CanaryRef, "stg-cluster"), hubtest.FreshAddons(hubtest.SeedAddonName, tc.addons...))...)
				before := h.ResourceVersions()
				rec := events.NewFakeRecorder(10)
				res, err := reconcileAddon(newAddonReconciler(h, clockfake.New(hubtest.Start), rec), hubtest.SeedAddonName)
				require.NoError(t, err)
				assert.Equal(t, notPlannedRetry, res.RequeueAfter)

				cma := h.CMA(hubtest.SeedAddonName)
				_, cond := hubtest.ProgressionOf(t, cma, tc.ref)
				require.NotNil(t, cond)
				assert.Equal(t, metav1.ConditionFalse, cond.Status)
				assert.Equal(t, tc.reason, cond.Reason)
				assert.Contains(t, cond.Message, tc.names)
				require.Len(t, rec.Events, 1)
				event := <-rec.Events
				assert.True(t, strings.HasPrefix(event, "Warning "+tc.reason+" placement "+tc.ref.Namespace+"/"+tc.ref.Name+": "), event)
				assert.Contains(t, event, tc.names)

				assert.ElementsMatch(t, tc.addons, h.AddonClusters(hubtest.SeedAddonName), "add-ons were installed or removed")
				for _, c := range tc.addons {
					key := strings.Join([]string{"ManagedClusterAddOn", c, hubtest.SeedAddonName}, "/")
					if c != "stg-cluster" {
						assert.Equal(t, before[key], h.ResourceVersions()[key], "%s was written", c)
					}
				}
				stg := h.Addon("stg-cluster", hubtest.SeedAddonName)
				assert.Equal(t, hubtest.SpecHashOf(t, cfg), hubtest.DesiredHash(t, stg), "the other placement was not rolled out")
				assert.Equal(t, metav1.ConditionTrue, hubtest.ConfiguredStatus(stg))
				_, canary := hubtest.ProgressionOf(t, cma, hubtest.CanaryRef)
				assert.Equal(t, "selected clusters 1. configured addons 1/1 progressing..., 0 failed 0 timeout.", canary.Message)
			})
		}
	}
}

// TestAddonReconcileConflict: a status write that meets a conflict
// (someone wrote the object since it was read) is returned as the
// reconcile's error, for the controller's rate limiter to retry on fresh
// data, with no event, and the newer data is never overwritten.
func TestAddonReconcileConflict(t *testing.T) {
	t.Parallel()
	agentCondition := metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse,
		Reason: "WaitingForManifestApplied", LastTransitionTime: metav1.NewTime(hubtest.Start)}
	for _, tc := range []struct {
		name  string
		hook  func(t *testing.T, api hubclient.AddonAPI) hubtest.WriteHook
		agent bool // whether the agent's write is on the hub
	}{
		{name: "the API server answers Conflict", hook: func(*testing.T, hubclient.AddonAPI) hubtest.WriteHook {
			return func(_ client.Client, verb string, obj client.Object) error {
				if verb != "status patch" {
					return nil
				}
				return apierrors.NewConflict(schema.GroupResource{Group: addonv1beta1.GroupName, Resource: "managedclusteraddons"},
					obj.GetName(), errors.New("the object has been modified; please apply your changes to the latest version and try again"))
			}
		}},
		{name: "the agent wrote dev's add-on after the read", hook: func(t *testing.T, api hubclient.AddonAPI) hubtest.WriteHook {
			return func(c client.Client, verb string, obj client.Object) error {
				if verb != "status patch" || obj.GetNamespace() != "dev-cluster" {
					return nil
				}
				cur := api.NewMCA()
				require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(obj), cur))
				next, err := api.WithAddonStatus(cur, nil, []metav1.Condition{agentCondition})
				require.NoError(t, err)
				require.NoError(t, c.Status().Update(context.Background(), next))
				return nil
			}
		}, agent: true},
	} {
		for _, version := range hubtest.AddonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				api, err := hubclient.NewAddonAPI(version)
				require.NoError(t, err)
				h := hubtest.NewAddonHub(t, version, tc.hook(t, api), hubtest.HubObjects(
					[]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")},
					hubtest.SeedPlacement(t), hubtest.FreshAddons(hubtest.SeedAddonName, hubtest.SeedClusters...))...)
				rec := events.NewFakeRecorder(10)
				_, err = reconcileAddon(newAddonReconciler(h, clockfake.New(hubtest.Start), rec), hubtest.SeedAddonName)
				require.Error(t, err)
				assert.True(t, onlyConflicts(err), "not a conflict: %v", err)
				assert.Empty(t, rec.Events, "a conflict is not worth an event")
				dev := h.Addon("dev-cluster", hubtest.SeedAddonName)
				assert.Empty(t, hubtest.DesiredHash(t, dev), "dev was written over newer data")
				if tc.agent {
					got := meta.FindStatusCondition(dev.Status.Conditions, agentCondition.Type)
					require.NotNil(t, got, "the agent's write was lost")
					assert.Equal(t, agentCondition.Reason, got.Reason)
				}
			})
		}
	}
}
