package workgate_test

import (
	"maps"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// decideCase is one request to the gate and the decision it should get.
type decideCase struct {
	name    string
	req     workgate.Request
	cluster workgate.Cluster
	want    workgate.Reason
	// says are parts of the held message beyond what every held message
	// says (checkMessage).
	says []string
}

// decideCases are the cases of TestDecide, built afresh on every call:
// no two tests share a work or a map.
func decideCases() []decideCase {
	onA, onB := hashes(at(hashA)), hashes(at(hashB))
	changed := func(stored, proposed string) workgate.Request {
		return update(work(imageV1, stored), work(imageV2, proposed))
	}
	metadataOnly := func() workgate.Request {
		stored, proposed := work(imageV1, onA), work(imageV1, onA)
		proposed.Labels["team"], proposed.ResourceVersion, proposed.Generation = "proxy", "81301", 5
		proposed.Spec.DeleteOption = &workv1.DeleteOption{PropagationPolicy: workv1.DeletePropagationPolicyTypeOrphan}
		return update(stored, proposed)
	}
	return []decideCase{
		// Exempt: not a create or an update of the work itself.
		{name: "delete", req: workgate.Request{Operation: workgate.Delete, Old: work(imageV1, onA)},
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.Exempt},
		{name: "status subresource", req: workgate.Request{Operation: workgate.Update, SubResource: "status",
			Old: work(imageV1, onA), New: work(imageV2, onB)},
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.Exempt},
		{name: "update without old", req: workgate.Request{Operation: workgate.Update, New: work(imageV2, onB)},
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.Exempt},
		{name: "update without new", req: workgate.Request{Operation: workgate.Update, Old: work(imageV1, onA)},
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.Exempt},
		{name: "create without new", req: workgate.Request{Operation: workgate.Create},
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.Exempt},
		{name: "connect", req: workgate.Request{Operation: "CONNECT", Old: work(imageV1, onA), New: work(imageV2, onB)},
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.Exempt},
		{name: "another cluster's work", req: changed(onA, onB),
			cluster: func() workgate.Cluster { c := prodEU1(at(hashB), at(hashB)); c.Name = "prod-eu-2"; return c }(), want: workgate.Exempt},

		// Creates: judged as an update from an empty work.
		{name: "create with the handed configs", req: create(work(imageV2, onB)),
			cluster: prodEU1(at(hashB), at(hashB)), want: workgate.Created},
		{name: "create of an add-on without configs", req: create(work(imageV1, "")),
			cluster: prodEU1(nil, nil), want: workgate.Created},
		{name: "create of an add-on with configs, none handed yet", req: create(work(imageV2, "")),
			cluster: prodEU1(nil, nil, configured), want: workgate.NotHandedOver,
			says: []string{"the rollout has handed prod-eu-1 no configs yet"}},
		{name: "create with the handed configs of an add-on with configs", req: create(work(imageV2, onB)),
			cluster: prodEU1(at(hashB), at(hashB), configured), want: workgate.Created},
		{name: "update of an add-on with configs, none handed yet", req: changed("", ""),
			cluster: prodEU1(nil, nil, configured), want: workgate.NotHandedOver},
		{name: "re-create during a halt: the newest spec under the old hash", req: create(work(imageV2, onA)),
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.ConfigMovedOn,
			says: []string{"the new work addon-cluster-proxy-deploy-0 of add-on cluster-proxy on cluster prod-eu-1 (group prod) is held: config " + proxyName + " has moved on"}},
		{name: "create claiming a spec not handed over", req: create(work(imageV2, onB)),
			cluster: prodEU1(at(hashA), at(hashA)), want: workgate.NotHandedOver},
		{name: "create before any config was handed", req: create(work(imageV2, "")),
			cluster: prodEU1(nil, nil, pending), want: workgate.RenderingPending,
			says: []string{"the new work addon-cluster-proxy-deploy-0", "rendering revision " + rendering + " is rolling out and has not reached prod-eu-1 yet"}},
		{name: "create while a rendering rollout has not reached the cluster", req: create(work(imageV2, onB)),
			cluster: prodEU1(at(hashB), at(hashB), pending), want: workgate.RenderingPending},
		{name: "create of a released cluster", req: create(work(imageV2, onB)),
			cluster: prodEU1(at(hashB), at(hashB), released(work(imageV1, onB))), want: workgate.RenderingReleased},
		{name: "create of a cluster that took the rendering", req: create(work(imageV2, onB)),
			cluster: prodEU1(at(hashB), at(hashB), took), want: workgate.Created},
		{name: "create with an unreadable annotation", req: create(work(imageV2, `{"`)),
			cluster: prodEU1(at(hashB), at(hashB)), want: workgate.Unreadable},

		// Relabels: a work cannot leave the gate.
		{name: "add-on label dropped", req: update(work(imageV1, onA), relabelled(work(imageV1, onA), map[string]*string{"open-cluster-management.io/addon-name": nil})),
			cluster: prodEU1(at(hashA), at(hashA)), want: workgate.RenderingHeld,
			says: []string{"relabelled out of add-on cluster-proxy on cluster prod-eu-1"}},
		{name: "add-on label renamed, judged for the add-on it left", req: update(work(imageV1, onA), relabelled(work(imageV1, onA), map[string]*string{"open-cluster-management.io/addon-name": ptr("other")})),
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.ConfigMovedOn},
		{name: "add-on label renamed, judged for the add-on it joins", req: update(relabelled(work(imageV1, onA), map[string]*string{"open-cluster-management.io/addon-name": ptr("other")}), work(imageV1, onA)),
			cluster: prodEU1(at(hashA), at(hashA)), want: workgate.Created},
		{name: "addon-namespace moved away", req: update(work(imageV1, onA), relabelled(work(imageV1, onA), map[string]*string{"open-cluster-management.io/addon-namespace": ptr("lab-1")})),
			cluster: prodEU1(at(hashA), at(hashA), pending), want: workgate.RenderingPending,
			says: []string{"relabelled out of add-on cluster-proxy on cluster prod-eu-1"}},
		{name: "addon-namespace moved, judged for the cluster it joins", req: update(work(imageV1, onA), relabelled(work(imageV1, onA), map[string]*string{"open-cluster-management.io/addon-namespace": ptr("lab-1")})),
			cluster: func() workgate.Cluster { c := prodEU1(at(hashB), at(hashB)); c.Name = "lab-1"; return c }(), want: workgate.NotHandedOver,
			says: []string{"the new work addon-cluster-proxy-deploy-0 of add-on cluster-proxy on cluster lab-1"}},

		{name: "add-on not taken", req: changed(onA, `{"not json`),
			cluster: prodEU1(at(hashA), at(hashB), notTaken), want: workgate.NotTaken},

		// ContentUnchanged: whatever the annotation says.
		{name: "same work", req: update(work(imageV1, onA), work(imageV1, onA)),
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.ContentUnchanged},
		{name: "metadata and deleteOption change", req: metadataOnly(),
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.ContentUnchanged},
		{name: "annotation-only change to a hash not handed over", req: update(work(imageV1, onA), work(imageV1, hashes(at(hashC)))),
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.ContentUnchanged},
		{name: "annotation-only change to an unreadable one", req: update(work(imageV1, onA), work(imageV1, `{"`)),
			cluster: prodEU1(at(hashA), at(hashA)), want: workgate.ContentUnchanged},

		// HandedOver: the annotation moves to the desired, current hashes.
		{name: "handover", req: changed(onA, onB),
			cluster: prodEU1(at(hashB), at(hashB)), want: workgate.HandedOver},
		{name: "handover of a first config", req: changed("", onB),
			cluster: prodEU1(at(hashB), at(hashB)), want: workgate.HandedOver},
		{name: "handover of one config of two",
			req:     changed(hashes(map[string]string{proxyKey: hashA, deployKey: hashC}), hashes(map[string]string{proxyKey: hashB, deployKey: hashC})),
			cluster: prodEU1(map[string]string{proxyKey: hashB, deployKey: hashC}, map[string]string{proxyKey: hashB, deployKey: hashC}),
			want:    workgate.HandedOver},

		// NotHandedOver: the annotation is not exactly the desired hashes.
		{name: "claims a hash not handed over", req: changed(onA, hashes(at(hashC))),
			cluster: prodEU1(at(hashB), at(hashB)), want: workgate.NotHandedOver,
			says: []string{"it claims config " + proxyName + " at spec " + hashC[:12] + ", but the rollout has handed prod-eu-1 spec " + hashB[:12]}},
		{name: "lacks a desired key", req: changed(onA, "{}"),
			cluster: prodEU1(at(hashB), at(hashB)), want: workgate.NotHandedOver,
			says: []string{"it does not carry config " + proxyName + " at spec " + hashB[:12] + ", which the rollout handed to prod-eu-1"}},
		{name: "lacks the annotation", req: changed(onA, ""),
			cluster: prodEU1(at(hashB), at(hashB)), want: workgate.NotHandedOver,
			says: []string{"it does not carry config " + proxyName}},
		{name: "has an extra key", req: changed(onA, hashes(map[string]string{proxyKey: hashB, deployKey: hashC})),
			cluster: prodEU1(at(hashB), at(hashB)), want: workgate.NotHandedOver,
			says: []string{"it claims config " + deployKey + " at spec " + hashC[:12] + ", which the rollout has not handed to prod-eu-1"}},
		{name: "claims an empty hash", req: changed(onA, `{"`+proxyKey+`":""}`),
			cluster: prodEU1(at(hashB), at(hashB), ungrouped), want: workgate.NotHandedOver,
			says: []string{`it claims config ` + proxyName + ` at spec "", but the rollout has handed prod-eu-1 spec ` + hashB[:12]}},
		{name: "claims a key with a line break", req: changed(onA, `{"`+proxyKey+`":"`+hashB+`","evil\n`+workgate.Marker+`":"\u0007`+hashC+`"}`),
			cluster: prodEU1(at(hashB), at(hashB)), want: workgate.NotHandedOver,
			says: []string{`it claims config "evil\n` + workgate.Marker + `" at spec "\a` + hashC[:11] + `", which`}},
		{name: "claims an empty key", req: changed(onA, `{"`+proxyKey+`":"`+hashB+`","":"\ufffd"}`),
			cluster: prodEU1(at(hashB), at(hashB)), want: workgate.NotHandedOver,
			says: []string{"it claims config \"\" at spec \ufffd, which"}},

		// ConfigMovedOn: a renderer reading by name got ahead of the rollout.
		{name: "prod case: annotation unchanged, content of the newer spec", req: changed(onA, onA),
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.ConfigMovedOn,
			says: []string{"config " + proxyName + " has moved on to spec " + hashB[:12] +
				", which the rollout has not handed to prod-eu-1 yet (it is at " + hashA[:12] + ")"}},
		{name: "a namespaced config moved on: named with its namespace", req: changed(hashes(map[string]string{deployKey: hashA}), hashes(map[string]string{deployKey: hashA})),
			cluster: prodEU1(map[string]string{deployKey: hashA}, map[string]string{deployKey: hashB}), want: workgate.ConfigMovedOn,
			says: []string{"config " + deployKey + " has moved on to spec " + hashB[:12]}},
		{name: "prod case under free renderings", req: changed(onA, onA),
			cluster: prodEU1(at(hashA), at(hashB), free, released()), want: workgate.ConfigMovedOn},
		{name: "annotation moves to the desired, which is not current", req: changed(hashes(at(hashC)), onA),
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.ConfigMovedOn,
			says: []string{"has moved on to spec " + hashB[:12]}},

		// Unreadable: the gate holds what it cannot check.
		{name: "annotation not JSON", req: changed(onA, `{"`+proxyKey+`":`),
			cluster: prodEU1(at(hashA), at(hashA)), want: workgate.Unreadable,
			says: []string{"annotation " + workv1.ManifestConfigSpecHashAnnotationKey + " ", "want a JSON object of config spec hashes"}},
		{name: "annotation a JSON array", req: changed(onA, `["`+hashA+`"]`),
			cluster: prodEU1(at(hashA), at(hashA)), want: workgate.Unreadable,
			says: []string{"want a JSON object of config spec hashes"}},
		{name: "desired config missing from current", req: changed(onA, onA),
			cluster: prodEU1(at(hashA), map[string]string{}), want: workgate.Unreadable,
			says: []string{"config " + proxyName + " could not be read"}},

		// New renderings of unchanged, current configs.
		{name: "rendering held", req: changed(onA, onA),
			cluster: prodEU1(at(hashA), at(hashA)), want: workgate.RenderingHeld,
			says: []string{"a new rendering of unchanged configs, which no rendering rollout has released to prod-eu-1 yet"}},
		{name: "rendering of an add-on without configs held", req: changed("", ""),
			cluster: prodEU1(nil, nil, ungrouped), want: workgate.RenderingHeld},
		{name: "rendering from an unreadable old annotation held", req: changed(`{"`, onA),
			cluster: prodEU1(at(hashA), at(hashA)), want: workgate.RenderingHeld},
		{name: "rendering released: the work's first change", req: changed(onA, onA),
			cluster: prodEU1(at(hashA), at(hashA), released(work(imageV1, onA))), want: workgate.RenderingReleased},
		{name: "rendering released: a work that was not there at the release", req: changed(onA, onA),
			cluster: prodEU1(at(hashA), at(hashA), released()), want: workgate.RenderingReleased},
		{name: "rendering released: a second change", req: update(work(imageV2, onA), work(imageV1, onA)),
			cluster: prodEU1(at(hashA), at(hashA), released(work(imageV1, onA))), want: workgate.RenderingTaken,
			says: []string{"work addon-cluster-proxy-deploy-0 changed once since rendering revision " + rendering + " released prod-eu-1: a further rendering waits for the next revision"}},
		{name: "rendering of a cluster that took the revision", req: changed(onA, onA),
			cluster: prodEU1(at(hashA), at(hashA), took), want: workgate.RenderingHeld},
		{name: "rendering while the rollout has not reached the cluster", req: changed(onA, onA),
			cluster: prodEU1(at(hashA), at(hashA), pending), want: workgate.RenderingPending},
		{name: "content of the handover while the add-on has not applied it yet", req: changed(onA, onA),
			cluster: prodEU1(at(hashA), at(hashA), handing), want: workgate.HandedOver},
		{name: "a new work of the handover while the add-on has not applied it yet", req: create(work(imageV2, onA)),
			cluster: prodEU1(at(hashA), at(hashA), handing), want: workgate.Created},
		{name: "handing over, but the rendering rollout has not reached the cluster", req: changed(onA, onA),
			cluster: prodEU1(at(hashA), at(hashA), handing, pending), want: workgate.RenderingPending},
		{name: "handing over content under configs that moved on", req: changed(onA, onA),
			cluster: prodEU1(at(hashA), at(hashB), handing), want: workgate.ConfigMovedOn},
		{name: "rendering free", req: changed(onA, onA),
			cluster: prodEU1(at(hashA), at(hashA), free), want: workgate.RenderingFree},
		{name: "rendering free before any release", req: changed("", ""),
			cluster: prodEU1(nil, nil, free), want: workgate.RenderingFree},

		// Config handovers while a rendering rolls out.
		{name: "handover while the rendering rollout has not reached the cluster", req: changed(onA, onB),
			cluster: prodEU1(at(hashB), at(hashB), pending), want: workgate.RenderingPending},
		{name: "handover of a released cluster", req: changed(onA, onB),
			cluster: prodEU1(at(hashB), at(hashB), released(work(imageV1, onA))), want: workgate.RenderingReleased},
		{name: "handover of a cluster that took the rendering", req: changed(onA, onB),
			cluster: prodEU1(at(hashB), at(hashB), took), want: workgate.HandedOver},
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	for _, tt := range decideCases() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := workgate.Decide(tt.req, tt.cluster)
			assert.Equal(t, tt.want, got.Reason, "message: %s", got.Message)
			assert.Equal(t, tt.want.Admits(), got.Allowed())
			checkMessage(t, tt.cluster, got)
			for _, s := range tt.says {
				assert.Contains(t, got.Message, s)
			}
		})
	}
}

