// Package agent is a stand-in for what runs besides the rollout controller
// on an OCM hub and its managed clusters, for tests and demos on a hub with
// no real clusters. It works at the level of ManifestWorks, as OCM does:
//
//   - the add-on manager ([Deployer]), the part of an add-on that
//     addon-framework's agentdeploy controller runs: for every
//     ManagedClusterAddOn with desired configs it renders the add-on's agent
//     (a Deployment carrying the config's agent image, the seed's
//     ManagedProxyConfiguration spec.proxyAgent.image) into the ManifestWork
//     addon-<name>-deploy-0 in the cluster's namespace, labelled
//     open-cluster-management.io/addon-name=<name> and annotated
//     open-cluster-management.io/config-spec-hash with the desired configs'
//     spec hashes (addon.ConfigHashes), and renders it again when it is
//     deleted. It sets the add-on's ManifestApplied condition False when
//     the hub refuses a write of the work, and otherwise from the work's
//     Applied condition, as addon-framework v1.2.0 does; or, for an add-on
//     manager that trusts its own writes (Options.AppliedFromWrites), True
//     whenever a write of the work lands, and otherwise as it was;
//   - the work agent ([WorkAgent]) of each cluster: it first puts OCM's
//     finalizer [WorkFinalizer] on a work, with an update of the work, then,
//     Delay after the work changes, reports it Applied and Available at its
//     generation, or, on a cluster it is told to fail, Applied False (the
//     apply failed), and tries again every Delay until it is told
//     otherwise. A deleted work stays, deleting, until the agent takes the
//     finalizer off, Delay after it first sees the work deleting (the time
//     it takes to delete what the work applied); then the delete
//     completes. A deleting work without the finalizer it leaves as it is.
//
// Neither writes lastAppliedConfig or the Progressing condition: on a real
// hub OCM's add-on manager derives them from the works, and here the rollout
// controller does (addon.Progressing). So a failed apply is what it is in
// OCM: the add-on stays Progressing until the rollout's deadline makes it
// TimeOut; nothing reports Failed.
//
// [Setup] registers both with a controller-runtime manager; each writes
// with a field manager of its own (DeployerFieldManager,
// WorkAgentFieldManager) and with optimistic locks (every update and patch,
// the work agent's finalizer updates included, carries the resourceVersion
// it was computed from), so a concurrent write by the rollout controller
// makes it read again instead of overwriting.
package agent
