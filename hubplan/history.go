package hubplan

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// The revision history's ControllerRevisions: their label, and the
// annotations that say a revision completed, when, and on which clusters.
const (
	// HistoryLabel names the add-on a ControllerRevision of the history is
	// of.
	HistoryLabel = "rolloutkit.io/addon"
	// CompletedAnnotation is when the revision completed on its placement
	// (RFC 3339); absent while it has not.
	CompletedAnnotation = "rolloutkit.io/completed"
	// ClustersAnnotation lists the placement's clusters when the revision
	// completed, each of which ran it: a JSON list of names, gzipped and in
	// base64.
	ClustersAnnotation = "rolloutkit.io/clusters"
	// DefaultRevisionHistoryLimit is how many revisions an add-on's history
	// keeps when spec.revisionHistoryLimit is unset.
	DefaultRevisionHistoryLimit = 10
)

// Reasons of an automatic rollback (RollbackStatus.Reason).
const (
	ReasonVerificationFailed = "VerificationFailed"
	// ReasonBreached, above: a group breached its failure budget.
)

// HistoryEntry is one revision of an add-on's history.
type HistoryEntry struct {
	// Name is its ControllerRevision's name.
	Name string
	// Number is its revision number in the add-on's history: the
	// ControllerRevision's revision. A revision that is rolled out again
	// takes the next number, as a Deployment's does.
	Number int64
	// Record is the revision: placement, hash and configs with their specs.
	Record v1alpha1.RevisionRecord
	// Created is when it was recorded: when it started.
	Created metav1.Time
	// Completed is when it completed on its placement; nil while it has not.
	Completed *metav1.Time
	// Clusters are the placement's clusters when it completed, sorted:
	// each ran it.
	Clusters []string
}

// HistoryName is the name of the ControllerRevision that records revision
// of the add-on's placement ref: the add-on's name and 10 hex digits of
// the SHA-256 of the placement and the revision.
func HistoryName(addOn string, ref v1alpha1.PlacementRef, revision string) string {
	sum := sha256.Sum256([]byte(ref.Namespace + "/" + ref.Name + " " + revision))
	return addOn + "-" + hex.EncodeToString(sum[:])[:10]
}

// HistoryOf reads an add-on's history from ControllerRevisions: those
// labelled HistoryLabel=addOn, by number, oldest first. An object it
// cannot read is an error that names it.
func HistoryOf(addOn string, crs []*appsv1.ControllerRevision) ([]HistoryEntry, error) {
	var out []HistoryEntry
	for _, cr := range crs {
		if cr == nil || cr.Labels[HistoryLabel] != addOn {
			continue
		}
		e := HistoryEntry{Name: cr.Name, Number: cr.Revision, Created: cr.CreationTimestamp}
		if err := json.Unmarshal(cr.Data.Raw, &e.Record); err != nil {
			return nil, fmt.Errorf("ControllerRevision %s/%s: data: %w", cr.Namespace, cr.Name, err)
		}
		if at, ok := cr.Annotations[CompletedAnnotation]; ok {
			t, err := time.Parse(time.RFC3339, at)
			if err != nil {
				return nil, fmt.Errorf("ControllerRevision %s/%s: annotation %s %q: want an RFC 3339 time", cr.Namespace, cr.Name, CompletedAnnotation, at)
			}
			mt := metav1.NewTime(t)
			e.Completed = &mt
			if e.Clusters, err = decodeClusters(cr.Annotations[ClustersAnnotation]); err != nil {
				return nil, fmt.Errorf("ControllerRevision %s/%s: annotation %s: %w", cr.Namespace, cr.Name, ClustersAnnotation, err)
			}
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b HistoryEntry) int {
		return cmp.Or(cmp.Compare(a.Number, b.Number), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// HistoryObject is the ControllerRevision that records e, in namespace.
func HistoryObject(namespace string, e HistoryEntry) (*appsv1.ControllerRevision, error) {
	raw, err := json.Marshal(e.Record)
	if err != nil {
		return nil, err
	}
	cr := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: e.Name, Labels: map[string]string{HistoryLabel: e.Record.AddOn}},
		Data:       runtime.RawExtension{Raw: raw},
		Revision:   e.Number,
	}
	if e.Completed != nil {
		enc, err := encodeClusters(e.Clusters)
		if err != nil {
			return nil, err
		}
		cr.Annotations = map[string]string{CompletedAnnotation: e.Completed.UTC().Format(time.RFC3339), ClustersAnnotation: enc}
	}
	return cr, nil
}

func encodeClusters(clusters []string) (string, error) {
	raw, err := json.Marshal(clusters)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(raw); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), nil
}

func decodeClusters(s string) ([]string, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("want gzipped JSON in base64: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("want gzipped JSON in base64: %w", err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("want gzipped JSON in base64: %w", err)
	}
	var out []string
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("want a JSON list of cluster names: %w", err)
	}
	return out, nil
}

