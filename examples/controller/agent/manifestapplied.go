package agent

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/clock"
)

// msgManifestsApplied is addon-framework's message of a ManifestApplied
// condition that is True.
const msgManifestsApplied = "manifests of addon are applied successfully"

// report sets the add-on's ManifestApplied condition at the end of a pass
// that left its work as work, having written it (wrote) or not: from the
// work's Applied condition, or, with AppliedFromWrites, True after a write
// and unchanged without one.
func (d *Deployer) report(ctx context.Context, mca *unstructured.Unstructured, conds []metav1.Condition, work *workv1.ManifestWork, wrote bool) error {
	switch {
	case !d.AppliedFromWrites:
		return d.reportApplied(ctx, mca, conds, work)
	case wrote:
		return d.reportWritten(ctx, mca, conds)
	}
	return nil
}

// reportWritten sets the add-on's ManifestApplied condition True after a
// write of its work that the hub accepted, as a manager with
// AppliedFromWrites does. The status patch carries the resourceVersion
// read.
func (d *Deployer) reportWritten(ctx context.Context, mca *unstructured.Unstructured, conds []metav1.Condition) error {
	next := withCondition(conds, metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionTrue,
		Reason: addonv1alpha1.AddonManifestAppliedReasonManifestsApplied, Message: msgManifestsApplied,
		LastTransitionTime: metav1.NewTime(clock.NowOf(d.Clock))})
	return d.patchConditions(ctx, mca, conds, next)
}

// withCondition returns a copy of conds with c set as
// meta.SetStatusCondition sets it; conds is not modified.
func withCondition(conds []metav1.Condition, c metav1.Condition) []metav1.Condition {
	out := make([]metav1.Condition, len(conds))
	copy(out, conds)
	meta.SetStatusCondition(&out, c)
	return out
}

// reportApplied sets the add-on's ManifestApplied condition from the
// work's Applied condition, as addon-framework does: True when the work is
// applied, False when its apply failed, and no stale False condition while
// the work agent has not reported yet. The status patch carries the
// resourceVersion read.
func (d *Deployer) reportApplied(ctx context.Context, mca *unstructured.Unstructured, conds []metav1.Condition, work *workv1.ManifestWork) error {
	return d.patchConditions(ctx, mca, conds, manifestApplied(conds, work, clock.NowOf(d.Clock)))
}

// patchConditions writes next in place of the add-on's conditions conds,
// when they differ, locked on the resourceVersion read.
func (d *Deployer) patchConditions(ctx context.Context, mca *unstructured.Unstructured, conds, next []metav1.Condition) error {
	if equality.Semantic.DeepEqual(next, conds) {
		return nil
	}
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&addonv1beta1.ManagedClusterAddOnStatus{Conditions: next})
	if err != nil {
		return err
	}
	patched := mca.DeepCopy()
	if err := unstructured.SetNestedField(patched.Object, raw["conditions"], "status", "conditions"); err != nil {
		return err
	}
	err = d.Client.Status().Patch(ctx, patched, client.MergeFromWithOptions(mca, client.MergeFromWithOptimisticLock{}), client.FieldOwner(DeployerFieldManager))
	if err != nil {
		return fmt.Errorf("patching add-on %s/%s: %w", mca.GetNamespace(), mca.GetName(), err)
	}
	return nil
}

// reportRefused sets the add-on's ManifestApplied condition False with the
// error of a refused write of its work, as addon-framework's agentdeploy
// does ("failed to apply manifestWork: ..."). The status patch carries the
// resourceVersion read.
func (d *Deployer) reportRefused(ctx context.Context, mca *unstructured.Unstructured, conds []metav1.Condition, writeErr error) error {
	next := withCondition(conds, metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionFalse,
		Reason: addonv1alpha1.AddonManifestAppliedReasonWorkApplyFailed, Message: "failed to apply manifestWork: " + writeErr.Error(),
		LastTransitionTime: metav1.NewTime(clock.NowOf(d.Clock))})
	return d.patchConditions(ctx, mca, conds, next)
}

// manifestApplied returns conds with the ManifestApplied condition that
// work's Applied condition gives; conds is not modified.
func manifestApplied(conds []metav1.Condition, work *workv1.ManifestWork, now time.Time) []metav1.Condition {
	out := make([]metav1.Condition, len(conds))
	copy(out, conds)
	applied := meta.FindStatusCondition(work.Status.Conditions, workv1.WorkApplied)
	cond := metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnManifestApplied, LastTransitionTime: metav1.NewTime(now)}
	switch {
	case applied == nil:
		if c := meta.FindStatusCondition(out, cond.Type); c != nil && c.Status == metav1.ConditionFalse {
			meta.RemoveStatusCondition(&out, cond.Type)
		}
		return out
	case applied.Status == metav1.ConditionTrue:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, addonv1alpha1.AddonManifestAppliedReasonManifestsApplied,
			msgManifestsApplied
	default:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, addonv1alpha1.AddonManifestAppliedReasonManifestsApplyFailed,
			"failed to apply the manifests of addon"
	}
	meta.SetStatusCondition(&out, cond)
	return out
}
