package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// failoverLease is the leader election's timing in TestLeaderFailover:
// the defaults (15s, 10s, 2s) scaled down, with room for a loaded
// machine: a leader has 4s of tries, every half second, to renew.
var failoverLease = leaseTiming{duration: 6 * time.Second, renew: 4 * time.Second, retry: 500 * time.Millisecond}

// leaseNamespace is where the controller's Lease is (-leader-elect-namespace's default).
const leaseNamespace = "kube-system"

// TestLeaderFailover runs the compiled controller as a Deployment of two
// replicas does, each process with a client certificate of its own (and a
// tap between it and the API server), and the simulated agents in the
// test, so that no agent dies with a replica. The API server's audit log
// records every write, by whom.
//
// While stg is in flight, the leader is killed (SIGKILL): the other replica
// takes the Lease within failoverLease.failover() of the kill, and a third
// starts as the Deployment's replacement. Then the new leader's next
// status write to an add-on meets a competing write to that add-on (an
// unrelated condition, patched with an optimistic lock) just before it, and
// is refused with a conflict (409): the leader is killed at once, with the
// write to make again, and the third replica takes over and makes it.
//
// The rollout completes in order, each group after the one before soaked
// (requireStaged); every cluster's desired and applied hashes go exactly
// [old, new], in every version the audit log recorded; and every write of
// a replica was received and answered while it held the Lease: nothing a
// dead leader sent lands after the takeover.
func TestLeaderFailover(t *testing.T) {
	t.Parallel()
	// A hub of its own: the replicas elect a leader with the shipped
	// Lease, and the audit log must hold their writes alone.
	e, audit := newAuditedEnv(t)
	o := seedHub(t, e, "60s")
	p := e.newPods(t, shared.controller.get(t), failoverLease.flags()...)
	p.tapped = true
	p.start(t)
	p.start(t)
	e.agents(t, 3*time.Second, nil)
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	e.installed(t, o, addonName, oldHash, 90*time.Second)
	for _, r := range p.running() {
		assert.Equal(t, http.StatusOK, r.readyz(), "%s: /readyz with the API server up", r.user)
	}

	ob := e.observe(t, o.Clusters(), addonName, newHash)
	require.NoError(t, testhub.SetAgentImage(context.Background(), e.c, newImage))
	e.inFlight(t, e.stg, newHash)
	second := e.failover(t, audit, p, e.leader(t, audit, p), "with stg in flight")
	p.start(t) // the Deployment replaces the dead pod
	pending := e.conflictAt(t, second)
	third := e.failover(t, audit, p, second, "as its status write to "+pending+" was refused")
	refused := refusal(t, audit, second.user, pending)
	t.Logf("the write %s died with, refused at %s, set the desired config %.8s: %.200s...", second.user,
		refused.StageTimestamp.Format("15:04:05.000000"), desiredIn(t, &refused), requestBody(&refused))

	e.installed(t, o, addonName, newHash, 90*time.Second)
	e.requireStaged(t, ob, o, oldHash, newHash)
	events := audit.events(t)
	terms := leaseTerms(t, events, leaseNamespace, leaseName)
	assert.Empty(t, fenceViolations(events, terms, isReplica), "writes of a replica outside its terms as leader")
	from := terms[len(terms)-1].from
	_, remade := firstWrite(events, third.user, from, func(e *auditv1.Event) bool {
		return e.ObjectRef.Resource == "managedclusteraddons" && e.ObjectRef.Namespace+"/"+e.ObjectRef.Name == pending
	})
	assert.True(t, remade, "%s, leading, never wrote %s, whose write %s died with", third.user, pending, second.user)
	versions := addonVersions(t, events, addonName)
	for _, c := range o.Clusters() {
		assert.Equal(t, []string{oldHash, newHash}, hashRuns(versions[c], func(v addonVersion) string { return v.desired }), "%s: desired, every stored version", c)
		assert.Equal(t, []string{oldHash, newHash}, hashRuns(versions[c], func(v addonVersion) string { return v.applied }), "%s: lastApplied, every stored version", c)
	}
}

// failover kills the leader and waits until another replica takes the
// Lease (takeover), which it returns; it logs the times, and when the dead
// leader's last write landed.
func (e *env) failover(t *testing.T, audit *auditLog, p *pods, leader *replica, when string) *replica {
	t.Helper()
	killed := leader.kill(t)
	next, took := e.takeover(t, audit, p, leader, killed)
	var last time.Time
	for _, ev := range audit.events(t) {
		if auditStateWrite(&ev) && ev.User.Username == leader.user {
			last = ev.StageTimestamp.Time
		}
	}
	t.Logf("killed the leader %s (SIGKILL) %s; %s took the Lease %s later (bound %s); the dead leader's last write landed %s before the kill",
		leader.user, when, next.user, took.Round(time.Millisecond), failoverLease.failover(), killed.Sub(last).Round(time.Millisecond))
	return next
}

