package sidebyside

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/workgate"
)

// leakWithin is how soon after a config change a work rendered by name
// carries the new spec: the shared agents re-render every add-on that
// refers to the config when it changes (0.1-0.6 s on a machine at rest).
const leakWithin = 3 * time.Second

// watchSkew is how much earlier than its add-on's change the recorder
// may see a work written in answer to it: the two come on two watches.
const watchSkew = time.Second

// TestWorkGateSideBySide rolls one config change out with OCM v1.2.0's
// add-on manager and with ours, on one hub, with the shared agents
// rendering every work by name as cluster-proxy does, and with our
// controller serving the work gate through the shipped configuration (a
// witness between the hub and the gate keeps what it was asked). It
// shows the leak the gate closes: OCM's prod works carry the new image
// within seconds of the change, while OCM's prod add-ons still have the
// old hash desired and their works' annotations name it; ours carry it
// only once our rollout hands prod the new hash, after dev's and stg's
// soaks, and every version of our works carries the image of the spec its
// annotation names. The gate refused our early renderings (its metric,
// and our add-ons' ManifestApplied condition); OCM's works were never
// sent to it (the controller scopes the configuration to our add-on's
// works), though asked it would admit them (NotTaken): OCM's side runs as
// it does without the gate, and the two rollouts still agree as
// TestAddOnManagerSideBySide's seed story does.
//
// Then the re-create case (A10): while our prod add-ons still have the old
// hash desired, the first prod cluster's work is deleted on both sides, as
// an operator does. The shared renderer creates OCM's again at once, with
// the new image under the old hash; the gate holds our create (the API
// server refuses it with the gate's message, ConfigMovedOn), so our work
// stays absent until our rollout hands that cluster the new hash, and
// then comes back with the new image.
func TestWorkGateSideBySide(t *testing.T) {
	t.Parallel()
	s := setup{sizes: [3]int{2, 2, 3}, strategy: perGroup("1m", 0), apply: applyDelay, soak: soakTime, byName: true, gate: true}
	r := newRun(t, s)
	v1, v2 := configHash(t, "v1"), configHash(t, "v2")
	images := map[string]string{v1: image("v1"), v2: image("v2")}
	groups := clusterNames(s.sizes)
	prod := groups[2]
	ocmBefore, oursBefore := r.deployWork(ocmSide, prod[0]), r.deployWork(oursSide, prod[0])
	callsBefore := r.gate.gateCalls(r.ctx, t, r.hub)

	r.change("change", "v2")
	change := r.current().start
	r.rec.waitFor(t, 30*time.Second, "OCM's prod works carry v2's image", func(v view) (bool, string) {
		for _, c := range prod {
			if w := v.work(ocmSide.addon, c); w.image != images[v2] {
				return false, fmt.Sprintf("OCM's work on %s carries %q", c, w.image) + r.procsExited()
			}
		}
		return true, ""
	})
	r.checkGateAnswers(t, ocmBefore, oursBefore, images[v2], v1)
	deleted := r.deleteWorks(t, prod[0], v1)
	r.waitRolledOut("change", 2*time.Minute)
	callsAfter := r.gate.gateCalls(r.ctx, t, r.hub)

	ocm, ours := r.gateOutcome(ocmSide, change, images[v2], v2), r.gateOutcome(oursSide, change, images[v2], v2)
	// OCM's stg and prod works carry v2 before their add-ons are handed
	// it, so OCM's handovers need no apply: its groups follow one another
	// a soak apart, ours an apply and a soak.
	t.Logf("from the change: when each cluster's work first carried v2's image, and when its add-on was handed v2's hash\n%s",
		gateFigures(r.clusters, ocm, ours))
	t.Logf("the API server's calls of the gate during the rollout: %s; refusals counted by our controller: %v; what the gate was asked:%s",
		callsAfter.minus(callsBefore), r.gate.refusals(t), askedFigures(r.gate.witness.seen(), change))

	checkOCMLeaked(t, ocm, prod, v1)
	r.checkOursStaged(t, ours, images, images[v2], groups)
	r.checkRefusals(t, change, callsAfter.minus(callsBefore))
	r.checkRecreated(t, deleted, ocm, ours, images[v2], v1, v2)

	c := r.compare()
	r.checkHandover(t)
	t.Logf("timeline:%s%s", r.timeline(ocmSide), r.timeline(oursSide))
	for _, d := range c.differences {
		ids, ok := explain(d, []divergence{w2(), a1()})
		assert.True(t, ok, "a difference no divergence explains: %s", d)
		if ok {
			t.Logf("explained by %v: %s", ids, d)
		}
	}
}

