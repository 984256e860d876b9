package hubtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
)

// Start is the tests' "now": where their fake clocks start.
var Start = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// FakeHub returns a client of an in-memory hub holding objs.
func FakeHub(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	return FakeHubBuilder(t, objs...).Build()
}

// FakeHubBuilder returns the builder of FakeHub's client: the
// controller's scheme (hubclient.NewScheme), objs, and the status
// subresources of Placements and PlacementDecisions.
func FakeHubBuilder(t *testing.T, objs ...client.Object) *fake.ClientBuilder {
	t.Helper()
	s, err := hubclient.NewScheme()
	require.NoError(t, err)
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
		WithStatusSubresource(&clusterv1beta1.Placement{}, &clusterv1beta1.PlacementDecision{})
}

// Cluster returns the ManagedCluster name with taints.
func Cluster(name string, taints ...clusterv1.Taint) *clusterv1.ManagedCluster {
	return &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1.ManagedClusterSpec{Taints: taints}}
}

// PlacementIn returns a Placement with no predicates (every candidate),
// changed by each of with.
func PlacementIn(namespace, name string, with ...func(*clusterv1beta1.Placement)) *clusterv1beta1.Placement {
	p := &clusterv1beta1.Placement{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID(name + "-uid")}}
	for _, w := range with {
		w(p)
	}
	return p
}

// PtrTo returns a pointer to a copy of v.
func PtrTo[T any](v T) *T { return &v }
