package hubplan

import (
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// renderings holds what one call knows of the add-on's rendering rollout.
type renderings struct {
	cma       *addonv1beta1.ClusterManagementAddOn
	inputs    []addon.PlacementInput
	mcas      []*addonv1beta1.ManagedClusterAddOn // the add-on's, one per cluster
	byCluster map[string]*addonv1beta1.ManagedClusterAddOn
	works     map[string]Works
	settle    time.Duration // Controls.ReleaseSettle
	now       time.Time
	// shown is the AddOnRollout's status as read; nil without an
	// AddOnRollout. A placement whose revision is done waits for its
	// verifications before a rendering revision follows it, and a
	// rendering revision is complete once verified.
	shown *v1alpha1.AddOnRolloutStatus
	// checked reports whether every check of step s's groups passed, as
	// ps (its status) records them; nil: there are no checks.
	checked func(s Step, ps *v1alpha1.PlacementStatus) bool
}

// newRenderings gathers what one call knows of cma's rendering rollout.
func newRenderings(cma *addonv1beta1.ClusterManagementAddOn, inputs []addon.PlacementInput, mcas []*addonv1beta1.ManagedClusterAddOn,
	ctl Controls, now time.Time) renderings {
	r := renderings{cma: cma, inputs: inputs, byCluster: make(map[string]*addonv1beta1.ManagedClusterAddOn, len(mcas)),
		works: ctl.Works, settle: ctl.ReleaseSettle, now: now}
	for _, m := range mcas {
		if m != nil && m.Name == cma.Name {
			r.byCluster[m.Namespace] = m
			r.mcas = append(r.mcas, m)
		}
	}
	if ctl.Rollout != nil {
		r.shown = &ctl.Rollout.Status
	}
	return r
}

// stage returns steps with the add-on's rendering revision joined to
// them, and the rendering revision to write on the ClusterManagementAddOn
// (nil: none): one it opened, or the one in flight, now complete.
//
// A revision opens when the work gate holds new content of a cluster
// whose configs are current (a hold for RenderingHeld) and none is in
// flight; a further rendering held under the revision in flight (on a
// cluster that took it) opens a new one in its place, which starts again
// from the first group. A revision in flight joins every placement's
// config revision into one (CombinedRevision), rolled out from the first
// group; a placement whose config revision is done but not verified yet
// finishes it first. A revision is complete when every placement has
// rolled it out, complete and verified; once complete, it stays the step
// of the placements whose AddOnRollout status shows it, until a config
// change or a new rendering moves them on.
func (r renderings) stage(planner rollout.Planner, steps []Step, gates addon.GatesFunc) ([]Step, *RenderingRevision) {
	for i := range steps {
		if steps[i].Err == nil {
			steps[i].Kind = KindConfig
		}
	}
	rev, ok := ReadRenderingRevision(r.cma)
	inFlight := ok && rev.CompletedAt == nil
	switch {
	case inFlight && r.renderingHeld(steps, rev.Revision):
		return r.open(planner, steps, gates, rev)
	case inFlight:
		staged := r.planAll(planner, steps, rev, gates)
		if !r.complete(steps, staged, rev) {
			return staged, nil
		}
		done := rev
		t := metav1.NewTime(r.now.UTC().Truncate(time.Second))
		done.CompletedAt = &t
		return r.kept(steps, staged), &done
	case r.renderingHeld(steps, ""):
		return r.open(planner, steps, gates, rev)
	case ok:
		return r.kept(steps, r.planAll(planner, steps, rev, gates)), nil
	}
	return steps, nil
}

// open opens a new rendering revision in place of prev (zero: none) and
// plans it. Two revisions opened within one second would have one name:
// the second waits for the next second.
func (r renderings) open(planner rollout.Planner, steps []Step, gates addon.GatesFunc, prev RenderingRevision) ([]Step, *RenderingRevision) {
	next := NewRenderingRevision(r.now)
	if next.Revision == prev.Revision {
		if prev.CompletedAt == nil {
			return r.planAll(planner, steps, prev, gates), nil
		}
		return steps, nil
	}
	return r.planAll(planner, steps, next, gates), &next
}

// renderingHeld reports whether the work gate holds new content of
// unchanged configs on a cluster of a planned placement: with inFlight,
// a further rendering held under that revision; without, any.
func (r renderings) renderingHeld(steps []Step, inFlight string) bool {
	for _, s := range steps {
		if s.Err != nil {
			continue
		}
		for _, a := range s.Addons {
			h, ok := r.hold(a.Status.Cluster)
			if ok && (h.Reason == HoldRenderingHeld || h.Reason == HoldRenderingTaken) && (inFlight == "" || h.Rendering == inFlight) {
				return true
			}
		}
	}
	return false
}

// hold returns the work gate's hold of cluster's works while a work of
// it is still held.
func (r renderings) hold(cluster string) (Hold, bool) {
	h, ok := ReadHold(r.byCluster[cluster])
	if !ok || len(h.Held(contentOf(r.works[cluster]))) == 0 {
		return Hold{}, false
	}
	return h, true
}

// planAll plans rev joined to the config revision of every placement that
// can take it: planned, with add-ons, and not waiting for the
// verifications of a config revision that is done.
func (r renderings) planAll(planner rollout.Planner, steps []Step, rev RenderingRevision, gates addon.GatesFunc) []Step {
	out := slices.Clone(steps)
	for i, s := range steps {
		if s.Err != nil || len(s.Addons) == 0 || r.verifying(s) {
			continue
		}
		out[i] = r.plan(planner, s, rev, gates)
	}
	return out
}

// verifying reports whether config step s is done and its placement's
// status shows its revision not yet complete and verified, with a check
// of its groups not passed: a rendering revision waits for its
// verifications.
func (r renderings) verifying(s Step) bool {
	if r.shown == nil || !s.Result.Done() {
		return false
	}
	ps := placementStatusOf(*r.shown, s.Ref, s.Revision)
	return ps != nil && ps.CompletionTime == nil && r.checked != nil && !r.checked(s, ps)
}

// complete reports whether rendering revision rev is rolled out: on
// every placement that can be planned, every cluster took it and its
// rollout is done, soaks included; under an AddOnRollout, its status
// shows a revision joined to rev complete and verified (the status as
// read: its completion is recorded, then the revision completes).
func (r renderings) complete(configs, staged []Step, rev RenderingRevision) bool {
	for i, s := range staged {
		if configs[i].Err != nil || len(configs[i].Addons) == 0 {
			continue
		}
		if r.shown == nil {
			if s.Rendering != rev.Revision || !s.renderingDone || !s.Result.Done() {
				return false
			}
			continue
		}
		ps := placementOf(*r.shown, s.Ref)
		if ps == nil || ps.Rendering != rev.Revision || ps.CompletionTime == nil {
			return false
		}
	}
	return true
}

// placementOf is the status of placement ref in st, whatever its
// revision; nil when it has none.
func placementOf(st v1alpha1.AddOnRolloutStatus, ref addonv1beta1.PlacementRef) *v1alpha1.PlacementStatus {
	for i := range st.Placements {
		if ps := &st.Placements[i]; ps.Namespace == ref.Namespace && ps.Name == ref.Name {
			return ps
		}
	}
	return nil
}

// kept returns steps, but with the complete rendering revision of staged
// on the placements whose status shows it.
func (r renderings) kept(steps, staged []Step) []Step {
	if r.shown == nil {
		return steps
	}
	out := slices.Clone(steps)
	for i, s := range staged {
		if s.Kind != KindConfig && placementStatusOf(*r.shown, s.Ref, s.Revision) != nil {
			out[i] = s
		}
	}
	return out
}

// part is one cluster's status in each part of a joined revision.
type part struct {
	config, rendering rollout.ClusterStatus
	justDone          bool // the rendering part is done now, its release not saying so yet
}

// plan rolls rendering revision rev out over config step s's groups,
// joined to s's config revision: with the placement's strategy and the
// gates of the joined revision. A cluster is to apply while either part
// is; it starts with a config handover where its configs are to apply
// and a release where its rendering is; it is done when both are.
func (r renderings) plan(planner rollout.Planner, s Step, rev RenderingRevision, gates addon.GatesFunc) Step {
	strategy := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}
	if s.Index >= 0 {
		strategy = r.cma.Spec.InstallStrategy.Placements[s.Index].RolloutStrategy
		planner.DefaultConcurrency = addon.DefaultConcurrency(strategy, r.inputs[s.Index].Placement)
	}
	revision := CombinedRevision(s.Revision, rev.Revision)
	parts := make(map[string]part, len(s.Addons))
	statuses := make([]rollout.ClusterStatus, 0, len(s.Addons))
	var settle time.Duration // until the first released cluster settles
	kind, took := KindRendering, true
	for _, a := range s.Addons {
		rs, justDone, left := r.status(a.Status.Cluster, rev)
		parts[a.Status.Cluster] = part{config: a.Status, rendering: rs, justDone: justDone}
		statuses = append(statuses, combine(a.Status, rs))
		settle = rollout.Sooner(settle, left)
		if a.Status.Status != rollout.Succeeded && a.Status.Status != rollout.Skip {
			kind = KindConfigAndRendering
		}
		took = took && rs.Status == rollout.Succeeded
	}
	if gates != nil {
		planner.Gates = append(slices.Clip(planner.Gates), gates(s.Index, s.Ref, revision, strategy, s.Groups)...)
	}
	res, err := planner.Plan(strategy, s.Groups, statuses)
	if err != nil {
		return s // the config plan of the same groups passed: cannot happen
	}
	s.Releases = r.releases(rev, s.Revision, res, parts)
	for _, w := range s.Releases {
		if !w.Release.Held && w.Release.DoneAt == nil {
			settle = rollout.Sooner(settle, r.settle) // released now: settled then
		}
	}
	res.RecheckAfter = rollout.Sooner(res.RecheckAfter, settle)
	s.Writes = addon.Writes(r.mcas, s.Addons, res, r.now)
	s.Progress = addon.Tally(s.Groups, s.Addons, configsOf(res, parts))
	if s.Index >= 0 {
		s.Progression = addon.InstallProgression(r.cma.Status.InstallProgressions, s.Ref, s.Configs, s.Progress, clock.At(r.now))
	}
	s.Kind, s.Revision, s.Rendering, s.Result, s.renderingDone = kind, revision, rev.Revision, res, took
	return s
}

