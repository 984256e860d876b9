package e2e_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

// TestSoakedAt pins TestChaos's verdict on an earlier cluster when a later
// group's cluster gets the config: done by its newest version, done by a
// version the controller may still have been reading (younger than the
// stale view, or the newest older than it), or not done. It needs no hub.
func TestSoakedAt(t *testing.T) {
	t.Parallel()
	const h = "new"
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	completed := func(stored, since time.Duration) addonVersion {
		return addonVersion{at: at(stored), desired: h, applied: h, progressing: &metav1.Condition{
			Reason: addonv1beta1.ProgressingReasonCompleted, LastTransitionTime: metav1.NewTime(at(since))}}
	}
	flapped := func(stored time.Duration) addonVersion {
		return addonVersion{at: at(stored), desired: h, applied: h, progressing: &metav1.Condition{
			Reason: addonv1beta1.ProgressingReasonProgressing, LastTransitionTime: metav1.NewTime(at(stored))}}
	}
	const stale = 2 * time.Second
	write := 10 * time.Second // the later cluster's write; soak is 2s
	for _, tc := range []struct {
		name string
		hist []addonVersion
		want soakVerdict
	}{
		{"no version", nil, soakNot},
		{"completed and soaked", []addonVersion{completed(1*time.Second, 1*time.Second)}, soakDone},
		{"completed, not soaked", []addonVersion{completed(9*time.Second, 9*time.Second)}, soakNot},
		{"a flap younger than the stale view", []addonVersion{completed(1*time.Second, 1*time.Second), flapped(9 * time.Second)}, soakStale},
		{"a flap older than the stale view", []addonVersion{completed(1*time.Second, 1*time.Second), flapped(7 * time.Second)}, soakNot},
		{"a flap and its recovery, both younger than the stale view", []addonVersion{
			completed(1*time.Second, 1*time.Second), flapped(8500 * time.Millisecond), completed(9500*time.Millisecond, 9500*time.Millisecond)}, soakStale},
		{"a flap older than the stale view and its recovery younger", []addonVersion{
			completed(1*time.Second, 1*time.Second), flapped(7 * time.Second), completed(9*time.Second, 9*time.Second)}, soakNot},
		{"never completed with the config", []addonVersion{{at: at(time.Second), desired: h}}, soakNot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, soakedAt(tc.hist, h, at(write), stale))
		})
	}
}
