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
// warnings, each group's phase and reason, the clusters to start now
// (ToApply), and apart from them the clusters already in flight
// (progressing, failed within their deadline, or soaking). -o json prints
// the same as one JSON object. Gates (-approve, -window, -pause) hold
// groups back; held groups show phase Blocked and the gate's reason. An
// -approve name that is no group of the plan is an error.
//
// The exit code is 0 when the plan is printed, 2 on bad flags or bad input
// (a file that is empty or cannot be read or parsed, objects the planner
// refuses), and 1 when the plan cannot be written.
package main
