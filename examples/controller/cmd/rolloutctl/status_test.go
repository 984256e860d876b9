package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// revision is the revision of the seed placement's configs on the fake
// hub: its one default config at the spec hash of the seed's
// ManagedProxyConfiguration.
const revision = "80d621a59c65"

// statusCase is a hub, and what status shows of it.
type statusCase struct {
	name    string
	served  bool // the hub serves rolloutkit.io's kinds
	objs    []client.Object
	lines   [][]string // the parts of a line each
	absent  []string
	wantErr string // "": exit 0; else exit 2 for the add-on "nope"
}

// place is the seed's install-strategy placement, NAMESPACE/NAME.
const place = hubNS + "/" + placeName

// TestStatus: status shows the rollout as the controller plans it,
// without an AddOnRollout as the planner does; whether the controller's
// status is up to date with the spec; an add-on the hub does not have is
// bad usage.
func TestStatus(t *testing.T) {
	t.Parallel()
	testStatus(t, []statusCase{
		{
			name: "no AddOnRollout: as the planner sees it", served: true,
			lines: [][]string{
				{`no AddOnRollout "cluster-proxy": rolled out without operator controls`},
				{"placement " + place + ": ProgressivePerGroup"},
				{"PLACEMENT", "GROUP", "INDEX", "PHASE", "WAITS FOR", "OK/RUN/FAIL/TIMEOUT/TODO", "UNTIL", "MESSAGE"},
				{place, "prod", "2", "Active", "rolling out: 1 starting now"},
			},
			absent: []string{"pending approvals", "conditions:", "revision"},
		},
		{
			name: "a hub without the CRDs: no AddOnRollout",
			lines: [][]string{
				{`no AddOnRollout "cluster-proxy"`},
				{place, "prod", "Active"},
			},
		},
		{
			name: "the controller is up to date", served: true,
			objs: []client.Object{func() client.Object {
				ar := rollout(v1alpha1.AddOnRolloutSpec{})
				ar.Status.ObservedGeneration = 2
				return ar
			}()},
			lines: [][]string{{"generation 2, status of generation 2: the controller has written it for the current spec"}},
		},
		{name: "an add-on the hub does not have", served: true, wantErr: "rolloutctl: the hub has no ClusterManagementAddOn \"nope\" (it has: cluster-proxy)"},
	})
}

// TestStatusControls: status shows, per group, what it waits for, its
// counts, until when and why; the approvals pending with the command
// that approves each; the verifications due; the problems of an invalid
// spec; and the conditions.
func TestStatusControls(t *testing.T) {
	t.Parallel()
	testStatus(t, []statusCase{
		{
			name: "prod waits for an approval", served: true,
			objs: []client.Object{rollout(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}})},
			lines: [][]string{
				{`AddOnRollout "cluster-proxy": generation 2, status of generation 1: the controller has not caught up with the spec yet`},
				{"placement " + place + ": revision " + revision + ", ProgressivePerGroup"},
				{place, "dev", "0", "Complete", "-", "1/0/0/0/0", "complete: 1 succeeded"},
				{place, "prod", "2", "Blocked", "Approval", "0/0/0/0/1", `held: waiting for approval of group "prod"`},
				{"pending approvals:"},
				{"  " + place, `group "prod", revision ` + revision + ": rolloutctl approve cluster-proxy prod"},
				{"TYPE", "STATUS", "REASON", "MESSAGE"},
				{"Progressing", "True", hubplan.ReasonWaitingForApproval, "waits for an approval of revision " + revision},
			},
			absent: []string{"verifications due", "invalid"},
		},
		{
			name: "approved: prod starts", served: true,
			objs: []client.Object{rollout(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}), &v1alpha1.RolloutApproval{
				ObjectMeta: metav1.ObjectMeta{Name: "ok"}, Spec: v1alpha1.RolloutApprovalSpec{AddOn: addonName,
					Placement: v1alpha1.PlacementRef{Namespace: hubNS, Name: placeName}, Group: "prod", Revision: revision}}},
			lines: [][]string{{place, "prod", "Active", "0/0/0/0/1"}, {"pending approvals: none"}},
		},
		{
			name: "paused, stg's verification due", served: true,
			objs: []client.Object{rollout(v1alpha1.AddOnRolloutSpec{Paused: true, Verifications: []v1alpha1.Verification{
				{Name: "smoke", Groups: []string{"stg"}, Webhook: &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}}}})},
			lines: [][]string{
				{`AddOnRollout "cluster-proxy", paused: generation 2`},
				{place, "stg", "Blocked", "Verification", "verification smoke has not passed yet"},
				{place, "prod", "Blocked", "Paused"},
				{"verifications due (the controller runs them; the groups after wait until they pass):"},
				{"  " + place, `group "stg": smoke`},
				{"Paused", "True", hubplan.ReasonPaused},
			},
		},
		{
			name: "invalid: held, each field named", served: true,
			objs: []client.Object{rollout(v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{
				{Groups: []string{"prod"}, Days: []string{"Mon"}, Start: "09:00", End: "16:00", TimeZone: "Mars/Olympus"}}})},
			lines: [][]string{
				{"invalid: the add-on is held until the AddOnRollout's spec is fixed:"},
				{`  - spec.windows[0].timeZone: Invalid value: "Mars/Olympus"`},
				{place, "prod", "Blocked", "Invalid"},
				{"Valid", "False", hubplan.ReasonInvalidSpec},
			},
		},
		{
			name: "outside its window: until when, with the date and zone", served: true,
			objs: []client.Object{rollout(v1alpha1.AddOnRolloutSpec{Windows: []v1alpha1.RolloutWindow{
				{Groups: []string{"prod"}, Days: []string{"Tue"}, Start: "09:00", End: "16:00", TimeZone: "Europe/Paris"}}})},
			lines: [][]string{
				{`add-on "cluster-proxy" at 2026-11-30 12:30:00 UTC`},
				{place, "prod", "Blocked", "Window", "0/0/0/0/1", "2026-12-01 08:00:00 UTC", "held: outside the time window"},
			},
		},
	})
}

