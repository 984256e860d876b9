package hash_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/hash"
)

const (
	emptyHash = "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
	escHash   = "22390ae2b41cf58f6b5174764e6b4e2e20b4be3d5b8ef9b6d213764a8a549b61"
	// seedHash is the spec hash of the seed's ManagedProxyConfiguration
	// (both images at vX.Y.Z), cross-checked with Python:
	// sha256(json.dumps(spec-only, sort_keys=True, separators=(",", ":"))).
	seedHash = "27341f6bf06bf9d2cf6f41076a6268f1fda70673eb53f5bed546ff24ea9402c1"
)

func fromJSON(t testing.TB, s string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	require.NoError(t, json.Unmarshal([]byte(s), &obj.Object))
	return obj
}

func TestSpecVectors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		obj  *unstructured.Unstructured
		want string
	}{
		{"nil Object map is {}", &unstructured.Unstructured{}, emptyHash},
		{"empty map", &unstructured.Unstructured{Object: map[string]any{}}, emptyHash},
		{"only dropped keys", fromJSON(t, `{"apiVersion":"v1","kind":"K","metadata":{"name":"x"},"status":{"a":1}}`), emptyHash},
		{"escaped html characters", fromJSON(t, `{"spec":{"b":1,"a":"<&>"}}`), escHash},
		{"dropped keys around spec", fromJSON(t, `{"apiVersion":"v1","kind":"K","metadata":{"name":"x","labels":{"a":"b"}},"spec":{"a":"<&>","b":1},"status":{"ok":true}}`), escHash},
		{"int64 like float64", &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"a": "<&>", "b": int64(1)}}}, escHash},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := hash.Spec(tt.obj)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSpecKeepsOtherTopLevelKeys(t *testing.T) {
	t.Parallel()
	// A ConfigMap-like config has no spec: its data is what is hashed.
	a, err := hash.Spec(fromJSON(t, `{"kind":"ConfigMap","data":{"k":"v1"}}`))
	require.NoError(t, err)
	b, err := hash.Spec(fromJSON(t, `{"kind":"ConfigMap","data":{"k":"v2"}}`))
	require.NoError(t, err)
	assert.NotEqual(t, a, b)
	assert.NotEqual(t, emptyHash, a)
}

