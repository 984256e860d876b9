package workgate

import (
	"encoding/json"

	workv1 "open-cluster-management.io/api/work/v1"
)

// Recreated returns the gate's decision, now, on the work that the
// add-on's manager creates in place of deleted, a work of cluster c just
// deleted: addon-framework creates a missing work again at once, from
// its newest rendering, with the desired spec hashes the rollout handed
// the cluster in its config-spec-hash annotation. It is what the gate
// tells whoever deletes a work of an add-on it takes: whether a work
// created in its place lands at once, or waits until the rollout reaches
// the cluster, and why.
func Recreated(deleted *workv1.ManifestWork, c Cluster) Decision {
	if deleted == nil {
		return Decision{Reason: Exempt}
	}
	w := deleted.DeepCopy()
	w.ResourceVersion, w.UID, w.Generation, w.DeletionTimestamp = "", "", 0, nil
	if w.Annotations == nil {
		w.Annotations = map[string]string{}
	}
	desired := c.Desired
	if desired == nil {
		desired = map[string]string{}
	}
	b, err := json.Marshal(desired)
	if err != nil {
		return Decision{Reason: Exempt} // a map of strings always marshals
	}
	w.Annotations[workv1.ManifestConfigSpecHashAnnotationKey] = string(b)
	return Decide(Request{Operation: Create, New: w}, c)
}
