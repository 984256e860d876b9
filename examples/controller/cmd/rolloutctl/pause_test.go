package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// storedRollout returns the AddOnRollout name as the hub holds it; nil
// when there is none.
func storedRollout(t *testing.T, c client.Client, name string) *v1alpha1.AddOnRollout {
	t.Helper()
	var ar v1alpha1.AddOnRollout
	err := c.Get(context.Background(), types.NamespacedName{Name: name}, &ar)
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(t, err)
	return &ar
}

// TestPauseResume: pause sets spec.paused, creating the AddOnRollout when
// there is none, and resume clears it; neither touches another field, and
// either says so when there is nothing to do (exit 0).
func TestPauseResume(t *testing.T) {
	t.Parallel()
	type step struct {
		args   []string
		out    string
		paused *bool // spec.paused afterwards; nil: no AddOnRollout
	}
	yes, no := true, false
	tests := []struct {
		name  string
		objs  []client.Object
		steps []step
	}{
		{
			name: "no AddOnRollout: pause creates one, resume clears it",
			steps: []step{
				{[]string{"resume", addonName}, `nothing to resume: no AddOnRollout "cluster-proxy"`, nil},
				{[]string{"pause", addonName}, `paused add-on "cluster-proxy": created AddOnRollout "cluster-proxy" with spec.paused true`, &yes},
				{[]string{"pause", addonName}, `add-on "cluster-proxy" is already paused`, &yes},
				{[]string{"resume", addonName}, `resumed add-on "cluster-proxy"`, &no},
				{[]string{"resume", addonName}, `nothing to resume: add-on "cluster-proxy" is not paused`, &no},
			},
		},
		{
			name: "an AddOnRollout with other controls: they stay",
			objs: []client.Object{rollout(v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}})},
			steps: []step{
				{[]string{"pause", addonName}, `paused add-on "cluster-proxy": no cluster starts; clusters in flight finish (rolloutctl resume cluster-proxy resumes it)`, &yes},
				{[]string{"resume", addonName}, `resumed add-on "cluster-proxy": the controller starts clusters again at its next reconcile`, &no},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := fakeHub(t, true, append(seedHub(t), tt.objs...)...)
			for _, s := range tt.steps {
				code, out, errOut := runWith(t, c, s.args...)
				require.Equal(t, 0, code, "%q: %s", s.args, errOut)
				assert.Contains(t, out, s.out, "%q", s.args)
				assert.Empty(t, errOut, "%q", s.args)
				ar := storedRollout(t, c, addonName)
				if s.paused == nil {
					assert.Nil(t, ar, "%q", s.args)
					continue
				}
				require.NotNil(t, ar, "%q", s.args)
				assert.Equal(t, *s.paused, ar.Spec.Paused, "%q", s.args)
				if len(tt.objs) > 0 {
					assert.Equal(t, []string{"prod"}, ar.Spec.ApprovalRequired, "%q: the merge patch touched another field", s.args)
				}
			}
		})
	}
}

// TestPauseErrors: pausing or resuming an add-on the hub does not have is
// refused (exit 1), naming the hub's add-ons and the one meant, and
// creates nothing (an AddOnRollout of a misspelt name holds nothing); a
// hub without the CRDs refuses, saying what to install.
func TestPauseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		objs    []client.Object
		args    []string
		stderr  string
		created bool // an AddOnRollout of the typo afterwards
	}{
		{name: "pause a typo", args: []string{"pause", "cluster-prxy"},
			stderr: `rolloutctl: the hub has no ClusterManagementAddOn "cluster-prxy" (it has: cluster-proxy); did you mean "cluster-proxy"?`},
		{name: "pause a typo that has an AddOnRollout, paused: not \"already paused\"", args: []string{"pause", "cluster-prxy"},
			objs:   []client.Object{&v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "cluster-prxy"}, Spec: v1alpha1.AddOnRolloutSpec{Paused: true}}},
			stderr: `the hub has no ClusterManagementAddOn "cluster-prxy"`, created: true},
		{name: "resume a typo", args: []string{"resume", "Cluster-Proxy"}, stderr: `did you mean "cluster-proxy"?`},
		{name: "a name far from any: no suggestion", args: []string{"pause", "metrics"},
			stderr: `the hub has no ClusterManagementAddOn "metrics" (it has: cluster-proxy)` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := fakeHub(t, true, append(seedHub(t), tt.objs...)...)
			code, out, errOut := runWith(t, c, tt.args...)
			assert.Equal(t, 1, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tt.stderr)
			assert.Equal(t, tt.created, storedRollout(t, c, tt.args[1]) != nil)
		})
	}

	code, _, errOut := runWith(t, fakeHub(t, false, seedHub(t)...), "pause", addonName)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "the hub does not serve rolloutkit.io/v1alpha1 AddOnRollouts: install the CRDs of examples/controller/config/crd")
}
