package agent

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestDeployerRendersTheDesiredConfig(t *testing.T) {
	t.Parallel()
	cfg, h := proxyConfig(t, oldImage)
	c := newClient(t, cfg, mca(h))
	res, err := newDeployer(c).Reconcile(context.Background(), request(cluster, addonNm))
	require.NoError(t, err)
	assert.Equal(t, ctrl.Result{}, res)

	w, ok := getWork(t, c)
	require.True(t, ok, "no work rendered")
	assert.Equal(t, "addon-cluster-proxy-deploy-0", w.Name)
	assert.Equal(t, map[string]string{addonv1alpha1.AddonLabelKey: addonNm}, w.Labels)
	assert.Equal(t, annotation(t, map[string]string{hashKey: h}), w.Annotations[workv1.ManifestConfigSpecHashAnnotationKey])
	assert.Equal(t, h, WorkTarget(w))
	images, err := WorkImages(w)
	require.NoError(t, err)
	assert.Equal(t, []string{oldImage}, images)
	require.Len(t, w.OwnerReferences, 1)
	assert.Equal(t, "ManagedClusterAddOn", w.OwnerReferences[0].Kind)
	assert.Equal(t, addonNm, w.OwnerReferences[0].Name)
	// No Applied condition yet: no ManifestApplied condition either.
	assert.Nil(t, meta.FindStatusCondition(getMCA(t, c).Status.Conditions, addonv1beta1.ManagedClusterAddOnManifestApplied))
}

func TestDeployerUpdatesTheWorkWhenTheDesiredConfigChanges(t *testing.T) {
	t.Parallel()
	_, oldHash := proxyConfig(t, oldImage)
	cfg, newHash := proxyConfig(t, newImage)
	w, err := renderWork(cluster, addonNm, oldImage, map[string]string{hashKey: oldHash})
	require.NoError(t, err)
	c := newClient(t, cfg, mca(newHash), w)
	_, err = newDeployer(c).Reconcile(context.Background(), request(cluster, addonNm))
	require.NoError(t, err)
	got, _ := getWork(t, c)
	assert.Equal(t, newHash, WorkTarget(got))
	images, err := WorkImages(got)
	require.NoError(t, err)
	assert.Equal(t, []string{newImage}, images)
}

// A cluster still on the old config (prod, while dev takes the new one)
// keeps its work as it is, though the config object has moved on.
func TestDeployerLeavesAWorkThatMatches(t *testing.T) {
	t.Parallel()
	_, oldHash := proxyConfig(t, oldImage)
	cfg, _ := proxyConfig(t, newImage)
	w, err := renderWork(cluster, addonNm, oldImage, map[string]string{hashKey: oldHash})
	require.NoError(t, err)
	c := newClient(t, cfg, mca(oldHash), w)
	before, _ := getWork(t, c)
	res, err := newDeployer(c).Reconcile(context.Background(), request(cluster, addonNm))
	require.NoError(t, err)
	assert.Equal(t, ctrl.Result{}, res)
	after, _ := getWork(t, c)
	assert.Equal(t, before.ResourceVersion, after.ResourceVersion, "the work was written")
	images, err := WorkImages(after)
	require.NoError(t, err)
	assert.Equal(t, []string{oldImage}, images)
}

func TestDeployerWaits(t *testing.T) {
	t.Parallel()
	_, oldHash := proxyConfig(t, oldImage)
	cfg, _ := proxyConfig(t, newImage)
	for name, tc := range map[string]struct {
		mca  *addonv1alpha1.ManagedClusterAddOn
		want ctrl.Result
	}{
		"no desired config yet":                    {mca(""), ctrl.Result{}},
		"the config has moved on from the desired": {mca(oldHash), ctrl.Result{RequeueAfter: staleRetry}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newClient(t, cfg.DeepCopy(), tc.mca)
			res, err := newDeployer(c).Reconcile(context.Background(), request(cluster, addonNm))
			require.NoError(t, err)
			assert.Equal(t, tc.want, res)
			_, ok := getWork(t, c)
			assert.False(t, ok, "a work was rendered")
		})
	}
}

