package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddOnRollout holds the operator's controls over the rollout of one
// ClusterManagementAddOn, the one with its name: a pause, the decision
// groups that need an approval, the time windows groups may start in, and
// the verifications a group must pass before the groups after it start.
// An add-on without one is rolled out exactly as OCM's add-on manager
// would.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=aor
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Valid",type=string,JSONPath=`.status.conditions[?(@.type=="Valid")].status`
// +kubebuilder:printcolumn:name="Paused",type=boolean,JSONPath=`.spec.paused`
// +kubebuilder:printcolumn:name="Progressing",type=string,JSONPath=`.status.conditions[?(@.type=="Progressing")].reason`
// +kubebuilder:printcolumn:name="Revision",type=string,JSONPath=`.status.placements[0].revision`,description="The revision the status was written for (its first placement's): the configs' spec hashes when the controller last acted; kubectl rolloutkit status says whether the configs on the hub still make it"
// +kubebuilder:printcolumn:name="Confirmed",type=date,JSONPath=`.status.lastConfirmedTime`,description="How long ago the controller last confirmed the status; the status is stale once more than a minute past its recheckTime, which is at most 5 minutes after this, so a status confirmed more than 6 minutes ago is stale"
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Progressing")].message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type AddOnRollout struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds the controls.
	Spec AddOnRolloutSpec `json:"spec,omitempty"`
	// Status says, per placement and group, where the rollout stands and
	// what it waits for.
	Status AddOnRolloutStatus `json:"status,omitempty"`
}

// AddOnRolloutSpec holds the controls over one add-on's rollout.
type AddOnRolloutSpec struct {
	// Paused, when true, starts no cluster; clusters in flight finish.
	// +optional
	Paused bool `json:"paused,omitempty"`
	// ApprovalRequired names the decision groups that start only once a
	// RolloutApproval approves them for the revision being rolled out.
	// Other groups are not held.
	// +optional
	// +listType=set
	ApprovalRequired []string `json:"approvalRequired,omitempty"`
	// Windows are the times groups may start in. A group named by some
	// window starts only inside one of the windows that name it.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	Windows []RolloutWindow `json:"windows,omitempty"`
	// Verifications are the checks a group must pass, after it has
	// succeeded and soaked, before the groups after it start. Their names
	// are unique.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(v, !has(v.name) || v.name == '' || self.filter(w, has(w.name) && w.name == v.name).size() == 1)",message="each verification needs a name of its own"
	Verifications []Verification `json:"verifications,omitempty"`

	// Approvers: how many distinct users must approve a group.
	ApproversSpec `json:",inline"`

	// OnFailure is what a failed verification, or a failure budget
	// breached, does to the revision rolling out: Pause (the default)
	// holds the groups after it until an operator acts; Rollback also
	// restores the configs' specs of the placement's last revision that
	// completed (its revision history), so that the clusters that took
	// the failing revision go back to it. A revision a rollback restored
	// is never rolled back again automatically.
	// +optional
	// +kubebuilder:validation:Enum=Pause;Rollback
	OnFailure string `json:"onFailure,omitempty"`
	// FastRollback lets a rollback skip soaks, approvals, windows and
	// verifications: a revision that completed on its placement before,
	// which every cluster about to take it has run, starts every group as
	// soon as the one before it applied it. It still goes through the work
	// gate, group by group, within the failure budget. Spec.paused still
	// holds it.
	// +optional
	FastRollback bool `json:"fastRollback,omitempty"`
	// RevisionHistoryLimit is how many revisions of the add-on's history
	// the controller keeps (ControllerRevisions in its namespace); 10
	// when unset. The revision each placement is at is always kept.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
}

// Values of AddOnRolloutSpec.OnFailure.
const (
	// OnFailurePause holds the rollout on a failure.
	OnFailurePause = "Pause"
	// OnFailureRollback restores the last revision that completed.
	OnFailureRollback = "Rollback"
)

