package hubplan

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// HoldAnnotation, on a ManagedClusterAddOn, is the work gate's record
// that it holds writes of the cluster's works of the add-on: a JSON
// [Hold]. The gate writes it when it holds a write, and takes a work out
// of it when it admits new content of that work; the rollout reads it,
// not the add-on's conditions, so that what it learns of a hold does not
// depend on how the add-on's manager reports a refused write.
const HoldAnnotation = "rolloutkit.io/held"

// The reasons of a [Hold] that say the add-on's manager has a new
// rendering of unchanged configs: the work gate's reasons of the same
// names (workgate.RenderingHeld, workgate.RenderingTaken).
const (
	// HoldRenderingHeld: new content under unchanged configs, on a
	// cluster no rendering rollout is releasing.
	HoldRenderingHeld = "RenderingHeld"
	// HoldRenderingTaken: a further change of content on a cluster
	// released for a rendering revision that has taken its one change
	// already.
	HoldRenderingTaken = "RenderingTaken"
)

// Hold is what the work gate holds of one cluster's works of an add-on.
type Hold struct {
	// Since is when the gate first held a write of the cluster's works
	// since it last held none.
	Since metav1.Time `json:"since"`
	// Last is when the gate last recorded a held write (zero in a record
	// written before it was kept: Since stands for it).
	Last metav1.Time `json:"last,omitempty"`
	// Reason is the gate's reason for the last write it held
	// (workgate.Reason's name).
	Reason string `json:"reason"`
	// Key names what the last write held carries (its configs' spec
	// hashes and the rendering revision under way): the same write held
	// again has the same key.
	Key string `json:"key,omitempty"`
	// Why is the gate's reason in words, without what the cluster's group
	// waits for.
	Why string `json:"why"`
	// Rendering is the rendering revision in flight when the gate held
	// the last write ("" when none was): a rendering held under the
	// revision in flight on a cluster that took it is a further
	// rendering, which supersedes it.
	Rendering string `json:"rendering,omitempty"`
	// Works are the works held, by name: each with the [WorkContent] it
	// had when its write was held, "" for a work the gate held from being
	// created. A work's hold is over once its content is another (or,
	// for one held from being created, once it exists).
	Works map[string]string `json:"works"`
	// HeldAt is when the gate last recorded a held write of each work of
	// Works, by name, to the second (absent in a record written before it
	// was kept, or for a work: Last stands for it). A release ends the
	// hold of a work held before it that its manager no longer writes
	// (overByRelease), even when another work was held after it.
	HeldAt map[string]metav1.Time `json:"heldAt,omitempty"`
}

// ReadHold reads the hold recorded on mca; false when there is none, or
// one that does not parse.
func ReadHold(mca *addonv1beta1.ManagedClusterAddOn) (Hold, bool) {
	var h Hold
	if mca == nil || !readJSONAnnotation(mca.Annotations, HoldAnnotation, &h) || len(h.Works) == 0 {
		return Hold{}, false
	}
	return h, true
}

// Annotation is the hold as its annotation's value.
func (h Hold) Annotation() (string, error) {
	b, err := json.Marshal(h)
	if err != nil {
		return "", fmt.Errorf("hold of %d works: %w", len(h.Works), err)
	}
	return string(b), nil
}

