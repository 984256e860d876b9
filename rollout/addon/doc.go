// Package addon connects OCM add-ons to the rollout planner: it computes the
// configs each ManagedClusterAddOn should run with, maps each add-on to the
// cluster status the planner takes, and writes the ClusterManagementAddOn's
// install progression condition, all as OCM's add-on manager
// (pkg/addon/controllers/addonconfiguration) does.
//
// # One reconcile
//
// For one install-strategy placement of a ClusterManagementAddOn:
//
//	addons, err := addon.Evaluate(cma, placementRef, mcas, specHash)
//	result, err := planner.Plan(strategy, groups, addon.Statuses(addons))
//	// write addons[i].Configs to the add-ons whose cluster is in result.ToRollout
//	cond := addon.Tally(groups, addons, result).Condition()
//
// [Desired] and [ClusterStatus] are the two steps of Evaluate for a single
// add-on. specHash is a [SpecHashFunc], typically hash.Spec of the config
// object read from a cache.
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