// RolloutWindow is a recurring time window: days of the week and a
// wall-clock time span in a time zone, DST-correct.
//
// +kubebuilder:validation:XValidation:rule="self.start != self.end",messageExpression="'want an end other than the start ' + self.start",fieldPath=".end"
type RolloutWindow struct {
	// Groups are the decision-group names the window applies to; empty:
	// every group.
	// +optional
	// +listType=set
	Groups []string `json:"groups,omitempty"`
	// Days are the days the window opens on: Mon, Tue, Wed, Thu, Fri, Sat,
	// Sun, or a range such as Mon-Fri (a day is its name's first three
	// letters or more, in any case; an item may list several, Sat,Sun).
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=7
	// +kubebuilder:validation:items:MaxLength=64
	// +kubebuilder:validation:items:XValidation:rule="self.matches('^(?i)(sun(d(ay?)?)?|mon(d(ay?)?)?|tue(s(d(ay?)?)?)?|wed(n(e(s(d(ay?)?)?)?)?)?|thu(r(s(d(ay?)?)?)?)?|fri(d(ay?)?)?|sat(u(r(d(ay?)?)?)?)?)(-(sun(d(ay?)?)?|mon(d(ay?)?)?|tue(s(d(ay?)?)?)?|wed(n(e(s(d(ay?)?)?)?)?)?|thu(r(s(d(ay?)?)?)?)?|fri(d(ay?)?)?|sat(u(r(d(ay?)?)?)?)?))?(,(sun(d(ay?)?)?|mon(d(ay?)?)?|tue(s(d(ay?)?)?)?|wed(n(e(s(d(ay?)?)?)?)?)?|thu(r(s(d(ay?)?)?)?)?|fri(d(ay?)?)?|sat(u(r(d(ay?)?)?)?)?)(-(sun(d(ay?)?)?|mon(d(ay?)?)?|tue(s(d(ay?)?)?)?|wed(n(e(s(d(ay?)?)?)?)?)?|thu(r(s(d(ay?)?)?)?)?|fri(d(ay?)?)?|sat(u(r(d(ay?)?)?)?)?))?)*$')",message="want days such as Mon, Sat,Sun or Mon-Fri"
	Days []string `json:"days"`
	// Start is the wall-clock time the window opens, "HH:MM".
	// +kubebuilder:validation:XValidation:rule="self.matches('^([01]?[0-9]|2[0-3]):[0-5][0-9]$')",message="want HH:MM from 00:00 to 23:59, such as 09:00"
	// +kubebuilder:validation:MaxLength=5
	Start string `json:"start"`
	// End is the wall-clock time the window closes, "HH:MM"; an end before
	// the start passes midnight.
	// +kubebuilder:validation:XValidation:rule="self.matches('^([01]?[0-9]|2[0-3]):[0-5][0-9]$')",message="want HH:MM from 00:00 to 23:59, such as 09:00"
	// +kubebuilder:validation:MaxLength=5
	End string `json:"end"`
	// TimeZone is an IANA time zone name, e.g. Europe/Berlin. Empty: UTC.
	// +optional
	TimeZone string `json:"timeZone,omitempty"`
}

// Verification is one check a group must pass after it has succeeded and
// soaked. Exactly one of Webhook and Prometheus is set.
//
// +kubebuilder:validation:XValidation:rule="has(self.webhook) != has(self.prometheus)",message="set exactly one of webhook and prometheus"
// +kubebuilder:validation:XValidation:rule="!has(self.interval) || self.interval.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$')",messageExpression="'want a duration such as 30s or 1m30s, not ' + self.interval",fieldPath=".interval"
// +kubebuilder:validation:XValidation:rule="!has(self.interval) || !self.interval.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') || duration(self.interval) > duration('0s')",messageExpression="'want a positive interval, e.g. 30s, not ' + self.interval",fieldPath=".interval"
type Verification struct {
	// Name names the check in the status, events and metrics. Empty:
	// "verifications[i]".
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name,omitempty"`
	// Groups are the decision-group names the check applies to; empty:
	// every group.
	// +optional
	// +listType=set
	Groups []string `json:"groups,omitempty"`
	// Interval is how often a failing check is retried; the rollout holds
	// meanwhile. Default 30s.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Interval *metav1.Duration `json:"interval,omitempty"`
	// Webhook passes on a 2xx answer to a POST of a VerificationRequest.
	// +optional
	Webhook *WebhookCheck `json:"webhook,omitempty"`
	// Prometheus passes when its query returns a non-empty result.
	// +optional
	Prometheus *PrometheusCheck `json:"prometheus,omitempty"`
}

