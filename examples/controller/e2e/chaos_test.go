package e2e_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/util/retry"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/agent"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// The environment variables that replay TestChaos or make it bigger.
const (
	// envChaosSeed is the seed of TestChaos's faults: unset, each of
	// chaosSeeds, as in CI; an integer, that one; chaosRandom, one drawn
	// from the time.
	envChaosSeed = "ROLLOUTKIT_CHAOS_SEED"
	// chaosRandom is the value of envChaosSeed that draws the seed.
	chaosRandom = "random"
	// envChaosClusters is TestChaos's number of clusters; unset,
	// chaosClusters.
	envChaosClusters = "ROLLOUTKIT_CHAOS_CLUSTERS"
)

const (
	chaosClusters = 60 // in CI; a few hundred by hand
	chaosKills    = 6
	chaosFlaps    = 3
	chaosOutage   = 10 * time.Second // from the API server's stop to its start
	chaosApply    = time.Second      // the simulated agents' apply
	chaosCompete  = 100 * time.Millisecond
	// chaosStaleView is how long a flap may take to reach the controller's
	// cache: a group may start while an earlier cluster's newest version,
	// younger than this, is not Completed, if the one before it was
	// (requireGroupOrder).
	chaosStaleView = 2 * time.Second
)

// chaosLease is the leader election's timing in TestChaos: short, so that
// each lost leader costs seconds; a replica that misses its renewal on the
// loaded machine exits and is replaced, one more fault.
var chaosLease = leaseTiming{duration: 4 * time.Second, renew: 3 * time.Second, retry: 500 * time.Millisecond}

// faultKind is what a fault of the chaos plan does.
type faultKind int

const (
	killLeader   faultKind = iota // SIGKILL the replica holding the Lease
	killFollower                  // SIGKILL a replica that does not
	restartAPI                    // stop kube-apiserver, compact etcd, start it chaosOutage later
	flapWork                      // the flapping cluster's work reports Available False
)

func (k faultKind) String() string {
	return [...]string{"kill the leader", "kill a follower", "restart the API server", "flap"}[k]
}

// fault is one step of a chaos plan: gap after the step before ended, do
// kind; a killed replica's replacement starts restartAfter after the kill.
type fault struct {
	kind         faultKind
	gap          time.Duration
	restartAfter time.Duration
}

// chaosPlan draws a plan from rng: chaosKills kills (of the leader, two in
// three), one restart of the API server and chaosFlaps flaps, in a random
// order, each 1 to 4s after the one before, each kill's replacement 0 to
// 2s after it.
func chaosPlan(rng *rand.Rand) []fault {
	var plan []fault
	for range chaosKills {
		k := killLeader
		if rng.IntN(3) == 0 {
			k = killFollower
		}
		plan = append(plan, fault{kind: k, restartAfter: time.Duration(rng.Int64N(int64(2 * time.Second)))})
	}
	plan = append(plan, fault{kind: restartAPI})
	for range chaosFlaps {
		plan = append(plan, fault{kind: flapWork})
	}
	rng.Shuffle(len(plan), func(i, j int) { plan[i], plan[j] = plan[j], plan[i] })
	for i := range plan {
		plan[i].gap = time.Second + time.Duration(rng.Int64N(int64(3*time.Second)))
	}
	return plan
}

// chaosSeeds are the seeds TestChaos runs unless envChaosSeed says
// otherwise, as in CI: fixed, so that a red run names the seed that
// replays its plan. Two: each costs about 95 s of test time, and CI's
// budget is what bounds them; more are for runs by hand.
func chaosSeeds() []int64 { return []int64{1, 2} }

// chaosSettings reads the seeds and the size from the environment.
func chaosSettings(t *testing.T) (seeds []int64, clusters int) {
	t.Helper()
	seeds, clusters = chaosSeeds(), chaosClusters
	switch s := os.Getenv(envChaosSeed); s {
	case "":
	case chaosRandom:
		seeds = []int64{time.Now().UnixNano()}
	default:
		seed, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err, "%s=%q: want an integer or %q", envChaosSeed, s, chaosRandom)
		seeds = []int64{seed}
	}
	var err error
	if s := os.Getenv(envChaosClusters); s != "" {
		clusters, err = strconv.Atoi(s)
		require.NoError(t, err, "%s=%q: want an integer", envChaosClusters, s)
		require.GreaterOrEqual(t, clusters, 6, "%s=%d: want at least 6 clusters", envChaosClusters, clusters)
	}
	return seeds, clusters
}

