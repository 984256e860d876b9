package addonrollout

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/rollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// The annotations that keep a rendering rollout's state on the hub, so
// that a restarted controller carries on where it stopped.
const (
	// RenderingAnnotation, on a ClusterManagementAddOn, holds its current
	// rendering revision: a JSON [RenderingRevision].
	RenderingAnnotation = "rolloutkit.io/rendering"
	// ReleaseAnnotation, on a ManagedClusterAddOn, holds the rendering
	// rollout's release of its cluster: a JSON [Release].
	ReleaseAnnotation = "rolloutkit.io/rendering-release"
)

// WorkGateMarker starts every refusal of the work gate (workgate.Marker):
// addon-framework's agentdeploy puts the refusal in the add-on's
// ManifestApplied condition, which is how the rollout learns that the
// add-on's manager has new content for the cluster.
const WorkGateMarker = "rolloutkit work gate"

// WorkGateWebhook is the name of the work gate's webhook in its
// ValidatingWebhookConfiguration. The API server names it in the error of
// a write the gate could not be asked about ("failed calling webhook
// ..."): while no replica of the controller answers, the write is refused
// all the same (failurePolicy Fail), and the work is held as much.
const WorkGateWebhook = "manifestworks.gate.rolloutkit.io"

// The kinds of revision a placement rolls out.
const (
	// KindConfig: a change of the configs' spec hashes.
	KindConfig = "Config"
	// KindRendering: new content of the add-on's works under unchanged
	// configs (a new agent chart, a new manager version).
	KindRendering = "Rendering"
)

// RenderingRevision is an add-on's rendering revision: opened when the work
// gate first holds new content of a cluster whose configs have not
// changed, and rolled out to every cluster, group by group.
type RenderingRevision struct {
	// Revision names it: the first 12 hex digits of the SHA-256 of
	// "rendering" and Since.
	Revision string `json:"revision"`
	// Since is when it was opened.
	Since metav1.Time `json:"since"`
}

// Release is the rendering rollout's release of one cluster.
type Release struct {
	// Revision is the rendering revision released.
	Revision string `json:"revision"`
	// ReleasedAt is when: the start of the cluster's progress deadline.
	ReleasedAt metav1.Time `json:"releasedAt"`
	// Generation is the sum of the generations of the cluster's works of
	// the add-on at the release: the work has taken the new content once
	// it is past it.
	Generation int64 `json:"generation"`
	// Held reports whether the gate held the cluster's work at the
	// release. A cluster that was not held may have nothing to take, or
	// its manager may not have tried yet: it is done once its works move
	// and are ready, or Controls.ReleaseSettle after the release with
	// nothing held.
	Held bool `json:"held,omitempty"`
	// DoneAt is when the cluster was done (its works took the new content
	// and are Applied and Available): the start of its soak. Nil while it
	// is not; the gate admits new content only then.
	DoneAt *metav1.Time `json:"doneAt,omitempty"`
}

// Works is what a cluster's ManifestWorks of an add-on say, for the
// rendering rollout.
type Works struct {
	// Generation is the sum of their generations.
	Generation int64
	// Ready reports whether every one of them is Applied and Available at
	// its generation (and there is at least one).
	Ready bool
}

// NewRenderingRevision opens a rendering revision at now.
func NewRenderingRevision(now time.Time) RenderingRevision {
	since := metav1.NewTime(now.UTC().Truncate(time.Second))
	sum := sha256.Sum256([]byte("rendering " + since.Format(time.RFC3339)))
	return RenderingRevision{Revision: hex.EncodeToString(sum[:])[:12], Since: since}
}

// ReadRenderingRevision reads cma's rendering revision; false when it has
// none, or one that does not parse (the next revision replaces it).
func ReadRenderingRevision(cma *addonv1beta1.ClusterManagementAddOn) (RenderingRevision, bool) {
	var r RenderingRevision
	if cma == nil || !readJSONAnnotation(cma.Annotations, RenderingAnnotation, &r) || r.Revision == "" {
		return RenderingRevision{}, false
	}
	return r, true
}

