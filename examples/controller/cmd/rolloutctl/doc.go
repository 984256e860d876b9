// Command rolloutctl is an operator's controls over the rollouts of the
// rolloutkit controller on a hub: it shows where an add-on's rollout
// stands and what each group waits for, pauses and resumes it, and
// approves a group that waits for an approval.
//
//	go -C examples/controller run ./cmd/rolloutctl [-kubeconfig FILE] SUBCOMMAND [flags] ARGS
//
//	rolloutctl status ADDON [-o text|json]          the rollout, one line per group, then approvals pending and conditions
//	rolloutctl pause ADDON                          no cluster starts; clusters in flight finish
//	rolloutctl resume ADDON                         clusters start again
//	rolloutctl approve ADDON GROUP [-placement NS/NAME]   let GROUP start at the revision it waits at
//
// Every subcommand takes -h, and -kubeconfig, before or after its name;
// without it the hub is the one client-go's standard loading finds
// ($KUBECONFIG, ~/.kube/config, or the pod's service account in a
// cluster).
//
// # status
//
// status reads the hub as the controller does (hubctl.ReadHub) and plans
// the add-on with the controller's own call (addonrollout.PlanControlled, through
// the report of examples/plan and the controller's -dry-run), so that what
// it shows is the controller's answer at this moment, even between two of
// its reconciles: per placement its revision, per group its phase, what it
// waits for (Approval, Window, Paused, Verification, Invalid, or the
// planner's own: Group, Mandatory, Cluster, Breach, MaxConcurrency), its
// clusters by status (succeeded/progressing/failed/timed out/to apply),
// until when and why; then the approvals pending, the verifications due
// (the controller runs them; rolloutctl does not), the problems of an
// invalid AddOnRollout, and its conditions. It also shows the
// AddOnRollout's generation beside the generation its status was written
// for, so that a controller lagging behind the spec shows. -o json prints
// the report of examples/plan -o json instead. An add-on without an
// AddOnRollout is shown as the planner sees it, rolled out without
// operator controls.
//
// # pause and resume
//
// pause sets spec.paused of the AddOnRollout named after the add-on with
// a merge patch, and creates the AddOnRollout when there is none; resume
// clears it, and says there is nothing to resume when there is no
// AddOnRollout or it is not paused.
//
// # approve
//
// approve creates, for each placement where GROUP waits for an approval
// (or only for -placement), a RolloutApproval of the revision it waits at,
// named ADDON-GROUP-REVISION (ADDON-NAMESPACE-PLACEMENT-GROUP-REVISION when
// the add-on has several placements), lowercased, and with a short hash of
// the exact names appended when they are not a valid object name as they
// are. Approving again is fine: an approval that already approves the
// group at that revision is reported, not created twice. When nothing waits
// for an approval of GROUP, approve refuses and says what is pending
// instead.
//
// # Exit codes
//
// 0 when done (status printed whatever the rollout's state; paused,
// resumed, approved, or nothing to resume), 1 when approve refuses or the
// hub fails a request, 2 on bad usage: an unknown subcommand or flag,
// missing or extra arguments, a kubeconfig that cannot be loaded, or an
// add-on the hub does not have (status, approve).
package main
