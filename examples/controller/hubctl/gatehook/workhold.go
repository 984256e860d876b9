package gatehook

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// ReasonWorkDeleted is the reason of the Normal event on a
// ManagedClusterAddOn one of whose works was deleted: it says whether a
// work its manager creates in its place lands at once or waits for the
// rollout.
const ReasonWorkDeleted = "WorkDeleted"

// holdWrite is how long the gate waits for its record of a hold, or of a
// hold taken back, before it answers: the API server waits for the answer
// meanwhile (the webhook's timeoutSeconds is 5).
const holdWrite = 2 * time.Second

// holdRecord bounds a record of a hold, its reads, its retries on a
// conflict and its event included, once it goes on without the request.
const holdRecord = 30 * time.Second

// record records the hold d of cluster c (hold) detached from the
// request: it waits for the record up to holdWrite, so that the record
// normally lands before the answer, and a record that takes longer (a
// loaded API server, conflicts with the add-on's manager) goes on for up
// to holdRecord rather than being lost with the request. The rollout
// learns of holds from these records.
func (g *WorkGate) record(ctx context.Context, r workgate.Request, c workgate.Cluster, d workgate.Decision) {
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), holdRecord)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer cancel()
		g.hold(bg, r, c, d)
	}()
	wait, stop := context.WithTimeout(ctx, holdWrite)
	defer stop()
	select {
	case <-done:
	case <-wait.Done():
	}
}

// hold records that the gate held r for cluster c (decision d) on c's
// add-on (hubplan.HoldAnnotation), so that the rollout learns of it
// whatever the add-on's manager reports, and, when the record is new or
// its reason or what it holds changed, sends a Warning event: one per
// cluster, content and reason, not one per refusal.
func (g *WorkGate) hold(ctx context.Context, r workgate.Request, c workgate.Cluster, d workgate.Decision) {
	w := hubplan.HeldWrite{Work: r.New.Name, Reason: d.Reason.String(), Key: d.Key, Why: d.Why, Rendering: c.Rendering}
	if r.Old != nil && workgate.IdentityOf(r.Old) == (workgate.Identity{AddOn: c.AddOn, Cluster: c.Name}) {
		w.Content = hubplan.WorkContent(r.Old)
	}
	content, err := g.content(ctx, workgate.Identity{AddOn: c.AddOn, Cluster: c.Name})
	if err != nil {
		log.FromContext(ctx).Error(err, "work gate: reading the works of a hold", "addon", c.AddOn, "cluster", c.Name)
		content = nil // every work recorded still counts
	}
	var before *hubplan.Hold
	obj, err := g.updateHold(ctx, c, func(prev *hubplan.Hold) (*hubplan.Hold, bool) {
		before = prev
		next, changed := hubplan.WithHeld(prev, w, clock.NowOf(g.Clock), content)
		return &next, changed
	})
	switch {
	case err != nil:
		log.FromContext(ctx).Error(err, "work gate: recording a hold", "addon", c.AddOn, "cluster", c.Name, "work", w.Work)
		return
	case obj == nil:
		return // no add-on to record it on, or nothing new
	case before != nil && before.Reason == w.Reason && before.Key == w.Key:
		return // held before for the same: reported then
	}
	if g.Recorder != nil {
		g.Recorder.Eventf(obj, nil, corev1.EventTypeWarning, ReasonWorkHeld, hubclient.EventAction("hold", w.Reason, w.Key), "%s", d.Message)
	}
}

// admitted takes work out of the gate's record of a hold of cluster c's
// works, now that new content of it landed. It reads the add-on from the
// cache first, so that an admitted write of a cluster that holds nothing
// (nearly every one) costs no request.
func (g *WorkGate) admitted(ctx context.Context, work string, c workgate.Cluster) {
	if !c.Taken {
		return
	}
	cached, err := g.addon(ctx, g.Client, workgate.Identity{AddOn: c.AddOn, Cluster: c.Name})
	if err != nil || cached == nil {
		return
	}
	if h, ok := hubplan.ReadHold(cached); !ok || !hasWork(h, work) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, holdWrite)
	defer cancel()
	_, err = g.updateHold(ctx, c, func(prev *hubplan.Hold) (*hubplan.Hold, bool) {
		if prev == nil {
			return nil, false
		}
		next, left, changed := hubplan.WithAdmitted(*prev, work)
		if !left {
			return nil, changed
		}
		return &next, changed
	})
	if err != nil {
		log.FromContext(ctx).Error(err, "work gate: clearing a hold", "addon", c.AddOn, "cluster", c.Name, "work", work)
	}
}