// ReadRelease reads the release of mca's cluster; false when it has none,
// or one that does not parse (a release of the current revision replaces
// it).
func ReadRelease(mca *addonv1beta1.ManagedClusterAddOn) (Release, bool) {
	var r Release
	if mca == nil || !readJSONAnnotation(mca.Annotations, ReleaseAnnotation, &r) {
		return Release{}, false
	}
	return r, true
}

// Released reports whether the rendering rollout has released new content
// to mca's cluster, and is waiting for it: what the work gate admits a
// new rendering on.
func Released(cma *addonv1beta1.ClusterManagementAddOn, mca *addonv1beta1.ManagedClusterAddOn) bool {
	rev, ok := ReadRenderingRevision(cma)
	if !ok {
		return false
	}
	rel, ok := ReadRelease(mca)
	return ok && rel.Revision == rev.Revision && rel.DoneAt == nil
}

// Held reports whether the work gate holds mca's work: its manager's last
// write of the work was refused by the gate, or refused because the gate
// could not be asked (addon-framework's ManifestApplied condition is False
// with the gate's refusal, or with an error naming its webhook).
func Held(mca *addonv1beta1.ManagedClusterAddOn) bool {
	if mca == nil {
		return false
	}
	c := meta.FindStatusCondition(mca.Status.Conditions, addonv1beta1.ManagedClusterAddOnManifestApplied)
	return c != nil && c.Status == metav1.ConditionFalse &&
		(strings.Contains(c.Message, WorkGateMarker) || strings.Contains(c.Message, `"`+WorkGateWebhook+`"`))
}

// readJSONAnnotation decodes annotation key of as into out; false when
// it is absent or is not the JSON of out.
func readJSONAnnotation(as map[string]string, key string, out any) bool {
	s, ok := as[key]
	return ok && json.Unmarshal([]byte(s), out) == nil
}

// ReleaseWrite is a new release of one cluster: the value of its add-on's
// ReleaseAnnotation.
type ReleaseWrite struct {
	// Cluster is the add-on's cluster.
	Cluster string
	// Release is the annotation's new value.
	Release Release
}

// Annotation is the release as its annotation's value.
func (r Release) Annotation() (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("release of revision %s: %w", r.Revision, err)
	}
	return string(b), nil
}

// Annotation is the revision as its annotation's value.
func (r RenderingRevision) Annotation() (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("rendering revision %s: %w", r.Revision, err)
	}
	return string(b), nil
}

// renderings holds what one call knows of the add-on's rendering rollout.
type renderings struct {
	cma       *addonv1beta1.ClusterManagementAddOn
	inputs    []addon.PlacementInput
	byCluster map[string]*addonv1beta1.ManagedClusterAddOn
	works     map[string]Works
	settle    time.Duration // Controls.ReleaseSettle
	now       time.Time
}

// newRenderings gathers what one call knows of cma's rendering rollout.
func newRenderings(cma *addonv1beta1.ClusterManagementAddOn, inputs []addon.PlacementInput, mcas []*addonv1beta1.ManagedClusterAddOn,
	works map[string]Works, settle time.Duration, now time.Time) renderings {
	byCluster := make(map[string]*addonv1beta1.ManagedClusterAddOn, len(mcas))
	for _, m := range mcas {
		if m != nil && m.Name == cma.Name {
			byCluster[m.Namespace] = m
		}
	}
	return renderings{cma: cma, inputs: inputs, byCluster: byCluster, works: works, settle: settle, now: now}
}

// heldClusters is the set of clusters whose work of add-on name the gate
// holds.
func heldClusters(name string, mcas []*addonv1beta1.ManagedClusterAddOn) map[string]bool {
	out := make(map[string]bool)
	for _, m := range mcas {
		if m != nil && m.Name == name && Held(m) {
			out[m.Namespace] = true
		}
	}
	return out
}

