package addons

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	clockfake "github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// recorded is one event, with the key client-go's events broadcaster
// merges a series by: two events of one key show as one.
type recorded struct {
	key, reason, action, note string
}

// keyRecorder records events with their series keys.
type keyRecorder struct {
	mu     sync.Mutex
	events []recorded
}

// Eventf records an event.
func (k *keyRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	k.mu.Lock()
	defer k.mu.Unlock()
	m := regarding.(metav1.Object)
	key := fmt.Sprintf("%s|%s|%s|%T/%s@%s", eventtype, reason, action, regarding, m.GetName(), m.GetResourceVersion())
	if related != nil {
		key += "|" + related.(metav1.Object).GetName()
	}
	k.events = append(k.events, recorded{key: key, reason: reason, action: action, note: fmt.Sprintf(note, args...)})
}

// take returns the events recorded since the last take.
func (k *keyRecorder) take() []recorded {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := k.events
	k.events = nil
	return out
}

// transitions words the group phase changes from one status to the next
// as the events do.
func transitions(prev, next v1alpha1.AddOnRolloutStatus) []string {
	var out []string
	for _, ps := range next.Placements {
		was := placementOf(prev, ps.Namespace, ps.Name)
		for _, g := range ps.Groups {
			from := groupOf(was, ps.Revision, g)
			if from != nil && from.Phase == g.Phase {
				continue
			}
			phase := "new"
			if from != nil {
				phase = from.Phase
			}
			out = append(out, fmt.Sprintf("placement %s/%s group %s: %s -> %s: %s", ps.Namespace, ps.Name, groupName(g), phase, g.Phase, g.Message))
		}
	}
	return out
}

// TestEventsOnePerTransition: through a rollout with an approval, every
// group transition written is one event of its own: no two events of the
// controller share a series key, and the GroupPhaseChanged events of each
// reconcile are the transitions of the status it wrote, one for one.
// A reconcile whose status write is refused sends none; the next one,
// which writes it, sends them once.
func TestEventsOnePerTransition(t *testing.T) {
	t.Parallel()
	var refuse atomic.Int32
	ar := hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}})
	h := hubtest.NewAddonHub(t, hubclient.V1beta1, func(_ client.Client, verb string, obj client.Object) error {
		if _, ok := obj.(*v1alpha1.AddOnRollout); ok && verb == "status patch" && refuse.Add(-1) >= 0 {
			return apierrors.NewConflict(schema.GroupResource{Group: v1alpha1.Group, Resource: "addonrollouts"}, obj.GetName(), errors.New("modified"))
		}
		return nil
	}, hubtest.HubObjects([]client.Object{hubtest.SeedAddon(t, hubclient.DefaultLifecycle), hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0"), ar},
		hubtest.SeedPlacement(t), hubtest.FreshAddons(hubtest.SeedAddonName, hubtest.SeedClusters...))...)
	clk := clockfake.New(hubtest.Start)
	rec := &keyRecorder{}
	rh := &rolloutHub{AddonHub: h, clk: clk, r: newAddonReconciler(h, clk, rec)}
	seen := map[string]bool{}
	var all []string
	step := func(name string) {
		t.Helper()
		before := rh.rollout().Status
		if _, err := reconcileAddon(rh.r, hubtest.SeedAddonName); err != nil {
			require.True(t, onlyConflicts(err), "%s: %v", name, err) // the refused write, returned for a retry
		}
		want := transitions(before, rh.rollout().Status)
		var got []string
		for _, e := range rec.take() {
			assert.False(t, seen[e.key], "%s: event %q merges into an earlier one's series", name, e.note)
			seen[e.key] = true
			assert.LessOrEqual(t, len(e.action), hubclient.MaxEventAction)
			if e.reason == EventGroupPhase {
				got = append(got, e.note)
			}
		}
		assert.Equal(t, want, got, name)
		all = append(all, got...)
	}
	refuse.Store(1)
	step("the first write refused: no events")
	step("written: the events of the first transitions")
	for range 2 {
		step("started")
		rh.apply()
		step("applied")
		clk.Step(5*time.Minute + time.Second)
	}
	step("stg soaked: prod waits for its approval")
	pa := rh.rollout().Status.PendingApprovals
	require.Len(t, pa, 1)
	require.NoError(t, h.Client.Create(context.Background(), &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "ok"},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: hubtest.SeedAddonName, Placement: pa[0].Placement, Group: "prod", Revision: pa[0].Revision}}))
	step("approved")
	rh.apply()
	step("prod applied")
	clk.Step(5*time.Minute + time.Second)
	step("prod soaked")
	text := strings.Join(all, "\n")
	for _, g := range []string{`"dev"`, `"stg"`, `"prod"`} {
		assert.Contains(t, text, "group "+g+": Active -> Complete")
	}
	assert.Contains(t, text, `group "prod": Waiting -> Blocked`)
}

// TestApprovalRequestedNamesConfigs: the event asking for an approval
// names the revision's configs and how to approve exactly it.
func TestApprovalRequestedNamesConfigs(t *testing.T) {
	t.Parallel()
	h := newRolloutHub(t, hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"dev"}}))
	h.reconcile()
	ar := h.rollout()
	require.Len(t, ar.Status.PendingApprovals, 1)
	pa := ar.Status.PendingApprovals[0]
	require.NotEmpty(t, pa.Configs)
	assert.Equal(t, ar.Status.Placements[0].Configs, pa.Configs)
	assert.Equal(t, "v1.0.0", imageTag(pa.Configs[0].Image))
	ev := strings.Join(h.events(), "\n")
	assert.Contains(t, ev, "managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy spec "+pa.Configs[0].SpecHash[:12])
	assert.Contains(t, ev, "--revision "+pa.Revision)
}

