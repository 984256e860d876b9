package addonrollout_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/addonrollout"
	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
)

// renderHub is a controlHub whose config rollout is over: every add-on
// runs config "v2", applied an hour before addontest.PlanNow, and each cluster's
// works of the add-on are at generation 1, Applied and Available
// (Controls.Works). write feeds a plan's rendering revision and releases
// back as annotations, as the controller does; hold, admit and works play
// the work gate, addon-framework and the work agent.
type renderHub struct {
	*controlHub
}

// newRenderHub is a hub whose AddOnRollout has spec, or none when spec is
// nil.
func newRenderHub(t *testing.T, spec *v1alpha1.AddOnRolloutSpec) *renderHub {
	t.Helper()
	h := &renderHub{controlHub: newControlHub(t, spec)}
	h.hash = "v2"
	h.ctl.Works = make(map[string]addonrollout.Works, len(h.mcas))
	for c := range h.mcas {
		h.mcas[c] = addontest.AppliedAddon(c, "v2", addontest.PlanNow.Add(-time.Hour))
		h.ctl.Works[c] = addonrollout.Works{Generation: 1, Ready: true}
	}
	return h
}

// refusal is a ManifestApplied message of addon-framework when the work
// gate refused its update of the work.
const refusal = `admission webhook "manifestworks.rolloutkit.io" denied the request: ` + addonrollout.WorkGateMarker +
	`: the work of add-on cluster-proxy on cluster prod-cluster changes its content ahead of the rollout`

// hold plays the work gate refusing the add-on manager's new content of
// cluster's work: addon-framework's ManifestApplied condition says so.
func (h *renderHub) hold(cluster string) {
	h.manifestApplied(cluster, metav1.ConditionFalse, "ManifestWorkApplyFailed", refusal)
}

// admit plays addon-framework once the manager's update of cluster's work
// landed: ManifestApplied is True again.
func (h *renderHub) admit(cluster string) {
	h.manifestApplied(cluster, metav1.ConditionTrue, "AddonManifestApplied", "manifests of addon are applied successfully")
}

// manifestApplied sets the ManifestApplied condition of cluster's add-on.
func (h *renderHub) manifestApplied(cluster string, status metav1.ConditionStatus, reason, message string) {
	m := h.mcas[cluster].DeepCopy()
	meta.SetStatusCondition(&m.Status.Conditions, metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnManifestApplied,
		Status: status, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(h.clock.Now())})
	h.mcas[cluster] = m
}

// works sets what cluster's works of the add-on say. The map is replaced,
// not changed: copies taken before stay as they were.
func (h *renderHub) works(cluster string, generation int64, ready bool) {
	w := maps.Clone(h.ctl.Works)
	w[cluster] = addonrollout.Works{Generation: generation, Ready: ready}
	h.ctl.Works = w
}

// open writes rev on the ClusterManagementAddOn, as the controller writes
// Plan.NewRendering.
func (h *renderHub) open(rev addonrollout.RenderingRevision) {
	h.t.Helper()
	v, err := rev.Annotation()
	require.NoError(h.t, err)
	h.annotateCMA(v)
}

// annotateCMA sets the ClusterManagementAddOn's RenderingAnnotation to v.
func (h *renderHub) annotateCMA(v string) {
	cma := h.cma.DeepCopy()
	cma.Annotations = withAnnotation(cma.Annotations, addonrollout.RenderingAnnotation, v)
	h.cma = cma
}

// release writes rel on cluster's add-on, as the controller writes
// Step.Releases.
func (h *renderHub) release(cluster string, rel addonrollout.Release) {
	h.t.Helper()
	v, err := rel.Annotation()
	require.NoError(h.t, err)
	h.annotateMCA(cluster, v)
}

// annotateMCA sets the ReleaseAnnotation of cluster's add-on to v.
func (h *renderHub) annotateMCA(cluster, v string) {
	m := h.mcas[cluster].DeepCopy()
	m.Annotations = withAnnotation(m.Annotations, addonrollout.ReleaseAnnotation, v)
	h.mcas[cluster] = m
}

// write writes what the plan decides of the rendering rollout: the
// revision it opened, then every release.
func (h *renderHub) write(p addonrollout.Plan) {
	if p.NewRendering != nil {
		h.open(*p.NewRendering)
	}
	for _, s := range p.Steps {
		for _, w := range s.Releases {
			h.release(w.Cluster, w.Release)
		}
	}
}

// step moves the clock by d, plans, writes the plan as the controller
// does (the add-ons' statuses, the AddOnRollout's status, the approvals,
// the rendering revision and the releases) and returns it. Every check
// due runs and passes.
func (h *renderHub) step(d time.Duration) addonrollout.Plan {
	h.t.Helper()
	h.clock.Step(d)
	p := h.plan()
	var results []addonrollout.CheckResult
	for _, ch := range p.Checks {
		results = append(results, addonrollout.CheckResult{Check: ch, Passed: true, Message: "passed", At: h.clock.Now()})
	}
	h.apply(p, results...)
	h.write(p)
	return p
}

// released lists the clusters the work gate admits a new rendering on
// (addonrollout.Released), in name order.
func (h *renderHub) released() []string {
	var out []string
	for _, c := range slices.Sorted(maps.Keys(h.mcas)) {
		if addonrollout.Released(h.cma, h.mcas[c]) {
			out = append(out, c)
		}
	}
	return out
}

