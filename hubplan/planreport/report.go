package planreport

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// Report is the plan of one add-on, in the shape of its JSON output.
type Report struct {
	// Addon is the name of the ClusterManagementAddOn.
	Addon string `json:"addon"`
	// Now is the time the plan was made at.
	Now time.Time `json:"now"`
	// Placements are the plans of the install-strategy placements, in the
	// order of spec.installStrategy.placements.
	Placements []Placement `json:"placements"`
	// Start are the clusters to start updating now (status ToApply), over
	// every placement.
	Start []string `json:"start"`
	// InFlight are the clusters already being updated, over every
	// placement: progressing, failed within their deadline, or soaking.
	InFlight []InFlight `json:"inFlight"`
	// Next are Start and InFlight together, the planner's ToRollout, in
	// its order. It predates Start and InFlight and is kept for readers of
	// the JSON that use it.
	Next []string `json:"next"`
	// TimedOut are the clusters past their progress deadline.
	TimedOut []string `json:"timedOut"`
	// Removed are the clusters with an add-on status but in no decision
	// group.
	Removed []string `json:"removed"`
	// Breach tells whether a placement's failure budget is exceeded.
	Breach bool `json:"breach"`
	// RecheckAfter is the number of seconds after which to plan again:
	// the nearest end of a soak, a deadline, or a gate's change; 0 when
	// there is nothing to wait for.
	RecheckAfter float64 `json:"recheckAfter"`
	// Warnings are the scheduler's and the planner's warnings about the
	// input, each prefixed with its placement's namespace/name.
	Warnings []string `json:"warnings"`
	// Rollout is what the add-on's AddOnRollout makes of the plan: the
	// approvals pending, the verifications due, the problems of its spec
	// and its conditions. Absent when the add-on has no AddOnRollout.
	Rollout *Rollout `json:"rollout,omitempty"`
}

// Placement is the plan of one install-strategy placement.
type Placement struct {
	// Namespace and Name name the Placement.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Strategy is the rollout strategy type; All when unset.
	Strategy string `json:"strategy"`
	// Source says where the groups came from: the PlacementDecisions, or
	// scheduling the Placement.
	Source string `json:"source"`
	// Groups are the decision groups, in index order.
	Groups []Group `json:"groups"`
	// Start are the clusters of this placement to start updating now.
	Start []string `json:"start"`
	// InFlight are the clusters of this placement already being updated.
	InFlight []InFlight `json:"inFlight"`
	// Next are Start and InFlight together (see Report.Next).
	Next []string `json:"next"`
	// Progress is the message of the ClusterManagementAddOn's install
	// progression condition for this placement.
	Progress string `json:"progress"`
	// NotPlanned says why nothing was planned for the placement (a rollout
	// strategy that does not validate, a missing Placement, a config that
	// cannot be read): the reason and message the controller writes in
	// its install progression's condition. Absent when it was planned.
	NotPlanned *NotPlanned `json:"notPlanned,omitempty"`
	// Revision is the placement's revision (addon.Revision), the one a
	// RolloutApproval names. Absent without an AddOnRollout, or when the
	// placement's configs could not be read.
	Revision string `json:"revision,omitempty"`
	// Kind is the kind of revision rolling out (hubplan's Kind*
	// constants): Config, Rendering (new content of the add-on's works
	// under unchanged configs, which the work gate holds until the
	// rollout releases it), or ConfigAndRendering (a rendering joined to
	// a config change that has not reached every cluster: one revision of
	// both). Absent where Revision is.
	Kind string `json:"kind,omitempty"`
	// Rendering is the rendering revision the revision rolls out, for a
	// Rendering or ConfigAndRendering revision (Revision is then
	// hubplan.CombinedRevision of the configs' revision and it).
	// Absent otherwise.
	Rendering string `json:"rendering,omitempty"`
	// FastRollback is true when the revision rolls out by the
	// AddOnRollout's spec.fastRollback: no soak, approval, window or
	// verification (the status's placements[].fastRollback).
	FastRollback bool `json:"fastRollback,omitempty"`
	// Configs are what the revision is made of, as the AddOnRollout's
	// status lists them: each config's resource, name, spec hash and the
	// add-on's desired image it gives. Absent where Revision is, and when
	// the status lists none.
	Configs []v1alpha1.RevisionConfig `json:"configs,omitempty"`
}

