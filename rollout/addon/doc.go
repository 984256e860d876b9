// Package addon connects OCM add-ons to the rollout planner: it computes the
// configs each ManagedClusterAddOn should run with, maps each add-on to the
// cluster status the planner takes, and computes the status the rollout
// writes: the add-ons' config references and the ClusterManagementAddOn's
// install progression, all as OCM's add-on manager
// (pkg/addon/controllers/addonconfiguration and cmainstallprogression) does.
//
// # One reconcile
//
// For one install-strategy placement of a ClusterManagementAddOn:
//
//	addons, err := addon.Evaluate(cma, placementRef, mcas, specHash)
//	result, err := planner.Plan(strategy, groups, addon.Statuses(addons))
//
//	// Each add-on whose cluster is in result.ToRollout gets its configs:
//	refs := addon.ConfigReferences(mca.Status.ConfigReferences, addons[i].Configs)
//	// write refs to mca's status.configReferences, unless equal
//
//	// The ClusterManagementAddOn records the placement's progress:
//	desired, err := addon.Desired(cma, placementRef, nil, specHash)
//	ip := addon.InstallProgression(cma.Status.InstallProgressions, placementRef,
//		desired, addon.Tally(groups, addons, result), clock.Now())
//	// put ip in place of placementRef's entry of status.installProgressions,
//	// unless equal
//
// [Desired] and [ClusterStatus] are the two steps of Evaluate for a single
// add-on. specHash is a [SpecHashFunc], typically hash.Spec of the config
// object read from a cache. The time comes from the caller's clock, and
// both writes can be skipped when the computed status equals the one read:
// ConfigReferences and InstallProgression return it unchanged when nothing
// changed.
//
// # Which configs
//
// An add-on's desired configs are the ClusterManagementAddOn's
// spec.defaultConfigs, overridden by the placement's configs in
// spec.installStrategy.placements, overridden by the add-on's own
// spec.configs, one whole group/resource at a time ([Desired]).
//
// # Which status
//
// An add-on whose status.configReferences do not list exactly the desired
// configs with the desired spec hashes is ToApply; one that lists them but
// has not applied them yet (lastAppliedConfig differs) is Progressing or
// Failed by its Progressing condition; otherwise it is Succeeded
// ([ClusterStatus]).
//
// # What is written
//
// An add-on the rollout lists gets the desired configs in its
// status.configReferences[].desiredConfig, keeping the lastAppliedConfig
// its agent reported ([ConfigReferences]); the agent then applies them and
// the add-on goes from ToApply to Progressing to Succeeded.
//
// The ClusterManagementAddOn's status.installProgressions[] entry of the
// placement carries the placement's desired configs, the Progressing
// condition of [Progress], and each config's lastAppliedConfig and
// lastKnownGoodConfig, which become the desired config only when every
// selected cluster has succeeded ([InstallProgression]).
//
// # What is staged, and what is not (the seed's caveats)
//
// Only the spec hash of a referenced config drives the rollout. For the
// cluster-proxy add-on of the seed story:
//
//   - A new spec.proxyAgent.image in the ManagedProxyConfiguration changes
//     its spec hash: every add-on becomes ToApply and the planner rolls the
//     new agents out group by group (dev, stg, prod).
//   - A new spec.proxyServer.image alone also changes the spec hash, so it
//     too starts a staged rollout of the agents, although the hub's
//     proxy-server Deployment is updated at once, outside the rollout:
//     during the rollout the new proxy-server talks to old agents in the
//     groups not reached yet.
//   - A new agent chart (a new add-on manager image) with an unchanged
//     ManagedProxyConfiguration spec changes no hash: every add-on stays
//     Succeeded, no rollout starts, and the add-on manager may update every
//     cluster's ManifestWork at once.
//
// What can be validated progressively is therefore a change of the agent's
// configuration, not a whole cluster-proxy release.
package addon
