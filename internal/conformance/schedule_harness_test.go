package conformance

// The scheduling hub: one Placement and what OCM's scheduler reads,
// scheduled by OCM v1.2.0's own scheduling controller
// (pkg/placement/controllers/scheduling: NewSchedulingController with
// NewPluginScheduler, its sync run once over fake clientsets and
// informers) and by rolloutkit's placement.ScheduleHub. Both results are
// read into one comparable form, scheduleOutcome.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	kevents "k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"
	fakecluster "open-cluster-management.io/api/client/cluster/clientset/versioned/fake"
	clusterinformers "open-cluster-management.io/api/client/cluster/informers/externalversions"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"open-cluster-management.io/ocm/pkg/placement/controllers/metrics"
	"open-cluster-management.io/ocm/pkg/placement/controllers/scheduling"
	"open-cluster-management.io/ocm/pkg/placement/plugins/addon"
	"open-cluster-management.io/ocm/pkg/placement/plugins/tainttoleration"
	"open-cluster-management.io/sdk-go/pkg/basecontroller/events"

	"github.com/rolloutkit/rolloutkit/placement"
)

// hubCase is one scheduling input: a Placement, the hub it is scheduled
// on, and the time.
type hubCase struct {
	Now       time.Time
	Placement *clusterv1beta1.Placement
	Hub       placement.Hub
}

// scheduleOutcome is what a scheduler wrote for a Placement, in a form
// both schedulers' results are read into.
type scheduleOutcome struct {
	Err       error // ours: ScheduleHub's error; OCM: the sync's
	Selected  int32 // status.numberOfSelectedClusters
	Groups    []decisionGroupOutcome
	Satisfied conditionOutcome
	Misconfig conditionOutcome
	// RecheckAfter is 0 when the scheduler asks for no requeue. OCM's
	// requeue is measured on the real clock (time.Until), which moves
	// during the call; RecheckSlack is how far, and OCM's value is the
	// earliest it can mean.
	RecheckAfter time.Duration
	RecheckSlack time.Duration
	// decisions are the PlacementDecisions OCM wrote (ours: unset).
	decisions []*clusterv1beta1.PlacementDecision
}

// decisionGroupOutcome is one decisionGroups entry of the status with the
// clusters of its PlacementDecisions, in their order.
type decisionGroupOutcome struct {
	Name      string
	Index     int32
	Count     int32
	Decisions []string // PlacementDecision names
	Clusters  []string
}

type conditionOutcome struct {
	Status  metav1.ConditionStatus
	Reason  string
	Message string
}

func (c conditionOutcome) String() string {
	return fmt.Sprintf("%s/%s %q", c.Status, c.Reason, c.Message)
}

// readOutcome reads the status and the PlacementDecisions a scheduler
// wrote; decision looks a PlacementDecision up by name. It does not read
// the PlacementDecisions' labels: OCM updates the labels of an existing
// one only at the sync after the one that changed its decisions.
func readOutcome(status clusterv1beta1.PlacementStatus, decision func(name string) *clusterv1beta1.PlacementDecision) scheduleOutcome {
	o := scheduleOutcome{Selected: status.NumberOfSelectedClusters}
	for _, dg := range status.DecisionGroups {
		g := decisionGroupOutcome{Name: dg.DecisionGroupName, Index: dg.DecisionGroupIndex, Count: dg.ClustersCount, Decisions: slices.Clone(dg.Decisions)}
		for _, name := range dg.Decisions {
			pd := decision(name)
			if pd == nil {
				g.Clusters = append(g.Clusters, "<missing PlacementDecision "+name+">")
				continue
			}
			for _, d := range pd.Status.Decisions {
				g.Clusters = append(g.Clusters, d.ClusterName)
			}
		}
		o.Groups = append(o.Groups, g)
	}
	o.Satisfied = readCondition(status.Conditions, clusterv1beta1.PlacementConditionSatisfied)
	o.Misconfig = readCondition(status.Conditions, clusterv1beta1.PlacementConditionMisconfigured)
	return o
}