// Held returns, sorted, the works of the hold that are still held, given
// what the cluster's works hold now (content: [WorkContent] by name, as
// [Works.Content]): those whose content is still what it was when the
// gate held their write, and those it held from being created that do not
// exist.
func (h Hold) Held(content map[string]string) []string {
	var out []string
	for name, was := range h.Works {
		if content[name] == was {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Missing returns, sorted, the works of the hold the gate holds from
// being created that do not exist (content as for Held).
func (h Hold) Missing(content map[string]string) []string {
	var out []string
	for name, was := range h.Works {
		if _, ok := content[name]; !ok && was == "" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// HeldWrite is one write of a work the work gate held.
type HeldWrite struct {
	// Work is the work's name.
	Work string
	// Content is the work's [WorkContent] as stored; "" for a create.
	Content string
	// Reason, Key, Why and Rendering are the hold's (see [Hold]).
	Reason, Key, Why, Rendering string
}

// WithHeld returns hold (nil: none) with write w held at now. content is
// what the cluster's works hold now ([Works.Content]; nil when not known):
// the works of hold no longer held under it ([Hold.Held]) are dropped,
// and a hold none of whose works is still held starts afresh. A hold
// keeps its Since while one of its works is still held. changed reports
// whether the record differs from hold: a write held again with the same
// reason, key and content changes nothing, so that the gate writes the
// record once, not at every retry.
func WithHeld(hold *Hold, w HeldWrite, now time.Time, content map[string]string) (next Hold, changed bool) {
	at := metav1.NewTime(now.UTC().Truncate(time.Second))
	fresh := Hold{Since: at, Works: map[string]string{}, HeldAt: map[string]metav1.Time{}}
	switch {
	case hold == nil:
		next = fresh
	default:
		next = *hold
		next.Works = maps.Clone(hold.Works)
		if next.Works == nil {
			next.Works = map[string]string{}
		}
		next.HeldAt = maps.Clone(hold.HeldAt)
		if next.HeldAt == nil {
			next.HeldAt = map[string]metav1.Time{}
		}
		if content != nil {
			held := hold.Held(content)
			gone := func(name string) bool { return !slices.Contains(held, name) }
			maps.DeleteFunc(next.Works, func(name, _ string) bool { return gone(name) })
			maps.DeleteFunc(next.HeldAt, func(name string, _ metav1.Time) bool { return gone(name) })
			if len(held) == 0 {
				next = fresh
			}
		}
	}
	next.Works[w.Work] = w.Content
	next.Reason, next.Key, next.Why, next.Rendering = w.Reason, w.Key, w.Why, w.Rendering
	changed = hold == nil || !maps.Equal(hold.Works, next.Works) || !hold.Since.Equal(&next.Since) || hold.Reason != w.Reason ||
		hold.Key != w.Key || hold.Why != w.Why || hold.Rendering != w.Rendering
	if changed {
		next.Last = at
		next.HeldAt[w.Work] = at
	}
	return next, changed
}

// heldAt is when the gate last recorded a held write of work.
func (h Hold) heldAt(work string) metav1.Time {
	if at, ok := h.HeldAt[work]; ok {
		return at
	}
	return h.lastHeld()
}

// lastHeld is when the gate last recorded a held write of the hold.
func (h Hold) lastHeld() metav1.Time {
	if h.Last.IsZero() {
		return h.Since
	}
	return h.Last
}

// overByRelease reports whether a hold is over, now that a work of the
// cluster moved past rel (moved: Release.moved of the cluster's works
// now), given what the cluster's works hold now (content, as for Held):
// when every work still held had its write held before rel (in its
// second or earlier). An add-on's manager writes all of a cluster's works
// in each pass: the pass that moved one of them under the release left
// the works still held as they are, so it has nothing more for them. A
// held work whose content moved on is over anyway (Hold.Held); this ends
// the record of one the manager stopped writing, as addon-framework does
// when it moves a manifest from one of a cluster's works to another while
// the first write is held. Without it, such a record would keep the
// cluster from being done for good. A write of another work held after
// the release (a manager's stale claim the gate refused, say) keeps no
// such work held once that other work moved on too.
func (h Hold) overByRelease(rel Release, moved bool, content map[string]string) bool {
	if !moved || !rel.Held {
		return false
	}
	for _, name := range h.Held(content) {
		if at := h.heldAt(name); at.After(rel.ReleasedAt.Time) {
			return false
		}
	}
	return true
}

// WithAdmitted returns hold with work out of it, once the gate admitted
// new content of it; ok is false when nothing is left held (the
// annotation goes). changed reports whether work was in it.
func WithAdmitted(hold Hold, work string) (next Hold, ok, changed bool) {
	if _, in := hold.Works[work]; !in {
		return hold, len(hold.Works) > 0, false
	}
	next = hold
	next.Works = maps.Clone(hold.Works)
	delete(next.Works, work)
	if _, in := hold.HeldAt[work]; in {
		next.HeldAt = maps.Clone(hold.HeldAt)
		delete(next.HeldAt, work)
	}
	return next, len(next.Works) > 0, true
}

// WorkContent is a digest of w's spec.workload: its manifests, as the
// API server holds them. Two works whose manifests are the same bytes
// have the same content; any other change of a manifest changes it.
func WorkContent(w *workv1.ManifestWork) string {
	if w == nil {
		return ""
	}
	h := sha256.New()
	var n [8]byte
	for _, m := range w.Spec.Workload.Manifests {
		raw := m.Raw
		if len(raw) == 0 && m.Object != nil {
			b, err := json.Marshal(m.Object)
			if err == nil {
				raw = b
			}
		}
		binary.BigEndian.PutUint64(n[:], uint64(len(raw)))
		h.Write(n[:])
		h.Write(raw)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:32]
}

// ReasonGateUnavailable is the reason of a hold the work gate could not
// record: the add-on's manager reports (its ManifestApplied or
// HostingManifestApplied condition) that the API server could not ask the
// gate (no replica answered) and refused its write (failurePolicy Fail).
// A refusal of the gate itself is recorded by the gate; one its manager
// reports without a record is taken for an old report.
const ReasonGateUnavailable = "GateUnavailable"

// reported returns the hold the add-on's manager reports, since it
// reported it: its last write of a work refused for want of the gate (its
// ManifestApplied or HostingManifestApplied condition False, naming the
// gate's webhook).
func reported(mca *addonv1beta1.ManagedClusterAddOn) (Hold, bool) {
	for _, typ := range []string{addonv1beta1.ManagedClusterAddOnManifestApplied, addonv1beta1.ManagedClusterAddOnHostingManifestApplied} {
		c := meta.FindStatusCondition(mca.Status.Conditions, typ)
		if c != nil && c.Status == metav1.ConditionFalse && strings.Contains(c.Message, `"`+WorkGateWebhook+`"`) {
			return Hold{Since: c.LastTransitionTime, Reason: ReasonGateUnavailable, Why: c.Message}, true
		}
	}
	return Hold{}, false
}
