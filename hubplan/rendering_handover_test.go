package hubplan_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// TestPlanControlledRenderingHandoverAfterRelease: prod, released for a
// rendering revision, took a change of its works that is not applied yet
// when a config change arrives. The config change joins the rendering
// revision in flight and starts again from dev; when it reaches prod,
// prod is released again, under the new config revision, with its works
// as they are then: the gate admits the config handover as the first
// change since that release, where under the first release it would hold
// it as a further rendering (and prod would never be done). It is
// released again once: planning again, or after the handover, writes no
// further release but its done time.
func TestPlanControlledRenderingHandoverAfterRelease(t *testing.T) {
	t.Parallel()
	withAndWithoutRollout(t, func(t *testing.T, spec *v1alpha1.AddOnRolloutSpec) {
		h := newRenderHub(t, spec)
		h.hold("prod-cluster")
		h.step(0)
		h.step(6 * time.Minute)
		p := h.step(6 * time.Minute)
		require.Equal(t, []string{"prod-cluster released 12:12:00 held sha256:gen1"}, releaseLines(p))
		h.admit("prod-cluster")
		h.works("prod-cluster", 2, false) // took a change, not applied yet
		h.step(time.Minute)

		// the config moves on; the manager's rendering of it is held
		h.hash = "v3"
		h.holdFor("prod-cluster", "ConfigMovedOn")
		p = h.step(time.Minute)
		require.Equal(t, hubplan.KindConfigAndRendering, p.Steps[0].Kind)
		assert.Equal(t, []string{"dev-cluster"}, givenNew(p, "v3"), "it starts again from dev")
		assert.Empty(t, releaseLines(p), "dev took the rendering: a handover only")
		h.finish(startedBy(p)...)
		p = h.step(soaked)
		assert.Equal(t, []string{"stg-cluster"}, givenNew(p, "v3"))
		assert.Empty(t, releaseLines(p))
		h.finish(startedBy(p)...)

		p = h.step(soaked)
		assert.Equal(t, []string{"prod-cluster"}, givenNew(p, "v3"))
		assert.Equal(t, []string{"prod-cluster released 12:26:00 held sha256:gen2"}, releaseLines(p),
			"prod is released again, with its works as they are now")
		reach, _, rel := hubplan.ReachOf(h.cma, h.mcas["prod-cluster"])
		assert.Equal(t, hubplan.ReachReleased, reach)
		assert.Equal(t, revision("v3"), rel.Configs)
		assert.Equal(t, worksAt(2, false).Content, rel.Works, "the gate admits the first change from these")

		again := h.plan()
		assert.Empty(t, releaseLines(again), "planned again: no release again")

		// the handover lands and applies: prod is done, once
		h.admit("prod-cluster")
		h.works("prod-cluster", 3, true)
		h.finish("prod-cluster")
		p = h.step(time.Minute)
		assert.Equal(t, []string{"prod-cluster released 12:26:00 held sha256:gen2 done 12:27:00"}, releaseLines(p))
		p = h.step(soaked)
		assert.Empty(t, releaseLines(p))
		assert.Equal(t, []string{"dev Complete", "stg Complete", "prod Complete"}, phases(p))
	})
}
