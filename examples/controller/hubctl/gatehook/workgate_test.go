package gatehook

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/examples/controller/rolloutmetrics"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// countingClient is a client that counts its reads (Get and List).
type countingClient struct {
	client.Client
	reads atomic.Int64
}

func (c *countingClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.reads.Add(1)
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *countingClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	c.reads.Add(1)
	return c.Client.List(ctx, list, opts...)
}

// workRequest is the admission request of op (on subresource sub) of the
// work from stored to proposed (either nil), as the API server sends it.
func workRequest(t *testing.T, op admissionv1.Operation, sub string, stored, proposed *workv1.ManifestWork) admission.Request {
	t.Helper()
	raw := func(w *workv1.ManifestWork) runtime.RawExtension {
		if w == nil {
			return runtime.RawExtension{}
		}
		b, err := json.Marshal(w)
		require.NoError(t, err)
		return runtime.RawExtension{Raw: b}
	}
	some := proposed
	if some == nil {
		some = stored
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:         "5f0c6a6e-0d7e-4c2a-9b1e-3a1d2c4b5e6f",
		Kind:        metav1.GroupVersionKind{Group: workv1.GroupName, Version: "v1", Kind: "ManifestWork"},
		Resource:    metav1.GroupVersionResource{Group: workv1.GroupName, Version: "v1", Resource: "manifestworks"},
		SubResource: sub, Namespace: some.Namespace, Name: some.Name, Operation: op,
		Object: raw(proposed), OldObject: raw(stored),
	}}
}

// update is an update of the work itself from stored to proposed.
func update(t *testing.T, stored, proposed *workv1.ManifestWork) admission.Request {
	return workRequest(t, admissionv1.Update, "", stored, proposed)
}

// dryRun is req as a dry run.
func dryRun(req admission.Request) admission.Request {
	req.DryRun = hubtest.PtrTo(true)
	return req
}

// waitingProd is an AddOnRollout whose status says prod waits for stg.
func waitingProd() *v1alpha1.AddOnRollout {
	ar := hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{})
	ar.Status.Placements = []v1alpha1.PlacementStatus{{Namespace: hubtest.SeedNamespace, Name: hubtest.SeedRef.Name, Groups: []v1alpha1.GroupStatus{
		{Name: "dev", Index: 0, Phase: "Complete"},
		{Name: "stg", Index: 1, Phase: "Active", Message: "1 cluster progressing"},
		{Name: "prod", Index: 2, Phase: "Waiting", Message: "waiting for group stg: 0 of 1 clusters succeeded"},
	}}}
	return ar
}

// progressing is a ClusterManagementAddOn option: the seed placement's
// install progression says msg.
func progressing(msg string) func(*addonv1beta1.ClusterManagementAddOn) {
	return func(cma *addonv1beta1.ClusterManagementAddOn) {
		cma.Status.InstallProgressions = []addonv1beta1.InstallProgression{{PlacementRef: hubtest.SeedRef, Conditions: []metav1.Condition{{
			Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionTrue,
			Reason: addonv1beta1.ProgressingReasonProgressing, Message: msg, LastTransitionTime: metav1.NewTime(hubtest.Start)}}}}
	}
}

// renderingAt is a ClusterManagementAddOn option: its rendering revision
// is rev.
func renderingAt(t *testing.T, rev hubplan.RenderingRevision) func(*addonv1beta1.ClusterManagementAddOn) {
	t.Helper()
	v, err := rev.Annotation()
	require.NoError(t, err)
	return func(cma *addonv1beta1.ClusterManagementAddOn) { cma.Annotations[hubplan.RenderingAnnotation] = v }
}

// releaseOf is the release annotation (key, value) of rev, done at done
// when it is not nil.
func releaseOf(t *testing.T, rev hubplan.RenderingRevision, done *metav1.Time) []string {
	t.Helper()
	v, err := hubplan.Release{Revision: rev.Revision, ReleasedAt: metav1.NewTime(hubtest.Start), Generation: 3, Held: true, DoneAt: done}.Annotation()
	require.NoError(t, err)
	return []string{hubplan.ReleaseAnnotation, v}
}

