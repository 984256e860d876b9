// Package v1alpha1 is the rolloutkit.io/v1alpha1 API: the operator's
// controls over an add-on's rollout on a hub.
//
//   - An AddOnRollout, cluster-scoped and named after the
//     ClusterManagementAddOn it governs, pauses the rollout, names the
//     decision groups that need an approval, the time windows groups may
//     start in, and the checks (a webhook, a Prometheus query) a group must
//     pass before the groups after it start. Its status answers "why has
//     prod not started?" group by group.
//   - A RolloutApproval, cluster-scoped, approves one group of one
//     placement for one revision of the add-on's configs. Approvals are
//     objects of their own so that RBAC can let a person approve without
//     letting them edit the add-on or its gates.
//
// The library reads these types (hubplan.Planner.Plan); the
// controller in examples/controller serves them, with the CRDs under
// examples/controller/config/crd.
//
// +kubebuilder:object:generate=true
// +groupName=rolloutkit.io
package v1alpha1