func TestSpecErrors(t *testing.T) {
	t.Parallel()
	named := func(spec any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"kind":     "ManagedProxyConfiguration",
			"metadata": map[string]any{"name": "cluster-proxy"},
			"spec":     spec,
		}}
	}
	cycle := map[string]any{}
	cycle["self"] = cycle
	tests := []struct {
		name    string
		obj     *unstructured.Unstructured
		wantErr string
	}{
		{"nil", nil, "nil *unstructured.Unstructured: want an object"},
		{"NaN", named(map[string]any{"x": math.NaN()}), `spec hash of managedproxyconfiguration "cluster-proxy": json: unsupported value: NaN`},
		{"Inf", named(math.Inf(1)), "unsupported value: +Inf"},
		{"func", named(func() {}), "unsupported type: func()"},
		{"chan", named(make(chan int)), "unsupported type: chan int"},
		{"cycle", named(cycle), "encountered a cycle"},
		{"unnamed object", &unstructured.Unstructured{Object: map[string]any{"spec": math.NaN()}}, "spec hash of object: json"},
		{"namespaced", &unstructured.Unstructured{Object: map[string]any{
			"kind": "AddOnDeploymentConfig", "metadata": map[string]any{"namespace": "ns", "name": "c"}, "spec": math.NaN(),
		}}, `spec hash of addondeploymentconfig "ns/c"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := hash.Spec(tt.obj)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Empty(t, got)
		})
	}
}

func TestSpecDoesNotModifyInput(t *testing.T) {
	t.Parallel()
	obj, err := seed.ManagedProxyConfiguration()
	require.NoError(t, err)
	obj.Object["status"] = map[string]any{"ready": true}
	before := obj.DeepCopy()
	_, err = hash.Spec(obj)
	require.NoError(t, err)
	assert.Equal(t, before, obj)
}

// managedProxyConfiguration is a typed stand-in for cluster-proxy's
// ManagedProxyConfiguration, with the fields the seed uses.
type managedProxyConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              proxySpec   `json:"spec"`
	Status            proxyStatus `json:"status,omitempty"`
}

type proxySpec struct {
	Authentication struct {
		Dump struct {
			Secrets struct{} `json:"secrets"`
		} `json:"dump"`
		Signer struct {
			Type string `json:"type"`
		} `json:"signer"`
	} `json:"authentication"`
	ProxyServer struct {
		Image      string `json:"image"`
		Replicas   int32  `json:"replicas"`
		Namespace  string `json:"namespace"`
		Entrypoint struct {
			Type string `json:"type"`
		} `json:"entrypoint"`
		Port int32 `json:"port"`
	} `json:"proxyServer"`
	ProxyAgent struct {
		Image    string `json:"image"`
		Replicas int32  `json:"replicas"`
	} `json:"proxyAgent"`
}

type proxyStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

func (in *managedProxyConfiguration) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Conditions = append([]metav1.Condition(nil), in.Status.Conditions...)
	return &out
}

func seedTyped() *managedProxyConfiguration {
	c := &managedProxyConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "proxy.open-cluster-management.io/v1alpha1", Kind: "ManagedProxyConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy", ResourceVersion: "42", Labels: map[string]string{"a": "b"}},
	}
	c.Spec.Authentication.Signer.Type = "SelfSigned"
	c.Spec.ProxyServer.Image = "quay.io/open-cluster-management/cluster-proxy:vX.Y.Z"
	c.Spec.ProxyServer.Replicas = 1
	c.Spec.ProxyServer.Namespace = "open-cluster-management"
	c.Spec.ProxyServer.Entrypoint.Type = "PortForward"
	c.Spec.ProxyServer.Port = 8091
	c.Spec.ProxyAgent.Image = "quay.io/open-cluster-management/cluster-proxy:vX.Y.Z"
	c.Spec.ProxyAgent.Replicas = 1
	c.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ok"}}
	return c
}

func TestObjectTypedMatchesUnstructured(t *testing.T) {
	t.Parallel()
	u, err := seed.ManagedProxyConfiguration()
	require.NoError(t, err)
	fromSeed, err := hash.Spec(u)
	require.NoError(t, err)

	typed := seedTyped()
	before := typed.DeepCopyObject()
	fromTyped, err := hash.Object(typed)
	require.NoError(t, err)
	assert.Equal(t, fromSeed, fromTyped)
	assert.Equal(t, seedHash, fromTyped)
	assert.Equal(t, before, typed, "Object must not modify its input")

	fromUnstructured, err := hash.Object(u)
	require.NoError(t, err)
	assert.Equal(t, fromSeed, fromUnstructured)

	typed.Spec.ProxyAgent.Image = "quay.io/open-cluster-management/cluster-proxy:v9.9.9"
	changed, err := hash.Object(typed)
	require.NoError(t, err)
	assert.NotEqual(t, fromSeed, changed)
}

func TestObjectErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		obj     runtime.Object
		wantErr string
	}{
		{"nil interface", nil, "spec hash: nil <nil>: want an object"},
		{"typed nil", (*managedProxyConfiguration)(nil), "spec hash: nil *hash_test.managedProxyConfiguration: want an object"},
		{"nil unstructured", (*unstructured.Unstructured)(nil), "spec hash: nil *unstructured.Unstructured: want an object"},
		{"unstructured NaN", &unstructured.Unstructured{Object: map[string]any{"spec": math.NaN()}}, "unsupported value: NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := hash.Object(tt.obj)
			require.Error(t, err)
			assert.Equal(t, "", got)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// TestSeedCaveats shows which edits of the seed's ManagedProxyConfiguration
// start a rollout (change the spec hash) and which do not.
func TestSeedCaveats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		edit    func(t *testing.T, obj *unstructured.Unstructured)
		changes bool
	}{
		{"unchanged", func(*testing.T, *unstructured.Unstructured) {}, false},
		{"new proxyAgent.image starts a rollout", func(t *testing.T, obj *unstructured.Unstructured) {
			set(t, obj, "quay.io/open-cluster-management/cluster-proxy:v9.9.9", "spec", "proxyAgent", "image")
		}, true},
		{"new proxyServer.image alone also changes the hash (seed caveat)", func(t *testing.T, obj *unstructured.Unstructured) {
			set(t, obj, "quay.io/open-cluster-management/cluster-proxy:v9.9.9", "spec", "proxyServer", "image")
		}, true},
		{"both images (the Helm upgrade)", func(t *testing.T, obj *unstructured.Unstructured) {
			set(t, obj, "quay.io/open-cluster-management/cluster-proxy:v9.9.9", "spec", "proxyServer", "image")
			set(t, obj, "quay.io/open-cluster-management/cluster-proxy:v9.9.9", "spec", "proxyAgent", "image")
		}, true},
		{"agent replicas", func(t *testing.T, obj *unstructured.Unstructured) {
			set(t, obj, int64(3), "spec", "proxyAgent", "replicas")
		}, true},
		{"metadata labels and annotations", func(t *testing.T, obj *unstructured.Unstructured) {
			obj.SetLabels(map[string]string{"app.kubernetes.io/version": "vX.Y.Z"})
			obj.SetAnnotations(map[string]string{"meta.helm.sh/release-name": "cluster-proxy"})
			obj.SetResourceVersion("123")
			obj.SetGeneration(7)
		}, false},
		{"status", func(t *testing.T, obj *unstructured.Unstructured) {
			set(t, obj, "True", "status", "ready")
		}, false},
		{"apiVersion", func(t *testing.T, obj *unstructured.Unstructured) {
			obj.SetAPIVersion("proxy.open-cluster-management.io/v1beta1")
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj, err := seed.ManagedProxyConfiguration()
			require.NoError(t, err)
			before, err := hash.Spec(obj)
			require.NoError(t, err)
			assert.Equal(t, seedHash, before)
			tt.edit(t, obj)
			after, err := hash.Spec(obj)
			require.NoError(t, err)
			if tt.changes {
				assert.NotEqual(t, before, after)
			} else {
				assert.Equal(t, before, after)
			}
		})
	}
}

func set(t *testing.T, obj *unstructured.Unstructured, value any, fields ...string) {
	t.Helper()
	require.NoError(t, unstructured.SetNestedField(obj.Object, value, fields...))
}

func BenchmarkSpec(b *testing.B) {
	obj, err := seed.ManagedProxyConfiguration()
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := hash.Spec(obj); err != nil {
			b.Fatal(err)
		}
	}
}
