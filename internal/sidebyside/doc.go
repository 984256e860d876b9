// Package sidebyside runs OCM v1.2.0's own add-on manager and the
// rolloutkit controller on one real hub (etcd and kube-apiserver), each
// rolling out its own ClusterManagementAddOn, and compares what they write
// and when.
//
// It is a module of its own, because OCM v1.2.0 needs an older client-go
// than the controller's module: the library never depends on OCM, and
// OCM's code runs only here, as a program (cmd/ocm-addon-manager). Every
// side runs as its own process, built from its own module:
//
//   - the hub: examples/controller/cmd/testhub -seed=false (OCM's CRDs and
//     rolloutkit's, nothing else); the test writes every object;
//   - OCM's side: cmd/ocm-addon-manager, the five add-on manager
//     controllers of OCM v1.2.0 that install and roll out (addonmanagement,
//     addonconfiguration, addonowner, addonprogressing,
//     cmainstallprogression) and addon-framework's cmaconfig, taking the
//     add-on annotated addon.open-cluster-management.io/lifecycle:
//     addon-manager;
//   - our side: the controller of examples/controller (without -placements,
//     its default) with -lifecycle rolloutkit, taking the add-on annotated
//     rolloutkit;
//   - what both share, as a hub shares it: testhub agents -placements,
//     which schedules the one Placement both add-ons install with
//     (rolloutkit's scheduler, for both), renders each
//     add-on's ManifestWork from its desired configs and plays the work
//     agent of every cluster. So the two add-ons read the same
//     PlacementDecisions, the same config object, and get their works
//     rendered and applied by the same code with the same delays.
//
// TestAddOnManagerSideBySide runs the scenarios of issue 17 on small hubs
// and requires the two sides to agree on the order in which clusters and
// groups get a config, on every soak being kept, on the install
// progressions and on the add-ons installed and removed, except where a
// documented divergence (docs/compatibility.md) explains the difference.
//
// TestWorkGateSideBySide runs the seed story with the shared agents
// rendering by name, as cluster-proxy does on addon-framework
// (testhub agents -render-by-name), and our side serving the work gate through
// the shipped ValidatingWebhookConfiguration, which our controller scopes
// to its own add-on's works (a witness between the hub and the gate keeps
// what the gate was asked: never about OCM's works): OCM's prod works
// carry a changed config within a second, long before OCM's rollout hands
// prod its hash; ours only once our rollout has. A prod work deleted
// meanwhile comes back at once on OCM's side, with the new content under
// the old hash; on ours its create is held until the rollout reaches the
// cluster (A10).
//
// BenchmarkAddOnManagerSideBySide times one config change at 1,000 and
// 3,500 clusters on each side (docs/performance.md), and with
// -sidebyside.gate our side with the work gate too.
//
//	hack/test-apiserver.sh
//	cd internal/sidebyside && go test ./...
package sidebyside
