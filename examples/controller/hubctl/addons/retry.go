package addons

import (
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// conflictRetry is how soon the add-on reconciler runs again after its
// first failed reconcile in a row (a write refused as a conflict, say); the
// other writer's change usually triggers it sooner.
const conflictRetry = 200 * time.Millisecond

// maxConflictRetry bounds the add-on reconciler's retries. The informers
// of a controller whose API server came back relist 13 to 29s later:
// doubling from conflictRetry to this, a reconcile retries about eight
// times in 30s, where a constant conflictRetry made it 150. A change of
// the add-on or its objects runs the reconcile at once all the same.
const maxConflictRetry = 10 * time.Second

// rateLimiter is the add-on reconciler's: how soon the reconcile of an
// add-on that returned an error runs again, conflictRetry after the first,
// doubling with each failed reconcile in a row, at most maxConflictRetry;
// a reconcile that succeeds starts it over.
func rateLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](conflictRetry, maxConflictRetry)
}

// onlyConflicts reports whether every error joined or wrapped in err is an
// API conflict: the reconcile then runs again soon on fresh data, and
// nothing is worth an event.
func onlyConflicts(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !onlyConflicts(e) {
				return false
			}
		}
		return true
	}
	if u := errors.Unwrap(err); u != nil {
		return onlyConflicts(u)
	}
	return apierrors.IsConflict(err)
}
