package chart

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// difference is a difference between the chart's rendering and
// kustomize's that is expected, with why.
type difference struct {
	name, why string
	// undo takes the difference out, from the chart's objects or
	// kustomize's, and returns how many objects it changed: none means
	// the difference no longer occurs, and the list is stale.
	undo func(chart, kust objects) int
}

// helmLabels are the labels the chart gives every object it makes
// (templates/_helpers.tpl's rolloutkit.labels).
var helmLabels = []string{
	"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance",
	"app.kubernetes.io/part-of", "app.kubernetes.io/version",
}

// Names of the objects the differences are about.
const (
	deploymentID = "Deployment.apps " + namespace + "/rolloutkit-controller"
	namespaceID  = "Namespace /" + namespace
	crdKind      = "CustomResourceDefinition.apiextensions.k8s.io"
	keepPolicy   = "helm.sh/resource-policy"
)

// defaultDifferences are every difference between the chart at its
// default values and kustomize build examples/controller/config/default,
// and why each is there. The same hold between the chart with
// certificates.mode cert-manager and config/default with
// components/cert-manager.
func defaultDifferences() []difference {
	return []difference{{
		name: "Helm's labels",
		why: "every object the chart makes carries Helm's standard labels (chart, managed-by, instance, part-of, version), " +
			"which kubectl apply -k has no counterpart for; selectors and the pods' labels stay kustomize's, " +
			"so that a Deployment installed with kustomize can be taken over",
		undo: func(chart, _ objects) int {
			n := 0
			for _, o := range chart {
				if removeLabels(o, helmLabels...) {
					n++
				}
			}
			return n
		},
	}, {
		name: "the namespace",
		why: "Helm makes the release's namespace (helm install --create-namespace) and keeps its own record there, " +
			"so the chart does not render it; without the label pod-security.kubernetes.io/enforce: restricted " +
			"that config/manager/namespace.yaml sets, which the README's helm install adds with kubectl label",
		undo: func(_, kust objects) int {
			if _, ok := kust[namespaceID]; !ok {
				return 0
			}
			delete(kust, namespaceID)
			return 1
		},
	}, {
		name: "CRDs kept on uninstall",
		why: "the CRDs are templates, so that helm upgrade updates them (Helm never upgrades crds/), annotated " +
			keepPolicy + ": keep, so that helm uninstall deletes no AddOnRollout or RolloutApproval",
		undo: func(chart, _ objects) int {
			n := 0
			for _, o := range chart.ofKind(crdKind) {
				if removeAnnotation(o, keepPolicy) {
					n++
				}
			}
			return n
		},
	}, {
		name: "-lifecycle written out",
		why: "the chart passes the taken add-ons (addOns.lifecycles) as -lifecycle always, " +
			"rolloutkit at the defaults, the flag's default, which config/manager/manager.yaml leaves implicit",
		undo: func(chart, _ objects) int {
			return removeArg(chart[deploymentID], "-lifecycle=rolloutkit")
		},
	}}
}

// compareRenderings takes diffs out of chart and kust (copies), checks
// each occurred, and fails t for any difference left: an object in one
// rendering only, or a field that differs.
func compareRenderings(t *testing.T, chart, kust objects, diffs []difference) {
	t.Helper()
	chart, kust = chart.deepCopy(), kust.deepCopy()
	for _, d := range diffs {
		if n := d.undo(chart, kust); n == 0 {
			t.Errorf("expected difference %q does not occur: take it out of the list (%s)", d.name, d.why)
		} else {
			t.Logf("expected difference %q, %d objects: %s", d.name, n, d.why)
		}
	}
	require.Equal(t, kust.ids(), chart.ids(), "the objects of kustomize build (want) and of the chart (got), beside the expected differences")
	for _, k := range kust.ids() {
		if diff := cmp.Diff(kust[k].Object, chart[k].Object); diff != "" {
			t.Errorf("%s: an unexplained difference (-kustomize +chart):\n%s", k, diff)
		}
	}
}

// deepCopy copies objs, objects and all.
func (objs objects) deepCopy() objects {
	out := make(objects, len(objs))
	for k, o := range objs {
		out[k] = o.DeepCopy()
	}
	return out
}

// removeLabels removes keys from o's labels, and the labels when none is
// left; it tells whether it removed any.
func removeLabels(o *unstructured.Unstructured, keys ...string) bool {
	labels := o.GetLabels()
	n := len(labels)
	for _, k := range keys {
		delete(labels, k)
	}
	if len(labels) == n {
		return false
	}
	if len(labels) == 0 {
		unstructured.RemoveNestedField(o.Object, "metadata", "labels")
	} else {
		o.SetLabels(labels)
	}
	return true
}

// removeAnnotation removes key from o's annotations, and the annotations
// when none is left; it tells whether it was there.
func removeAnnotation(o *unstructured.Unstructured, key string) bool {
	ann := o.GetAnnotations()
	if _, ok := ann[key]; !ok {
		return false
	}
	delete(ann, key)
	if len(ann) == 0 {
		unstructured.RemoveNestedField(o.Object, "metadata", "annotations")
	} else {
		o.SetAnnotations(ann)
	}
	return true
}

// containerArgs returns the arguments of the Deployment d's one container.
func containerArgs(t testing.TB, d *unstructured.Unstructured) []string {
	t.Helper()
	require.NotNil(t, d, "no Deployment")
	containers, _, err := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	require.NoError(t, err)
	require.Len(t, containers, 1)
	args, _, err := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
	require.NoError(t, err)
	return args
}

// removeArg removes arg from the Deployment d's container's arguments,
// and returns 1 if it was there, else 0.
func removeArg(d *unstructured.Unstructured, arg string) int {
	if d == nil {
		return 0
	}
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		return 0
	}
	c := containers[0].(map[string]any)
	args, _, _ := unstructured.NestedStringSlice(c, "args")
	i := slices.Index(args, arg)
	if i < 0 {
		return 0
	}
	if err := unstructured.SetNestedStringSlice(c, slices.Delete(args, i, i+1), "args"); err != nil {
		return 0
	}
	if err := unstructured.SetNestedSlice(d.Object, containers, "spec", "template", "spec", "containers"); err != nil {
		return 0
	}
	return 1
}

// TestHelmMatchesKustomize renders the chart at its default values, as
// helm template does, and kustomize build examples/controller/config/default,
// and compares them object by object: each of defaultDifferences must
// occur, and nothing else may differ.
func TestHelmMatchesKustomize(t *testing.T) {
	t.Parallel()
	chart := mustRenderChart(t, nil)
	kust := mustRenderKustomize(t, filepath.Join(configDir, "default"))
	compareRenderings(t, chart, kust, defaultDifferences())
	assert.Contains(t, chart, deploymentID)
}

// mustRenderChart renders the chart with vals, or fails t.
func mustRenderChart(t testing.TB, vals map[string]any) objects {
	t.Helper()
	objs, err := renderChart(vals)
	require.NoError(t, err)
	out, err := byID(objs)
	require.NoError(t, err)
	return out
}

// mustRenderKustomize builds the kustomization in dir, or fails t.
func mustRenderKustomize(t testing.TB, dir string) objects {
	t.Helper()
	objs, err := renderKustomize(dir)
	require.NoError(t, err)
	out, err := byID(objs)
	require.NoError(t, err)
	return out
}
