// Command plan reads the hub's objects as Kubernetes YAML and prints what
// the next step of an add-on's rollout is, and why.
//
//	kubectl get managedclusters,placements,placementdecisions,clustermanagementaddons,managedclusteraddons,managedclustersets,managedclustersetbindings,addonplacementscores,managedproxyconfigurations -A -o yaml > hub.yaml
//	go run ./examples/plan -f hub.yaml
//
// with the resources of the add-on's config objects listed too
// (managedproxyconfigurations are cluster-proxy's).
//
// It accepts multi-document YAML and `kind: List`, and keeps objects of
// kinds it does not plan with as config objects: a config's spec hash is
// always the hash of its object (such as a ManagedProxyConfiguration), as
// the controller hashes it, never one recorded in a status, and a config
// the input does not hold fails its placements' plans (reason
// ConfigurationError). For one add-on (-addon, default: the only
// ClusterManagementAddOn present) it prints the decision groups of each
// install-strategy placement, from its PlacementDecisions only, as the
// controller and OCM's add-on manager take them (a Placement without
// PlacementDecisions has no groups yet, and a warning says how many
// clusters it would select), the warnings, each group's phase and reason,
// the clusters to start now (ToApply), and apart from them the clusters
// already in flight (progressing, failed within their deadline, or
// soaking). The inputs are read as the controller reads them
// (hubplan.ReadInputs). -o json prints
// the same as one JSON object. Gates (-approve, -window, -pause) hold
// groups back; held groups show phase Blocked and the gate's reason. An
// -approve name that is no group of the plan is an error.
//
// # Operator controls
//
// On a hub with rolloutkit's CRDs, add addonrollouts,rolloutapprovals to
// the kinds listed (a hub without them refuses the whole `kubectl get`):
//
//	kubectl get ...,addonrollouts,rolloutapprovals -A -o yaml > hub.yaml
//
// The AddOnRollout named after the add-on (rolloutkit.io/v1alpha1) then
// holds the plan as the controller holds the rollout, with the same call
// (hubplan.Planner.Plan): spec.paused, the groups of spec.approvalRequired
// until a RolloutApproval approves them for the placement's revision, the
// time windows, and the verifications, whose results its status records
// (plan runs no check: it lists those due). The report gives each
// placement's revision, each group's phase and what it waits for as the
// AddOnRollout's status says them, the approvals pending, the
// verifications due, the problems of an invalid spec, and the conditions.
// An invalid AddOnRollout (a time zone, a time or a day that is none, a
// group no placement has, a URL or a PromQL query that does not parse) is
// no bad input: the add-on is held until it is fixed, as the controller
// holds it, each problem is reported naming its field, and the exit code is
// 0, as for any held or halted rollout. An AddOnRollout or a
// RolloutApproval of another apiVersion, or with a field rolloutkit does
// not know, is bad input. The -approve, -window and -pause gates apply
// before the AddOnRollout's.
//
// # Add-on versions
//
// Objects are decoded with a runtime.Scheme of the API types plan reads
// (OCM's cluster, add-on and work types, rolloutkit's controls); an object
// of one of those kinds in a version the scheme does not have is refused,
// and objects of every other kind are kept as read (unstructured), for the
// config objects' spec hashes. ClusterManagementAddOns and
// ManagedClusterAddOns are read in both versions a hub serves: v1beta1,
// which `kubectl get` prints (the API server's preferred version) and the
// planner works in, and v1alpha1, which the hub stores. A v1alpha1 object
// is converted to v1beta1 as OCM's conversion webhook converts it
// (addonversion): a ClusterManagementAddOn's
// spec.supportedConfigs[].defaultConfig become spec.defaultConfigs, and a
// ManagedClusterAddOn's spec.installNamespace becomes an annotation. An
// add-on object of any other apiVersion, or of none, is refused, and so is
// a v1alpha1 ManagedClusterAddOn whose status.configReferences[] names a
// config other than its desiredConfig's, or has no desiredConfig: v1beta1
// names the config only there, so the conversion would lose the config the
// plan compares.
//
// # Scheduling
//
// Each Placement is also scheduled as OCM's scheduler would schedule it,
// from the whole input, for its warnings only (the groups are the
// PlacementDecisions'): the ManagedClusterSets bound to its namespace by
// ManagedClusterSetBindings, the clusters' taints, the
// AddOnPlacementScores, and every PlacementDecision (those of other
// placements count for the Balance prioritizer). The warnings name the
// clusters a taint dropped, tolerations about to expire, a namespace with
// no binding, and a Placement that selects clusters but has no
// PlacementDecisions in the input. An input with no ManagedClusterSet and no binding at all
// was most likely listed without them: then every cluster is a candidate,
// as if bound through the global set, and a warning says so. Sets and
// bindings of version v1beta1, which older hubs serve, are read as v1beta2
// (a LegacyClusterSetLabel selector is ExclusiveClusterSetLabel). A
// Placement with a celSelector is refused: CEL is not evaluated.
//
// The exit code is 0 when the plan is printed, whatever it says (a
// breached rollout, or one an invalid AddOnRollout holds, included), 2 on
// bad flags or bad input (a file that is empty or cannot be read or parsed,
// objects the planner refuses), and 1 when the plan cannot be written.
package main