// stage returns steps with the placements whose config rollout is done
// rolling the add-on's rendering revision out instead, and the rendering
// revision to write on the ClusterManagementAddOn when it opens one (nil:
// none). A revision opens when the gate holds a cluster's work whose
// configs are current and the add-on has no rendering revision in flight;
// one is in flight until every placement has rolled it out to every
// cluster, soak included. Once complete, it stays the step of the
// placements whose AddOnRollout status shows it (shown; nil: none) until a
// config change or a new revision moves them on, so that the checks of its
// last groups run under its name and its completion is recorded, rather
// than the config revision's status starting afresh.
func (r renderings) stage(planner rollout.Planner, steps []Step, gates addon.GatesFunc, shown func(Step) bool) ([]Step, *RenderingRevision) {
	for i := range steps {
		if steps[i].Err == nil {
			steps[i].Kind = KindConfig
		}
	}
	rev, ok := ReadRenderingRevision(r.cma)
	var staged []Step
	if ok {
		staged = r.planAll(planner, steps, rev, gates)
		if !r.complete(steps, staged) {
			return staged, nil
		}
	}
	if !r.heldAny(steps) {
		return kept(steps, staged, shown), nil
	}
	next := NewRenderingRevision(r.now)
	if ok && next.Revision == rev.Revision {
		return staged, nil // opened and done within one second: wait for the next
	}
	return r.planAll(planner, steps, next, gates), &next
}

// planAll plans rev on every placement whose config rollout is done.
func (r renderings) planAll(planner rollout.Planner, steps []Step, rev RenderingRevision, gates addon.GatesFunc) []Step {
	out := slices.Clone(steps)
	for i, s := range steps {
		if s.Err == nil && s.Result.Done() && len(s.Addons) > 0 {
			out[i] = r.plan(planner, s, rev, gates)
		}
	}
	return out
}

// kept returns steps, but with the complete rendering revision of staged
// on the placements whose status shows it.
func kept(steps, staged []Step, shown func(Step) bool) []Step {
	if shown == nil || staged == nil {
		return steps
	}
	out := slices.Clone(steps)
	for i, s := range staged {
		if s.Kind == KindRendering && shown(s) {
			out[i] = s
		}
	}
	return out
}

// complete reports whether the rendering revision is rolled out: every
// placement that was planned rolls it out (its config rollout is done),
// and it is done there.
func (r renderings) complete(configs, staged []Step) bool {
	for i, s := range staged {
		if configs[i].Err != nil || len(configs[i].Addons) == 0 {
			continue
		}
		if s.Kind != KindRendering || !s.Result.Done() {
			return false
		}
	}
	return true
}

// heldAny reports whether the gate holds new content of a cluster whose
// configs are current, on a placement whose config rollout is done.
func (r renderings) heldAny(steps []Step) bool {
	for _, s := range steps {
		if s.Err != nil || !s.Result.Done() {
			continue
		}
		for _, a := range s.Addons {
			if a.Status.Status == rollout.Succeeded && Held(r.byCluster[a.Status.Cluster]) {
				return true
			}
		}
	}
	return false
}

// plan rolls rendering revision rev out over step s's groups, with the
// placement's strategy and the gates of revision rev.
func (r renderings) plan(planner rollout.Planner, s Step, rev RenderingRevision, gates addon.GatesFunc) Step {
	strategy := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}
	if s.Index >= 0 {
		strategy = r.cma.Spec.InstallStrategy.Placements[s.Index].RolloutStrategy
		planner.DefaultConcurrency = addon.DefaultConcurrency(strategy, r.inputs[s.Index].Placement)
	}
	statuses := make([]rollout.ClusterStatus, 0, len(s.Addons))
	done := make(map[string]bool)
	var settle time.Duration // until the first released cluster settles
	for _, a := range s.Addons {
		st, justDone, left := r.status(a.Status.Cluster, rev)
		if justDone {
			done[a.Status.Cluster] = true
		}
		settle = rollout.Sooner(settle, left)
		statuses = append(statuses, st)
	}
	if gates != nil {
		planner.Gates = append(slices.Clip(planner.Gates), gates(s.Index, s.Ref, rev.Revision, strategy, s.Groups)...)
	}
	res, err := planner.Plan(strategy, s.Groups, statuses)
	if err != nil {
		return s // the config plan of the same groups passed: cannot happen
	}
	s.Releases = r.releases(rev, res, done)
	for _, w := range s.Releases {
		if !w.Release.Held && w.Release.DoneAt == nil {
			settle = rollout.Sooner(settle, r.settle) // released now: settled then
		}
	}
	res.RecheckAfter = rollout.Sooner(res.RecheckAfter, settle)
	s.Kind, s.Revision, s.Result = KindRendering, rev.Revision, res
	return s
}

