// Command controller is a hub controller built on rolloutkit: it schedules
// Placements into PlacementDecisions, and rolls add-on configs out across
// the decision groups of each ClusterManagementAddOn's placements, as OCM's
// placement controller and add-on manager do; and it serves the work gate,
// a validating webhook that holds the updates of those add-ons'
// ManifestWorks that run ahead of the rollout, and admission, which
// refuses invalid AddOnRollouts and records who creates each
// RolloutApproval (-webhook-bind-address; its certificate from
// -webhook-cert-dir, or kept by the controller with -webhook-cert-secret).
// See package hubctl.
//
//	go -C examples/controller run . -kubeconfig FILE
//
// Exit codes: 0 after a clean stop (SIGINT or SIGTERM), 1 on a run-time
// error, 2 for bad flags.
package main