// checkMessage checks what every decision's message says: nothing when
// admitted; when held, one line that starts with the marker and names the
// add-on, the cluster, its group and what it waits for.
func checkMessage(t *testing.T, c workgate.Cluster, d workgate.Decision) {
	t.Helper()
	if d.Allowed() {
		assert.Empty(t, d.Message)
		assert.Empty(t, d.Why)
		assert.Empty(t, d.Key)
		return
	}
	m := d.Message
	assert.True(t, strings.HasPrefix(m, workgate.Marker+": "), "message %q does not start with the marker", m)
	assert.NotContains(t, m, "\n")
	assert.NotContains(t, m, "\r")
	assert.Regexp(t, `^`+regexp.QuoteMeta(workgate.Marker)+`: the (new )?work \S+ of add-on `+regexp.QuoteMeta(c.AddOn)+` on cluster `+regexp.QuoteMeta(c.Name), m)
	assert.NotEmpty(t, d.Why)
	assert.Contains(t, m, d.Why)
	assert.Len(t, d.Key, 12)
	if c.Group != "" {
		assert.Contains(t, m, "on cluster "+c.Name+" (group "+c.Group+") is held: ")
	} else {
		assert.Contains(t, m, "on cluster "+c.Name+" is held: ")
	}
	if c.Waits != "" {
		assert.True(t, strings.HasSuffix(m, "; "+c.Waits), "message %q does not end with %q", m, c.Waits)
	}
}

