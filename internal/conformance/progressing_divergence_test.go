package conformance

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// TestProgressingDivergence_WorkOrder shows W1 on two works of one add-on
// in its cluster's namespace: deploy-0 carries the desired hash but is not
// yet Available, deploy-1 still carries the old hash. OCM checks the works
// in its informer's order and reports whichever fails first, so its
// message follows that order; addon.Progressing reports the mismatch in
// both orders, which is OCM's answer when deploy-1 comes first.
func TestProgressingDivergence_WorkOrder(t *testing.T) {
	t.Parallel()
	referent := addonv1alpha1.ConfigReferent{Namespace: "open-cluster-management", Name: "default"}
	mca := &addonv1alpha1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: "cluster1", Name: "cluster-proxy"},
		Status: addonv1alpha1.ManagedClusterAddOnStatus{
			Conditions: []metav1.Condition{{Type: addonv1alpha1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionTrue, Reason: "AddonManifestApplied"}},
			ConfigReferences: []addonv1alpha1.ConfigReference{{
				ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"},
				DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: referent, SpecHash: "new"},
			}},
		},
	}
	work := func(name, hash string, available metav1.ConditionStatus) *workv1.ManifestWork {
		return &workv1.ManifestWork{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: "cluster1", Name: name, Generation: 1,
				Labels:      map[string]string{addonv1alpha1.AddonLabelKey: "cluster-proxy"},
				Annotations: map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: `{"addondeploymentconfigs.addon.open-cluster-management.io/open-cluster-management/default":"` + hash + `"}`},
			},
			Status: workv1.ManifestWorkStatus{Conditions: []metav1.Condition{
				{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, ObservedGeneration: 1},
				{Type: workv1.WorkAvailable, Status: available, ObservedGeneration: 1},
			}},
		}
	}
	notReady, stale := work("addon-cluster-proxy-deploy-0", "new", metav1.ConditionFalse), work("addon-cluster-proxy-deploy-1", "old", metav1.ConditionTrue)

	for _, tt := range []struct {
		name  string
		works []*workv1.ManifestWork
		ocm   string
	}{
		{"not ready first", []*workv1.ManifestWork{notReady, stale}, progressingMsgNotReady},
		{"mismatch first", []*workv1.ManifestWork{stale, notReady}, progressingMsgMismatch},
	} {
		pc := progressingCase{CMA: &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}}, MCA: mca, Works: tt.works}
		theirs, ours := runOCMProgressing(pc), runOurProgressing(pc)
		require.NoError(t, theirs.Err)
		require.NoError(t, ours.Err)
		assert.Equal(t, tt.ocm, theirs.progressing().Message, "OCM, %s", tt.name)
		assert.Equal(t, progressingMsgMismatch, ours.progressing().Message, "ours, %s", tt.name)
		assert.Equal(t, tt.ocm == progressingMsgNotReady, mismatchBehindNotReady(pc, theirs), "W1's predicate, %s", tt.name)
	}
}

// TestProgressingDivergence_CompletedTime shows W2: an add-on waiting for
// its ManifestApplied condition (Progressing False,
// WaitingForManifestApplied, an hour ago) whose one work is now applied,
// available and carries its desired configs. Both say Completed and set
// lastAppliedConfig; OCM keeps the hour-old time, because the status stays
// False, so the planner would count the soak as already over; ours starts
// the soak now.
func TestProgressingDivergence_CompletedTime(t *testing.T) {
	t.Parallel()
	referent := addonv1alpha1.ConfigReferent{Namespace: "open-cluster-management", Name: "default"}
	waitingSince := metav1.NewTime(progressingNow.Add(-time.Hour))
	mca := &addonv1alpha1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: "cluster1", Name: "cluster-proxy"},
		Status: addonv1alpha1.ManagedClusterAddOnStatus{
			Conditions: []metav1.Condition{
				{Type: addonv1alpha1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse, Reason: "WaitingForManifestApplied",
					Message: "Waiting for ManagedClusterAddOn ManifestApplied condition", LastTransitionTime: waitingSince},
				{Type: addonv1alpha1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionTrue, Reason: "AddonManifestApplied", LastTransitionTime: waitingSince},
			},
			ConfigReferences: []addonv1alpha1.ConfigReference{{
				ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"},
				ConfigReferent:      referent,
				DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: referent, SpecHash: "new"},
			}},
		},
	}
	work := &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "cluster1", Name: "addon-cluster-proxy-deploy-0", Generation: 1,
			Labels:      map[string]string{addonv1alpha1.AddonLabelKey: "cluster-proxy"},
			Annotations: map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: `{"addondeploymentconfigs.addon.open-cluster-management.io/open-cluster-management/default":"new"}`},
		},
		Status: workv1.ManifestWorkStatus{Conditions: []metav1.Condition{
			{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, ObservedGeneration: 1},
			{Type: workv1.WorkAvailable, Status: metav1.ConditionTrue, ObservedGeneration: 1},
		}},
	}
	pc := progressingCase{CMA: &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}}, MCA: mca, Works: []*workv1.ManifestWork{work}}
	theirs, ours := runOCMProgressing(pc), runOurProgressing(pc)
	require.NoError(t, theirs.Err)
	require.NoError(t, ours.Err)
	for who, o := range map[string]progressingOutcome{"OCM": theirs, "ours": ours} {
		assert.Equal(t, "Completed", o.progressing().Reason, who)
		assert.Equal(t, "new", o.Status.ConfigReferences[0].LastAppliedConfig.SpecHash, who)
	}
	assert.False(t, theirs.NewTime, "OCM keeps the time the add-on started waiting")
	assert.True(t, ours.NewTime, "ours starts the soak now")
	assert.True(t, completedAfterOtherFalse(pc, theirs), "W2's predicate")
	assert.Empty(t, onlyCompletedTime(pc, ours), "W2 is the only difference")
}