// chaosSizes splits n clusters into dev, stg and prod as 1:2:3.
func chaosSizes(n int) [3]int {
	dev, stg := max(1, n/6), max(1, n/3)
	return [3]int{dev, stg, n - dev - stg}
}

// chaos is one run of TestChaos: the hub, the replicas, and what was
// done to them.
type chaos struct {
	t       *testing.T
	e       *env
	audit   *auditLog
	p       *pods
	keep    *keeper
	flapped string // the cluster whose work flaps
	// The configs rolled out: their spec hashes, the first the installed
	// one, and when each of the others was written.
	hashes   []string
	changes  []time.Time
	injected []injected
	outage   outageFigures
}

// injected is a fault as injected.
type injected struct {
	fault
	at     time.Time
	victim string // the replica killed, if any
	leader bool   // whether it held the Lease when killed
}

// outageFigures are what the replicas' /readyz answered while the API
// server was away, by HTTP status (0: nothing answered, as for a replica
// that has exited or not started yet), and the compacted revision.
type outageFigures struct {
	readyz    map[int]int
	compacted int64
	down, up  time.Time
}

// TestChaos rolls configs out over a few dozen clusters (in CI; a few
// hundred by hand: ROLLOUTKIT_CHAOS_CLUSTERS), a new agent image each time
// the last has reached every cluster, so that every fault meets a rollout
// under way, while faults drawn from a seed hit it. It runs once for each
// of chaosSeeds, in parallel, each on a hub of its own (the faults stop
// the API server and elect leaders with the shipped Lease): a failure
// names its seed, and ROLLOUTKIT_CHAOS_SEED=<seed> replays its plan (the
// timing of the system under test is not replayed);
// ROLLOUTKIT_CHAOS_SEED=random draws one from the time, by hand. The faults:
// the compiled controller, two replicas under leader election kept running
// as a Deployment keeps its pods, is killed (SIGKILL) at random moments,
// six times, mostly the leader; the API server stops for 10s once (etcd
// compacted meanwhile, so that every watch expires), during which the
// leader, unable to renew its Lease, exits; a competing writer patches a
// condition of its own into random add-ons' status every 100ms with an
// optimistic lock; and one dev cluster's work flaps (its agent reports it
// unavailable, then available again after its apply).
//
// Checked from the API server's audit log, every write by whom: no
// cluster got a config before every cluster of the groups ahead of it had
// applied it, completed and soaked (requireGroupOrder); every cluster's
// desired and applied configs went through the configs in the order they
// were written, each once, so that no lastAppliedConfig went backwards;
// every replica's write was made while it held the Lease; the controller's
// writes per add-on stay within chaosWriteBound a rollout; the readiness
// of every replica failed while the API server was away; and the last
// rollout completes. The faults and figures go to the test log
// (docs/operations.md records some).
func TestChaos(t *testing.T) {
	t.Parallel()
	seeds, n := chaosSettings(t)
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			replay := fmt.Sprintf("%s=%d %s=%d", envChaosSeed, seed, envChaosClusters, n)
			t.Logf("TestChaos: seed %d, %d clusters; replay with %s", seed, n, replay)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("TestChaos failed with seed %d: replay it with %s go test -run 'TestChaos' ./e2e/", seed, replay)
				}
			})
			chaosRun(t, seed, n)
		})
	}
}

// chaosRun is TestChaos with one seed over n clusters.
func chaosRun(t *testing.T, seed int64, n int) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	// A hub of its own: the faults stop the API server and compact etcd,
	// and the replicas elect a leader with the shipped Lease.
	e, audit := newAuditedEnv(t)
	o := e.seed(t, testhub.SeedOptions{Sizes: chaosSizes(n), Strategy: testhub.Strategy(soak.String(), "10m", 0)})
	p := e.newPods(t, shared.controller.get(t), chaosLease.flags()...)
	p.start(t)
	p.start(t)
	e.agents(t, chaosApply, nil)
	oldHash := specHash(t, testhub.Image)
	e.installed(t, o, addonName, oldHash, 5*time.Minute)

	clusters := o.Clusters()
	c := &chaos{t: t, e: e, audit: audit, p: p, keep: p.keep(2), flapped: clusters[rng.IntN(o.Sizes[0])], hashes: []string{oldHash}}
	plan := chaosPlan(rng)
	pick := rand.New(rand.NewPCG(uint64(seed), 1)) // the competitor's own stream
	w := e.compete(t, chaosCompete, func() string { return clusters[pick.IntN(len(clusters))] })
	c.change()
	for _, f := range plan {
		time.Sleep(f.gap) // the plan's pause between faults: part of the fault, not a wait for a state
		if c.rolledOut(clusters) {
			c.change() // so that every fault meets a rollout under way
		}
		c.inject(f)
	}
	e.installed(t, o, addonName, c.hashes[len(c.hashes)-1], 5*time.Minute)
	w.stop()
	started, errs := c.keep.halt()
	require.Empty(t, errs, "starting replicas")
	c.check(o, len(started), w)
}

