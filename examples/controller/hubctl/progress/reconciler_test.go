package progress

import (
	"context"
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
)

// progressReconciler returns a ProgressReconciler of the hub as
// SetupWithManager would make it.
func progressReconciler(h *hubtest.AddonHub, now time.Time, lifecycles ...string) *ProgressReconciler {
	return &ProgressReconciler{Client: h.Client, Clock: clockfake.New(now), Version: h.Version, Lifecycles: lifecycles}
}

func reconcileProgress(r *ProgressReconciler, cluster, name string) (ctrl.Result, error) {
	return r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: cluster, Name: name}})
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
	desired := hubtest.RolledOut().Status.ConfigReferences
	for _, tc := range []struct {
		name      string
		lifecycle string
		work      *workv1.ManifestWork
		reason    string // of the Progressing condition; "" for none
		status    metav1.ConditionStatus
		message   string
		applied   string // lastAppliedConfig's hash
	}{
		{name: "rendered with the desired configs, applied and available", lifecycle: hubclient.DefaultLifecycle, work: hubtest.DeployWork(t, desired),
			reason: addonv1beta1.ProgressingReasonCompleted, status: metav1.ConditionFalse, message: "completed with no errors.", applied: "new"},
		{name: "rendered with other configs", lifecycle: hubclient.DefaultLifecycle, work: hubtest.DeployWork(t, rolledOutWith("old")),
			reason: addonv1beta1.ProgressingReasonProgressing, status: metav1.ConditionTrue, message: "progressing... mca and work configs mismatch", applied: "old"},
		{name: "not available", lifecycle: hubclient.DefaultLifecycle, work: hubtest.DeployWork(t, desired, func(w *workv1.ManifestWork) {
			meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: workv1.WorkAvailable, Status: metav1.ConditionFalse, Reason: "ResourcesNotAvailable", ObservedGeneration: 2})
		}), reason: addonv1beta1.ProgressingReasonProgressing, status: metav1.ConditionTrue, message: "progressing... work is not ready", applied: "old"},
		{name: "available at an older generation", lifecycle: hubclient.DefaultLifecycle, work: hubtest.DeployWork(t, desired, func(w *workv1.ManifestWork) { w.Generation = 3 }),
			reason: addonv1beta1.ProgressingReasonProgressing, status: metav1.ConditionTrue, message: "progressing... work is not ready", applied: "old"},
		{name: "not taken: OCM's add-on manager's", lifecycle: "addon-manager", work: hubtest.DeployWork(t, desired), applied: "old"},
	} {
		for _, version := range hubtest.AddonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				h := hubtest.NewAddonHub(t, version, nil, hubtest.SeedAddon(t, tc.lifecycle), hubtest.RolledOut(), tc.work)
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
				for _, kept := range hubtest.RolledOut().Status.Conditions {
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

// TestProgressReconcileHoldsMessage: an add-on that started progressing
// 5 s ago ("mca and work configs mismatch", written with its desired
// configs) whose work now carries them but is not ready is not written
// (addon.PlanProgress): the reconcile asks to run again when the hold is
// over, and then writes "work is not ready". A work that becomes ready
// within the hold is written at once, Completed.
func TestProgressReconcileHoldsMessage(t *testing.T) {
	t.Parallel()
	desired := hubtest.RolledOut().Status.ConfigReferences
	progressing := func() *addonv1beta1.ManagedClusterAddOn {
		m := hubtest.RolledOut()
		m.Status.Conditions = append(m.Status.Conditions, metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing,
			Status: metav1.ConditionTrue, Reason: addonv1beta1.ProgressingReasonProgressing, Message: "progressing... mca and work configs mismatch",
			LastTransitionTime: metav1.NewTime(hubtest.Start.Add(-5 * time.Second))})
		return m
	}
	notReady := func(w *workv1.ManifestWork) { w.Generation = 3 }
	for _, version := range hubtest.AddonVersions {
		t.Run("not ready/"+version, func(t *testing.T) {
			t.Parallel()
			h := hubtest.NewAddonHub(t, version, nil, hubtest.SeedAddon(t, hubclient.DefaultLifecycle), progressing(), hubtest.DeployWork(t, desired, notReady))
			res, err := reconcileProgress(progressReconciler(h, hubtest.Start), "dev-cluster", hubtest.SeedAddonName)
			require.NoError(t, err)
			assert.Equal(t, ctrl.Result{RequeueAfter: 25 * time.Second}, res, "run again when the hold is over")
			assert.Zero(t, h.Writes.Load(), "a message held back was written")

			res, err = reconcileProgress(progressReconciler(h, hubtest.Start.Add(25*time.Second)), "dev-cluster", hubtest.SeedAddonName)
			require.NoError(t, err)
			assert.Zero(t, res)
			assert.EqualValues(t, 1, h.Writes.Load())
			cond := meta.FindStatusCondition(h.Addon("dev-cluster", hubtest.SeedAddonName).Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
			require.NotNil(t, cond)
			assert.Equal(t, "progressing... work is not ready", cond.Message)
			assert.Equal(t, hubtest.Start.Add(-5*time.Second), cond.LastTransitionTime.Time.UTC(), "still progressing since it started")
		})
		t.Run("ready within the hold/"+version, func(t *testing.T) {
			t.Parallel()
			h := hubtest.NewAddonHub(t, version, nil, hubtest.SeedAddon(t, hubclient.DefaultLifecycle), progressing(), hubtest.DeployWork(t, desired))
			res, err := reconcileProgress(progressReconciler(h, hubtest.Start), "dev-cluster", hubtest.SeedAddonName)
			require.NoError(t, err)
			assert.Zero(t, res)
			assert.EqualValues(t, 1, h.Writes.Load())
			m := h.Addon("dev-cluster", hubtest.SeedAddonName)
			assert.Equal(t, addonv1beta1.ProgressingReasonCompleted, meta.FindStatusCondition(m.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing).Reason)
			assert.Equal(t, "new", m.Status.ConfigReferences[0].LastAppliedConfig.SpecHash)
		})
	}
}

// rolledOutWith is rolledOut's config references with desired hash
// specHash.
func rolledOutWith(specHash string) []addonv1beta1.ConfigReference {
	refs := hubtest.RolledOut().Status.ConfigReferences
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
					Conditions:         hubtest.RolledOut().Status.Conditions,
					ConfigReferences:   tc.refs,
					AddOnConfiguration: addonv1alpha1.ConfigCoordinates{CRDName: "managedproxyconfigurations.proxy.open-cluster-management.io", CRName: "cluster-proxy"},
					Namespace:          "open-cluster-management-agent-addon",
					Registrations:      []addonv1alpha1.RegistrationConfig{{SignerName: "kubernetes.io/kube-apiserver-client"}},
				},
			}
			orig := mca.DeepCopy()
			h := hubtest.NewAddonHub(t, hubclient.V1alpha1, nil, hubtest.SeedAddon(t, hubclient.DefaultLifecycle), mca, hubtest.DeployWork(t, hubtest.RolledOut().Status.ConfigReferences))
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
