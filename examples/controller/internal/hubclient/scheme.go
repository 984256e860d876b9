package hubclient

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// FieldManager is the field manager every write of the controller names
// (metadata.managedFields), and the name of its events.
const FieldManager = "rolloutkit-controller"

// NewScheme returns a scheme with the Kubernetes types, OCM's cluster
// types (ManagedClusters, Placements and PlacementDecisions, cluster sets
// and their bindings, AddOnPlacementScores), OCM's add-on types (both
// versions), ManifestWorks, CustomResourceDefinitions, and rolloutkit.io's
// AddOnRollouts and RolloutApprovals.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		apiextensionsv1.AddToScheme,
		clusterv1.Install,
		clusterv1alpha1.Install,
		clusterv1beta1.Install,
		clusterv1beta2.Install,
		addonv1alpha1.Install,
		addonv1beta1.Install,
		workv1.Install,
		v1alpha1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}