// change writes the next agent image into the config: newImage, then
// v0.9.2, v0.9.3 and so on.
func (c *chaos) change() {
	c.t.Helper()
	image := newImage
	if k := len(c.changes); k > 0 {
		image = fmt.Sprintf("quay.io/open-cluster-management/cluster-proxy:v0.9.%d", k+1)
	}
	c.hashes = append(c.hashes, specHash(c.t, image))
	c.changes = append(c.changes, time.Now())
	require.NoError(c.t, testhub.SetAgentImage(context.Background(), c.e.c, image))
}

// rolledOut reports whether every cluster's add-on has completed with the
// last config written; false when the hub does not answer.
func (c *chaos) rolledOut(clusters []string) bool {
	var l addonv1alpha1.ManagedClusterAddOnList
	if err := c.e.c.List(context.Background(), &l); err != nil {
		return false
	}
	h := c.hashes[len(c.hashes)-1]
	done := 0
	for i := range l.Items {
		m := &l.Items[i]
		p := meta.FindStatusCondition(m.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		refs := m.Status.ConfigReferences
		if m.Name == addonName && len(refs) == 1 && refs[0].DesiredConfig != nil && refs[0].DesiredConfig.SpecHash == h &&
			refs[0].LastAppliedConfig != nil && refs[0].LastAppliedConfig.SpecHash == h && p != nil && p.Reason == addonv1beta1.ProgressingReasonCompleted {
			done++
		}
	}
	return done == len(clusters)
}

// inject does f, and records it.
func (c *chaos) inject(f fault) {
	c.t.Helper()
	d := injected{fault: f, at: time.Now()}
	switch f.kind {
	case killLeader, killFollower:
		victim, leader := c.victim(f.kind == killLeader)
		if victim == nil {
			c.t.Logf("%s: no replica running", f.kind)
			break
		}
		c.keep.hold(f.restartAfter)
		d.at, d.victim, d.leader = victim.kill(c.t), victim.user, leader
	case restartAPI:
		c.restartAPI()
	case flapWork:
		require.NoError(c.t, c.e.flap(c.flapped), "flapping %s", c.flapped)
	}
	c.injected = append(c.injected, d)
}

// victim returns a running replica to kill: the one holding the Lease
// (as the audit log last recorded it) when leader is true, else another;
// any running one when there is no such replica. It says whether the one
// returned holds the Lease.
func (c *chaos) victim(leader bool) (*replica, bool) {
	running := c.p.running()
	if len(running) == 0 {
		return nil, false
	}
	terms := leaseTerms(c.t, c.audit.events(c.t), leaseNamespace, leaseName)
	holder := ""
	if len(terms) > 0 {
		holder = terms[len(terms)-1].user
	}
	for _, r := range running {
		if (r.user == holder) == leader {
			return r, r.user == holder
		}
	}
	return running[0], running[0].user == holder
}

// restartAPI stops the API server, compacts etcd, probes the replicas'
// readiness until chaosOutage has passed since the stop, and starts the
// API server again.
func (c *chaos) restartAPI() {
	c.t.Helper()
	c.outage = outageFigures{readyz: map[int]int{}, down: time.Now()}
	require.NoError(c.t, c.e.hub.StopAPIServer())
	var err error
	c.outage.compacted, err = c.e.hub.CompactEtcd(context.Background())
	require.NoError(c.t, err)
	for time.Since(c.outage.down) < chaosOutage {
		for _, r := range c.p.running() {
			c.outage.readyz[r.readyz()]++
		}
		time.Sleep(500 * time.Millisecond) // the probes' period
	}
	require.NoError(c.t, c.e.hub.StartAPIServer())
	c.outage.up = time.Now()
}

// flap reports the cluster's deploy work unavailable, as its work agent
// does when the add-on's pods go away: Available False at the work's
// generation. The simulated agent, which applies a work that is not ready,
// reports it available again after its apply delay.
func (e *env) flap(cluster string) error {
	ctx := context.Background()
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		var cur workv1.ManifestWork
		if err := e.c.Get(ctx, types.NamespacedName{Namespace: cluster, Name: agent.WorkName(addonName)}, &cur); err != nil {
			return err
		}
		next := cur.DeepCopy()
		meta.SetStatusCondition(&next.Status.Conditions, metav1.Condition{Type: workv1.WorkAvailable, Status: metav1.ConditionFalse,
			ObservedGeneration: cur.Generation, Reason: "ChaosFlap", Message: "the add-on's pods went away"})
		return e.c.Status().Patch(ctx, next, client.MergeFromWithOptions(&cur, client.MergeFromWithOptimisticLock{}))
	})
}

