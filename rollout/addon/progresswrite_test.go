package addon_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

func TestPlanProgress(t *testing.T) {
	t.Parallel()
	const (
		mismatch = "progressing... mca and work configs mismatch"
		notReady = "progressing... work is not ready"
		noWorks  = "progressing... no addon works"
	)
	// withProgressing is an add-on desiring h1 whose Progressing condition
	// is status/reason/message since the time since.
	withProgressing := func(status metav1.ConditionStatus, reason, message string, since time.Time) *addonv1beta1.ManagedClusterAddOn {
		m := progMCA(progRef("h1"))
		m.Status.Conditions = append(m.Status.Conditions, metav1.Condition{
			Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: status, Reason: reason, Message: message,
			LastTransitionTime: metav1.NewTime(since),
		})
		return m
	}
	rendered := func(h string) *workv1.ManifestWork {
		return progWork("addon-cluster-proxy-deploy-0", `{"`+progKey+`":"`+h+`"}`)
	}
	applying := func(h string) *workv1.ManifestWork { // rendered with h, not applied yet
		w := rendered(h)
		w.Generation = 3
		return w
	}
	tests := []struct {
		name        string
		mca         *addonv1beta1.ManagedClusterAddOn
		works       []*workv1.ManifestWork
		wantMessage string
		write, held bool
		recheck     time.Duration
	}{
		{"mismatch to not ready, just started: held",
			withProgressing(metav1.ConditionTrue, "Progressing", mismatch, progNow.Add(-5*time.Second)), []*workv1.ManifestWork{applying("h1")},
			notReady, false, true, 25 * time.Second},
		{"no works to not ready, just started: held",
			withProgressing(metav1.ConditionTrue, "Progressing", noWorks, progNow.Add(-29*time.Second)), []*workv1.ManifestWork{applying("h1")},
			notReady, false, true, time.Second},
		{"mismatch to not ready, the hold over: written",
			withProgressing(metav1.ConditionTrue, "Progressing", mismatch, progNow.Add(-addon.MessageHold)), []*workv1.ManifestWork{applying("h1")},
			notReady, true, false, 0},
		{"mismatch to Completed: written at once",
			withProgressing(metav1.ConditionTrue, "Progressing", mismatch, progNow), []*workv1.ManifestWork{rendered("h1")},
			"completed with no errors.", true, false, 0},
		{"Completed to mismatch (a new config): written at once",
			withProgressing(metav1.ConditionFalse, "Completed", "completed with no errors.", progNow), []*workv1.ManifestWork{rendered("h0")},
			mismatch, true, false, 0},
		{"the same: nothing to write",
			withProgressing(metav1.ConditionTrue, "Progressing", notReady, progNow), []*workv1.ManifestWork{applying("h1")},
			notReady, false, false, 0},
		{"a message of another reason, same status: written",
			func() *addonv1beta1.ManagedClusterAddOn { // no ManifestApplied: OCM's rule says wait
				m := withProgressing(metav1.ConditionFalse, "WaitingForManifestApplied", "waiting, in other words", progNow)
				m.Status.Conditions = m.Status.Conditions[1:]
				return m
			}(), []*workv1.ManifestWork{applying("h1")},
			"Waiting for ManagedClusterAddOn ManifestApplied condition", true, false, 0},
		{"no Progressing condition yet: written",
			progMCA(progRef("h1")), []*workv1.ManifestWork{applying("h1")},
			notReady, true, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.mca.DeepCopy()
			got, err := addon.PlanProgress(tt.mca, tt.works, fake.New(progNow))
			require.NoError(t, err)
			assert.Equal(t, before, tt.mca, "the input is not modified")
			want, err := addon.Progressing(tt.mca, tt.works, fake.New(progNow))
			require.NoError(t, err)
			assert.Equal(t, want, got.Status, "the status is Progressing's, written or not")
			c := meta.FindStatusCondition(got.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
			require.NotNil(t, c)
			assert.Equal(t, tt.wantMessage, c.Message)
			assert.Equal(t, tt.write, got.Write, "write")
			assert.Equal(t, tt.held, got.RecheckAfter > 0, "held")
			assert.Equal(t, tt.recheck, got.RecheckAfter, "recheck")
		})
	}
}

func TestPlanProgressRefusesWhatProgressingRefuses(t *testing.T) {
	t.Parallel()
	_, err := addon.PlanProgress(nil, nil, fake.New(progNow))
	var fe *field.Error
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "mca", fe.Field)
}
