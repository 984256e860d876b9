package hubplan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

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
// ManifestApplied condition.
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
	// configs (a new agent chart, a new manager version), on a placement
	// whose every cluster runs its configs.
	KindRendering = "Rendering"
	// KindConfigAndRendering: a rendering revision joined to a config
	// change that had not reached every cluster yet (or that came after
	// it): one revision of both, rolled out from the first group, so that
	// no config handover carries a rendering the groups before it have
	// not taken.
	KindConfigAndRendering = "ConfigAndRendering"
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
	// CompletedAt is when every placement had rolled it out, complete and
	// verified; nil while it is in flight. A complete revision releases
	// nothing more: the work gate judges every cluster's works as if no
	// rendering rollout were under way.
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
}

// Release is the rendering rollout's release of one cluster.
type Release struct {
	// Revision is the rendering revision released.
	Revision string `json:"revision"`
	// Configs is the config revision the cluster was released under
	// (addon.Revision of its placement's configs); "" in a release
	// written before it was recorded. A config change that reaches a
	// released cluster before it is done releases it again, under the new
	// config revision: the handover is then the first change of its
	// works since that release.
	Configs string `json:"configs,omitempty"`
	// ReleasedAt is when: the start of the cluster's progress deadline.
	ReleasedAt metav1.Time `json:"releasedAt"`
	// Generation is the sum of the generations of the cluster's works of
	// the add-on at the release. It is how a release written before Works
	// tells that the works moved.
	Generation int64 `json:"generation"`
	// Works are the cluster's works at the release, by name: each with
	// its [WorkContent]. The work gate admits the first change of each
	// from that content, and nothing after it: a further rendering waits
	// for the next revision.
	Works map[string]string `json:"works,omitempty"`
	// Held reports whether the gate held the cluster's work at the
	// release. A cluster that was not held may have nothing to take, or
	// its manager may not have tried yet: it is done once its works move
	// and are ready, or Controls.ReleaseSettle after the release with
	// nothing held.
	Held bool `json:"held,omitempty"`
	// DoneAt is when the cluster was done (its works took the new content
	// and are Applied and Available): the start of its soak. Nil while it
	// is not.
	DoneAt *metav1.Time `json:"doneAt,omitempty"`
}

// Works is what a cluster's ManifestWorks of an add-on say, for the
// rendering rollout.
type Works struct {
	// Generation is the sum of their generations.
	Generation int64 `json:"generation"`
	// Ready reports whether every one of them is Applied and Available at
	// its generation (and there is at least one).
	Ready bool `json:"ready,omitempty"`
	// Content is each work's [WorkContent], by name.
	Content map[string]string `json:"content,omitempty"`
}

// NewRenderingRevision opens a rendering revision at now.
func NewRenderingRevision(now time.Time) RenderingRevision {
	since := metav1.NewTime(now.UTC().Truncate(time.Second))
	sum := sha256.Sum256([]byte("rendering " + since.Format(time.RFC3339)))
	return RenderingRevision{Revision: hex.EncodeToString(sum[:])[:12], Since: since}
}

// CombinedRevision is the revision of a placement that rolls out its
// configs' revision config (addon.Revision) with the rendering revision
// rendering: the first 12 hex digits of the SHA-256 of both. A change of
// either is a new revision, with no approval and no verification.
func CombinedRevision(config, rendering string) string {
	sum := sha256.Sum256([]byte("config " + config + " rendering " + rendering))
	return hex.EncodeToString(sum[:])[:12]
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

// Reach is where an add-on's rendering rollout stands on one cluster: what
// the work gate admits of the cluster's new content.
type Reach int

const (
	// ReachNone: no rendering revision is in flight.
	ReachNone Reach = iota
	// ReachPending: a rendering revision is in flight and has not released
	// the cluster yet. Any new content of its works would carry the new
	// rendering ahead of its group.
	ReachPending
	// ReachReleased: released, and not done yet: the first change of each
	// work since the release lands, and nothing after it.
	ReachReleased
	// ReachDone: released, and done: the cluster took the rendering.
	ReachDone
)

// String names the reach.
func (r Reach) String() string {
	switch r {
	case ReachNone:
		return "None"
	case ReachPending:
		return "Pending"
	case ReachReleased:
		return "Released"
	case ReachDone:
		return "Done"
	}
	return fmt.Sprintf("Reach(%d)", int(r))
}

// ReachOf says where cma's rendering rollout stands on mca's cluster, and
// gives the revision in flight and its release of the cluster (zero when
// there is none).
func ReachOf(cma *addonv1beta1.ClusterManagementAddOn, mca *addonv1beta1.ManagedClusterAddOn) (Reach, RenderingRevision, Release) {
	rev, ok := ReadRenderingRevision(cma)
	if !ok || rev.CompletedAt != nil {
		return ReachNone, RenderingRevision{}, Release{}
	}
	rel, ok := ReadRelease(mca)
	switch {
	case !ok || rel.Revision != rev.Revision:
		return ReachPending, rev, Release{}
	case rel.DoneAt != nil:
		return ReachDone, rev, rel
	}
	return ReachReleased, rev, rel
}

// Released reports whether the rendering rollout has released new content
// to mca's cluster, and is waiting for it (ReachOf is ReachReleased).
func Released(cma *addonv1beta1.ClusterManagementAddOn, mca *addonv1beta1.ManagedClusterAddOn) bool {
	r, _, _ := ReachOf(cma, mca)
	return r == ReachReleased
}

// Held reports whether the work gate holds a write of mca's cluster's
// works, given what they hold now (content: [Works.Content]; nil when not
// known, and every recorded hold counts): the gate's record on the add-on
// ([ReadHold]) of a work whose content is still what it was when the gate
// held its write; or, when the gate could record nothing (no replica
// answered), the add-on's manager reporting its last write of a work
// refused for want of the gate (its ManifestApplied or
// HostingManifestApplied condition, ReasonGateUnavailable).
func Held(mca *addonv1beta1.ManagedClusterAddOn, content map[string]string) bool {
	if mca == nil {
		return false
	}
	if h, ok := ReadHold(mca); ok && (content == nil || len(h.Held(content)) > 0) {
		return true
	}
	_, ok := reported(mca)
	return ok
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

// moved reports whether works have moved past the release r: a work's
// content is another than at the release, or a work is new; for a
// release written before Works, their generations passed its own.
func (r Release) moved(w Works) bool {
	if r.Works == nil {
		return w.Generation > r.Generation
	}
	for name, c := range w.Content {
		if was, ok := r.Works[name]; !ok || was != c {
			return true
		}
	}
	return false
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
		if s.Content == nil {
			s.Content = make(map[string]string, 1)
		}
		s.Content[w.Name] = WorkContent(w)
		out[cluster] = s
	}
	return out
}

// contentOf is the content of works, nil-safe, as Held takes it: an
// empty map (no works) when the cluster has none.
func contentOf(w Works) map[string]string {
	if w.Content == nil {
		return map[string]string{}
	}
	return w.Content
}

// sortedReleases sorts out by cluster.
func sortedReleases(out []ReleaseWrite) []ReleaseWrite {
	slices.SortFunc(out, func(a, b ReleaseWrite) int { return strings.Compare(a.Cluster, b.Cluster) })
	return out
}

// cloneContent copies a Works.Content map for a release.
func cloneContent(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return maps.Clone(m)
}
