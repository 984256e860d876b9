package addons

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// addonWriters is how many add-on status patches one reconcile has in
// flight at once. A step writes one patch per add-on it starts or holds
// back; one after another, each waiting for the API server's answer, the
// 2,100 of a 3,500-cluster fleet's largest group took longer than its
// rollout (docs/performance.md). Each patch is of another object, so
// they do not conflict with one another.
const addonWriters = 16

// waitingWrites is how many writes that start nothing (an add-on's
// Configured condition turning False while it waits for its group, or True
// once it has succeeded) one reconcile makes at most, after every start.
// A rollout's first step flips every add-on that waits: 3,150 of a
// 3,500-cluster fleet, which at the client's 100 requests a second kept
// the reconciler from starting the next group for half a minute
// (docs/performance.md). The next reconciles write the rest, soon after.
const waitingWrites = 200

// waitingRetry is how soon a reconcile that left writes for later runs
// again.
const waitingRetry = 100 * time.Millisecond

// writeAddons patches the status of the add-ons of writes (the current
// objects by cluster in byCluster), addonWriters at a time, and returns
// how many it left for a later reconcile, and the errors. The add-ons whose
// desired configs change go first: they start their cluster's rollout,
// and each of those carries its new Progressing condition too
// (withProgress). Of the others, which only change a Configured
// condition, it writes waitingWrites at most.
//
// A conflict stops the fan-out: every write is locked on the
// resourceVersion the cache gave, so a refused one says the cache is
// behind the API server, and the writes not yet sent were computed from
// the same cache. After an API server's restart the informers relist only
// 13 to 29s later, and sending a whole step into that stale cache on every
// retry was most of a hub's refused writes (docs/operations.md). So the
// first write goes alone, as a probe, and no write starts after a refusal;
// the reconcile returns the conflict and runs again on the controller's
// rate limiter (rateLimiter). The writes it did not send are not
// counted as left: the conflict's retry sends them.
func (r *pass) writeAddons(ctx context.Context, byCluster map[string]*addonv1beta1.ManagedClusterAddOn, writes []addon.Write) (int, error) {
	starts := func(w addon.Write) bool {
		return !equality.Semantic.DeepEqual(w.ConfigReferences, byCluster[w.Cluster].Status.ConfigReferences)
	}
	var ordered, waiting []addon.Write
	for _, w := range writes {
		if starts(w) {
			ordered = append(ordered, w)
		} else {
			waiting = append(waiting, w)
		}
	}
	left := max(len(waiting)-waitingWrites, 0)
	ordered = append(ordered, waiting[:len(waiting)-left]...)
	write := func(w addon.Write) error {
		m := byCluster[w.Cluster].DeepCopy()
		m.Status.ConfigReferences, m.Status.Conditions = w.ConfigReferences, w.Conditions
		if starts(w) {
			r.withProgress(ctx, m)
		}
		return r.snap.PatchAddonStatus(ctx, r.Client, m)
	}
	if len(ordered) == 0 {
		return left, nil
	}
	if err := write(ordered[0]); apierrors.IsConflict(err) {
		return left, err
	} else if err != nil {
		return left, errors.Join(err, fanOut(ordered[1:], write))
	}
	return left, fanOut(ordered[1:], write)
}

// fanOut makes the writes, addonWriters at a time, until one is refused
// with a conflict: none starts after it. Every other error is kept
// (errgroup keeps only the first): each write has its own slot, in order.
func fanOut(writes []addon.Write, write func(addon.Write) error) error {
	errs := make([]error, len(writes))
	var conflict atomic.Bool
	var g errgroup.Group
	g.SetLimit(addonWriters)
	for i, w := range writes {
		if conflict.Load() {
			break // g.Go waits for a slot: a refusal may have come meanwhile
		}
		g.Go(func() error {
			if conflict.Load() {
				return nil
			}
			errs[i] = write(w)
			if apierrors.IsConflict(errs[i]) {
				conflict.Store(true)
			}
			return nil
		})
	}
	_ = g.Wait() // nil: the errors are in errs
	return errors.Join(errs...)
}

// withProgress sets m's Progressing condition (and lastAppliedConfigs) to
// what its ManifestWorks give for its new desired configs
// (addon.Progressing), as the progress reconciler would right after the
// write: one patch then says both which configs the add-on should run and
// that it does not run them yet, where OCM's add-on manager sends two (its
// addonconfiguration and addonprogressing controllers), and the progress
// reconciler finds nothing left to write. When the works cannot be read or
// judged, m is left alone and the progress reconciler reports it.
func (r *AddonReconciler) withProgress(ctx context.Context, m *addonv1beta1.ManagedClusterAddOn) {
	works, err := hubclient.AddonWorks(ctx, r.Client, m)
	if err != nil {
		return
	}
	if status, err := addon.Progressing(m, works, r.Clock); err == nil {
		m.Status = status
	}
}
