package hubplan

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
)

// WorksAnnotation is the annotation of a ManagedClusterAddOn on which the
// controller publishes what the add-on's ManifestWorks on its cluster say
// ([Works], as JSON), for a reader who may not read the works
// themselves (a viewer: works can carry Secrets). It is kept only where
// the plan reads the works: on a cluster whose works the work gate holds
// ([HoldAnnotation]) or which a rendering rollout released and is not done
// with ([ReleaseAnnotation]); elsewhere the plan does not look at the
// works, and the annotation may be stale.
const WorksAnnotation = "rolloutkit.io/works"

// WorksWrite is a new value of a cluster's [WorksAnnotation].
type WorksWrite struct {
	// Cluster is the add-on's cluster.
	Cluster string
	// Works is what its works say now.
	Works Works
}

// Annotation is the works' summary as the annotation's value.
func (w Works) Annotation() (string, error) {
	b, err := json.Marshal(w)
	return string(b), err
}

// PublishedWorks reads mca's [WorksAnnotation]; false when it has none
// that can be read.
func PublishedWorks(mca *addonv1beta1.ManagedClusterAddOn) (Works, bool) {
	var w Works
	if mca == nil || !readJSONAnnotation(mca.Annotations, WorksAnnotation, &w) {
		return Works{}, false
	}
	return w, true
}

// WorksFromAddOns is what the add-on name's works say by cluster, as its
// ManagedClusterAddOns publish it ([WorksAnnotation]): the
// Controls.Works of a reader who may not read the works. A cluster
// without the annotation has no entry, as a cluster without works has
// none in [WorksOf].
func WorksFromAddOns(name string, mcas []*addonv1beta1.ManagedClusterAddOn) map[string]Works {
	out := make(map[string]Works)
	for _, m := range mcas {
		if m == nil || m.Name != name {
			continue
		}
		if w, ok := PublishedWorks(m); ok {
			out[m.Namespace] = w
		}
	}
	return out
}

// WorksToPublish lists the [WorksAnnotation] writes that keep the
// add-on name's published works current where the plan reads them: each
// cluster whose works the gate holds, or which a rendering rollout
// released and is not done with, whose annotation differs from works
// (what the works say now, [WorksOf]). The clusters of releases (a
// plan's Step.Releases) are left out: the write of their release carries
// the annotation too. Sorted by cluster.
func WorksToPublish(name string, mcas []*addonv1beta1.ManagedClusterAddOn, works map[string]Works, releases []ReleaseWrite) []WorksWrite {
	releasing := make(map[string]bool, len(releases))
	for _, r := range releases {
		releasing[r.Cluster] = true
	}
	var out []WorksWrite
	for _, m := range mcas {
		if m == nil || m.Name != name || releasing[m.Namespace] || !readsWorks(m) {
			continue
		}
		now := works[m.Namespace]
		if was, ok := PublishedWorks(m); ok && sameWorks(was, now) {
			continue
		}
		out = append(out, WorksWrite{Cluster: m.Namespace, Works: cloneWorks(now)})
	}
	slices.SortFunc(out, func(a, b WorksWrite) int { return strings.Compare(a.Cluster, b.Cluster) })
	return out
}

// readsWorks reports whether a plan reads the works of mca's cluster: the
// gate holds some, or a release is not done.
func readsWorks(mca *addonv1beta1.ManagedClusterAddOn) bool {
	if _, ok := ReadHold(mca); ok {
		return true
	}
	rel, ok := ReadRelease(mca)
	return ok && rel.DoneAt == nil
}

func sameWorks(a, b Works) bool {
	return a.Generation == b.Generation && a.Ready == b.Ready && maps.Equal(a.Content, b.Content)
}

func cloneWorks(w Works) Works {
	w.Content = maps.Clone(w.Content)
	return w
}
