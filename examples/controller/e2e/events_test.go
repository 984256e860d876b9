package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/addons"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/controller/verify"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// statusLog records every status of one AddOnRollout a watch delivers:
// the API server sends each write, so consecutive statuses are the
// controller's transitions.
type statusLog struct {
	mu       sync.Mutex
	statuses []v1alpha1.AddOnRolloutStatus
	cancel   context.CancelFunc
	done     chan struct{}
}

// watchRollout records the statuses of the AddOnRollout name from now on.
func (e *env) watchRollout(t *testing.T, name string) *statusLog {
	t.Helper()
	wc, err := client.NewWithWatch(e.hub.Config, client.Options{Scheme: e.c.Scheme()})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	l := &statusLog{cancel: cancel, done: make(chan struct{})}
	var list v1alpha1.AddOnRolloutList
	require.NoError(t, wc.List(ctx, &list))
	w, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
			return wc.Watch(ctx, &v1alpha1.AddOnRolloutList{}, &client.ListOptions{Raw: &o})
		},
	})
	require.NoError(t, err)
	go func() {
		defer close(l.done)
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					return
				}
				if ar, isAR := ev.Object.(*v1alpha1.AddOnRollout); isAR && ev.Type != watch.Deleted {
					l.mu.Lock()
					l.statuses = append(l.statuses, *ar.Status.DeepCopy())
					l.mu.Unlock()
				}
			}
		}
	}()
	t.Cleanup(l.stop)
	return l
}

// stop ends the watch.
func (l *statusLog) stop() {
	l.cancel()
	<-l.done
}

// transition is one group phase change, as the controller's event words
// it.
type transition struct {
	reason, note string
}

// transitions are the group phase changes (GroupPhaseChanged) and breaches
// (Breached) between the recorded statuses, in order. A group is new when
// its placement's revision changed.
func (l *statusLog) transitions() []transition {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []transition
	var prev v1alpha1.AddOnRolloutStatus
	for _, st := range l.statuses {
		for _, ps := range st.Placements {
			i := slices.IndexFunc(prev.Placements, func(p v1alpha1.PlacementStatus) bool {
				return p.Namespace == ps.Namespace && p.Name == ps.Name && p.Revision == ps.Revision
			})
			for _, g := range ps.Groups {
				from := "new"
				if i >= 0 {
					j := slices.IndexFunc(prev.Placements[i].Groups, func(w v1alpha1.GroupStatus) bool { return w.Name == g.Name && w.Index == g.Index })
					if j >= 0 && prev.Placements[i].Groups[j].Phase == g.Phase {
						continue
					}
					if j >= 0 {
						from = prev.Placements[i].Groups[j].Phase
					}
				}
				where := ps.Namespace + "/" + ps.Name
				out = append(out, transition{addons.EventGroupPhase,
					fmt.Sprintf("placement %s group %s: %s -> %s: %s", where, strconv.Quote(g.Name), from, g.Phase, g.Message)})
				if g.Phase == "Breached" {
					out = append(out, transition{addons.EventBreached, fmt.Sprintf("placement %s group %s: %s", where, strconv.Quote(g.Name), g.Message)})
				}
			}
		}
		prev = st
	}
	return out
}

// rolloutEvents are the events.k8s.io events of reasons regarding the
// AddOnRollout name with uid, and the core/v1 events kubectl describe
// lists for it (the API server serves each event in both), as
// transitions.
func (e *env) rolloutEvents(t tb, name string, uid string, reasons ...string) (modern, legacy []transition) {
	t.Helper()
	ctx := context.Background()
	var evs eventsv1.EventList
	require.NoError(t, e.c.List(ctx, &evs, client.InNamespace(metav1.NamespaceDefault)))
	for _, ev := range evs.Items {
		if ev.Regarding.Kind == "AddOnRollout" && ev.Regarding.Name == name && string(ev.Regarding.UID) == uid && slices.Contains(reasons, ev.Reason) {
			assert.Nil(t, ev.Series, "event %q is a series: transitions were merged into it", ev.Note)
			modern = append(modern, transition{ev.Reason, ev.Note})
		}
	}
	// kubectl describe's query: the events whose involvedObject is it.
	var core corev1.EventList
	sel := fields.Set{"involvedObject.kind": "AddOnRollout", "involvedObject.name": name, "involvedObject.uid": uid}.AsSelector()
	require.NoError(t, e.c.List(ctx, &core, client.InNamespace(metav1.NamespaceDefault), client.MatchingFieldsSelector{Selector: sel}))
	for _, ev := range core.Items {
		if slices.Contains(reasons, ev.Reason) {
			assert.LessOrEqual(t, ev.Count, int32(1), "event %q counts %d", ev.Message, ev.Count)
			legacy = append(legacy, transition{ev.Reason, ev.Message})
		}
	}
	return modern, legacy
}

