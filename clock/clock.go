package clock

import (
	"time"

	utilclock "k8s.io/utils/clock"
)

// PassiveClock is the time source rolloutkit reads: Now and Since. It is
// k8s.io/utils/clock.PassiveClock, the smallest clock interface there, so
// every clock of that package (RealClock, FakeClock, ...) is one.
type PassiveClock = utilclock.PassiveClock

// Real is the wall clock. Its zero value is ready to use.
type Real = utilclock.RealClock

var _ PassiveClock = Real{}

// NowOf reads c once (the real clock when c is nil, as a nil Clock field
// of an options struct means) and strips the monotonic clock reading, so
// that the times computed from it compare with == and print the same
// whether they came from the real clock, a fake one or a parsed
// timestamp. The location is c's own.
func NowOf(c PassiveClock) time.Time {
	if c == nil {
		c = Real{}
	}
	return c.Now().Round(0)
}

// At is a clock that always reads its time: what a plan made "as of" a
// given time uses (a dry run, an offline report, one reconcile's reading
// of the real clock), where clock/fake is for tests that move time on.
type At time.Time

// Now returns t.
func (t At) Now() time.Time { return time.Time(t) }

// Since returns the time elapsed from u to t.
func (t At) Since(u time.Time) time.Duration { return time.Time(t).Sub(u) }

var _ PassiveClock = At{}