// ConfigSpecFunc returns the spec of the config gr/ref as the hub holds
// it, and its spec hash.
type ConfigSpecFunc func(gr addonv1beta1.ConfigGroupResource, ref addonv1beta1.ConfigReferent) (spec runtime.RawExtension, specHash string, err error)

// HistoryChanges are the writes that keep an add-on's history.
type HistoryChanges struct {
	// Create are revisions to record.
	Create []HistoryEntry
	// Update are revisions to write again: a new number (rolled out
	// again), or their completion.
	Update []HistoryEntry
	// Delete are the names of revisions past the history's limit.
	Delete []string
}

// Empty reports whether there is nothing to write.
func (c HistoryChanges) Empty() bool {
	return len(c.Create) == 0 && len(c.Update) == 0 && len(c.Delete) == 0
}

// ConfigsRevision is the revision of configs alone (addon.Revision): the
// key of a placement's revision in the history, whatever rendering
// rolls out with it.
func ConfigsRevision(configs []v1alpha1.RevisionConfig) string {
	desired := make([]addon.Config, len(configs))
	for i, c := range configs {
		desired[i] = addon.Config{GroupResource: addonv1beta1.ConfigGroupResource{Group: c.Group, Resource: c.Resource},
			Referent: addonv1beta1.ConfigReferent{Namespace: c.Namespace, Name: c.Name}, SpecHash: c.SpecHash}
	}
	return addon.Revision(desired)
}

// PlanHistory returns the writes that record the revisions an add-on's
// AddOnRollout status (st) says its placements are at, given its history
// so far (HistoryOf). A placement's revision is recorded when it starts,
// with its configs' specs as spec reads them, if they still hash as the
// status says (otherwise they changed since, and there is nothing to
// record); it takes the next number when it is rolled out again after
// another; it is marked completed, with the placement's clusters
// (clusters, by "namespace/name"), once the status says so. Past limit
// revisions, the oldest are deleted, never one a placement is at.
func PlanHistory(addOn string, st v1alpha1.AddOnRolloutStatus, clusters map[string][]string, history []HistoryEntry,
	spec ConfigSpecFunc, limit int) (HistoryChanges, error) {
	var ch HistoryChanges
	byName := make(map[string]HistoryEntry, len(history))
	next := int64(0)
	for _, e := range history {
		byName[e.Name] = e
		next = max(next, e.Number)
	}
	current := map[string]bool{}
	for _, ps := range st.Placements {
		if ps.Revision == "" || len(ps.Configs) == 0 {
			continue
		}
		ref := v1alpha1.PlacementRef{Namespace: ps.Namespace, Name: ps.Name}
		rev := ConfigsRevision(ps.Configs)
		name := HistoryName(addOn, ref, rev)
		current[name] = true
		e, known := byName[name]
		changed := false
		if !known {
			rec, ok, err := record(addOn, ref, rev, ps.Configs, spec)
			if err != nil {
				return HistoryChanges{}, err
			}
			if !ok {
				continue
			}
			next++
			e = HistoryEntry{Name: name, Number: next, Record: rec}
		} else if newest := newestOf(history, ref); newest.Name != name {
			next++
			e.Number, changed = next, true
		}
		if ps.CompletionTime != nil && e.Completed == nil {
			at := *ps.CompletionTime
			e.Completed, e.Clusters, changed = &at, slices.Sorted(slices.Values(clusters[ref.Namespace+"/"+ref.Name])), true
		}
		switch {
		case !known:
			ch.Create = append(ch.Create, e)
		case changed:
			ch.Update = append(ch.Update, e)
		}
		byName[name] = e
	}
	all := slices.Collect(maps.Values(byName))
	slices.SortFunc(all, func(a, b HistoryEntry) int {
		return cmp.Or(cmp.Compare(b.Number, a.Number), cmp.Compare(a.Name, b.Name))
	})
	kept := 0
	for _, e := range all {
		if kept < limit || current[e.Name] {
			kept++
			continue
		}
		if _, stored := historyIndex(history, e.Name); stored {
			ch.Delete = append(ch.Delete, e.Name)
		} else {
			ch.Create = slices.DeleteFunc(ch.Create, func(c HistoryEntry) bool { return c.Name == e.Name })
		}
	}
	slices.Sort(ch.Delete)
	return ch, nil
}