// renderAt is addontest.PlanNow moved by d, as a metav1.Time.
func renderAt(d time.Duration) metav1.Time { return metav1.NewTime(addontest.PlanNow.Add(d)) }

// doneAt is a pointer to renderAt(d).
func doneAt(d time.Duration) *metav1.Time {
	t := renderAt(d)
	return &t
}

// inUTC is r with its times in UTC: metav1.Time reads JSON in time.Local.
func inUTC(r addonrollout.Release) addonrollout.Release {
	r.ReleasedAt = metav1.NewTime(r.ReleasedAt.UTC())
	if r.DoneAt != nil {
		r.DoneAt = doneAt(r.DoneAt.Sub(addontest.PlanNow))
	}
	return r
}

// withAnnotation returns as with key set to v; as is not modified.
func withAnnotation(as map[string]string, key, v string) map[string]string {
	out := maps.Clone(as)
	if out == nil {
		out = make(map[string]string, 1)
	}
	out[key] = v
	return out
}

// releaseLines renders the plan's releases, over every step, as
// "cluster released 15:04:05[ held gen N][ done 15:04:05]".
func releaseLines(p addonrollout.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		for _, w := range s.Releases {
			out = append(out, releaseLine(w))
		}
	}
	return out
}

// releaseLine renders one release.
func releaseLine(w addonrollout.ReleaseWrite) string {
	r := w.Release
	s := fmt.Sprintf("%s released %s", w.Cluster, r.ReleasedAt.UTC().Format(time.TimeOnly))
	if r.Held {
		s += fmt.Sprintf(" held gen %d", r.Generation)
	}
	if r.DoneAt != nil {
		s += " done " + r.DoneAt.UTC().Format(time.TimeOnly)
	}
	return s
}

// phases renders the groups of the plan's first step as the planner
// explains them: "name Phase".
func phases(p addonrollout.Plan) []string {
	var out []string
	for _, g := range p.Steps[0].Result.Groups {
		out = append(out, g.Name+" "+g.Phase.String())
	}
	return out
}

// heldCounts are the Counts.Held of the groups of the status's first
// placement, in rollout order.
func heldCounts(p addonrollout.Plan) []int32 {
	if len(p.Status.Placements) == 0 {
		return nil
	}
	var out []int32
	for _, g := range p.Status.Placements[0].Groups {
		out = append(out, g.Counts.Held)
	}
	return out
}

// renderCall is one call of PlanControlled in a rendering scenario: what
// changes on the hub before it and what it must decide. The plan is
// written back before the checks.
type renderCall struct {
	name   string
	after  time.Duration                                         // the clock moves by this first
	before func(h *renderHub)                                    // changes on the hub before the call
	then   func(t *testing.T, h *renderHub, p addonrollout.Plan) // more checks

	kind     string   // the step's Kind
	opens    bool     // whether the call opens a rendering revision
	releases []string // releaseLines
	phases   []string // phases
	released []string // the clusters addonrollout.Released reports after the writes
	due      []string // the checks due, "group/name"; each one passes
	groups   []string // the status's groupLines; not checked when nil
}

// run runs the calls of a scenario, in order, on h.
func (h *renderHub) run(t *testing.T, calls []renderCall) {
	t.Helper()
	for i, c := range calls {
		if c.before != nil {
			c.before(h)
		}
		p := h.step(c.after)
		label := fmt.Sprintf("call %d (%s) %s", i, h.clock.Now().Format(time.TimeOnly), c.name)
		require.Len(t, p.Steps, 1, label)
		s := p.Steps[0]
		assert.Equal(t, c.kind, s.Kind, "%s: kind", label)
		assert.Equal(t, c.opens, p.NewRendering != nil, "%s: opens a revision", label)
		assert.Equal(t, c.releases, releaseLines(p), "%s: releases", label)
		assert.Equal(t, c.phases, phases(p), "%s: phases", label)
		assert.Equal(t, c.released, h.released(), "%s: released", label)
		for _, w := range s.Releases {
			assert.Equal(t, s.Revision, w.Release.Revision, "%s: a release names the step's revision", label)
		}
		if p.NewRendering != nil {
			assert.Equal(t, p.NewRendering.Revision, s.Revision, "%s: the step rolls out the revision opened", label)
		}
		var due []string
		for _, ch := range p.Checks {
			due = append(due, ch.Group.Name+"/"+ch.Name)
			assert.Equal(t, s.Revision, ch.Request.Revision, "%s: a check names the step's revision", label)
		}
		assert.Equal(t, c.due, due, "%s: checks due", label)
		if h.ctl.Rollout != nil {
			require.Len(t, p.Status.Placements, 1, label)
			ps := p.Status.Placements[0]
			assert.Equal(t, s.Kind, ps.Kind, "%s: status kind", label)
			assert.Equal(t, s.Revision, ps.Revision, "%s: status revision", label)
			for _, pa := range p.Status.PendingApprovals {
				assert.Equal(t, s.Revision, pa.Revision, "%s: a pending approval names the step's revision", label)
			}
		}
		if c.groups != nil {
			assert.Equal(t, c.groups, groupLines(p), "%s: groups", label)
		}
		if c.then != nil {
			c.then(t, h, p)
		}
	}
}
