package conformance

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/rollout/addon"
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

// TestProgressingDivergence_MessageHeld shows W3: an add-on that started
// progressing 5 s ago ("mca and work configs mismatch", with its new
// desired configs) whose one work now carries them but is not applied
// yet. OCM's controller patches the message to "work is not ready";
// addon.PlanProgress, which the controller's progress reconciler follows,
// gives the same status and holds the write back until MessageHold after
// the condition's lastTransitionTime, then writes it. Both keep the
// condition True, Progressing, with its time: only when the message is
// written differs. Once the work is ready, both write Completed at once.
func TestProgressingDivergence_MessageHeld(t *testing.T) {
	t.Parallel()
	referent := addonv1alpha1.ConfigReferent{Namespace: "open-cluster-management", Name: "default"}
	since := metav1.NewTime(progressingNow.Add(-5 * time.Second))
	mca := &addonv1alpha1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: "cluster1", Name: "cluster-proxy"},
		Status: addonv1alpha1.ManagedClusterAddOnStatus{
			Conditions: []metav1.Condition{
				{Type: addonv1alpha1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionTrue, Reason: "AddonManifestApplied", LastTransitionTime: since},
				{Type: addonv1alpha1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionTrue, Reason: "Progressing",
					Message: progressingMsgMismatch, LastTransitionTime: since},
			},
			ConfigReferences: []addonv1alpha1.ConfigReference{{
				ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"},
				ConfigReferent:      referent,
				DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: referent, SpecHash: "new"},
			}},
		},
	}
	work := func(available metav1.ConditionStatus) *workv1.ManifestWork {
		return &workv1.ManifestWork{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: "cluster1", Name: "addon-cluster-proxy-deploy-0", Generation: 2,
				Labels:      map[string]string{addonv1alpha1.AddonLabelKey: "cluster-proxy"},
				Annotations: map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: `{"addondeploymentconfigs.addon.open-cluster-management.io/open-cluster-management/default":"new"}`},
			},
			Status: workv1.ManifestWorkStatus{Conditions: []metav1.Condition{
				{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, ObservedGeneration: 2},
				{Type: workv1.WorkAvailable, Status: available, ObservedGeneration: 2},
			}},
		}
	}
	cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}}

	notReady := progressingCase{CMA: cma, MCA: mca, Works: []*workv1.ManifestWork{work(metav1.ConditionFalse)}}
	theirs := runOCMProgressing(notReady)
	require.NoError(t, theirs.Err)
	assert.True(t, theirs.Wrote, "OCM writes the new message")
	assert.Equal(t, progressingMsgNotReady, theirs.progressing().Message)
	assert.False(t, theirs.NewTime, "the condition stays True: its time is kept")

	beta, err := betaAddon(mca)
	require.NoError(t, err)
	for _, tt := range []struct {
		name  string
		now   time.Time
		write bool
	}{
		{"5 s after it started progressing: held", progressingNow, false},
		{"once the hold is over: written", since.Add(addon.MessageHold), true},
	} {
		p, err := addon.PlanProgress(beta, notReady.Works, testingclock.NewFakePassiveClock(tt.now))
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.write, p.Write, tt.name)
		assert.Equal(t, !tt.write, p.RecheckAfter > 0, "%s: held", tt.name)
		ours := progressingOutcome{Wrote: p.Write, Status: p.Status}
		ours.NewTime = settle(&ours.Status, beta.Status.Conditions)
		assert.True(t, equality.Semantic.DeepEqual(theirs.Status, ours.Status), "%s: the status is OCM's, written or not:\nOCM  %s\nours %s", tt.name, theirs, ours)
	}

	ready := progressingCase{CMA: cma, MCA: mca, Works: []*workv1.ManifestWork{work(metav1.ConditionTrue)}}
	theirs = runOCMProgressing(ready)
	require.NoError(t, theirs.Err)
	p, err := addon.PlanProgress(beta, ready.Works, testingclock.NewFakePassiveClock(progressingNow))
	require.NoError(t, err)
	assert.True(t, theirs.Wrote)
	assert.True(t, p.Write, "Completed is written at once")
	assert.Equal(t, "Completed", theirs.progressing().Reason)
	assert.Equal(t, "Completed", readCondition(p.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing).Reason)
}