// record reads the specs of a revision's configs; ok false when one no
// longer hashes as the revision says.
func record(addOn string, ref v1alpha1.PlacementRef, rev string, configs []v1alpha1.RevisionConfig, spec ConfigSpecFunc) (v1alpha1.RevisionRecord, bool, error) {
	rec := v1alpha1.RevisionRecord{AddOn: addOn, Placement: ref, Revision: rev}
	for _, c := range configs {
		raw, hash, err := spec(addonv1beta1.ConfigGroupResource{Group: c.Group, Resource: c.Resource},
			addonv1beta1.ConfigReferent{Namespace: c.Namespace, Name: c.Name})
		if err != nil {
			return v1alpha1.RevisionRecord{}, false, fmt.Errorf("record revision %s of %s/%s: %s: %w", rev, ref.Namespace, ref.Name, ConfigRef(c), err)
		}
		if hash != c.SpecHash {
			return v1alpha1.RevisionRecord{}, false, nil
		}
		rec.Configs = append(rec.Configs, v1alpha1.RecordedConfig{RevisionConfig: c, Spec: raw})
	}
	return rec, true, nil
}

func historyIndex(history []HistoryEntry, name string) (int, bool) {
	i := slices.IndexFunc(history, func(e HistoryEntry) bool { return e.Name == name })
	return i, i >= 0
}

// newestOf is the entry of placement ref with the highest number; zero
// when there is none.
func newestOf(history []HistoryEntry, ref v1alpha1.PlacementRef) HistoryEntry {
	var out HistoryEntry
	for _, e := range history {
		if e.Record.Placement == ref && e.Number > out.Number {
			out = e
		}
	}
	return out
}

// HistoryLimit is spec.revisionHistoryLimit of ar, or its default.
func HistoryLimit(ar *v1alpha1.AddOnRollout) int {
	if ar == nil || ar.Spec.RevisionHistoryLimit == nil {
		return DefaultRevisionHistoryLimit
	}
	return int(*ar.Spec.RevisionHistoryLimit)
}

// UndoTarget is the revision an undo of placement ref restores: number
// to, or, when to is 0, the newest completed revision of the placement
// other than the one it is at (current, a ConfigsRevision). It names
// what is missing when there is none.
func UndoTarget(history []HistoryEntry, ref v1alpha1.PlacementRef, current string, to int64) (HistoryEntry, error) {
	where := ref.Namespace + "/" + ref.Name
	if to != 0 {
		i := slices.IndexFunc(history, func(e HistoryEntry) bool { return e.Number == to })
		if i < 0 {
			return HistoryEntry{}, fmt.Errorf("revision %d: not in the history (%s)", to, numbers(history))
		}
		if history[i].Record.Placement != ref {
			return HistoryEntry{}, fmt.Errorf("revision %d: of placement %s/%s, want one of %s",
				to, history[i].Record.Placement.Namespace, history[i].Record.Placement.Name, where)
		}
		return history[i], nil
	}
	var out HistoryEntry
	for _, e := range history {
		if e.Record.Placement == ref && e.Completed != nil && e.Record.Revision != current && e.Number > out.Number {
			out = e
		}
	}
	if out.Number == 0 {
		return HistoryEntry{}, fmt.Errorf("placement %s: no completed revision before the current one (%s) in the history", where, current)
	}
	return out, nil
}

func numbers(history []HistoryEntry) string {
	if len(history) == 0 {
		return "it is empty"
	}
	s := make([]string, len(history))
	for i, e := range history {
		s[i] = strconv.FormatInt(e.Number, 10)
	}
	return "it has " + fmt.Sprint(s)
}
