package hubctl

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// progressReconciler returns a ProgressReconciler of the hub as
// SetupWithManager would make it.
func progressReconciler(h *hubtest.AddonHub, now time.Time, lifecycles ...string) *ProgressReconciler {
	return &ProgressReconciler{Client: h.Client, Clock: clockfake.New(now), Version: h.Version, Lifecycles: lifecycles, api: h.API}
}

func reconcileProgress(r *ProgressReconciler, cluster, name string) (ctrl.Result, error) {
	return r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: cluster, Name: name}})
}

// rolledOut is the seed's add-on on dev-cluster after the rollout gave it
// the config hash "new": the agent applied "old" and has reported its
// ManifestApplied condition.
func rolledOut() *addonv1beta1.ManagedClusterAddOn {
	m := hubtest.FreshAddon("dev-cluster", hubtest.SeedAddonName)
	m.Status.ConfigReferences = []addonv1beta1.ConfigReference{{
		ConfigGroupResource: hubtest.ProxyGR,
		DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "new"},
		LastAppliedConfig:   &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "old"},
	}}
	m.Status.Conditions = []metav1.Condition{
		{Type: addonv1beta1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionTrue, Reason: "AddonManifestApplied",
			Message: "manifests of addon are applied successfully", LastTransitionTime: metav1.NewTime(hubtest.Start.Add(-time.Hour))},
		{Type: addonv1beta1.ManagedClusterAddOnConditionConfigured, Status: metav1.ConditionTrue, Reason: addon.ReasonConfigured,
			Message: "Configurations configured", LastTransitionTime: metav1.NewTime(hubtest.Start.Add(-time.Minute))},
	}
	return m
}

// deployWork is the add-on's ManifestWork as addon-framework renders it
// for configs refs, at generation 2, changed by each of with.
func deployWork(t *testing.T, refs []addonv1beta1.ConfigReference, with ...func(*workv1.ManifestWork)) *workv1.ManifestWork {
	t.Helper()
	hashes, err := json.Marshal(addon.ConfigHashes(refs))
	require.NoError(t, err)
	w := &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "addon-cluster-proxy-deploy-0", Generation: 2,
			Labels:      map[string]string{addonv1beta1.AddonLabelKey: hubtest.SeedAddonName},
			Annotations: map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: string(hashes)}},
		Status: workv1.ManifestWorkStatus{Conditions: []metav1.Condition{
			{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, Reason: "AppliedManifestWorkComplete", ObservedGeneration: 2},
			{Type: workv1.WorkAvailable, Status: metav1.ConditionTrue, Reason: "ResourcesAvailable", ObservedGeneration: 2},
		}},
	}
	for _, f := range with {
		f(w)
	}
	return w
}