// WebhookCheck is a verification by an HTTP endpoint.
//
// +kubebuilder:validation:XValidation:rule="!has(self.timeout) || self.timeout.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$')",messageExpression="'want a duration such as 10s or 1m, not ' + self.timeout",fieldPath=".timeout"
// +kubebuilder:validation:XValidation:rule="!has(self.timeout) || !self.timeout.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') || duration(self.timeout) > duration('0s')",messageExpression="'want a positive timeout, e.g. 10s, not ' + self.timeout",fieldPath=".timeout"
type WebhookCheck struct {
	// URL is an http or https URL the controller POSTs a
	// VerificationRequest to, as JSON.
	// +kubebuilder:validation:MinLength=1
	URL string `json:"url"`
	// Timeout bounds one call; default 10s.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Timeout *metav1.Duration `json:"timeout,omitempty"`
	// HTTPClientConfig is the call's credentials, CA and extra headers.
	HTTPClientConfig `json:",inline"`
}

// PrometheusCheck is a verification by an instant query of the Prometheus
// HTTP API.
//
// +kubebuilder:validation:XValidation:rule="!has(self.timeout) || self.timeout.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$')",messageExpression="'want a duration such as 10s or 1m, not ' + self.timeout",fieldPath=".timeout"
// +kubebuilder:validation:XValidation:rule="!has(self.timeout) || !self.timeout.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') || duration(self.timeout) > duration('0s')",messageExpression="'want a positive timeout, e.g. 10s, not ' + self.timeout",fieldPath=".timeout"
// +kubebuilder:validation:XValidation:rule="!(has(self.bearerToken) && has(self.basicAuth))",message="set at most one of bearerToken and basicAuth",fieldPath=".basicAuth"
type PrometheusCheck struct {
	// Address is the Prometheus server's base URL, e.g.
	// http://prometheus.monitoring:9090.
	// +kubebuilder:validation:MinLength=1
	Address string `json:"address"`
	// Query is a PromQL expression; the check passes when it returns a
	// non-empty result (a filter such as `x < 0.01` returns nothing while
	// it does not hold).
	// +kubebuilder:validation:MinLength=1
	Query string `json:"query"`
	// Timeout bounds one query; default 10s.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Timeout *metav1.Duration `json:"timeout,omitempty"`
	// BasicAuth authenticates the query with a user name and password;
	// not with bearerToken.
	// +optional
	BasicAuth *BasicAuth `json:"basicAuth,omitempty"`
	// HTTPClientConfig is the query's credentials, CA and extra headers
	// (Thanos's or Cortex's tenant header, say).
	HTTPClientConfig `json:",inline"`
}

// VerificationRequest is the JSON body a webhook check receives.
type VerificationRequest struct {
	// AddOn is the ClusterManagementAddOn's name.
	AddOn string `json:"addOn"`
	// Placement is the install-strategy placement whose group is checked.
	Placement PlacementRef `json:"placement"`
	// Group is the decision group's name.
	Group string `json:"group"`
	// Revision is the revision rolled out.
	Revision string `json:"revision"`
	// Clusters are the group's clusters, sorted.
	Clusters []string `json:"clusters"`
}

