package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// seedPlacement is the seed's install-strategy placement.
var seedPlacement = v1alpha1.PlacementRef{Namespace: hubNS, Name: placeName}

// approvals returns the hub's RolloutApprovals by name.
func approvals(t *testing.T, c client.Client) map[string]v1alpha1.RolloutApprovalSpec {
	t.Helper()
	var list v1alpha1.RolloutApprovalList
	require.NoError(t, c.List(context.Background(), &list))
	out := map[string]v1alpha1.RolloutApprovalSpec{}
	for _, a := range list.Items {
		out[a.Name] = a.Spec
	}
	return out
}

// approveCase is a hub, approve's arguments after ADDON, and what it
// does.
type approveCase struct {
	name      string
	objs      []client.Object
	args      []string
	code      int
	out       string
	err       []string
	approvals map[string]v1alpha1.RolloutApprovalSpec // afterwards
}

// needProd is the seed add-on's AddOnRollout that requires an approval
// of prod.
func needProd() *v1alpha1.AddOnRollout {
	return rollout(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}})
}

// TestApprove: approve creates the RolloutApproval of the revision the
// group waits at, and approving again is fine.
func TestApprove(t *testing.T) {
	t.Parallel()
	prod := v1alpha1.RolloutApprovalSpec{AddOn: addonName, Placement: seedPlacement, Group: "prod", Revision: revision}
	testApprove(t, []approveCase{
		{
			name: "prod waits: approved", objs: []client.Object{needProd()}, args: []string{"prod"},
			out: `approved group "prod" of placement open-cluster-management/cluster-proxy-placement at revision ` + revision +
				`: RolloutApproval "cluster-proxy-prod-` + revision + `" created; the controller has not judged it yet: it starts the group at its next reconcile` +
				"\n  revision " + revision + ": its configs: managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy spec hash ",
			approvals: map[string]v1alpha1.RolloutApprovalSpec{"cluster-proxy-prod-" + revision: prod},
		},
		{
			name: "prod waits, for this placement: approved", objs: []client.Object{needProd()}, args: []string{"prod", "--placement", hubNS + "/" + placeName},
			out:       `RolloutApproval "cluster-proxy-prod-` + revision + `" created`,
			approvals: map[string]v1alpha1.RolloutApprovalSpec{"cluster-proxy-prod-" + revision: prod},
		},
		{
			name: "approved already: said, not created again",
			objs: []client.Object{needProd(), &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "by-hand"}, Spec: prod}},
			args: []string{"prod"},
			out: `already approved: RolloutApproval "by-hand" approves group "prod" of placement open-cluster-management/cluster-proxy-placement at revision ` + revision +
				`: the controller has not judged it yet`,
			approvals: map[string]v1alpha1.RolloutApprovalSpec{"by-hand": prod},
		},
		{
			name: "approved already, and used: said with what its status says",
			objs: []client.Object{needProd(), judged(approvalOf("by-hand", "prod", revision), hubplan.ReasonUsed, `group "prod" started under it`)},
			args: []string{"prod", "--revision", revision},
			out:  `already approved: RolloutApproval "by-hand" approves group "prod" of placement ` + hubNS + "/" + placeName + ` at revision ` + revision + `: its status says Used: group "prod" started under it`,
		},
		{
			name: "the revision reviewed: approved", objs: []client.Object{needProd()}, args: []string{"prod", "--revision", revision},
			out:       `RolloutApproval "cluster-proxy-prod-` + revision + `" created`,
			approvals: map[string]v1alpha1.RolloutApprovalSpec{"cluster-proxy-prod-" + revision: prod},
		},
		{
			name: "paused: prod waits for the pause and an approval, which can be given meanwhile",
			objs: []client.Object{rollout(v1alpha1.AddOnRolloutSpec{Paused: true, ApprovalRequired: []string{"prod"}})}, args: []string{"prod"},
			out:       `RolloutApproval "cluster-proxy-prod-` + revision + `" created`,
			approvals: map[string]v1alpha1.RolloutApprovalSpec{"cluster-proxy-prod-" + revision: prod},
		},
	})
}

