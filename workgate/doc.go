// Package workgate decides whether a write of an add-on's ManifestWork
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
// at all, and reaches every cluster at once too. And a work deleted is
// created again at once, from the newest rendering.
//
// # The rule
//
// A cluster's work carries content only after the rollout has reached
// that cluster with that content. [Decide] judges a create of a work of
// an add-on the controller takes as an update from an empty work, and an
// update that changes its spec.workload (or moves it to another add-on or
// cluster: [Subjects]) as it is; it admits the new content only when:
//
//   - the work's annotation is exactly the desired spec hashes the
//     rollout handed the cluster, and every one of them is still the
//     current spec of its config object, so that the content, whatever
//     the renderer read, is the spec the cluster was handed; and
//   - it is a config handover (the annotation moves, or the work is new)
//     while no rendering revision is rolling out, or after the one in
//     flight reached the cluster; or the first change of the work since
//     the rendering rollout released its cluster ([Cluster.Reach]); or a
//     new rendering when renderings are not staged ([RenderingsFree]).
//
// Everything else is held: a work that claims a spec the cluster was not
// handed, one rendered while a config the cluster uses has moved on to a
// spec the rollout has not handed the cluster yet, new content while a
// rendering revision rolls out and has not reached the cluster (a config
// handover would carry the new rendering ahead of the groups before it),
// a further change of a released cluster's work, and a new rendering that
// no rendering rollout released.
//
// Deletes, updates of the status subresource, updates that change neither
// the content nor the owner of a work, and the works of add-ons the
// controller does not take are admitted. The shipped configuration keeps
// those away from the gate altogether (matchConditions, and an
// objectSelector the controller keeps to the add-ons it takes: [Scope]),
// so that while no replica answers only a taken add-on's content changes
// wait. [Recreated] says what happens to a work deleted: whether the
// manager's create in its place lands at once or waits.
//
// [Decide] is pure: the webhook reads the hub, builds a [Request] and a
// [Cluster], and answers with the [Decision]. A held write's message names
// the work, the add-on, the cluster, its group and what it waits for, in
// the words of the rollout's status.
package workgate