// TestProgressReconcile: the add-on's Progressing condition and
// lastAppliedConfig follow its ManifestWork, as OCM's addonprogressing
// controller writes them: a work rendered with the add-on's desired
// configs, applied and available at its generation, completes the add-on
// (lastAppliedConfig becomes desiredConfig); a work rendered with other
// configs, or not ready, keeps it progressing. An add-on of a
// ClusterManagementAddOn the controller does not take is not written.
func TestProgressReconcile(t *testing.T) {
	t.Parallel()
	desired := rolledOut().Status.ConfigReferences
	for _, tc := range []struct {
		name      string
		lifecycle string
		work      *workv1.ManifestWork
		reason    string // of the Progressing condition; "" for none
		status    metav1.ConditionStatus
		message   string
		applied   string // lastAppliedConfig's hash
	}{
		{name: "rendered with the desired configs, applied and available", lifecycle: hubclient.DefaultLifecycle, work: deployWork(t, desired),
			reason: addonv1beta1.ProgressingReasonCompleted, status: metav1.ConditionFalse, message: "completed with no errors.", applied: "new"},
		{name: "rendered with other configs", lifecycle: hubclient.DefaultLifecycle, work: deployWork(t, rolledOutWith("old")),
			reason: addonv1beta1.ProgressingReasonProgressing, status: metav1.ConditionTrue, message: "progressing... mca and work configs mismatch", applied: "old"},
		{name: "not available", lifecycle: hubclient.DefaultLifecycle, work: deployWork(t, desired, func(w *workv1.ManifestWork) {
			meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: workv1.WorkAvailable, Status: metav1.ConditionFalse, Reason: "ResourcesNotAvailable", ObservedGeneration: 2})
		}), reason: addonv1beta1.ProgressingReasonProgressing, status: metav1.ConditionTrue, message: "progressing... work is not ready", applied: "old"},
		{name: "available at an older generation", lifecycle: hubclient.DefaultLifecycle, work: deployWork(t, desired, func(w *workv1.ManifestWork) { w.Generation = 3 }),
			reason: addonv1beta1.ProgressingReasonProgressing, status: metav1.ConditionTrue, message: "progressing... work is not ready", applied: "old"},
		{name: "not taken: OCM's add-on manager's", lifecycle: "addon-manager", work: deployWork(t, desired), applied: "old"},
	} {
		for _, version := range hubtest.AddonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				h := hubtest.NewAddonHub(t, version, nil, hubtest.SeedAddon(t, tc.lifecycle), rolledOut(), tc.work)
				before := h.ResourceVersions()
				r := progressReconciler(h, hubtest.Start)
				res, err := reconcileProgress(r, "dev-cluster", hubtest.SeedAddonName)
				require.NoError(t, err)
				assert.Zero(t, res)

				m := h.Addon("dev-cluster", hubtest.SeedAddonName)
				assert.Equal(t, "new", m.Status.ConfigReferences[0].DesiredConfig.SpecHash, "desiredConfig changed")
				assert.Equal(t, tc.applied, m.Status.ConfigReferences[0].LastAppliedConfig.SpecHash)
				cond := meta.FindStatusCondition(m.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
				if tc.reason == "" {
					assert.Nil(t, cond)
					assert.Zero(t, h.Writes.Load(), "something was written")
					assert.Equal(t, before, h.ResourceVersions())
					return
				}
				require.NotNil(t, cond)
				assert.Equal(t, tc.status, cond.Status)
				assert.Equal(t, tc.reason, cond.Reason)
				assert.Equal(t, tc.message, cond.Message)
				assert.Equal(t, hubtest.Start, cond.LastTransitionTime.Time.UTC())
				for _, kept := range rolledOut().Status.Conditions {
					assert.NotNil(t, meta.FindStatusCondition(m.Status.Conditions, kept.Type), "%s was lost", kept.Type)
				}

				writes := h.Writes.Load()
				_, err = reconcileProgress(progressReconciler(h, hubtest.Start.Add(time.Minute)), "dev-cluster", hubtest.SeedAddonName)
				require.NoError(t, err)
				assert.Equal(t, writes, h.Writes.Load(), "a reconcile with nothing changed wrote")
			})
		}
	}
}

// rolledOutWith is rolledOut's config references with desired hash
// specHash.
func rolledOutWith(specHash string) []addonv1beta1.ConfigReference {
	refs := rolledOut().Status.ConfigReferences
	refs[0].DesiredConfig.SpecHash = specHash
	return refs
}

