package hubctl

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// configWatches reads add-on config objects of any resource from the cache
// and makes sure the add-on controller watches every resource it has read:
// a change of a config's spec starts a new rollout.
type configWatches struct {
	client  client.Client
	mapper  meta.RESTMapper
	watch   func(schema.GroupVersionKind) error
	mu      sync.Mutex
	watched map[schema.GroupResource]schema.GroupVersionKind
}

func newConfigWatches(c client.Client, mapper meta.RESTMapper, watch func(schema.GroupVersionKind) error) *configWatches {
	return &configWatches{client: c, mapper: mapper, watch: watch, watched: make(map[schema.GroupResource]schema.GroupVersionKind)}
}

// specHash returns the library's lookup of a config's spec hash.
func (w *configWatches) specHash(ctx context.Context) addon.SpecHashFunc {
	return func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (string, error) {
		gvk, err := w.kindOf(schema.GroupResource{Group: gr.Group, Resource: gr.Resource})
		if err != nil {
			return "", err
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		if err := w.client.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, u); err != nil {
			return "", fmt.Errorf("reading config: %w", err)
		}
		return hash.Spec(u)
	}
}

// kindOf maps a config resource to its kind, and starts watching it the
// first time.
func (w *configWatches) kindOf(gr schema.GroupResource) (schema.GroupVersionKind, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if gvk, ok := w.watched[gr]; ok {
		return gvk, nil
	}
	gvk, err := w.mapper.KindFor(gr.WithVersion(""))
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("config resource %q is not served by the hub: %w", gr.String(), err)
	}
	if err := w.watch(gvk); err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("watching config resource %q: %w", gr.String(), err)
	}
	w.watched[gr] = gvk
	return gvk, nil
}

// specChanged passes the creation and deletion of a config object, and an
// update only when its spec hash changes: a change of metadata or status
// alone starts nothing.
func specChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldU, ok1 := e.ObjectOld.(*unstructured.Unstructured)
			newU, ok2 := e.ObjectNew.(*unstructured.Unstructured)
			if !ok1 || !ok2 {
				return true
			}
			a, errA := hash.Spec(oldU)
			b, errB := hash.Spec(newU)
			return errA != nil || errB != nil || a != b
		},
	}
}
