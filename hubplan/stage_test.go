package hubplan_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
)

// take plays cluster taking new content under its release: the gate
// admits it (its record of the hold goes), the work moves to generation
// gen and is ready.
func (h *renderHub) take(cluster string, gen int64) {
	h.admit(cluster)
	h.works(cluster, gen, true)
}

// rendered is the rendering revision each cluster's release names (""
// for none), by cluster.
func (h *renderHub) rendered() map[string]string {
	out := map[string]string{}
	for c, m := range h.mcas {
		rel, _ := hubplan.ReadRelease(m)
		out[c] = rel.Revision
	}
	return out
}

// TestRenderingJoinsConfigRollout: a new agent chart arrives while a
// config change is rolling out, dev soaked and stg soaking. The rendering
// joins the config change as one revision, which starts again from dev:
// dev and stg take the new rendering in turn, each after the one before
// soaked, and prod is handed the config and released for the rendering
// together, only then. No handover to prod carries a rendering dev and
// stg have not taken.
func TestRenderingJoinsConfigRollout(t *testing.T) {
	t.Parallel()
	h := newRenderHub(t, &v1alpha1.AddOnRolloutSpec{})
	h.hash = "v3"
	p := h.step(0) // dev is handed v3
	require.Equal(t, []string{"dev-cluster"}, givenNew(p, "v3"))
	h.finish("dev-cluster")
	h.step(soaked) // stg is handed v3
	h.finish("stg-cluster")
	h.step(time.Minute) // stg soaking

	// The new chart: the manager renders every cluster again. dev and stg
	// run v3: a new rendering under unchanged configs; prod's config has
	// moved on.
	h.hold("dev-cluster")
	h.hold("stg-cluster")
	h.holdFor("prod-cluster", "ConfigMovedOn")
	p = h.step(time.Second)
	require.NotNil(t, p.Rendering, "the held rendering opens a revision")
	x := p.Rendering.Revision
	s := p.Steps[0]
	assert.Equal(t, hubplan.KindConfigAndRendering, s.Kind)
	assert.Equal(t, hubplan.CombinedRevision(revision("v3"), x), s.Revision)
	assert.Equal(t, x, s.Rendering)
	assert.Equal(t, x, p.Status.Placements[0].Rendering)
	assert.Equal(t, []string{"dev-cluster released 12:07:01 held sha256:gen1"}, releaseLines(p), "dev first, again")
	assert.Empty(t, givenNew(p, "v3"), "prod is not handed v3 ahead of the rendering")

	h.take("dev-cluster", 2)
	p = h.step(time.Second)
	assert.Equal(t, []string{"dev-cluster released 12:07:01 held sha256:gen1 done 12:07:02"}, releaseLines(p))
	p = h.step(4 * time.Minute)
	assert.Empty(t, releaseLines(p), "stg waits for dev's soak")
	p = h.step(time.Minute)
	assert.Equal(t, []string{"stg-cluster released 12:12:02 held sha256:gen1"}, releaseLines(p), "stg after dev soaked")
	assert.Empty(t, givenNew(p, "v3"))

	h.take("stg-cluster", 2)
	h.step(time.Second)
	p = h.step(soaked)
	assert.Equal(t, []string{"prod-cluster"}, givenNew(p, "v3"), "prod handed v3 once stg soaked the rendering")
	assert.Equal(t, []string{"prod-cluster released 12:18:03 held sha256:gen1"}, releaseLines(p), "and released in the same step")
	assert.Equal(t, map[string]string{"dev-cluster": x, "stg-cluster": x, "prod-cluster": x}, h.rendered())
	assert.Equal(t, hubplan.KindConfigAndRendering, p.Steps[0].Kind)

	h.finish("prod-cluster")
	h.take("prod-cluster", 2)
	p = h.step(time.Second)
	assert.Equal(t, hubplan.KindRendering, p.Steps[0].Kind, "every cluster runs v3: the rendering is all that rolls")
	h.step(soaked)
	p = h.step(time.Minute)
	require.NotNil(t, p.Rendering, "the revision completes")
	assert.NotNil(t, p.Rendering.CompletedAt)
	assert.Equal(t, hubplan.ReasonCompleted, reasonOf(p, hubplan.ConditionProgressing))
}