// TestProgressReconcileKeepsV1alpha1Fields: on a hub that stores v1alpha1,
// the progress write keeps every field the v1beta1 form lacks: the spec's
// installNamespace, each config reference's name beside its hashes (one
// without a desiredConfig too, as add-on managers before rollouts wrote
// them), the deprecated addOnConfiguration and the registrations' signer.
func TestProgressReconcileKeepsV1alpha1Fields(t *testing.T) {
	t.Parallel()
	hashOf := func(h string) *addonv1alpha1.ConfigSpecHash {
		return &addonv1alpha1.ConfigSpecHash{ConfigReferent: addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: h}
	}
	deployCfg := addonv1alpha1.ConfigGroupResource{Group: addonv1beta1.GroupName, Resource: "addondeploymentconfigs"}
	for _, tc := range []struct {
		name    string
		refs    []addonv1alpha1.ConfigReference
		applied string
	}{
		{name: "every reference has a desiredConfig: completed",
			refs: []addonv1alpha1.ConfigReference{{ConfigGroupResource: addonv1alpha1.ConfigGroupResource(hubtest.ProxyGR),
				ConfigReferent: addonv1alpha1.ConfigReferent{Name: "cluster-proxy"}, LastObservedGeneration: 4,
				DesiredConfig: hashOf("new"), LastAppliedConfig: hashOf("old")}},
			applied: "new"},
		{name: "a reference without a desiredConfig: progressing",
			refs: []addonv1alpha1.ConfigReference{
				{ConfigGroupResource: addonv1alpha1.ConfigGroupResource(hubtest.ProxyGR), ConfigReferent: addonv1alpha1.ConfigReferent{Name: "cluster-proxy"},
					LastObservedGeneration: 4, DesiredConfig: hashOf("new"), LastAppliedConfig: hashOf("old")},
				{ConfigGroupResource: deployCfg, ConfigReferent: addonv1alpha1.ConfigReferent{Namespace: "open-cluster-management", Name: "deploy-config"},
					LastObservedGeneration: 2},
			},
			applied: "old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mca := &addonv1alpha1.ManagedClusterAddOn{
				ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: hubtest.SeedAddonName},
				Spec:       addonv1alpha1.ManagedClusterAddOnSpec{InstallNamespace: "open-cluster-management-agent-addon"},
				Status: addonv1alpha1.ManagedClusterAddOnStatus{
					Conditions:         rolledOut().Status.Conditions,
					ConfigReferences:   tc.refs,
					AddOnConfiguration: addonv1alpha1.ConfigCoordinates{CRDName: "managedproxyconfigurations.proxy.open-cluster-management.io", CRName: "cluster-proxy"},
					Namespace:          "open-cluster-management-agent-addon",
					Registrations:      []addonv1alpha1.RegistrationConfig{{SignerName: "kubernetes.io/kube-apiserver-client"}},
				},
			}
			orig := mca.DeepCopy()
			h := hubtest.NewAddonHub(t, hubclient.V1alpha1, nil, hubtest.SeedAddon(t, hubclient.DefaultLifecycle), mca, deployWork(t, rolledOut().Status.ConfigReferences))
			_, err := reconcileProgress(progressReconciler(h, hubtest.Start), "dev-cluster", hubtest.SeedAddonName)
			require.NoError(t, err)
			require.Equal(t, int64(1), h.Writes.Load(), "the progress was not written")

			var got addonv1alpha1.ManagedClusterAddOn
			require.NoError(t, h.Client.Get(context.Background(), client.ObjectKeyFromObject(mca), &got))
			assert.Equal(t, orig.Spec, got.Spec)
			require.Len(t, got.Status.ConfigReferences, len(tc.refs))
			for i, ref := range got.Status.ConfigReferences {
				want := orig.Status.ConfigReferences[i]
				assert.Equal(t, want.ConfigReferent, ref.ConfigReferent, "configReferences[%d]'s name was lost", i)
				assert.Equal(t, want.LastObservedGeneration, ref.LastObservedGeneration)
				assert.Equal(t, want.DesiredConfig, ref.DesiredConfig)
			}
			assert.Equal(t, tc.applied, got.Status.ConfigReferences[0].LastAppliedConfig.SpecHash)
			assert.Equal(t, orig.Status.AddOnConfiguration, got.Status.AddOnConfiguration)
			assert.Equal(t, orig.Status.Namespace, got.Status.Namespace)
			assert.Equal(t, orig.Status.Registrations, got.Status.Registrations)
			assert.NotNil(t, meta.FindStatusCondition(got.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing))
		})
	}
}
