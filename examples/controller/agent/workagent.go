package agent

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/rolloutkit/rolloutkit/clock"
)

// The reasons and messages of the work conditions, OCM's work agent's.
const (
	reasonApplied   = "AppliedManifestWorkComplete"
	reasonFailed    = "AppliedManifestWorkFailed"
	reasonAvailable = "ResourcesAvailable"
	msgApplied      = "Apply manifest work complete"
	msgFailed       = "Failed to apply manifest work"
	msgAvailable    = "All resources are available"
)

// minRetry is the shortest time between two tries of a failed apply.
const minRetry = time.Second

// WorkAgent plays the work agent of every managed cluster: it applies each
// ManifestWork whose generation it has not applied yet, Delay after it
// first sees that generation, by reporting it Applied and Available at that
// generation; where Fail says so it reports Applied False instead, and tries
// again every Delay (at least a second) until Fail says otherwise or the
// work changes. As OCM's work agent does, it puts WorkFinalizer on a work
// before it reports anything about it, and takes it off a deleted work
// Delay after it sees it deleting, so that the delete completes. What it
// has started is kept in memory: a restarted agent starts the Delay over.
type WorkAgent struct {
	// Client reads from a cache and writes to the API server.
	Client client.Client
	// Delay is how long an apply takes.
	Delay time.Duration
	// Fail tells whether applying a work fails on cluster (the work's
	// namespace); target is WorkTarget of the work. Nil: never.
	Fail func(cluster, target string) bool
	// Clock times the applies and stamps the conditions. Nil: the real
	// clock.
	Clock clock.PassiveClock
	// Workers is how many works are handled at once. 0: one.
	Workers int

	mu      sync.Mutex
	started map[string]begun // namespace/name -> the apply or cleanup under way
}

// begun is a step under way, since when: the apply of a generation, or the
// cleanup of a deleted work.
type begun struct {
	generation int64 // of the apply; 0 for a cleanup
	cleanup    bool
	at         time.Time
}

// SetupWithManager registers w with mgr.
func (w *WorkAgent) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("simulated-work-agent").
		WithOptions(controller.Options{MaxConcurrentReconciles: max(w.Workers, 1)}).
		For(&workv1.ManifestWork{}).Complete(w)
}

// Reconcile moves one work's apply forward, or, once the work is deleted,
// its cleanup. A work is given WorkFinalizer before anything is applied.
func (w *WorkAgent) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	work := &workv1.ManifestWork{}
	key, now := req.String(), clock.NowOf(w.Clock)
	if err := w.Client.Get(ctx, req.NamespacedName, work); err != nil {
		if apierrors.IsNotFound(err) {
			w.forget(key)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !work.DeletionTimestamp.IsZero() {
		return w.cleanUp(ctx, key, work, now)
	}
	if !controllerutil.ContainsFinalizer(work, WorkFinalizer) {
		added, err := w.addFinalizer(ctx, work)
		if err != nil {
			return ctrl.Result{}, err
		}
		work = added
	}
	return w.apply(ctx, key, work, now)
}

// apply moves the apply of a work that carries WorkFinalizer forward.
func (w *WorkAgent) apply(ctx context.Context, key string, work *workv1.ManifestWork, now time.Time) (ctrl.Result, error) {
	gen := work.Generation
	if ready(work) {
		w.forget(key)
		return ctrl.Result{}, nil
	}
	since := w.begin(key, begun{generation: gen, at: now})
	if left := since.Add(w.Delay).Sub(now); left > 0 {
		return ctrl.Result{RequeueAfter: left}, nil
	}
	target := WorkTarget(work)
	if w.Fail != nil && w.Fail(work.Namespace, target) {
		if c := meta.FindStatusCondition(work.Status.Conditions, workv1.WorkApplied); c == nil || c.Status != metav1.ConditionFalse || c.ObservedGeneration != gen {
			if err := w.write(ctx, work, failedConditions(work.Status.Conditions, gen, now)); err != nil {
				return ctrl.Result{}, err
			}
			log.FromContext(ctx).V(1).Info("apply failed", "work", key, "generation", gen, "target", target)
		}
		return ctrl.Result{RequeueAfter: max(w.Delay, minRetry)}, nil
	}
	if err := w.write(ctx, work, appliedConditions(work.Status.Conditions, gen, now)); err != nil {
		return ctrl.Result{}, err
	}
	log.FromContext(ctx).V(1).Info("applied", "work", key, "generation", gen, "target", target)
	w.forget(key)
	return ctrl.Result{}, nil
}

// ready reports that the work is Applied and Available at its generation.
func ready(work *workv1.ManifestWork) bool {
	for _, t := range []string{workv1.WorkApplied, workv1.WorkAvailable} {
		c := meta.FindStatusCondition(work.Status.Conditions, t)
		if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != work.Generation {
			return false
		}
	}
	return true
}

// appliedConditions returns conds with Applied and Available True at gen.
func appliedConditions(conds []metav1.Condition, gen int64, now time.Time) []metav1.Condition {
	out := append([]metav1.Condition(nil), conds...)
	meta.SetStatusCondition(&out, metav1.Condition{Type: workv1.WorkApplied, Status: metav1.ConditionTrue,
		ObservedGeneration: gen, Reason: reasonApplied, Message: msgApplied, LastTransitionTime: metav1.NewTime(now)})
	meta.SetStatusCondition(&out, metav1.Condition{Type: workv1.WorkAvailable, Status: metav1.ConditionTrue,
		ObservedGeneration: gen, Reason: reasonAvailable, Message: msgAvailable, LastTransitionTime: metav1.NewTime(now)})
	return out
}

// failedConditions returns conds with Applied False at gen; Available is
// left as it was (at an older generation, so the work is not ready).
func failedConditions(conds []metav1.Condition, gen int64, now time.Time) []metav1.Condition {
	out := append([]metav1.Condition(nil), conds...)
	meta.SetStatusCondition(&out, metav1.Condition{Type: workv1.WorkApplied, Status: metav1.ConditionFalse,
		ObservedGeneration: gen, Reason: reasonFailed, Message: msgFailed, LastTransitionTime: metav1.NewTime(now)})
	return out
}

// write patches the work's status conditions; the patch carries the
// resourceVersion read, so a concurrent write makes it fail and the agent
// reads again.
func (w *WorkAgent) write(ctx context.Context, work *workv1.ManifestWork, conds []metav1.Condition) error {
	next := work.DeepCopy()
	next.Status.Conditions = conds
	err := w.Client.Status().Patch(ctx, next, client.MergeFromWithOptions(work, client.MergeFromWithOptimisticLock{}), client.FieldOwner(WorkAgentFieldManager))
	if err != nil {
		return fmt.Errorf("patching work %s/%s: %w", work.Namespace, work.Name, err)
	}
	return nil
}

// begin records that step of key began (at step.at), unless the same step
// already had, and returns when it began.
func (w *WorkAgent) begin(key string, step begun) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if b, ok := w.started[key]; ok && b.generation == step.generation && b.cleanup == step.cleanup {
		return b.at
	}
	if w.started == nil {
		w.started = make(map[string]begun)
	}
	w.started[key] = step
	return step.at
}

// forget drops the step under way of key.
func (w *WorkAgent) forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.started, key)
}
