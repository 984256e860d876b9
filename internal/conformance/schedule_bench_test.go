package conformance

// Benchmarks of OCM v1.2.0's scheduling controller and of
// placement.ScheduleHub on one hub: the seed's fleet with two taints per
// cluster, five cluster sets and the default prioritizers (the hub of
// placement's BenchmarkScheduleHub).
//
//	go test -run '^$' -bench 'BenchmarkScheduleHub(OCM|Ours)' .

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kevents "k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	fakecluster "open-cluster-management.io/api/client/cluster/clientset/versioned/fake"
	clusterinformers "open-cluster-management.io/api/client/cluster/informers/externalversions"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"open-cluster-management.io/ocm/pkg/placement/controllers/metrics"
	"open-cluster-management.io/ocm/pkg/placement/controllers/scheduling"
	"open-cluster-management.io/ocm/pkg/placement/plugins/tainttoleration"

	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/placement"
)

var scheduleBenchSizes = []int{1_000, 10_000}

// scheduleBenchNow is the benchmark hub's time.
func scheduleBenchNow() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }

// scheduleBenchHub is the seed's fleet of n clusters, each in one of five
// exclusive sets (four bound to the Placement's namespace), with a gpu
// taint the Placement tolerates and either an unreachable taint (one
// cluster in twenty) or a PreferNoSelect one. The Placement's own
// decisions hold every third cluster, another Placement's every fourth.
// The Placement is the seed's, asking for half the fleet, with the
// default prioritizers.
func scheduleBenchHub(b *testing.B, n int) hubCase {
	p, err := seed.Placement()
	if err != nil {
		b.Fatal(err)
	}
	p.Spec.NumberOfClusters = ptr.To(int32(n / 2))
	p.Spec.Tolerations = []clusterv1beta1.Toleration{{Key: "example.com/gpu", Operator: clusterv1beta1.TolerationOpExists}}
	added := scheduleBenchNow().Add(-time.Hour)
	hc := hubCase{Now: scheduleBenchNow(), Placement: p}
	for i, c := range seed.LargeFleet(n) {
		second := tainted("example.com/spot", "", clusterv1.TaintEffectPreferNoSelect, added)
		if i%20 == 0 {
			second = tainted(clusterv1.ManagedClusterTaintUnreachable, "", clusterv1.TaintEffectNoSelect, added)
		}
		inSet(fmt.Sprintf("set-%d", i%5))(c)
		tainted("example.com/gpu", "a100", clusterv1.TaintEffectNoSelect, added)(c)
		second(c)
		hc.Hub.Clusters = append(hc.Hub.Clusters, c)
	}
	for i := range 5 {
		hc.Hub.ClusterSets = append(hc.Hub.ClusterSets, clusterSet(fmt.Sprintf("set-%d", i), clusterv1beta2.ManagedClusterSelector{}))
		if i < 4 {
			hc.Hub.Bindings = append(hc.Hub.Bindings, binding(p.Namespace, fmt.Sprintf("set-%d", i)))
		}
	}
	hc.Hub.Decisions = append(everyNth(p.Namespace, p.Name, hc.Hub.Clusters, 3), everyNth("other", "other", hc.Hub.Clusters, 4)...)
	return hc
}

// everyNth puts every nth cluster into PlacementDecisions of 100 of
// Placement ns/name, named as OCM names them.
func everyNth(ns, name string, clusters []*clusterv1.ManagedCluster, nth int) []*clusterv1beta1.PlacementDecision {
	var out []*clusterv1beta1.PlacementDecision
	for i := 0; i < len(clusters); i += nth {
		if len(out) == 0 || len(out[len(out)-1].Status.Decisions) == 100 {
			out = append(out, decisionsOf(ns, name, fmt.Sprintf("%s-decision-%d", name, len(out)+1)))
		}
		last := out[len(out)-1]
		last.Status.Decisions = append(last.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: clusters[i].Name})
	}
	return out
}

