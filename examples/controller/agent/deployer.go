package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// staleRetry is how soon the Deployer looks again at an add-on whose
// desired config the config object no longer holds.
const staleRetry = time.Second

// Deployer plays an add-on's manager on the hub, the part addon-framework's
// agentdeploy controller runs: it renders each ManagedClusterAddOn's desired
// configs into the add-on's deploy ManifestWork, and reports the work's
// Applied condition as the add-on's ManifestApplied condition (or, with
// AppliedFromWrites, its own writes of the work).
//
// It renders a work when the work is missing (a deleted work is rendered
// again) or its config-spec-hash annotation differs from the add-on's
// desired configs, and only from the config object's content for the
// desired spec hash: a config object that has moved on (its spec hash is
// no longer the desired one) is not rendered under the old hash, and the
// add-on is looked at again a second later.
type Deployer struct {
	// Client reads (from a cache, config objects included) and writes.
	Client client.Client
	// Mapper finds a config object's kind from its group and resource.
	Mapper meta.RESTMapper
	// Version is the add-on API version of the ManagedClusterAddOns,
	// v1alpha1 or v1beta1.
	Version string
	// Clock stamps the ManifestApplied condition. Nil: the real clock.
	Clock clock.PassiveClock
	// Workers is how many add-ons are rendered at once. 0: one.
	Workers int
	// ByName renders as the real cluster-proxy does on addon-framework: it
	// reads each desired config object by name and renders its newest
	// spec, whatever the desired spec hash, and puts the desired hashes in
	// the work's annotation; it renders again when a config object of a
	// kind in ConfigKinds changes. A write of the work that the hub
	// refuses (the work gate) becomes the add-on's ManifestApplied
	// condition, False, as addon-framework reports it.
	ByName bool
	// ConfigKinds are the config kinds whose changes ByName renders on.
	ConfigKinds []schema.GroupVersionKind
	// Replicas are the replicas of the agent's Deployment: the chart, which
	// a new version of the add-on's manager changes without a config
	// changing (a new rendering). 0: 1. ByName renders a work again when
	// its replicas differ.
	Replicas int32
	// AppliedFromWrites makes the add-on's ManifestApplied condition
	// report the Deployer's writes of the work instead of the work's
	// Applied condition, as an add-on manager that trusts its own writes
	// does: True ("manifests of addon are applied successfully") after
	// every create or update of the work that the hub accepts, False after
	// one it refuses, and, in a pass that writes nothing, left as it is,
	// whatever the work agent reports. False (the default): as
	// addon-framework v1.2.0's agentdeploy reports it, False after a
	// refused write, and otherwise from the work's Applied condition.
	AppliedFromWrites bool
}

// gvk is the ManagedClusterAddOn kind in d's version.
func (d *Deployer) gvk() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: addonv1beta1.GroupName, Version: d.Version, Kind: "ManagedClusterAddOn"}
}

// SetupWithManager registers d with mgr: it runs for an add-on when the
// add-on changes and when its deploy work does.
func (d *Deployer) SetupWithManager(mgr ctrl.Manager) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(d.gvk())
	b := ctrl.NewControllerManagedBy(mgr).Named("simulated-addon-manager").
		WithOptions(controller.Options{MaxConcurrentReconciles: max(d.Workers, 1)}).
		For(u).
		Watches(&workv1.ManifestWork{}, handler.EnqueueRequestsFromMapFunc(addonOfWork))
	if d.ByName {
		for _, gvk := range d.ConfigKinds {
			cfg := &unstructured.Unstructured{}
			cfg.SetGroupVersionKind(gvk)
			b = b.Watches(cfg, handler.EnqueueRequestsFromMapFunc(d.addonsOfConfig))
		}
	}
	return b.Complete(d)
}

// addonsOfConfig enqueues every add-on whose status refers to config
// object o, as addon-framework's addonconfig controller does by bumping
// their lastObservedGeneration.
func (d *Deployer) addonsOfConfig(ctx context.Context, o client.Object) []reconcile.Request {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(d.gvk().GroupVersion().WithKind("ManagedClusterAddOnList"))
	if err := d.Client.List(ctx, list); err != nil {
		log.FromContext(ctx).Error(err, "listing add-ons")
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		status, err := addonStatus(&list.Items[i])
		if err != nil {
			continue
		}
		for _, r := range status.ConfigReferences {
			if r.DesiredConfig != nil && r.DesiredConfig.Name == o.GetName() && r.DesiredConfig.Namespace == o.GetNamespace() {
				reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
				break
			}
		}
	}
	return reqs
}

// addonOfWork enqueues the add-on whose deploy work o is.
func addonOfWork(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[addonv1alpha1.AddonLabelKey]
	if name == "" || !strings.HasPrefix(o.GetName(), "addon-"+name+"-deploy-") {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}

// Reconcile renders one add-on's deploy work and reports its
// ManifestApplied condition.
func (d *Deployer) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	mca := &unstructured.Unstructured{}
	mca.SetGroupVersionKind(d.gvk())
	if err := d.Client.Get(ctx, req.NamespacedName, mca); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	status, err := addonStatus(mca)
	if err != nil {
		return ctrl.Result{}, err
	}
	hashes := addon.ConfigHashes(status.ConfigReferences)
	if len(hashes) == 0 {
		return ctrl.Result{}, nil // nothing desired yet: nothing to deploy
	}
	work := &workv1.ManifestWork{}
	err = d.Client.Get(ctx, types.NamespacedName{Namespace: req.Namespace, Name: WorkName(req.Name)}, work)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	if apierrors.IsNotFound(err) {
		work = nil
	}
	v, render, err := d.render(ctx, req, status.ConfigReferences, work, hashes)
	switch {
	case err != nil:
		return ctrl.Result{}, err
	case render == renderLater:
		return ctrl.Result{RequeueAfter: staleRetry}, nil
	case render == renderNow:
		written, err := d.writeWork(ctx, mca, work, v, hashes)
		if err != nil {
			// As addon-framework's agentdeploy reports a refused write.
			return ctrl.Result{}, errors.Join(err, d.reportRefused(ctx, mca, status.Conditions, err))
		}
		return ctrl.Result{}, d.report(ctx, mca, status.Conditions, written, true)
	}
	return ctrl.Result{}, d.report(ctx, mca, status.Conditions, work, false)
}

