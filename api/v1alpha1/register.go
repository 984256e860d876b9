package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group and Version name the API.
const (
	// Group is the API group of AddOnRollouts and RolloutApprovals.
	Group = "rolloutkit.io"
	// Version is this package's API version.
	Version = "v1alpha1"
)

// GroupVersion returns rolloutkit.io/v1alpha1.
func GroupVersion() schema.GroupVersion { return schema.GroupVersion{Group: Group, Version: Version} }

// AddToScheme adds the package's types to s.
func AddToScheme(s *runtime.Scheme) error {
	gv := GroupVersion()
	s.AddKnownTypes(gv, &AddOnRollout{}, &AddOnRolloutList{}, &RolloutApproval{}, &RolloutApprovalList{})
	metav1.AddToGroupVersion(s, gv)
	return nil
}
