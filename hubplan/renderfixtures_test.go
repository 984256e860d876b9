package hubplan_test

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

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
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

// deployWork is the name of each cluster's work of the add-on.
const deployWork = "addon-cluster-proxy-deploy-0"

// newRenderHub is a hub whose AddOnRollout has spec, or none when spec is
// nil.
func newRenderHub(t *testing.T, spec *v1alpha1.AddOnRolloutSpec) *renderHub {
	t.Helper()
	h := &renderHub{controlHub: newControlHub(t, spec)}
	h.hash = "v2"
	h.ctl.Works = make(map[string]hubplan.Works, len(h.mcas))
	for c := range h.mcas {
		h.mcas[c] = addontest.AppliedAddon(c, "v2", addontest.PlanNow.Add(-time.Hour))
		h.ctl.Works[c] = worksAt(1, true)
	}
	return h
}

// worksAt is what a cluster's one work says at generation gen: its
// content is that generation's.
func worksAt(gen int64, ready bool) hubplan.Works {
	return hubplan.Works{Generation: gen, Ready: ready, Content: map[string]string{deployWork: fmt.Sprintf("sha256:gen%d", gen)}}
}

// refusal is a ManifestApplied message of addon-framework when the work
// gate refused its update of the work.
const refusal = `admission webhook "manifestworks.rolloutkit.io" denied the request: ` + hubplan.WorkGateMarker +
	`: the work of add-on cluster-proxy on cluster prod-cluster changes its content ahead of the rollout`

// unavailable is a ManifestApplied message of addon-framework when the API
// server could not ask the work gate (no replica answered).
const unavailable = `Internal error occurred: failed calling webhook "` + hubplan.WorkGateWebhook +
	`": failed to call webhook: Post "https://rolloutkit-webhook.rolloutkit-system.svc:443/validate": connection refused`

// hold plays the work gate holding the add-on manager's new rendering of
// cluster's work: its record on the cluster's add-on, with the reason the
// gate gives where the rendering rollout stands on the cluster
// (RenderingHeld with none in flight or once the cluster took it,
// RenderingPending before its release, RenderingTaken after it).
func (h *renderHub) hold(cluster string) {
	reason := hubplan.HoldRenderingHeld
	switch r, _, _ := hubplan.ReachOf(h.cma, h.mcas[cluster]); r {
	case hubplan.ReachPending:
		reason = "RenderingPending"
	case hubplan.ReachReleased:
		reason = hubplan.HoldRenderingTaken
	}
	h.holdFor(cluster, reason)
}

// holdFor plays the work gate holding the add-on manager's new content of
// cluster's work for reason: its record on the cluster's add-on of the
// work as it is now, under the rendering revision in flight.
func (h *renderHub) holdFor(cluster, reason string) {
	var inFlight string
	if rev, ok := hubplan.ReadRenderingRevision(h.cma); ok && rev.CompletedAt == nil {
		inFlight = rev.Revision
	}
	var prev *hubplan.Hold
	if held, ok := hubplan.ReadHold(h.mcas[cluster]); ok {
		prev = &held
	}
	next, _ := hubplan.WithHeld(prev, hubplan.HeldWrite{Work: deployWork, Content: h.ctl.Works[cluster].Content[deployWork],
		Reason: reason, Key: "k-" + reason, Why: "held for " + reason, Rendering: inFlight}, h.clock.Now(), h.ctl.Works[cluster].Content)
	v, err := next.Annotation()
	require.NoError(h.t, err)
	h.setMCAAnnotation(cluster, hubplan.HoldAnnotation, v)
}

// admit plays the work gate once it admitted the manager's new content of
// cluster's work: its record of the hold goes.
func (h *renderHub) admit(cluster string) {
	m := h.mcas[cluster].DeepCopy()
	delete(m.Annotations, hubplan.HoldAnnotation)
	h.mcas[cluster] = m
}