// sortedTransitions sorts ts by reason and note: events list in no
// particular order.
func sortedTransitions(ts []transition) []transition {
	out := slices.Clone(ts)
	slices.SortFunc(out, func(a, b transition) int {
		if a.reason != b.reason {
			return strings.Compare(a.reason, b.reason)
		}
		return strings.Compare(a.note, b.note)
	})
	return out
}

// TestEventsMatchTransitions: a rollout with a halt and a recovery. A
// new config breaches stg's failure budget (stg-cluster fails it), then
// the operator rolls out a fixed one, which completes once prod is
// approved. Every group phase change the AddOnRollout's status went
// through is one event, with its own message, in events.k8s.io and in the
// core/v1 events kubectl describe shows, one for one: none merged into
// another's series, none missing.
func TestEventsMatchTransitions(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	o := seedHub(t, e, "4s")
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	e.start(t, func(mgr ctrl.Manager) error {
		_, err := hubctl.Setup(context.Background(), mgr, hubctl.Options{Placements: true, Addons: true,
			Lifecycles: []string{e.lifecycle}, Verifier: verify.Verifier{HTTP: &http.Client{}}})
		return err
	})
	e.agents(t, applyTime, failingOn(e.stg, newHash))
	e.installed(t, o, e.addonName, oldHash, 60*time.Second)
	log := e.watchRollout(t, e.addonName)
	c := &controlled{env: e, o: o}
	c.govern(t, v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}})

	e.setAgentImage(t, newImage)
	c.waitGroup(t, "stg", 60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.Phase == "Breached" })
	fixed := "quay.io/open-cluster-management/cluster-proxy:v0.9.3"
	e.setAgentImage(t, fixed)
	prod := c.waitGroup(t, "prod", 60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Approval" })
	require.Equal(t, "Blocked", prod.Phase)
	pa := c.rollout(t).Status.PendingApprovals
	require.Len(t, pa, 1)
	require.NoError(t, e.c.Create(context.Background(), &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: e.named("prod-fixed")},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: e.addonName, Placement: pa[0].Placement, Group: "prod", Revision: pa[0].Revision}}))
	e.installed(t, o, e.addonName, specHash(t, fixed), 60*time.Second)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		cond := meta.FindStatusCondition(c.rollout(ct).Status.Conditions, hubplan.ConditionProgressing)
		require.NotNil(ct, cond)
		assert.Equal(ct, hubplan.ReasonCompleted, cond.Reason)
	}, 30*time.Second, poll, "rollout completed")
	// The last status's transitions are in the log once the watch has
	// delivered it: wait for the completed status there.
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		log.mu.Lock()
		last := log.statuses[len(log.statuses)-1]
		log.mu.Unlock()
		cond := meta.FindStatusCondition(last.Conditions, hubplan.ConditionProgressing)
		require.NotNil(ct, cond)
		assert.Equal(ct, hubplan.ReasonCompleted, cond.Reason)
	}, 10*time.Second, poll, "the watch delivered the completed status")
	log.stop()

	want := log.transitions()
	has := func(part string) bool {
		return slices.ContainsFunc(want, func(tr transition) bool { return strings.Contains(tr.note, part) })
	}
	require.True(t, has(`group "stg": Active -> Breached: `), "the halt: %+v", want)
	require.True(t, has(`group "prod": Blocked -> Active: `), "the recovery, approved: %+v", want)
	uid := string(c.rollout(t).UID)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		modern, legacy := e.rolloutEvents(ct, e.addonName, uid, addons.EventGroupPhase, addons.EventBreached)
		assert.Equal(ct, sortedTransitions(want), sortedTransitions(modern), "events.k8s.io events")
		assert.Equal(ct, sortedTransitions(want), sortedTransitions(legacy), "the core/v1 events kubectl describe lists")
	}, 30*time.Second, poll, "one event per transition")
}