func TestDeployerReportsManifestApplied(t *testing.T) {
	t.Parallel()
	cfg, h := proxyConfig(t, oldImage)
	failedBefore := metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionFalse,
		Reason: addonv1alpha1.AddonManifestAppliedReasonManifestsApplyFailed, LastTransitionTime: metav1.NewTime(start.Add(-time.Second))}
	for name, tc := range map[string]struct {
		applied    *metav1.Condition // the work's Applied condition
		before     []metav1.Condition
		wantStatus metav1.ConditionStatus // "": no condition
		wantReason string
	}{
		"applied": {&metav1.Condition{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, Reason: reasonApplied}, nil,
			metav1.ConditionTrue, addonv1alpha1.AddonManifestAppliedReasonManifestsApplied},
		"apply failed": {&metav1.Condition{Type: workv1.WorkApplied, Status: metav1.ConditionFalse, Reason: reasonFailed}, nil,
			metav1.ConditionFalse, addonv1alpha1.AddonManifestAppliedReasonManifestsApplyFailed},
		"not reported: a stale failure is dropped": {nil, []metav1.Condition{failedBefore}, "", ""},
		"not reported: nothing to say":             {nil, nil, "", ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w, err := renderWork(cluster, addonNm, oldImage, map[string]string{hashKey: h})
			require.NoError(t, err)
			if tc.applied != nil {
				tc.applied.LastTransitionTime = metav1.NewTime(start)
				w.Status.Conditions = []metav1.Condition{*tc.applied}
			}
			m := mca(h)
			m.Status.Conditions = tc.before
			c := newClient(t, cfg.DeepCopy(), m, w)
			_, err = newDeployer(c).Reconcile(context.Background(), request(cluster, addonNm))
			require.NoError(t, err)
			got := meta.FindStatusCondition(getMCA(t, c).Status.Conditions, addonv1beta1.ManagedClusterAddOnManifestApplied)
			if tc.wantStatus == "" {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tc.wantStatus, got.Status)
			assert.Equal(t, tc.wantReason, got.Reason)
			// The rest of the status is the controller's: untouched.
			assert.Equal(t, h, getMCA(t, c).Status.ConfigReferences[0].DesiredConfig.SpecHash)
		})
	}
}

// The status patch carries the resourceVersion read: a write by someone
// else in between (the rollout controller's) makes it fail, and nothing of
// theirs is overwritten.
func TestDeployerPatchIsOptimistic(t *testing.T) {
	t.Parallel()
	cfg, h := proxyConfig(t, oldImage)
	w, err := renderWork(cluster, addonNm, oldImage, map[string]string{hashKey: h})
	require.NoError(t, err)
	w.Status.Conditions = []metav1.Condition{{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, Reason: reasonApplied, LastTransitionTime: metav1.NewTime(start)}}
	c := newClient(t, cfg, mca(h), w)
	ctx := context.Background()
	stale := &unstructured.Unstructured{}
	stale.SetGroupVersionKind(schema.GroupVersionKind{Group: addonv1alpha1.GroupName, Version: "v1alpha1", Kind: "ManagedClusterAddOn"})
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: cluster, Name: addonNm}, stale))

	fresh := getMCA(t, c)
	fresh.Status.ConfigReferences[0].DesiredConfig.SpecHash = "controller-wrote-this"
	require.NoError(t, c.Status().Update(ctx, fresh))

	d := newDeployer(c)
	st, err := addonStatus(stale)
	require.NoError(t, err)
	err = d.reportApplied(ctx, stale, st.Conditions, w)
	require.Error(t, err)
	assert.True(t, apierrors.IsConflict(err), "want a conflict, got %v", err)
	assert.Equal(t, "controller-wrote-this", getMCA(t, c).Status.ConfigReferences[0].DesiredConfig.SpecHash)
}

func TestAddonOfWork(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		work *workv1.ManifestWork
		want int
	}{
		"deploy work":    {&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "addon-cluster-proxy-deploy-0", Labels: map[string]string{addonv1alpha1.AddonLabelKey: addonNm}}}, 1},
		"split work":     {&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "addon-cluster-proxy-deploy-1", Labels: map[string]string{addonv1alpha1.AddonLabelKey: addonNm}}}, 1},
		"pre-delete":     {&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "addon-cluster-proxy-pre-delete", Labels: map[string]string{addonv1alpha1.AddonLabelKey: addonNm}}}, 0},
		"another's work": {&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "app"}}, 0},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			reqs := addonOfWork(context.Background(), tc.work)
			require.Len(t, reqs, tc.want)
			if tc.want == 1 {
				assert.Equal(t, request(cluster, addonNm), reqs[0])
			}
		})
	}
}

func TestTarget(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "", Target(nil))
	assert.Equal(t, "h1", Target(map[string]string{"a": "h1"}))
	assert.Equal(t, "h1,h2", Target(map[string]string{"b": "h2", "a": "h1"}), "in the order of the keys")
	assert.Equal(t, "", WorkTarget(&workv1.ManifestWork{}), "no annotation")
	bad := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: "not json"}}}
	assert.Equal(t, "", WorkTarget(bad))
}