// combine is a cluster's status in a joined revision, from its config
// part cfg and its rendering part rnd: to apply while either is; failed,
// timed out or skipped as its configs are; progressing while either is,
// since the later start; succeeded when both are, since the later.
func combine(cfg, rnd rollout.ClusterStatus) rollout.ClusterStatus {
	out := rollout.ClusterStatus{Cluster: cfg.Cluster}
	switch {
	case cfg.Status == rollout.ToApply || rnd.Status == rollout.ToApply:
		out.Status = rollout.ToApply
		return out
	case cfg.Status == rollout.Failed || cfg.Status == rollout.TimeOut || cfg.Status == rollout.Skip:
		return cfg
	case cfg.Status == rollout.Progressing || rnd.Status == rollout.Progressing:
		out.Status = rollout.Progressing
	default:
		out.Status = rollout.Succeeded
	}
	out.LastTransitionTime = cfg.LastTransitionTime
	if rnd.LastTransitionTime.After(out.LastTransitionTime) {
		out.LastTransitionTime = rnd.LastTransitionTime
	}
	return out
}

// configsOf is res as the config rollout sees it, for the install
// progression, which says where the configs stand (as OCM's does): the
// clusters listed or timed out whose configs are not succeeded.
func configsOf(res rollout.Result, parts map[string]part) rollout.Result {
	keep := func(list []rollout.ClusterStatus) []rollout.ClusterStatus {
		var out []rollout.ClusterStatus
		for _, c := range list {
			if parts[c.Cluster].config.Status != rollout.Succeeded {
				out = append(out, c)
			}
		}
		return out
	}
	res.ToRollout, res.TimedOut = keep(res.ToRollout), keep(res.TimedOut)
	return res
}