func readCondition(conds []metav1.Condition, t string) conditionOutcome {
	c := meta.FindStatusCondition(conds, t)
	if c == nil {
		return conditionOutcome{Reason: "<none>"}
	}
	return conditionOutcome{Status: c.Status, Reason: c.Reason, Message: c.Message}
}

// runOurScheduler runs placement.ScheduleHub on the case.
func runOurScheduler(hc hubCase) (scheduleOutcome, placement.Result) {
	res, err := placement.Scheduler{Clock: testingclock.NewFakePassiveClock(hc.Now)}.ScheduleHub(hc.Placement, hc.Hub)
	byName := make(map[string]*clusterv1beta1.PlacementDecision, len(res.Decisions))
	for _, pd := range res.Decisions {
		byName[pd.Name] = pd
	}
	o := readOutcome(res.Status, func(name string) *clusterv1beta1.PlacementDecision { return byName[name] })
	o.Err, o.RecheckAfter = err, res.RecheckAfter
	return o, res
}

// copyHub deep-copies every object of h.
func copyHub(h placement.Hub) placement.Hub {
	return placement.Hub{
		Clusters:    copyAll(h.Clusters, (*clusterv1.ManagedCluster).DeepCopy),
		ClusterSets: copyAll(h.ClusterSets, (*clusterv1beta2.ManagedClusterSet).DeepCopy),
		Bindings:    copyAll(h.Bindings, (*clusterv1beta2.ManagedClusterSetBinding).DeepCopy),
		Scores:      copyAll(h.Scores, (*clusterv1alpha1.AddOnPlacementScore).DeepCopy),
		Decisions:   copyAll(h.Decisions, (*clusterv1beta1.PlacementDecision).DeepCopy),
	}
}

func copyAll[T any](in []T, deepCopy func(T) T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, o := range in {
		out[i] = deepCopy(o)
	}
	return out
}