// refused plays addon-framework reporting a write of cluster's work refused
// by the gate: its ManifestApplied condition, which says nothing the
// rollout counts on beyond a hold the gate could not record.
func (h *renderHub) refused(cluster string) {
	h.manifestApplied(cluster, metav1.ConditionFalse, "ManifestWorkApplyFailed", refusal)
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
	w[cluster] = worksAt(generation, ready)
	h.ctl.Works = w
}

// open writes rev on the ClusterManagementAddOn, as the controller writes
// Plan.NewRendering.
func (h *renderHub) open(rev hubplan.RenderingRevision) {
	h.t.Helper()
	v, err := rev.Annotation()
	require.NoError(h.t, err)
	h.annotateCMA(v)
}

// annotateCMA sets the ClusterManagementAddOn's RenderingAnnotation to v.
func (h *renderHub) annotateCMA(v string) {
	cma := h.cma.DeepCopy()
	cma.Annotations = withAnnotation(cma.Annotations, hubplan.RenderingAnnotation, v)
	h.cma = cma
}

// release writes rel on cluster's add-on, as the controller writes
// Step.Releases.
func (h *renderHub) release(cluster string, rel hubplan.Release) {
	h.t.Helper()
	v, err := rel.Annotation()
	require.NoError(h.t, err)
	h.annotateMCA(cluster, v)
}

// annotateMCA sets the ReleaseAnnotation of cluster's add-on to v.
func (h *renderHub) annotateMCA(cluster, v string) {
	h.setMCAAnnotation(cluster, hubplan.ReleaseAnnotation, v)
}

// setMCAAnnotation sets annotation key of cluster's add-on to v.
func (h *renderHub) setMCAAnnotation(cluster, key, v string) {
	m := h.mcas[cluster].DeepCopy()
	m.Annotations = withAnnotation(m.Annotations, key, v)
	h.mcas[cluster] = m
}

// write writes what the plan decides of the rendering rollout: the
// revision it opened or completed, then every release, with what the
// cluster's works say published beside it, and the works of every other
// cluster whose works the plan reads (hubplan.WorksToPublish).
func (h *renderHub) write(p hubplan.Plan) {
	if p.Rendering != nil {
		h.open(*p.Rendering)
	}
	var releases []hubplan.ReleaseWrite
	for _, s := range p.Steps {
		for _, w := range s.Releases {
			h.release(w.Cluster, w.Release)
			h.publish(w.Cluster, h.ctl.Works[w.Cluster])
			releases = append(releases, w)
		}
	}
	_, _, mcas, _ := h.inputs()
	for _, w := range hubplan.WorksToPublish(h.cma.Name, mcas, h.ctl.Works, releases) {
		h.publish(w.Cluster, w.Works)
	}
}

// publish sets cluster's WorksAnnotation to w.
func (h *renderHub) publish(cluster string, w hubplan.Works) {
	h.t.Helper()
	v, err := w.Annotation()
	require.NoError(h.t, err)
	h.setMCAAnnotation(cluster, hubplan.WorksAnnotation, v)
}

// viewerAgrees checks that a reader who may not read the works, planning
// now with what the add-ons publish of them (hubplan.WorksFromAddOns),
// gets the controller's plan: the same status and the same steps.
func (h *renderHub) viewerAgrees() {
	h.t.Helper()
	want := h.plan()
	cma, in, mcas, specHash := h.inputs()
	ctl := h.ctl
	ctl.Works = hubplan.WorksFromAddOns(cma.Name, mcas)
	planner := h.planner
	planner.Rollout = rollout.Planner{Clock: h.clock}
	got, err := planner.Plan(hubplan.Inputs{ClusterManagementAddOn: cma, Placements: in, Addons: mcas, Controls: ctl, SpecHash: specHash})
	require.NoError(h.t, err)
	assert.Equal(h.t, want.Status, got.Status, "the viewer's status")
	assert.Equal(h.t, want.Steps, got.Steps, "the viewer's steps")
}