// check checks the invariants on the audit log and reports the figures.
func (c *chaos) check(o seeded, replacements int, w *competitor) {
	t := c.t
	t.Helper()
	events := c.audit.events(t)
	versions := addonVersions(t, events, addonName)
	groups := groupsOf(o)
	stale := 0
	for _, h := range c.hashes[1:] {
		stale += requireGroupOrder(t, versions, groups, h, chaosStaleView)
	}
	for _, cl := range o.Clusters() {
		assert.Equal(t, c.hashes, hashRuns(versions[cl], func(v addonVersion) string { return v.desired }), "%s: desired, every stored version", cl)
		assert.Equal(t, c.hashes, hashRuns(versions[cl], func(v addonVersion) string { return v.applied }), "%s: lastApplied, every stored version", cl)
	}
	terms := leaseTerms(t, events, leaseNamespace, leaseName)
	assert.Empty(t, fenceViolations(events, terms, isReplica), "writes of a replica outside its terms as leader")

	writes, refused := replicaWrites(events, c.changes[0])
	flaps := 0
	for _, d := range c.injected {
		if d.kind == flapWork {
			flaps++
		}
	}
	most, total := "", 0
	for _, cl := range o.Clusters() {
		bound := chaosWriteBound * len(c.changes)
		if cl == c.flapped {
			bound += 2 * flaps
		}
		assert.LessOrEqual(t, writes[cl], bound, "%s: the controller's writes to its add-on", cl)
		if most == "" || writes[cl] > writes[most] {
			most = cl
		}
		total += writes[cl]
	}
	assert.Zero(t, c.outage.readyz[http.StatusOK], "a replica reported ready with the API server away: %v", c.outage.readyz)
	c.report(o, versions, terms, stale, w, refused, conflictsWithin(events, c.outage.up, c.outage.up.Add(relistBackoff)))
	histogram := make(map[int]int) // writes -> add-ons
	for _, cl := range o.Clusters() {
		histogram[writes[cl]]++
	}
	t.Logf("the controller's writes per add-on in %d rollouts: %.2f on average, at most %d (%s; bound %d a rollout, %d more for the flapping %s); add-ons by writes: %v",
		len(c.changes), float64(total)/float64(len(o.Clusters())), writes[most], most, chaosWriteBound, 2*flaps, c.flapped, histogram)
	t.Logf("replicas started: %d, of them %d replacements (kills and crashes); leader terms since the start: %d", c.p.count(), replacements, len(terms))
}

// chaosWriteBound bounds the controller's accepted writes to one add-on in
// a rollout of one config change, whatever the faults. There are four
// states to write: the config changed and the add-on is not configured
// with it yet (Configured False, on every add-on at once, as OCM's
// add-on manager does); its start (the desired config, Configured True and
// Progressing); its work not ready yet; and Completed with
// lastAppliedConfig (fewer when the controller does not see a state in
// passing). A replica that takes
// over reads the state its predecessor stored and, as every writer, sends
// no write that changes nothing; a write refused (a conflict with a
// competing writer, or one computed from a cache the outage left stale)
// stores nothing; a competing writer's condition is not the controller's
// to write. A flap adds two: not ready, and Completed again.
const chaosWriteBound = 4

