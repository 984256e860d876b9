package addons

import (
	"context"
	"errors"
	"fmt"
	"maps"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// writeRendering writes what the plan decides of the add-on's rendering
// rollout: the rendering revision it opened or completed, on the
// ClusterManagementAddOn obj (as read), then each release, on its
// cluster's add-on, before the config handovers of the same step, so that
// a cluster handed configs and released at once renders both under its
// release. A release is
// a write to the add-on, which addon-framework's agentdeploy watches: the
// add-on's manager renders the cluster's work again at once, without
// waiting out its retry back-off.
//
// Where the plan reads the works (a cluster released, or whose works the
// gate holds), it publishes what they say on the cluster's add-on
// (hubplan.WorksAnnotation), for readers who may not read the works: with
// the release, in its write, and otherwise when they change
// (hubplan.WorksToPublish). works are the add-on's works (nil: not read,
// and nothing is published).
func (r *pass) writeRendering(ctx context.Context, obj client.Object, p hubplan.Plan, mcas []*addonv1beta1.ManagedClusterAddOn,
	works map[string]hubplan.Works) error {
	if p.Rendering != nil {
		v, err := p.Rendering.Annotation()
		if err != nil {
			return err
		}
		next, err := patchedAnnotation(ctx, r.Client, obj, hubplan.RenderingAnnotation, v)
		if err != nil {
			return fmt.Errorf("writing rendering revision %s of clustermanagementaddon %q: %w", p.Rendering.Revision, obj.GetName(), err)
		}
		// The install progressions are written next, locked on the
		// resourceVersion this write returned.
		r.snap.Wrote(next)
		if p.Rendering.CompletedAt != nil {
			log.FromContext(ctx).Info("rendering revision complete: every placement rolled it out", "revision", p.Rendering.Revision)
		} else {
			log.FromContext(ctx).Info("rendering revision opened: the add-on's manager has new content for clusters whose configs did not change",
				"revision", p.Rendering.Revision)
		}
	}
	var errs []error
	var releases []hubplan.ReleaseWrite
	for _, s := range p.Steps {
		for _, w := range s.Releases {
			v, err := w.Release.Annotation()
			if err != nil {
				return err
			}
			kv := map[string]string{hubplan.ReleaseAnnotation: v}
			if works != nil {
				if kv[hubplan.WorksAnnotation], err = works[w.Cluster].Annotation(); err != nil {
					return err
				}
			}
			releases = append(releases, w)
			if err := r.annotateAddon(ctx, obj.GetName(), w.Cluster, kv); err != nil {
				errs = append(errs, fmt.Errorf("releasing rendering %s to managedclusteraddon %q: %w", w.Release.Revision, w.Cluster+"/"+obj.GetName(), err))
			}
		}
	}
	if works == nil {
		return errors.Join(errs...)
	}
	for _, w := range hubplan.WorksToPublish(obj.GetName(), mcas, works, releases) {
		v, err := w.Works.Annotation()
		if err != nil {
			return err
		}
		if err := r.annotateAddon(ctx, obj.GetName(), w.Cluster, map[string]string{hubplan.WorksAnnotation: v}); err != nil {
			errs = append(errs, fmt.Errorf("publishing the works of managedclusteraddon %q: %w", w.Cluster+"/"+obj.GetName(), err))
		}
	}
	return errors.Join(errs...)
}

// annotateAddon sets the annotations kv of the add-on name of cluster, as
// the pass last read or wrote it; an add-on gone meanwhile is left alone.
func (r *pass) annotateAddon(ctx context.Context, name, cluster string, kv map[string]string) error {
	cur, err := r.snap.Read(types.NamespacedName{Namespace: cluster, Name: name})
	if err != nil {
		return err
	}
	next, err := patchedAnnotations(ctx, r.Client, cur, kv)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	}
	r.snap.Wrote(next)
	return nil
}

// patchedAnnotation sets annotation key of cur (as read) to v, locked on
// its resourceVersion, and returns the object as written.
func patchedAnnotation(ctx context.Context, c client.Client, cur client.Object, key, v string) (client.Object, error) {
	return patchedAnnotations(ctx, c, cur, map[string]string{key: v})
}

// patchedAnnotations sets the annotations kv of cur (as read), in one
// patch locked on its resourceVersion, and returns the object as written.
func patchedAnnotations(ctx context.Context, c client.Client, cur client.Object, kv map[string]string) (client.Object, error) {
	next := cur.DeepCopyObject().(client.Object)
	as := next.GetAnnotations()
	if as == nil {
		as = map[string]string{}
	}
	maps.Copy(as, kv)
	next.SetAnnotations(as)
	return next, hubclient.PatchObject(ctx, c, cur, next)
}

// cmaOfWork enqueues the ClusterManagementAddOn a ManifestWork belongs
// to: the one its addon-name label names.
func cmaOfWork(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[addonv1beta1.AddonLabelKey]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: name}}}
}

// workMoved passes the creation and deletion of a work, and an update that
// changes its generation (new content) or its readiness: what the
// rendering rollout counts a cluster done by.
func workMoved() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldW, ok1 := e.ObjectOld.(*workv1.ManifestWork)
			newW, ok2 := e.ObjectNew.(*workv1.ManifestWork)
			if !ok1 || !ok2 {
				return true
			}
			return oldW.Generation != newW.Generation || ready(oldW) != ready(newW)
		},
	}
}

// ready reports whether w is Applied and Available at its generation.
func ready(w *workv1.ManifestWork) bool {
	name := w.Labels[addonv1beta1.AddonLabelKey]
	return hubplan.WorksOf(name, []*workv1.ManifestWork{w})[w.Namespace].Ready
}
