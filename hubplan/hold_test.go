package hubplan_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
)

// TestHold: the work gate's record of what it holds, as it writes it
// write after write, and as the rollout reads it back against the works.
func TestHold(t *testing.T) {
	t.Parallel()
	now := addontest.PlanNow.Add(1500 * time.Millisecond)
	w0, w1 := "addon-cluster-proxy-deploy-0", "addon-cluster-proxy-deploy-1"
	held := hubplan.HeldWrite{Work: w0, Content: "sha256:a", Reason: "ConfigMovedOn", Key: "k1", Why: "config moved on"}

	first, changed := hubplan.WithHeld(nil, held, now, nil)
	require.True(t, changed, "a new hold")
	assert.Equal(t, hubplan.Hold{Since: metav1.NewTime(addontest.PlanNow.Add(time.Second)), Last: metav1.NewTime(addontest.PlanNow.Add(time.Second)),
		Reason: "ConfigMovedOn", Key: "k1", Why: "config moved on", Works: map[string]string{w0: "sha256:a"},
		HeldAt: map[string]metav1.Time{w0: metav1.NewTime(addontest.PlanNow.Add(time.Second))}}, first)

	again, changed := hubplan.WithHeld(&first, held, now.Add(time.Minute), map[string]string{w0: "sha256:a"})
	assert.False(t, changed, "the same write held again changes nothing: no write, no event")
	assert.Equal(t, first, again)

	created := hubplan.HeldWrite{Work: w1, Reason: hubplan.HoldRenderingHeld, Key: "k2", Why: "new rendering", Rendering: "abc"}
	two, changed := hubplan.WithHeld(&first, created, now.Add(time.Minute), map[string]string{w0: "sha256:a"})
	require.True(t, changed)
	assert.Equal(t, first.Since, two.Since, "a hold keeps its Since")
	assert.Equal(t, metav1.NewTime(addontest.PlanNow.Add(time.Minute+time.Second)), two.Last, "and says when it last changed")
	assert.Equal(t, map[string]string{w0: "sha256:a", w1: ""}, two.Works)
	assert.Equal(t, map[string]metav1.Time{w0: first.Last, w1: two.Last}, two.HeldAt, "when each work was held")
	assert.Equal(t, hubplan.HoldRenderingHeld, two.Reason, "the last write's reason")
	assert.Equal(t, "abc", two.Rendering)
	assert.Equal(t, map[string]string{w0: "sha256:a"}, first.Works, "the hold given is not modified")

	for _, tt := range []struct {
		name           string
		content        map[string]string
		held, missing  []string
		heldOnTheAddOn bool
	}{
		{name: "both as held", content: map[string]string{w0: "sha256:a"}, held: []string{w0, w1}, missing: []string{w1}, heldOnTheAddOn: true},
		{name: "deploy-0 changed since", content: map[string]string{w0: "sha256:b"}, held: []string{w1}, missing: []string{w1}, heldOnTheAddOn: true},
		{name: "deploy-1 created since", content: map[string]string{w0: "sha256:a", w1: "sha256:c"}, held: []string{w0}, heldOnTheAddOn: true},
		{name: "both moved on", content: map[string]string{w0: "sha256:b", w1: "sha256:c"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.held, two.Held(tt.content))
			assert.Equal(t, tt.missing, two.Missing(tt.content))
			v, err := two.Annotation()
			require.NoError(t, err)
			mca := addontest.EmptyAddon("prod-cluster")
			mca.Annotations = map[string]string{hubplan.HoldAnnotation: v}
			assert.Equal(t, tt.heldOnTheAddOn, hubplan.Held(mca, tt.content))
			read, ok := hubplan.ReadHold(mca)
			require.True(t, ok)
			assert.Equal(t, two.Works, read.Works)
		})
	}

	// A hold whose works all moved on since starts afresh; one of whose
	// works moved on drops it.
	later := now.Add(time.Hour)
	afresh, changed := hubplan.WithHeld(&two, held, later, map[string]string{w0: "sha256:b", w1: "sha256:c"})
	assert.True(t, changed)
	assert.Equal(t, metav1.NewTime(later.UTC().Truncate(time.Second)), afresh.Since, "a new hold, since now")
	assert.Equal(t, map[string]string{w0: "sha256:a"}, afresh.Works)
	pruned, changed := hubplan.WithHeld(&two, created, later, map[string]string{w0: "sha256:b"})
	assert.True(t, changed)
	assert.Equal(t, two.Since, pruned.Since, "deploy-1 still missing: the hold goes on")
	assert.Equal(t, map[string]string{w1: ""}, pruned.Works, "deploy-0 moved on: out of the record")
	assert.Equal(t, map[string]metav1.Time{w1: metav1.NewTime(later.UTC().Truncate(time.Second))}, pruned.HeldAt)
	assert.Equal(t, map[string]metav1.Time{w0: afresh.Since}, afresh.HeldAt)

	left, ok, changed := hubplan.WithAdmitted(two, w0)
	assert.True(t, ok)
	assert.True(t, changed)
	assert.Equal(t, map[string]string{w1: ""}, left.Works)
	assert.Equal(t, map[string]metav1.Time{w1: two.Last}, left.HeldAt)
	assert.Len(t, two.HeldAt, 2, "the hold given is not modified")
	_, ok, changed = hubplan.WithAdmitted(left, w1)
	assert.False(t, ok, "nothing left held: the record goes")
	assert.True(t, changed)
	same, ok, changed := hubplan.WithAdmitted(left, "addon-other-deploy-0")
	assert.True(t, ok)
	assert.False(t, changed, "a work not held: nothing to write")
	assert.Equal(t, left, same)

	for _, bad := range []string{"", "{", `{"since":"2026-11-30T12:00:00Z","reason":"X","works":{}}`} {
		mca := addontest.EmptyAddon("prod-cluster")
		mca.Annotations = map[string]string{hubplan.HoldAnnotation: bad}
		_, ok := hubplan.ReadHold(mca)
		assert.False(t, ok, "%q is no hold", bad)
	}
	_, ok = hubplan.ReadHold((*addonv1beta1.ManagedClusterAddOn)(nil))
	assert.False(t, ok)
}

