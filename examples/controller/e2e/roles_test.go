package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/manifests"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// Names of the roles config/rbac ships for people.
const (
	viewerRole   = "rolloutkit-viewer"
	approverRole = "rolloutkit-approver"
)

// unservedConfigs are the config resources the viewer may read that the
// test hub does not serve: no rule about them can be proven by running.
// They are the controller's (configs_role.yaml), which the test checks
// the viewer's rules repeat.
var unservedConfigs = []string{"addondeploymentconfigs", "addontemplates"}

// TestRolloutctlRoles proves the roles config/rbac ships for people by
// running the compiled rolloutctl, and the compiled controller's -dry-run,
// as impersonated users bound only to one of them, on a hub whose
// AddOnRollout has dev wait for an approval:
//
//   - bound to rolloutkit-viewer, status and -dry-run work, and approve
//     is refused by RBAC (exit 1, forbidden);
//   - bound to rolloutkit-approver, status and approve work;
//   - bound to nothing, status fails (exit 1), saying what is forbidden;
//   - without any one resource of the viewer's rules, status (version,
//     for the controller's version lease) fails,
//     naming that resource: the viewer grants nothing status does not
//     read (the config resources the hub does not serve aside, which are
//     the controller's own);
//   - the approver's rules, which the control plane aggregates from the
//     roles labelled for it, are as shipped that union.
func TestRolloutctlRoles(t *testing.T) {
	t.Parallel()
	// A hub of its own: the shipped ClusterRoles have fixed names.
	e := newEnv(t)
	seedHub(t, e, "60s")
	e.placements(t)
	ctx := context.Background()
	require.NoError(t, e.c.Create(ctx, &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addonName},
		Spec: v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"dev"}}}))
	roles := shippedRoles(t)
	checkAggregation(t, roles)
	for _, name := range []string{viewerRole, approverRole, approverRole + "-create"} {
		require.Contains(t, roles, name, "config/rbac ships it")
		require.NoError(t, e.c.Create(ctx, roles[name].DeepCopy()))
	}
	e.bind(t, viewerRole, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "vic"})
	e.bind(t, approverRole, rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "release-managers"})
	cli := binary(t, "./cmd/rolloutctl", "rolloutctl")

	viewer := e.impersonating(t, "vic")
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		out, code := rolloutctl(ct, cli, viewer, "status", addonName)
		assert.Equal(ct, 0, code, out)
		assert.NotEmpty(ct, lineWith(out, "dev", "Blocked", "Approval"), out)
	}, 30*time.Second, poll, "the viewer sees dev wait for its approval")
	viewerJSON, code := rolloutctl(t, cli, viewer, "status", addonName, "-o", "json")
	assert.Equal(t, 0, code, viewerJSON)
	// The viewer may not read the works (they can carry Secrets): status
	// plans with what the controller publishes of them on the add-ons,
	// and says what an operator's says.
	e.worksRefused(t, "vic")
	operatorJSON, code := rolloutctl(t, cli, e.impersonating(t, "olga", "system:masters"), "status", addonName, "-o", "json")
	assert.Equal(t, 0, code, operatorJSON)
	assert.Equal(t, withoutNow(t, operatorJSON), withoutNow(t, viewerJSON), "the viewer's status is not the operator's")
	out, code := rolloutctl(t, cli, viewer, "approve", addonName, "dev", "--latest")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, `rolloutapprovals.rolloutkit.io is forbidden: User "vic" cannot create resource "rolloutapprovals"`)
	out, code = dryRunAs(t, viewer, e.lifecycle)
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, `controlled by AddOnRollout "cluster-proxy"`)

	approver := e.impersonating(t, "ann", "release-managers")
	out, code = rolloutctl(t, cli, approver, "status", addonName)
	assert.Equal(t, 0, code, out)
	out, code = rolloutctl(t, cli, approver, "approve", addonName, "dev", "--latest")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "created")
	var approvals v1alpha1.RolloutApprovalList
	require.NoError(t, e.c.List(ctx, &approvals))
	assert.Len(t, approvals.Items, 1, "ann's approval")

	out, code = rolloutctl(t, cli, e.impersonating(t, "nobody"), "status", addonName)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, `is forbidden: User "nobody" cannot`)

	e.eachResourceNeeded(t, cli, roles[viewerRole])
}

// worksRefused checks that user may not list ManifestWorks: the API
// server's answer to a SubjectAccessReview, and a list as that user.
func (e *env) worksRefused(t testing.TB, user string) {
	t.Helper()
	ctx := context.Background()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Group: workv1.GroupName, Resource: "manifestworks", Verb: "list"}}}
	require.NoError(t, e.c.Create(ctx, sar))
	assert.False(t, sar.Status.Allowed, "%s may list manifestworks: %s", user, sar.Status.Reason)
	cfg := rest.CopyConfig(e.hub.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	as, err := testhub.NewClient(cfg)
	require.NoError(t, err)
	err = as.List(ctx, &workv1.ManifestWorkList{})
	assert.True(t, apierrors.IsForbidden(err), "%s listing manifestworks: %v", user, err)
}

// withoutNow is status -o json's report without the times it takes from
// when it was planned: its now, and the lastTransitionTime of conditions
// the controller has not written yet (no add-on reconciler runs here).
func withoutNow(t testing.TB, out string) any {
	t.Helper()
	var rep any
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	var strip func(v any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			delete(v, "now")
			delete(v, "lastTransitionTime")
			for _, x := range v {
				strip(x)
			}
		case []any:
			for _, x := range v {
				strip(x)
			}
		}
	}
	strip(rep)
	return rep
}

