package agent

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/rolloutkit/rolloutkit/clock"
)

// Agent plays the spoke side of every ManagedClusterAddOn on the hub.
type Agent struct {
	// Client reads from a cache and writes to the API server.
	Client client.Client
	// Version is the add-on API version to read and write
	// ManagedClusterAddOns in (v1alpha1 or v1beta1); the fields the agent
	// touches have the same shape in both.
	Version string
	// Delay is how long applying a config takes.
	Delay time.Duration
	// Fail tells whether applying target fails on cluster (a namespace);
	// target names the desired configs by their spec hashes, joined with
	// commas. Nil: every apply succeeds.
	Fail func(cluster, target string) bool
	// Clock stamps the conditions. Nil: the real clock.
	Clock clock.PassiveClock

	mu      sync.Mutex
	started map[string]start  // namespace/name -> the apply under way
	failed  map[string]string // namespace/name -> the target whose apply failed
}

// start is an apply under way: which desired configs, since when.
type start struct {
	target string
	at     time.Time
}

// GVK is the ManagedClusterAddOn kind in a's version.
func (a *Agent) GVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: addonv1beta1.GroupName, Version: a.Version, Kind: "ManagedClusterAddOn"}
}

// SetupWithManager registers the agent with mgr.
func (a *Agent) SetupWithManager(mgr ctrl.Manager) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(a.GVK())
	return ctrl.NewControllerManagedBy(mgr).Named("fake-agent").For(u).Complete(a)
}

// Reconcile moves one add-on's apply forward.
func (a *Agent) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(a.GVK())
	if err := a.Client.Get(ctx, req.NamespacedName, u); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	refs, _, err := unstructured.NestedSlice(u.Object, "status", "configReferences")
	if err != nil {
		return ctrl.Result{}, err
	}
	target, pending := desiredTarget(refs)
	key := req.String()
	now := clock.NowOf(a.Clock)
	if !pending {
		a.forget(key)
		// What is desired is what runs (a revert to the config in place,
		// say): the work is applied, so the apply is complete.
		c := meta.FindStatusCondition(conditions(u), addonv1beta1.ManagedClusterAddOnConditionProgressing)
		if len(refs) == 0 || c == nil || c.Reason == addonv1beta1.ProgressingReasonCompleted {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, a.write(ctx, u, refs, true, completed(now))
	}
	began, ok := a.begun(key, target)
	if !ok {
		if a.failedOn(key, target) {
			return ctrl.Result{}, nil // failed: stays so until the desired configs change
		}
		if err := a.write(ctx, u, refs, false, progressing(target, now)); err != nil {
			return ctrl.Result{}, err
		}
		a.begin(key, start{target: target, at: now})
		return ctrl.Result{RequeueAfter: a.Delay}, nil
	}
	if left := began.Add(a.Delay).Sub(now); left > 0 {
		return ctrl.Result{RequeueAfter: left}, nil
	}
	fails := a.Fail != nil && a.Fail(req.Namespace, target)
	cond := completed(now)
	if fails {
		cond = failed(target, now)
	}
	if err := a.write(ctx, u, refs, !fails, cond); err != nil {
		return ctrl.Result{}, err
	}
	log.FromContext(ctx).V(1).Info("applied", "addon", key, "reason", cond.Reason)
	a.forget(key)
	if fails {
		a.fail(key, target)
	}
	return ctrl.Result{}, nil
}

// desiredTarget names the desired configs of refs, and tells whether any
// of them is not applied yet.
func desiredTarget(refs []any) (string, bool) {
	var hashes []string
	pending := false
	for _, r := range refs {
		m, ok := r.(map[string]any)
		if !ok || m["desiredConfig"] == nil {
			continue
		}
		d, _ := m["desiredConfig"].(map[string]any)
		h, _ := d["specHash"].(string)
		hashes = append(hashes, h)
		if !reflect.DeepEqual(m["desiredConfig"], m["lastAppliedConfig"]) {
			pending = true
		}
	}
	return strings.Join(hashes, ","), pending
}

func progressing(target string, now time.Time) metav1.Condition {
	return metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionTrue,
		Reason: addonv1beta1.ProgressingReasonProgressing, Message: "progressing... applying " + target, LastTransitionTime: metav1.NewTime(now)}
}

func completed(now time.Time) metav1.Condition {
	return metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse,
		Reason: addonv1beta1.ProgressingReasonCompleted, Message: "completed with no errors.", LastTransitionTime: metav1.NewTime(now)}
}

func failed(target string, now time.Time) metav1.Condition {
	return metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse,
		Reason: addonv1beta1.ProgressingReasonFailed, Message: "failed to apply " + target, LastTransitionTime: metav1.NewTime(now)}
}

// conditions decodes the add-on's status.conditions.
func conditions(u *unstructured.Unstructured) []metav1.Condition {
	raw, _, err := unstructured.NestedSlice(u.Object, "status", "conditions")
	if err != nil {
		return nil // not a list: as if there were none, and the write replaces it
	}
	var out struct {
		Conditions []metav1.Condition `json:"conditions"`
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(map[string]any{"conditions": raw}, &out); err != nil {
		return nil
	}
	return out.Conditions
}

// write patches the add-on's status: the Progressing condition, and when
// applied, lastAppliedConfig = desiredConfig for every reference. The patch
// carries the resourceVersion read, so a concurrent write by the rollout
// controller makes it fail and the agent reads again.
func (a *Agent) write(ctx context.Context, u *unstructured.Unstructured, refs []any, applied bool, cond metav1.Condition) error {
	next := u.DeepCopy()
	if applied {
		out := make([]any, len(refs))
		for i, r := range refs {
			m, ok := r.(map[string]any)
			if !ok {
				out[i] = r
				continue
			}
			m = runtime.DeepCopyJSON(m)
			if d, ok := m["desiredConfig"]; ok && d != nil {
				m["lastAppliedConfig"] = runtime.DeepCopyJSONValue(d)
			}
			out[i] = m
		}
		if err := unstructured.SetNestedSlice(next.Object, out, "status", "configReferences"); err != nil {
			return err
		}
	}
	conds := conditions(u)
	meta.SetStatusCondition(&conds, cond)
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&struct {
		Conditions []metav1.Condition `json:"conditions"`
	}{conds})
	if err != nil {
		return err
	}
	if err := unstructured.SetNestedField(next.Object, raw["conditions"], "status", "conditions"); err != nil {
		return err
	}
	if err := a.Client.Status().Patch(ctx, next, client.MergeFromWithOptions(u, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("agent: patching %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return nil
}

func (a *Agent) begun(key, target string) (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.started[key]
	return s.at, ok && s.target == target
}

func (a *Agent) begin(key string, s start) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.started == nil {
		a.started = make(map[string]start)
	}
	a.started[key] = s
}

// forget drops the apply under way, and a failure recorded, for key.
func (a *Agent) forget(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.started, key)
	delete(a.failed, key)
}

// fail records that the apply of target failed on key.
func (a *Agent) fail(key, target string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.failed == nil {
		a.failed = make(map[string]string)
	}
	a.failed[key] = target
}

// failedOn reports that the apply of target already failed on key.
func (a *Agent) failedOn(key, target string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.failed[key]
	return ok && t == target
}
