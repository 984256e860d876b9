package e2e_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/manifests"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// upgradeSoak is TestUpgrade's minSuccessTime: long enough that stg is
// still soaking once the controller has been replaced.
const upgradeSoak = 20 * time.Second

// upgradeManager is the field manager the test applies the config with,
// as kubectl apply --server-side does with its own: the upgrade's apply
// then removes what the release's apply set and this tree no longer has.
const upgradeManager = "rolloutkit-upgrade"

// TestUpgrade upgrades a hub in the middle of a rollout from the
// controller of upgradeFrom, the last release, to this tree's, as
// docs/upgrading.md says to: the release's CRDs and RBAC applied
// (config/default rendered as kubectl apply -k renders it), its
// controller, built from the same clone, running as the ServiceAccount
// with the Deployment's leader election; the seed's add-on under an
// AddOnRollout whose stg and prod need an approval. With dev done, stg
// approved and soaking, prod waiting, and the second add-on's dev waiting
// for an approval, the old controller stops, this
// tree's CRDs and RBAC are applied over the release's, and this tree's
// controller starts as the same ServiceAccount. Then:
//
//   - the rollout carries on: stg's soak ends when the release recorded it
//     would (the same until, the same transition time on its add-on),
//     prod still waits for an approval of the same revision, takes one,
//     and the rollout completes;
//   - no group repeats: every cluster's desired and applied hashes go
//     exactly [old, new] in every version the audit log recorded, and the
//     works of dev and stg are not written again;
//   - no approval is lost: stg's, given to the release, still approves;
//   - a group waiting for an approval at the switch waits on: a second
//     add-on on the same clusters and config, upgradeWaiting, whose dev
//     needs an approval, waits for one of the same revision with no
//     cluster started, and takes one given to the new controller;
//   - the API server refuses neither controller anything (the audit log,
//     and "forbidden" in the new controller's log);
//   - the stored AddOnRollout and RolloutApprovals need no migration: the
//     CRDs store the version they stored, and each object passes the new
//     schema's validation as it is.
func TestUpgrade(t *testing.T) {
	t.Parallel()
	rel := earlierRelease(t)
	oldBin, newBin := rel.binary(t), shared.controller.get(t)
	// A hub of its own: cluster-wide RBAC and CRDs, the shipped Lease.
	h, c := testhub.ForTest(t, testhub.WithAudit(), testhub.WithoutOwnCRDs())
	e, audit := &env{hub: h, c: c, names: seedNames()}, &auditLog{path: h.AuditLog()}
	e.applyConfig(t, rel.config("default"))
	kubeconfig := e.serviceAccountKubeconfig(t)
	o := e.seed(t, testhub.SeedOptions{Strategy: testhub.Strategy(upgradeSoak.String(), "5m", 0)})
	ctl := &controlled{env: e, o: o, oldHash: specHash(t, testhub.Image), newHash: specHash(t, newImage)}
	waiting := ctl.waitingAddon(t)
	old := startProcess(t, oldBin, kubeconfig, "release")
	e.agents(t, applyTime, nil)
	e.installed(t, o, addonName, ctl.oldHash, 90*time.Second)
	e.installed(t, o, waiting.addonName, ctl.oldHash, 90*time.Second)
	ctl.govern(t, v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"stg", "prod"}})
	waiting.govern(t, v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"dev"}})

	ob := e.observe(t, o.Clusters(), addonName, ctl.newHash)
	require.NoError(t, testhub.SetAgentImage(context.Background(), e.c, newImage))
	mid := ctl.midway(t)
	waitingRev := waiting.waitsForApproval(t, "dev", "")
	t.Logf("midway: dev done, stg soaking until %s (%s from now), prod %s; revision %s; %s's dev waits for an approval of %s",
		mid.stgUntil.Format(time.RFC3339), time.Until(mid.stgUntil).Round(time.Second), mid.prodWaits, mid.revision, upgradeWaiting, waitingRev)

	old.stop(t)
	upgraded := time.Now()
	e.applyConfig(t, "../config/default")
	cur := startProcess(t, newBin, kubeconfig, "tree")
	ctl.carriesOn(t, mid, cur)
	waiting.waitsForApproval(t, "dev", waitingRev)
	waiting.approveGroup(t, "dev", waitingRev)
	e.installed(t, o, addonName, ctl.newHash, 90*time.Second)
	e.installed(t, o, waiting.addonName, ctl.newHash, 90*time.Second)
	e.requireStaged(t, ob, o, ctl.oldHash, ctl.newHash)
	requireSoaked(t, e, ob, e.stg, e.prod)

	events := audit.events(t)
	for _, name := range []string{addonName, waiting.addonName} {
		versions := addonVersions(t, events, name)
		for _, cl := range o.Clusters() {
			assert.Equal(t, []string{ctl.oldHash, ctl.newHash}, hashRuns(versions[cl], func(v addonVersion) string { return v.desired }), "%s on %s: desired, every stored version", name, cl)
			assert.Equal(t, []string{ctl.oldHash, ctl.newHash}, hashRuns(versions[cl], func(v addonVersion) string { return v.applied }), "%s on %s: lastApplied, every stored version", name, cl)
		}
	}
	works := e.works(t, addonName)
	for _, cl := range []string{e.dev, e.stg} {
		assert.Equal(t, mid.works[cl], works[cl].generation, "%s: its work written again after the upgrade", cl)
	}
	assert.Empty(t, writesTo(events, controllerUser, upgraded, "managedclusteraddons", addonName, e.dev, e.stg), "the new controller's writes to the add-ons of dev and stg")
	assert.Empty(t, refusedTo(events, controllerUser), "requests of the controllers the API server refused as forbidden")
	forbiddenLines := slices.DeleteFunc(strings.Split(cur.logs(t), "\n"), func(l string) bool { return !strings.Contains(strings.ToLower(l), "forbidden") })
	assert.Empty(t, forbiddenLines, "the new controller's log says forbidden")
	e.requireStoredObjects(t)
}

