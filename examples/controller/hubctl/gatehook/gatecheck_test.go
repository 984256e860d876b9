package gatehook

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/yaml"

	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// shippedManifests is where the controller's manifests install the work
// gate's ValidatingWebhookConfiguration.
const shippedManifests = "../config/webhook/manifests.yaml"

// shippedGateConfiguration reads the work gate's configuration from the
// controller's manifests; the test is skipped when they do not ship one.
func shippedGateConfiguration(t *testing.T) *admissionregistrationv1.ValidatingWebhookConfiguration {
	t.Helper()
	data, err := os.ReadFile(shippedManifests)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s does not exist", shippedManifests)
	}
	require.NoError(t, err)
	docs, err := seed.Documents(data)
	require.NoError(t, err)
	var found []*admissionregistrationv1.ValidatingWebhookConfiguration
	for _, d := range docs {
		var tm metav1.TypeMeta
		require.NoError(t, yaml.Unmarshal(d, &tm))
		if tm.Kind != "ValidatingWebhookConfiguration" {
			continue
		}
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		require.NoError(t, yaml.UnmarshalStrict(d, cfg), shippedManifests)
		found = append(found, cfg)
	}
	require.Len(t, found, 1, "ValidatingWebhookConfigurations in %s", shippedManifests)
	return found[0]
}

// gateReader is a fake hub holding objs, that counts its reads.
func gateReader(t *testing.T, objs ...client.Object) *countingClient {
	t.Helper()
	return &countingClient{Client: hubtest.FakeHubBuilder(t, objs...).Build()}
}

// TestGateWatchCheck: whether the gate guards an add-on's works, as its
// ValidatingWebhookConfiguration says: not at all when this controller
// serves no gate (without reading the hub), nor when the hub has no
// configuration, or one that lets updates through while the gate does not
// answer, or one that does not select the add-on's works; nothing is said
// when the hub cannot be read.
func TestGateWatchCheck(t *testing.T) {
	t.Parallel()
	ignore := func(w *admissionregistrationv1.ValidatingWebhook) {
		w.FailurePolicy = hubtest.PtrTo(admissionregistrationv1.Ignore)
	}
	otherAddon := func(w *admissionregistrationv1.ValidatingWebhook) {
		w.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{addonv1beta1.AddonLabelKey: "managed-serviceaccount"}}
	}
	for _, tc := range []struct {
		name    string
		serves  bool
		objs    func(t *testing.T) []client.Object
		failing bool // the hub answers every read with an error
		want    *hubplan.GateCheck
		msg     string // what the message says
		reads   int64
	}{
		{name: "this controller serves no gate", serves: false, objs: func(*testing.T) []client.Object {
			return []client.Object{hubtest.GateConfiguration(WorkGatePath, WorkGateConfiguration)}
		}, want: &hubplan.GateCheck{}, msg: "-webhook-bind-address"},
		{name: "no configuration", serves: true,
			want: &hubplan.GateCheck{}, msg: "the hub has no ValidatingWebhookConfiguration of the work gate", reads: 1},
		{name: "the controller's configuration", serves: true, objs: func(*testing.T) []client.Object {
			return []client.Object{hubtest.GateConfiguration(WorkGatePath, WorkGateConfiguration)}
		}, want: &hubplan.GateCheck{Guarded: true}, msg: "holds the add-on's ManifestWorks until the rollout reaches each cluster", reads: 1},
		{name: "the shipped configuration, before the controller scopes it", serves: true, objs: func(t *testing.T) []client.Object {
			return []client.Object{shippedGateConfiguration(t)}
		}, want: &hubplan.GateCheck{}, msg: `objectSelector "rolloutkit.io/no-addon-taken" does not select the works of add-on cluster-proxy`, reads: 1},
		{name: "the shipped configuration, scoped", serves: true, objs: func(t *testing.T) []client.Object {
			cfg, changed, err := workgate.Scoped(shippedGateConfiguration(t), gateWebhooks[:], []string{hubtest.SeedAddonName})
			require.NoError(t, err)
			require.True(t, changed)
			return []client.Object{cfg}
		}, want: &hubplan.GateCheck{Guarded: true}, msg: "holds the add-on's ManifestWorks until the rollout reaches each cluster", reads: 1},
		{name: "failurePolicy Ignore", serves: true, objs: func(*testing.T) []client.Object {
			return []client.Object{hubtest.GateConfiguration(WorkGatePath, WorkGateConfiguration, ignore)}
		}, want: &hubplan.GateCheck{}, msg: "has failurePolicy Ignore", reads: 1},
		{name: "selects another add-on's works", serves: true, objs: func(*testing.T) []client.Object {
			return []client.Object{hubtest.GateConfiguration(WorkGatePath, WorkGateConfiguration, otherAddon)}
		}, want: &hubplan.GateCheck{}, msg: "does not select the works of add-on cluster-proxy", reads: 1},
		{name: "the hub cannot be read", serves: true, failing: true, reads: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var objs []client.Object
			if tc.objs != nil {
				objs = tc.objs(t)
			}
			b := hubtest.FakeHubBuilder(t, objs...)
			if tc.failing {
				b = b.WithInterceptorFuncs(interceptor.Funcs{Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
					return errors.New("connection refused")
				}})
			}
			reader := &countingClient{Client: b.Build()}
			g := NewCheck(reader, tc.serves, clockfake.New(hubtest.Start))
			got := g.Guards(context.Background(), hubtest.SeedAddonName)
			assert.Equal(t, tc.reads, reader.reads.Load(), "reads of the hub")
			if tc.want == nil {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tc.want.Guarded, got.Guarded, got.Message)
			assert.Contains(t, got.Message, tc.msg)
		})
	}
	t.Run("no watch", func(t *testing.T) {
		t.Parallel()
		var g *Check
		assert.Nil(t, g.Guards(context.Background(), hubtest.SeedAddonName))
	})
}

