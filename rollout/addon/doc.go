// Package addon connects OCM add-ons to the rollout planner: it computes the
// configs each ManagedClusterAddOn should run with, maps each add-on to the
// cluster status the planner takes, and computes the status the rollout
// writes: the add-ons' config references and the ClusterManagementAddOn's
// install progression, all as OCM's add-on manager
// (pkg/addon/controllers/addonconfiguration and cmainstallprogression) does.
//
// # One reconcile
//
// [PlanAddon] is OCM's add-on step, exactly: what OCM's add-on manager
// writes for one ClusterManagementAddOn and its placements. A controller,
// a dry run or a report that also honours rolloutkit's operator controls
// (an AddOnRollout's pause, approvals, windows and verifications) and
// stages the add-on's rendered works calls hubplan.Planner.Plan
// instead: it is PlanAddon under those gates (a [GatesFunc]), and without
// an AddOnRollout or works it returns PlanAddon's steps. Call PlanAddon
// directly for OCM's behaviour alone:
//
//	steps, err := addon.PlanAddon(planner, cma, placements, mcas, specHash)
//	for _, s := range steps {
//		// s.Err != nil: nothing planned for s.Ref; the reason is in
//		// s.Progression's condition: log it, send an event
//		for _, w := range s.Writes {
//			// patch w.Cluster's add-on: status.configReferences and conditions
//		}
//		// put s.Progression in place of s.Ref's entry of
//		// status.installProgressions, unless equal
//	}
//
// placements[i] holds the Placement and the decision groups of
// spec.installStrategy.placements[i]; a cluster that several of them
// select belongs to the last ([LastPlacementWins]), and Progressive's
// default window is the Placement's clustersPerDecisionGroup
// ([DefaultConcurrency]). [Install] says which add-ons to create and
// delete, [Progressing] what an add-on's ManifestWorks say of its
// progress, and [PlanProgress] whether that is to be written now. The pieces PlanAddon is made of ([Evaluate], rollout.Planner,
// [ConfigReferences], [PlacementConfigs], [Tally], [InstallProgression])
// are exported for callers that need one step alone. specHash is a
// [SpecHashFunc], typically hash.Spec of the config object read from a
// cache. Times come from the planner's clock.
//
// # Versions
//
// Every function here takes the v1beta1 types. Hubs store
// ClusterManagementAddOns and ManagedClusterAddOns in v1alpha1 (OCM's CRDs
// serve v1beta1 through the add-on manager's conversion webhook), so a
// caller that reads v1alpha1 converts once, with the conversions the API
// module generates (addonv1beta1.Convert_v1alpha1_ClusterManagementAddOn_To_v1beta1_ClusterManagementAddOn
// and its ManagedClusterAddOn twin) and what OCM's conversion webhook adds
// to them, as examples/controller and examples/plan do through
// addonversion; a status written back goes onto the
// object as read.
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
