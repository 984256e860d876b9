package rollouthook_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/rollouthook"
)

// grants is a fake Authorizer: the decisiongroups names each user may
// approve. It allows nothing else.
type grants map[string][]string

func (g grants) Allowed(_ context.Context, r authorizationv1.SubjectAccessReviewSpec) (bool, error) {
	ra := r.ResourceAttributes
	if ra == nil || ra.Verb != "approve" || ra.Group != "rolloutkit.io" || ra.Resource != "decisiongroups" {
		return false, nil
	}
	return slices.Contains(g[r.User], ra.Name), nil
}

// failing is an Authorizer whose every review fails.
type failing struct{}

func (failing) Allowed(context.Context, authorizationv1.SubjectAccessReviewSpec) (bool, error) {
	return false, errors.New("connection refused")
}

// TestApprovalScope: a create of a RolloutApproval is admitted only if its
// creator may approve its group, by name or by the add-on's wildcard; a
// refusal is Forbidden and names the missing permission; a failed review
// refuses (fail closed) and says so.
func TestApprovalScope(t *testing.T) {
	t.Parallel()
	scheme, err := hubclient.NewScheme()
	require.NoError(t, err)
	approval := func(addOn, group string) *v1alpha1.RolloutApproval {
		return &v1alpha1.RolloutApproval{TypeMeta: metav1.TypeMeta{APIVersion: "rolloutkit.io/v1alpha1", Kind: "RolloutApproval"},
			ObjectMeta: metav1.ObjectMeta{Name: addOn + "-" + group},
			Spec:       v1alpha1.RolloutApprovalSpec{AddOn: addOn, Group: group, Revision: "abc123"}}
	}
	tests := []struct {
		name      string
		authz     rollouthook.Authorizer
		addOn     string
		group     string
		wantCode  int32
		wantInMsg string
	}{
		{"the group by name", grants{"alice": {"cluster-proxy/prod"}}, "cluster-proxy", "prod", 0, ""},
		{"any group of the add-on", grants{"alice": {"cluster-proxy/*"}}, "cluster-proxy", "stg", 0, ""},
		{"another group", grants{"alice": {"cluster-proxy/prod"}}, "cluster-proxy", "stg", http.StatusForbidden,
			`user "alice" may not approve group "stg" of add-on "cluster-proxy": needs verb "approve" on decisiongroups.rolloutkit.io named "cluster-proxy/stg" (or "cluster-proxy/*")`},
		{"another add-on's wildcard", grants{"alice": {"managed-serviceaccount/*"}}, "cluster-proxy", "prod", http.StatusForbidden,
			`named "cluster-proxy/prod" (or "cluster-proxy/*")`},
		{"another user's grant", grants{"bob": {"cluster-proxy/prod"}}, "cluster-proxy", "prod", http.StatusForbidden, `user "alice" may not approve`},
		{"a failing review", failing{}, "cluster-proxy", "prod", http.StatusServiceUnavailable,
			`checking that user "alice" may approve group "prod" of add-on "cluster-proxy" (verb "approve" on decisiongroups.rolloutkit.io named "cluster-proxy/prod"): connection refused`},
		{"no authorizer", nil, "cluster-proxy", "prod", http.StatusServiceUnavailable, "no authorizer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wh := admission.WithDefaulter[*v1alpha1.RolloutApproval](scheme, rollouthook.ApproverRecorder{Authorizer: tt.authz})
			resp := wh.Handle(context.Background(), admissionRequest(t, admissionv1.Create, approval(tt.addOn, tt.group), nil))
			if tt.wantCode == 0 {
				require.True(t, resp.Allowed, "%+v", resp.Result)
				return
			}
			require.False(t, resp.Allowed)
			assert.Equal(t, tt.wantCode, resp.Result.Code)
			assert.Contains(t, resp.Result.Message, tt.wantInMsg)
		})
	}
}