// PlacementRef names a Placement.
type PlacementRef struct {
	// Namespace is the Placement's namespace.
	Namespace string `json:"namespace"`
	// Name is the Placement's name.
	Name string `json:"name"`
}

// AddOnRolloutStatus is where the add-on's rollout stands.
type AddOnRolloutStatus struct {
	// ObservedGeneration is the generation of the spec the status is for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Placements are the add-on's install-strategy placements, in its
	// order.
	// +optional
	Placements []PlacementStatus `json:"placements,omitempty"`
	// PendingApprovals are the groups held for an approval of the
	// revision being rolled out.
	// +optional
	PendingApprovals []PendingApproval `json:"pendingApprovals,omitempty"`
	// LastConfirmedTime is when the controller last confirmed the status
	// against the hub. It confirms it at every change, and again by
	// RecheckTime when nothing changes.
	// +optional
	LastConfirmedTime *metav1.Time `json:"lastConfirmedTime,omitempty"`
	// RecheckTime is when the controller confirms the status again at the
	// latest: the soonest time a group's wait may end on the clock, or a
	// heartbeat. Once it is past, the status is stale: no controller has
	// confirmed it since LastConfirmedTime, and a time it says a wait
	// lasts "until" may have passed without effect.
	// +optional
	RecheckTime *metav1.Time `json:"recheckTime,omitempty"`
	// Conditions: Valid, Paused and Progressing.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Rollbacks are the last rollback of each placement: the
	// revision left, the revision restored, who or what asked for it and
	// why.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Rollbacks []RollbackStatus `json:"rollbacks,omitempty"`
}

// RollbackStatus is a placement's last rollback.
type RollbackStatus struct {
	// Placement is the placement rolled back.
	Placement PlacementRef `json:"placement"`
	// From is the revision left.
	From string `json:"from"`
	// To is the revision restored, and ToNumber its number in the
	// add-on's revision history.
	To       string `json:"to"`
	ToNumber int64  `json:"toNumber"`
	// Reason is VerificationFailed or Breached (spec.onFailure: Rollback).
	Reason string `json:"reason"`
	// Message says what failed.
	Message string `json:"message,omitempty"`
	// Time is when the configs were restored.
	Time metav1.Time `json:"time"`
}

// RevisionRecord is one revision of one placement of an add-on, as the
// controller keeps it in the add-on's revision history: the data of a
// ControllerRevision labelled rolloutkit.io/addon in the controller's
// namespace. It holds the configs' specs, so that an undo can restore
// them.
type RevisionRecord struct {
	// AddOn is the add-on's name.
	AddOn string `json:"addOn"`
	// Placement is the install-strategy placement the revision is of.
	Placement PlacementRef `json:"placement"`
	// Revision is the placement's revision (its configs' hash).
	Revision string `json:"revision"`
	// Configs are the revision's configs, each with its spec as the hub
	// held it when the revision started.
	Configs []RecordedConfig `json:"configs"`
}

// RecordedConfig is a config of a recorded revision, with its spec.
type RecordedConfig struct {
	RevisionConfig `json:",inline"`
	// Spec is the config object's spec.
	// +kubebuilder:pruning:PreserveUnknownFields
	Spec runtime.RawExtension `json:"spec"`
}

