package workgate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Admission operations, as an AdmissionReview names them.
const (
	Create = "CREATE"
	Update = "UPDATE"
	Delete = "DELETE"
)

// Marker starts the message of every held write, so that a person (or a
// log query) reading an add-on manager's error can tell the gate's refusal
// from any other failure to write a work.
const Marker = hubplan.WorkGateMarker

// Request is one admission request for a ManifestWork.
type Request struct {
	// Operation is the admission operation: Create, Update or Delete.
	Operation string
	// SubResource is the subresource written ("status"), or "" for the
	// object itself.
	SubResource string
	// Old is the work as stored; New the work as it would be. Old is nil
	// for a create, New for a delete.
	Old, New *workv1.ManifestWork
}

// Identity is whose work a ManifestWork is: the add-on its label
// open-cluster-management.io/addon-name names, and the cluster it is for:
// the one its label open-cluster-management.io/addon-namespace names (a
// hosted add-on's work, in its hosting cluster's namespace), else its
// namespace's.
type Identity struct {
	// AddOn is the add-on's name; "" for a work that is no add-on's.
	AddOn string
	// Cluster is the cluster's name.
	Cluster string
}

// IdentityOf is w's identity; the zero Identity for a nil work.
func IdentityOf(w *workv1.ManifestWork) Identity {
	if w == nil {
		return Identity{}
	}
	id := Identity{AddOn: w.Labels[addonv1beta1.AddonLabelKey], Cluster: w.Namespace}
	if ns, ok := w.Labels[addonv1beta1.AddonNamespaceLabelKey]; ok {
		id.Cluster = ns
	}
	return id
}