// groupsOf returns the seed's clusters by group, in rollout order.
func groupsOf(o seeded) [][]string {
	all := o.Clusters()
	out := make([][]string, 3)
	i := 0
	for g, n := range o.Sizes {
		out[g] = all[i : i+n]
		i += n
	}
	return out
}

// requireGroupOrder replays every stored version of the add-ons in the
// order they were answered, and checks each version that first gives a
// cluster the config whose hash is h: every cluster of the groups ahead of
// its own had, at that moment, applied h, completed and soaked (the stored
// Completed time plus soak, at or before the write). A cluster whose
// newest version then was otherwise passes only if a version the
// controller may still have been reading passed: one younger than stale,
// or the newest older than that. A flap and the recovery after it may
// both land while the writes of one group's start are under way, all
// planned from the view before the flap. It returns how many such passes
// there were.
func requireGroupOrder(t testing.TB, versions map[string][]addonVersion, groups [][]string, h string, stale time.Duration) int {
	t.Helper()
	group := make(map[string]int)
	var all []addonVersion
	for g, cs := range groups {
		for _, cl := range cs {
			group[cl] = g
			all = append(all, versions[cl]...)
		}
	}
	slices.SortStableFunc(all, func(a, b addonVersion) int { return a.at.Compare(b.at) })
	history := make(map[string][]addonVersion)
	stalePasses := 0
	var wrong []string
	for _, v := range all {
		hist := history[v.cluster]
		if v.desired == h && (len(hist) == 0 || hist[len(hist)-1].desired != h) {
			for _, earlier := range groups[:group[v.cluster]] {
				for _, cl := range earlier {
					switch soakedAt(history[cl], h, v.at, stale) {
					case soakStale:
						stalePasses++
					case soakNot:
						wrong = append(wrong, fmt.Sprintf("%s got %.8s at %s before %s had completed and soaked; %s's versions then: %s", v.cluster, h,
							v.at.Format("15:04:05.000000"), cl, cl, describeVersions(history[cl], h)))
					}
				}
			}
		}
		history[v.cluster] = append(hist, v)
	}
	assert.Empty(t, wrong, "a group started before the ones ahead of it completed and soaked")
	return stalePasses
}

// soakVerdict is whether a cluster had completed and soaked at a moment.
type soakVerdict int

const (
	soakNot   soakVerdict = iota
	soakDone              // its newest version shows it
	soakStale             // an older version does, one the controller may still have been reading: younger than the stale view, or the newest older than it
)

// soakedAt tells whether hist, a cluster's versions up to at, shows it
// completed with h and soaked at at.
func soakedAt(hist []addonVersion, h string, at time.Time, stale time.Duration) soakVerdict {
	done := func(v addonVersion) bool {
		return v.completedWith(h) && !v.progressing.LastTransitionTime.Add(soak).After(at)
	}
	n := len(hist)
	if n > 0 && done(hist[n-1]) {
		return soakDone
	}
	// hist[i] may still have been the controller's view while the version
	// after it is younger than the stale view.
	for i := n - 2; i >= 0 && hist[i+1].at.After(at.Add(-stale)); i-- {
		if done(hist[i]) {
			return soakStale
		}
	}
	return soakNot
}

// describeVersions tells a cluster's last versions (at most four): when
// each was stored, and whether it had completed with h and when.
func describeVersions(hist []addonVersion, h string) string {
	var sb strings.Builder
	for _, v := range hist[max(0, len(hist)-4):] {
		fmt.Fprintf(&sb, " [%s", v.at.Format("15:04:05.000000"))
		if v.completedWith(h) {
			fmt.Fprintf(&sb, " completed at %s", v.progressing.LastTransitionTime.Format("15:04:05"))
		} else if v.progressing != nil {
			fmt.Fprintf(&sb, " %s", v.progressing.Reason)
		}
		sb.WriteString("]")
	}
	return sb.String()
}

// replicaWrites counts, by cluster, the replicas' accepted writes to the
// add-ons answered after since, and their writes refused as conflicts.
func replicaWrites(events []auditv1.Event, since time.Time) (accepted, conflicts map[string]int) {
	accepted, conflicts = make(map[string]int), make(map[string]int)
	for i := range events {
		e := &events[i]
		if !auditWrite(e) || !isReplica(e.User.Username) || e.ObjectRef.Resource != "managedclusteraddons" || e.StageTimestamp.Time.Before(since) {
			continue
		}
		switch {
		case auditAccepted(e):
			accepted[e.ObjectRef.Namespace]++
		case auditCode(e) == http.StatusConflict:
			conflicts[e.ObjectRef.Namespace]++
		}
	}
	return accepted, conflicts
}