// TestWorkContent: a work's content is its manifests, as bytes; nothing
// else of the work counts.
func TestWorkContent(t *testing.T) {
	t.Parallel()
	w := func(raws ...string) *workv1.ManifestWork {
		out := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: "prod-cluster", Name: "addon-cluster-proxy-deploy-0"}}
		for _, r := range raws {
			out.Spec.Workload.Manifests = append(out.Spec.Workload.Manifests, workv1.Manifest{RawExtension: runtime.RawExtension{Raw: []byte(r)}})
		}
		return out
	}
	a, b := `{"kind":"ConfigMap","data":{"k":"1"}}`, `{"kind":"ConfigMap","data":{"k":"2"}}`
	base := hubplan.WorkContent(w(a, b))
	assert.Regexp(t, `^sha256:[0-9a-f]{32}$`, base)
	assert.Equal(t, base, hubplan.WorkContent(w(a, b)), "the same manifests")
	relabelled := w(a, b)
	relabelled.Labels, relabelled.Generation, relabelled.Annotations = map[string]string{"x": "y"}, 7, map[string]string{"a": "b"}
	assert.Equal(t, base, hubplan.WorkContent(relabelled), "metadata is not content")
	for name, other := range map[string]*workv1.ManifestWork{
		"another manifest": w(a, a),
		"swapped":          w(b, a),
		"one less":         w(a),
		"split otherwise":  w(a[:10], a[10:]+b),
		"none":             w(),
	} {
		assert.NotEqual(t, base, hubplan.WorkContent(other), name)
	}
	obj := w()
	obj.Spec.Workload.Manifests = []workv1.Manifest{{RawExtension: runtime.RawExtension{Object: &unstructured.Unstructured{Object: map[string]any{"kind": "ConfigMap"}}}}}
	assert.Equal(t, hubplan.WorkContent(w(`{"kind":"ConfigMap"}`)), hubplan.WorkContent(obj), "an object counts as its JSON")
	assert.Empty(t, hubplan.WorkContent(nil))
}
