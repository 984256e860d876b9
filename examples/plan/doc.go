// Command plan reads the hub's objects as Kubernetes YAML and prints what
// the next step of an add-on's rollout is, and why.
//
//	kubectl get managedclusters,placements,placementdecisions,clustermanagementaddons,managedclusteraddons -A -o yaml > hub.yaml
//	go run ./examples/plan -f hub.yaml
//
// It accepts multi-document YAML and `kind: List`, and ignores kinds it does
// not use (config objects such as a ManagedProxyConfiguration are hashed
// when the ClusterManagementAddOn's status has no spec hash for them). For
// one add-on (-addon, default: the only ClusterManagementAddOn present) it
// prints the decision groups of each install-strategy placement (from the
// PlacementDecisions if present, else by scheduling the Placement), the
// warnings, each group's phase and reason, and the next clusters to update.
// -o json prints the same as one JSON object. Gates (-approve, -window,
// -pause) hold groups back; held groups show phase Blocked and the gate's
// reason.
package main