// TestApproveRefused: with nothing pending for the group approve refuses
// (exit 1), saying what is pending instead; so it does for a group that
// waits at another revision than the one reviewed, naming the revision
// waiting and its configs, and when an approval's status says it approves
// nothing. A placement the add-on does not have is bad usage (exit 2).
func TestApproveRefused(t *testing.T) {
	t.Parallel()
	testApprove(t, []approveCase{
		{
			name: "a group that waits for no approval: refused, naming what is pending", objs: []client.Object{needProd()}, args: []string{"dev"},
			code: 1, err: []string{
				`rolloutctl: nothing to approve: group "dev" of add-on "cluster-proxy" waits for no approval`,
				"in placement open-cluster-management/cluster-proxy-placement it is Complete: complete: 1 succeeded",
				`pending approvals: group "prod" of placement open-cluster-management/cluster-proxy-placement at revision ` + revision,
			},
			approvals: map[string]v1alpha1.RolloutApprovalSpec{},
		},
		{
			name: "no such group: refused, naming the groups", objs: []client.Object{needProd()}, args: []string{"canary"},
			code: 1, err: []string{`no placement has a group "canary" (groups: dev, stg, prod)`},
		},
		{
			name: "paused, a group that needs no approval: refused, naming what holds it",
			objs: []client.Object{rollout(v1alpha1.AddOnRolloutSpec{Paused: true})}, args: []string{"prod"},
			code: 1, err: []string{"it is Blocked, waits for Paused: held: rollout paused", "pending approvals: none"},
		},
		{
			name: "invalid: refused, naming the problems",
			objs: []client.Object{rollout(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod", "qa"}})}, args: []string{"dev"},
			code: 1, err: []string{`the AddOnRollout is invalid, and holds every group until it is fixed: spec.approvalRequired[1]: Unsupported value: "qa"`},
		},
		{
			name: "no AddOnRollout: refused", args: []string{"prod"},
			code: 1, err: []string{`nothing to approve: add-on "cluster-proxy" has no AddOnRollout, so no group of it waits for an approval`},
		},
		{
			name: "another revision than the one reviewed: refused, naming the revision waiting and its configs", objs: []client.Object{needProd()},
			args: []string{"prod", "--revision", "0123456789ab"},
			code: 1, err: []string{`not approved: group "prod" of placement ` + hubNS + "/" + placeName + ` waits at revision ` + revision + `, not 0123456789ab ` +
				`(its configs: managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy spec hash `,
				`review it (rolloutctl status cluster-proxy) and approve --revision ` + revision},
			approvals: map[string]v1alpha1.RolloutApprovalSpec{},
		},
		{
			name: "an approval whose status says UnknownGroup: refused, not \"already approved\"",
			objs: []client.Object{needProd(), judged(approvalOf("qa", "qa", revision), hubplan.ReasonUnknownGroup, `placement has no decision group "qa"`)},
			args: []string{"qa"},
			code: 1, err: []string{`not approved: RolloutApproval "qa" names group "qa" of placement ` + hubNS + "/" + placeName + ` at revision ` + revision +
				`, but approves nothing: its status says UnknownGroup: placement has no decision group "qa"`, `no placement has a group "qa"`},
		},
		{
			name: "an approval of the revision whose status says NotRequired: refused",
			objs: []client.Object{needProd(), judged(approvalOf("by-hand", "prod", revision), hubplan.ReasonNotRequired, `group "prod" does not need an approval`)},
			args: []string{"prod"},
			code: 1, err: []string{`approves nothing: its status says NotRequired: group "prod" does not need an approval`},
		},
		{
			name: "an approval of another revision than the one reviewed: refused",
			objs: []client.Object{needProd(), approvalOf("by-hand", "prod", revision)}, args: []string{"prod", "--revision", "0123456789ab"},
			code: 1, err: []string{`not approved: RolloutApproval "by-hand" names group "prod" of placement ` + hubNS + "/" + placeName + ` at revision ` + revision +
				`, the revision the placement rolls out, not 0123456789ab`},
		},
		{
			name: "the approval of its name exists, judged RevisionMismatch: refused", objs: []client.Object{needProd(),
				judged(approvalOf("cluster-proxy-prod-"+revision, "prod", revision), hubplan.ReasonRevisionMismatch, "approves revision x")},
			args: []string{"prod"},
			code: 1, err: []string{`approves nothing: its status says RevisionMismatch: approves revision x`},
		},
		{
			name: "--revision with one dash: bad usage", objs: []client.Object{needProd()}, args: []string{"prod", "-revision", revision},
			code: 2, err: []string{"(long flags take two dashes: --revision)"}, approvals: map[string]v1alpha1.RolloutApprovalSpec{},
		},
		{
			name: "another placement: bad usage", objs: []client.Object{needProd()}, args: []string{"prod", "--placement", "other/canary"},
			code: 2, err: []string{`approve: add-on "cluster-proxy" has no install-strategy placement other/canary (it has: open-cluster-management/cluster-proxy-placement)`},
		},
		{
			name: "the name taken by another approval: refused",
			objs: []client.Object{needProd(), &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy-prod-" + revision},
				Spec: v1alpha1.RolloutApprovalSpec{AddOn: "other", Placement: seedPlacement, Group: "prod", Revision: revision}}},
			args: []string{"prod"},
			code: 1, err: []string{`rolloutapproval "cluster-proxy-prod-` + revision + `" exists and approves group "prod" of add-on "other"`},
		},
	})
}

// approvalOf is an approval of group of the seed's placement at revision.
func approvalOf(name, group, revision string) *v1alpha1.RolloutApproval {
	return &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: addonName, Placement: seedPlacement, Group: group, Revision: revision}}
}

