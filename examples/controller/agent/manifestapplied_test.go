package agent

import (
	"context"
	"errors"
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
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

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
			w, err := renderWork(cluster, addonNm, values{image: oldImage}, 1, map[string]string{hashKey: h})
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
	w, err := renderWork(cluster, addonNm, values{image: oldImage}, 1, map[string]string{hashKey: h})
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

// workGate refuses every update of a work while *closed, as the rollout's
// work gate refuses the write of a work to a cluster outside the current
// group.
func workGate(closed *bool) interceptor.Funcs {
	return interceptor.Funcs{
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if _, ok := obj.(*workv1.ManifestWork); ok && *closed {
				return apierrors.NewForbidden(schema.GroupResource{Group: workv1.GroupName, Resource: "manifestworks"}, obj.GetName(),
					errors.New("rolloutkit work gate: cluster dev-cluster is not in the rollout's current group"))
			}
			return c.Update(ctx, obj, opts...)
		},
	}
}

// manifestAppliedOf returns the add-on's ManifestApplied condition as
// "Status/Reason", or "".
func manifestAppliedOf(t testing.TB, c client.Client) string {
	t.Helper()
	cond := meta.FindStatusCondition(getMCA(t, c).Status.Conditions, addonv1beta1.ManagedClusterAddOnManifestApplied)
	if cond == nil {
		return ""
	}
	return string(cond.Status) + "/" + cond.Reason
}

// setWorkApplied sets the work's Applied condition, as a work agent would.
func setWorkApplied(t testing.TB, c client.Client, status metav1.ConditionStatus) {
	t.Helper()
	w, ok := getWork(t, c)
	require.True(t, ok)
	meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: workv1.WorkApplied, Status: status,
		Reason: reasonApplied, LastTransitionTime: metav1.NewTime(start)})
	require.NoError(t, c.Status().Update(context.Background(), w))
}

// The two kinds of add-on manager through one add-on's life: a created work
// (a landed write), a change the work gate refuses, the same change let
// through (a landed update), then the work agent reporting the work's
// Applied condition False and True, with no write of the work.
func TestDeployerManifestAppliedModes(t *testing.T) {
	t.Parallel()
	const (
		applied  = string(metav1.ConditionTrue) + "/" + addonv1alpha1.AddonManifestAppliedReasonManifestsApplied
		failed   = string(metav1.ConditionFalse) + "/" + addonv1alpha1.AddonManifestAppliedReasonManifestsApplyFailed
		refused  = string(metav1.ConditionFalse) + "/" + addonv1alpha1.AddonManifestAppliedReasonWorkApplyFailed
		notShown = ""
	)
	for name, tc := range map[string]struct {
		fromWrites bool
		want       [5]string // after each step
	}{
		"from the work's Applied condition (addon-framework v1.2.0)": {false, [5]string{notShown, refused, notShown, failed, applied}},
		"from the writes": {true, [5]string{applied, refused, applied, applied, applied}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			oldCfg, oldHash := proxyConfig(t, oldImage)
			newCfg, newHash := proxyConfig(t, newImage)
			closed := false
			c := newClientWith(t, workGate(&closed), oldCfg, mca(oldHash))
			d := newDeployer(c)
			d.AppliedFromWrites = tc.fromWrites
			reconcile := func() error {
				_, err := d.Reconcile(ctx, request(cluster, addonNm))
				return err
			}

			require.NoError(t, reconcile(), "create")
			assert.Equal(t, tc.want[0], manifestAppliedOf(t, c), "after the work was created")

			newCfg.SetResourceVersion(oldCfg.GetResourceVersion())
			require.NoError(t, c.Update(ctx, newCfg))
			m := getMCA(t, c)
			m.Status.ConfigReferences[0].DesiredConfig.SpecHash = newHash
			require.NoError(t, c.Status().Update(ctx, m))
			closed = true
			err := reconcile()
			require.Error(t, err)
			assert.True(t, apierrors.IsForbidden(err), "want the gate's refusal, got %v", err)
			assert.Equal(t, tc.want[1], manifestAppliedOf(t, c), "after the update was refused")
			cond := meta.FindStatusCondition(getMCA(t, c).Status.Conditions, addonv1beta1.ManagedClusterAddOnManifestApplied)
			require.NotNil(t, cond)
			assert.Contains(t, cond.Message, "failed to apply manifestWork: ")
			assert.Contains(t, cond.Message, "rolloutkit work gate")
			w, _ := getWork(t, c)
			assert.Equal(t, oldHash, WorkTarget(w), "a refused write landed")

			closed = false
			require.NoError(t, reconcile(), "update")
			w, _ = getWork(t, c)
			assert.Equal(t, newHash, WorkTarget(w))
			assert.Equal(t, tc.want[2], manifestAppliedOf(t, c), "after the update landed")

			for i, status := range []metav1.ConditionStatus{metav1.ConditionFalse, metav1.ConditionTrue} {
				setWorkApplied(t, c, status)
				before, _ := getWork(t, c)
				require.NoError(t, reconcile())
				after, _ := getWork(t, c)
				assert.Equal(t, before.ResourceVersion, after.ResourceVersion, "the work was written")
				assert.Equal(t, tc.want[3+i], manifestAppliedOf(t, c), "after the work's Applied became %s", status)
			}
		})
	}
}

// From the writes, a pass that writes nothing leaves the add-on's
// ManifestApplied condition as it is, whether there is one or not, and
// whatever the work's Applied condition says.
func TestDeployerAppliedFromWritesLeavesTheCondition(t *testing.T) {
	t.Parallel()
	cfg, h := proxyConfig(t, oldImage)
	refusedBefore := metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionFalse,
		Reason: addonv1alpha1.AddonManifestAppliedReasonWorkApplyFailed, Message: "failed to apply manifestWork: rolloutkit work gate: held",
		LastTransitionTime: metav1.NewTime(start.Add(-time.Minute))}
	for name, tc := range map[string]struct {
		workApplied metav1.ConditionStatus // "": not reported
		before      []metav1.Condition
	}{
		"none, the work applied":          {metav1.ConditionTrue, nil},
		"none, the work failed":           {metav1.ConditionFalse, nil},
		"a refusal, the work applied":     {metav1.ConditionTrue, []metav1.Condition{refusedBefore}},
		"a refusal, the work not applied": {"", []metav1.Condition{refusedBefore}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w, err := renderWork(cluster, addonNm, values{image: oldImage}, 1, map[string]string{hashKey: h})
			require.NoError(t, err)
			if tc.workApplied != "" {
				w.Status.Conditions = []metav1.Condition{{Type: workv1.WorkApplied, Status: tc.workApplied, Reason: reasonApplied,
					LastTransitionTime: metav1.NewTime(start)}}
			}
			m := mca(h)
			m.Status.Conditions = tc.before
			c := newClient(t, cfg.DeepCopy(), m, w)
			before := getMCA(t, c)
			d := newDeployer(c)
			d.AppliedFromWrites = true
			_, err = d.Reconcile(context.Background(), request(cluster, addonNm))
			require.NoError(t, err)
			after := getMCA(t, c)
			assert.Equal(t, before.ResourceVersion, after.ResourceVersion, "the add-on was written")
			assert.Len(t, after.Status.Conditions, len(tc.before))
		})
	}
}
