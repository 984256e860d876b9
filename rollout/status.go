package rollout

import (
	"strconv"
	"time"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// Status is the rollout status of one cluster. The values and their order
// are OCM's.
type Status int

const (
	// ToApply: the cluster needs the new config and has not started.
	ToApply Status = iota
	// Progressing: the config is applied and the cluster is working on it.
	Progressing
	// Succeeded: the cluster reached the new config.
	Succeeded
	// Failed: the cluster reported a failure with the new config.
	Failed
	// TimeOut: the cluster stayed Progressing or Failed past progressDeadline.
	TimeOut
	// Skip: the cluster takes no part in this rollout.
	Skip
)

// String returns the OCM name of s, or Status(N) for a value out of range.
func (s Status) String() string {
	switch s {
	case ToApply:
		return "ToApply"
	case Progressing:
		return "Progressing"
	case Succeeded:
		return "Succeeded"
	case Failed:
		return "Failed"
	case TimeOut:
		return "TimeOut"
	case Skip:
		return "Skip"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// ClusterStatus is one cluster's rollout status: on input what the caller
// observed, on output what the planner concluded.
type ClusterStatus struct {
	// Cluster is the cluster's name.
	Cluster string
	// Group is the decision group the cluster belongs to. It is filled in on
	// output and ignored on input, except that Result.Removed returns it as
	// the caller gave it.
	Group grouping.GroupKey
	// Status is the observed (input) or evaluated (output) status.
	Status Status
	// LastTransitionTime is when Status last changed; zero means unknown.
	LastTransitionTime time.Time
	// RecheckTime is set on output: the end of a soak for a Succeeded
	// cluster, the deadline for a Progressing or Failed one, the deadline that
	// passed for a TimedOut one. Zero when there is none.
	RecheckTime time.Time
}