// workGate returns a WorkGate on the hub's client as SetupWithManager
// would make it, reading from cache (its Client) and from reader.
func workGate(h *hubtest.AddonHub, cache, reader client.Client, m *rolloutmetrics.Metrics, rec events.EventRecorder) *WorkGate {
	h.T.Helper()
	s, err := hubclient.NewScheme()
	require.NoError(h.T, err)
	return &WorkGate{Client: cache, Reader: reader, Mapper: h.Mapper, Version: h.Version, Metrics: m, Recorder: rec,
		Decoder: admission.NewDecoder(s), api: h.API, rollouts: true}
}

// TestWorkGateHandle: the gate admits what is exempt (a status update, a
// work whose content stays) without reading the hub, and the works of
// add-ons the controller does not take. Of an add-on it takes, it judges
// creates as updates from an empty work; it admits a handover to the
// specs the rollout handed the cluster, a create of them, and the first
// change of a work of a cluster the rendering rollout released, and holds
// the rest with a message naming the work, the add-on, the cluster, its
// group and what it waits for: each refusal is counted by reason, the
// hold recorded on the cluster's add-on and sent as a WorkHeld event,
// except a dry run's. A delete is admitted, with a warning saying what
// happens to a work created in its place.
func TestWorkGateHandle(t *testing.T) {
	t.Parallel()
	cfgA, cfgB := hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0"), hubtest.ProxyConfig(t, "cluster-proxy", "v2.0.0")
	hashA, hashB := hubtest.SpecHashOf(t, cfgA), hubtest.SpecHashOf(t, cfgB)
	rev := hubplan.NewRenderingRevision(hubtest.Start)
	earlier := hubplan.NewRenderingRevision(hubtest.Start.Add(-time.Hour))
	complete := rev
	complete.CompletedAt = &metav1.Time{Time: hubtest.Start.Add(time.Minute)}
	key := "managedproxyconfigurations.proxy.open-cluster-management.io/cluster-proxy" // as a message names it
	prefix := workgate.Marker + ": the work addon-cluster-proxy-deploy-0 of add-on cluster-proxy on cluster prod-cluster"
	created := workgate.Marker + ": the new work addon-cluster-proxy-deploy-0 of add-on cluster-proxy on cluster prod-cluster"
	movedOn := fmt.Sprintf("config %s has moved on to spec %s, which the rollout has not handed to prod-cluster yet (it is at %s): "+
		"a renderer that reads the config by name would land the newer spec here ahead of the rollout", key, hashB[:12], hashA[:12])
	notReleased := "a new rendering of unchanged configs, which no rendering rollout has released to prod-cluster yet"
	pendingWhy := "rendering revision " + rev.Revision + " is rolling out and has not reached prod-cluster yet: new content here would carry " +
		"the new rendering ahead of the groups before prod-cluster"
	noneHanded := "the rollout has handed prod-cluster no configs yet: a renderer that reads its configs by name would land their newest specs here ahead of the rollout"
	stale, fresh := hubtest.AgentWork(t, hubtest.ImageV1, hashA), hubtest.AgentWork(t, hubtest.ImageV2, hashA)
	releasedAt := func(w *workv1.ManifestWork) []string { return releaseWith(t, rev, w) }
	for _, tc := range []struct {
		name   string
		cma    []func(*addonv1beta1.ClusterManagementAddOn) // options of the taken seed add-on
		taken  string                                       // its lifecycle, hubclient.DefaultLifecycle when ""
		cached []func(*addonv1beta1.ClusterManagementAddOn) // options of the cache's copy, when it lags
		objs   []client.Object
		req    admission.Request
		unread bool   // answered from the request alone
		code   int32  // of an errored answer; 0 for an admitted or a denied one
		admit  string // the reason admitted with; "" when exempt
		held   string // the reason held for; "" when admitted
		msg    string // the refusal's message
		warns  string // a warning of the answer
	}{
		{name: "status update", unread: true, req: workRequest(t, admissionv1.Update, "status", stale, fresh)},
		{name: "content unchanged, annotation moved", unread: true, req: update(t, stale, hubtest.AgentWork(t, hubtest.ImageV1, hashB))},
		{name: "not an add-on's work", unread: true, req: update(t, hubtest.Unlabelled(stale), hubtest.Unlabelled(fresh))},
		{name: "create of no add-on's work", unread: true, req: workRequest(t, admissionv1.Create, "", nil, hubtest.Unlabelled(fresh))},

		{name: "add-on not taken", taken: "addon-manager", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashA)},
			req: update(t, stale, fresh), admit: "NotTaken"},
		{name: "create of a work of an add-on not taken", taken: "addon-manager", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashA)},
			req: workRequest(t, admissionv1.Create, "", nil, fresh), admit: "NotTaken"},
		{name: "config moved on: held, with its group's message", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashA), waitingProd()},
			req: update(t, stale, fresh), held: "ConfigMovedOn",
			msg: prefix + " (group prod) is held: " + movedOn + "; group prod is Waiting: waiting for group stg: 0 of 1 clusters succeeded"},
		{name: "config moved on: held, with the install progression's message", cma: []func(*addonv1beta1.ClusterManagementAddOn){
			progressing("selected clusters 3. configured addons 2/3 progressing..., 0 failed 0 timeout.")},
			objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashA)}, req: update(t, stale, fresh), held: "ConfigMovedOn",
			msg: prefix + " (group prod) is held: " + movedOn + "; placement open-cluster-management/cluster-proxy-placement: " +
				"selected clusters 3. configured addons 2/3 progressing..., 0 failed 0 timeout."},
		{name: "config moved on: a dry run is held, not counted", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashA), waitingProd()},
			req: dryRun(update(t, stale, fresh)), held: "ConfigMovedOn",
			msg: prefix + " (group prod) is held: " + movedOn + "; group prod is Waiting: waiting for group stg: 0 of 1 clusters succeeded"},
		{name: "re-created during a halt: held", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashA), waitingProd()},
			req: workRequest(t, admissionv1.Create, "", nil, fresh), held: "ConfigMovedOn",
			msg: created + " (group prod) is held: " + movedOn + "; group prod is Waiting: waiting for group stg: 0 of 1 clusters succeeded"},
		{name: "created with the spec handed", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashB)},
			req: workRequest(t, admissionv1.Create, "", nil, hubtest.AgentWork(t, hubtest.ImageV2, hashB)), admit: "Created"},
		{name: "handover to the spec handed", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashB)},
			req: update(t, stale, hubtest.AgentWork(t, hubtest.ImageV2, hashB)), admit: "HandedOver"},
		{name: "handover to a spec not handed", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashA)},
			req: update(t, stale, hubtest.AgentWork(t, hubtest.ImageV2, hashB)), held: "NotHandedOver",
			msg: fmt.Sprintf("%s (group prod) is held: it claims config %s at spec %s, but the rollout has handed prod-cluster spec %s",
				prefix, key, hashB[:12], hashA[:12])},
		{name: "relabelled out of the add-on", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashA)},
			req: update(t, stale, hubtest.Unlabelled(stale)), held: "ConfigMovedOn",
			msg: prefix + " (group prod) is held: relabelled out of add-on cluster-proxy on cluster prod-cluster, it is judged as a change of their work: " + movedOn},

		{name: "rendering not released", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashB)},
			cma: []func(*addonv1beta1.ClusterManagementAddOn){renderingAt(t, rev)},
			req: update(t, hubtest.AgentWork(t, hubtest.ImageV1, hashB), hubtest.AgentWork(t, hubtest.ImageV2, hashB)), held: "RenderingPending",
			msg: prefix + " (group prod) is held: " + pendingWhy},
		{name: "handover while the rendering rollout has not reached the cluster", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashB)},
			cma: []func(*addonv1beta1.ClusterManagementAddOn){renderingAt(t, rev)},
			req: update(t, stale, hubtest.AgentWork(t, hubtest.ImageV2, hashB)), held: "RenderingPending",
			msg: prefix + " (group prod) is held: " + pendingWhy},
		{name: "rendering released: the work's first change", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashB, releasedAt(hubtest.AgentWork(t, hubtest.ImageV1, hashB))...)},
			cma: []func(*addonv1beta1.ClusterManagementAddOn){renderingAt(t, rev)},
			req: update(t, hubtest.AgentWork(t, hubtest.ImageV1, hashB), hubtest.AgentWork(t, hubtest.ImageV2, hashB)), admit: "RenderingReleased"},
		{name: "rendering released: a second change", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashB, releasedAt(hubtest.AgentWork(t, "other", hashB))...)},
			cma: []func(*addonv1beta1.ClusterManagementAddOn){renderingAt(t, rev)},
			req: update(t, hubtest.AgentWork(t, hubtest.ImageV1, hashB), hubtest.AgentWork(t, hubtest.ImageV2, hashB)), held: "RenderingTaken",
			msg: prefix + " (group prod) is held: work addon-cluster-proxy-deploy-0 changed once since rendering revision " + rev.Revision +
				" released prod-cluster: a further rendering waits for the next revision"},
		{name: "rendering released, of a revision the cache has not seen", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashB, releasedAt(hubtest.AgentWork(t, hubtest.ImageV1, hashB))...)},
			cma: []func(*addonv1beta1.ClusterManagementAddOn){renderingAt(t, rev)}, cached: []func(*addonv1beta1.ClusterManagementAddOn){renderingAt(t, earlier)},
			req: update(t, hubtest.AgentWork(t, hubtest.ImageV1, hashB), hubtest.AgentWork(t, hubtest.ImageV2, hashB)), admit: "RenderingReleased"},
		{name: "rendering released and done", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashB, releaseOf(t, rev, &metav1.Time{Time: hubtest.Start})...)},
			cma: []func(*addonv1beta1.ClusterManagementAddOn){renderingAt(t, rev)},
			req: update(t, hubtest.AgentWork(t, hubtest.ImageV1, hashB), hubtest.AgentWork(t, hubtest.ImageV2, hashB)), held: "RenderingHeld",
			msg: prefix + " (group prod) is held: " + notReleased},
		{name: "rendering released of another revision", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashB, releaseOf(t, earlier, nil)...)},
			cma: []func(*addonv1beta1.ClusterManagementAddOn){renderingAt(t, rev)},
			req: update(t, hubtest.AgentWork(t, hubtest.ImageV1, hashB), hubtest.AgentWork(t, hubtest.ImageV2, hashB)), held: "RenderingPending",
			msg: prefix + " (group prod) is held: " + pendingWhy},
		{name: "rendering released, no revision open", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashB, releaseOf(t, rev, nil)...)},
			req: update(t, hubtest.AgentWork(t, hubtest.ImageV1, hashB), hubtest.AgentWork(t, hubtest.ImageV2, hashB)), held: "RenderingHeld",
			msg: prefix + " (group prod) is held: " + notReleased},
		{name: "rendering revision complete: a handover lands", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashB)},
			cma: []func(*addonv1beta1.ClusterManagementAddOn){renderingAt(t, complete)},
			req: update(t, stale, hubtest.AgentWork(t, hubtest.ImageV2, hashB)), admit: "HandedOver"},

		// No add-on: the rollout has handed the cluster nothing, and the
		// seed's add-on runs with configs: no content lands yet.
		{name: "no add-on, the work claims a spec", objs: []client.Object{cfgB},
			req: update(t, stale, fresh), held: "NotHandedOver",
			msg: prefix + " (group prod) is held: " + noneHanded},
		{name: "no add-on, the work claims none", objs: []client.Object{cfgB},
			req: update(t, hubtest.AgentWork(t, hubtest.ImageV1, ""), hubtest.AgentWork(t, hubtest.ImageV2, "")), held: "NotHandedOver",
			msg: prefix + " (group prod) is held: " + noneHanded},
		{name: "no add-on, a create", objs: []client.Object{cfgB},
			req: workRequest(t, admissionv1.Create, "", nil, hubtest.AgentWork(t, hubtest.ImageV2, "")), held: "NotHandedOver",
			msg: created + " (group prod) is held: " + noneHanded},
		{name: "config unreadable", objs: []client.Object{hubtest.Handed("prod-cluster", hashB)},
			req: update(t, hubtest.AgentWork(t, hubtest.ImageV1, hashB), hubtest.AgentWork(t, hubtest.ImageV2, hashB)), held: "Unreadable",
			msg: fmt.Sprintf("%s (group prod) is held: config %s could not be read: the gate cannot tell which spec a renderer reads", prefix, key)},

		{name: "delete during a halt: admitted, a work in its place waits", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashA), waitingProd()},
			req: workRequest(t, admissionv1.Delete, "", stale, nil),
			warns: "work addon-cluster-proxy-deploy-0 of add-on cluster-proxy on cluster prod-cluster deleted: its add-on's manager creates it again, " +
				"and the work gate holds it until the rollout reaches the cluster: " + movedOn + "; group prod is Waiting: waiting for group stg: 0 of 1 clusters succeeded"},
		{name: "delete with configs current: admitted, a work in its place lands", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashB)},
			req: workRequest(t, admissionv1.Delete, "", hubtest.AgentWork(t, hubtest.ImageV2, hashB), nil),
			warns: "work addon-cluster-proxy-deploy-0 of add-on cluster-proxy on cluster prod-cluster deleted: its add-on's manager creates it again, " +
				"and the work gate admits it at once (Created)"},
		{name: "delete of an add-on not taken", taken: "addon-manager", objs: []client.Object{cfgB, hubtest.Handed("prod-cluster", hashA)},
			req: workRequest(t, admissionv1.Delete, "", stale, nil)},

		{name: "a work that does not decode", req: admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			Operation: admissionv1.Update, Object: runtime.RawExtension{Raw: []byte(`{"kind":`)}, OldObject: update(t, stale, fresh).OldObject}},
			unread: true, code: http.StatusBadRequest},
	} {
		for _, version := range hubtest.AddonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				lifecycle := tc.taken
				if lifecycle == "" {
					lifecycle = hubclient.DefaultLifecycle
				}
				objs := hubtest.HubObjects(hubtest.SeedPlacement(t), tc.objs)
				h := hubtest.NewAddonHub(t, version, nil, append(objs, hubtest.SeedAddon(t, lifecycle, tc.cma...))...)
				server := &countingClient{Client: h.Client}
				cache := server
				if tc.cached != nil {
					cache = &countingClient{Client: hubtest.NewAddonHub(t, version, nil, append(objs, hubtest.SeedAddon(t, lifecycle, tc.cached...))...).Client}
				}
				reg := prometheus.NewRegistry()
				m, err := rolloutmetrics.New(reg)
				require.NoError(t, err)
				rec := events.NewFakeRecorder(10)

				g := workGate(h, cache, server, m, rec)
				g.Client = writeTo{Client: cache, writer: h.Client}
				res := g.Handle(context.Background(), tc.req)

				require.NotNil(t, res.Result)
				var evs []string
				for len(rec.Events) > 0 {
					evs = append(evs, <-rec.Events)
				}
				switch {
				case tc.code != 0:
					assert.False(t, res.Allowed)
					assert.Equal(t, tc.code, res.Result.Code)
					assert.Contains(t, res.Result.Message, "decoding the ManifestWork")
				case tc.held == "":
					assert.True(t, res.Allowed, res.Result.Message)
					assert.Equal(t, tc.admit, res.Result.Message, "the reason admitted with")
				default:
					assert.False(t, res.Allowed)
					assert.Equal(t, int32(http.StatusForbidden), res.Result.Code)
					assert.Equal(t, tc.msg, res.Result.Message)
				}
				if tc.unread {
					assert.Zero(t, server.reads.Load()+cache.reads.Load(), "the hub was read for a request the gate does not judge")
				}
				if tc.warns != "" {
					assert.Equal(t, []string{tc.warns}, res.Warnings)
					assert.Equal(t, []string{"Normal " + ReasonWorkDeleted + " " + tc.warns}, evs)
					return
				}
				assert.Empty(t, res.Warnings)

				refused := tc.held != "" && (tc.req.DryRun == nil || !*tc.req.DryRun)
				mca := h.Addon("prod-cluster", hubtest.SeedAddonName)
				if !refused {
					n, err := testutil.GatherAndCount(reg, rolloutmetrics.MetricWorkGateRefusals)
					require.NoError(t, err)
					assert.Zero(t, n, "a request that was not refused, or a dry run, was counted")
					assert.Empty(t, evs, "a request that was not refused, or a dry run, was reported")
					if mca != nil {
						assert.NotContains(t, mca.Annotations, hubplan.HoldAnnotation, "a hold recorded for a request not refused, or a dry run")
					}
					return
				}
				assert.Equal(t, 1.0, hubtest.Sample(t, reg, rolloutmetrics.MetricWorkGateRefusals, "addon", hubtest.SeedAddonName, "reason", tc.held))
				if mca == nil {
					assert.Empty(t, evs, "an event was sent without an add-on to send it to")
					return
				}
				assert.Equal(t, []string{"Warning " + ReasonWorkHeld + " " + tc.msg}, evs)
				hold, ok := hubplan.ReadHold(mca)
				require.True(t, ok, "no hold recorded on the add-on: %v", mca.Annotations)
				assert.Equal(t, tc.held, hold.Reason)
				assert.Contains(t, tc.msg, hold.Why)
				assert.Contains(t, hold.Works, "addon-cluster-proxy-deploy-0")
			})
		}
	}
}

