package hubplan_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// TestPlanControlledRenderingSettle: with Controls.ReleaseSettle, a
// cluster released without a held work is not done at its release: its
// manager may not have tried it yet. It is done once its works take new
// content under the release, or once the settle has passed with nothing
// held; the plan comes back then.
func TestPlanControlledRenderingSettle(t *testing.T) {
	t.Parallel()
	h := newRenderHub(t, nil)
	h.ctl.ReleaseSettle = hubplan.DefaultReleaseSettle
	h.hold("prod-cluster")
	p := h.step(0)
	require.NotNil(t, p.Rendering, "prod held: a revision opens")
	dev, ok := hubplan.ReadRelease(h.mcas["dev-cluster"])
	require.True(t, ok, "dev is released first")
	assert.False(t, dev.Held)
	assert.Nil(t, dev.DoneAt, "dev, not held, is not done at its release")
	assert.Equal(t, []string{"dev-cluster"}, h.released(), "the gate admits dev's new content while it settles")
	assert.Equal(t, hubplan.DefaultReleaseSettle, p.Steps[0].Result.RecheckAfter, "the plan comes back when dev has settled")
	assert.Equal(t, rollout.Progressing, statusOf(t, h.plan().Steps[0], "dev-cluster"), "dev, released, is in flight")

	// The manager renders dev under the release: its work moves, and
	// dev is done once it is ready, before the settle.
	h.works("dev-cluster", 2, true)
	h.step(time.Second)
	dev, _ = hubplan.ReadRelease(h.mcas["dev-cluster"])
	require.NotNil(t, dev.DoneAt, "dev's works moved past the release and are ready")
	assert.Equal(t, renderAt(time.Second).UTC(), dev.DoneAt.UTC())

	// stg, never tried by the manager, is done when the settle has passed.
	for i := 0; i < 60; i++ { // dev soaks first
		if _, ok := hubplan.ReadRelease(h.mcas["stg-cluster"]); ok {
			break
		}
		h.step(30 * time.Second)
	}
	stg, ok := hubplan.ReadRelease(h.mcas["stg-cluster"])
	require.True(t, ok, "stg never released")
	require.Nil(t, stg.DoneAt)
	h.step(hubplan.DefaultReleaseSettle - time.Nanosecond)
	stg, _ = hubplan.ReadRelease(h.mcas["stg-cluster"])
	assert.Nil(t, stg.DoneAt, "stg done before its settle")
	h.step(time.Nanosecond)
	stg, _ = hubplan.ReadRelease(h.mcas["stg-cluster"])
	require.NotNil(t, stg.DoneAt, "stg not done once settled with nothing held")
}

// statusOf is cluster's status in step s's plan.
func statusOf(t *testing.T, s hubplan.Step, cluster string) rollout.Status {
	t.Helper()
	for _, c := range s.Result.ToRollout {
		if c.Cluster == cluster {
			return c.Status
		}
	}
	t.Fatalf("%s is not listed", cluster)
	return 0
}