// TestGateWatchRereads: the configuration is read at most every 30
// seconds: a check within them answers from the last read, even when the
// configuration changed since; one after them reads it again. A read that
// failed is not remembered.
func TestGateWatchRereads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clockfake.New(hubtest.Start)
	reader := gateReader(t, hubtest.GateConfiguration(WorkGatePath, WorkGateConfiguration))
	g := NewCheck(reader, true, clk)

	require.True(t, g.Guards(ctx, hubtest.SeedAddonName).Guarded)
	require.NoError(t, reader.Delete(ctx, hubtest.GateConfiguration(WorkGatePath, WorkGateConfiguration)))
	clk.Step(gateCheckEvery - time.Second)
	assert.True(t, g.Guards(ctx, hubtest.SeedAddonName).Guarded, "within 30s: the configuration as last read")
	assert.False(t, g.Guards(ctx, "managed-serviceaccount").Guarded, "an add-on it is not scoped to")
	assert.Equal(t, int64(1), reader.reads.Load())

	clk.Step(time.Second)
	assert.False(t, g.Guards(ctx, hubtest.SeedAddonName).Guarded, "after 30s: the configuration read again")
	assert.Equal(t, int64(2), reader.reads.Load())
	assert.False(t, g.Guards(ctx, hubtest.SeedAddonName).Guarded)
	assert.Equal(t, int64(2), reader.reads.Load(), "no configuration is remembered too")

	failing := &countingClient{Client: hubtest.FakeHubBuilder(t).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return errors.New("connection refused")
		}}).Build()}
	g = NewCheck(failing, true, clk)
	assert.Nil(t, g.Guards(ctx, hubtest.SeedAddonName))
	assert.Nil(t, g.Guards(ctx, hubtest.SeedAddonName))
	assert.Equal(t, int64(2), failing.reads.Load(), "a failed read was remembered")
}