// TestDecidePure decides every case of TestDecide, and compares its inputs
// afterwards with deep copies taken before.
func TestDecidePure(t *testing.T) {
	t.Parallel()
	for _, tt := range decideCases() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, cluster := deepCopy(tt.req, tt.cluster)
			workgate.Decide(tt.req, tt.cluster)
			assert.Equal(t, req, tt.req)
			assert.Equal(t, cluster, tt.cluster)
		})
	}
}

// deepCopy copies r and c, works and maps too.
func deepCopy(r workgate.Request, c workgate.Cluster) (workgate.Request, workgate.Cluster) {
	r.Old, r.New = r.Old.DeepCopy(), r.New.DeepCopy()
	c.Desired, c.Current = maps.Clone(c.Desired), maps.Clone(c.Current)
	c.Release.Works = maps.Clone(c.Release.Works)
	return r, c
}

// TestDecideDeterministic decides, many times over, updates whose maps
// differ from what they should be at two keys: each message names the
// first key in sorted order, and is the same every time.
func TestDecideDeterministic(t *testing.T) {
	t.Parallel()
	const keyA, keyB, keyC, keyD = "a.example.io//one", "b.example.io/ns/two", "c.example.io//three", "d.example.io//four"
	all := func(h string) map[string]string { return map[string]string{keyA: h, keyB: h, keyC: h, keyD: h} }
	twoOff := func(h, off string) map[string]string { m := all(h); m[keyB], m[keyD] = off, off; return m }
	for _, tt := range []struct {
		name    string
		old     map[string]string
		new     map[string]string
		cluster workgate.Cluster
		want    workgate.Reason
	}{
		{name: "two claims not handed over", old: all(hashA), new: twoOff(hashB, hashC),
			cluster: prodEU1(all(hashB), all(hashB)), want: workgate.NotHandedOver},
		{name: "two desired keys missing", old: all(hashA), new: map[string]string{keyA: hashB, keyC: hashB},
			cluster: prodEU1(all(hashB), all(hashB)), want: workgate.NotHandedOver},
		{name: "two configs moved on", old: all(hashA), new: all(hashA),
			cluster: prodEU1(all(hashA), twoOff(hashA, hashC)), want: workgate.ConfigMovedOn},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := update(work(imageV1, hashes(tt.old)), work(imageV2, hashes(tt.new)))
			first := workgate.Decide(req, tt.cluster)
			require.Equal(t, tt.want, first.Reason, first.Message)
			assert.Contains(t, first.Message, keyB)
			assert.NotContains(t, first.Message, keyD)
			for range 100 {
				require.Equal(t, first, workgate.Decide(req, tt.cluster))
			}
		})
	}
}

