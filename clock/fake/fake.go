package fake

import (
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/rolloutkit/rolloutkit/clock"
)

// Clock is a manually driven clock: Now returns the time last set, Step moves
// it forward, SetTime moves it anywhere. It is safe for concurrent use.
type Clock = testingclock.FakeClock

var _ clock.PassiveClock = (*Clock)(nil)

// New returns a fake clock that reads start until it is moved.
func New(start time.Time) *Clock {
	return testingclock.NewFakeClock(start)
}