// Subjects returns the identities Decide must judge r for, each of an
// add-on's work: the new object's and, when it differs, the stored
// object's. A work relabelled out of an add-on (its add-on label dropped
// or renamed, its addon-namespace label moved) is judged for the add-on
// and cluster it belonged to as much as for those it moves to, so that
// no work leaves the gate by relabelling. Nil for a request Decide
// exempts whatever the cluster.
func Subjects(r Request) []Identity {
	if !judged(r) {
		return nil
	}
	var out []Identity
	for _, w := range []*workv1.ManifestWork{r.New, r.Old} {
		if id := IdentityOf(w); w != nil && id.AddOn != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Renderings says how a new rendering (new content under unchanged
// configs) lands.
type Renderings int

const (
	// RenderingsStaged admits a new rendering only where the rendering
	// rollout released it ([Cluster.Reach]). The zero value.
	RenderingsStaged Renderings = iota
	// RenderingsFree admits a new rendering at once on a cluster whose
	// configs are current, as OCM does: only config changes are staged.
	RenderingsFree
)

// String names the policy.
func (r Renderings) String() string {
	switch r {
	case RenderingsStaged:
		return "Staged"
	case RenderingsFree:
		return "Free"
	}
	return fmt.Sprintf("Renderings(%d)", int(r))
}

// Cluster is what the rollout says of one cluster, for one add-on: the
// identity a request is judged for.
type Cluster struct {
	// AddOn is the add-on's name, Name the cluster's.
	AddOn, Name string
	// Taken reports whether the controller takes the add-on. The works of
	// an add-on it does not take are admitted.
	Taken bool
	// Group is the cluster's decision group, for messages: "" when it has
	// none (the add-on of a Manual install strategy, or a cluster no
	// placement selects).
	Group string
	// Desired are the config spec hashes the rollout handed the cluster,
	// keyed as the work's config-spec-hash annotation keys them:
	// addon.ConfigHashes of the add-on's status.configReferences.
	Desired map[string]string
	// Configured reports whether the add-on runs with configs (its
	// ClusterManagementAddOn names default configs, or configs of an
	// install-strategy placement: hubplan.HasConfigs): a cluster the
	// rollout has handed none yet takes no content, since a renderer that
	// reads by name renders the newest spec.
	Configured bool
	// Handing reports whether the rollout's handover of Desired is under
	// way on the cluster: its add-on does not report every desired config
	// applied yet (not addon.Applied). Until it does, the add-on's manager is
	// still building the cluster's works for the handover (addon-framework
	// may move a manifest from one of them to another when a first write
	// is refused), so a change of content under the handed hashes is the
	// handover's, not a new rendering.
	Handing bool
	// Current are the current spec hashes of the same config objects, by
	// the same keys ([CurrentHashes]). A key of Desired missing here is a
	// config that could not be read: the gate holds what it cannot check.
	Current map[string]string
	// Reach is where the add-on's rendering rollout stands on the cluster
	// (hubplan.ReachOf).
	Reach hubplan.Reach
	// Rendering is the rendering revision in flight; "" when none is.
	Rendering string
	// Release is the rendering rollout's release of the cluster, under
	// ReachReleased: the content of its works then.
	Release hubplan.Release
	// Renderings says how a new rendering lands.
	Renderings Renderings
	// Waits says what the cluster waits for, in the words of the
	// rollout's status ("waiting for group stg: ..."), for the message of
	// a held write; "" when nothing is known.
	Waits string
}

// Decide returns the gate's decision on request r for the work of
// cluster c (c.AddOn and c.Name are the identity judged). It never
// modifies its inputs, and the same inputs give the same decision.
//
// A create, and a relabel into c's add-on or cluster, is judged as an
// update from an empty work; a relabel out of them as a change of
// content. A delete, a write of the status subresource, and a request
// that does not touch a work of c are exempt.
func Decide(r Request, c Cluster) Decision {
	id := Identity{AddOn: c.AddOn, Cluster: c.Name}
	before, touched := r.before(id)
	switch {
	case !touched:
		return Decision{Reason: Exempt}
	case !c.Taken:
		return Decision{Reason: NotTaken}
	case !changesContent(r, id):
		return Decision{Reason: ContentUnchanged}
	}
	c.Name = printable(c.Name)
	j := judgement{c: c, work: printable(r.New.Name), create: before == nil, leaves: IdentityOf(r.New) != id}
	rendered, err := annotation(r.New)
	if err != nil {
		return j.held(Unreadable, err.Error())
	}
	j.rendered = rendered
	if len(c.Desired) == 0 && c.Configured {
		return j.held(NotHandedOver, fmt.Sprintf("the rollout has handed %s no configs yet: a renderer that reads its configs by name "+
			"would land their newest specs here ahead of the rollout", c.Name))
	}
	if k, ok := firstDifference(rendered, c.Desired); ok {
		claimed, inRendered := rendered[k]
		desired, inDesired := c.Desired[k]
		return j.held(NotHandedOver, notHandedOver(k, claimed, desired, inRendered, inDesired, c.Name))
	}
	if k, ok := movedOn(c.Desired, c.Current); ok {
		cur, known := c.Current[k]
		if !known {
			return j.held(Unreadable, fmt.Sprintf("config %s could not be read: the gate cannot tell which spec a renderer reads", configName(k)))
		}
		return j.held(ConfigMovedOn, fmt.Sprintf("config %s has moved on to spec %s, which the rollout has not handed to %s yet (it is at %s): "+
			"a renderer that reads the config by name would land the newer spec here ahead of the rollout", configName(k), short(cur), c.Name, short(c.Desired[k])))
	}
	return j.rendering(c.Handing || handedOver(before, rendered), r)
}

// judgement is one content-changing request being judged for cluster c.
type judgement struct {
	c        Cluster
	work     string            // the work's name, printable
	create   bool              // the work is new to c: a create, or a relabel into c
	leaves   bool              // the work is relabelled out of c
	rendered map[string]string // the new work's annotation, once read
}

// rendering decides a change of content whose annotation is the desired
// hashes, all current: handed says the annotation moved (a config
// handover, or a work new to the cluster), else the content is a new
// rendering of unchanged configs. Each is admitted only as far as the
// rendering rollout has reached the cluster.
func (j judgement) rendering(handed bool, r Request) Decision {
	c := j.c
	admitted := HandedOver
	if j.create {
		admitted = Created
	}
	switch c.Reach {
	case hubplan.ReachPending:
		return j.held(RenderingPending, fmt.Sprintf("rendering revision %s is rolling out and has not reached %s yet: new content here would carry "+
			"the new rendering ahead of the groups before %s", printable(c.Rendering), c.Name, c.Name))
	case hubplan.ReachReleased:
		if j.firstChange(r) {
			return Decision{Reason: RenderingReleased}
		}
		return j.held(RenderingTaken, fmt.Sprintf("work %s changed once since rendering revision %s released %s: a further rendering waits for the next revision",
			j.work, printable(c.Rendering), c.Name))
	}
	switch {
	case handed:
		return Decision{Reason: admitted}
	case c.Renderings == RenderingsFree:
		return Decision{Reason: RenderingFree}
	}
	return j.held(RenderingHeld, fmt.Sprintf("a new rendering of unchanged configs, which no rendering rollout has released to %s yet", c.Name))
}

// firstChange reports whether r is the first change of its work since
// the cluster's release: the work is as it was at the release, was not
// there at the release, or is new to the cluster.
func (j judgement) firstChange(r Request) bool {
	if j.create || r.Old == nil {
		return true
	}
	was, ok := j.c.Release.Works[r.Old.Name]
	return !ok || was == hubplan.WorkContent(r.Old)
}

// handedOver reports whether the annotation moved to rendered from the
// work before (nil: a work new to the cluster, which moves from none).
func handedOver(before *workv1.ManifestWork, rendered map[string]string) bool {
	if before == nil {
		return true
	}
	was, err := annotation(before)
	if err != nil {
		return false // an unreadable annotation moves to nothing known
	}
	_, changed := firstDifference(was, rendered)
	return changed
}

// before returns the work as it was for identity id before r, and
// whether r touches a work of id at all: the stored work when it was
// id's; nil (an empty work) for a create or a relabel into id.
func (r Request) before(id Identity) (*workv1.ManifestWork, bool) {
	if !judged(r) {
		return nil, false
	}
	inOld := r.Old != nil && IdentityOf(r.Old) == id
	inNew := IdentityOf(r.New) == id
	switch {
	case inOld:
		return r.Old, true
	case inNew:
		return nil, true
	}
	return nil, false
}

// judged reports whether r is a request the gate judges at all: a create
// or an update of a work itself, not of its status.
func judged(r Request) bool {
	switch {
	case r.SubResource != "" || r.New == nil:
		return false
	case r.Operation == Create:
		return true
	}
	return r.Operation == Update && r.Old != nil
}

// changesContent reports whether r changes the content of id's work: it
// creates it, relabels it into or out of id, or changes its
// spec.workload.
func changesContent(r Request, id Identity) bool {
	if r.Old == nil || IdentityOf(r.Old) != IdentityOf(r.New) {
		return true
	}
	return !sameWorkload(r.Old.Spec.Workload, r.New.Spec.Workload)
}

// Judges reports whether Decide's answer to r depends on the [Cluster]:
// a create of an add-on's work, and an update that changes a work's
// spec.workload or moves it between add-ons or clusters. A caller may
// answer every other request with Decide and an empty Cluster, without
// reading the hub.
func Judges(r Request) bool {
	for _, id := range Subjects(r) {
		if changesContent(r, id) {
			return true
		}
	}
	return false
}

// sameWorkload reports whether a and b are equal as
// equality.Semantic.DeepEqual says, without its reflection over every byte
// of every manifest (two allocations a byte: a quarter of a millisecond for
// a Deployment of 2 KB, on every write of a work): the manifests of a work
// decoded from an admission request hold only raw JSON, compared as bytes.
func sameWorkload(a, b workv1.ManifestsTemplate) bool {
	if len(a.Manifests) != len(b.Manifests) {
		return false
	}
	for i := range a.Manifests {
		ma, mb := a.Manifests[i].RawExtension, b.Manifests[i].RawExtension
		if ma.Object != nil || mb.Object != nil {
			return equality.Semantic.DeepEqual(a, b)
		}
		if !bytes.Equal(ma.Raw, mb.Raw) {
			return false
		}
	}
	return true
}

// sameWorkload compares every field of a workload: these conversions stop
// compiling when ManifestsTemplate, Manifest or RawExtension gains one.
var (
	_ = struct{ Manifests []workv1.Manifest }(workv1.ManifestsTemplate{})
	_ = struct{ runtime.RawExtension }(workv1.Manifest{})
	_ = struct {
		Raw    []byte
		Object runtime.Object
	}(runtime.RawExtension{})
)

// CurrentHashes returns the current spec hash of every config that refs
// hand a cluster (each desiredConfig's object), keyed as addon.ConfigHashes
// keys them, from specHash; a config specHash cannot read is left out, and
// its error, wrapped and naming the config, joined into the one returned.
func CurrentHashes(refs []addonv1beta1.ConfigReference, specHash addon.SpecHashFunc) (map[string]string, error) {
	current := make([]addonv1beta1.ConfigReference, 0, len(refs))
	var errs []error
	for _, r := range refs {
		if r.DesiredConfig == nil {
			continue
		}
		h, err := specHash(r.ConfigGroupResource, r.DesiredConfig.ConfigReferent)
		if err != nil {
			name := addon.Config{GroupResource: r.ConfigGroupResource, Referent: r.DesiredConfig.ConfigReferent}
			errs = append(errs, fmt.Errorf("reading config %s: %w", name, err))
			continue
		}
		c := addonv1beta1.ConfigReference{ConfigGroupResource: r.ConfigGroupResource,
			DesiredConfig: &addonv1beta1.ConfigSpecHash{ConfigReferent: r.DesiredConfig.ConfigReferent, SpecHash: h}}
		current = append(current, c)
	}
	out := addon.ConfigHashes(current)
	return out, errors.Join(errs...)
}

// held is a held decision: why in words; its key names what is held (the
// annotation read, or, when it could not be, the reason and why).
func (j judgement) held(reason Reason, why string) Decision {
	c := j.c
	if j.leaves {
		why = fmt.Sprintf("relabelled out of add-on %s on cluster %s, it is judged as a change of their work: %s", printable(c.AddOn), c.Name, why)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", Marker)
	if j.create {
		b.WriteString("the new work ")
	} else {
		b.WriteString("the work ")
	}
	fmt.Fprintf(&b, "%s of add-on %s on cluster %s", j.work, printable(c.AddOn), c.Name)
	if c.Group != "" {
		fmt.Fprintf(&b, " (group %s)", printable(c.Group))
	}
	fmt.Fprintf(&b, " is held: %s", why)
	if c.Waits != "" {
		fmt.Fprintf(&b, "; %s", printable(c.Waits))
	}
	key := hashOf(reason.String(), why)
	if j.rendered != nil {
		key = heldKey(j.rendered, c)
	}
	return Decision{Reason: reason, Message: b.String(), Why: why, Key: key}
}

// heldKey names what a write held carries: the configs its annotation
// claims, the current configs, and the rendering revision in flight.
func heldKey(rendered map[string]string, c Cluster) string {
	parts := []string{"rendering " + c.Rendering}
	for _, k := range sortedKeys(rendered) {
		parts = append(parts, "claims "+k+"="+rendered[k])
	}
	for _, k := range sortedKeys(c.Current) {
		parts = append(parts, "current "+k+"="+c.Current[k])
	}
	return hashOf(parts...)
}

// hashOf is the first 12 hex digits of the SHA-256 of parts, one a line.
func hashOf(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return hex.EncodeToString(sum[:])[:12]
}

// annotation reads w's config-spec-hash annotation: no annotation is no
// configs.
func annotation(w *workv1.ManifestWork) (map[string]string, error) {
	s, ok := w.Annotations[workv1.ManifestConfigSpecHashAnnotationKey]
	if !ok {
		return map[string]string{}, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("annotation %s %q: want a JSON object of config spec hashes: %v", workv1.ManifestConfigSpecHashAnnotationKey, s, err)
	}
	return m, nil
}

// firstDifference returns the first key, in order, at which a and b
// differ (present in one only, or with other values).
func firstDifference(a, b map[string]string) (string, bool) {
	for _, k := range sortedKeys(a, b) {
		va, ina := a[k]
		vb, inb := b[k]
		if ina != inb || va != vb {
			return k, true
		}
	}
	return "", false
}

// movedOn returns the first key of desired, in order, whose current spec
// is another (or unknown).
func movedOn(desired, current map[string]string) (string, bool) {
	for _, k := range sortedKeys(desired) {
		if cur, ok := current[k]; !ok || cur != desired[k] {
			return k, true
		}
	}
	return "", false
}

func sortedKeys(ms ...map[string]string) []string {
	var keys []string
	for _, m := range ms {
		for k := range m {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// notHandedOver says why a work that claims a spec the cluster was not
// handed is held: the work's annotation has key (claimed) or not
// (inRendered), the cluster was handed it (desired) or not (inDesired).
// An empty hash is a hash, not an absent key.
func notHandedOver(key, claimed, desired string, inRendered, inDesired bool, cluster string) string {
	key = configName(key)
	switch {
	case !inDesired:
		return fmt.Sprintf("it claims config %s at spec %s, which the rollout has not handed to %s", key, short(claimed), cluster)
	case !inRendered:
		return fmt.Sprintf("it does not carry config %s at spec %s, which the rollout handed to %s", key, short(desired), cluster)
	}
	return fmt.Sprintf("it claims config %s at spec %s, but the rollout has handed %s spec %s", key, short(claimed), cluster, short(desired))
}

// short is a spec hash as people read it: its first 12 digits.
func short(h string) string {
	if len(h) > 12 {
		h = h[:12]
	}
	return printable(h)
}

// printable is s as it can stand in a one-line message: s, or s quoted
// when it is empty, is not UTF-8, or holds a line break or another
// character that does not print. The keys and hashes of a work's
// annotation, and its name and labels, are whatever its writer put there.
// configName is a config's key in a work's config-spec-hash annotation
// (resource.group/namespace/name) as a message names it: without the
// empty namespace of a cluster-scoped config, so
// managedproxyconfigurations.proxy.open-cluster-management.io/cluster-proxy
// rather than …io//cluster-proxy.
func configName(key string) string {
	if gr, name, ok := strings.Cut(key, "//"); ok && gr != "" && !strings.Contains(name, "/") {
		key = gr + "/" + name
	}
	return printable(key)
}

func printable(s string) string {
	if s == "" || !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) {
		return strconv.Quote(s)
	}
	return s
}
