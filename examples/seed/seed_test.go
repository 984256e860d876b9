package seed_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rolloutkit/rolloutkit/examples/seed"
)

func TestSeedManifestsDecode(t *testing.T) {
	t.Parallel()
	mcs, err := seed.ManagedClusters()
	require.NoError(t, err)
	require.Len(t, mcs, 3)
	assert.Equal(t, "dev", mcs[0].Labels["environment"])

	p, err := seed.Placement()
	require.NoError(t, err)
	assert.Len(t, p.Spec.DecisionStrategy.GroupStrategy.DecisionGroups, 3)
	assert.Equal(t, "100%", p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup.StrVal)

	sp, err := seed.ScheduledPlacement()
	require.NoError(t, err)
	assert.Equal(t, int32(3), sp.Status.NumberOfSelectedClusters)
	assert.Len(t, sp.Status.Conditions, 2)

	pds, err := seed.PlacementDecisions()
	require.NoError(t, err)
	require.Len(t, pds, 3)
	assert.Equal(t, "prod-cluster", pds[2].Status.Decisions[0].ClusterName)

	cma, err := seed.ClusterManagementAddOn()
	require.NoError(t, err)
	require.Len(t, cma.Spec.InstallStrategy.Placements, 1)
	rs := cma.Spec.InstallStrategy.Placements[0].RolloutStrategy
	require.NotNil(t, rs.ProgressivePerGroup)
	assert.Equal(t, "15m", rs.ProgressivePerGroup.ProgressDeadline)

	mpc, err := seed.ManagedProxyConfiguration()
	require.NoError(t, err)
	assert.Equal(t, "ManagedProxyConfiguration", mpc.GetKind())
}

func TestDocumentsSkipsEmpty(t *testing.T) {
	t.Parallel()
	docs, err := seed.Documents([]byte("---\na: 1\n---\n\n---\nb: 2\n"))
	require.NoError(t, err)
	assert.Len(t, docs, 2)
}

func TestLargeFleet(t *testing.T) {
	t.Parallel()
	a, b := seed.LargeFleet(1000), seed.LargeFleet(1000)
	require.Len(t, a, 1000)
	assert.Equal(t, a, b, "the same n gives the same fleet")
	envs := map[string]int{}
	for _, mc := range a {
		envs[mc.Labels["environment"]]++
	}
	assert.Len(t, envs, 4)
	assert.InDelta(t, 550, envs["prod"], 60)
	assert.InDelta(t, 50, envs["qa"], 25)
}