// PlacementStatus is where one placement's rollout stands.
type PlacementStatus struct {
	// Namespace is the Placement's namespace.
	Namespace string `json:"namespace"`
	// Name is the Placement's name.
	Name string `json:"name"`
	// Revision is a short hash of the placement's desired configs and
	// their spec hashes, or, while a rendering revision rolls out, of
	// those and the rendering revision: approvals and verifications hold
	// for one revision.
	// +optional
	Revision string `json:"revision,omitempty"`
	// Kind is the kind of revision rolling out: Config (a change of the
	// configs' spec hashes), Rendering (new content of the add-on's works
	// under unchanged configs, which the work gate holds until the
	// rendering rollout releases it), or ConfigAndRendering (a rendering
	// joined to a config change that has not reached every cluster: one
	// revision of both).
	// +optional
	// +kubebuilder:validation:Enum=Config;Rendering;ConfigAndRendering
	Kind string `json:"kind,omitempty"`
	// FastRollback is true when the revision rolls out, or rolled out, by
	// spec.fastRollback's fast path: a revision the placement completed
	// before, which every cluster about to take it has run, with no soak,
	// approval, window or verification.
	// +optional
	FastRollback bool `json:"fastRollback,omitempty"`
	// Rendering is the rendering revision the revision rolls out (the
	// ClusterManagementAddOn's annotation rolloutkit.io/rendering), for a
	// Rendering or ConfigAndRendering revision.
	// +optional
	Rendering string `json:"rendering,omitempty"`
	// Configs are what the revision is made of: the placement's desired
	// configs, each with the spec hash rolled out and, where the config
	// gives one, the add-on's desired image.
	// +optional
	Configs []RevisionConfig `json:"configs,omitempty"`
	// RevisionStartTime is when the controller first saw the revision.
	// +optional
	RevisionStartTime *metav1.Time `json:"revisionStartTime,omitempty"`
	// CompletionTime is when every group of the revision was complete and
	// verified; nil until then.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// Groups are the placement's decision groups, in rollout order.
	// +optional
	Groups []GroupStatus `json:"groups,omitempty"`
	// Verifications are the results of the checks run for the revision.
	// +optional
	Verifications []VerificationStatus `json:"verifications,omitempty"`
	// Message says why the placement is not planned, when it is not.
	// +optional
	Message string `json:"message,omitempty"`
}

// RevisionConfig is one config of a revision.
type RevisionConfig struct {
	// Group is the config's API group; empty for the core group.
	// +optional
	Group string `json:"group,omitempty"`
	// Resource is the config's resource, e.g. addondeploymentconfigs.
	Resource string `json:"resource"`
	// Namespace is the config's namespace; empty for a cluster-scoped
	// config.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Name is the config's name.
	Name string `json:"name"`
	// SpecHash is the hash of the config's spec the revision rolls out.
	SpecHash string `json:"specHash"`
	// Image is the add-on's desired image the config gives (a
	// ManagedProxyConfiguration's spec.proxyAgent.image); empty when it
	// gives none.
	// +optional
	Image string `json:"image,omitempty"`
}

// GroupStatus is where one decision group stands and what it waits for.
type GroupStatus struct {
	// Name is the group's name; empty for a group of clusters no named
	// group took.
	// +optional
	Name string `json:"name,omitempty"`
	// Index is the group's index.
	Index int32 `json:"index"`
	// Mandatory: the group is one of mandatoryDecisionGroups.
	// +optional
	Mandatory bool `json:"mandatory,omitempty"`
	// Phase is Waiting, Active, Complete, Blocked or Breached.
	Phase string `json:"phase"`
	// WaitsFor is what the group waits for: Approval, Window, Paused,
	// Verification, Invalid (the AddOnRollout is invalid), or the
	// planner's own: Group, Mandatory, Cluster, Breach, MaxConcurrency.
	// Empty when it waits for nothing.
	// +optional
	WaitsFor string `json:"waitsFor,omitempty"`
	// Message says why, for people.
	// +optional
	Message string `json:"message,omitempty"`
	// Until is when the wait may end on the clock; nil when it ends on an
	// outside change.
	// +optional
	Until *metav1.Time `json:"until"`
	// Counts counts the group's clusters by status.
	Counts GroupCounts `json:"counts"`
	// HeldSince is when the oldest hold of the work gate on a cluster of
	// the group began; nil when it holds none.
	// +optional
	HeldSince *metav1.Time `json:"heldSince,omitempty"`
	// Holds are the group's clusters whose works the work gate holds, the
	// longest held first: at most 10 (Counts.Held counts them all).
	// +optional
	// +kubebuilder:validation:MaxItems=10
	Holds []ClusterHold `json:"holds,omitempty"`
}

