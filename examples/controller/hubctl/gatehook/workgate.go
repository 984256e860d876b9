package gatehook

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/rolloutmetrics"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// WorkGatePath is the path the controller's webhook server serves the
// ManifestWork gate at: the clientConfig.service.path of the webhook in
// config/webhook/manifests.yaml.
const WorkGatePath = "/validate-work-open-cluster-management-io-v1-manifestwork"

// WorkGateWebhook is the name of the gate's webhook in its
// ValidatingWebhookConfiguration: the API server names it in every
// refusal ("admission webhook ... denied the request").
const WorkGateWebhook = hubplan.WorkGateWebhook

// WorkGateConfiguration is the name of the ValidatingWebhookConfiguration
// that installs the gate on a hub.
const WorkGateConfiguration = "rolloutkit-work-gate"

// ReasonWorkHeld is the reason of the Warning event on a
// ManagedClusterAddOn whose work the gate held.
const ReasonWorkHeld = "WorkHeld"

// WorkGate is the validating admission webhook of the ManifestWorks of the
// add-ons the controller takes: it reads what the rollout says of the
// work's cluster and answers with workgate.Decide, so that a cluster's
// work carries content only once the rollout has reached the cluster with
// it: creates and updates are judged, deletes admitted and reported.
//
// It runs on every replica, leader or not: the API server calls whichever
// the Service picks. It reads the PlacementDecisions and the AddOnRollout
// from the manager's cache, and the config objects from the API server
// itself, so that a config just changed is never judged on an older view
// (a renderer that reads by name may already render it). The
// ClusterManagementAddOn and the ManagedClusterAddOn come from the cache,
// and, when that view would hold the write, from the API server: a
// desired config or a release the rollout has just written is never held
// for a cache that has not seen it. A held write is recorded on the
// cluster's add-on (hubplan.HoldAnnotation), the record taken back
// once new content of the work lands.
type WorkGate struct {
	// Client reads from the manager's cache and writes to the API server
	// (the records of holds).
	Client client.Client
	// Reader reads from the API server (the manager's APIReader).
	Reader client.Reader
	// Mapper maps config resources to kinds.
	Mapper meta.RESTMapper
	// Version is the add-on API version the hub is read in.
	Version string
	// Lifecycles are the lifecycle annotation values the controller takes.
	Lifecycles []string
	// Clock stamps the records of holds. Nil: the real clock.
	Clock clock.PassiveClock
	// Metrics count the refusals. Nil: none.
	Metrics *rolloutmetrics.Metrics
	// Recorder receives a Warning event on the ManagedClusterAddOn of each
	// held work. Nil: none.
	Recorder events.EventRecorder
	// Decoder decodes the works of a request.
	Decoder admission.Decoder

	api      hubclient.AddonAPI
	rollouts bool
}

// SetupWithManager registers the gate at WorkGatePath on mgr's webhook
// server.
func (g *WorkGate) SetupWithManager(mgr ctrl.Manager) error {
	api, err := hubclient.NewAddonAPI(g.Version)
	if err != nil {
		return err
	}
	g.api = api
	if g.rollouts, err = hubclient.ServesRollouts(mgr.GetRESTMapper()); err != nil {
		return err
	}
	// The manager's logger, not the process's, which a test may discard:
	// the gate's errors (a record it could not write) are the controller's.
	logger := mgr.GetLogger().WithName("work-gate")
	mgr.GetWebhookServer().Register(WorkGatePath, &webhook.Admission{Handler: g,
		LogConstructor: func(_ logr.Logger, req *admission.Request) logr.Logger {
			return admission.DefaultLogConstructor(logger, req)
		}})
	return nil
}

