package addons

import (
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

func TestPhaseLog(t *testing.T) {
	t.Parallel()
	var lines []string
	logger := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{})
	ref := addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}
	until := time.Date(2026, 11, 30, 12, 7, 0, 0, time.UTC)
	dev := rollout.GroupProgress{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Phase: rollout.Active, Reason: "rolling out: 1 starting now"}
	stg := rollout.GroupProgress{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Phase: rollout.Waiting, Reason: `waiting for group "dev"`,
		Wait: rollout.Wait{Kind: rollout.WaitGroup, Group: dev.GroupKey,
			Cluster: rollout.ClusterRef{Name: "dev-cluster", Status: rollout.Succeeded, Until: until}, Until: until}}

	l := newPhaseLog()
	l.observe(logger, "cluster-proxy", ref, []rollout.GroupProgress{dev, stg})
	require.Len(t, lines, 2, "the first sight of each group is logged")
	assert.Contains(t, lines[1], `"waitsFor"="Group"`)
	assert.Contains(t, lines[1], `"waitCluster"="dev-cluster"`)
	assert.Contains(t, lines[1], `"until"="2026-11-30T12:07:00Z"`)

	l.observe(logger, "cluster-proxy", ref, []rollout.GroupProgress{dev, stg})
	assert.Len(t, lines, 2, "an unchanged phase is not logged again")

	dev.Phase, dev.Reason = rollout.Complete, "complete: 1 succeeded"
	l.observe(logger, "cluster-proxy", ref, []rollout.GroupProgress{dev, stg})
	require.Len(t, lines, 3)
	assert.Contains(t, lines[2], `"phase"="Complete"`)
	assert.NotContains(t, lines[2], "waitsFor", "a group that waits for nothing has no wait fields")

	l.forget("cluster-proxy")
	l.observe(logger, "cluster-proxy", ref, []rollout.GroupProgress{dev})
	assert.Len(t, lines, 4, "a forgotten add-on is logged afresh")
}