// TestRenderingSuperseded: a second chart arrives while the first's
// rendering revision is rolling out, dev done and stg released. The
// gate holds dev's further rendering, which supersedes the revision in
// flight: a new one starts again from dev, and prod, never released for
// the first, is released for the second only after dev and stg took it.
func TestRenderingSuperseded(t *testing.T) {
	t.Parallel()
	h := newRenderHub(t, &v1alpha1.AddOnRolloutSpec{})
	h.hold("prod-cluster")
	p := h.step(0)
	require.NotNil(t, p.Rendering)
	x := p.Rendering.Revision
	h.step(soaked) // dev (not held) done at its release and soaked: stg released
	require.Equal(t, x, h.rendered()["stg-cluster"])
	h.take("stg-cluster", 2)

	// The second chart: dev, which took the first, is held again.
	h.hold("dev-cluster")
	p = h.step(time.Second)
	require.NotNil(t, p.Rendering, "the further rendering opens a new revision")
	y := p.Rendering.Revision
	assert.NotEqual(t, x, y)
	assert.Nil(t, p.Rendering.CompletedAt)
	assert.Equal(t, hubplan.CombinedRevision(revision("v2"), y), p.Steps[0].Revision)
	assert.Equal(t, []string{"dev-cluster released 12:06:01 held sha256:gen1"}, releaseLines(p), "from the first group again")
	assert.Equal(t, []string{"dev Active", "stg Waiting", "prod Waiting"}, phases(p))

	h.take("dev-cluster", 2)
	h.step(time.Second)
	p = h.step(soaked)
	assert.Equal(t, []string{"stg-cluster released 12:12:02 done 12:12:02"}, releaseLines(p))
	p = h.step(soaked)
	assert.Equal(t, []string{"prod-cluster released 12:18:02 held sha256:gen1"}, releaseLines(p))
	assert.Equal(t, map[string]string{"dev-cluster": y, "stg-cluster": y, "prod-cluster": y}, h.rendered(),
		"prod was never released for the revision superseded")
}

// TestRenderingWaitsForVerifications: a new rendering held once the config
// rollout is done, but before prod's verification of it passed, waits:
// the placement goes on with its config revision until the check passes,
// then the rendering starts from dev.
func TestRenderingWaitsForVerifications(t *testing.T) {
	t.Parallel()
	h := newRenderHub(t, &v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
		{Name: "slo", Groups: []string{"prod"}, Webhook: &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}}}})
	fail := func(p hubplan.Plan) []hubplan.CheckResult {
		var out []hubplan.CheckResult
		for _, ch := range p.Checks {
			out = append(out, hubplan.CheckResult{Check: ch, Passed: false, Message: "error rate 3%", At: h.clock.Now()})
		}
		return out
	}
	p := h.plan()
	require.Len(t, p.Checks, 1, "prod's check of the config revision is due")
	h.apply(p, fail(p)...)

	h.hold("prod-cluster")
	h.clock.Step(time.Second)
	p = h.plan()
	require.NotNil(t, p.Rendering, "the revision opens")
	s := p.Steps[0]
	assert.Equal(t, hubplan.KindConfig, s.Kind, "the config revision is not verified: it stays the step")
	assert.Equal(t, revision("v2"), s.Revision)
	assert.Empty(t, releaseLines(p), "nothing is released while prod's check fails")
	h.apply(p, fail(p)...)
	h.write(p)

	h.clock.Step(hubplan.DefaultCheckInterval)
	p = h.plan()
	require.Len(t, p.Checks, 1)
	assert.Equal(t, revision("v2"), p.Checks[0].Request.Revision, "the check is of the config revision")
	h.apply(p, hubplan.CheckResult{Check: p.Checks[0], Passed: true, Message: "ok", At: h.clock.Now()})
	h.write(p)
	p = h.step(time.Second)
	assert.Equal(t, hubplan.KindRendering, p.Steps[0].Kind, "verified: the rendering follows")
	assert.Equal(t, []string{"dev-cluster released 12:00:32 done 12:00:32"}, releaseLines(p))
	assert.Equal(t, addontest.PlanNow.Add(32*time.Second), p.Status.Placements[0].RevisionStartTime.UTC())
}