// deployWork reads a side's deploy work on cluster.
func (r *run) deployWork(s side, cluster string) *workv1.ManifestWork {
	r.tb.Helper()
	w, err := r.hub.work.WorkV1().ManifestWorks(cluster).Get(r.ctx, workName(s.addon), metav1.GetOptions{})
	require.NoError(r.tb, err)
	return w
}

// workName is the name the shared renderer gives an add-on's deploy work.
func workName(addon string) string { return "addon-" + addon + "-deploy-0" }

// checkGateAnswers asks the gate directly, as the API server would, about
// the two updates the agents made or tried on the first prod cluster when
// the config changed, while our prod add-on still has hash old desired:
// OCM's (from before the change to its work now), which the API server
// never sends the gate, would be admitted, its add-on not being ours
// (NotTaken); ours (the same change of image) is held.
func (r *run) checkGateAnswers(t *testing.T, ocmBefore, oursBefore *workv1.ManifestWork, newImage, old string) {
	t.Helper()
	ocmNow := r.deployWork(ocmSide, ocmBefore.Namespace)
	resp, err := r.gate.review(r.ctx, ocmBefore, ocmNow)
	require.NoError(t, err)
	require.NotNil(t, resp.Result, "the gate's answer about OCM's work")
	assert.True(t, resp.Allowed, "the gate held OCM's work: %s", resp.Result.Message)
	assert.Equal(t, workgate.NotTaken.String(), resp.Result.Message, "the gate's reason to admit OCM's work")
	admitted := resp.Result.Message

	r.rec.mu.Lock()
	desired := view{r.rec}.addon(oursSide.addon, oursBefore.Namespace).desired
	r.rec.mu.Unlock()
	require.Equal(t, old, desired, "our add-on on %s was handed the new hash already: too late to ask about its early rendering", oursBefore.Namespace)
	resp, err = r.gate.review(r.ctx, oursBefore, withImage(t, oursBefore, newImage))
	require.NoError(t, err)
	require.NotNil(t, resp.Result, "the gate's answer about our work")
	assert.False(t, resp.Allowed, "the gate admitted our work carrying %s while %s waits for the rollout", newImage, oursBefore.Namespace)
	assert.True(t, strings.HasPrefix(resp.Result.Message, workgate.Marker+": "), "the gate's message %q does not start with %q", resp.Result.Message, workgate.Marker)
	t.Logf("asked directly about the first prod cluster's update, the gate would admit OCM's (%s) and holds ours: %s", admitted, resp.Result.Message)
}

// gateOutcome is when each cluster's work of one side first carried the
// new image, and when its add-on was handed the new hash, after a change;
// and every version of its works.
type gateOutcome struct {
	firstNew map[string]workEvent
	handed   map[string]time.Time
	works    []workEvent
	addons   []addonEvent
	change   time.Time
}

// gateOutcome reads from the recorder what side did after the change at
// change to the config with hash target and agent image newImage.
func (r *run) gateOutcome(s side, change time.Time, newImage, target string) gateOutcome {
	events, _ := r.rec.history(s.addon)
	o := gateOutcome{firstNew: map[string]workEvent{}, handed: map[string]time.Time{}, works: r.rec.workHistory(s.addon), addons: events, change: change}
	for _, w := range o.works {
		if _, ok := o.firstNew[w.cluster]; !ok && !w.at.Before(change) && w.image == newImage {
			o.firstNew[w.cluster] = w
		}
	}
	for _, e := range events {
		if _, ok := o.handed[e.cluster]; !ok && !e.at.Before(change) && e.state.desired == target {
			o.handed[e.cluster] = e.at
		}
	}
	return o
}

