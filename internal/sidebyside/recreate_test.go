package sidebyside

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	workclient "open-cluster-management.io/api/client/work/clientset/versioned"

	"github.com/rolloutkit/rolloutkit/workgate"
)

// The re-create case of TestWorkGateSideBySide (divergence A10): a
// cluster's work deleted, as an operator does, before the rollout has
// handed the cluster the new hash. addon-framework's by-name renderer
// creates it again at once from the newest spec, under the old hash; the
// work gate judges the create as an update from an empty work and holds
// it until the rollout hands the cluster the new hash.

// recreateKey is the series ("addon/reason") in which our controller
// counts a held re-create, among every other refusal of the same reason:
// the config moved on from the hash the cluster has.
var recreateKey = oursSide.addon + "/" + workgate.ConfigMovedOn.String()

// recreate is one re-create case: the works of cluster deleted on both
// sides.
type recreate struct {
	cluster string
	at      time.Time // when the test asked for the deletes
	// warnings are what the API server warned the deleter of, by add-on:
	// the gate's deletion webhook says what happens to the work created
	// in place of one of ours.
	warnings map[string][]string
	// refused is our controller's count in recreateKey before the
	// deletes.
	refused float64
}

// deleteWorks deletes the deploy work of cluster on both sides, ours
// first, failing t unless our add-on there still has hash old desired.
func (r *run) deleteWorks(t *testing.T, cluster, old string) recreate {
	t.Helper()
	r.rec.mu.Lock()
	desired := view{r.rec}.addon(oursSide.addon, cluster).desired
	r.rec.mu.Unlock()
	require.Equal(t, old, desired, "our add-on on %s was handed the new hash already: too late to delete its work", cluster)
	d := recreate{cluster: cluster, at: time.Now(), warnings: map[string][]string{}, refused: r.gate.refusals(t)[recreateKey]}
	for _, s := range []side{oursSide, ocmSide} {
		warned := &warnings{}
		cfg := rest.CopyConfig(r.hub.cfg)
		cfg.WarningHandler = warned
		c, err := workclient.NewForConfig(cfg)
		require.NoError(t, err)
		require.NoError(t, c.WorkV1().ManifestWorks(cluster).Delete(r.ctx, workName(s.addon), metav1.DeleteOptions{}), "deleting %s's work on %s", s.name, cluster)
		d.warnings[s.addon] = warned.all()
	}
	return d
}

// warnings keeps the warnings the API server sends a client.
type warnings struct {
	mu   sync.Mutex
	text []string
}

// HandleWarningHeader keeps one warning.
func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text = append(w.text, text)
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.text...)
}

var _ rest.WarningHandler = &warnings{}

// recreated is what became of one side's deleted work: its deletion, the
// first version of it after that, and when its add-on was handed the new
// hash.
type recreated struct {
	gone, back workEvent
	handed     time.Time
}

// recreatedOf finds, in a side's history o, the deletion of cluster's
// work after since and the first version of it after that: the work
// created again.
func recreatedOf(o gateOutcome, cluster string, since time.Time) (recreated, bool) {
	out := recreated{handed: o.handed[cluster]}
	found := false
	for _, w := range o.works {
		switch {
		case w.cluster != cluster || w.at.Before(since):
		case !found && w.deleted:
			out.gone, found = w, true
		case found && !w.deleted:
			out.back = w
			return out, true
		}
	}
	return out, false
}

// checkRecreated fails t unless, after the deletes d, OCM's work came back
// at once with newImage under the old hash (checkOCMRecreated), and ours,
// deleted while our add-on still had the old hash, came back only once the
// rollout handed the cluster the new hash target (checkOursRecreated).
func (r *run) checkRecreated(t *testing.T, d recreate, ocm, ours gateOutcome, newImage, old, target string) {
	t.Helper()
	c := d.cluster
	o, ok := recreatedOf(ocm, c, d.at)
	require.True(t, ok, "OCM's work on %s was not deleted and created again (deleted: %v)", c, !o.gone.at.IsZero())
	w, ok := recreatedOf(ours, c, d.at)
	require.True(t, ok, "our work on %s was not deleted and created again (deleted: %v)", c, !w.gone.at.IsZero())
	require.True(t, w.gone.at.Before(w.handed), "our work on %s was deleted at %+.1fs, once its add-on had the new hash (%+.1fs): the case shows nothing",
		c, w.gone.at.Sub(ours.change).Seconds(), w.handed.Sub(ours.change).Seconds())
	creates := heldCreates(r.gate.witness.seen(), c, d.at)
	refusals := r.gate.refusals(t)[recreateKey] - d.refused
	offset := func(at time.Time) string {
		if at.IsZero() {
			return "never"
		}
		return fmt.Sprintf("%+.1fs", at.Sub(ours.change).Seconds())
	}
	t.Logf("the re-create case on %s, from the change: deletes asked at %s\n"+
		"  OCM's work: deleted %s, back %s (%.1fs after) with image %q under hash %.8s; its add-on handed the new hash %s\n"+
		"  ours: deleted %s, its creates refused by the gate %d times (%s..%s; %s refusals our controller counted meanwhile, of all our works: %.0f); "+
		"its add-on handed the new hash %s; back %s with image %q under hash %.8s\n"+
		"  the deleter's warnings: OCM's %q; ours %q",
		c, offset(d.at),
		offset(o.gone.at), offset(o.back.at), o.back.at.Sub(o.gone.at).Seconds(), o.back.image, o.back.target, offset(o.handed),
		offset(w.gone.at), len(creates.refused), offset(creates.first), offset(creates.last), workgate.ConfigMovedOn, refusals,
		offset(w.handed), offset(w.back.at), w.back.image, w.back.target,
		d.warnings[ocmSide.addon], d.warnings[oursSide.addon])
	checkOCMRecreated(t, c, o, d.warnings[ocmSide.addon], newImage, old)
	r.checkOursRecreated(t, d, w, creates, refusals, newImage, target)
}

