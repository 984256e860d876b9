package addons

import (
	"context"
	"fmt"
	"strings"
	"sync"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/rolloutkit/rolloutkit/hash"
)

// configWatches reads add-on config objects of any resource from the cache
// and makes sure the add-on controller watches every resource it has read:
// a change of a config's spec starts a new rollout.
type configWatches struct {
	client client.Client
	mapper meta.RESTMapper
	watch  func(schema.GroupVersionKind) error
	// access, when not nil, says whether the controller may read a
	// resource before it is first watched (listWatchAccess). A watch of a
	// resource its RBAC does not let it list never syncs, and every read
	// from the cache would wait on it for ever: a silent stall of every
	// add-on, instead of an error that names the resource.
	access  func(context.Context, schema.GroupResource) error
	mu      sync.Mutex
	watched map[schema.GroupResource]schema.GroupVersionKind
}

func newConfigWatches(c client.Client, mapper meta.RESTMapper, watch func(schema.GroupVersionKind) error,
	access func(context.Context, schema.GroupResource) error) *configWatches {
	return &configWatches{client: c, mapper: mapper, watch: watch, access: access, watched: make(map[schema.GroupResource]schema.GroupVersionKind)}
}

// object reads the config object gr/ref names from the cache, watching
// its resource from the first read on.
func (w *configWatches) object(ctx context.Context, gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (*unstructured.Unstructured, error) {
	gvk, err := w.kindOf(ctx, schema.GroupResource{Group: gr.Group, Resource: gr.Resource})
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := w.client.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, u); err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	return u, nil
}

func (w *configWatches) kindOf(ctx context.Context, gr schema.GroupResource) (schema.GroupVersionKind, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if gvk, ok := w.watched[gr]; ok {
		return gvk, nil
	}
	gvk, err := w.mapper.KindFor(gr.WithVersion(""))
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("config resource %q is not served by the hub: %w", gr.String(), err)
	}
	if w.access != nil {
		if err := w.access(ctx, gr); err != nil {
			return schema.GroupVersionKind{}, err
		}
	}
	if err := w.watch(gvk); err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("watching config resource %q: %w", gr.String(), err)
	}
	w.watched[gr] = gvk
	return gvk, nil
}

// listWatchAccess returns an access check for configWatches: it asks the
// API server, with a SelfSubjectAccessReview per verb, whether the
// controller may list and watch a resource in every namespace, as the
// cache's informer does. A refusal is an error that names the resource,
// the verbs refused and the fix.
func listWatchAccess(c client.Client) func(context.Context, schema.GroupResource) error {
	return func(ctx context.Context, gr schema.GroupResource) error {
		var denied []string
		for _, verb := range []string{"list", "watch"} { // what the cache's informer does
			review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
				ResourceAttributes: &authorizationv1.ResourceAttributes{Group: gr.Group, Resource: gr.Resource, Verb: verb}}}
			if err := c.Create(ctx, review); err != nil {
				return fmt.Errorf("config resource %q: asking whether the controller may %s it: %w", gr.String(), verb, err)
			}
			if !review.Status.Allowed {
				denied = append(denied, verb)
			}
		}
		if len(denied) > 0 {
			return fmt.Errorf("config resource %q: the controller may not %s it: want list and watch on it granted to the controller "+
				"(a rule of its ClusterRole: see examples/controller/config/rbac/configs_role.yaml)", gr.String(), strings.Join(denied, " or "))
		}
		return nil
	}
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
