package dryrun

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/verify"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// DryRun reads the live hub through c (add-ons in version) and writes, for
// every ClusterManagementAddOn the controller takes (its lifecycle
// annotation is one of taken; empty: hubclient.DefaultLifecycle) whose install
// strategy is Placements, what the next step of its rollout would be, in
// the words of examples/plan: the plan comes from hubplan.Planner.Plan,
// the call the add-on reconciler makes, under the add-on's AddOnRollout
// and RolloutApprovals when the hub has them. It runs no verification (it
// lists those due) and writes nothing to the hub.
func DryRun(ctx context.Context, c client.Reader, mapper meta.RESTMapper, version, historyNamespace string, taken []string, now time.Time, w io.Writer) error {
	h, err := ReadHub(ctx, c, mapper, version)
	if err != nil {
		return err
	}
	if h.Revisions, err = ReadHistory(ctx, c, historyNamespace); err != nil {
		return err
	}
	names := h.AddonNames()
	planned := 0
	for _, name := range names {
		if !placementsStrategy(h, name, taken) {
			continue
		}
		if planned > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		rep, err := planreport.New(h, name, now, nil)
		if err != nil {
			return err
		}
		if err := rep.WriteText(w); err != nil {
			return err
		}
		planned++
	}
	if planned == 0 {
		_, err := fmt.Fprintf(w, "no ClusterManagementAddOn with install strategy Placements and a lifecycle annotation %s of %s on the hub (%d add-ons)\n",
			hubclient.LifecycleAnnotation, lifecycleList(taken), len(names))
		return err
	}
	return nil
}

// placementsStrategy tells whether the add-on name is one the controller
// takes and rolls out by placements.
func placementsStrategy(h *planreport.Hub, name string, taken []string) bool {
	for _, cma := range h.ClusterManagementAddOns {
		if cma.Name == name {
			return hubclient.Takes(taken, cma.Annotations) && cma.Spec.InstallStrategy.Type == addonv1beta1.AddonInstallStrategyPlacements
		}
	}
	return false
}

// lifecycleList words the lifecycle values taken, for a message.
func lifecycleList(taken []string) string {
	if len(taken) == 0 {
		taken = []string{hubclient.DefaultLifecycle}
	}
	return fmt.Sprintf("%q", taken)
}

// ReadHub reads what a plan needs from a live hub: ManagedClusters,
// ManagedClusterSets, ManagedClusterSetBindings, AddOnPlacementScores,
// Placements, PlacementDecisions, ClusterManagementAddOns and
// ManagedClusterAddOns (in version, converted to v1beta1), every config
// object the add-ons name, and rolloutkit.io's AddOnRollouts and
// RolloutApprovals. A hub that does not serve those (a plain OCM hub,
// without examples/controller/config/crd) has none, as the controller
// finds none there. The add-ons' ManifestWorks are read too; a reader who
// may not list them (a viewer: works can carry Secrets) plans with what
// the controller publishes of them on the add-ons
// (planreport.Hub.WorksPublished).
func ReadHub(ctx context.Context, c client.Reader, mapper meta.RESTMapper, version string) (*planreport.Hub, error) {
	api, err := hubclient.NewAddonAPI(version)
	if err != nil {
		return nil, err
	}
	h := &planreport.Hub{}
	var ps clusterv1beta1.PlacementList
	cmaList, mcaList := api.NewCMAList(), api.NewMCAList()
	for _, l := range []client.ObjectList{&ps, cmaList, mcaList} {
		if err := c.List(ctx, l); err != nil {
			return nil, fmt.Errorf("reading the hub: %w", err)
		}
	}
	sh, err := hubclient.ReadPlacementHub(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("reading the hub: %w", err)
	}
	h.Clusters, h.Decisions = sh.Clusters, sh.Decisions
	h.ManagedClusterSets, h.ManagedClusterSetBindings, h.AddOnPlacementScores = sh.ClusterSets, sh.Bindings, sh.Scores
	h.Placements = hubclient.Pointers(ps.Items)
	var works workv1.ManifestWorkList
	switch err := c.List(ctx, &works, client.HasLabels{addonv1beta1.AddonLabelKey}); {
	case apierrors.IsForbidden(err):
		// A viewer: what the works say, as the controller publishes it
		// on the add-ons where the plan reads it.
		h.WorksPublished = true
	case err != nil:
		return nil, fmt.Errorf("reading the hub: %w", err)
	default:
		h.Works = hubclient.Pointers(works.Items)
	}
	if h.AddOnRollouts, h.RolloutApprovals, err = readControls(ctx, c, mapper); err != nil {
		return nil, fmt.Errorf("reading the hub: %w", err)
	}
	snap := api.Snapshot()
	cmas, err := snap.CMAs(cmaList)
	if err != nil {
		return nil, err
	}
	if h.ManagedClusterAddOns, err = snap.MCAs(mcaList); err != nil {
		return nil, err
	}
	h.ClusterManagementAddOns = cmas
	if err := readConfigs(ctx, c, mapper, h); err != nil {
		return nil, err
	}
	h.ValidateQuery = verify.PromQL()
	return h, nil
}