// gateFigures tabulates both sides' outcomes, cluster by cluster, in
// seconds from the change.
func gateFigures(clusters []string, ocm, ours gateOutcome) string {
	off := func(o gateOutcome, at time.Time, ok bool) string {
		if !ok {
			return "never"
		}
		return fmt.Sprintf("%+.1fs", at.Sub(o.change).Seconds())
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "  %-9s | %-14s | %-14s | %-14s | %-14s\n", "cluster", "OCM work v2", "OCM handed v2", "ours work v2", "ours handed v2")
	for _, c := range clusters {
		ow, ook := ocm.firstNew[c]
		oh, ohok := ocm.handed[c]
		rw, rok := ours.firstNew[c]
		rh, rhok := ours.handed[c]
		fmt.Fprintf(&sb, "  %-9s | %-14s | %-14s | %-14s | %-14s\n", c, off(ocm, ow.at, ook), off(ocm, oh, ohok), off(ours, rw.at, rok), off(ours, rh, rhok))
	}
	return sb.String()
}

// checkOCMLeaked fails t unless OCM's work on every prod cluster carried
// the new image within leakWithin of the change, under an annotation that
// still named the old hash, a soak or more before OCM's rollout handed
// the cluster the new hash.
func checkOCMLeaked(t *testing.T, ocm gateOutcome, prod []string, old string) {
	t.Helper()
	for _, c := range prod {
		w, ok := ocm.firstNew[c]
		if !assert.True(t, ok, "OCM's work on %s never carried the new image", c) {
			continue
		}
		assert.LessOrEqual(t, w.at.Sub(ocm.change), leakWithin, "OCM's work on %s carried the new image only %s after the change", c, w.at.Sub(ocm.change))
		assert.Equal(t, old, w.target, "OCM's work on %s carried the new image under an annotation naming %.8s, want the old hash %.8s", c, w.target, old)
		assert.GreaterOrEqual(t, ocm.handed[c].Sub(w.at), soakTime, "OCM's work on %s carried the new image at %+.1fs, its add-on was handed the new hash at %+.1fs: want a soak or more before",
			c, w.at.Sub(ocm.change).Seconds(), ocm.handed[c].Sub(ocm.change).Seconds())
	}
}