// rendering is what to do with an add-on's work.
type rendering int

const (
	renderNot   rendering = iota // the work is as it should be
	renderNow                    // write it
	renderLater                  // the config has moved on: look again soon
)

// render returns the values to render the add-on's work with, and what to
// do: by default write it only when the work's annotation differs from
// the desired hashes, and only from config objects that still have the
// desired specs; ByName, whenever the newest specs' agent (image,
// environment, placement), the replicas or the hashes differ from the
// work's.
func (d *Deployer) render(ctx context.Context, req ctrl.Request, refs []addonv1beta1.ConfigReference, work *workv1.ManifestWork,
	hashes map[string]string) (values, rendering, error) {
	current, ok := workHashes(work)
	changed := work == nil || !ok || !maps.Equal(current, hashes)
	v, stale, err := d.values(ctx, refs)
	switch {
	case err != nil:
		return values{}, renderNot, err
	case d.ByName && changed:
		return v, renderNow, nil
	case d.ByName:
		want := agentDeployment(req.Name, v, d.replicas())
		if got, err := workDeployments(work); err != nil || len(got) != 1 || !equality.Semantic.DeepEqual(got[0].Spec, want.Spec) {
			return v, renderNow, nil
		}
		return v, renderNot, nil
	case !changed:
		return values{}, renderNot, nil
	case stale != "":
		log.FromContext(ctx).V(1).Info("not rendering: the config has moved on from the desired spec hash", "addon", req.String(), "config", stale)
		return values{}, renderLater, nil
	}
	return v, renderNow, nil
}

// values reads the desired config objects of refs and returns what they
// give the agent. stale names a config whose object no longer has the
// desired spec hash ("" when none).
func (d *Deployer) values(ctx context.Context, refs []addonv1beta1.ConfigReference) (v values, stale string, err error) {
	for _, r := range refs {
		if r.DesiredConfig == nil {
			continue
		}
		gvk, err := d.Mapper.KindFor(schema.GroupVersionResource{Group: r.Group, Resource: r.Resource})
		if err != nil {
			return values{}, "", fmt.Errorf("config %s.%s: %w", r.Resource, r.Group, err)
		}
		cfg := &unstructured.Unstructured{}
		cfg.SetGroupVersionKind(gvk)
		key := types.NamespacedName{Namespace: r.DesiredConfig.Namespace, Name: r.DesiredConfig.Name}
		if err := d.Client.Get(ctx, key, cfg); err != nil {
			return values{}, "", fmt.Errorf("config %s.%s %s: %w", r.Resource, r.Group, key, err)
		}
		h, err := hash.Spec(cfg)
		if err != nil {
			return values{}, "", err
		}
		if h != r.DesiredConfig.SpecHash {
			stale = fmt.Sprintf("%s.%s %s", r.Resource, r.Group, key)
		}
		if err := v.add(cfg); err != nil {
			return values{}, "", err
		}
	}
	return v, stale, nil
}

// writeWork creates the add-on's deploy work, or updates cur (read at its
// resourceVersion, so a concurrent write makes it fail), and returns it as
// stored.
func (d *Deployer) writeWork(ctx context.Context, mca *unstructured.Unstructured, cur *workv1.ManifestWork, v values, hashes map[string]string) (*workv1.ManifestWork, error) {
	want, err := renderWork(mca.GetNamespace(), mca.GetName(), v, d.replicas(), hashes)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		want.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: mca.GetAPIVersion(), Kind: mca.GetKind(), Name: mca.GetName(), UID: mca.GetUID(),
		}}
		if err := d.Client.Create(ctx, want, client.FieldOwner(DeployerFieldManager)); err != nil {
			return nil, fmt.Errorf("creating work %s/%s: %w", want.Namespace, want.Name, err)
		}
		return want, nil
	}
	next := cur.DeepCopy()
	if next.Labels == nil {
		next.Labels = map[string]string{}
	}
	if next.Annotations == nil {
		next.Annotations = map[string]string{}
	}
	maps.Copy(next.Labels, want.Labels)
	maps.Copy(next.Annotations, want.Annotations)
	next.Spec = want.Spec
	if err := d.Client.Update(ctx, next, client.FieldOwner(DeployerFieldManager)); err != nil {
		return nil, fmt.Errorf("updating work %s/%s: %w", next.Namespace, next.Name, err)
	}
	return next, nil
}

// addonStatus decodes the status of an add-on in either version: the
// fields used (configReferences' group, resource and desiredConfig, and
// the conditions) have the same shape in both.
func addonStatus(mca *unstructured.Unstructured) (addonv1beta1.ManagedClusterAddOnStatus, error) {
	var status addonv1beta1.ManagedClusterAddOnStatus
	raw, ok, err := unstructured.NestedMap(mca.Object, "status")
	if err != nil || !ok {
		return status, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &status); err != nil {
		return status, fmt.Errorf("add-on %s/%s: decoding its status: %w", mca.GetNamespace(), mca.GetName(), err)
	}
	return status, nil
}

// replicas is the replicas the Deployer renders the agent with.
func (d *Deployer) replicas() int32 {
	return max(d.Replicas, 1)
}
