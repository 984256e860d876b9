// Package agent is a stand-in for the spoke side of an OCM add-on, for
// tests and demos on a hub with no real managed clusters.
//
// On a real hub, the add-on manager's progressing controller turns each
// cluster's ManifestWork status into its ManagedClusterAddOn's
// status.configReferences[].lastAppliedConfig and Progressing condition. The
// Agent here plays that part: when a ManagedClusterAddOn's desiredConfig
// differs from its lastAppliedConfig it reports Progressing at once, and
// after Delay it either copies every desiredConfig into lastAppliedConfig
// and reports Completed, or, for a cluster it is told to fail, reports
// Failed and leaves lastAppliedConfig alone. An add-on whose desired configs
// are already applied (a revert to the running config) is reported Completed. It writes the way OCM's
// controller does (conditions set with meta.SetStatusCondition), as a merge
// patch of the status that carries the resourceVersion it read, so it never
// overwrites the rollout controller's desiredConfig.
package agent
