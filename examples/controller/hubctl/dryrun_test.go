package hubctl

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// addonAt is an add-on whose agent has applied the config hash applied,
// given desired, and reports Progressing (completed when the two are
// equal) since since.
func addonAt(cluster, desired, applied string, since time.Time) *addonv1beta1.ManagedClusterAddOn {
	m := hubtest.FreshAddon(cluster, hubtest.SeedAddonName)
	referent := addonv1beta1.ConfigReferent{Name: "cluster-proxy"}
	m.Status.ConfigReferences = []addonv1beta1.ConfigReference{{ConfigGroupResource: hubtest.ProxyGR,
		DesiredConfig:     &addonv1beta1.ConfigSpecHash{ConfigReferent: referent, SpecHash: desired},
		LastAppliedConfig: &addonv1beta1.ConfigSpecHash{ConfigReferent: referent, SpecHash: applied}}}
	progressing := metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse,
		Reason: addonv1beta1.ProgressingReasonCompleted, Message: "completed with no errors.", LastTransitionTime: metav1.NewTime(since)}
	if desired != applied {
		progressing.Status, progressing.Reason, progressing.Message = metav1.ConditionTrue, addonv1beta1.ProgressingReasonProgressing, "progressing... work is not ready"
	}
	m.Status.Conditions = []metav1.Condition{
		{Type: addonv1beta1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionTrue, Reason: "AddonManifestApplied", LastTransitionTime: metav1.NewTime(since)},
		progressing,
	}
	return m
}

// dryRunHub is a hub where the seed's add-on is half-way through a new
// config, cfg: the seed placement (ProgressivePerGroup) and a canary
// placement (All) both select stg-cluster, which the canary, the last,
// owns. dev has applied cfg and soaks, prod waits for it; on the canary,
// stg runs the old config, qa has a fresh add-on and edge is applying cfg.
// A second add-on, other-addon, is OCM's add-on manager's.
// The hub's operator controls (extra) are added to it as they are.
func dryRunHub(t *testing.T, version string, extra ...client.Object) *hubtest.AddonHub {
	t.Helper()
	return dryRunHubWith(t, version, nil, extra...)
}

// dryRunHubWith is dryRunHub with its objects changed by change (nil:
// none).
func dryRunHubWith(t *testing.T, version string, change func([]client.Object) []client.Object, extra ...client.Object) *hubtest.AddonHub {
	t.Helper()
	cfg := hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")
	now, old := hubtest.SpecHashOf(t, cfg), hubtest.SpecHashOf(t, hubtest.ProxyConfig(t, "cluster-proxy", "v0.9.0"))
	other := hubtest.SeedAddon(t, "addon-manager")
	other.Name, other.UID = "other-addon", "other-addon-uid"
	objs := hubtest.HubObjects(
		[]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle, hubtest.AlsoPlacing(hubtest.CanaryRef, "")), other, cfg},
		hubtest.SeedPlacement(t), hubtest.PlacementWith(hubtest.CanaryRef, "edge-cluster", "qa-cluster", "stg-cluster"),
		[]client.Object{
			addonAt("dev-cluster", now, now, hubtest.Start.Add(-2*time.Minute)),
			addonAt("stg-cluster", old, old, hubtest.Start.Add(-time.Hour)),
			addonAt("prod-cluster", old, old, hubtest.Start.Add(-time.Hour)),
			hubtest.FreshAddon("qa-cluster", hubtest.SeedAddonName),
			addonAt("edge-cluster", now, old, hubtest.Start.Add(-2*time.Minute)),
		}, extra)
	if change != nil {
		objs = change(objs)
	}
	return hubtest.NewAddonHub(t, version, nil, objs...)
}

// groupsOnlyInStatus drops the canary placement's PlacementDecisions and
// leaves their groups in its Placement's status only, on a hub whose
// ManagedClusters the Placement (no predicate) selects all of: OCM's add-on
// manager, and the controller, take groups from PlacementDecisions, so the
// canary has none; scheduling the Placement would give it every cluster.
func groupsOnlyInStatus(objs []client.Object) []client.Object {
	out := []client.Object{hubtest.Cluster("dev-cluster"), hubtest.Cluster("stg-cluster"), hubtest.Cluster("prod-cluster"), hubtest.Cluster("qa-cluster"), hubtest.Cluster("edge-cluster")}
	for _, o := range objs {
		switch o := o.(type) {
		case *clusterv1beta1.PlacementDecision:
			if o.Labels[clusterv1beta1.PlacementLabel] == hubtest.CanaryRef.Name {
				continue
			}
		case *clusterv1beta1.Placement:
			if o.Name == hubtest.CanaryRef.Name {
				p := o.DeepCopy()
				p.Status.NumberOfSelectedClusters = 3
				p.Status.DecisionGroups = []clusterv1beta1.DecisionGroupStatus{{DecisionGroupIndex: 0, ClustersCount: 3,
					Decisions: []string{hubtest.CanaryRef.Name + "-decision-1"}}}
				out = append(out, p)
				continue
			}
		}
		out = append(out, o)
	}
	return out
}