func TestReasonString(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		reason workgate.Reason
		want   string
		admits bool
	}{
		{workgate.Exempt, "Exempt", true},
		{workgate.NotTaken, "NotTaken", true},
		{workgate.ContentUnchanged, "ContentUnchanged", true},
		{workgate.HandedOver, "HandedOver", true},
		{workgate.Created, "Created", true},
		{workgate.RenderingReleased, "RenderingReleased", true},
		{workgate.RenderingFree, "RenderingFree", true},
		{workgate.NotHandedOver, "NotHandedOver", false},
		{workgate.ConfigMovedOn, "ConfigMovedOn", false},
		{workgate.RenderingHeld, hubplan.HoldRenderingHeld, false},
		{workgate.RenderingPending, "RenderingPending", false},
		{workgate.RenderingTaken, hubplan.HoldRenderingTaken, false},
		{workgate.Unreadable, "Unreadable", false},
		{workgate.Unreadable + 1, "Reason(13)", false},
		{workgate.Exempt - 1, "Reason(-1)", false},
	} {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.reason.String())
			assert.Equal(t, tt.admits, tt.reason.Admits())
			d := workgate.Decision{Reason: tt.reason}
			assert.Equal(t, tt.admits, d.Allowed())
		})
	}
}

func TestRenderingsString(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		renderings workgate.Renderings
		want       string
	}{
		{workgate.RenderingsStaged, "Staged"},
		{workgate.RenderingsFree, "Free"},
		{workgate.RenderingsFree + 1, "Renderings(2)"},
		{workgate.RenderingsStaged - 1, "Renderings(-1)"},
	} {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.renderings.String())
		})
	}
	var zero workgate.Cluster
	assert.Equal(t, workgate.RenderingsStaged, zero.Renderings, "the zero Cluster stages renderings")
}