// content is what the works of identity id hold now, by name
// (hubplan.WorkContent), from the cache.
func (g *WorkGate) content(ctx context.Context, id workgate.Identity) (map[string]string, error) {
	var l workv1.ManifestWorkList
	if err := g.Client.List(ctx, &l, client.MatchingLabels{addonv1beta1.AddonLabelKey: id.AddOn}); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i := range l.Items {
		if w := &l.Items[i]; workgate.IdentityOf(w) == id {
			out[w.Name] = hubplan.WorkContent(w)
		}
	}
	return out, nil
}

// hasWork reports whether h holds work.
func hasWork(h hubplan.Hold, work string) bool {
	_, ok := h.Works[work]
	return ok
}

// updateHold sets the hold record on cluster c's add-on to what next
// makes of the one it has (nil: none), as read from the API server, with
// a patch locked on its resourceVersion, retried on a conflict; next
// returns nil to remove the record, and false when nothing changes. It
// returns the add-on as written; nil when it wrote nothing or the
// cluster has no add-on.
func (g *WorkGate) updateHold(ctx context.Context, c workgate.Cluster, next func(*hubplan.Hold) (*hubplan.Hold, bool)) (client.Object, error) {
	var written client.Object
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		written = nil
		cur := &metav1.PartialObjectMetadata{}
		cur.SetGroupVersionKind(schema.GroupVersionKind{Group: addonv1beta1.GroupName, Version: g.Version, Kind: "ManagedClusterAddOn"})
		if err := g.Reader.Get(ctx, types.NamespacedName{Namespace: c.Name, Name: c.AddOn}, cur); err != nil {
			return client.IgnoreNotFound(err)
		}
		var prev *hubplan.Hold
		if h, ok := hubplan.ReadHold(&addonv1beta1.ManagedClusterAddOn{ObjectMeta: cur.ObjectMeta}); ok {
			prev = &h
		}
		h, changed := next(prev)
		if !changed {
			return nil
		}
		upd := cur.DeepCopy()
		as := upd.GetAnnotations()
		if as == nil {
			as = map[string]string{}
		}
		if h == nil {
			delete(as, hubplan.HoldAnnotation)
		} else {
			v, err := h.Annotation()
			if err != nil {
				return err
			}
			as[hubplan.HoldAnnotation] = v
		}
		upd.SetAnnotations(as)
		if err := g.Client.Patch(ctx, upd, client.MergeFromWithOptions(cur, client.MergeFromWithOptimisticLock{}), client.FieldOwner(hubclient.FieldManager)); err != nil {
			return err
		}
		written = upd
		return nil
	})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return written, err
}

// deleted admits the delete r of a work, and tells whoever deletes a work
// of an add-on the controller takes (a warning in the answer, which
// kubectl prints) and the add-on's event trail (WorkDeleted) what happens
// to the work the add-on's manager creates in its place: it lands at
// once, or waits until the rollout reaches the cluster, and why
// (workgate.Recreated).
func (g *WorkGate) deleted(ctx context.Context, r workgate.Request, dryRun bool) admission.Response {
	id := workgate.IdentityOf(r.Old)
	if id.AddOn == "" {
		return admission.Allowed("")
	}
	c, err := g.cluster(ctx, id, g.Client)
	if err != nil || !c.Taken {
		return admission.Allowed("")
	}
	d := workgate.Recreated(r.Old, c)
	if !d.Allowed() {
		c.Group, c.Waits = g.waits(ctx, c)
		d = workgate.Recreated(r.Old, c)
	}
	what := fmt.Sprintf("work %s of add-on %s on cluster %s deleted: its add-on's manager creates it again", r.Old.Name, c.AddOn, c.Name)
	if d.Allowed() {
		what += ", and the work gate admits it at once (" + d.Reason.String() + ")"
	} else {
		what += ", and the work gate holds it until the rollout reaches the cluster: " + d.Why
		if c.Waits != "" {
			what += "; " + c.Waits
		}
	}
	if !dryRun && g.Recorder != nil {
		obj := g.api.NewMCA()
		if err := g.Client.Get(ctx, types.NamespacedName{Namespace: id.Cluster, Name: id.AddOn}, obj); err == nil {
			g.Recorder.Eventf(obj, nil, corev1.EventTypeNormal, ReasonWorkDeleted, hubclient.EventAction("delete", r.Old.Name, string(r.Old.UID)), "%s", what)
		}
	}
	return admission.Allowed("").WithWarnings(what)
}
