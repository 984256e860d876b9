package hubplan_test

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// TestPlanControlledRendering: one call of Planner.Plan with what the
// add-on's works say, on the seed's add-on whose config rollout is over,
// under an AddOnRollout without controls.
func TestPlanControlledRendering(t *testing.T) {
	t.Parallel()
	opened := hubplan.NewRenderingRevision(addontest.PlanNow)
	earlier := hubplan.NewRenderingRevision(addontest.PlanNow.Add(-time.Hour))
	complete := earlier
	complete.CompletedAt = doneAt(-30 * time.Minute)
	devDone := func(h *renderHub) {
		h.release("dev-cluster", hubplan.Release{Revision: earlier.Revision, ReleasedAt: renderAt(-10 * time.Minute),
			Generation: 1, Works: worksAt(1, true).Content, DoneAt: doneAt(-10 * time.Minute)})
	}
	allDone := func(h *renderHub) {
		for _, c := range []string{"dev-cluster", "stg-cluster"} {
			h.release(c, hubplan.Release{Revision: earlier.Revision, ReleasedAt: renderAt(-50 * time.Minute), Generation: 1,
				Works: worksAt(1, true).Content, DoneAt: doneAt(-50 * time.Minute)})
		}
		h.release("prod-cluster", hubplan.Release{Revision: earlier.Revision, ReleasedAt: renderAt(-40 * time.Minute), Generation: 1,
			Works: worksAt(1, true).Content, Held: true, DoneAt: doneAt(-30 * time.Minute)})
		h.works("prod-cluster", 2, true)
	}
	tests := []struct {
		name      string
		setup     func(h *renderHub)
		kind      string
		config    string // the config spec of the step's revision: "v2" when empty
		rendering string // the rendering revision of the step's: none (a config revision) when empty
		opens     bool
		releases  []string
		phases    []string
		held      []int32 // the status's Counts.Held, in rollout order
		then      func(t *testing.T, h *renderHub, p hubplan.Plan)
	}{
		{
			name: "no cluster held: no revision, the config rollout is the step",
			kind: hubplan.KindConfig, phases: []string{"dev Complete", "stg Complete", "prod Complete"}, held: []int32{0, 0, 0},
		},
		{
			name:  "prod held: a revision opens and dev, not held, is released and done at once",
			setup: func(h *renderHub) { h.hold("prod-cluster") },
			kind:  hubplan.KindRendering, rendering: opened.Revision, opens: true,
			releases: []string{"dev-cluster released 12:00:00 done 12:00:00"},
			phases:   []string{"dev Active", "stg Waiting", "prod Waiting"}, held: []int32{0, 0, 1},
			then: func(t *testing.T, h *renderHub, p hubplan.Plan) {
				assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{12}$`), p.Rendering.Revision)
				assert.Equal(t, opened, *p.Rendering)
				assert.Equal(t, []string{"dev-cluster"}, addontest.StartingNow(p.Steps[0].Result))
				assert.Equal(t, hubplan.Release{Revision: opened.Revision, Configs: revision("v2"), ReleasedAt: renderAt(0), Generation: 1,
					Works: worksAt(1, true).Content, DoneAt: doneAt(0)}, p.Steps[0].Releases[0].Release)
				assert.Equal(t, hubplan.ReasonRollingOut, reasonOf(p, hubplan.ConditionProgressing))
				prod := p.Status.Placements[0].Groups[2]
				require.Len(t, prod.Holds, 1)
				hold := prod.Holds[0]
				assert.True(t, hold.Since.Equal(&metav1.Time{Time: addontest.PlanNow}), "since %v", hold.Since)
				hold.Since = metav1.Time{}
				assert.Equal(t, v1alpha1.ClusterHold{Cluster: "prod-cluster", Works: []string{deployWork}, Reason: hubplan.HoldRenderingHeld,
					Message: "held for RenderingHeld"}, hold)
				assert.True(t, prod.HeldSince.Equal(&metav1.Time{Time: addontest.PlanNow}), "held since %v", prod.HeldSince)
			},
		},
		{
			name: "stg and prod held: dev, the first group, is still released first",
			setup: func(h *renderHub) {
				h.hold("stg-cluster")
				h.hold("prod-cluster")
			},
			kind: hubplan.KindRendering, rendering: opened.Revision, opens: true,
			releases: []string{"dev-cluster released 12:00:00 done 12:00:00"},
			phases:   []string{"dev Active", "stg Waiting", "prod Waiting"}, held: []int32{0, 1, 1},
		},
		{
			name: "dev's works not ready: dev is not held, so it has nothing to take and is done at once",
			setup: func(h *renderHub) {
				h.hold("prod-cluster")
				h.works("dev-cluster", 3, false)
			},
			kind: hubplan.KindRendering, rendering: opened.Revision, opens: true,
			releases: []string{"dev-cluster released 12:00:00 done 12:00:00"},
			phases:   []string{"dev Active", "stg Waiting", "prod Waiting"}, held: []int32{0, 0, 1},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				assert.Equal(t, int64(3), p.Steps[0].Releases[0].Release.Generation)
				assert.Equal(t, worksAt(3, false).Content, p.Steps[0].Releases[0].Release.Works)
			},
		},
		{
			name: "a config change and a held rendering: one revision of both, dev handed the config and released",
			setup: func(h *renderHub) {
				h.hold("prod-cluster")
				h.hash = "v3"
			},
			kind: hubplan.KindConfigAndRendering, config: "v3", rendering: opened.Revision, opens: true,
			releases: []string{"dev-cluster released 12:00:00 done 12:00:00"},
			phases:   []string{"dev Active", "stg Waiting", "prod Waiting"}, held: []int32{0, 0, 1},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				assert.Equal(t, []string{"dev-cluster"}, givenNew(p, "v3"))
				ip := p.Steps[0].Progression
				require.Len(t, ip.Conditions, 1)
				assert.Equal(t, "selected clusters 3. configured addons 1/3 progressing..., 0 failed 0 timeout.", ip.Conditions[0].Message,
					"the install progression counts the config handovers")
			},
		},
		{
			name: "a cluster still applying its config: joined to the rendering, it waits for dev",
			setup: func(h *renderHub) {
				m := addontest.AppliedAddon("stg-cluster", "v1", addontest.PlanNow.Add(-time.Hour))
				m.Status.ConfigReferences[0].DesiredConfig.SpecHash = "v2"
				h.mcas["stg-cluster"] = m
				h.hold("prod-cluster")
			},
			kind: hubplan.KindConfigAndRendering, rendering: opened.Revision, opens: true,
			releases: []string{"dev-cluster released 12:00:00 done 12:00:00"},
			phases:   []string{"dev Active", "stg Waiting", "prod Waiting"}, held: []int32{0, 0, 1},
		},
		{
			name: "a hold for a config that moved on opens no revision",
			setup: func(h *renderHub) {
				h.holdFor("prod-cluster", "ConfigMovedOn")
			},
			kind: hubplan.KindConfig, phases: []string{"dev Complete", "stg Complete", "prod Complete"}, held: []int32{0, 0, 1},
		},
		{
			name: "a hold whose work changed since is over: no revision, nothing held",
			setup: func(h *renderHub) {
				h.hold("prod-cluster")
				h.works("prod-cluster", 2, true)
			},
			kind: hubplan.KindConfig, phases: []string{"dev Complete", "stg Complete", "prod Complete"}, held: []int32{0, 0, 0},
		},
		{
			name: "the manager reports the gate's refusal, the gate recorded none: an old report, nothing held",
			setup: func(h *renderHub) {
				h.refused("prod-cluster")
			},
			kind: hubplan.KindConfig, phases: []string{"dev Complete", "stg Complete", "prod Complete"}, held: []int32{0, 0, 0},
		},
		{
			name: "the manager reports the gate unavailable: counted held, no revision",
			setup: func(h *renderHub) {
				h.manifestApplied("prod-cluster", metav1.ConditionFalse, "ManifestWorkApplyFailed", unavailable)
			},
			kind: hubplan.KindConfig, phases: []string{"dev Complete", "stg Complete", "prod Complete"}, held: []int32{0, 0, 1},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				prod := p.Status.Placements[0].Groups[2]
				require.Len(t, prod.Holds, 1)
				assert.Equal(t, hubplan.ReasonGateUnavailable, prod.Holds[0].Reason)
				assert.Equal(t, unavailable, prod.Holds[0].Message)
				assert.Empty(t, prod.Holds[0].Works)
			},
		},
		{
			name: "a revision in flight goes on: dev soaked, stg is released; no second revision",
			setup: func(h *renderHub) {
				h.open(earlier)
				devDone(h)
				h.hold("prod-cluster")
			},
			kind: hubplan.KindRendering, rendering: earlier.Revision,
			releases: []string{"stg-cluster released 12:00:00 done 12:00:00"},
			phases:   []string{"dev Complete", "stg Active", "prod Waiting"}, held: []int32{0, 0, 1},
		},
		{
			name: "a further rendering held under the revision in flight, on dev, which took it: a new revision, from dev",
			setup: func(h *renderHub) {
				h.open(earlier)
				devDone(h)
				h.hold("dev-cluster")
			},
			kind: hubplan.KindRendering, rendering: opened.Revision, opens: true,
			releases: []string{"dev-cluster released 12:00:00 held sha256:gen1"},
			phases:   []string{"dev Active", "stg Waiting", "prod Waiting"}, held: []int32{1, 0, 0},
		},
		{
			name: "a config change while a revision is in flight: one revision of both, dev (done) is handed the config alone",
			setup: func(h *renderHub) {
				h.open(earlier)
				devDone(h)
				h.hold("prod-cluster")
				h.hash = "v3"
			},
			kind: hubplan.KindConfigAndRendering, config: "v3", rendering: earlier.Revision,
			phases: []string{"dev Active", "stg Waiting", "prod Waiting"}, held: []int32{0, 0, 1},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				assert.Equal(t, []string{"dev-cluster"}, givenNew(p, "v3"))
			},
		},
		{
			name: "a release of another revision is no release: dev is released again",
			setup: func(h *renderHub) {
				h.open(earlier)
				h.release("dev-cluster", hubplan.Release{Revision: "000000000000", ReleasedAt: renderAt(-2 * time.Hour),
					Generation: 1, DoneAt: doneAt(-2 * time.Hour)})
				h.hold("prod-cluster")
			},
			kind: hubplan.KindRendering, rendering: earlier.Revision,
			releases: []string{"dev-cluster released 12:00:00 done 12:00:00"},
			phases:   []string{"dev Active", "stg Waiting", "prod Waiting"}, held: []int32{0, 0, 1},
		},
		{
			name: "a rendering annotation that does not parse is none: a revision opens",
			setup: func(h *renderHub) {
				h.annotateCMA(`{"revision": 12`)
				h.annotateMCA("dev-cluster", `not json`)
				h.hold("prod-cluster")
			},
			kind: hubplan.KindRendering, rendering: opened.Revision, opens: true,
			releases: []string{"dev-cluster released 12:00:00 done 12:00:00"},
			phases:   []string{"dev Active", "stg Waiting", "prod Waiting"}, held: []int32{0, 0, 1},
		},
		{
			name: "the revision complete, prod held again: a new revision opens",
			setup: func(h *renderHub) {
				h.open(complete)
				allDone(h)
				h.hold("prod-cluster")
			},
			kind: hubplan.KindRendering, rendering: opened.Revision, opens: true,
			releases: []string{"dev-cluster released 12:00:00 done 12:00:00"},
			phases:   []string{"dev Active", "stg Waiting", "prod Waiting"}, held: []int32{0, 0, 1},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				assert.NotEqual(t, earlier.Revision, p.Rendering.Revision)
			},
		},
		{
			name: "every cluster done, the status not yet complete: not complete yet",
			setup: func(h *renderHub) {
				h.open(earlier)
				allDone(h)
			},
			kind: hubplan.KindRendering, rendering: earlier.Revision,
			phases: []string{"dev Complete", "stg Complete", "prod Complete"}, held: []int32{0, 0, 0},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				assert.Nil(t, p.Rendering)
			},
		},
		{
			name: "prod released and still held at its progress deadline: it times out",
			setup: func(h *renderHub) {
				h.open(earlier)
				for _, c := range []string{"dev-cluster", "stg-cluster"} {
					h.release(c, hubplan.Release{Revision: earlier.Revision, ReleasedAt: renderAt(-50 * time.Minute), Generation: 1,
						DoneAt: doneAt(-50 * time.Minute)})
				}
				h.hold("prod-cluster") // before its release, and never admitted since
				h.release("prod-cluster", hubplan.Release{Revision: earlier.Revision, ReleasedAt: renderAt(-16 * time.Minute), Generation: 1, Held: true})
			},
			kind: hubplan.KindRendering, rendering: earlier.Revision,
			phases: []string{"dev Complete", "stg Complete", "prod Breached"}, held: []int32{0, 0, 1},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				res := p.Steps[0].Result
				assert.Equal(t, []string{"prod-cluster"}, clusterNames(res.TimedOut))
				assert.Equal(t, addontest.PlanNow.Add(-time.Minute), res.TimedOut[0].RecheckTime.UTC(), "15m from the release")
				assert.True(t, res.MaxFailureBreach)
			},
		},
		{
			name: "released prod's works took new content and are ready: done, whatever its ManifestApplied says",
			setup: func(h *renderHub) {
				h.open(earlier)
				for _, c := range []string{"dev-cluster", "stg-cluster"} {
					h.release(c, hubplan.Release{Revision: earlier.Revision, ReleasedAt: renderAt(-50 * time.Minute), Generation: 1,
						Works: worksAt(1, true).Content, DoneAt: doneAt(-50 * time.Minute)})
				}
				h.release("prod-cluster", hubplan.Release{Revision: earlier.Revision, ReleasedAt: renderAt(-time.Minute), Generation: 1,
					Works: worksAt(1, true).Content, Held: true})
				h.works("prod-cluster", 2, true)
				h.refused("prod-cluster")
			},
			kind: hubplan.KindRendering, rendering: earlier.Revision,
			releases: []string{"prod-cluster released 11:59:00 held sha256:gen1 done 12:00:00"},
			phases:   []string{"dev Complete", "stg Complete", "prod Active"}, held: []int32{0, 0, 0},
		},
		{
			name:  "released prod's manager moved its other work and left the held one: the hold is over, prod done",
			setup: func(h *renderHub) { movedPastHold(h, renderAt(-2*time.Minute)) },
			kind:  hubplan.KindRendering, rendering: earlier.Revision,
			releases: []string{"prod-cluster released 11:59:00 held sha256:gen1 done 12:00:00"},
			phases:   []string{"dev Complete", "stg Complete", "prod Active"}, held: []int32{0, 0, 0},
		},
		{
			name:  "released prod's work held again after its release: not done",
			setup: func(h *renderHub) { movedPastHold(h, renderAt(-30*time.Second)) },
			kind:  hubplan.KindRendering, rendering: earlier.Revision,
			phases: []string{"dev Complete", "stg Complete", "prod Active"}, held: []int32{0, 0, 1},
		},
		{
			name:  "released prod's other work held after its release, then moved: the hold of the one left is over, prod done",
			setup: func(h *renderHub) { heldBoth(h, -2*time.Minute, -30*time.Second) },
			kind:  hubplan.KindRendering, rendering: earlier.Revision,
			releases: []string{"prod-cluster released 11:59:00 held sha256:gen1 done 12:00:00"},
			phases:   []string{"dev Complete", "stg Complete", "prod Active"}, held: []int32{0, 0, 0},
		},
		{
			name:  "released prod's left work itself held after its release: not done",
			setup: func(h *renderHub) { heldBoth(h, -30*time.Second, -2*time.Minute) },
			kind:  hubplan.KindRendering, rendering: earlier.Revision,
			phases: []string{"dev Complete", "stg Complete", "prod Active"}, held: []int32{0, 0, 1},
		},
		{
			name: "ManifestApplied False for another reason is no hold: no revision",
			setup: func(h *renderHub) {
				h.manifestApplied("prod-cluster", metav1.ConditionFalse, "ManifestWorkApplyFailed", `manifestworks.work.open-cluster-management.io "addon-cluster-proxy-deploy-0" is forbidden`)
			},
			kind: hubplan.KindConfig, phases: []string{"dev Complete", "stg Complete", "prod Complete"}, held: []int32{0, 0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newRenderHub(t, &v1alpha1.AddOnRolloutSpec{})
			if tt.setup != nil {
				tt.setup(h)
			}
			p := h.plan()
			require.Len(t, p.Steps, 1)
			s := p.Steps[0]
			require.NoError(t, s.Err)
			config := cmp.Or(tt.config, "v2")
			want := revision(config)
			if tt.rendering != "" {
				want = hubplan.CombinedRevision(want, tt.rendering)
			}
			assert.Equal(t, tt.kind, s.Kind)
			assert.Equal(t, want, s.Revision)
			assert.Equal(t, tt.opens, p.Rendering != nil && p.Rendering.CompletedAt == nil)
			assert.Equal(t, tt.releases, releaseLines(p))
			assert.Equal(t, tt.phases, phases(p))
			require.Len(t, p.Status.Placements, 1)
			assert.Equal(t, tt.kind, p.Status.Placements[0].Kind)
			assert.Equal(t, want, p.Status.Placements[0].Revision)
			assert.Equal(t, tt.held, heldCounts(p))
			if tt.then != nil {
				tt.then(t, h, p)
			}
		})
	}
}

// movedPastHold: prod, of two works, released at 11:59 while the gate
// held a write of deploy-0 (the record last written at lastHeld), and
// only deploy-1 moved since, as when addon-framework moves a manifest
// from one work to the other: deploy-0 keeps the content it was held
// at.
func movedPastHold(h *renderHub, lastHeld metav1.Time) {
	earlier := hubplan.NewRenderingRevision(addontest.PlanNow.Add(-time.Hour))
	h.open(earlier)
	for _, c := range []string{"dev-cluster", "stg-cluster"} {
		h.release(c, hubplan.Release{Revision: earlier.Revision, ReleasedAt: renderAt(-50 * time.Minute), Generation: 1,
			Works: worksAt(1, true).Content, DoneAt: doneAt(-50 * time.Minute)})
	}
	other := deployWork + "-other"
	at := func(gen int64) hubplan.Works {
		return hubplan.Works{Generation: 1 + gen, Ready: true, Content: map[string]string{deployWork: "sha256:gen1", other: fmt.Sprintf("sha256:other%d", gen)}}
	}
	h.release("prod-cluster", hubplan.Release{Revision: earlier.Revision, ReleasedAt: renderAt(-time.Minute), Generation: 2,
		Works: at(1).Content, Held: true})
	w := maps.Clone(h.ctl.Works)
	w["prod-cluster"] = at(2)
	h.ctl.Works = w
	v, err := hubplan.Hold{Since: renderAt(-10 * time.Minute), Last: lastHeld, Reason: hubplan.HoldRenderingHeld, Why: "held",
		Works: map[string]string{deployWork: "sha256:gen1"}}.Annotation()
	require.NoError(h.t, err)
	h.setMCAAnnotation("prod-cluster", hubplan.HoldAnnotation, v)
}

// heldBoth is movedPastHold with both works in the hold, each held at
// its own time (from now): deploy-0, left as it was held, at deployAt,
// the other work, which moved since, at otherAt.
func heldBoth(h *renderHub, deployAt, otherAt time.Duration) {
	movedPastHold(h, renderAt(max(deployAt, otherAt)))
	other := deployWork + "-other"
	v, err := hubplan.Hold{Since: renderAt(-10 * time.Minute), Last: renderAt(max(deployAt, otherAt)), Reason: hubplan.HoldRenderingHeld, Why: "held",
		Works:  map[string]string{deployWork: "sha256:gen1", other: "sha256:other1"},
		HeldAt: map[string]metav1.Time{deployWork: renderAt(deployAt), other: renderAt(otherAt)}}.Annotation()
	require.NoError(h.t, err)
	h.setMCAAnnotation("prod-cluster", hubplan.HoldAnnotation, v)
}

// TestPlanControlledRenderingWalk walks a rendering revision through the
// seed's groups, the controller writing the annotations each plan decides
// and the clock moving: dev and stg (not held) are done at their release,
// stg starts after dev's soak, prod (held) is Progressing from its release
// until its works took the new content, and soaks from then.
func TestPlanControlledRenderingWalk(t *testing.T) {
	t.Parallel()
	rev := hubplan.CombinedRevision(revision("v2"), hubplan.NewRenderingRevision(addontest.PlanNow).Revision)
	// until prod's soak ends, the plan is the same with or without an
	// AddOnRollout without controls
	inFlight := []renderCall{
		{name: "prod held: a revision opens, dev is released and done", before: func(h *renderHub) { h.hold("prod-cluster") },
			kind: hubplan.KindRendering, opens: true,
			releases: []string{"dev-cluster released 12:00:00 done 12:00:00"},
			phases:   []string{"dev Active", "stg Waiting", "prod Waiting"}},
		{name: "dev soaks from its release: stg waits", after: time.Minute,
			kind: hubplan.KindRendering, phases: []string{"dev Active", "stg Waiting", "prod Waiting"},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				assert.Equal(t, 4*time.Minute, p.RecheckAfter, "the end of dev's soak")
			}},
		{name: "dev soaked: stg is released and done", after: 5 * time.Minute,
			kind: hubplan.KindRendering, releases: []string{"stg-cluster released 12:06:00 done 12:06:00"},
			phases: []string{"dev Complete", "stg Active", "prod Waiting"}},
		{name: "stg soaked: prod is released, held", after: 6 * time.Minute,
			kind: hubplan.KindRendering, releases: []string{"prod-cluster released 12:12:00 held sha256:gen1"},
			phases: []string{"dev Complete", "stg Complete", "prod Active"}, released: []string{"prod-cluster"}},
		{name: "admitted, but its works not past the release: Progressing", after: time.Minute,
			before: func(h *renderHub) { h.admit("prod-cluster") },
			kind:   hubplan.KindRendering, phases: []string{"dev Complete", "stg Complete", "prod Active"}, released: []string{"prod-cluster"},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				prod := p.Steps[0].Result.ToRollout[0]
				assert.Equal(t, rollout.Progressing, prod.Status)
				assert.Equal(t, addontest.PlanNow.Add(12*time.Minute), prod.LastTransitionTime.UTC(), "Progressing from its release")
				assert.Equal(t, addontest.PlanNow.Add(27*time.Minute), prod.RecheckTime.UTC(), "its deadline")
				assert.Equal(t, 14*time.Minute, p.Steps[0].Result.RecheckAfter, "prod's progress deadline")
				if p.Status.RecheckTime != nil {
					assert.Equal(t, hubplan.ConfirmInterval, p.RecheckAfter, "the status is confirmed sooner than that")
				} else {
					assert.Equal(t, 14*time.Minute, p.RecheckAfter, "no status to confirm")
				}
			}},
		{name: "its works took the new content, not applied yet: Progressing", after: time.Minute,
			before: func(h *renderHub) { h.works("prod-cluster", 2, false) },
			kind:   hubplan.KindRendering, phases: []string{"dev Complete", "stg Complete", "prod Active"}, released: []string{"prod-cluster"}},
		{name: "its works ready past the release, ManifestApplied still the gate's refusal: prod is done now", after: time.Minute,
			before: func(h *renderHub) {
				h.works("prod-cluster", 2, true)
				h.refused("prod-cluster")
			},
			kind: hubplan.KindRendering, releases: []string{"prod-cluster released 12:12:00 held sha256:gen1 done 12:15:00"},
			phases: []string{"dev Complete", "stg Complete", "prod Active"},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				prod := p.Steps[0].Result.ToRollout[0]
				assert.Equal(t, rollout.Succeeded, prod.Status)
				assert.Equal(t, 5*time.Minute, p.Steps[0].Result.RecheckAfter, "its soak, from now")
			}},
		{name: "prod soaks from its DoneAt", after: time.Minute, before: func(h *renderHub) { h.admit("prod-cluster") },
			kind: hubplan.KindRendering, phases: []string{"dev Complete", "stg Complete", "prod Active"},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				assert.Equal(t, addontest.PlanNow.Add(20*time.Minute), p.Steps[0].Result.ToRollout[0].RecheckTime.UTC())
				assert.Equal(t, 4*time.Minute, p.RecheckAfter)
			}},
	}
	tests := []struct {
		name string
		spec *v1alpha1.AddOnRolloutSpec
		kind string // the step's kind once the revision is complete
		// whether the first and the second call after prod's soak complete
		// the revision: at once without an AddOnRollout; under one, once its
		// status says complete
		completes [2]bool
		then      func(t *testing.T, h *renderHub, p hubplan.Plan)
	}{
		{
			// no status to show it: the config rollout is the step again
			name: "without an AddOnRollout", kind: hubplan.KindConfig, completes: [2]bool{true, false},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				assert.Equal(t, revision("v2"), p.Steps[0].Revision)
				assert.Zero(t, p.Status)
			},
		},
		{
			// the status goes on showing it, complete
			name: "under an AddOnRollout", spec: &v1alpha1.AddOnRolloutSpec{}, kind: hubplan.KindRendering, completes: [2]bool{false, true},
			then: func(t *testing.T, h *renderHub, p hubplan.Plan) {
				ps := p.Status.Placements[0]
				assert.Equal(t, rev, ps.Revision)
				require.NotNil(t, ps.CompletionTime)
				assert.Equal(t, addontest.PlanNow.Add(20*time.Minute), ps.CompletionTime.Time, "complete at the end of prod's soak")
				assert.Equal(t, addontest.PlanNow, ps.RevisionStartTime.Time)
				assert.Equal(t, hubplan.ReasonCompleted, reasonOf(p, hubplan.ConditionProgressing))
				assert.Equal(t, []int32{0, 0, 0}, heldCounts(p))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			first := tt.kind
			if !tt.completes[0] {
				first = hubplan.KindRendering // still in flight: the rendering stays the step
			}
			complete := []renderCall{
				{name: "prod soaked: the revision's rollout is done, nothing opens", after: 4 * time.Minute, completes: tt.completes[0],
					kind: first, phases: []string{"dev Complete", "stg Complete", "prod Complete"}},
				{name: "an hour on: nothing opens", after: time.Hour, completes: tt.completes[1],
					kind: tt.kind, phases: []string{"dev Complete", "stg Complete", "prod Complete"}, then: tt.then},
				{name: "prod held again: a new revision opens", after: time.Minute, before: func(h *renderHub) { h.hold("prod-cluster") },
					kind: hubplan.KindRendering, opens: true, releases: []string{"dev-cluster released 13:21:00 done 13:21:00"},
					phases: []string{"dev Active", "stg Waiting", "prod Waiting"},
					then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
						assert.Equal(t, hubplan.NewRenderingRevision(addontest.PlanNow.Add(81*time.Minute)), *p.Rendering)
						assert.NotEqual(t, rev, p.Steps[0].Revision)
					}},
			}
			h := newRenderHub(t, tt.spec)
			h.run(t, append(append([]renderCall(nil), inFlight...), complete...))
		})
	}
}

// TestPlanControlledRenderingApprovals: spec.approvalRequired holds prod
// in a rendering revision until a RolloutApproval names that revision;
// one of the config revision approves nothing.
func TestPlanControlledRenderingApprovals(t *testing.T) {
	t.Parallel()
	rev := hubplan.CombinedRevision(revision("v2"), hubplan.NewRenderingRevision(addontest.PlanNow).Revision)
	h := newRenderHub(t, &v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}})
	waiting := func(t *testing.T, _ *renderHub, p hubplan.Plan) {
		assert.Equal(t, []v1alpha1.PendingApproval{{Placement: v1alpha1.PlacementRef{Namespace: addontest.SeedPlacement().Namespace, Name: addontest.SeedPlacement().Name},
			Group: "prod", Revision: rev, Configs: p.Status.Placements[0].Configs}}, p.Status.PendingApprovals)
		assert.NotEmpty(t, p.Status.Placements[0].Configs, "a rendering revision lists its unchanged configs")
		assert.Equal(t, hubplan.ReasonWaitingForApproval, reasonOf(p, hubplan.ConditionProgressing))
	}
	h.run(t, []renderCall{
		{name: "prod held: dev needs no approval", before: func(h *renderHub) { h.hold("prod-cluster") },
			kind: hubplan.KindRendering, opens: true, releases: []string{"dev-cluster released 12:00:00 done 12:00:00"},
			phases: []string{"dev Active", "stg Waiting", "prod Waiting"},
			groups: []string{"dev Active", "stg Waiting Group", "prod Waiting Group"}},
		{after: soaked, kind: hubplan.KindRendering, releases: []string{"stg-cluster released 12:06:00 done 12:06:00"},
			phases: []string{"dev Complete", "stg Active", "prod Waiting"}},
		{name: "prod waits for an approval of the rendering revision", after: soaked,
			kind: hubplan.KindRendering, phases: []string{"dev Complete", "stg Complete", "prod Blocked"},
			groups: []string{"dev Complete", "stg Complete", "prod Blocked Approval"}, then: waiting},
		{name: "an approval of the config revision does not do", after: time.Minute,
			before: func(h *renderHub) { h.approve("prod-config", "prod", revision("v2")) },
			kind:   hubplan.KindRendering, phases: []string{"dev Complete", "stg Complete", "prod Blocked"},
			groups: []string{"dev Complete", "stg Complete", "prod Blocked Approval"},
			then: func(t *testing.T, h *renderHub, p hubplan.Plan) {
				waiting(t, h, p)
				assert.Equal(t, hubplan.ReasonRevisionMismatch, h.approvedReason("prod-config"))
			}},
		{name: "an approval of the rendering revision releases prod", after: time.Minute,
			before: func(h *renderHub) { h.approve("prod-rendering", "prod", rev) },
			kind:   hubplan.KindRendering, releases: []string{"prod-cluster released 12:14:00 held sha256:gen1"},
			phases: []string{"dev Complete", "stg Complete", "prod Active"}, released: []string{"prod-cluster"},
			groups: []string{"dev Complete", "stg Complete", "prod Active"},
			then: func(t *testing.T, h *renderHub, p hubplan.Plan) {
				assert.Empty(t, p.Status.PendingApprovals)
				assert.Equal(t, hubplan.ReasonUsed, h.approvedReason("prod-rendering"))
				assert.Equal(t, hubplan.ReasonRevisionMismatch, h.approvedReason("prod-config"))
			}},
		{name: "prod took it", after: time.Minute,
			before: func(h *renderHub) {
				h.admit("prod-cluster")
				h.works("prod-cluster", 2, true)
			},
			kind: hubplan.KindRendering, releases: []string{"prod-cluster released 12:14:00 held sha256:gen1 done 12:15:00"},
			phases: []string{"dev Complete", "stg Complete", "prod Active"}},
		{name: "complete: the approvals keep their verdicts", after: soaked,
			kind: hubplan.KindRendering, phases: []string{"dev Complete", "stg Complete", "prod Complete"},
			groups: []string{"dev Complete", "stg Complete", "prod Complete"},
			then: func(t *testing.T, h *renderHub, p hubplan.Plan) {
				assert.Equal(t, hubplan.ReasonCompleted, reasonOf(p, hubplan.ConditionProgressing))
				assert.Equal(t, hubplan.ReasonUsed, h.approvedReason("prod-rendering"))
				assert.Equal(t, hubplan.ReasonRevisionMismatch, h.approvedReason("prod-config"))
			}},
	})
}

// TestPlanControlledRenderingVerifications: a rendering revision's groups
// are verified under its name, the last one too, before the revision
// counts as complete; the config revision is not verified again after it.
func TestPlanControlledRenderingVerifications(t *testing.T) {
	t.Parallel()
	rev := hubplan.CombinedRevision(revision("v2"), hubplan.NewRenderingRevision(addontest.PlanNow).Revision)
	h := newRenderHub(t, &v1alpha1.AddOnRolloutSpec{Verifications: []v1alpha1.Verification{
		{Name: "slo", Groups: []string{"stg", "prod"}, Webhook: &v1alpha1.WebhookCheck{URL: "http://verifier.example/verify"}}}})
	h.run(t, []renderCall{
		{name: "prod held: dev released", before: func(h *renderHub) { h.hold("prod-cluster") },
			kind: hubplan.KindRendering, opens: true, releases: []string{"dev-cluster released 12:00:00 done 12:00:00"},
			phases: []string{"dev Active", "stg Waiting", "prod Waiting"}},
		{after: soaked, kind: hubplan.KindRendering, releases: []string{"stg-cluster released 12:06:00 done 12:06:00"},
			phases: []string{"dev Complete", "stg Active", "prod Waiting"}},
		{name: "stg soaked: its check is due, prod waits for it", after: soaked,
			kind: hubplan.KindRendering, phases: []string{"dev Complete", "stg Complete", "prod Blocked"}, due: []string{"stg/slo"},
			groups: []string{"dev Complete", "stg Blocked Verification", "prod Waiting Verification"}},
		{name: "stg verified: prod is released", after: time.Minute,
			kind: hubplan.KindRendering, releases: []string{"prod-cluster released 12:13:00 held sha256:gen1"},
			phases: []string{"dev Complete", "stg Complete", "prod Active"}, released: []string{"prod-cluster"}},
		{name: "prod took it", after: time.Minute,
			before: func(h *renderHub) {
				h.admit("prod-cluster")
				h.works("prod-cluster", 2, true)
			},
			kind: hubplan.KindRendering, releases: []string{"prod-cluster released 12:13:00 held sha256:gen1 done 12:14:00"},
			phases: []string{"dev Complete", "stg Complete", "prod Active"}},
		{name: "prod soaked: its check of the rendering revision is due", after: soaked,
			kind: hubplan.KindRendering, phases: []string{"dev Complete", "stg Complete", "prod Complete"}, due: []string{"prod/slo"},
			groups: []string{"dev Complete", "stg Complete", "prod Blocked Verification"},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				assert.Equal(t, rev, p.Steps[0].Revision)
				assert.Equal(t, hubplan.ReasonWaitingForVerification, reasonOf(p, hubplan.ConditionProgressing))
				assert.Nil(t, p.Status.Placements[0].CompletionTime)
			}},
		{name: "prod verified: the revision is complete and verified", after: time.Minute,
			kind: hubplan.KindRendering, phases: []string{"dev Complete", "stg Complete", "prod Complete"},
			groups: []string{"dev Complete", "stg Complete", "prod Complete"},
			then: func(t *testing.T, _ *renderHub, p hubplan.Plan) {
				ps := p.Status.Placements[0]
				assert.Equal(t, rev, ps.Revision)
				require.NotNil(t, ps.CompletionTime)
				assert.Equal(t, addontest.PlanNow.Add(21*time.Minute), ps.CompletionTime.Time)
				assert.Equal(t, hubplan.ReasonCompleted, reasonOf(p, hubplan.ConditionProgressing))
			}},
		{name: "an hour on: the revision completes, nothing is due", after: time.Hour, completes: true,
			kind: hubplan.KindRendering, phases: []string{"dev Complete", "stg Complete", "prod Complete"},
			then: func(t *testing.T, h *renderHub, p hubplan.Plan) {
				assert.Empty(t, p.Checks)
			}},
		{name: "and on: nothing changes", after: time.Hour,
			kind: hubplan.KindRendering, phases: []string{"dev Complete", "stg Complete", "prod Complete"},
			then: func(t *testing.T, h *renderHub, p hubplan.Plan) {
				assert.Equal(t, h.ctl.Rollout.Status, p.Status, "the status read is the status written")
			}},
	})
}

// TestPlanControlledRenderingThenConfig: under an AddOnRollout, a complete
// rendering revision stays the placement's until a config change: the
// config rolls out as a Config revision, and stays so once complete.
func TestPlanControlledRenderingThenConfig(t *testing.T) {
	t.Parallel()
	rev := hubplan.CombinedRevision(revision("v2"), hubplan.NewRenderingRevision(addontest.PlanNow).Revision)
	h := newRenderHub(t, &v1alpha1.AddOnRolloutSpec{})
	h.hold("prod-cluster")
	h.step(0)
	h.step(soaked)
	h.step(soaked)
	h.admit("prod-cluster")
	h.works("prod-cluster", 2, true)
	h.step(time.Minute)
	p := h.step(soaked)
	require.Equal(t, hubplan.KindRendering, p.Steps[0].Kind)
	require.Equal(t, rev, p.Steps[0].Revision)
	require.Equal(t, hubplan.ReasonCompleted, reasonOf(p, hubplan.ConditionProgressing))

	h.hash = "v3"
	for i, d := range []time.Duration{time.Minute, soaked, soaked, soaked, time.Hour} {
		p := h.step(d)
		h.finish(startedBy(p)...)
		s, ps := p.Steps[0], p.Status.Placements[0]
		assert.Equal(t, hubplan.KindConfig, s.Kind, "call %d", i)
		assert.Equal(t, revision("v3"), s.Revision, "call %d", i)
		assert.Equal(t, hubplan.KindConfig, ps.Kind, "call %d", i)
		assert.Equal(t, revision("v3"), ps.Revision, "call %d", i)
		if i == 0 {
			require.NotNil(t, p.Rendering, "the rendering revision completes")
			assert.NotNil(t, p.Rendering.CompletedAt)
		} else {
			assert.Nil(t, p.Rendering, "call %d", i)
		}
		assert.Empty(t, releaseLines(p), "call %d", i)
	}
	for c, m := range h.mcas {
		assert.Equal(t, "v3", m.Status.ConfigReferences[0].LastAppliedConfig.SpecHash, c)
	}
	assert.Equal(t, hubplan.ReasonCompleted, reasonOf(h.plan(), hubplan.ConditionProgressing))
}

// TestPlanControlledRenderingRestart: a controller that plans again with
// the same inputs (it restarted, or its writes did not land) gets the same
// plan, the inputs left as they were; once the plan's annotations are
// written, planning again at the same instant opens no second revision
// and writes no release again.
func TestPlanControlledRenderingRestart(t *testing.T) {
	t.Parallel()
	// stg's approval names the rendering revision: it is used on the way
	controlled := &v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"stg"}}
	tests := []struct {
		name  string
		spec  *v1alpha1.AddOnRolloutSpec
		drive func(h *renderHub) // to the call planned twice
	}{
		{name: "a revision opens", spec: controlled, drive: func(h *renderHub) { h.hold("prod-cluster") }},
		{name: "a revision opens, without an AddOnRollout", drive: func(h *renderHub) { h.hold("prod-cluster") }},
		{name: "prod is released", spec: controlled, drive: func(h *renderHub) {
			h.hold("prod-cluster")
			h.step(0)
			h.step(soaked)
			h.clock.Step(soaked)
		}},
		{name: "prod is done", spec: controlled, drive: func(h *renderHub) {
			h.hold("prod-cluster")
			h.step(0)
			h.step(soaked)
			h.step(soaked)
			h.admit("prod-cluster")
			h.works("prod-cluster", 2, true)
			h.clock.Step(time.Minute)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newRenderHub(t, tt.spec)
			h.approve("stg", "stg", hubplan.CombinedRevision(revision("v2"), hubplan.NewRenderingRevision(addontest.PlanNow).Revision))
			tt.drive(h)

			cma, in, mcas, specHash := h.inputs()
			ctl := h.ctl
			cmaBefore, inBefore := cma.DeepCopy(), []addon.PlacementInput{{Placement: in[0].Placement.DeepCopy(), Groups: addontest.SeedGroups()}}
			var mcasBefore []*addonv1beta1.ManagedClusterAddOn
			for _, m := range mcas {
				mcasBefore = append(mcasBefore, m.DeepCopy())
			}
			worksBefore := maps.Clone(ctl.Works)
			var rolloutBefore *v1alpha1.AddOnRollout
			if ctl.Rollout != nil {
				rolloutBefore = ctl.Rollout.DeepCopy()
			}

			first, err := hubplan.Planner{Rollout: rollout.Planner{Clock: h.clock}}.Plan(hubplan.Inputs{ClusterManagementAddOn: cma, Placements: in, Addons: mcas, Controls: ctl, SpecHash: specHash})
			require.NoError(t, err)
			second, err := hubplan.Planner{Rollout: rollout.Planner{Clock: h.clock}}.Plan(hubplan.Inputs{ClusterManagementAddOn: cma, Placements: in, Addons: mcas, Controls: ctl, SpecHash: specHash})
			require.NoError(t, err)
			assert.Equal(t, first, second, "the same inputs, the same plan")
			require.NotEmpty(t, releaseLines(first), "the call writes something")

			assert.Equal(t, cmaBefore, cma)
			assert.Equal(t, mcasBefore, mcas)
			assert.Equal(t, inBefore, in)
			assert.Equal(t, worksBefore, ctl.Works)
			assert.Equal(t, rolloutBefore, ctl.Rollout)

			h.apply(first)
			h.write(first)
			again := h.plan()
			assert.Nil(t, again.Rendering, "no second revision")
			assert.Empty(t, releaseLines(again), "no release again")
			assert.Equal(t, first.Steps[0].Kind, again.Steps[0].Kind)
			assert.Equal(t, first.Steps[0].Revision, again.Steps[0].Revision)
			assert.Equal(t, phases(first), phases(again))
		})
	}
}

// TestPlanControlledWithoutWorks: with no Works, Planner.Plan knows
// configs only: no kind, no revision opened, no release, whatever the
// gate holds; without an AddOnRollout it is PlanAddon.
func TestPlanControlledWithoutWorks(t *testing.T) {
	t.Parallel()
	withAndWithoutRollout(t, func(t *testing.T, spec *v1alpha1.AddOnRolloutSpec) {
		h := newControlHub(t, spec) // every cluster on "v1", the config "v2"
		hold, err := hubplan.Hold{Since: renderAt(0), Reason: hubplan.HoldRenderingHeld, Why: "held",
			Works: map[string]string{deployWork: "sha256:gen1"}}.Annotation()
		require.NoError(t, err)
		m := h.mcas["prod-cluster"].DeepCopy()
		m.Annotations = withAnnotation(m.Annotations, hubplan.HoldAnnotation, hold)
		h.mcas["prod-cluster"] = m
		for i, d := range []time.Duration{0, time.Minute, soaked, soaked, soaked, time.Hour} {
			h.clock.Step(d)
			cma, in, mcas, specHash := h.inputs()
			steps := configSteps(addon.PlanAddon(rollout.Planner{Clock: h.clock}, cma, in, mcas, specHash))
			p := h.plan()
			if spec == nil {
				assert.Equal(t, hubplan.Plan{Steps: steps, RecheckAfter: p.RecheckAfter}, p, "call %d", i)
			}
			assert.Equal(t, steps, p.Steps, "call %d", i)
			assert.Nil(t, p.Rendering, "call %d", i)
			for _, s := range p.Steps {
				assert.Empty(t, s.Kind, "call %d", i)
				assert.Nil(t, s.Releases, "call %d", i)
				assert.Equal(t, revision("v2"), s.Revision, "call %d", i)
			}
			if spec != nil {
				ps := p.Status.Placements[0]
				assert.Empty(t, ps.Kind, "call %d", i)
				assert.Equal(t, revision("v2"), ps.Revision, "call %d", i)
				// what the gate holds is seen whatever the Works
				assert.Equal(t, []int32{0, 0, 1}, heldCounts(p), "call %d", i)
			}
			h.apply(p)
			h.finish(startedBy(p)...)
		}
		cma, _, _, _ := h.inputs()
		assert.NotContains(t, cma.Annotations, hubplan.RenderingAnnotation)
	})
}

// TestPlanControlledRenderingManual: the add-ons of a Manual install
// strategy roll a rendering out all at once, as they do configs.
func TestPlanControlledRenderingManual(t *testing.T) {
	t.Parallel()
	cma := addontest.SeedCMA(t)
	cma.Spec.InstallStrategy = addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyManual}
	h := newRenderHub(t, nil)
	h.hold("prod-cluster")
	_, _, mcas, specHash := h.inputs()
	p, err := hubplan.Planner{Rollout: rollout.Planner{Clock: h.clock}}.Plan(hubplan.Inputs{ClusterManagementAddOn: cma, Addons: mcas, Controls: h.ctl, SpecHash: specHash})
	require.NoError(t, err)
	require.Len(t, p.Steps, 1)
	assert.Equal(t, -1, p.Steps[0].Index)
	assert.Equal(t, hubplan.KindRendering, p.Steps[0].Kind)
	require.NotNil(t, p.Rendering)
	assert.Equal(t, []string{
		"dev-cluster released 12:00:00 done 12:00:00",
		"prod-cluster released 12:00:00 held sha256:gen1",
		"stg-cluster released 12:00:00 done 12:00:00",
	}, releaseLines(p))
}

// work is a work of add-on name in namespace ns at generation gen, Applied
// and Available at observed (0: no conditions).
func work(ns, name, addOn string, gen, observed int64) *workv1.ManifestWork {
	w := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: gen,
		Labels: map[string]string{addonv1beta1.AddonLabelKey: addOn}}}
	if observed > 0 {
		w.Status.Conditions = []metav1.Condition{
			{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, ObservedGeneration: observed},
			{Type: workv1.WorkAvailable, Status: metav1.ConditionTrue, ObservedGeneration: observed},
		}
	}
	return w
}

// hosted is w, of a hosted add-on of cluster.
func hosted(w *workv1.ManifestWork, cluster string) *workv1.ManifestWork {
	w.Labels[addonv1beta1.AddonNamespaceLabelKey] = cluster
	return w
}

// TestWorksOf: the works of an add-on, summed up by cluster.
func TestWorksOf(t *testing.T) {
	t.Parallel()
	unavailable := work("dev-cluster", "addon-cluster-proxy-deploy-1", "cluster-proxy", 2, 2)
	unavailable.Status.Conditions[1].Status = metav1.ConditionFalse
	tests := []struct {
		name  string
		works []*workv1.ManifestWork
		want  map[string]hubplan.Works
	}{
		{name: "none", want: map[string]hubplan.Works{}},
		{name: "one ready work",
			works: []*workv1.ManifestWork{work("dev-cluster", "addon-cluster-proxy-deploy-0", "cluster-proxy", 3, 3)},
			want:  map[string]hubplan.Works{"dev-cluster": {Generation: 3, Ready: true}}},
		{name: "several works: generations summed, ready when every one is",
			works: []*workv1.ManifestWork{
				work("dev-cluster", "addon-cluster-proxy-deploy-0", "cluster-proxy", 3, 3),
				work("dev-cluster", "addon-cluster-proxy-deploy-1", "cluster-proxy", 2, 2),
				work("stg-cluster", "addon-cluster-proxy-deploy-0", "cluster-proxy", 4, 4),
				work("stg-cluster", "addon-cluster-proxy-deploy-1", "cluster-proxy", 5, 4),
			},
			want: map[string]hubplan.Works{"dev-cluster": {Generation: 5, Ready: true}, "stg-cluster": {Generation: 9}}},
		{name: "a work not ready first, then a ready one: not ready",
			works: []*workv1.ManifestWork{
				work("dev-cluster", "addon-cluster-proxy-deploy-0", "cluster-proxy", 2, 1),
				work("dev-cluster", "addon-cluster-proxy-deploy-1", "cluster-proxy", 2, 2),
			},
			want: map[string]hubplan.Works{"dev-cluster": {Generation: 4}}},
		{name: "a work without conditions, or not Available, is not ready",
			works: []*workv1.ManifestWork{
				work("stg-cluster", "addon-cluster-proxy-deploy-0", "cluster-proxy", 1, 0),
				work("dev-cluster", "addon-cluster-proxy-deploy-0", "cluster-proxy", 1, 1),
				unavailable,
			},
			want: map[string]hubplan.Works{"dev-cluster": {Generation: 3}, "stg-cluster": {Generation: 1}}},
		{name: "a hosted add-on's works count for the cluster of the add-on",
			works: []*workv1.ManifestWork{
				hosted(work("hosting-cluster", "addon-cluster-proxy-deploy-hosting-prod-cluster-0", "cluster-proxy", 2, 2), "prod-cluster"),
				work("prod-cluster", "addon-cluster-proxy-deploy-0", "cluster-proxy", 1, 1),
				work("hosting-cluster", "addon-cluster-proxy-deploy-0", "cluster-proxy", 7, 7),
			},
			want: map[string]hubplan.Works{"prod-cluster": {Generation: 3, Ready: true}, "hosting-cluster": {Generation: 7, Ready: true}}},
		{name: "pre-delete hooks are left out",
			works: []*workv1.ManifestWork{
				work("dev-cluster", "addon-cluster-proxy-deploy-0", "cluster-proxy", 1, 1),
				work("dev-cluster", "addon-cluster-proxy-pre-delete", "cluster-proxy", 5, 0),
				hosted(work("hosting-cluster", "addon-cluster-proxy-pre-delete-hosting-prod-cluster", "cluster-proxy", 5, 0), "prod-cluster"),
			},
			want: map[string]hubplan.Works{"dev-cluster": {Generation: 1, Ready: true}}},
		{name: "other add-ons' works, unlabelled works and nil are ignored",
			works: []*workv1.ManifestWork{
				nil,
				work("dev-cluster", "addon-other-deploy-0", "other", 9, 1),
				{ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "unlabelled", Generation: 9}},
				work("dev-cluster", "addon-cluster-proxy-deploy-0", "cluster-proxy", 1, 1),
			},
			want: map[string]hubplan.Works{"dev-cluster": {Generation: 1, Ready: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var before []*workv1.ManifestWork
			for _, w := range tt.works {
				before = append(before, w.DeepCopy())
			}
			got := hubplan.WorksOf("cluster-proxy", tt.works)
			require.NotNil(t, got)
			wantContent := map[string]map[string]string{}
			for _, w := range tt.works {
				if w == nil || w.Labels[addonv1beta1.AddonLabelKey] != "cluster-proxy" || strings.Contains(w.Name, "pre-delete") {
					continue
				}
				cluster := cmp.Or(w.Labels[addonv1beta1.AddonNamespaceLabelKey], w.Namespace)
				if wantContent[cluster] == nil {
					wantContent[cluster] = map[string]string{}
				}
				wantContent[cluster][w.Name] = hubplan.WorkContent(w)
			}
			gotContent := map[string]map[string]string{}
			for c, w := range got {
				gotContent[c] = w.Content
				w.Content = nil
				got[c] = w
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, wantContent, gotContent, "each work's content, by name")
			assert.Equal(t, before, tt.works, "works not modified")
		})
	}
}

// TestRenderingAnnotations: the annotations a rendering rollout keeps its
// state in, read back; one that does not parse is none.
func TestRenderingAnnotations(t *testing.T) {
	t.Parallel()
	rev := hubplan.NewRenderingRevision(addontest.PlanNow.Add(1500 * time.Millisecond))
	revJSON, err := rev.Annotation()
	require.NoError(t, err)
	inFlight := hubplan.Release{Revision: rev.Revision, ReleasedAt: renderAt(time.Minute), Generation: 4, Held: true}
	done := inFlight
	done.DoneAt = doneAt(2 * time.Minute)
	other := inFlight
	other.Revision = "000000000000"
	annotation := func(r hubplan.Release) string {
		v, err := r.Annotation()
		require.NoError(t, err)
		return v
	}
	cmaWith := func(v string) *addonv1beta1.ClusterManagementAddOn {
		cma := &addonv1beta1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy"}}
		if v != "" {
			cma.Annotations = map[string]string{hubplan.RenderingAnnotation: v}
		}
		return cma
	}
	mcaWith := func(v string, conds ...metav1.Condition) *addonv1beta1.ManagedClusterAddOn {
		m := addontest.EmptyAddon("prod-cluster")
		if v != "" {
			m.Annotations = map[string]string{hubplan.ReleaseAnnotation: v}
		}
		m.Status.Conditions = conds
		return m
	}
	applied := func(status metav1.ConditionStatus, message string) metav1.Condition {
		return metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnManifestApplied, Status: status, Reason: "R", Message: message}
	}

	t.Run("NewRenderingRevision", func(t *testing.T) {
		t.Parallel()
		assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{12}$`), rev.Revision)
		assert.Equal(t, addontest.PlanNow.Add(time.Second), rev.Since.Time, "truncated to the second, in UTC")
		assert.Equal(t, rev, hubplan.NewRenderingRevision(addontest.PlanNow.Add(time.Second).In(time.FixedZone("CET", 3600))), "one second, one revision")
		assert.NotEqual(t, rev.Revision, hubplan.NewRenderingRevision(addontest.PlanNow.Add(2*time.Second)).Revision)
	})
	t.Run("ReadRenderingRevision", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name string
			cma  *addonv1beta1.ClusterManagementAddOn
			want hubplan.RenderingRevision
			ok   bool
		}{
			{name: "written by Annotation", cma: cmaWith(revJSON), want: rev, ok: true},
			{name: "nil", cma: nil},
			{name: "no annotation", cma: cmaWith("")},
			{name: "not JSON", cma: cmaWith("f32264736876")},
			{name: "truncated JSON", cma: cmaWith(`{"revision":"f32264736876"`)},
			{name: "a field of the wrong type", cma: cmaWith(`{"revision":12}`)},
			{name: "no revision", cma: cmaWith(`{"since":"2026-11-30T12:00:00Z"}`)},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				got, ok := hubplan.ReadRenderingRevision(tt.cma)
				assert.Equal(t, tt.ok, ok)
				got.Since = metav1.NewTime(got.Since.UTC()) // read back in time.Local
				assert.Equal(t, tt.want, got)
			})
		}
	})
	t.Run("ReadRelease", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name string
			mca  *addonv1beta1.ManagedClusterAddOn
			want hubplan.Release
			ok   bool
		}{
			{name: "in flight", mca: mcaWith(annotation(inFlight)), want: inFlight, ok: true},
			{name: "done", mca: mcaWith(annotation(done)), want: done, ok: true},
			{name: "nil", mca: nil},
			{name: "no annotation", mca: mcaWith("")},
			{name: "not JSON", mca: mcaWith("released")},
			{name: "truncated JSON", mca: mcaWith(annotation(done)[:20])},
			{name: "a time that does not parse", mca: mcaWith(`{"revision":"f32264736876","releasedAt":"yesterday"}`)},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				got, ok := hubplan.ReadRelease(tt.mca)
				assert.Equal(t, tt.ok, ok)
				assert.Equal(t, tt.want, inUTC(got))
			})
		}
	})
	t.Run("Released", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name string
			cma  *addonv1beta1.ClusterManagementAddOn
			mca  *addonv1beta1.ManagedClusterAddOn
			want bool
		}{
			{name: "released, not done", cma: cmaWith(revJSON), mca: mcaWith(annotation(inFlight)), want: true},
			{name: "done", cma: cmaWith(revJSON), mca: mcaWith(annotation(done))},
			{name: "a release of another revision", cma: cmaWith(revJSON), mca: mcaWith(annotation(other))},
			{name: "no release", cma: cmaWith(revJSON), mca: mcaWith("")},
			{name: "a release that does not parse", cma: cmaWith(revJSON), mca: mcaWith("{")},
			{name: "no revision", cma: cmaWith(""), mca: mcaWith(annotation(inFlight))},
			{name: "a revision that does not parse", cma: cmaWith("{"), mca: mcaWith(annotation(inFlight))},
			{name: "nil ClusterManagementAddOn", cma: nil, mca: mcaWith(annotation(inFlight))},
			{name: "nil ManagedClusterAddOn", cma: cmaWith(revJSON), mca: nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				assert.Equal(t, tt.want, hubplan.Released(tt.cma, tt.mca))
			})
		}
	})
	t.Run("Held", func(t *testing.T) {
		t.Parallel()
		held := func(works map[string]string) string {
			v, err := hubplan.Hold{Since: renderAt(0), Reason: hubplan.HoldRenderingHeld, Works: works}.Annotation()
			require.NoError(t, err)
			return v
		}
		withHold := func(v string, conds ...metav1.Condition) *addonv1beta1.ManagedClusterAddOn {
			m := mcaWith("", conds...)
			m.Annotations = map[string]string{hubplan.HoldAnnotation: v}
			return m
		}
		now := map[string]string{deployWork: "sha256:gen1"}
		tests := []struct {
			name    string
			mca     *addonv1beta1.ManagedClusterAddOn
			content map[string]string // nil: not known
			want    bool
		}{
			{name: "the gate's record of a work as it is", mca: withHold(held(map[string]string{deployWork: "sha256:gen1"})), content: now, want: true},
			{name: "the gate's record, the works not known", mca: withHold(held(map[string]string{deployWork: "sha256:gen0"})), want: true},
			{name: "the gate's record of a work that changed since", mca: withHold(held(map[string]string{deployWork: "sha256:gen0"})), content: now},
			{name: "the gate's record of a work held from being created, still missing", mca: withHold(held(map[string]string{"addon-cluster-proxy-deploy-1": ""})),
				content: now, want: true},
			{name: "the gate's record of a work held from being created, created since", mca: withHold(held(map[string]string{deployWork: ""})), content: now},
			{name: "a record with no work", mca: withHold(held(map[string]string{})), content: now},
			{name: "a record that does not parse", mca: withHold("{"), content: now},
			{name: "ManifestApplied False with the gate's refusal, which the gate records itself", mca: mcaWith("", applied(metav1.ConditionFalse, refusal))},
			{name: "the gate could not be asked", mca: mcaWith("", applied(metav1.ConditionFalse,
				`Internal error occurred: failed calling webhook "`+hubplan.WorkGateWebhook+`": connection refused`)), want: true},
			{name: "HostingManifestApplied: the gate could not be asked", mca: mcaWith("", metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnHostingManifestApplied,
				Status: metav1.ConditionFalse, Message: `failed calling webhook "` + hubplan.WorkGateWebhook + `"`}), want: true},
			{name: "ManifestApplied False for another reason", mca: mcaWith("", applied(metav1.ConditionFalse, "the work is forbidden"))},
			{name: "ManifestApplied True", mca: mcaWith("", applied(metav1.ConditionTrue, "applied"))},
			{name: "ManifestApplied Unknown with the refusal", mca: mcaWith("", applied(metav1.ConditionUnknown, refusal))},
			{name: "the refusal in another condition", mca: mcaWith("", metav1.Condition{Type: "Available", Status: metav1.ConditionFalse, Message: refusal})},
			{name: "no conditions", mca: mcaWith("")},
			{name: "nil", mca: nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				assert.Equal(t, tt.want, hubplan.Held(tt.mca, tt.content))
			})
		}
	})
	t.Run("ReachOf", func(t *testing.T) {
		t.Parallel()
		completed := rev
		completed.CompletedAt = doneAt(time.Hour)
		completedJSON, err := completed.Annotation()
		require.NoError(t, err)
		tests := []struct {
			name string
			cma  *addonv1beta1.ClusterManagementAddOn
			mca  *addonv1beta1.ManagedClusterAddOn
			want hubplan.Reach
		}{
			{name: "no revision", cma: cmaWith(""), mca: mcaWith(annotation(inFlight)), want: hubplan.ReachNone},
			{name: "a complete revision", cma: cmaWith(completedJSON), mca: mcaWith(""), want: hubplan.ReachNone},
			{name: "not released", cma: cmaWith(revJSON), mca: mcaWith(""), want: hubplan.ReachPending},
			{name: "released for another revision", cma: cmaWith(revJSON), mca: mcaWith(annotation(other)), want: hubplan.ReachPending},
			{name: "no add-on", cma: cmaWith(revJSON), mca: nil, want: hubplan.ReachPending},
			{name: "released", cma: cmaWith(revJSON), mca: mcaWith(annotation(inFlight)), want: hubplan.ReachReleased},
			{name: "done", cma: cmaWith(revJSON), mca: mcaWith(annotation(done)), want: hubplan.ReachDone},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				got, _, _ := hubplan.ReachOf(tt.cma, tt.mca)
				assert.Equal(t, tt.want, got, "%v", got)
			})
		}
		assert.Equal(t, "Reach(9)", hubplan.Reach(9).String())
	})
}

// withAndWithoutRollout runs f as two parallel subtests: without an
// AddOnRollout (spec nil) and under one without controls.
func withAndWithoutRollout(t *testing.T, f func(t *testing.T, spec *v1alpha1.AddOnRolloutSpec)) {
	t.Helper()
	for _, spec := range []*v1alpha1.AddOnRolloutSpec{nil, {}} {
		name := "without an AddOnRollout"
		if spec != nil {
			name = "under an AddOnRollout"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, spec)
		})
	}
}