// midway is what the status said when the old controller stopped.
type midway struct {
	revision  string
	stgUntil  time.Time // when stg's soak ends: prod's wait's until
	stgDone   metav1.Time
	prodWaits string
	works     map[string]int64 // each cluster's work generation
	approved  metav1.Time      // when stg's approval was judged
	holder    string           // the old controller's Lease
}

// midway approves stg once the rollout asks for it and waits until dev
// is done, stg soaking and prod waiting; it returns what the status and
// the hub said then.
func (c *controlled) midway(t *testing.T) midway {
	t.Helper()
	c.waitGroup(t, "stg", 90*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Approval" })
	_, rev := c.group(t, "stg")
	c.approveGroup(t, "stg", rev)
	c.waitGroup(t, "stg", 60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.Counts.Succeeded == 1 && g.Counts.Soaking == 1 })
	// prod waits for stg's soak, until its end.
	prod := c.waitGroup(t, "prod", 30*time.Second, func(g v1alpha1.GroupStatus) bool { return g.Until != nil })
	t.Logf("midway status: %+v", c.rollout(t).Status.Placements[0].Groups)
	dev, _ := c.group(t, "dev")
	require.Equal(t, "Complete", dev.Phase, "dev: %+v", dev)
	require.Zero(t, dev.Counts.Soaking, "dev still soaking: %+v", dev)
	require.NotEqual(t, "Complete", prod.Phase, "prod: %+v", prod)
	require.NotEqual(t, c.newHash, c.addon(t, c.prod, c.addonName).desired, "prod started before the upgrade")
	m := midway{revision: rev, stgUntil: prod.Until.Time, prodWaits: prod.WaitsFor, works: map[string]int64{}}
	m.stgDone = c.addon(t, c.stg, c.addonName).progressing.LastTransitionTime
	for cl, w := range c.works(t, c.addonName) {
		m.works[cl] = w.generation
	}
	m.approved = c.approvedAt(t, "stg")
	m.holder = c.leaseHolder(t)
	require.NotEmpty(t, m.holder, "the old controller holds no Lease")
	require.Greater(t, time.Until(m.stgUntil), 8*time.Second, "stg's soak ends too soon to span the upgrade")
	return m
}