// ClusterHold is what the work gate holds of one cluster's works.
type ClusterHold struct {
	// Cluster is the cluster's name.
	Cluster string `json:"cluster"`
	// Works are the cluster's works of the add-on the gate holds a write
	// of, by name.
	// +optional
	Works []string `json:"works,omitempty"`
	// Missing are the works the gate holds from being created: the
	// add-on's manager makes them again (a work deleted, say) and they
	// come back only with content the rollout has handed the cluster.
	// +optional
	Missing []string `json:"missing,omitempty"`
	// Reason is the gate's reason (ConfigMovedOn, NotHandedOver,
	// RenderingHeld, RenderingPending, RenderingTaken, Unreadable), or
	// GateUnavailable (no replica of the gate answered) or GateRefused
	// (the add-on's manager reports a refusal the gate did not record).
	Reason string `json:"reason"`
	// Since is when the gate first held a write of the cluster's works.
	Since metav1.Time `json:"since"`
	// Message says why, for people.
	// +optional
	Message string `json:"message,omitempty"`
}

// GroupCounts counts a group's clusters by status.
type GroupCounts struct {
	// Succeeded counts clusters that succeeded (soaking or past it).
	Succeeded int32 `json:"succeeded"`
	// Progressing counts clusters applying the config.
	Progressing int32 `json:"progressing"`
	// Failed counts clusters that failed and are retrying.
	Failed int32 `json:"failed"`
	// TimedOut counts clusters past their progress deadline.
	TimedOut int32 `json:"timedOut"`
	// ToApply counts clusters that have not started.
	ToApply int32 `json:"toApply"`
	// Soaking counts the Succeeded clusters still inside minSuccessTime.
	// +optional
	Soaking int32 `json:"soaking,omitempty"`
	// Skipped counts clusters skipped.
	// +optional
	Skipped int32 `json:"skipped,omitempty"`
	// Held counts the clusters whose ManifestWork the work gate holds: the
	// add-on's manager tried to change it ahead of the rollout.
	// +optional
	Held int32 `json:"held,omitempty"`
	// Missing counts the held clusters of which a work the gate holds from
	// being created does not exist.
	// +optional
	Missing int32 `json:"missing,omitempty"`
}

// VerificationStatus is the last result of one check of one group for
// the placement's revision.
type VerificationStatus struct {
	// Name is the check's name (Verification.Name, or "verifications[i]").
	Name string `json:"name"`
	// Group is the group's name.
	Group string `json:"group"`
	// Index is the group's index.
	Index int32 `json:"index"`
	// Passed is whether the last check passed.
	Passed bool `json:"passed"`
	// Message is the check's answer: a status code, the error, or the
	// number of series the query returned.
	// +optional
	Message string `json:"message,omitempty"`
	// LastCheckTime is when the check last ran.
	LastCheckTime metav1.Time `json:"lastCheckTime"`
}

// PendingApproval is a group held until a RolloutApproval approves it for
// the revision.
type PendingApproval struct {
	// Placement is the group's placement.
	Placement PlacementRef `json:"placement"`
	// Group is the group's name.
	Group string `json:"group"`
	// Revision is the revision an approval must name.
	Revision string `json:"revision"`
	// Configs are what the revision is made of, as its placement's
	// status lists them: what an approval of it approves.
	// +optional
	Configs []RevisionConfig `json:"configs,omitempty"`
	// Approvers: who has approved it so far, and how many must.
	PendingApprovers `json:",inline"`
}

// +kubebuilder:object:root=true

// AddOnRolloutList is a list of AddOnRollouts.
type AddOnRolloutList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the AddOnRollouts.
	Items []AddOnRollout `json:"items"`
}