// judged is a with the Approved condition the controller writes, of
// reason (True for Used) and message.
func judged(a *v1alpha1.RolloutApproval, reason, message string) *v1alpha1.RolloutApproval {
	status := metav1.ConditionFalse
	if reason == hubplan.ReasonUsed {
		status = metav1.ConditionTrue
	}
	a.Status.Conditions = []metav1.Condition{{Type: hubplan.ConditionApproved, Status: status, Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(now)}}
	return a
}

// TestApproveNeedsRevision: approve wants the revision reviewed or
// --latest, so that an approval never approves a revision nobody chose;
// --latest names what it approved, and another revision than the one
// waiting is refused naming both.
func TestApproveNeedsRevision(t *testing.T) {
	t.Parallel()
	testApprove(t, []approveCase{
		{
			name: "neither --revision nor --latest: bad usage", objs: []client.Object{needProd()}, args: []string{"prod", "--revision", ""},
			code: 2, err: []string{"approve: want --revision REV (the revision reviewed in status) or --latest (the revision waiting now, whatever it is)"},
		},
		{
			name: "both: bad usage", objs: []client.Object{needProd()}, args: []string{"prod", "--revision", revision, "--latest"},
			code: 2, err: []string{`approve: --revision "` + revision + `" and --latest: want one of them`},
		},
		{
			name: "--latest: approved, naming the revision and its configs' spec hashes", objs: []client.Object{needProd()}, args: []string{"prod", "--latest"},
			out: "at revision " + revision,
		},
		{
			name: "--latest: the configs with their spec hashes", objs: []client.Object{needProd()}, args: []string{"prod", "--latest"},
			out: "  revision " + revision + ": its configs: managedproxyconfigurations.proxy.open-cluster-management.io cluster-proxy spec hash ",
		},
		{
			name: "another revision than the one waiting: refused naming both", objs: []client.Object{needProd()}, args: []string{"prod", "--revision", "0123456789ab"},
			code: 1, err: []string{"waits at revision " + revision + ", not 0123456789ab"},
		},
	})
}

// testApprove runs approve on each case's hub, in parallel.
func testApprove(t *testing.T, tests []approveCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := fakeHub(t, true, append(seedHub(t), tt.objs...)...)
			args := append([]string{"approve", addonName}, tt.args...)
			if !slices.ContainsFunc(tt.args, func(a string) bool { return strings.HasSuffix(a, "-revision") }) {
				args = append(args, "--latest") // the cases without --revision approve the revision waiting
			}
			code, out, errOut := runWith(t, c, args...)
			assert.Equal(t, tt.code, code, errOut)
			if tt.out != "" {
				assert.Contains(t, out, tt.out)
			}
			for _, e := range tt.err {
				assert.Contains(t, errOut, e)
			}
			if tt.approvals != nil {
				assert.Equal(t, tt.approvals, approvals(t, c))
			}
		})
	}
}

// TestApproveTwice: approving twice is one approval; the second run says
// the group is approved already, and exits 0.
func TestApproveTwice(t *testing.T) {
	t.Parallel()
	c := fakeHub(t, true, append(seedHub(t), needProd())...)
	code, _, errOut := runWith(t, c, "approve", addonName, "prod", "--latest")
	require.Equal(t, 0, code, errOut)
	code, out, errOut := runWith(t, c, "approve", addonName, "prod", "--latest")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `already approved: RolloutApproval "cluster-proxy-prod-`+revision+`"`)
	assert.Len(t, approvals(t, c), 1)
	code, out, errOut = runWith(t, c, "status", addonName)
	require.Equal(t, 0, code, errOut)
	assert.NotEmpty(t, lineWith(out, placeName, "prod", "Active"), "approved, prod starts:\n%s", out)
}