// NotPlanned is why a placement was not planned.
type NotPlanned struct {
	// Reason is the condition's reason (rollout/addon's Reason* constants).
	Reason string `json:"reason"`
	// Message names the field or the object at fault.
	Message string `json:"message"`
}

// Group is the plan of one decision group.
type Group struct {
	// Index and Name identify the decision group; Name may be empty.
	Index int32  `json:"index"`
	Name  string `json:"name"`
	// Clusters are the group's clusters.
	Clusters []string `json:"clusters"`
	// Phase is the group's rollout phase (rollout.Phase's String, such as
	// Active, Waiting, Complete, Breached or Blocked).
	Phase string `json:"phase"`
	// Reason says why the group is in its phase, for people; its wording
	// may change. Programs read Wait.
	Reason string `json:"reason"`
	// Wait is what the group waits for, as values (rollout.Wait); absent
	// when it waits for nothing: it is complete, or all its clusters have
	// started.
	Wait *Wait `json:"wait,omitempty"`
	// Status is the group as the AddOnRollout's status says it, under the
	// AddOnRollout's gates: its phase (which differs from Phase when the
	// group is complete but not verified yet, or waits only for an earlier
	// group's verifications), what it waits for (waitsFor: Approval,
	// Window, Paused, Verification, Invalid, or the planner's own kinds),
	// why, until when, and its counts; and what the work gate holds of its
	// clusters: since when the oldest hold (heldSince), the held clusters
	// longest held first (holds: each with its works, those missing, the
	// gate's reason, since when and why) and how many miss a work
	// (counts.missing). Absent without an AddOnRollout, and for a
	// placement that was not planned.
	Status *v1alpha1.GroupStatus `json:"status,omitempty"`
}

// Wait is what a group waits for (rollout.Wait). Fields that do not apply
// to its kind are absent.
type Wait struct {
	// Kind is rollout.WaitKind's String: Group (an earlier group), Mandatory
	// (a mandatory group, which goes first), Cluster (clusters of the same
	// group in flight), Gate, Breach (the failure budget is exceeded) or
	// Window (Progressive's window is full).
	Kind string `json:"kind"`
	// Group is the group waited for (Group, Mandatory), or the group
	// itself (Cluster).
	Group *GroupRef `json:"group,omitempty"`
	// Cluster is the cluster waited for, or a breached group's first
	// failure.
	Cluster *ClusterRef `json:"cluster,omitempty"`
	// Gates are the reasons of the gates that hold the group (Gate) or the
	// group waited for.
	Gates []string `json:"gates,omitempty"`
	// Until is when the wait may end on the clock: the end of the
	// cluster's soak or its deadline, or when a gate may change its answer.
	Until *time.Time `json:"until,omitempty"`
	// RolloutFailures counts the failures of the whole rollout when a
	// group of type Progressive is breached: that budget is shared.
	RolloutFailures int `json:"rolloutFailures,omitempty"`
	// Window is the size of Progressive's window (Window).
	Window int `json:"window,omitempty"`
}

// GroupRef names a decision group.
type GroupRef struct {
	// Index and Name identify the decision group; Name may be empty.
	Index int32  `json:"index"`
	Name  string `json:"name"`
}

// ClusterRef is a cluster a group waits for (rollout.ClusterRef).
type ClusterRef struct {
	// Cluster is the cluster's name.
	Cluster string `json:"cluster"`
	// Status is its evaluated status (rollout.Status's String): ToApply
	// (starting now), Progressing, Failed, Succeeded (soaking until Until)
	// or TimeOut (at Until, when known).
	Status string `json:"status"`
	// Until is the end of its soak, its deadline, or the deadline that
	// passed; absent when there is none.
	Until *time.Time `json:"until,omitempty"`
	// Others counts the other clusters of its group in the same case.
	Others int `json:"others,omitempty"`
}

// InFlight is a cluster already being updated: one the planner keeps in
// ToRollout though it has started.
type InFlight struct {
	// Cluster is the cluster's name.
	Cluster string `json:"cluster"`
	// Status is the cluster's evaluated status (rollout.Status's String):
	// Progressing, Failed (within its progressDeadline) or Succeeded
	// (soaking for minSuccessTime).
	Status string `json:"status"`
	// Until is when that ends: the deadline of a Progressing or Failed
	// cluster, the end of a Succeeded one's soak; absent when there is
	// none.
	Until *time.Time `json:"until,omitempty"`
}

