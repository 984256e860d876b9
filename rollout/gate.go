package rollout

import (
	"time"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// A Gate decides whether a group may start new clusters at time now.
// Gates never hold back clusters already in flight.
type Gate interface {
	Admit(group grouping.GroupKey, now time.Time) Admission
}

// Admission is a gate's answer for one group.
type Admission struct {
	// Admitted lets the group start new clusters.
	Admitted bool
	// Reason is shown in Result.Groups[].Reason when the group is held.
	Reason string
	// RecheckAfter is when the answer may change; 0 means only on an outside
	// change (an approval, an unpause).
	RecheckAfter time.Duration
}

// GateFunc adapts a function to the Gate interface.
type GateFunc func(group grouping.GroupKey, now time.Time) Admission

// Admit calls f.
func (f GateFunc) Admit(group grouping.GroupKey, now time.Time) Admission { return f(group, now) }