// carriesOn checks that the new controller, cur, takes
// the rollout on where the old one left it: stg soaks on to the same end,
// prod waits for an approval of the same revision, and takes one.
func (c *controlled) carriesOn(t *testing.T, m midway, cur *versionRun) {
	t.Helper()
	// The status is written at a change, or at its recheck time (stg's
	// soak end): the new controller's first pass says what it made of it.
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		holder := c.leaseHolder(ct)
		assert.True(ct, holder != "" && holder != m.holder, "the Lease held by %q", holder)
	}, 60*time.Second, poll, "the new controller leads")
	soaking := "soaking until " + m.stgUntil.Local().Format(time.TimeOnly)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		i := slices.IndexFunc(strings.Split(cur.logs(t), "\n"), func(l string) bool {
			return strings.Contains(l, `"group":"stg"`) && strings.Contains(l, soaking)
		})
		assert.GreaterOrEqual(ct, i, 0, "the new controller never logged stg %s", soaking)
	}, 30*time.Second, poll, "the new controller sees stg soaking on")
	require.True(t, time.Now().Before(m.stgUntil), "stg's soak ended (%s) before the new controller took over", m.stgUntil)
	stg, rev := c.group(t, "stg")
	prod, _ := c.group(t, "prod")
	assert.Equal(t, m.revision, rev, "the revision after the upgrade")
	require.NotNil(t, prod.Until, "prod: %+v", prod)
	assert.Equal(t, m.stgUntil, prod.Until.Time, "the end of stg's soak, which prod waits for, after the upgrade")
	assert.Equal(t, m.prodWaits, prod.WaitsFor, "prod: %+v", prod)
	assert.Equal(t, int32(1), stg.Counts.Soaking, "stg: %+v", stg)
	assert.Equal(t, m.stgDone, c.addon(t, c.stg, c.addonName).progressing.LastTransitionTime, "stg's add-on: when it completed")
	assert.Equal(t, m.approved, c.approvedAt(t, "stg"), "stg's approval judged again")

	c.waitGroup(t, "prod", upgradeSoak+60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Approval" })
	assert.False(t, time.Now().Before(m.stgUntil), "prod waits for an approval before stg's soak ended at %s", m.stgUntil)
	pending := c.rollout(t).Status.PendingApprovals
	require.Len(t, pending, 1, "%+v", pending)
	assert.Equal(t, "prod", pending[0].Group)
	assert.Equal(t, m.revision, pending[0].Revision)
	assert.NotEqual(t, c.newHash, c.addon(t, c.prod, c.addonName).desired, "prod started without its approval")
	c.approveGroup(t, "prod", m.revision)
}

// upgradeWaiting is the add-on of TestUpgrade whose first group waits for
// an approval when the controller is replaced.
const upgradeWaiting = "upgrade-waiting"

// waitingAddon creates a copy of the seed's add-on, upgradeWaiting, taken
// by the controller and installed on the seed's Placement with a soak of
// two seconds, and returns it under c's hub, clusters and hashes.
func (c *controlled) waitingAddon(t *testing.T) *controlled {
	t.Helper()
	cma, err := seed.ClusterManagementAddOn()
	require.NoError(t, err)
	cma.Name = upgradeWaiting
	cma.Annotations[hubclient.LifecycleAnnotation] = c.lifecycle
	cma.Spec.InstallStrategy.Placements[0].RolloutStrategy = testhub.Strategy("2s", "5m", 0)
	alpha, err := testhub.AddonV1alpha1(cma)
	require.NoError(t, err)
	require.NoError(t, c.c.Create(context.Background(), alpha))
	n := c.names
	n.addonName = upgradeWaiting
	return &controlled{env: &env{hub: c.hub, c: c.c, names: n}, o: c.o, oldHash: c.oldHash, newHash: c.newHash}
}

// waitsForApproval waits until group waits for an approval, with no
// cluster of it or after it given the new config, and returns the
// revision asked for; a revision other than "" must be the one asked for.
func (c *controlled) waitsForApproval(t *testing.T, group, revision string) string {
	t.Helper()
	c.waitGroup(t, group, 60*time.Second, func(g v1alpha1.GroupStatus) bool { return g.WaitsFor == "Approval" })
	pending := c.rollout(t).Status.PendingApprovals
	require.Len(t, pending, 1, "%s: pending approvals %+v", c.addonName, pending)
	assert.Equal(t, group, pending[0].Group, "%s: the group asking for an approval", c.addonName)
	if revision != "" {
		assert.Equal(t, revision, pending[0].Revision, "%s: the revision asked for", c.addonName)
	}
	for cl, h := range c.desired(t) {
		assert.NotEqual(t, c.newHash, h, "%s: %s given the new config while %s waits for an approval", c.addonName, cl, group)
	}
	return pending[0].Revision
}