// configUnreadable drops the add-on's config object: the controller cannot
// hash it, and plans nothing on it.
func configUnreadable(objs []client.Object) []client.Object {
	var out []client.Object
	for _, o := range objs {
		if u, ok := o.(*unstructured.Unstructured); ok && u.GetKind() == hubtest.ProxyGVK.Kind {
			continue
		}
		out = append(out, o)
	}
	return out
}

// withRollouts is mapper, which the fake hubs give the config objects'
// kind only, with rolloutkit.io's kinds: a hub with the CRDs of
// examples/controller/config/crd installed.
func withRollouts(mapper meta.RESTMapper) meta.RESTMapper {
	gv := v1alpha1.GroupVersion()
	rm := meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})
	for _, kind := range []string{"AddOnRollout", "RolloutApproval"} {
		rm.Add(gv.WithKind(kind), meta.RESTScopeRoot)
	}
	return meta.MultiRESTMapper{mapper, rm}
}

// dryRunText is what DryRun says of a hub.
type dryRunText struct {
	addons      []string            // the add-ons planned
	start       []string            // "clusters to start now", over every placement
	progression map[string]string   // by placement namespace/name
	startOf     map[string][]string // by placement namespace/name
}

var (
	addonLine     = regexp.MustCompile(`^add-on "([^"]+)" at `)
	placementLine = regexp.MustCompile(`^placement "([^"]+)", `)
	quotedName    = regexp.MustCompile(`"([^"]+)"`)
)

// parseDryRun reads DryRun's text back. The text is for people; the test
// reads it to hold the dry run to its promise that it says what the
// controller will do.
func parseDryRun(t *testing.T, text string) dryRunText {
	t.Helper()
	out := dryRunText{progression: map[string]string{}, startOf: map[string][]string{}}
	names := func(list string) []string {
		got := []string{}
		for _, m := range quotedName.FindAllStringSubmatch(list, -1) {
			got = append(got, m[1])
		}
		return got
	}
	placement := ""
	for _, line := range strings.Split(text, "\n") {
		if m := addonLine.FindStringSubmatch(line); m != nil {
			out.addons = append(out.addons, m[1])
		}
		if m := placementLine.FindStringSubmatch(line); m != nil {
			placement = m[1]
		}
		if s, ok := strings.CutPrefix(line, "  start now: "); ok {
			out.startOf[placement] = names(s)
		}
		if s, ok := strings.CutPrefix(line, "  progression: "); ok {
			out.progression[placement] = s
		}
		if s, ok := strings.CutPrefix(line, "clusters to start now: "); ok {
			out.start = append(out.start, names(s)...)
		}
	}
	return out
}

