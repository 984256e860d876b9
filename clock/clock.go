package clock

import (
	"time"

	utilclock "k8s.io/utils/clock"
)

// Clock is the time source rolloutkit reads: Now and Since.
type Clock = utilclock.PassiveClock

// Real is the wall clock. Its zero value is ready to use.
type Real = utilclock.RealClock

var _ Clock = Real{}

// Or returns c, or the real clock when c is nil. It is how options structs
// give a nil Clock its documented meaning.
func Or(c Clock) Clock {
	if c == nil {
		return Real{}
	}
	return c
}

// NowOf reads c once (the real clock when c is nil) and strips the
// monotonic clock reading, so that the times computed from it compare with
// == and print the same whether they came from the real clock, a fake one
// or a parsed timestamp. The location is c's own.
func NowOf(c Clock) time.Time {
	return Or(c).Now().Round(0)
}