// imageTag is the tag of an image reference.
func imageTag(image string) string {
	return image[strings.LastIndex(image, ":")+1:]
}

// TestAddOnNotFound: an AddOnRollout and a RolloutApproval naming an
// add-on the hub does not have say so in a condition, with an event, and
// are written once; when the add-on appears they get the usual status.
func TestAddOnNotFound(t *testing.T) {
	t.Parallel()
	typo := &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "cluster-prxy", Generation: 1}}
	approval := &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "typo"}, Spec: v1alpha1.RolloutApprovalSpec{AddOn: "cluster-prxy",
		Placement: v1alpha1.PlacementRef{Namespace: hubtest.SeedNamespace, Name: hubtest.SeedRef.Name}, Group: "prod", Revision: "000000000000"}}
	var writes atomic.Int32
	h := hubtest.NewAddonHub(t, hubclient.V1beta1, func(client.Client, string, client.Object) error { writes.Add(1); return nil },
		hubtest.HubObjects([]client.Object{typo, approval})...)
	clk := clockfake.New(hubtest.Start)
	rec := &keyRecorder{}
	r := newAddonReconciler(h, clk, rec)
	res, err := reconcileAddon(r, "cluster-prxy")
	require.NoError(t, err)
	assert.Equal(t, hubplan.ConfirmInterval, res.RequeueAfter)
	var ar v1alpha1.AddOnRollout
	require.NoError(t, h.Client.Get(context.Background(), types.NamespacedName{Name: "cluster-prxy"}, &ar))
	c := meta.FindStatusCondition(ar.Status.Conditions, hubplan.ConditionProgressing)
	require.NotNil(t, c)
	assert.Equal(t, hubplan.ReasonAddOnNotFound, c.Reason)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	var a v1alpha1.RolloutApproval
	require.NoError(t, h.Client.Get(context.Background(), types.NamespacedName{Name: "typo"}, &a))
	c = meta.FindStatusCondition(a.Status.Conditions, hubplan.ConditionApproved)
	require.NotNil(t, c)
	assert.Equal(t, hubplan.ReasonAddOnNotFound, c.Reason)
	reasons := []string{}
	for _, e := range rec.take() {
		reasons = append(reasons, e.reason)
	}
	assert.Equal(t, []string{EventAddOnNotFound, EventAddOnNotFound}, reasons)
	assert.Equal(t, int32(2), writes.Load())

	clk.Step(time.Minute)
	_, err = reconcileAddon(r, "cluster-prxy")
	require.NoError(t, err)
	assert.Equal(t, int32(2), writes.Load(), "nothing changed: nothing written")
	assert.Empty(t, rec.take())
}

// TestAddOnAppears: an AddOnRollout written before its add-on says
// AddOnNotFound; once the add-on is created it gets the usual status.
func TestAddOnAppears(t *testing.T) {
	t.Parallel()
	h := hubtest.NewAddonHub(t, hubclient.V1beta1, nil, hubtest.HubObjects([]client.Object{hubtest.ProxyConfig(t, "cluster-proxy", "v1.0.0"), hubtest.SeedRollout(v1alpha1.AddOnRolloutSpec{})},
		hubtest.SeedPlacement(t), hubtest.FreshAddons(hubtest.SeedAddonName, hubtest.SeedClusters...))...)
	clk := clockfake.New(hubtest.Start)
	rh := &rolloutHub{AddonHub: h, clk: clk, r: newAddonReconciler(h, clk, &keyRecorder{})}
	rh.reconcile()
	progressing := func() string {
		return meta.FindStatusCondition(rh.rollout().Status.Conditions, hubplan.ConditionProgressing).Reason
	}
	assert.Equal(t, hubplan.ReasonAddOnNotFound, progressing())
	require.NoError(t, h.Client.Create(context.Background(), hubtest.SeedAddon(t, hubclient.DefaultLifecycle)))
	rh.reconcile()
	assert.Equal(t, hubplan.ReasonRollingOut, progressing())
	require.Len(t, rh.rollout().Status.Placements, 1)
	assert.NotEmpty(t, rh.rollout().Status.Placements[0].Configs)
}

// TestAction: an event's action is its words, within events.k8s.io's 128
// characters; two long ones that differ only at the end still differ.
func TestAction(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 63) + "/" + strings.Repeat("p", 63)
	for _, tc := range []struct {
		name  string
		words []string
		want  string
	}{
		{"short", []string{"ns/p", `"stg"`, "Waiting->Active", "1a2b3c4d5e6f"}, `ns/p "stg" Waiting->Active 1a2b3c4d5e6f`},
		{"at the limit", []string{strings.Repeat("a", hubclient.MaxEventAction)}, strings.Repeat("a", hubclient.MaxEventAction)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, hubclient.EventAction(tc.words...))
		})
	}
	a := hubclient.EventAction(long, `"stg"`, "Waiting->Active", "1a2b3c4d5e6f")
	b := hubclient.EventAction(long, `"stg"`, "Active->Complete", "1a2b3c4d5e6f")
	assert.Len(t, a, hubclient.MaxEventAction)
	assert.Len(t, b, hubclient.MaxEventAction)
	assert.NotEqual(t, a, b)
	assert.Equal(t, long[:hubclient.MaxEventAction-13], a[:hubclient.MaxEventAction-13])
}