// TestDryRunAgreesWithReconciler: on one hub, the dry run says what the
// add-on reconciler then does: the clusters it says start now are exactly
// those whose desiredConfig the reconcile changes, and each placement's
// progression is the message the reconcile writes in the placement's
// install progression. Under an AddOnRollout (paused, requiring an
// approval, invalid) it holds what the reconcile holds, and each group's
// status, the pending approvals and the Progressing condition it reports
// are those the reconcile writes in the AddOnRollout's status. The dry run
// writes nothing and plans only the add-ons the controller takes.
func TestDryRunAgreesWithReconciler(t *testing.T) {
	t.Parallel()
	rolloutOf := func(spec v1alpha1.AddOnRolloutSpec) *v1alpha1.AddOnRollout {
		return &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: hubtest.SeedAddonName, Generation: 1}, Spec: spec}
	}
	for _, tc := range []struct {
		name    string
		rollout *v1alpha1.AddOnRollout
		change  func([]client.Object) []client.Object
		start   []string
	}{
		{"no AddOnRollout", nil, nil, []string{"qa-cluster", "stg-cluster"}},
		{"paused", rolloutOf(v1alpha1.AddOnRolloutSpec{Paused: true}), nil, []string{}},
		{"prod needs an approval", rolloutOf(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}), nil, []string{"qa-cluster", "stg-cluster"}},
		{"invalid", rolloutOf(v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{{Days: []string{"Mon"}, Start: "09:00", End: "17:00", TimeZone: "Mars/Olympus"}}}),
			nil, []string{}},
		// where the dry run once differed: it scheduled a Placement without
		// PlacementDecisions, and hashed a config it could not read from a
		// status
		{"groups only in the Placement's status", nil, groupsOnlyInStatus, []string{}},
		{"an unreadable config", nil, configUnreadable, []string{}},
		{"an unreadable config, under an AddOnRollout", rolloutOf(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}), configUnreadable, []string{}},
	} {
		for _, version := range hubtest.AddonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				var extra []client.Object
				if tc.rollout != nil {
					extra = append(extra, tc.rollout)
				}
				h := dryRunHubWith(t, version, tc.change, extra...)
				mapper := withRollouts(h.Mapper)
				var buf bytes.Buffer
				require.NoError(t, DryRun(context.Background(), h.Client, mapper, version, nil, hubtest.Start, &buf))
				text := buf.String()
				assert.Zero(t, h.Writes.Load(), "the dry run wrote")
				dry := parseDryRun(t, text)
				require.Equal(t, []string{hubtest.SeedAddonName}, dry.addons, "the dry run planned another add-on than the controller's:\n%s", text)
				require.ElementsMatch(t, tc.start, dry.start, "the story changed:\n%s", text)
				hub, err := ReadHub(context.Background(), h.Client, mapper, version)
				require.NoError(t, err)
				rep, err := planreport.New(hub, hubtest.SeedAddonName, hubtest.Start, nil)
				require.NoError(t, err)

				clusters := []string{"dev-cluster", "stg-cluster", "prod-cluster", "qa-cluster", "edge-cluster"}
				before := map[string]string{}
				for _, c := range clusters {
					before[c] = hubtest.DesiredHash(t, h.Addon(c, hubtest.SeedAddonName))
				}
				_, err = reconcileAddon(newAddonReconciler(h, clockfake.New(hubtest.Start), nil), hubtest.SeedAddonName)
				require.NoError(t, err)
				changed := []string{}
				for _, c := range clusters {
					m := h.Addon(c, hubtest.SeedAddonName)
					if m == nil {
						continue // removed: no placement selects it (groups only in a Placement's status)
					}
					if hubtest.DesiredHash(t, m) != before[c] {
						changed = append(changed, c)
					}
				}
				assert.ElementsMatch(t, dry.start, changed, "started now: the dry run and the reconcile disagree\n%s", text)

				cma := h.CMA(hubtest.SeedAddonName)
				require.Len(t, dry.progression, len(cma.Spec.InstallStrategy.Placements), text)
				for _, ref := range []addonv1beta1.PlacementRef{hubtest.SeedRef, hubtest.CanaryRef} {
					key := ref.Namespace + "/" + ref.Name
					_, cond := hubtest.ProgressionOf(t, cma, ref)
					require.NotNil(t, cond)
					assert.Equal(t, cond.Message, dry.progression[key], "%s: the dry run and the reconcile disagree", key)
				}
				assert.ElementsMatch(t, tc.start, dry.startOf[hubtest.CanaryRef.Namespace+"/"+hubtest.CanaryRef.Name])
				assert.Empty(t, dry.startOf[hubtest.SeedRef.Namespace+"/"+hubtest.SeedRef.Name], "prod waits for dev's soak")
				if tc.rollout == nil {
					assert.Nil(t, rep.Rollout)
					return
				}
				var ar v1alpha1.AddOnRollout
				require.NoError(t, h.Client.Get(context.Background(), types.NamespacedName{Name: hubtest.SeedAddonName}, &ar))
				assertReportsStatus(t, rep, &ar)
			})
		}
	}
}