// testStatus runs status on each case's hub, in parallel.
func testStatus(t *testing.T, tests []statusCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := fakeHub(t, tt.served, append(seedHub(t), tt.objs...)...)
			addOn := addonName
			if tt.wantErr != "" {
				addOn = "nope"
			}
			code, out, errOut := runWith(t, c, "status", addOn)
			if tt.wantErr != "" {
				assert.Equal(t, 2, code)
				assert.Contains(t, errOut, tt.wantErr)
				return
			}
			require.Equal(t, 0, code, errOut)
			for _, parts := range tt.lines {
				assert.NotEmpty(t, lineWith(out, parts...), "no line with %q in\n%s", parts, out)
			}
			for _, s := range tt.absent {
				assert.NotContains(t, out, s)
			}
		})
	}
}

// TestStatusReport: -o json is examples/plan's report, with the
// AddOnRollout's part; -o yaml is the same document in YAML.
func TestStatusReport(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			c := fakeHub(t, true, append(seedHub(t), needProd())...)
			code, out, errOut := runWith(t, c, "status", addonName, "-o", format)
			require.Equal(t, 0, code, errOut)
			if format == "yaml" {
				assert.False(t, json.Valid([]byte(out)), "-o yaml wrote JSON:\n%s", out)
				assert.True(t, strings.HasPrefix(out, "addon: cluster-proxy\n"), out)
			}
			var got report
			require.NoError(t, yaml.Unmarshal([]byte(out), &got), out)
			assert.Equal(t, addonName, got.Addon)
			require.Len(t, got.Placements, 1)
			assert.Equal(t, revision, got.Placements[0].Revision)
			require.Len(t, got.Placements[0].Groups, 3)
			require.NotNil(t, got.Placements[0].Groups[2].Status)
			assert.Equal(t, "Approval", got.Placements[0].Groups[2].Status.WaitsFor)
			require.Len(t, got.Rollout.PendingApprovals, 1)
			pa := got.Rollout.PendingApprovals[0]
			assert.Equal(t, v1alpha1.PendingApproval{Placement: v1alpha1.PlacementRef{Namespace: hubNS, Name: placeName}, Group: "prod", Revision: revision},
				v1alpha1.PendingApproval{Placement: pa.Placement, Group: pa.Group, Revision: pa.Revision})
			require.Len(t, got.Placements[0].Configs, 1, "the revision's configs")
			assert.Equal(t, "managedproxyconfigurations", got.Placements[0].Configs[0].Resource)
			assert.Equal(t, addonName, got.Placements[0].Configs[0].Name)
			assert.Len(t, got.Placements[0].Configs[0].SpecHash, 64)
			assert.Equal(t, int64(2), got.Rollout.Generation)
			assert.Equal(t, int64(1), got.Rollout.ObservedGeneration)
		})
	}
}

// report is the part of status -o json that the tests read.
type report struct {
	Addon      string `json:"addon"`
	Placements []struct {
		Revision  string                    `json:"revision"`
		Kind      string                    `json:"kind"`
		Rendering string                    `json:"rendering"`
		Configs   []v1alpha1.RevisionConfig `json:"configs"`
		Groups    []struct {
			Name   string                `json:"name"`
			Status *v1alpha1.GroupStatus `json:"status"`
		} `json:"groups"`
	} `json:"placements"`
	Rollout struct {
		Generation         int64                      `json:"generation"`
		ObservedGeneration int64                      `json:"observedGeneration"`
		PendingApprovals   []v1alpha1.PendingApproval `json:"pendingApprovals"`
	} `json:"rollout"`
}

// TestStatusLifecycle: status says so when the controller, with its
// default -lifecycle, does not take the add-on, as hubclient.Takes tells.
func TestStatusLifecycle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		annotation *string // nil: none
		want       string  // "": no note
	}{
		{name: "annotated for OCM's add-on manager", annotation: ptr.To("addon-manager"),
			want: `note: its annotation addon.open-cluster-management.io/lifecycle is "addon-manager", not "rolloutkit": the controller takes it only if its -lifecycle names that value`},
		{name: "not annotated: OCM's add-on manager's",
			want: `note: it has no annotation addon.open-cluster-management.io/lifecycle, so it is OCM's add-on manager's: the controller takes it only if its -lifecycle names "addon-manager", or once annotated "rolloutkit"`},
		{name: "annotated for the controller", annotation: ptr.To(hubclient.DefaultLifecycle)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			objs := seedHub(t)
			for _, o := range objs {
				if cma, ok := o.(*addonv1alpha1.ClusterManagementAddOn); ok {
					delete(cma.Annotations, hubclient.LifecycleAnnotation)
					if tt.annotation != nil {
						cma.Annotations[hubclient.LifecycleAnnotation] = *tt.annotation
					}
				}
			}
			code, out, errOut := runWith(t, fakeHub(t, true, objs...), "status", addonName)
			require.Equal(t, 0, code, errOut)
			if tt.want == "" {
				assert.NotContains(t, out, "note:")
				return
			}
			assert.Contains(t, out, tt.want)
		})
	}
}