// RolloutApproval approves one decision group of one placement of an
// add-on for one revision of its configs. Creating it is the whole act;
// the controller records in its status whether and when it was used.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=rap
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="AddOn",type=string,JSONPath=`.spec.addOn`
// +kubebuilder:printcolumn:name="Group",type=string,JSONPath=`.spec.group`
// +kubebuilder:printcolumn:name="Revision",type=string,JSONPath=`.spec.revision`
// +kubebuilder:printcolumn:name="Approved",type=string,JSONPath=`.status.conditions[?(@.type=="Approved")].reason`
// +kubebuilder:printcolumn:name="By",type=string,JSONPath=`.spec.username`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RolloutApproval struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec names what is approved.
	Spec RolloutApprovalSpec `json:"spec"`
	// Status records what the controller made of it.
	Status RolloutApprovalStatus `json:"status,omitempty"`
}

// RolloutApprovalSpec names one group of one placement of an add-on, and
// the revision it is approved for, and who approved it. It cannot be
// changed: approve another revision with another RolloutApproval.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a RolloutApproval's spec is immutable: create another one"
type RolloutApprovalSpec struct {
	// AddOn is the ClusterManagementAddOn's name.
	// +kubebuilder:validation:MinLength=1
	AddOn string `json:"addOn"`
	// Placement is the install-strategy placement.
	Placement PlacementRef `json:"placement"`
	// Group is the decision group's name.
	// +kubebuilder:validation:MinLength=1
	Group string `json:"group"`
	// Revision is the revision approved; an approval of another revision
	// approves nothing.
	// +kubebuilder:validation:MinLength=1
	Revision string `json:"revision"`
	// Username is the user who created the approval. The controller's
	// admission webhook sets it from the create request, as the API server
	// sets a CertificateSigningRequest's, whatever the request said.
	// +optional
	Username string `json:"username,omitempty"`
	// UID is the creating user's UID, from the same request.
	// +optional
	UID string `json:"uid,omitempty"`
	// Groups are the creating user's groups, from the same request.
	// +optional
	// +listType=atomic
	Groups []string `json:"groups,omitempty"`
}

// RolloutApprovalStatus records what an approval did.
type RolloutApprovalStatus struct {
	// Conditions: Approved, True once the approval let its group start
	// (reason Used), False while it approves nothing (reason
	// RevisionMismatch, NotRequired, UnknownGroup, NotUsedYet).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true

// RolloutApprovalList is a list of RolloutApprovals.
type RolloutApprovalList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the RolloutApprovals.
	Items []RolloutApproval `json:"items"`
}

// ApproversSpec is how many distinct users must approve a group of
// spec.approvalRequired before it starts (two-person approval).
type ApproversSpec struct {
	// MinApprovers is how many approvals of a group, each from a
	// distinct user (by username; one user's approvals count once), let
	// it start; unset: 1. MinApproversByGroup overrides it per group.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	MinApprovers int32 `json:"minApprovers,omitempty"`
	// MinApproversByGroup sets MinApprovers for the groups it names,
	// each of spec.approvalRequired.
	// +optional
	// +listType=map
	// +listMapKey=group
	// +kubebuilder:validation:MaxItems=32
	MinApproversByGroup []GroupApprovers `json:"minApproversByGroup,omitempty"`
}

// GroupApprovers is how many distinct users must approve one group.
type GroupApprovers struct {
	// Group is the decision group's name.
	// +kubebuilder:validation:MinLength=1
	Group string `json:"group"`
	// MinApprovers is how many distinct users must approve it.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	MinApprovers int32 `json:"minApprovers"`
}

// PendingApprovers is who has approved a pending group so far.
type PendingApprovers struct {
	// Approvers are the users whose approvals of the group at the
	// revision count so far, sorted.
	// +optional
	// +listType=atomic
	Approvers []string `json:"approvers,omitempty"`
	// MinApprovers is how many distinct users must approve the group,
	// when more than one.
	// +optional
	MinApprovers int32 `json:"minApprovers,omitempty"`
}
