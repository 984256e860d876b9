package hubplan

import (
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// ConfirmInterval is the longest an AddOnRollout's status goes without
// being confirmed: when nothing changes and no wait ends sooner on the
// clock, the controller writes it again, with a new lastConfirmedTime,
// this long after the last time. A status whose recheckTime has passed is
// stale: no controller confirmed it.
const ConfirmInterval = 5 * time.Minute

// confirm returns st, the status planned at now, as the one to write, and
// how long until it must be confirmed again.
//
// When st says what read says (the two times aside) and read's
// recheckTime is still ahead, read is returned whole: nothing is written,
// and the status stays confirmed until its recheckTime. Otherwise st is
// confirmed at now, until the sooner of recheck (when a wait ends on the
// clock; 0: none) and ConfirmInterval.
func confirm(st, read v1alpha1.AddOnRolloutStatus, now time.Time, recheck time.Duration) (v1alpha1.AddOnRolloutStatus, time.Duration) {
	st.LastConfirmedTime, st.RecheckTime = read.LastConfirmedTime, read.RecheckTime
	if read.RecheckTime != nil && now.Before(read.RecheckTime.Time) && equality.Semantic.DeepEqual(st, read) {
		return *read.DeepCopy(), read.RecheckTime.Sub(now)
	}
	next := ConfirmInterval
	if recheck > 0 && recheck < next {
		next = recheck
	}
	confirmed, due := metav1.NewTime(now), metav1.NewTime(now.Add(next))
	st.LastConfirmedTime, st.RecheckTime = &confirmed, &due
	return st, next
}
