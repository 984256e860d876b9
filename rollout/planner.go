package rollout

import (
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rolloutkit/rolloutkit/clock"
)

// Planner decides the next step of a rollout. Its zero value is ready to
// use: real clock, OCM's defaults, no gates. A Planner holds no state
// between calls and may be used from many goroutines at once.
type Planner struct {
	// Clock is read once per Plan call. Nil means the real clock.
	Clock clock.PassiveClock
	// DefaultConcurrency is the Progressive window when maxConcurrency is
	// unset (or 0 / 0%). OCM's add-on manager passes the Placement's
	// clustersPerDecisionGroup here. Nil means every remaining cluster.
	DefaultConcurrency *intstr.IntOrString
	// Gates hold groups back: a group's untouched clusters are listed only
	// when every gate admits the group. Clusters in flight are never held.
	Gates []Gate
}
