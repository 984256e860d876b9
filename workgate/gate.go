package workgate

import (
	"bytes"
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

	"github.com/rolloutkit/rolloutkit/addonrollout"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// Admission operations, as an AdmissionReview names them.
const (
	Create = "CREATE"
	Update = "UPDATE"
	Delete = "DELETE"
)

// Marker starts the message of every held update, so that a person (or a
// log query) reading an add-on manager's error can tell the gate's refusal
// from any other failure to write a work.
const Marker = addonrollout.WorkGateMarker

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

// Renderings says how a new rendering (new content under unchanged
// configs) lands.
type Renderings int

const (
	// RenderingsStaged admits a new rendering only where the rendering
	// rollout released it ([Cluster.Released]). The zero value.
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

// Cluster is what the rollout says of the cluster whose work is written,
// for the work's add-on.
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
	// Current are the current spec hashes of the same config objects, by
	// the same keys ([CurrentHashes]). A key of Desired missing here is a
	// config that could not be read: the gate holds what it cannot check.
	Current map[string]string
	// Released reports whether the rendering rollout has released a new
	// rendering to the cluster.
	Released bool
	// Renderings says how a new rendering lands.
	Renderings Renderings
	// Waits says what the cluster waits for, in the words of the
	// rollout's status ("waiting for group stg: ..."), for the message of
	// a held update; "" when nothing is known.
	Waits string
}

// Decide returns the gate's decision on request r for a work of cluster c.
// It never modifies its inputs, and the same inputs give the same
// decision.
func Decide(r Request, c Cluster) Decision {
	switch {
	case !updatesWork(r):
		return Decision{Reason: Exempt}
	case !c.Taken:
		return Decision{Reason: NotTaken}
	case !ContentChanges(r):
		return Decision{Reason: ContentUnchanged}
	}
	rendered, err := annotation(r.New)
	if err != nil {
		return c.held(Unreadable, err.Error())
	}
	if k, ok := firstDifference(rendered, c.Desired); ok {
		claimed, inRendered := rendered[k]
		desired, inDesired := c.Desired[k]
		return c.held(NotHandedOver, notHandedOver(k, claimed, desired, inRendered, inDesired, c.Name))
	}
	if k, ok := movedOn(c.Desired, c.Current); ok {
		cur, known := c.Current[k]
		if !known {
			return c.held(Unreadable, fmt.Sprintf("config %s could not be read: the gate cannot tell which spec a renderer reads", printable(k)))
		}
		return c.held(ConfigMovedOn, fmt.Sprintf("config %s has moved on to spec %s, which the rollout has not handed to %s yet (it is at %s): "+
			"a renderer that reads the config by name would land the newer spec here ahead of the rollout", printable(k), short(cur), c.Name, short(c.Desired[k])))
	}
	before, err := annotation(r.Old)
	if err == nil {
		if _, changed := firstDifference(before, rendered); changed {
			return Decision{Reason: HandedOver}
		}
	}
	switch {
	case c.Renderings == RenderingsFree:
		return Decision{Reason: RenderingFree}
	case c.Released:
		return Decision{Reason: RenderingReleased}
	}
	return c.held(RenderingHeld, fmt.Sprintf("a new rendering of unchanged configs, which the rendering rollout has not released to %s yet", c.Name))
}

// ContentChanges reports whether r changes a work's spec.workload: the
// only requests whose decision depends on the [Cluster]. A caller may
// answer every other request with Decide and an empty Cluster, without
// reading the hub.
func ContentChanges(r Request) bool {
	return updatesWork(r) && !sameWorkload(r.Old.Spec.Workload, r.New.Spec.Workload)
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

// updatesWork reports whether r is an update of a work itself, not of its
// status.
func updatesWork(r Request) bool {
	return r.Operation == Update && r.SubResource == "" && r.Old != nil && r.New != nil
}

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

// held is a held decision with its message.
func (c Cluster) held(reason Reason, why string) Decision {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: the work of add-on %s on cluster %s", Marker, c.AddOn, c.Name)
	if c.Group != "" {
		fmt.Fprintf(&b, " (group %s)", c.Group)
	}
	fmt.Fprintf(&b, " is held: %s", why)
	if c.Waits != "" {
		fmt.Fprintf(&b, "; %s", c.Waits)
	}
	return Decision{Reason: reason, Message: b.String()}
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
	key = printable(key)
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
// annotation are whatever its writer put there.
func printable(s string) string {
	if s == "" || !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) {
		return strconv.Quote(s)
	}
	return s
}