// conflictAt arms leader's tap so that its next status write to an add-on
// is refused with a conflict, and returns that add-on (namespace/name) as
// soon as the refusal is on its way to the leader: the caller kills the
// leader then, with the write to make again.
func (e *env) conflictAt(t *testing.T, leader *replica) string {
	t.Helper()
	competitor, n := e.competitorClient(t), 0
	leader.tap.arm(func(ns, _ string) error { n++; return competingWrite(context.Background(), competitor, ns, n) })
	select {
	case pending := <-leader.tap.refused:
		return pending
	case <-time.After(90 * time.Second):
		t.Fatalf("%s made no status write to an add-on within 90s of the tap's arming", leader.user)
		return ""
	}
}

// refusal waits until the audit log shows the write of user to the
// add-on (namespace/name) refused with a conflict, and returns it.
func refusal(t *testing.T, audit *auditLog, user, addon string) auditv1.Event {
	t.Helper()
	var refused auditv1.Event
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		events := audit.events(ct)
		i := slices.IndexFunc(events, func(ev auditv1.Event) bool {
			return auditWrite(&ev) && ev.User.Username == user && auditCode(&ev) == http.StatusConflict && ev.ObjectRef.Namespace+"/"+ev.ObjectRef.Name == addon
		})
		require.GreaterOrEqual(ct, i, 0, "not logged yet")
		refused = events[i]
	}, 30*time.Second, poll, "the refusal in the audit log")
	return refused
}

// leader waits until the audit log shows a running replica holding the
// Lease, and returns it.
func (e *env) leader(t *testing.T, audit *auditLog, p *pods) *replica {
	t.Helper()
	var r *replica
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		terms := leaseTerms(ct, audit.events(ct), leaseNamespace, leaseName)
		require.NotEmpty(ct, terms, "no Lease written")
		r = p.byUser(terms[len(terms)-1].user)
		assert.True(ct, r != nil && !r.exited(), "held by %s", terms[len(terms)-1].user)
	}, 60*time.Second, poll, "a replica leads")
	return r
}

// takeover waits until a replica other than dead holds the Lease, checks
// that it took it within the failover bound of killed, and returns it with
// the time from the kill to its taking the Lease. It logs when the new
// leader's first write landed.
func (e *env) takeover(t *testing.T, audit *auditLog, p *pods, dead *replica, killed time.Time) (*replica, time.Duration) {
	t.Helper()
	var tm term
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		terms := leaseTerms(ct, audit.events(ct), leaseNamespace, leaseName)
		require.NotEmpty(ct, terms, "no Lease written")
		tm = terms[len(terms)-1]
		assert.NotEqual(ct, dead.user, tm.user, "held by %s", tm.user)
	}, 60*time.Second, poll, "another replica takes the Lease")
	took := tm.from.Sub(killed)
	assert.LessOrEqual(t, took, failoverLease.failover(), "%s took the Lease %s after %s was killed", tm.user, took, dead.user)
	next := p.byUser(tm.user)
	require.NotNil(t, next, "the Lease went to %s, no replica of the test", tm.user)
	var first auditv1.Event
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		w, ok := firstWrite(audit.events(ct), tm.user, tm.from, func(*auditv1.Event) bool { return true })
		require.True(ct, ok, "no write yet")
		first = w
	}, 60*time.Second, poll, "%s writes", tm.user)
	t.Logf("%s's first write as leader, %s after the kill: %s", tm.user, first.StageTimestamp.Sub(killed).Round(time.Millisecond), auditDescribe(&first))
	return next, took
}

// firstWrite returns the first accepted state write of user answered
// after from that match picks, and whether there is one.
func firstWrite(events []auditv1.Event, user string, from time.Time, match func(*auditv1.Event) bool) (auditv1.Event, bool) {
	for i := range events {
		if e := &events[i]; auditStateWrite(e) && e.User.Username == user && e.StageTimestamp.Time.After(from) && match(e) {
			return *e, true
		}
	}
	return auditv1.Event{}, false
}

// desiredIn returns the desired spec hash the add-on patch e records
// sets, "" when it sets none.
func desiredIn(t *testing.T, e *auditv1.Event) string {
	t.Helper()
	var m addonv1alpha1.ManagedClusterAddOn
	require.NoError(t, json.Unmarshal(e.RequestObject.Raw, &m), "the patch in the audit log")
	for _, r := range m.Status.ConfigReferences {
		if r.DesiredConfig != nil {
			return r.DesiredConfig.SpecHash
		}
	}
	return ""
}

// requestBody is the body of the request e records, "" when the log has
// none.
func requestBody(e *auditv1.Event) string {
	if e.RequestObject == nil {
		return ""
	}
	return string(e.RequestObject.Raw)
}
