// Package workgate decides whether an update of an add-on's ManifestWork
// may land on the hub: the decision of the validating admission webhook
// that makes a staged rollout stage what lands on each cluster, not only
// the config spec hash that the add-on's status reports.
//
// # Why a gate
//
// OCM stages a hash: the rollout hands each cluster's ManagedClusterAddOn
// the desired config spec hashes group by group, and the add-on's manager
// (built on addon-framework) renders the cluster's ManifestWork. But a
// renderer reads its config object by name, and the object has only its
// newest spec: addon-framework re-renders every add-on that refers to a
// changed config (its config controller bumps lastObservedGeneration), and
// writes the add-on's desired hashes into the work's annotation
// open-cluster-management.io/config-spec-hash whatever Manifests read. So a
// config change reaches every cluster's work within a second, while every
// status says the clusters not reached yet run the old config. A new agent
// chart (a new manager version) with an unchanged config changes no hash
// at all, and reaches every cluster at once too.
//
// # The rule
//
// [Decide] admits an update of a work of an add-on the controller takes
// only when the work's spec.workload stays the same, or when the new
// content is one the rollout has let reach the cluster:
//
//   - a config handover: the work's annotation moves to exactly the
//     desired spec hashes the rollout handed the cluster, and every one of
//     them is still the current spec of its config object, so that the
//     content, whatever the renderer read, is the spec the cluster was
//     handed;
//   - a new rendering (the annotation unchanged, the content changed) on
//     a cluster whose configs are current, once the rendering rollout has
//     released it there ([Cluster.Released]), or at once when renderings
//     are not staged ([RenderingsFree]).
//
// Everything else that changes spec.workload is held: a work that claims a
// spec the cluster was not handed, and a work rendered while a config the
// cluster uses has moved on to a spec the rollout has not handed the
// cluster yet (it carries the older hash in its annotation and, from a
// renderer that reads by name, the newer content in its body: the cluster
// waits until the newer spec's rollout reaches it).
//
// Creates (a work made at install), deletes, updates of the status
// subresource and works of add-ons the controller does not take are
// exempt: they are admitted at once.
//
// [Decide] is pure: the webhook reads the hub, builds a [Request] and a
// [Cluster], and answers with the [Decision]. A held update's message names
// the add-on, the cluster, its group and what it waits for, in the words of
// the rollout's status.
package workgate