// Handle answers one admission request for a ManifestWork: a create or
// an update is judged (workgate.Decide) for every add-on and cluster it
// touches (workgate.Subjects); a delete is admitted, with a warning and an
// event saying what happens to a work created in its place.
func (g *WorkGate) Handle(ctx context.Context, req admission.Request) admission.Response {
	r, err := g.request(req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	dryRun := req.DryRun != nil && *req.DryRun
	if r.Operation == workgate.Delete {
		return g.deleted(ctx, r, dryRun)
	}
	if !workgate.Judges(r) {
		return admission.Allowed("")
	}
	var admitted []string
	for _, id := range workgate.Subjects(r) {
		c, d, err := g.decide(ctx, r, id)
		if err != nil {
			// Nothing can be checked: hold, and say why. The add-on manager
			// retries.
			log.FromContext(ctx).Error(err, "work gate: reading the hub", "work", req.Namespace+"/"+req.Name)
			return admission.Denied(fmt.Sprintf("%s: cannot check the work %s/%s: %v", workgate.Marker, req.Namespace, req.Name, err))
		}
		if !d.Allowed() {
			if !dryRun {
				g.Metrics.Refused(c.AddOn, d.Reason.String())
				g.record(ctx, r, c, d)
			}
			return admission.Denied(d.Message)
		}
		if !dryRun && d.Reason != workgate.NotTaken && d.Reason != workgate.ContentUnchanged && d.Reason != workgate.Exempt {
			g.admitted(ctx, r.New.Name, c)
		}
		admitted = append(admitted, d.Reason.String())
	}
	return admission.Allowed(strings.Join(admitted, ", "))
}

// decide judges r for identity id. What the rollout says of the cluster
// is read from the cache first: it admits the common case (a handover the
// cache has seen, since the manager rendered from its own view of it)
// with one read from the API server, the config's. Only a write that view
// would hold is judged again on the add-on and the ClusterManagementAddOn
// as the API server has them, so that a handover or a release the cache
// has not seen yet is never held for it.
func (g *WorkGate) decide(ctx context.Context, r workgate.Request, id workgate.Identity) (workgate.Cluster, workgate.Decision, error) {
	c, err := g.cluster(ctx, id, g.Client)
	if err == nil && !workgate.Decide(r, c).Allowed() {
		c, err = g.cluster(ctx, id, g.Reader)
	}
	if err != nil {
		return c, workgate.Decision{}, err
	}
	d := workgate.Decide(r, c)
	if !d.Allowed() {
		c.Group, c.Waits = g.waits(ctx, c)
		d = workgate.Decide(r, c)
	}
	return c, d, nil
}

// request decodes an admission request into the gate's terms.
func (g *WorkGate) request(req admission.Request) (workgate.Request, error) {
	r := workgate.Request{Operation: string(req.Operation), SubResource: req.SubResource}
	if len(req.Object.Raw) > 0 {
		r.New = &workv1.ManifestWork{}
		if err := g.Decoder.DecodeRaw(req.Object, r.New); err != nil {
			return r, fmt.Errorf("decoding the ManifestWork: %w", err)
		}
	}
	if len(req.OldObject.Raw) > 0 {
		r.Old = &workv1.ManifestWork{}
		if err := g.Decoder.DecodeRaw(req.OldObject, r.Old); err != nil {
			return r, fmt.Errorf("decoding the stored ManifestWork: %w", err)
		}
	}
	return r, nil
}

// cluster reads what the rollout says of cluster id.Cluster for add-on
// id.AddOn: the ClusterManagementAddOn and the ManagedClusterAddOn from
// hub (the cache, or the API server), the config objects from the API
// server.
func (g *WorkGate) cluster(ctx context.Context, id workgate.Identity, hub client.Reader) (workgate.Cluster, error) {
	c := workgate.Cluster{AddOn: id.AddOn, Name: id.Cluster}
	obj := g.api.NewCMA()
	switch err := hub.Get(ctx, types.NamespacedName{Name: id.AddOn}, obj); {
	case apierrors.IsNotFound(err):
		return c, nil
	case err != nil:
		return c, err
	}
	if !hubclient.Takes(g.Lifecycles, obj.GetAnnotations()) {
		return c, nil
	}
	c.Taken = true
	cma, err := g.api.Snapshot().CMA(obj)
	if err != nil {
		return c, err
	}
	c.Configured = hubplan.HasConfigs(cma)
	mca, err := g.addon(ctx, hub, id)
	if err != nil {
		return c, err
	}
	var rev hubplan.RenderingRevision
	c.Reach, rev, c.Release = hubplan.ReachOf(cma, mca)
	c.Rendering = rev.Revision
	if mca == nil {
		return c, nil // no add-on: the rollout has handed the cluster nothing
	}
	c.Desired = addon.ConfigHashes(mca.Status.ConfigReferences)
	c.Handing = !addon.Applied(mca.Status.ConfigReferences)
	c.Current, err = workgate.CurrentHashes(mca.Status.ConfigReferences, g.specHash(ctx))
	if err != nil {
		log.FromContext(ctx).Info("work gate: a config could not be read", "addon", id.AddOn, "cluster", id.Cluster, "error", err.Error())
	}
	return c, nil
}

// addon reads the ManagedClusterAddOn of identity id from hub, in
// v1beta1; nil when there is none.
func (g *WorkGate) addon(ctx context.Context, hub client.Reader, id workgate.Identity) (*addonv1beta1.ManagedClusterAddOn, error) {
	obj := g.api.NewMCA()
	switch err := hub.Get(ctx, types.NamespacedName{Namespace: id.Cluster, Name: id.AddOn}, obj); {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return g.api.Snapshot().MCA(obj)
}

// specHash reads a config object from the API server and hashes its spec.
func (g *WorkGate) specHash(ctx context.Context) func(addonv1beta1.ConfigGroupResource, addonv1beta1.ConfigReferent) (string, error) {
	return func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (string, error) {
		gvk, err := g.Mapper.KindFor(schema.GroupResource{Group: gr.Group, Resource: gr.Resource}.WithVersion(""))
		if err != nil {
			return "", fmt.Errorf("config resource %q is not served by the hub: %w", gr.Resource+"."+gr.Group, err)
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		if err := g.Reader.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, u); err != nil {
			return "", fmt.Errorf("config %s %s: %w", gr.Resource, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, err)
		}
		return hash.Spec(u)
	}
}

// waits finds the group of cluster c and what it waits for, in the words
// of the status: its group's message in the AddOnRollout's status, else
// the install progression's condition of its placement.
func (g *WorkGate) waits(ctx context.Context, c workgate.Cluster) (group, waits string) {
	obj := g.api.NewCMA()
	if err := g.Client.Get(ctx, types.NamespacedName{Name: c.AddOn}, obj); err != nil {
		return "", ""
	}
	cma, err := g.api.Snapshot().CMA(obj)
	if err != nil {
		return "", ""
	}
	ref, gk, ok := g.groupOf(ctx, cma, c.Name)
	if !ok {
		return "", ""
	}
	group = gk.Name
	if group == "" {
		group = fmt.Sprintf("#%d", gk.Index)
	}
	if g.rollouts {
		var ar v1alpha1.AddOnRollout
		if err := g.Client.Get(ctx, types.NamespacedName{Name: c.AddOn}, &ar); err == nil {
			for _, ps := range ar.Status.Placements {
				if ps.Namespace != ref.Namespace || ps.Name != ref.Name {
					continue
				}
				for _, gs := range ps.Groups {
					if gs.Name == gk.Name && gs.Index == gk.Index && gs.Message != "" {
						return group, fmt.Sprintf("group %s is %s: %s", group, gs.Phase, gs.Message)
					}
				}
			}
		}
	}
	for _, ip := range cma.Status.InstallProgressions {
		if ip.PlacementRef != ref {
			continue
		}
		if cond := meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing); cond != nil {
			return group, fmt.Sprintf("placement %s/%s: %s", ref.Namespace, ref.Name, cond.Message)
		}
	}
	return group, ""
}

// groupOf finds the decision group of cluster among cma's install
// placements, as the add-on reconciler reads them (hubplan.PlacementInputs): the
// last placement that selects it owns it.
func (g *WorkGate) groupOf(ctx context.Context, cma *addonv1beta1.ClusterManagementAddOn, cluster string) (addonv1beta1.PlacementRef, grouping.GroupKey, bool) {
	var (
		ref   addonv1beta1.PlacementRef
		key   grouping.GroupKey
		found bool
	)
	inputs, err := hubplan.PlacementInputs(hubclient.CacheHub{Ctx: ctx, Reader: g.Client}, cma)
	if err != nil {
		return ref, key, false // the message goes without the group
	}
	for i, in := range inputs {
		for _, gr := range in.Groups {
			if slices.Contains(gr.Clusters, cluster) {
				ref, key, found = cma.Spec.InstallStrategy.Placements[i].PlacementRef, gr.GroupKey, true
			}
		}
	}
	return ref, key, found
}