// assertReportsStatus checks that the report says of each placement and
// group what the reconcile wrote in the AddOnRollout's status.
func assertReportsStatus(t *testing.T, rep *planreport.Report, ar *v1alpha1.AddOnRollout) {
	t.Helper()
	require.NotNil(t, rep.Rollout)
	require.Len(t, ar.Status.Placements, len(rep.Placements))
	for i, ps := range ar.Status.Placements {
		p := rep.Placements[i]
		assert.Equal(t, ps.Namespace+"/"+ps.Name, p.Namespace+"/"+p.Name)
		assert.Equal(t, ps.Revision, p.Revision, "%s/%s", ps.Namespace, ps.Name)
		var reported []v1alpha1.GroupStatus
		for _, g := range p.Groups {
			if g.Status != nil {
				reported = append(reported, *g.Status)
			}
		}
		assert.ElementsMatch(t, ps.Groups, reported, "%s/%s: the groups' status", ps.Namespace, ps.Name)
	}
	assert.Equal(t, ar.Status.PendingApprovals, nilIfEmpty(rep.Rollout.PendingApprovals))
	for _, typ := range []string{hubplan.ConditionValid, hubplan.ConditionPaused, hubplan.ConditionProgressing} {
		want := meta.FindStatusCondition(ar.Status.Conditions, typ)
		got := meta.FindStatusCondition(rep.Rollout.Conditions, typ)
		require.NotNil(t, want, typ)
		require.NotNil(t, got, typ)
		assert.Equal(t, string(want.Status)+" "+want.Reason+": "+want.Message, string(got.Status)+" "+got.Reason+": "+got.Message, typ)
	}
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestDryRunSkipsAddonsNotTaken: the dry run plans the add-ons whose
// lifecycle annotation is one the controller takes, and says so when there
// is none.
func TestDryRunSkipsAddonsNotTaken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		taken   []string
		planned []string
		none    string // the text when nothing is planned
	}{
		{name: "the default takes rolloutkit's", planned: []string{hubtest.SeedAddonName}},
		{name: "addon-manager takes OCM's add-on manager's", taken: []string{"addon-manager"}, planned: []string{"other-addon"}},
		{name: "self takes none", taken: []string{"self"},
			none: `no ClusterManagementAddOn with install strategy Placements and a lifecycle annotation addon.open-cluster-management.io/lifecycle of ["self"] on the hub (2 add-ons)` + "\n"},
	} {
		for _, version := range hubtest.AddonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				h := dryRunHub(t, version)
				var buf bytes.Buffer
				require.NoError(t, DryRun(context.Background(), h.Client, h.Mapper, version, tc.taken, hubtest.Start, &buf))
				if tc.none != "" {
					assert.Equal(t, tc.none, buf.String())
					return
				}
				assert.Equal(t, tc.planned, parseDryRun(t, buf.String()).addons, buf.String())
			})
		}
	}
}

// listFails is a reader whose lists of rolloutkit.io's kinds fail with
// err.
type listFails struct {
	client.Reader
	err error
}

func (r listFails) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	switch list.(type) {
	case *v1alpha1.AddOnRolloutList, *v1alpha1.RolloutApprovalList:
		return r.err
	}
	return r.Reader.List(ctx, list, opts...)
}

// TestReadHubControls: ReadHub reads the AddOnRollouts and the
// RolloutApprovals of a hub that serves them, and none, without an error,
// from a plain OCM hub, whose RESTMapper does not know them (or whose
// CRDs go away between the mapper's look and the list).
func TestReadHubControls(t *testing.T) {
	t.Parallel()
	ar := &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: hubtest.SeedAddonName}, Spec: v1alpha1.AddOnRolloutSpec{Paused: true}}
	ok := &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "ok"}, Spec: v1alpha1.RolloutApprovalSpec{AddOn: hubtest.SeedAddonName, Group: "prod", Revision: "r"}}
	noMatch := &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: v1alpha1.Group, Kind: "AddOnRollout"}}
	for _, tc := range []struct {
		name      string
		served    bool
		listErr   error
		rollouts  []string
		approvals []string
		err       string
	}{
		{name: "served", served: true, rollouts: []string{hubtest.SeedAddonName}, approvals: []string{"ok"}},
		{name: "not served: a plain OCM hub"},
		{name: "served, then gone", served: true, listErr: noMatch},
		{name: "served, list fails", served: true, listErr: errors.New("etcd is down"), err: "reading the hub: etcd is down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := dryRunHub(t, hubclient.V1beta1, ar, ok)
			mapper := h.Mapper
			if tc.served {
				mapper = withRollouts(mapper)
			}
			var c client.Reader = h.Client
			if tc.listErr != nil {
				c = listFails{Reader: c, err: tc.listErr}
			}
			hub, err := ReadHub(context.Background(), c, mapper, hubclient.V1beta1)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			var rollouts, approvals []string
			for _, r := range hub.AddOnRollouts {
				rollouts = append(rollouts, r.Name)
			}
			for _, a := range hub.RolloutApprovals {
				approvals = append(approvals, a.Name)
			}
			assert.Equal(t, tc.rollouts, rollouts)
			assert.Equal(t, tc.approvals, approvals)
			assert.NotEmpty(t, hub.ClusterManagementAddOns, "the rest of the hub is read")
		})
	}
}
