// Command ocm-addon-manager runs OCM v1.2.0's own add-on manager
// (open-cluster-management.io/ocm, pkg/addon) against a hub, for the
// side-by-side comparison with the rolloutkit controller
// (TestAddOnManagerSideBySide). It builds the five controllers that install
// add-ons and roll their configs out, with OCM's own constructors, indexers
// and filter (utils.ManagedByAddonManager), two workers each, as
// RunControllerManagerWithInformers in ocm's pkg/addon/manager.go does:
//
//   - addonmanagement (install and removal),
//   - addonconfiguration (the rollout, and the install progressions'
//     conditions),
//   - addonowner (the owner reference of each ManagedClusterAddOn),
//   - addonprogressing (progress from the ManifestWorks),
//   - cmainstallprogression (the install progressions and default configs).
//
// Left out are the two controllers of that function that have nothing to
// do with a rollout: addontemplate (template add-ons, whose CRD the test
// hub does not install) and addontokeninfra (token-based registration).
//
// Beside them it runs addon-framework v1.2.0's cmaconfig controller, which
// on a real hub runs in each add-on's own manager: it writes the spec hashes
// of the ClusterManagementAddOn's default configs into its status, which is
// where OCM's add-on manager reads the config to roll out. It takes the
// same add-ons as the others (the rolloutkit controller computes those
// hashes itself).
//
//	ocm-addon-manager -kubeconfig FILE [-metrics-bind-address 127.0.0.1:8090]
//
// The metrics endpoint serves rest_client_requests_total{code,method,host},
// the API requests the process made, as controller-runtime names them.
//
// Exit codes: 0 after a clean stop (SIGINT or SIGTERM), 1 on a run-time
// error, 2 for bad flags.
package main
