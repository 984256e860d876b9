package placement_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/placement"
)

// spreadFleet ranks, by allocatable CPU alone (Exact mode), eu-1 to eu-4
// first, then us-1 and us-2, ap-1, and none-1, which has no region. eu-1,
// eu-2 and us-1 claim platform AWS, the others GCP.
func spreadFleet() []*clusterv1.ManagedCluster {
	c := func(name, region, cpu, platform string) *clusterv1.ManagedCluster {
		var labels []string
		if region != "" {
			labels = append(labels, "region="+region)
		}
		return withClaims(withResources(mc(name, labels...), cpu, "16", "", ""), "platform="+platform)
	}
	return []*clusterv1.ManagedCluster{
		c("eu-1", "eu", "8", "AWS"), c("eu-2", "eu", "8", "AWS"), c("eu-3", "eu", "8", "GCP"), c("eu-4", "eu", "8", "GCP"),
		c("us-1", "us", "4", "AWS"), c("us-2", "us", "4", "GCP"), c("ap-1", "ap", "2", "GCP"), c("none-1", "", "1", "GCP"),
	}
}

func spreadPlacement(number int32, terms ...clusterv1beta1.SpreadConstraintsTerm) *clusterv1beta1.Placement {
	p := newPlacement(intstr.IntOrString{}, nil)
	if number >= 0 {
		p.Spec.NumberOfClusters = ptr.To(number)
	}
	p.Spec.PrioritizerPolicy = clusterv1beta1.PrioritizerPolicy{
		Mode:           clusterv1beta1.PrioritizerPolicyModeExact,
		Configurations: []clusterv1beta1.PrioritizerConfig{builtInConfig("ResourceAllocatableCPU", 1)},
	}
	p.Spec.SpreadPolicy.SpreadConstraints = terms
	return p
}

func term(key string, keyType clusterv1beta1.TopologyKeyType, maxSkew int32, when clusterv1beta1.UnsatisfiableMaxSkewAction) clusterv1beta1.SpreadConstraintsTerm {
	return clusterv1beta1.SpreadConstraintsTerm{TopologyKey: key, TopologyKeyType: keyType, MaxSkew: maxSkew, WhenUnsatisfiable: when}
}

// TestSpreadPolicyOCMDiffers shows the divergence: OCM v1.2.0 accepts
// spreadPolicy but never reads it, so for four clusters it keeps the four
// best by score, eu-1 to eu-4. rolloutkit spreads them over the regions,
// and says what OCM would do.
func TestSpreadPolicyOCMDiffers(t *testing.T) {
	t.Parallel()
	p := spreadPlacement(4, term("region", clusterv1beta1.TopologyKeyTypeLabel, 1, clusterv1beta1.ScheduleAnyway))
	res, err := placement.Schedule(p, spreadFleet())
	require.NoError(t, err)
	assert.Equal(t, []string{"ap-1", "eu-1", "eu-2", "us-1"}, res.Clusters)
	assert.Equal(t, []placement.Warning{{Kind: placement.SpreadPolicy, Message: "spreadPolicy is applied here, but OCM v1.2.0 ignores it and selects by score alone: " +
		`OCM would also select "eu-3", "eu-4"; OCM would not select "ap-1", "us-1"`}}, res.Warnings)

	p.Spec.SpreadPolicy = clusterv1beta1.SpreadPolicy{}
	ocm, err := placement.Schedule(p, spreadFleet())
	require.NoError(t, err)
	assert.Equal(t, []string{"eu-1", "eu-2", "eu-3", "eu-4"}, ocm.Clusters, "OCM's choice: spreadPolicy left out")
}