// hubObjects are the case's objects, copied, as the API server would hold
// them (the Placement first).
func hubObjects(hc hubCase) []runtime.Object {
	objs := []runtime.Object{hc.Placement.DeepCopy()}
	for _, o := range hc.Hub.Clusters {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range hc.Hub.ClusterSets {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range hc.Hub.Bindings {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range hc.Hub.Scores {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range hc.Hub.Decisions {
		objs = append(objs, o.DeepCopy())
	}
	return objs
}

// requeueRecorder is the queue of the sync context handed to OCM's sync:
// the sync only calls AddAfter on it (any other call panics on the nil
// interface), which it records.
type requeueRecorder struct {
	workqueue.TypedRateLimitingInterface[string]
	after []time.Duration
}

func (q *requeueRecorder) AddAfter(_ string, d time.Duration) { q.after = append(q.after, d) }

type recordingSyncContext struct{ queue *requeueRecorder }

func (c recordingSyncContext) Queue() workqueue.TypedRateLimitingInterface[string] { return c.queue }
func (c recordingSyncContext) Recorder() events.Recorder                           { return nil }

// runOCMScheduler runs one sync of OCM v1.2.0's scheduling controller, with
// its plugin scheduler, on the case's objects and reads back the
// Placement's status and PlacementDecisions from the fake clientset.
//
// OCM reads time from two package-level clocks (tainttoleration's
// TolerationClock and addon's AddOnClock), which this sets to the case's
// time for the call and restores: callers must not run in parallel.
func runOCMScheduler(hc hubCase) scheduleOutcome {
	prevToleration, prevAddOn := tainttoleration.TolerationClock, addon.AddOnClock
	tainttoleration.TolerationClock = testingclock.NewFakeClock(hc.Now)
	addon.AddOnClock = testingclock.NewFakeClock(hc.Now)
	defer func() { tainttoleration.TolerationClock, addon.AddOnClock = prevToleration, prevAddOn }()

	objs := hubObjects(hc)
	client := fakecluster.NewSimpleClientset(objs...)
	// The informers are not started: their stores are filled by hand, as
	// OCM's own tests do, so that the sync sees exactly these objects.
	informers := clusterinformers.NewSharedInformerFactory(client, 10*time.Minute)
	clusters := informers.Cluster().V1().ManagedClusters()
	sets := informers.Cluster().V1beta2().ManagedClusterSets()
	bindings := informers.Cluster().V1beta2().ManagedClusterSetBindings()
	placements := informers.Cluster().V1beta1().Placements()
	decisions := informers.Cluster().V1beta1().PlacementDecisions()
	scores := informers.Cluster().V1alpha1().AddOnPlacementScores()

	recorder := &kevents.FakeRecorder{} // no channel: events are dropped
	metricsRecorder := metrics.NewScheduleMetrics(testingclock.NewFakeClock(hc.Now))
	ctx := klog.NewContext(context.Background(), logr.Discard())
	handle := scheduling.NewSchedulerHandler(client, decisions.Lister(), scores.Lister(), clusters.Lister(), recorder, metricsRecorder)
	ctrl := scheduling.NewSchedulingController(ctx, client, clusters, sets, bindings, placements, decisions, scores,
		scheduling.NewPluginScheduler(handle), recorder, metricsRecorder)
	defer ctrl.SyncContext().Queue().ShutDown() // its own queue, unused: stop its goroutines
	for _, o := range objs {
		if err := storeFor(o, clusters.Informer(), sets.Informer(), bindings.Informer(), placements.Informer(), decisions.Informer(), scores.Informer()).Add(o); err != nil {
			return scheduleOutcome{Err: err}
		}
	}

	syncCtx := recordingSyncContext{queue: &requeueRecorder{}}
	p := hc.Placement
	before := time.Now()
	syncErr := ctrl.Sync(ctx, syncCtx, p.Namespace+"/"+p.Name)
	after := time.Now()

	got, err := client.ClusterV1beta1().Placements(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		return scheduleOutcome{Err: err}
	}
	var wrote []*clusterv1beta1.PlacementDecision
	o := readOutcome(got.Status, func(name string) *clusterv1beta1.PlacementDecision {
		pd, err := client.ClusterV1beta1().PlacementDecisions(p.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil
		}
		wrote = append(wrote, pd)
		return pd
	})
	o.Err, o.decisions = syncErr, wrote
	if q := syncCtx.queue.after; len(q) > 0 {
		// time.Until(t) read the real clock somewhere in [before, after]:
		// t - hc.Now lies in [q + (before - Now), q + (after - Now)].
		o.RecheckAfter = q[len(q)-1] + before.Sub(hc.Now)
		o.RecheckSlack = after.Sub(before)
	}
	return o
}

// storeFor picks the informer store of o's kind.
func storeFor(o runtime.Object, clusters, sets, bindings, placements, decisions, scores cache.SharedIndexInformer) cache.Store {
	switch o.(type) {
	case *clusterv1.ManagedCluster:
		return clusters.GetStore()
	case *clusterv1beta2.ManagedClusterSet:
		return sets.GetStore()
	case *clusterv1beta2.ManagedClusterSetBinding:
		return bindings.GetStore()
	case *clusterv1beta1.Placement:
		return placements.GetStore()
	case *clusterv1beta1.PlacementDecision:
		return decisions.GetStore()
	case *clusterv1alpha1.AddOnPlacementScore:
		return scores.GetStore()
	}
	panic(fmt.Sprintf("no informer for %T", o))
}

// nextSync is the case OCM's next sync of the Placement sees: the hub
// with the Placement's own PlacementDecisions replaced by those theirs
// wrote.
func nextSync(hc hubCase, theirs scheduleOutcome) hubCase {
	next := hc
	next.Hub.Decisions = nil
	for _, pd := range hc.Hub.Decisions {
		if pd.Namespace != hc.Placement.Namespace || pd.Labels[clusterv1beta1.PlacementLabel] != hc.Placement.Name {
			next.Hub.Decisions = append(next.Hub.Decisions, pd)
		}
	}
	next.Hub.Decisions = append(next.Hub.Decisions, theirs.decisions...)
	return next
}