// eachResourceNeeded binds, for every resource of the viewer's rules
// that the hub serves, a role of the viewer's rules without it to a user
// of its own, and checks that status fails as that user, naming the
// resource (version, for the controller's version lease).
func (e *env) eachResourceNeeded(t *testing.T, cli string, viewer *rbacv1.ClusterRole) {
	ctx := context.Background()
	for i, rule := range viewer.Rules {
		for _, res := range rule.Resources {
			if slices.Contains(unservedConfigs, res) {
				continue
			}
			t.Run("without "+res, func(t *testing.T) {
				without := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "viewer-without-" + res}, Rules: slices.Clone(viewer.Rules)}
				without.Rules[i] = *rule.DeepCopy()
				without.Rules[i].Resources = slices.DeleteFunc(without.Rules[i].Resources, func(r string) bool { return r == res })
				if len(without.Rules[i].Resources) == 0 {
					without.Rules = slices.Delete(without.Rules, i, i+1)
				}
				require.NoError(t, e.c.Create(ctx, without))
				user := "vic-" + res
				e.bind(t, without.Name, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user})
				// the controller's version lease is version's to read;
				// status reads the rollout without it
				cmd := []string{"status", addonName}
				if res == "leases" {
					cmd = []string{"version"}
					out, code := rolloutctl(t, cli, e.impersonating(t, user), "status", addonName)
					assert.Equal(t, 0, code, out)
					assert.Contains(t, out, "\ncontroller: reading the controller's versions", "status says the version cannot be read")
				}
				out, code := rolloutctl(t, cli, e.impersonating(t, user), cmd...)
				assert.Equal(t, 1, code, out)
				assert.Contains(t, out, res+".", "forbidden, naming the resource")
				assert.Contains(t, out, `is forbidden: User "`+user+`" cannot`)
			})
		}
	}
}

// shippedRoles renders config/rbac as kubectl apply -k does and returns
// its ClusterRoles by name.
func shippedRoles(t *testing.T) map[string]*rbacv1.ClusterRole {
	t.Helper()
	objs, err := manifests.Render("../config/rbac")
	require.NoError(t, err)
	out := map[string]*rbacv1.ClusterRole{}
	for _, o := range objs {
		if o.GetKind() != "ClusterRole" {
			continue
		}
		var r rbacv1.ClusterRole
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &r))
		out[r.Name] = &r
	}
	return out
}

// checkAggregation checks that the approver's rules, as shipped, are
// those the control plane aggregates into it (the rules of the roles its
// selector picks, in name order, as kube-controller-manager's
// clusterrole-aggregation controller writes them), so that it works the same where nothing
// aggregates; and that the viewer reads the config resources the
// controller reads.
func checkAggregation(t *testing.T, roles map[string]*rbacv1.ClusterRole) {
	t.Helper()
	approver := roles[approverRole]
	require.NotNil(t, approver)
	require.NotNil(t, approver.AggregationRule, "the approver's role is aggregated")
	var names []string
	for name, r := range roles {
		for _, sel := range approver.AggregationRule.ClusterRoleSelectors {
			s, err := metav1.LabelSelectorAsSelector(&sel)
			require.NoError(t, err)
			if name != approverRole && s.Matches(labels.Set(r.Labels)) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	assert.Equal(t, []string{approverRole + "-create", viewerRole}, names)
	var union []rbacv1.PolicyRule
	for _, n := range names { // in name order, as the control plane aggregates them
		union = append(union, roles[n].Rules...)
	}
	assert.Equal(t, union, approver.Rules, "the approver's rules are the viewer's and create on rolloutapprovals")

	configs := roles["rolloutkit-controller-configs"]
	require.NotNil(t, configs)
	for _, rule := range configs.Rules {
		// the controller also updates them (onFailure: Rollback); the viewer only reads
		want := *rule.DeepCopy()
		want.Verbs = slices.DeleteFunc(want.Verbs, func(v string) bool { return v == "update" })
		assert.Contains(t, roles[viewerRole].Rules, want, "the viewer reads the config objects the controller reads")
	}
}

// bind binds the ClusterRole role to subject alone.
func (e *env) bind(t testing.TB, role string, subject rbacv1.Subject) {
	t.Helper()
	require.NoError(t, e.c.Create(context.Background(), &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role + "-" + strings.ToLower(subject.Kind) + "-" + subject.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{subject},
	}))
}

// impersonating writes a kubeconfig of the hub whose administrator acts
// as user, in groups (and system:authenticated, as every user is), as
// kubectl --as and --as-group do, and returns its path.
func (e *env) impersonating(t testing.TB, user string, groups ...string) string {
	t.Helper()
	kc, err := e.hub.KubeConfig()
	require.NoError(t, err)
	cfg, err := clientcmd.Load(kc)
	require.NoError(t, err)
	auth := cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo]
	auth.Impersonate, auth.ImpersonateGroups = user, groups
	path := filepath.Join(t.TempDir(), user+".kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}

// dryRunAs runs the compiled controller's -dry-run with kubeconfig,
// taking the add-ons of lifecycle, and returns its output and exit code.
func dryRunAs(t *testing.T, kubeconfig, lifecycle string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, shared.controller.get(t), "-kubeconfig", kubeconfig, "-dry-run", "-lifecycle", lifecycle)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode()
	}
	require.NoError(t, err, "controller -dry-run")
	return out.String(), 0
}