// status is cluster's rendering part in revision rev, whether it is done
// now without its release saying so yet, and, for a cluster released
// with nothing held that has not settled yet (Controls.ReleaseSettle),
// how long until it has (0: none).
//
// A released cluster is done once its works moved past the release (a
// work's content changed, or a work is new), are all Applied and
// Available at their generations, and the gate holds none of them; or,
// released with nothing held, once ReleaseSettle has passed with its
// works ready and nothing held. Only the works and the gate's own record
// say so: not how the add-on's manager reports its writes. A hold
// recorded before the release is over once a work moved past it
// (Hold.overByRelease).
func (r renderings) status(cluster string, rev RenderingRevision) (rollout.ClusterStatus, bool, time.Duration) {
	st := rollout.ClusterStatus{Cluster: cluster, Status: rollout.ToApply}
	rel, ok := ReadRelease(r.byCluster[cluster])
	switch {
	case !ok || rel.Revision != rev.Revision:
		return st, false, 0
	case rel.DoneAt != nil:
		st.Status, st.LastTransitionTime = rollout.Succeeded, rel.DoneAt.Time
		return st, false, 0
	}
	w := r.works[cluster]
	var left time.Duration
	if !rel.Held {
		left = max(rel.ReleasedAt.Add(r.settle).Sub(r.now), 0)
	}
	moved := rel.moved(w)
	h, held := r.hold(cluster)
	if held && h.overByRelease(rel, moved, contentOf(w)) {
		held = false
	}
	if w.Ready && !held && (moved || (!rel.Held && left == 0)) {
		st.Status, st.LastTransitionTime = rollout.Succeeded, r.now
		return st, true, 0
	}
	st.Status, st.LastTransitionTime = rollout.Progressing, rel.ReleasedAt.Time
	return st, false, left
}

