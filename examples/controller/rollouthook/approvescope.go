package rollouthook

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// The permission an approver needs, checked with a SubjectAccessReview as
// the API server checks verb approve on signers for a
// CertificateSigningRequest: verb ApproveVerb on the virtual resource
// DecisionGroupsResource of group v1alpha1.Group, named
// "<add-on>/<group>", or the wildcard "<add-on>/*". An RBAC rule with no
// resourceNames grants every name.
const (
	// ApproveVerb is the verb an approver needs.
	ApproveVerb = "approve"
	// DecisionGroupsResource is the virtual resource approved: no object
	// of it exists, only names of the form "<add-on>/<group>".
	DecisionGroupsResource = "decisiongroups"
)

// Authorizer answers whether a user may do what an access review asks.
type Authorizer interface {
	// Allowed reports whether the review's user may do what it asks.
	Allowed(ctx context.Context, review authorizationv1.SubjectAccessReviewSpec) (bool, error)
}

// SubjectAccessReviews is an Authorizer that asks the API server with a
// SubjectAccessReview (the controller's ServiceAccount needs create on
// subjectaccessreviews.authorization.k8s.io).
type SubjectAccessReviews struct {
	// Client creates the reviews.
	Client authorizationclient.SubjectAccessReviewInterface
}

// Allowed creates a SubjectAccessReview of review and returns its answer.
func (s SubjectAccessReviews) Allowed(ctx context.Context, review authorizationv1.SubjectAccessReviewSpec) (bool, error) {
	got, err := s.Client.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: review}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	if got.Status.EvaluationError != "" && !got.Status.Allowed {
		return false, fmt.Errorf("evaluation error: %s", got.Status.EvaluationError)
	}
	return got.Status.Allowed, nil
}

// DecisionGroupName is the name of the decisiongroups resource that
// approving group of addOn needs.
func DecisionGroupName(addOn, group string) string { return addOn + "/" + group }

// authorizeApproval returns nil if u may approve group of addOn: verb
// approve on decisiongroups named "<add-on>/<group>", else on
// "<add-on>/*"; a Forbidden error naming the missing permission if not;
// and, fail closed, a ServiceUnavailable error if the review fails.
func authorizeApproval(ctx context.Context, authz Authorizer, u authenticationv1.UserInfo, a *v1alpha1.RolloutApproval) error {
	names := []string{DecisionGroupName(a.Spec.AddOn, a.Spec.Group), DecisionGroupName(a.Spec.AddOn, "*")}
	for _, name := range names {
		ok, err := authz.Allowed(ctx, approveReview(u, name))
		if err != nil {
			return apierrors.NewServiceUnavailable(fmt.Sprintf("checking that user %q may approve group %q of add-on %q (verb %q on %s.%s named %q): %v",
				u.Username, a.Spec.Group, a.Spec.AddOn, ApproveVerb, DecisionGroupsResource, v1alpha1.Group, name, err))
		}
		if ok {
			return nil
		}
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: v1alpha1.Group, Resource: "rolloutapprovals"}, a.Name,
		fmt.Errorf("user %q may not approve group %q of add-on %q: needs verb %q on %s.%s named %q (or %q)",
			u.Username, a.Spec.Group, a.Spec.AddOn, ApproveVerb, DecisionGroupsResource, v1alpha1.Group, names[0], names[1]))
}

// approveReview asks whether u may approve the decision group name.
func approveReview(u authenticationv1.UserInfo, name string) authorizationv1.SubjectAccessReviewSpec {
	var extra map[string]authorizationv1.ExtraValue
	if len(u.Extra) > 0 {
		extra = make(map[string]authorizationv1.ExtraValue, len(u.Extra))
		for k, v := range u.Extra {
			extra[k] = authorizationv1.ExtraValue(v)
		}
	}
	return authorizationv1.SubjectAccessReviewSpec{User: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: ApproveVerb, Group: v1alpha1.Group,
			Resource: DecisionGroupsResource, Name: name}}
}
