package grouping

import (
	"strconv"

	clusterv1 "open-cluster-management.io/api/cluster/v1"

	"github.com/rolloutkit/rolloutkit/internal/field"
)

// GroupKey identifies a decision group: its name (empty for the unnamed
// groups of unclassified clusters) and its index, counted from 0 in rollout
// order.
type GroupKey struct {
	Name  string
	Index int32
}

// String formats the key as name#index, or #index for an unnamed group. A
// name that is not a plain Kubernetes name is quoted.
func (k GroupKey) String() string {
	name := ""
	if k.Name != "" {
		name = field.Name(k.Name)
	}
	return name + "#" + strconv.Itoa(int(k.Index))
}

// Label names the group in a sentence: group "prod" (always quoted), or
// unnamed group #3. Unlike String it does not tell apart two groups of one
// name; a caller that can meet them adds the index.
func (k GroupKey) Label() string {
	if k.Name == "" {
		return "unnamed group #" + strconv.Itoa(int(k.Index))
	}
	return "group " + strconv.Quote(k.Name)
}

// Group is one decision group: its key and its clusters, sorted by name in
// byte order.
type Group struct {
	GroupKey
	Clusters []string
}

// Cluster is what grouping needs to know of a managed cluster: its name,
// its labels and its cluster claims (status.clusterClaims, name to value).
// Nil maps are empty.
type Cluster struct {
	Name   string
	Labels map[string]string
	Claims map[string]string
}

// FromManagedCluster reads a ManagedCluster's name, labels and
// status.clusterClaims. The maps are copies: changing them does not change
// mc. A nil mc gives the zero Cluster.
func FromManagedCluster(mc *clusterv1.ManagedCluster) Cluster {
	if mc == nil {
		return Cluster{}
	}
	c := Cluster{Name: mc.Name}
	if len(mc.Labels) > 0 {
		c.Labels = make(map[string]string, len(mc.Labels))
		for k, v := range mc.Labels {
			c.Labels[k] = v
		}
	}
	if len(mc.Status.ClusterClaims) > 0 {
		c.Claims = make(map[string]string, len(mc.Status.ClusterClaims))
		for _, cl := range mc.Status.ClusterClaims {
			c.Claims[cl.Name] = cl.Value
		}
	}
	return c
}
