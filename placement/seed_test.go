package placement_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/placement"
)

// The seed's "Example of generated resources" must come out exactly: the
// group table, the three PlacementDecisions and the Placement status.
func TestScheduleSeed(t *testing.T) {
	t.Parallel()
	f := loadSeed(t)
	f.placement.UID = "0b3c1f7e-seed-placement"
	res, err := placement.Scheduler{Clock: fake.New(seedTime())}.Schedule(f.placement, f.clusters)
	require.NoError(t, err)

	t.Run("group table", func(t *testing.T) {
		t.Parallel()
		// The seed's table: group index, group, PlacementDecision, cluster.
		want := strings.Join([]string{
			"0\tdev\tcluster-proxy-placement-decision-1\tdev-cluster",
			"1\tstg\tcluster-proxy-placement-decision-2\tstg-cluster",
			"2\tprod\tcluster-proxy-placement-decision-3\tprod-cluster",
		}, "\n")
		var rows []string
		for _, pd := range res.Decisions {
			for _, d := range pd.Status.Decisions {
				rows = append(rows, fmt.Sprintf("%s\t%s\t%s\t%s", pd.Labels[clusterv1beta1.DecisionGroupIndexLabel],
					pd.Labels[clusterv1beta1.DecisionGroupNameLabel], pd.Name, d.ClusterName))
			}
		}
		assert.Equal(t, want, strings.Join(rows, "\n"))
		assert.Equal(t, []grouping.Group{
			group("dev", 0, "dev-cluster"),
			group("stg", 1, "stg-cluster"),
			group("prod", 2, "prod-cluster"),
		}, res.Groups)
		assert.Equal(t, []string{"dev-cluster", "prod-cluster", "stg-cluster"}, res.Clusters)
		assert.Empty(t, res.Warnings, "the seed restricts environment to dev, stg and prod")
	})

	t.Run("PlacementDecisions", func(t *testing.T) {
		t.Parallel()
		want := loadSeed(t).decisions
		for _, pd := range want {
			require.Len(t, pd.OwnerReferences, 1)
			require.Equal(t, "<Placement UID>", string(pd.OwnerReferences[0].UID))
			pd.OwnerReferences[0].UID = f.placement.UID
		}
		assert.Equal(t, want, res.Decisions)
	})

	t.Run("Placement status", func(t *testing.T) {
		t.Parallel()
		want := loadSeed(t).scheduled.Status
		want.Conditions = utc(want.Conditions)
		assert.Equal(t, want, res.Status)
	})

	t.Run("spec unchanged", func(t *testing.T) {
		t.Parallel()
		assert.Equal(t, loadSeed(t).scheduled.Spec, f.placement.Spec)
	})
}

// The seed's rollout reads the groups back from the PlacementDecisions.
func TestGroupsFromSeedDecisions(t *testing.T) {
	t.Parallel()
	f := loadSeed(t)
	groups, err := placement.GroupsFromDecisions(f.decisions)
	require.NoError(t, err)
	assert.Equal(t, []grouping.Group{
		group("dev", 0, "dev-cluster"),
		group("stg", 1, "stg-cluster"),
		group("prod", 2, "prod-cluster"),
	}, groups)
}

// The seed's caveats, on its own Placement.
func TestScheduleSeedCaveats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		edit     func(f *seedFixture)
		groups   []grouping.Group
		warnings []placement.Warning
	}{
		{
			name: "no dev cluster: stg becomes index 0 and prod index 1",
			edit: func(f *seedFixture) { f.clusters = f.clusters[1:] },
			groups: []grouping.Group{
				group("stg", 0, "stg-cluster"),
				group("prod", 1, "prod-cluster"),
			},
			warnings: []placement.Warning{{
				Kind:    placement.EmptyNamedGroup,
				Message: `group "dev" matched no cluster: "stg" is now index 0, "prod" is now index 1`,
			}},
		},
		{
			name: "without the environment restriction, a qa cluster is rolled out last",
			edit: func(f *seedFixture) {
				f.placement.Spec.Predicates[0].RequiredClusterSelector.LabelSelector.MatchExpressions = nil
				f.clusters = append(f.clusters, mc("qa-cluster", "cluster-proxy=enabled", "environment=qa"))
			},
			groups: []grouping.Group{
				group("dev", 0, "dev-cluster"),
				group("stg", 1, "stg-cluster"),
				group("prod", 2, "prod-cluster"),
				group("", 3, "qa-cluster"),
			},
			warnings: []placement.Warning{{
				Kind:    placement.UnnamedGroup,
				Message: `1 cluster matched no decision group and will be rolled out last, in the unnamed group (index 3): "qa-cluster"`,
			}},
		},
		{
			name: "with the restriction, the qa cluster is not selected",
			edit: func(f *seedFixture) {
				f.clusters = append(f.clusters, mc("qa-cluster", "cluster-proxy=enabled", "environment=qa"))
			},
			groups: []grouping.Group{
				group("dev", 0, "dev-cluster"),
				group("stg", 1, "stg-cluster"),
				group("prod", 2, "prod-cluster"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := loadSeed(t)
			tt.edit(&f)
			res, err := placement.Schedule(f.placement, f.clusters)
			require.NoError(t, err)
			assert.Equal(t, tt.groups, res.Groups)
			assert.Equal(t, tt.warnings, res.Warnings)
			back, err := placement.GroupsFromDecisions(res.Decisions)
			require.NoError(t, err)
			assert.Equal(t, res.Groups, back)
		})
	}
}
