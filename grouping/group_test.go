package grouping_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/rolloutkit/rolloutkit/grouping"
)

func TestFromManagedCluster(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   *clusterv1.ManagedCluster
		want grouping.Cluster
	}{
		{"nil", nil, grouping.Cluster{}},
		{"nil labels, no claims", &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, grouping.Cluster{Name: "a"}},
		{
			"labels and claims",
			&clusterv1.ManagedCluster{
				ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"environment": "dev"}},
				Status: clusterv1.ManagedClusterStatus{ClusterClaims: []clusterv1.ManagedClusterClaim{
					{Name: "platform.open-cluster-management.io", Value: "AWS"},
					{Name: "region.open-cluster-management.io", Value: "eu-west-1"},
				}},
			},
			grouping.Cluster{
				Name:   "a",
				Labels: map[string]string{"environment": "dev"},
				Claims: map[string]string{"platform.open-cluster-management.io": "AWS", "region.open-cluster-management.io": "eu-west-1"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var before *clusterv1.ManagedCluster
			if tt.in != nil {
				before = tt.in.DeepCopy()
			}
			got := grouping.FromManagedCluster(tt.in)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, before, tt.in)
			if got.Labels != nil {
				got.Labels["environment"] = "changed"
				assert.Equal(t, "dev", tt.in.Labels["environment"], "labels must be a copy")
			}
		})
	}
}

func TestGroupKeyString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "dev#0", grouping.GroupKey{Name: "dev", Index: 0}.String())
	assert.Equal(t, "#3", grouping.GroupKey{Index: 3}.String())
}

func TestGroupKeyLabel(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `group "dev"`, grouping.GroupKey{Name: "dev", Index: 0}.Label())
	assert.Equal(t, `group "two words\n"`, grouping.GroupKey{Name: "two words\n", Index: 1}.Label())
	assert.Equal(t, "unnamed group #3", grouping.GroupKey{Index: 3}.Label())
}