// writeTo is a client that reads from its Client and writes to writer:
// the manager's client, whose reads come from a cache that may lag.
type writeTo struct {
	client.Client
	writer client.Client
}

func (w writeTo) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return w.writer.Patch(ctx, obj, patch, opts...)
}

// releaseWith is the release annotation (key, value) of rev, of a cluster
// whose work was w at the release.
func releaseWith(t *testing.T, rev hubplan.RenderingRevision, w *workv1.ManifestWork) []string {
	t.Helper()
	v, err := hubplan.Release{Revision: rev.Revision, ReleasedAt: metav1.NewTime(hubtest.Start), Generation: w.Generation, Held: true,
		Works: map[string]string{w.Name: hubplan.WorkContent(w)}}.Annotation()
	require.NoError(t, err)
	return []string{hubplan.ReleaseAnnotation, v}
}

// TestWorkGateHoldOnce: the same write held again, retry after retry, is
// recorded and reported once; a hold for another reason is reported
// again; once new content of the work lands, the record goes.
func TestWorkGateHoldOnce(t *testing.T) {
	t.Parallel()
	cfgB := hubtest.ProxyConfig(t, "cluster-proxy", "v2.0.0")
	hashA, hashB := hubtest.SpecHashOf(t, hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0")), hubtest.SpecHashOf(t, cfgB)
	stale := hubtest.AgentWork(t, hubtest.ImageV1, hashA)
	h := hubtest.NewAddonHub(t, hubclient.V1beta1, nil, hubtest.HubObjects(hubtest.SeedPlacement(t),
		[]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), cfgB, hubtest.Handed("prod-cluster", hashA), stale.DeepCopy()})...)
	rec := events.NewFakeRecorder(10)
	clk := clockfake.New(hubtest.Start)
	g := workGate(h, h.Client, h.Client, nil, rec)
	g.Clock = clk
	for range 3 {
		assert.False(t, g.Handle(context.Background(), update(t, stale, hubtest.AgentWork(t, hubtest.ImageV2, hashA))).Allowed)
		clk.Step(time.Minute)
	}
	assert.Len(t, rec.Events, 1, "one event for three refusals of one write")
	first, ok := hubplan.ReadHold(h.Addon("prod-cluster", hubtest.SeedAddonName))
	require.True(t, ok)
	assert.Equal(t, "ConfigMovedOn", first.Reason)
	assert.Equal(t, map[string]string{"addon-cluster-proxy-deploy-0": hubplan.WorkContent(stale)}, first.Works)

	// The manager claims the newer spec before it is handed: another reason.
	assert.False(t, g.Handle(context.Background(), update(t, stale, hubtest.AgentWork(t, hubtest.ImageV2, hashB))).Allowed)
	assert.Len(t, rec.Events, 2, "a hold for another reason is reported")
	second, ok := hubplan.ReadHold(h.Addon("prod-cluster", hubtest.SeedAddonName))
	require.True(t, ok)
	assert.Equal(t, "NotHandedOver", second.Reason)
	assert.True(t, first.Since.Equal(&second.Since), "the hold keeps its since: %s, then %s", first.Since, second.Since)
	assert.True(t, first.Since.Time.Equal(hubtest.Start), "held since the first refusal")

	// prod is handed the newer spec: the handover lands, the record goes.
	mca := h.Addon("prod-cluster", hubtest.SeedAddonName).DeepCopy()
	mca.Status.ConfigReferences = hubtest.ProxyRefs(hashB)
	require.NoError(t, h.Client.Status().Update(context.Background(), h.Store(mca)))
	res := g.Handle(context.Background(), update(t, stale, hubtest.AgentWork(t, hubtest.ImageV2, hashB)))
	require.True(t, res.Allowed, res.Result.Message)
	assert.NotContains(t, h.Addon("prod-cluster", hubtest.SeedAddonName).Annotations, hubplan.HoldAnnotation)
}

