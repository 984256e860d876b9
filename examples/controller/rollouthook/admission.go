package rollouthook

import (
	"context"
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/verify"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// Admission's paths on the controller's webhook server: the
// clientConfig.service.path of the webhooks in config/webhook/admission.yaml.
const (
	// RolloutValidationPath is where AddOnRollouts are validated.
	RolloutValidationPath = "/validate-rolloutkit-io-v1alpha1-addonrollout"
	// ApprovalMutationPath is where a RolloutApproval being created gets
	// its creator's name.
	ApprovalMutationPath = "/mutate-rolloutkit-io-v1alpha1-rolloutapproval"
)

// Admission's names in config/webhook/admission.yaml: the API server
// names the webhook in every refusal ("admission webhook ... denied the
// request").
const (
	// AdmissionConfiguration is the name of both the
	// ValidatingWebhookConfiguration and the MutatingWebhookConfiguration
	// that install admission on a hub.
	AdmissionConfiguration = "rolloutkit-admission"
	// RolloutValidationWebhook is the name of the AddOnRollouts' webhook.
	RolloutValidationWebhook = "addonrollouts.rolloutkit.io"
	// ApprovalMutationWebhook is the name of the RolloutApprovals' webhook.
	ApprovalMutationWebhook = "rolloutapprovals.rolloutkit.io"
)

// Register serves admission on the webhook server s, with the
// types of scheme (NewScheme's): the AddOnRollouts' validation at
// RolloutValidationPath (Validator, with PromQL, and the namespaces
// checks may read credentials from) and the
// RolloutApprovals' creators at ApprovalMutationPath (ApproverRecorder).
// Neither reads the hub, so every replica serves both from the moment its
// webhook server starts.
//
// authz answers whether the creator of an approval may approve its group
// (SubjectAccessReviews for the controller); nil admits no approval.
func Register(s webhook.Server, scheme *runtime.Scheme, credentialNamespaces []string, authz Authorizer) {
	s.Register(RolloutValidationPath, admission.WithValidator[*v1alpha1.AddOnRollout](scheme,
		Validator{ValidateQuery: verify.PromQL(), CredentialNamespaces: credentialNamespaces}))
	s.Register(ApprovalMutationPath, admission.WithDefaulter[*v1alpha1.RolloutApproval](scheme, ApproverRecorder{Authorizer: authz}))
}

// Validator refuses an AddOnRollout whose spec
// hubplan.ValidateSpec finds a problem with (what the controller
// would otherwise report only in the Valid condition of its status), or
// whose checks reference a Secret or a ConfigMap in a namespace the
// controller does not read credentials from (where it would fail every
// run). The group names it gives are not judged, since a placement may
// have them later.
type Validator struct {
	// ValidateQuery checks the PromQL queries of verifications (PromQL
	// for the controller); nil: only that they are not blank.
	ValidateQuery hubplan.QueryValidator
	// CredentialNamespaces are the namespaces checks may reference
	// (the controller's -verification-secret-namespaces). None: no
	// reference is admitted.
	CredentialNamespaces []string
}

var _ admission.Validator[*v1alpha1.AddOnRollout] = Validator{}

// ValidateCreate refuses ar if its spec has a problem, naming every one.
func (v Validator) ValidateCreate(_ context.Context, ar *v1alpha1.AddOnRollout) (admission.Warnings, error) {
	return nil, v.validate(ar)
}

// ValidateUpdate refuses an update that changes the spec to one with a
// problem. An update that leaves the spec as it was is admitted, so that
// an object written before the webhook existed can still be labelled or
// deleted through its finalizers; the controller reports its problems.
func (v Validator) ValidateUpdate(_ context.Context, old, ar *v1alpha1.AddOnRollout) (admission.Warnings, error) {
	if apiequality.Semantic.DeepEqual(old.Spec, ar.Spec) {
		return nil, nil
	}
	return nil, v.validate(ar)
}

// ValidateDelete admits every delete.
func (Validator) ValidateDelete(context.Context, *v1alpha1.AddOnRollout) (admission.Warnings, error) {
	return nil, nil
}

// validate returns an Invalid status error that names every problem of
// ar's spec, as the API server's own validation does; nil when it has
// none.
func (v Validator) validate(ar *v1alpha1.AddOnRollout) error {
	errs := append(hubplan.ValidateSpec(ar, v.ValidateQuery), namespaceErrors(ar.Spec, v.CredentialNamespaces)...)
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: v1alpha1.Group, Kind: "AddOnRollout"}, ar.Name, errs)
}

// ApproverRecorder records who creates a RolloutApproval: spec.username,
// spec.uid and spec.groups become those of the user the API server
// authenticated for the create, whatever the request said, as the API
// server does for a CertificateSigningRequest. The CRD makes the spec
// immutable, so that the record cannot be changed later.
//
// A create is refused unless that user may approve the approval's group:
// verb approve on decisiongroups.rolloutkit.io named "<add-on>/<group>"
// or "<add-on>/*", asked of Authorizer (see authorizeApproval). A failed
// check refuses the create (fail closed), saying why.
type ApproverRecorder struct {
	// Authorizer answers the access reviews; nil refuses every create.
	Authorizer Authorizer
}

var _ admission.Defaulter[*v1alpha1.RolloutApproval] = ApproverRecorder{}

// Default sets the approver of a RolloutApproval being created from the
// admission request in ctx, or refuses the create if that user may not
// approve its group; other operations are left as they are.
func (r ApproverRecorder) Default(ctx context.Context, a *v1alpha1.RolloutApproval) error {
	req, err := admission.RequestFromContext(ctx)
	if err != nil {
		return fmt.Errorf("recording the approver: %w", err)
	}
	if req.Operation != admissionv1.Create {
		return nil
	}
	u := req.UserInfo
	if r.Authorizer == nil {
		return apierrors.NewServiceUnavailable("no authorizer to check approvers with")
	}
	if err := authorizeApproval(ctx, r.Authorizer, u, a); err != nil {
		return err
	}
	a.Spec.Username, a.Spec.UID = u.Username, u.UID
	a.Spec.Groups = nil
	if len(u.Groups) > 0 {
		a.Spec.Groups = slices.Clone(u.Groups)
	}
	return nil
}