// approveGroup approves group at revision, as the hub's administrator.
func (c *controlled) approveGroup(t *testing.T, group, revision string) {
	t.Helper()
	require.NoError(t, c.c.Create(context.Background(), &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: c.approvalName(group)},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: c.addonName, Placement: v1alpha1.PlacementRef{Namespace: c.namespace, Name: seedPlacement},
			Group: group, Revision: revision}}))
}

// approvalName names the test's approval of group of c's add-on.
func (c *controlled) approvalName(group string) string { return c.addonName + "-" + group }

// approvedAt waits until the approval of group is Approved, and returns
// when its condition last changed.
func (c *controlled) approvedAt(t *testing.T, group string) metav1.Time {
	t.Helper()
	var at metav1.Time
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var a v1alpha1.RolloutApproval
		require.NoError(ct, c.c.Get(context.Background(), types.NamespacedName{Name: c.approvalName(group)}, &a))
		cond := meta.FindStatusCondition(a.Status.Conditions, hubplan.ConditionApproved)
		require.NotNil(ct, cond, "no Approved condition")
		require.Equal(ct, metav1.ConditionTrue, cond.Status, "%+v", cond)
		at = cond.LastTransitionTime
	}, 30*time.Second, poll, "the approval of %s approves", group)
	return at
}

// requireSoaked checks that next got the new config only after prev's
// add-on had soaked upgradeSoak from its stored completion.
func requireSoaked(t *testing.T, e *env, ob *observer, prev, next string) {
	t.Helper()
	ob.mu.Lock()
	defer ob.mu.Unlock()
	end := e.addon(t, prev, e.addonName).progressing.LastTransitionTime.Add(upgradeSoak)
	assert.False(t, ob.firstSet[next].Before(end), "%s got the config at %s, before %s's soak ended at %s",
		next, ob.firstSet[next].Format(time.RFC3339Nano), prev, end.Format(time.RFC3339Nano))
}

// applyConfig applies the CRDs and RBAC of the kustomization in dir (a
// config/default) to the hub, with server-side apply as the field manager
// upgradeManager, CRDs first, and waits until the CRDs are established.
func (e *env) applyConfig(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	objs, err := manifests.Render(dir)
	require.NoError(t, err)
	kinds := []string{"CustomResourceDefinition", "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}
	var crds []string
	for _, kind := range kinds {
		for _, u := range objs {
			if u.GetKind() != kind {
				continue
			}
			require.NoError(t, e.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u.DeepCopy()), client.ForceOwnership,
				client.FieldOwner(upgradeManager)), "applying %s %s from %s", kind, u.GetName(), dir)
			if kind == "CustomResourceDefinition" {
				crds = append(crds, u.GetName())
			}
		}
	}
	require.Len(t, crds, 2, "CRDs in %s", dir)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		for _, name := range crds {
			var crd apiextensionsv1.CustomResourceDefinition
			require.NoError(ct, e.c.Get(ctx, types.NamespacedName{Name: name}, &crd))
			established := slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
				return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
			})
			assert.True(ct, established, "%s not established", name)
		}
	}, 30*time.Second, poll, "the CRDs of %s established", dir)
}

// serviceAccountKubeconfig writes a kubeconfig that authenticates as the
// controller's ServiceAccount (serviceAccountConfig), and returns its path.
func (e *env) serviceAccountKubeconfig(t *testing.T) string {
	t.Helper()
	cfg := e.serviceAccountConfig(t)
	kc, err := clientcmd.Write(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"hub": {Server: cfg.Host, CertificateAuthorityData: cfg.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{controllerAccount: {Token: cfg.BearerToken}},
		Contexts:       map[string]*clientcmdapi.Context{"hub": {Cluster: "hub", AuthInfo: controllerAccount}},
		CurrentContext: "hub",
	})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "controller.kubeconfig")
	require.NoError(t, os.WriteFile(path, kc, 0o600))
	return path
}