// Rollout is what an add-on's AddOnRollout makes of its plan: what the
// controller writes in its status, and what it does next.
type Rollout struct {
	// Name is the AddOnRollout's name, the add-on's.
	Name string `json:"name"`
	// Generation is the generation of its spec.
	Generation int64 `json:"generation"`
	// ObservedGeneration is the generation its status was written for, as
	// read: behind Generation while the controller has not caught up with
	// the spec, 0 before it first wrote the status.
	ObservedGeneration int64 `json:"observedGeneration"`
	// Paused is spec.paused.
	Paused bool `json:"paused"`
	// Invalid lists every problem of the spec, each naming its field
	// (spec.windows[0].timeZone: ...). The add-on is then held: nothing
	// starts until the spec is fixed. Empty when the spec is valid.
	Invalid []string `json:"invalid"`
	// PendingApprovals are the groups held for an approval of the
	// placement's revision: a RolloutApproval naming the add-on, the
	// placement, the group and the revision lets each start.
	PendingApprovals []v1alpha1.PendingApproval `json:"pendingApprovals"`
	// Checks are the verifications due now: the controller runs them, and
	// the groups after each checked group wait until they pass.
	Checks []Check `json:"checks"`
	// Conditions are the AddOnRollout's conditions as the controller
	// writes them: Valid, Paused and Progressing.
	Conditions []metav1.Condition `json:"conditions"`
	// Confirmation is when the controller last confirmed the status read,
	// when it was due to again, and whether it is stale.
	Confirmation Confirmation `json:"confirmation"`
	// NotActedOn lists the placements whose revision, made of the configs
	// on the hub now, is not the one the status was written for: the
	// controller has not acted on the change yet (it is stopped, or has
	// not reconciled since the change). Empty when the status describes
	// every placement's current revision, or was never written.
	NotActedOn []NotActedOn `json:"notActedOn"`
	// Written is the status as read from the hub, when it does not
	// describe the hub now (it is stale, or NotActedOn is not empty): what
	// the controller last said. The rest of the report is the plan at
	// Now, what a running controller would do; nothing acts on it until
	// one does. Absent while the status is live.
	Written *v1alpha1.AddOnRolloutStatus `json:"written,omitempty"`
	// Approvals are the add-on's RolloutApprovals, by name: what each
	// approves, who created it, and what its status says it did.
	Approvals []Approval `json:"approvals"`
}

// NotActedOn is a placement whose configs changed since the controller
// last wrote the status: the revision they make now, which nothing rolls
// out until the controller acts on it, and the revision the status
// describes.
type NotActedOn struct {
	// Placement is the placement.
	Placement v1alpha1.PlacementRef `json:"placement"`
	// Revision is the revision the placement's configs make now.
	Revision string `json:"revision"`
	// Configs are what Revision is made of.
	Configs []v1alpha1.RevisionConfig `json:"configs"`
	// Written is the revision the status describes.
	Written string `json:"written"`
}

// Approval is one RolloutApproval of the add-on.
type Approval struct {
	// Name is the approval's name.
	Name string `json:"name"`
	// Placement, Group and Revision are what it approves.
	Placement v1alpha1.PlacementRef `json:"placement"`
	Group     string                `json:"group"`
	Revision  string                `json:"revision"`
	// Username is who created it, as the admission webhook recorded;
	// empty for an approval created without the webhook.
	Username string `json:"username,omitempty"`
	// Reason and Message are its Approved condition's (Used, NotUsedYet,
	// RevisionMismatch, NotRequired, UnknownGroup); empty until the
	// controller has judged it.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Check is a verification due now for one group of one placement.
type Check struct {
	// Placement is the group's placement.
	Placement v1alpha1.PlacementRef `json:"placement"`
	// Group is the group checked.
	Group GroupRef `json:"group"`
	// Name is the check's name (its name, or "verifications[i]").
	Name string `json:"name"`
	// Verification is the check as the spec gives it, with the defaults of
	// its interval and timeout filled in.
	Verification v1alpha1.Verification `json:"verification"`
}