// releases are the release annotations the plan res changes, under the
// config revision configs: a release of every cluster it starts whose
// rendering part is to apply, or is progressing under an earlier config
// revision while its configs are to apply (done at once when the gate
// holds none of its works and there is no time to settle), with the
// content of its works then; and the done time of every cluster done now.
//
// A cluster released, whose works took a change since, and that is not
// done yet when a config change reaches it, is released again: its
// config handover is then the first change since its release, which the
// gate admits, and not a further rendering, which it holds. It is
// released again once per config revision.
func (r renderings) releases(rev RenderingRevision, configs string, res rollout.Result, parts map[string]part) []ReleaseWrite {
	var out []ReleaseWrite
	now := metav1.NewTime(r.now)
	for _, c := range res.ToRollout {
		if c.Status != rollout.ToApply || !r.releasing(c.Cluster, rev, configs, parts[c.Cluster]) {
			continue
		}
		w := r.works[c.Cluster]
		_, held := r.hold(c.Cluster)
		rel := Release{Revision: rev.Revision, Configs: configs, ReleasedAt: now, Generation: w.Generation, Works: cloneContent(w.Content), Held: held}
		if !rel.Held && r.settle <= 0 {
			rel.DoneAt = &now // nothing held, and no time to settle: done at its release
		}
		out = append(out, ReleaseWrite{Cluster: c.Cluster, Release: rel})
	}
	for c, p := range parts {
		if !p.justDone {
			continue
		}
		rel, _ := ReadRelease(r.byCluster[c]) // status read it
		rel.DoneAt = &now
		out = append(out, ReleaseWrite{Cluster: c, Release: rel})
	}
	return sortedReleases(out)
}

// releasing reports whether starting cluster, in rendering revision rev
// joined to config revision configs, releases it: its rendering part is
// to apply; or it is progressing under an earlier config revision and its
// configs are to apply (a handover starts now).
func (r renderings) releasing(cluster string, rev RenderingRevision, configs string, p part) bool {
	switch {
	case p.rendering.Status == rollout.ToApply:
		return true
	case p.rendering.Status != rollout.Progressing || p.config.Status != rollout.ToApply:
		return false
	}
	rel, ok := ReadRelease(r.byCluster[cluster])
	return ok && rel.Revision == rev.Revision && rel.Configs != configs
}

// heldClusters maps every cluster of mcas whose works the work gate
// holds (Held, given works) to its hold; a cluster held only as its
// manager reports it (no replica of the gate answered) has a hold without
// works, reason ReasonGateUnavailable, since the manager reported it.
func heldClusters(name string, mcas []*addonv1beta1.ManagedClusterAddOn, works map[string]Works) map[string]Hold {
	out := make(map[string]Hold)
	for _, m := range mcas {
		if m == nil || m.Name != name {
			continue
		}
		var content map[string]string
		if works != nil {
			content = contentOf(works[m.Namespace])
		}
		if h, ok := ReadHold(m); ok && (content == nil || len(h.Held(content)) > 0) {
			if rel, released := ReadRelease(m); !released || content == nil || !h.overByRelease(rel, rel.moved(works[m.Namespace]), content) {
				out[m.Namespace] = h
				continue
			}
		}
		if h, ok := reported(m); ok {
			out[m.Namespace] = h
		}
	}
	return out
}