// relistBackoff is the longest an informer waits before it lists again
// after its watch ended with errors: client-go's reflector backs off
// exponentially up to 30s. Until it relists, the controller reads a stale
// cache, and its writes computed from it are refused as conflicts.
const relistBackoff = 30 * time.Second

// conflictsWithin counts the replicas' writes refused as conflicts that
// were answered between from and to.
func conflictsWithin(events []auditv1.Event, from, to time.Time) int {
	n := 0
	for i := range events {
		e := &events[i]
		if auditWrite(e) && isReplica(e.User.Username) && auditCode(e) == http.StatusConflict &&
			!e.StageTimestamp.Time.Before(from) && e.StageTimestamp.Time.Before(to) {
			n++
		}
	}
	return n
}

// completedAt returns when the last of clusters first completed with h.
func completedAt(versions map[string][]addonVersion, clusters []string, h string) time.Time {
	var last time.Time
	for _, cl := range clusters {
		if i := slices.IndexFunc(versions[cl], func(v addonVersion) bool { return v.completedWith(h) }); i >= 0 && versions[cl][i].at.After(last) {
			last = versions[cl][i].at
		}
	}
	return last
}

// report logs the faults and the figures of the run.
func (c *chaos) report(o seeded, versions map[string][]addonVersion, terms []term, stale int, w *competitor, refused map[string]int, afterOutage int) {
	t := c.t
	t.Helper()
	start := c.changes[0]
	var rollouts []string
	completed := make([]time.Time, len(c.changes))
	for k, at := range c.changes {
		completed[k] = completedAt(versions, o.Clusters(), c.hashes[k+1])
		rollouts = append(rollouts, fmt.Sprintf("%.8s from +%s to +%s", c.hashes[k+1], at.Sub(start).Round(100*time.Millisecond),
			completed[k].Sub(start).Round(100*time.Millisecond)))
	}
	mid := 0
	var lines []string
	for _, d := range c.injected {
		at := d.at.Sub(start).Round(100 * time.Millisecond)
		for k := range c.changes {
			if !d.at.Before(c.changes[k]) && d.at.Before(completed[k]) {
				mid++
				break
			}
		}
		switch d.kind {
		case killLeader, killFollower:
			what := "follower"
			if d.leader {
				what = "leader"
			}
			line := fmt.Sprintf("+%s kill %s (%s), replacement after %s", at, d.victim, what, d.restartAfter.Round(100*time.Millisecond))
			if d.leader {
				if tm, ok := termAfter(terms, d.at, d.victim); ok {
					line += fmt.Sprintf("; %s took the Lease %s after the kill", tm.user, tm.from.Sub(d.at).Round(time.Millisecond))
				}
			}
			lines = append(lines, line)
		case restartAPI:
			lines = append(lines, fmt.Sprintf("+%s API server stopped, etcd compacted at revision %d, started %s after the stop; replicas' /readyz meanwhile (status: probes) %v",
				at, c.outage.compacted, c.outage.up.Sub(c.outage.down).Round(100*time.Millisecond), c.outage.readyz))
		case flapWork:
			lines = append(lines, fmt.Sprintf("+%s flap %s", at, c.flapped))
		}
	}
	conflicts := 0
	for _, n := range refused {
		conflicts += n
	}
	t.Logf("rollouts: %s", strings.Join(rollouts, "; "))
	t.Logf("faults (from the first config change; %d of %d while a rollout was under way):\n\t%s", mid, len(c.injected), strings.Join(lines, "\n\t"))
	t.Logf("sizes dev/stg/prod %v; the competitor wrote %d times (%d of its own writes refused); the controller's add-on writes refused as conflicts: %d (%d of them in the %s after the API server's restart); group starts that met a flap not yet seen: %d",
		o.Sizes, w.writes.Load(), w.conflicts.Load(), conflicts, afterOutage, relistBackoff, stale)
}

// termAfter returns the first term after at of a holder other than user.
func termAfter(terms []term, at time.Time, user string) (term, bool) {
	for _, tm := range terms {
		if tm.from.After(at) && tm.user != user {
			return tm, true
		}
	}
	return term{}, false
}