// readConfigs lists into h every object of the config resources h's
// add-ons name, noting the resource of each kind. A resource the hub does
// not serve is unreadable, with the controller's reason: the plans of its
// configs fail, as the controller's do.
func readConfigs(ctx context.Context, c client.Reader, mapper meta.RESTMapper, h *planreport.Hub) error {
	h.Resources = make(map[schema.GroupVersionKind]schema.GroupResource)
	h.Unreadable = make(map[schema.GroupResource]error)
	for _, gr := range configResources(h.ClusterManagementAddOns) {
		gvk, err := mapper.KindFor(gr.WithVersion(""))
		if err != nil {
			h.Unreadable[gr] = fmt.Errorf("config resource %q is not served by the hub: %w", gr.String(), err)
			continue
		}
		var l unstructured.UnstructuredList
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.List(ctx, &l); err != nil {
			return fmt.Errorf("reading config objects %q: %w", gr.String(), err)
		}
		h.Resources[gvk] = gr
		for i := range l.Items {
			h.Configs = append(h.Configs, &l.Items[i])
		}
	}
	return nil
}

// configResources are the config resources the add-ons name, sorted.
func configResources(cmas []*addonv1beta1.ClusterManagementAddOn) []schema.GroupResource {
	grs := make(map[schema.GroupResource]bool)
	for _, cma := range cmas {
		for _, d := range cma.Spec.DefaultConfigs {
			grs[schema.GroupResource{Group: d.Group, Resource: d.Resource}] = true
		}
		for _, p := range cma.Spec.InstallStrategy.Placements {
			for _, d := range p.Configs {
				grs[schema.GroupResource{Group: d.Group, Resource: d.Resource}] = true
			}
		}
	}
	out := slices.Collect(maps.Keys(grs))
	slices.SortFunc(out, func(a, b schema.GroupResource) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// readControls lists the hub's AddOnRollouts and RolloutApprovals; none
// when the hub does not serve them.
func readControls(ctx context.Context, c client.Reader, mapper meta.RESTMapper) ([]*v1alpha1.AddOnRollout, []*v1alpha1.RolloutApproval, error) {
	serves, err := hubclient.ServesRollouts(mapper)
	if err != nil || !serves {
		return nil, nil, err
	}
	var (
		rollouts  v1alpha1.AddOnRolloutList
		approvals v1alpha1.RolloutApprovalList
	)
	for _, l := range []client.ObjectList{&rollouts, &approvals} {
		if err := c.List(ctx, l); err != nil {
			if meta.IsNoMatchError(err) {
				return nil, nil, nil // the CRDs went away since the mapper looked
			}
			return nil, nil, err
		}
	}
	return hubclient.Pointers(rollouts.Items), hubclient.Pointers(approvals.Items), nil
}

// ReadHistory reads the ControllerRevisions of the add-ons' revision
// histories (labelled hubplan.HistoryLabel) in namespace, the
// controller's, for planreport.Hub.Revisions. A reader who may not list
// them (a viewer bound to no Role there) plans without them: nil, as
// for an empty namespace name.
func ReadHistory(ctx context.Context, c client.Reader, namespace string) ([]*appsv1.ControllerRevision, error) {
	if namespace == "" {
		return nil, nil
	}
	crs, err := hubclient.ListHistory(ctx, c, namespace, "")
	if apierrors.IsForbidden(err) {
		return nil, nil
	}
	return crs, err
}
