// Package config holds the controller's install manifests, kustomize-ready
// plain YAML:
//
//   - crd/: the CustomResourceDefinitions of rolloutkit.io (generated from
//     api/v1alpha1 by hack/generate.sh), which the package embeds so that
//     the test hub and tools install exactly what ships;
//   - rbac/: the controller's ServiceAccount and least-privilege roles (the
//     add-ons, the config types it reads, the Placement scheduling that
//     -placements=false leaves out, the leader-election Lease), and an
//     approver role that can only create RolloutApprovals;
//   - manager/: the namespace and the Deployment (two replicas under
//     leader election, probed, locked down);
//   - default/: all of it, in the namespace its kustomization sets:
//     kubectl apply -k examples/controller/config/default;
//   - ocm-placement/: default/ for a hub where OCM's placement controller
//     runs: -placements=false, and no RBAC for Placements.
//
// TestManifests checks what they promise; TestManifestsApply applies them
// to the test hub with a server-side dry run; TestRBACLeastPrivilege
// (package e2e) runs the controller under the RBAC alone.
package config