// TestApprovalName: names are deterministic, valid object names, with the
// placement when the add-on has several, and distinct for names that
// differ only in what an object name cannot hold.
func TestApprovalName(t *testing.T) {
	t.Parallel()
	pa := func(ns, name, group string) v1alpha1.PendingApproval {
		return v1alpha1.PendingApproval{Placement: v1alpha1.PlacementRef{Namespace: ns, Name: name}, Group: group, Revision: "80d621a59c65"}
	}
	long := strings.Repeat("x", 250)
	tests := []struct {
		name          string
		addOn         string
		pa            v1alpha1.PendingApproval
		withPlacement bool
		want          string // "": only checked valid
	}{
		{"plain", "cluster-proxy", pa("ocm", "p", "prod"), false, "cluster-proxy-prod-80d621a59c65"},
		{"several placements", "cluster-proxy", pa("ocm", "p", "prod"), true, "cluster-proxy-ocm-p-prod-80d621a59c65"},
		{"a group name in capitals", "cluster-proxy", pa("ocm", "p", "Prod"), false, "cluster-proxy-prod-80d621a59c65-"},
		{"a group name with dots and underscores", "cluster-proxy", pa("ocm", "p", "eu_west.prod"), false, "cluster-proxy-eu-west-prod-80d621a59c65-"},
		{"too long", long, pa("ocm", "p", "prod"), false, ""},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		got := approvalName(tt.addOn, tt.pa, tt.withPlacement)
		assert.Empty(t, validation.IsDNS1123Subdomain(got), "%s: %q", tt.name, got)
		assert.Equal(t, got, approvalName(tt.addOn, tt.pa, tt.withPlacement), "%s: deterministic", tt.name)
		switch {
		case strings.HasSuffix(tt.want, "-"):
			assert.True(t, strings.HasPrefix(got, tt.want) && len(got) == len(tt.want)+8, "%s: %q, want %q and 8 hex digits", tt.name, got, tt.want)
		case tt.want != "":
			assert.Equal(t, tt.want, got, tt.name)
		}
		assert.NotContains(t, seen, got, "%s: the name of %s too", tt.name, seen[got])
		seen[got] = tt.name
	}
	assert.NotEqual(t, approvalName("cluster-proxy", pa("ocm", "p", "Prod"), false), approvalName("cluster-proxy", pa("ocm", "p", "PROD"), false),
		"names that differ in case only")
}

// TestApproveWait: with --wait approve waits for the controller to judge
// the approval it created, and says what it judged; a judgement that it
// approves nothing, or none within --wait, is refused (exit 1).
func TestApproveWait(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string // the controller's judgement; "": none
		wait   string
		code   int
		out    string
		err    string
	}{
		{name: "judged NotUsedYet: approved", reason: hubplan.ReasonNotUsedYet, wait: "10s",
			out: `approved group "prod" of placement ` + hubNS + "/" + placeName + ` at revision ` + revision + `: RolloutApproval "cluster-proxy-prod-` + revision +
				`" created; its status says NotUsedYet: judged`},
		{name: "judged RevisionMismatch: refused", reason: hubplan.ReasonRevisionMismatch, wait: "10s", code: 1,
			err: `" created, but its status says RevisionMismatch: judged`},
		{name: "not judged in time: refused", wait: "1ms", code: 1,
			err: `" created; the controller has not judged it within --wait 1ms: is it running?`},
		{name: "a negative wait: bad usage", wait: "-1s", code: 2, err: "approve: --wait -1s: want a duration of 0 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			controller := interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				if err := c.Get(ctx, key, obj, opts...); err != nil {
					return err
				}
				if a, ok := obj.(*v1alpha1.RolloutApproval); ok && tt.reason != "" {
					judged(a, tt.reason, "judged")
				}
				return nil
			}}
			c := fakeHubWith(t, true, controller, append(seedHub(t), needProd())...)
			code, out, errOut := runWith(t, c, "approve", addonName, "prod", "--latest", "--wait", tt.wait)
			assert.Equal(t, tt.code, code, errOut)
			assert.Contains(t, out, tt.out)
			assert.Contains(t, errOut, tt.err)
		})
	}
}

// TestApproveSecondApprover: when the group's approval exists but waits
// for more approvers (minApprovers), approve adds an approval of its own
// for this user, named after the first, rather than reporting the first.
func TestApproveSecondApprover(t *testing.T) {
	t.Parallel()
	ar := rollout(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"},
		ApproversSpec: v1alpha1.ApproversSpec{MinApproversByGroup: []v1alpha1.GroupApprovers{{Group: "prod", MinApprovers: 2}}}})
	first := &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy-prod-" + revision},
		Spec: v1alpha1.RolloutApprovalSpec{AddOn: addonName, Placement: seedPlacement, Group: "prod", Revision: revision, Username: "bob"},
		Status: v1alpha1.RolloutApprovalStatus{Conditions: []metav1.Condition{{Type: hubplan.ConditionApproved, Status: metav1.ConditionFalse,
			Reason: hubplan.ReasonAwaitingApprovers, Message: "1 of 2 approvals: bob", LastTransitionTime: metav1.Now()}}}}
	c := fakeHub(t, true, append(seedHub(t), ar, first)...)
	code, out, errOut := runWith(t, c, "approve", addonName, "prod", "--revision", revision)
	require.Equal(t, 0, code, "%s%s", out, errOut)
	got := approvals(t, c)
	require.Len(t, got, 2, "a second approval: %v", got)
	assert.Equal(t, "prod", got["cluster-proxy-prod-"+revision+"-2"].Group)
	assert.Contains(t, out, `RolloutApproval "cluster-proxy-prod-`+revision+`-2" created`)
}