// step moves the clock by d, plans, writes the plan as the controller
// does (the add-ons' statuses, the AddOnRollout's status, the approvals,
// the rendering revision and the releases) and returns it. Every check
// due runs and passes.
func (h *renderHub) step(d time.Duration) hubplan.Plan {
	h.t.Helper()
	h.clock.Step(d)
	p := h.plan()
	var results []hubplan.CheckResult
	for _, ch := range p.Checks {
		results = append(results, hubplan.CheckResult{Check: ch, Passed: true, Message: "passed", At: h.clock.Now()})
	}
	h.apply(p, results...)
	h.write(p)
	h.viewerAgrees()
	return p
}

// released lists the clusters the work gate admits a new rendering on
// (hubplan.Released), in name order.
func (h *renderHub) released() []string {
	var out []string
	for _, c := range slices.Sorted(maps.Keys(h.mcas)) {
		if hubplan.Released(h.cma, h.mcas[c]) {
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
func inUTC(r hubplan.Release) hubplan.Release {
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
func releaseLines(p hubplan.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		for _, w := range s.Releases {
			out = append(out, releaseLine(w))
		}
	}
	return out
}

// releaseLine renders one release.
func releaseLine(w hubplan.ReleaseWrite) string {
	r := w.Release
	s := fmt.Sprintf("%s released %s", w.Cluster, r.ReleasedAt.UTC().Format(time.TimeOnly))
	if r.Held {
		s += fmt.Sprintf(" held %s", r.Works[deployWork])
	}
	if r.DoneAt != nil {
		s += " done " + r.DoneAt.UTC().Format(time.TimeOnly)
	}
	return s
}

// phases renders the groups of the plan's first step as the planner
// explains them: "name Phase".
func phases(p hubplan.Plan) []string {
	var out []string
	for _, g := range p.Steps[0].Result.Groups {
		out = append(out, g.Name+" "+g.Phase.String())
	}
	return out
}

// heldCounts are the Counts.Held of the groups of the status's first
// placement, in rollout order.
func heldCounts(p hubplan.Plan) []int32 {
	if len(p.Status.Placements) == 0 {
		return nil
	}
	var out []int32
	for _, g := range p.Status.Placements[0].Groups {
		out = append(out, g.Counts.Held)
	}
	return out
}

// renderCall is one call of Planner.Plan in a rendering scenario: what
// changes on the hub before it and what it must decide. The plan is
// written back before the checks.
type renderCall struct {
	name   string
	after  time.Duration                                    // the clock moves by this first
	before func(h *renderHub)                               // changes on the hub before the call
	then   func(t *testing.T, h *renderHub, p hubplan.Plan) // more checks

	kind      string   // the step's Kind
	opens     bool     // whether the call opens a rendering revision
	completes bool     // whether the call completes the rendering revision in flight
	releases  []string // releaseLines
	phases    []string // phases
	released  []string // the clusters hubplan.Released reports after the writes
	due       []string // the checks due, "group/name"; each one passes
	groups    []string // the status's groupLines; not checked when nil
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
		assert.Equal(t, c.opens, p.Rendering != nil && p.Rendering.CompletedAt == nil, "%s: opens a revision", label)
		assert.Equal(t, c.completes, p.Rendering != nil && p.Rendering.CompletedAt != nil, "%s: completes the revision", label)
		assert.Equal(t, c.releases, releaseLines(p), "%s: releases", label)
		assert.Equal(t, c.phases, phases(p), "%s: phases", label)
		assert.Equal(t, c.released, h.released(), "%s: released", label)
		if p.Rendering != nil && p.Rendering.CompletedAt == nil {
			assert.Equal(t, hubplan.CombinedRevision(addon.Revision(s.Configs), p.Rendering.Revision), s.Revision,
				"%s: the step rolls out the revision opened", label)
		}
		for _, w := range s.Releases {
			assert.Equal(t, hubplan.CombinedRevision(addon.Revision(s.Configs), w.Release.Revision), s.Revision,
				"%s: a release names the rendering revision of the step's", label)
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