// checkOCMRecreated fails t unless OCM's work on cluster came back within
// leakWithin of its deletion, carrying newImage under the old hash, before
// OCM's rollout handed the cluster the new hash, and its deleter was
// warned of nothing. (That the gate was not asked about it at all,
// checkRefusals reads from the witness.)
func checkOCMRecreated(t *testing.T, cluster string, o recreated, warned []string, newImage, old string) {
	t.Helper()
	assert.LessOrEqual(t, o.back.at.Sub(o.gone.at), leakWithin, "OCM's work on %s came back only %s after it was deleted", cluster, o.back.at.Sub(o.gone.at))
	assert.Equal(t, newImage, o.back.image, "the image of OCM's work on %s when it came back", cluster)
	assert.Equal(t, old, o.back.target, "OCM's work on %s came back under an annotation naming %.8s, want the old hash %.8s", cluster, o.back.target, old)
	assert.True(t, o.back.at.Before(o.handed), "OCM's work on %s came back after its add-on had the new hash", cluster)
	assert.Empty(t, warned, "the deleter of OCM's work was warned")
}

// checkOursRecreated fails t unless our work on d.cluster came back only
// once its add-on was handed the new hash, with newImage under target;
// its deleter was warned that the gate holds the work created in its
// place; and meanwhile the gate held its creates: the witness saw the
// API server ask about them and the gate refuse them with its message
// (ConfigMovedOn: "has moved on"), admitting none before the handover; our
// controller counted ConfigMovedOn refusals; and the renderer reported the
// API server's refusal in the add-on's ManifestApplied condition.
func (r *run) checkOursRecreated(t *testing.T, d recreate, w recreated, creates createsSeen, refusals float64, newImage, target string) {
	t.Helper()
	c := d.cluster
	assert.False(t, w.back.at.Before(w.handed.Add(-watchSkew)), "our work on %s came back %.1fs before its add-on was handed the new hash", c, w.handed.Sub(w.back.at).Seconds())
	assert.Equal(t, newImage, w.back.image, "the image of our work on %s when it came back", c)
	assert.Equal(t, target, w.back.target, "the hash our work on %s came back under", c)
	if warned := d.warnings[oursSide.addon]; assert.Len(t, warned, 1, "the deleter of our work is warned what happens to the work created in its place") {
		assert.Contains(t, warned[0], "holds it until the rollout reaches the cluster", "the deleter's warning")
	}

	assert.NotEmpty(t, creates.refused, "the API server never asked the gate about a create of our work on %s, or the gate never held one", c)
	for _, at := range creates.admitted {
		assert.False(t, at.Before(w.handed.Add(-watchSkew)), "the gate admitted a create of our work on %s %.1fs before its add-on was handed the new hash", c, w.handed.Sub(at).Seconds())
	}
	movedOn := false
	for _, msg := range creates.refused {
		assert.True(t, strings.HasPrefix(msg, workgate.Marker+": the new work "), "the gate's message on a held create: %q", msg)
		movedOn = movedOn || strings.Contains(msg, "has moved on")
	}
	assert.True(t, movedOn, "no held create of our work on %s says its config has moved on: %q", c, creates.refused)
	assert.Positive(t, refusals, "our controller counted no %s refusal while the create of our work on %s was held", workgate.ConfigMovedOn, c)
	assert.True(t, r.reportedHeldCreate(c, d.at), "our add-on on %s never reported the API server's refusal of its work's create in its ManifestApplied condition", c)
}

// createsSeen are the creates of one cluster's work of ours the API server
// asked the gate about, as the witness saw them.
type createsSeen struct {
	refused     []string    // the gate's messages, one a refusal
	first, last time.Time   // the first and the last refusal
	admitted    []time.Time // when the gate admitted one
}

// heldCreates returns the creates of our work on cluster the API server
// asked the gate about after since.
func heldCreates(calls []gateCall, cluster string, since time.Time) createsSeen {
	var out createsSeen
	for _, c := range about(calls, oursSide.addon) {
		if c.operation != "CREATE" || c.namespace != cluster || c.at.Before(since) {
			continue
		}
		if c.allowed {
			out.admitted = append(out.admitted, c.at)
			continue
		}
		if out.first.IsZero() {
			out.first = c.at
		}
		out.refused, out.last = append(out.refused, c.message), c.at
	}
	return out
}

// reportedHeldCreate reports whether our add-on on cluster said, after
// since, in its ManifestApplied condition, that the API server refused a
// create of its work with the gate's message: what addon-framework
// reports of a refused write.
func (r *run) reportedHeldCreate(cluster string, since time.Time) bool {
	events, _ := r.rec.history(oursSide.addon)
	for _, e := range events {
		c := e.state.manifestApplied
		if e.cluster == cluster && !e.at.Before(since) && c != nil && c.Status == metav1.ConditionFalse &&
			strings.Contains(c.Message, workgate.Marker+": the new work ") {
			return true
		}
	}
	return false
}