func TestScheduleSpread(t *testing.T) {
	t.Parallel()
	const label, claim = clusterv1beta1.TopologyKeyTypeLabel, clusterv1beta1.TopologyKeyTypeClaim
	tests := []struct {
		name      string
		p         *clusterv1beta1.Placement
		want      []string
		satisfied string
	}{
		{
			// eu, us, ap, eu, us: then eu and us would be 3 against ap's 1,
			// and none-1 has no region.
			name: "DoNotSchedule without numberOfClusters: as many as the skew allows",
			p:    spreadPlacement(-1, term("region", label, 1, clusterv1beta1.DoNotSchedule)),
			want: []string{"ap-1", "eu-1", "eu-2", "us-1", "us-2"}, satisfied: "AllDecisionsScheduled",
		},
		{
			name: "DoNotSchedule short of numberOfClusters: unscheduled decisions",
			p:    spreadPlacement(7, term("region", label, 1, clusterv1beta1.DoNotSchedule)),
			want: []string{"ap-1", "eu-1", "eu-2", "us-1", "us-2"}, satisfied: "NotAllDecisionsScheduled",
		},
		{
			name: "maxSkew 2: two of eu first, by rank",
			p:    spreadPlacement(4, term("region", label, 2, clusterv1beta1.DoNotSchedule)),
			want: []string{"eu-1", "eu-2", "us-1", "us-2"}, satisfied: "AllDecisionsScheduled",
		},
		{
			name: "maxSkew 0 (unset) is 1",
			p:    spreadPlacement(3, term("region", label, 0, clusterv1beta1.DoNotSchedule)),
			want: []string{"ap-1", "eu-1", "us-1"}, satisfied: "AllDecisionsScheduled",
		},
		{
			name: "ScheduleAnyway without numberOfClusters: every cluster",
			p:    spreadPlacement(-1, term("region", label, 1, "")),
			want: []string{"ap-1", "eu-1", "eu-2", "eu-3", "eu-4", "none-1", "us-1", "us-2"}, satisfied: "AllDecisionsScheduled",
		},
		{
			name: "ScheduleAnyway: a cluster without the key comes last",
			p:    spreadPlacement(7, term("region", label, 3, clusterv1beta1.ScheduleAnyway)),
			want: []string{"ap-1", "eu-1", "eu-2", "eu-3", "eu-4", "us-1", "us-2"}, satisfied: "AllDecisionsScheduled",
		},
		{
			name: "a claim as the topology key",
			p:    spreadPlacement(2, term("platform", claim, 1, clusterv1beta1.DoNotSchedule)),
			want: []string{"eu-1", "eu-3"}, satisfied: "AllDecisionsScheduled",
		},
		{
			// eu-1 (AWS) first; then the hard platform constraint wants a
			// GCP cluster, and the soft region one prefers us-2 to eu-3;
			// then either platform, and only ap-1 keeps the regions even.
			name: "two constraints: the soft one chooses among what the hard one allows",
			p: spreadPlacement(3, term("region", label, 1, clusterv1beta1.ScheduleAnyway),
				term("platform", claim, 1, clusterv1beta1.DoNotSchedule)),
			want: []string{"ap-1", "eu-1", "us-2"}, satisfied: "AllDecisionsScheduled",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := placement.Schedule(tt.p, spreadFleet())
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Clusters)
			assert.Equal(t, tt.satisfied, condition(t, res.Status, clusterv1beta1.PlacementConditionSatisfied).Reason)
			require.NotEmpty(t, res.Warnings)
			assert.Equal(t, placement.SpreadPolicy, res.Warnings[len(res.Warnings)-1].Kind)
		})
	}
}

func TestScheduleSpreadRefused(t *testing.T) {
	t.Parallel()
	p := spreadPlacement(2,
		term("", clusterv1beta1.TopologyKeyTypeLabel, 1, ""),
		term("region", "Annotation", -1, "Never"))
	res, err := placement.Schedule(p, spreadFleet())
	require.Error(t, err)
	assert.Equal(t, placement.Result{}, res)
	var paths []string
	for _, pr := range problems(t, `placement "ns/p"`, err) {
		var fe *field.Error
		require.True(t, errors.As(pr, &fe), "%v", pr)
		paths = append(paths, fe.Field)
	}
	assert.Equal(t, []string{
		"spec.spreadPolicy.spreadConstraints[0].topologyKey",
		"spec.spreadPolicy.spreadConstraints[1].topologyKeyType",
		"spec.spreadPolicy.spreadConstraints[1].maxSkew",
		"spec.spreadPolicy.spreadConstraints[1].whenUnsatisfiable",
	}, paths)
}
