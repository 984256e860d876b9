package gatehook

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// TestGateScope: the work gate's configuration, as shipped, is scoped to
// the add-ons the controller takes, both webhooks; a reconcile with
// nothing changed writes nothing; an add-on taken or let go changes the
// scope; a hub without the configuration is no error; a conflict is
// retried.
func TestGateScope(t *testing.T) {
	t.Parallel()
	for _, version := range hubtest.AddonVersions {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			named := func(name, lifecycle string) client.Object {
				return hubtest.SeedAddon(t, lifecycle, func(c *addonv1beta1.ClusterManagementAddOn) { c.Name = name })
			}
			h := hubtest.NewAddonHub(t, version, nil, named("cluster-proxy", hubclient.DefaultLifecycle), named("managed-serviceaccount", "addon-manager"),
				named("governance-policy-framework", ""), named("work-manager", hubclient.DefaultLifecycle), shippedGateConfiguration(t))
			s := &GateScope{Client: h.Client, Reader: h.Client, Version: version}
			s.api = h.API
			ctx := context.Background()
			scope := func() []*admissionregistrationv1.ValidatingWebhook {
				var cfg admissionregistrationv1.ValidatingWebhookConfiguration
				require.NoError(t, h.Client.Get(ctx, types.NamespacedName{Name: WorkGateConfiguration}, &cfg))
				var out []*admissionregistrationv1.ValidatingWebhook
				for i := range cfg.Webhooks {
					out = append(out, &cfg.Webhooks[i])
				}
				return out
			}

			res, err := s.Reconcile(ctx, gateScopeKey)
			require.NoError(t, err)
			assert.Equal(t, gateScopeResync, res.RequeueAfter)
			for _, w := range scope() {
				assert.Equal(t, workgate.Scope([]string{"cluster-proxy", "work-manager"}), w.ObjectSelector, w.Name)
			}

			writes := h.Writes.Load()
			_, err = s.Reconcile(ctx, gateScopeKey)
			require.NoError(t, err)
			assert.Equal(t, writes, h.Writes.Load(), "nothing changed: nothing written")

			// work-manager is let go.
			let := h.CMA("work-manager")
			let.Annotations[hubclient.LifecycleAnnotation] = "addon-manager"
			require.NoError(t, h.Client.Update(ctx, h.Store(let)))
			_, err = s.Reconcile(ctx, gateScopeKey)
			require.NoError(t, err)
			for _, w := range scope() {
				assert.Equal(t, workgate.Scope([]string{"cluster-proxy"}), w.ObjectSelector, w.Name)
			}
		})
	}
	t.Run("no configuration", func(t *testing.T) {
		t.Parallel()
		h := hubtest.NewAddonHub(t, hubclient.V1beta1, nil, hubtest.SeedAddon(t, hubclient.DefaultLifecycle))
		s := &GateScope{Client: h.Client, Reader: h.Client, Version: hubclient.V1beta1, api: h.API}
		res, err := s.Reconcile(context.Background(), gateScopeKey)
		require.NoError(t, err)
		assert.Equal(t, gateScopeResync, res.RequeueAfter)
	})
	t.Run("a conflict", func(t *testing.T) {
		t.Parallel()
		c := hubtest.FakeHubBuilder(t, hubtest.SeedAddon(t, hubclient.DefaultLifecycle), shippedGateConfiguration(t)).WithInterceptorFuncs(interceptor.Funcs{
			Patch: func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error {
				return apierrors.NewConflict(schema.GroupResource{Resource: "validatingwebhookconfigurations"}, WorkGateConfiguration, nil)
			}}).Build()
		api, err := hubclient.NewAddonAPI(hubclient.V1beta1)
		require.NoError(t, err)
		s := &GateScope{Client: c, Reader: c, Version: hubclient.V1beta1, api: api}
		_, err = s.Reconcile(context.Background(), gateScopeKey)
		require.Error(t, err)
		assert.True(t, apierrors.IsConflict(err), "not a conflict: %v", err)
	})
}