// TestWorkGateRefusalsAccumulate: every held request is counted, in one
// series per add-on and reason; a dry run is not.
func TestWorkGateRefusalsAccumulate(t *testing.T) {
	t.Parallel()
	cfgB := hubtest.ProxyConfig(t, "cluster-proxy", "v2.0.0")
	hashA := hubtest.SpecHashOf(t, hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0"))
	h := hubtest.NewAddonHub(t, hubclient.V1beta1, nil, hubtest.HubObjects(hubtest.SeedPlacement(t),
		[]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), cfgB, hubtest.Handed("prod-cluster", hashA)})...)
	reg := prometheus.NewRegistry()
	m, err := rolloutmetrics.New(reg)
	require.NoError(t, err)
	g := workGate(h, h.Client, h.Client, m, nil)
	req := update(t, hubtest.AgentWork(t, hubtest.ImageV1, hashA), hubtest.AgentWork(t, hubtest.ImageV2, hashA))
	for range 3 {
		assert.False(t, g.Handle(context.Background(), req).Allowed)
	}
	assert.False(t, g.Handle(context.Background(), dryRun(req)).Allowed)
	assert.Equal(t, 3.0, hubtest.Sample(t, reg, rolloutmetrics.MetricWorkGateRefusals, "addon", hubtest.SeedAddonName, "reason", "ConfigMovedOn"))
	out, err := testutil.GatherAndCount(reg, rolloutmetrics.MetricWorkGateRefusals)
	require.NoError(t, err)
	assert.Equal(t, 1, out, "one series: the add-on and its reason")
}