// versionRun is a controller binary of one version, running as the Deployment runs it.
type versionRun struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// startProcess runs bin with the Deployment's leader election (the Lease
// in the controller's namespace, whose Role is there), failoverLease's
// timing so that the next controller leads within seconds, and
// -placements; name names its log. The test's end stops it.
func startProcess(t *testing.T, bin, kubeconfig, name string) *versionRun {
	t.Helper()
	probe, err := loopbackAddr()
	require.NoError(t, err)
	p := &versionRun{log: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	logs, err := os.Create(p.log)
	require.NoError(t, err)
	args := append([]string{"-kubeconfig", kubeconfig, "-health-probe-bind-address", probe, "-lifecycle", testhub.Lifecycle,
		"-placements", "-leader-elect-namespace", controllerNamespace}, failoverLease.flags()...)
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = logs, logs
	require.NoError(t, p.cmd.Start())
	go func() {
		p.err = p.cmd.Wait()
		logs.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop(t)
		if t.Failed() {
			t.Logf("%s controller (exit: %v) log:\n%s", name, p.err, tailOf([]byte(p.logs(t)), 6000))
		}
	})
	return p
}

// stop sends SIGTERM, as the kubelet does, and waits for the exit.
func (p *versionRun) stop(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
		return
	default:
	}
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Errorf("the controller did not stop within 30s of SIGTERM")
	}
}

// logs returns what the process has logged.
func (p *versionRun) logs(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(p.log)
	require.NoError(t, err)
	return string(b)
}

// refusedTo returns the requests of user that the audit log shows
// refused as forbidden.
func refusedTo(events []auditv1.Event, user string) []string {
	var out []string
	for i := range events {
		ev := &events[i]
		if ev.User.Username == user && ev.ResponseStatus != nil && ev.ResponseStatus.Code == http.StatusForbidden {
			out = append(out, auditDescribe(ev))
		}
	}
	return out
}

// writesTo returns the accepted writes of user, answered after since, to
// the object name of resource in each of namespaces.
func writesTo(events []auditv1.Event, user string, since time.Time, resource, name string, namespaces ...string) []string {
	var out []string
	for i := range events {
		ev := &events[i]
		if auditStateWrite(ev) && ev.User.Username == user && ev.StageTimestamp.After(since) &&
			ev.ObjectRef.Resource == resource && ev.ObjectRef.Name == name && slices.Contains(namespaces, ev.ObjectRef.Namespace) {
			out = append(out, auditDescribe(ev))
		}
	}
	return out
}

// requireStoredObjects checks that the CRDs store what the release stored
// (v1alpha1, nothing to migrate) and that every stored AddOnRollout and
// RolloutApproval, read back through this tree's CRDs, passes their
// validation as it is (a dry-run update).
func (e *env) requireStoredObjects(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for _, name := range []string{"addonrollouts.rolloutkit.io", "rolloutapprovals.rolloutkit.io"} {
		var crd apiextensionsv1.CustomResourceDefinition
		require.NoError(t, e.c.Get(ctx, types.NamespacedName{Name: name}, &crd))
		assert.Equal(t, []string{v1alpha1.Version}, crd.Status.StoredVersions, "%s: stored versions", name)
	}
	var rollouts v1alpha1.AddOnRolloutList
	var approvals v1alpha1.RolloutApprovalList
	require.NoError(t, e.c.List(ctx, &rollouts))
	require.NoError(t, e.c.List(ctx, &approvals))
	require.Len(t, rollouts.Items, 2)
	require.Len(t, approvals.Items, 3)
	var objs []client.Object
	for i := range rollouts.Items {
		objs = append(objs, &rollouts.Items[i])
	}
	for i := range approvals.Items {
		objs = append(objs, &approvals.Items[i])
	}
	for _, o := range objs {
		o.SetAnnotations(map[string]string{"rolloutkit.io/upgrade-test": "validate"})
		assert.NoError(t, e.c.Update(ctx, o, client.DryRunAll), "%T %s as stored, under this tree's CRD", o, o.GetName())
	}
}

// leaseHolder returns who holds the controller's Lease, "" if no one.
func (e *env) leaseHolder(t tb) string {
	t.Helper()
	var l coordinationv1.Lease
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Namespace: controllerNamespace, Name: leaseName}, &l))
	return ptr.Deref(l.Spec.HolderIdentity, "")
}