// status is cluster's status in rendering revision rev, whether it is
// done now without its release saying so yet, and, for a cluster released
// with nothing held that has not settled yet (Controls.ReleaseSettle),
// how long until it has (0: none).
func (r renderings) status(cluster string, rev RenderingRevision) (rollout.ClusterStatus, bool, time.Duration) {
	st := rollout.ClusterStatus{Cluster: cluster, Status: rollout.ToApply}
	mca := r.byCluster[cluster]
	rel, ok := ReadRelease(mca)
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
	if !Held(mca) && w.Ready && (w.Generation > rel.Generation || (!rel.Held && left == 0)) {
		st.Status, st.LastTransitionTime = rollout.Succeeded, r.now
		return st, true, 0
	}
	st.Status, st.LastTransitionTime = rollout.Progressing, rel.ReleasedAt.Time
	return st, false, left
}

// releases are the release annotations the plan res changes: a release of
// every cluster it starts (done at once when the gate does not hold its
// work and there is no time to settle), and the done time of every
// cluster done now.
func (r renderings) releases(rev RenderingRevision, res rollout.Result, done map[string]bool) []ReleaseWrite {
	var out []ReleaseWrite
	now := metav1.NewTime(r.now)
	for _, c := range res.ToRollout {
		if c.Status != rollout.ToApply {
			continue
		}
		mca := r.byCluster[c.Cluster]
		rel := Release{Revision: rev.Revision, ReleasedAt: now, Generation: r.works[c.Cluster].Generation, Held: Held(mca)}
		if !rel.Held && r.settle <= 0 {
			rel.DoneAt = &now // nothing held, and no time to settle: done at its release
		}
		out = append(out, ReleaseWrite{Cluster: c.Cluster, Release: rel})
	}
	for c := range done {
		rel, _ := ReadRelease(r.byCluster[c]) // status read it
		rel.DoneAt = &now
		out = append(out, ReleaseWrite{Cluster: c, Release: rel})
	}
	slices.SortFunc(out, func(a, b ReleaseWrite) int { return strings.Compare(a.Cluster, b.Cluster) })
	return out
}

// DefaultReleaseSettle is the Controls.ReleaseSettle a controller gives a
// hub's add-on managers, and what a dry run of it must give too: how long
// a cluster whose work the gate did not hold when it was released stays
// released before it counts as done with nothing to take. The release is
// a write to its add-on, which addon-framework's agentdeploy watches:
// within this time the manager renders the cluster again, and new content
// it has is admitted under the release. Without it, a cluster that the
// manager had not tried yet when the revision opened (its works are
// rendered one after another) would be done at once, and have its new
// content held again later, for a second revision.
const DefaultReleaseSettle = 10 * time.Second

// WorksOf sums up, by cluster, the ManifestWorks of add-on name among
// works, as [Progressing] lists them: those labelled with the add-on's
// name in the cluster's namespace, and a hosted add-on's in its hosting
// cluster's namespace (labelled with the add-on's namespace), pre-delete
// hooks left out. The map is never nil.
func WorksOf(name string, works []*workv1.ManifestWork) map[string]Works {
	out := make(map[string]Works)
	preDelete := "addon-" + name + "-pre-delete"
	for _, w := range works {
		if w == nil || w.Labels[addonv1beta1.AddonLabelKey] != name || strings.HasPrefix(w.Name, preDelete) {
			continue
		}
		cluster := w.Namespace
		if ns, ok := w.Labels[addonv1beta1.AddonNamespaceLabelKey]; ok {
			cluster = ns
		}
		s, seen := out[cluster]
		s.Generation += w.Generation
		s.Ready = (s.Ready || !seen) && addon.WorkReady(w)
		out[cluster] = s
	}
	return out
}