// blockedWrites is a client whose patches wait until release is closed, or
// their context ends, before they reach its Client: an API server too
// loaded to answer within the webhook's deadline.
type blockedWrites struct {
	client.Client
	release chan struct{}
}

func (b blockedWrites) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	select {
	case <-b.release:
		return b.Client.Patch(ctx, obj, patch, opts...)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestWorkGateRecordOutlivesRequest: when the record of a hold cannot be
// written before the gate must answer, the gate answers (the write is
// held) without it, and the record goes on without the request: it lands
// once the API server takes it, with its event.
func TestWorkGateRecordOutlivesRequest(t *testing.T) {
	t.Parallel()
	cfgB := hubtest.ProxyConfig(t, "cluster-proxy", "v2.0.0")
	hashA := hubtest.SpecHashOf(t, hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0"))
	h := hubtest.NewAddonHub(t, hubclient.V1beta1, nil, hubtest.HubObjects(hubtest.SeedPlacement(t),
		[]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), cfgB, hubtest.Handed("prod-cluster", hashA)})...)
	rec := events.NewFakeRecorder(10)
	blocked := blockedWrites{Client: h.Client, release: make(chan struct{})}
	g := workGate(h, blocked, h.Client, nil, rec)
	ctx, cancel := context.WithCancel(context.Background())
	res := g.Handle(ctx, update(t, hubtest.AgentWork(t, hubtest.ImageV1, hashA), hubtest.AgentWork(t, hubtest.ImageV2, hashA)))
	cancel() // the API server has its answer: the request is over
	assert.False(t, res.Allowed)
	assert.NotContains(t, h.Addon("prod-cluster", hubtest.SeedAddonName).Annotations, hubplan.HoldAnnotation, "recorded while the API server could not take it")

	close(blocked.release)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		hold, ok := hubplan.ReadHold(h.Addon("prod-cluster", hubtest.SeedAddonName))
		require.True(ct, ok, "the hold was never recorded")
		assert.Equal(ct, "ConfigMovedOn", hold.Reason)
	}, 10*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool { return len(rec.Events) == 1 }, 10*time.Second, 20*time.Millisecond, "the hold's event")
}