// TestJudges checks Judges, which tells the requests whose decision needs
// the hub, against equality.Semantic, whose sense of a
// workload's equality the gate keeps.
func TestJudges(t *testing.T) {
	t.Parallel()
	manifests := func(ms ...runtime.RawExtension) *workv1.ManifestWork {
		w := work(imageV1, "")
		w.Spec.Workload.Manifests = nil
		for _, m := range ms {
			w.Spec.Workload.Manifests = append(w.Spec.Workload.Manifests, workv1.Manifest{RawExtension: m})
		}
		return w
	}
	raw := func(image string) runtime.RawExtension { return runtime.RawExtension{Raw: deployment(image)} }
	object := func(image string) runtime.RawExtension {
		return runtime.RawExtension{Object: &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{"image": image}}}}
	}
	for _, tt := range []struct {
		name string
		req  workgate.Request
		want bool
	}{
		{name: "create", req: workgate.Request{Operation: workgate.Create, New: manifests(raw(imageV2))}, want: true},
		{name: "create of a work that is no add-on's", req: workgate.Request{Operation: workgate.Create,
			New: relabelled(manifests(raw(imageV2)), map[string]*string{"open-cluster-management.io/addon-name": nil})}},
		{name: "delete", req: workgate.Request{Operation: workgate.Delete, Old: manifests(raw(imageV2))}},
		{name: "relabelled", req: update(manifests(raw(imageV1)),
			relabelled(manifests(raw(imageV1)), map[string]*string{"open-cluster-management.io/addon-name": ptr("other")})), want: true},
		{name: "status", req: workgate.Request{Operation: workgate.Update, SubResource: "status",
			Old: manifests(raw(imageV1)), New: manifests(raw(imageV2))}},
		{name: "same manifests", req: update(manifests(raw(imageV1), raw(imageV2)), manifests(raw(imageV1), raw(imageV2)))},
		{name: "other image", req: update(manifests(raw(imageV1)), manifests(raw(imageV2))), want: true},
		{name: "manifests swapped", req: update(manifests(raw(imageV1), raw(imageV2)), manifests(raw(imageV2), raw(imageV1))), want: true},
		{name: "manifest added", req: update(manifests(raw(imageV1)), manifests(raw(imageV1), raw(imageV2))), want: true},
		{name: "no manifests, nil and empty", req: update(manifests(), func() *workv1.ManifestWork {
			w := manifests()
			w.Spec.Workload.Manifests = []workv1.Manifest{}
			return w
		}())},
		{name: "raw nil and empty", req: update(manifests(runtime.RawExtension{}), manifests(runtime.RawExtension{Raw: []byte{}}))},
		{name: "same objects", req: update(manifests(raw(imageV1), object(imageV1)), manifests(raw(imageV1), object(imageV1)))},
		{name: "other objects", req: update(manifests(raw(imageV1), object(imageV1)), manifests(raw(imageV1), object(imageV2))), want: true},
		{name: "object for raw", req: update(manifests(raw(imageV1)), manifests(object(imageV1))), want: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, workgate.Judges(tt.req))
			if tt.req.Operation == workgate.Update && tt.req.SubResource == "" && workgate.IdentityOf(tt.req.Old) == workgate.IdentityOf(tt.req.New) {
				assert.Equal(t, !equality.Semantic.DeepEqual(tt.req.Old.Spec.Workload, tt.req.New.Spec.Workload), tt.want,
					"Judges disagrees with equality.Semantic")
			}
		})
	}
}

// ptr is a pointer to s.
func ptr(s string) *string { return &s }
