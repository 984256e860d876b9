package addons

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// reviewer answers SelfSubjectAccessReviews as an API server's RBAC would
// for an identity allowed the verbs listed by group/resource, and records
// the reviews asked.
type reviewer struct {
	mu      sync.Mutex
	allowed map[string][]string // "resource.group" -> verbs
	fail    error               // when set, every review fails with it
	asked   []string            // "verb resource.group"
}

func (r *reviewer) allow(gr string, verbs ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.allowed[gr] = verbs
}

func (r *reviewer) reviews() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.asked...)
}

// client returns a fake client whose creates of SelfSubjectAccessReviews
// the reviewer answers.
func (r *reviewer) client(t *testing.T) client.Client {
	t.Helper()
	return hubtest.FakeHubBuilder(t).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			review, ok := obj.(*authorizationv1.SelfSubjectAccessReview)
			if !ok {
				return c.Create(ctx, obj, opts...)
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.fail != nil {
				return r.fail
			}
			a := review.Spec.ResourceAttributes
			gr := schema.GroupResource{Group: a.Group, Resource: a.Resource}.String()
			r.asked = append(r.asked, a.Verb+" "+gr)
			for _, v := range r.allowed[gr] {
				if v == a.Verb && a.Namespace == "" {
					review.Status.Allowed = true
				}
			}
			return nil
		},
	}).Build()
}

func newReviewer() *reviewer { return &reviewer{allowed: map[string][]string{}} }

// TestConfigAccess: a config resource the controller may not list and
// watch is never watched (a watch that cannot list would never sync, and
// every read of the cache would wait on it): the lookup fails at once,
// naming the resource and the verbs refused, and asks again next time, so
// that the watch starts once the access is granted; a resource watched is
// not asked about again.
func TestConfigAccess(t *testing.T) {
	t.Parallel()
	cfg := hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")
	h := hubtest.NewAddonHub(t, hubclient.V1alpha1, nil, cfg)
	rv := newReviewer()
	var watched []schema.GroupVersionKind
	w := newConfigWatches(h.Client, h.Mapper, func(gvk schema.GroupVersionKind) error {
		watched = append(watched, gvk)
		return nil
	}, listWatchAccess(rv.client(t)))
	ref := addonv1beta1.ConfigReferent{Name: "cluster-proxy"}
	lookup := func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (string, error) {
		u, err := w.object(context.Background(), gr, ref)
		if err != nil {
			return "", err
		}
		return hash.Spec(u)
	}
	gr := "managedproxyconfigurations.proxy.open-cluster-management.io"

	_, err := lookup(hubtest.ProxyGR, ref)
	require.Error(t, err)
	assert.Equal(t, `config resource "`+gr+`": the controller may not list or watch it: want list and watch on it granted to the controller `+
		`(a rule of its ClusterRole: see examples/controller/config/rbac/configs_role.yaml)`, err.Error())
	assert.Empty(t, watched, "a resource the controller may not read was watched")

	rv.allow(gr, "list")
	_, err = lookup(hubtest.ProxyGR, ref)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `may not watch it`)
	assert.Empty(t, watched)

	rv.allow(gr, "list", "watch")
	got, err := lookup(hubtest.ProxyGR, ref)
	require.NoError(t, err)
	assert.Equal(t, hubtest.SpecHashOf(t, cfg), got)
	assert.Equal(t, []schema.GroupVersionKind{hubtest.ProxyGVK}, watched)
	asked := len(rv.reviews())
	_, err = lookup(hubtest.ProxyGR, ref)
	require.NoError(t, err)
	assert.Len(t, rv.reviews(), asked, "a watched resource was asked about again")
	assert.Len(t, watched, 1)
	assert.Equal(t, []string{"list " + gr, "watch " + gr, "list " + gr, "watch " + gr, "list " + gr, "watch " + gr}, rv.reviews())

	t.Run("review fails", func(t *testing.T) {
		t.Parallel()
		rv := newReviewer()
		rv.fail = errors.New("connection refused")
		w := newConfigWatches(h.Client, h.Mapper, func(schema.GroupVersionKind) error { return nil }, listWatchAccess(rv.client(t)))
		_, err := w.object(context.Background(), hubtest.ProxyGR, ref)
		require.Error(t, err)
		assert.Equal(t, `config resource "`+gr+`": asking whether the controller may list it: connection refused`, err.Error())
	})
}

// TestAddonReconcileConfigNotReadable: an add-on whose config resource the
// controller may not read says so, naming the resource, on its install
// progression (ConfigurationError) and in a Warning event, rather than
// stalling; nothing is rolled out, and the reconcile comes back within
// notPlannedRetry.
func TestAddonReconcileConfigNotReadable(t *testing.T) {
	t.Parallel()
	for _, version := range hubtest.AddonVersions {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			h := hubtest.NewAddonHub(t, version, nil, hubtest.HubObjects([]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")},
				hubtest.SeedPlacement(t), hubtest.FreshAddons(hubtest.SeedAddonName, hubtest.SeedClusters...))...)
			rec := events.NewFakeRecorder(10)
			r := newAddonReconciler(h, clockfake.New(hubtest.Start), rec)
			r.configs = newConfigWatches(h.Client, h.Mapper, func(schema.GroupVersionKind) error { return nil }, listWatchAccess(newReviewer().client(t)))
			res, err := reconcileAddon(r, hubtest.SeedAddonName)
			require.NoError(t, err)
			assert.Equal(t, notPlannedRetry, res.RequeueAfter)

			const names = `config resource "managedproxyconfigurations.proxy.open-cluster-management.io": the controller may not list or watch it`
			_, cond := hubtest.ProgressionOf(t, h.CMA(hubtest.SeedAddonName), hubtest.SeedRef)
			require.NotNil(t, cond)
			assert.Equal(t, metav1.ConditionFalse, cond.Status)
			assert.Equal(t, addon.ReasonConfigurationError, cond.Reason)
			assert.Contains(t, cond.Message, names)
			require.Len(t, rec.Events, 1)
			event := <-rec.Events
			assert.True(t, strings.HasPrefix(event, "Warning "+addon.ReasonConfigurationError+" placement "+hubtest.SeedRef.Namespace+"/"+hubtest.SeedRef.Name+": "), event)
			assert.Contains(t, event, names)
			for _, c := range hubtest.SeedClusters {
				assert.Empty(t, hubtest.DesiredHash(t, h.Addon(c, hubtest.SeedAddonName)), "%s was rolled out", c)
			}
		})
	}
}
