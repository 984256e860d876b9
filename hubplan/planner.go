package hubplan

import (
	"errors"
	"fmt"
	"time"

	"github.com/rolloutkit/rolloutkit/rollout"
)

// Planner plans one add-on's rollout on a hub under the operator's
// controls. Its Plan is the one planning call a controller, a dry run, an
// offline report and a CLI make for an add-on, so that their answers are
// the same (docs/semantics.md §6.5-§6.11). Its zero value plans with the
// real clock, every PromQL query accepted that is not empty, and
// approvals kept forever.
type Planner struct {
	// Rollout plans each placement's groups: its clock, read once per
	// call, and gates of its own held before the AddOnRollout's.
	Rollout rollout.Planner
	// ValidateQuery checks the PromQL query of each Prometheus
	// verification; nil: only that it is not empty.
	ValidateQuery QueryValidator
	// ApprovalRetention is how long an approval of a revision its
	// placement no longer rolls out is kept (Plan.Expired); 0: forever.
	// A controller gives DefaultApprovalRetention unless told otherwise.
	ApprovalRetention time.Duration
}

// Plan plans the next step of the add-on in: in.ClusterManagementAddOn's
// install strategy, planned as OCM's add-on manager plans it
// (rollout/addon's PlanAddon), with each placement's rollout held by the
// gates of the AddOnRollout in in.Controls, and new content of the
// add-on's works staged as a rendering revision of its own.
//
// Without an AddOnRollout it is PlanAddon. With one, each placement's
// rollout is held by its gates, asked in this order:
//
//   - an invalid spec holds every group (Plan.Invalid says why);
//   - spec.paused holds every group;
//   - spec.approvalRequired holds the groups it names until a
//     RolloutApproval names the add-on, the placement, the group and the
//     placement's current revision;
//   - spec.windows hold the groups they name outside every window that
//     names them;
//   - spec.verifications: a group they name counts as done only when
//     each of them passed for the revision, after the group completed;
//     until then the groups after it do not start (rollout.AfterVerified).
//
// A gate never holds a cluster in flight. The status says per placement
// its revision, when it started and completed, and per group, in rollout
// order, its phase, what it waits for and why; the checks due are in
// Plan.Checks: run them, record their results ([Plan.Record]) and plan
// again. A new revision starts with no approval and no verification.
//
// Without a ClusterManagementAddOn (in.ClusterManagementAddOn nil), Plan
// gives the statuses of the AddOnRollout and the approvals that name
// in.AddOn: Progressing False and Approved False, reason
// AddOnNotFound, each message saying how to fix a mistyped name; once the
// add-on exists, its plan's status replaces that one.
//
// The error is only for inputs Plan cannot work with (no add-on named, a
// ClusterManagementAddOn of another name than in.AddOn, what PlanAddon
// refuses). Times come from the rollout planner's clock, read once; the
// inputs are not modified.
func (pl Planner) Plan(in Inputs) (Plan, error) {
	cma := in.ClusterManagementAddOn
	switch {
	case cma == nil && in.AddOn == "":
		return Plan{}, errors.New("plan add-on: Inputs.AddOn \"\" and no ClusterManagementAddOn: want the add-on's name")
	case cma == nil:
		return pl.planMissing(in.Controls, in.AddOn), nil
	case in.AddOn != "" && in.AddOn != cma.Name:
		return Plan{}, fmt.Errorf("plan add-on: Inputs.AddOn %q but ClusterManagementAddOn %q: want the same add-on", in.AddOn, cma.Name)
	}
	return pl.planControlled(in)
}