// BenchmarkScheduleHubOurs schedules the benchmark hub with ScheduleHub.
func BenchmarkScheduleHubOurs(b *testing.B) {
	for _, n := range scheduleBenchSizes {
		hc := scheduleBenchHub(b, n)
		s := placement.Scheduler{Clock: testingclock.NewFakePassiveClock(hc.Now)}
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.ScheduleHub(hc.Placement, hc.Hub); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScheduleHubOCM runs one sync of OCM's scheduling controller
// per iteration: the bound sets and their clusters, the filters and
// prioritizers, numberOfClusters, the decision groups, and the writes of
// the PlacementDecisions and the status. Its informers' stores hold the
// hub, filled once; the clientset it writes to holds only the Placement
// and its PlacementDecisions, made afresh before each sync, off the clock.
// Not parallel: it sets OCM's package-level TolerationClock.
func BenchmarkScheduleHubOCM(b *testing.B) {
	prev := tainttoleration.TolerationClock
	defer func() { tainttoleration.TolerationClock = prev }()
	for _, n := range scheduleBenchSizes {
		hc := scheduleBenchHub(b, n)
		tainttoleration.TolerationClock = testingclock.NewFakeClock(hc.Now)
		sync, fresh := ocmSyncer(b, hc)
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				fresh()
				b.StartTimer()
				sync()
			}
		})
	}
}

// swappableClient is the clientset OCM's controller writes to; fresh
// replaces the one inside between syncs.
type swappableClient struct{ *fakecluster.Clientset }

// ocmSyncer builds OCM's scheduling controller over informers holding hc
// and returns one sync of the Placement, and a function that gives the
// controller a fresh clientset holding the Placement and its own
// PlacementDecisions.
func ocmSyncer(b *testing.B, hc hubCase) (sync, fresh func()) {
	objs := hubObjects(hc)
	var own []runtime.Object
	for _, pd := range hc.Hub.Decisions {
		if pd.Namespace == hc.Placement.Namespace && pd.Labels[clusterv1beta1.PlacementLabel] == hc.Placement.Name {
			own = append(own, pd)
		}
	}
	client := &swappableClient{}
	fresh = func() {
		objs := []runtime.Object{hc.Placement.DeepCopy()}
		for _, o := range own {
			objs = append(objs, o.DeepCopyObject())
		}
		client.Clientset = fakecluster.NewSimpleClientset(objs...)
	}
	fresh()
	informers := clusterinformers.NewSharedInformerFactory(client.Clientset, 10*time.Minute)
	clusters := informers.Cluster().V1().ManagedClusters()
	sets := informers.Cluster().V1beta2().ManagedClusterSets()
	bindings := informers.Cluster().V1beta2().ManagedClusterSetBindings()
	placements := informers.Cluster().V1beta1().Placements()
	decisions := informers.Cluster().V1beta1().PlacementDecisions()
	scores := informers.Cluster().V1alpha1().AddOnPlacementScores()
	recorder := &kevents.FakeRecorder{}
	metricsRecorder := metrics.NewScheduleMetrics(testingclock.NewFakeClock(hc.Now))
	ctx := klog.NewContext(context.Background(), logr.Discard())
	handle := scheduling.NewSchedulerHandler(client, decisions.Lister(), scores.Lister(), clusters.Lister(), recorder, metricsRecorder)
	ctrl := scheduling.NewSchedulingController(ctx, client, clusters, sets, bindings, placements, decisions, scores,
		scheduling.NewPluginScheduler(handle), recorder, metricsRecorder)
	b.Cleanup(ctrl.SyncContext().Queue().ShutDown)
	for _, o := range objs {
		if err := storeFor(o, clusters.Informer(), sets.Informer(), bindings.Informer(), placements.Informer(), decisions.Informer(), scores.Informer()).Add(o); err != nil {
			b.Fatal(err)
		}
	}
	key := hc.Placement.Namespace + "/" + hc.Placement.Name
	syncCtx := recordingSyncContext{queue: &requeueRecorder{}}
	sync = func() {
		if err := ctrl.Sync(ctx, syncCtx, key); err != nil {
			b.Fatal(err)
		}
	}
	sync() // once, to check it works and writes what ours computes
	got, err := client.ClusterV1beta1().Placements(hc.Placement.Namespace).Get(ctx, hc.Placement.Name, metav1.GetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ours, _ := runOurScheduler(hc)
	if got.Status.NumberOfSelectedClusters != ours.Selected || got.Status.NumberOfSelectedClusters == 0 {
		b.Fatalf("OCM selected %d clusters, ours %d", got.Status.NumberOfSelectedClusters, ours.Selected)
	}
	return sync, fresh
}