// checkOursStaged fails t unless every version of our works carried the
// image of the spec its annotation names, every cluster's work carried
// the new image only once its add-on was handed the new hash, and prod's
// only after stg's works were ready with it and had soaked.
func (r *run) checkOursStaged(t *testing.T, ours gateOutcome, images map[string]string, newImage string, groups [][]string) {
	t.Helper()
	var mismatched []string
	for _, w := range ours.works {
		if w.deleted {
			continue
		}
		if want, ok := images[w.target]; !ok || w.image != want {
			mismatched = append(mismatched, fmt.Sprintf("%s at %+.1fs: image %q, annotation %.8s (image %q)", w.cluster, w.at.Sub(ours.change).Seconds(), w.image, w.target, want))
		}
	}
	assert.Empty(t, mismatched, "versions of our works whose image is not that of the spec their annotation names")
	for _, c := range r.clusters {
		w, ok := ours.firstNew[c]
		if !assert.True(t, ok, "our work on %s never carried the new image", c) {
			continue
		}
		assert.False(t, w.at.Before(ours.handed[c].Add(-watchSkew)), "our work on %s carried the new image at %+.1fs, its add-on was handed the new hash at %+.1fs",
			c, w.at.Sub(ours.change).Seconds(), ours.handed[c].Sub(ours.change).Seconds())
	}
	var stgSoaked time.Time
	for _, c := range groups[1] {
		for _, w := range ours.works {
			if w.cluster == c && w.ready && w.image == newImage && !w.at.Before(ours.change) {
				stgSoaked = latest(stgSoaked, w.at.Add(soakTime))
				break
			}
		}
	}
	require.False(t, stgSoaked.IsZero(), "no stg work of ours was ever ready with the new image")
	for _, c := range groups[2] {
		w := ours.firstNew[c]
		assert.False(t, w.at.Before(stgSoaked.Add(-readyTolerance)), "our work on %s carried the new image at %+.1fs, before stg had soaked (%+.1fs)",
			c, w.at.Sub(ours.change).Seconds(), stgSoaked.Sub(ours.change).Seconds())
	}
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// checkRefusals fails t unless the gate refused our early renderings (its
// metric, and every prod add-on of ours showing the refusal in its
// ManifestApplied condition), refused nothing of OCM's, and is scoped to
// our works: the objectSelector of each of its webhooks selects ours and
// not OCM's, and the API server asked it about ours and never about
// OCM's, whose every change landed.
func (r *run) checkRefusals(t *testing.T, change time.Time, calls webhookCalls) {
	t.Helper()
	byAddon := map[string]float64{}
	for k, v := range r.gate.refusals(t) {
		addon, _, _ := strings.Cut(k, "/")
		byAddon[addon] += v
	}
	assert.Positive(t, byAddon[oursSide.addon], "the gate counted no refusal of our works")
	assert.Zero(t, byAddon[ocmSide.addon], "the gate counted refusals of OCM's works")
	assert.Positive(t, calls.rejected, "the API server saw the gate reject nothing")

	refusedOn := func(s side) []string {
		events, _ := r.rec.history(s.addon)
		var out []string
		for _, e := range events {
			c := e.state.manifestApplied
			if !e.at.Before(change) && c != nil && c.Status == metav1.ConditionFalse && strings.Contains(c.Message, workgate.Marker) && !slices.Contains(out, e.cluster) {
				out = append(out, e.cluster)
			}
		}
		slices.Sort(out)
		return out
	}
	ours := refusedOn(oursSide)
	t.Logf("our add-ons whose ManifestApplied condition reported the gate's refusal: %v", ours)
	for _, c := range clusterNames(r.setup.sizes)[2] {
		assert.Contains(t, ours, c, "our add-on on %s never reported the gate's refusal in its ManifestApplied condition", c)
	}
	assert.Empty(t, refusedOn(ocmSide), "OCM's add-ons that reported a refusal of the gate")

	prod0 := clusterNames(r.setup.sizes)[2][0]
	ocmWork, ourWork := r.deployWork(ocmSide, prod0), r.deployWork(oursSide, prod0)
	why, err := r.gate.scoped(r.ctx, r.hub, labels.Set(ourWork.Labels), labels.Set(ocmWork.Labels))
	require.NoError(t, err)
	assert.Empty(t, why, "the gate's scope: want our works selected and OCM's not")
	asked := r.gate.witness.seen()
	assert.NotEmpty(t, about(asked, oursSide.addon), "the API server never asked the gate about our works")
	assert.Empty(t, about(asked, ocmSide.addon), "the API server asked the gate about OCM's works")
}

// askedFigures tells what the API server asked the gate since from, by
// add-on, operation and answer.
func askedFigures(calls []gateCall, from time.Time) string {
	n := map[string]int{}
	for _, c := range calls {
		if c.at.Before(from) {
			continue
		}
		verdict := "admitted"
		if !c.allowed {
			verdict = "refused"
		}
		n[fmt.Sprintf("%v %s %s", c.addons, c.operation, verdict)]++
	}
	var sb strings.Builder
	for _, k := range slices.Sorted(maps.Keys(n)) {
		fmt.Fprintf(&sb, "\n  %s: %d", k, n[k])
	}
	return sb.String()
}
