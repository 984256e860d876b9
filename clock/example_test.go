package clock_test

import (
	"fmt"
	"time"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/clock/fake"
)

// Example injects a fake clock where a PassiveClock is asked for, as
// rollout.Planner.Clock and placement.Scheduler.Clock are.
func Example() {
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	c := fake.New(start)
	var now clock.PassiveClock = c
	fmt.Println(clock.NowOf(now).Format(time.Kitchen))
	c.Step(5 * time.Minute)
	fmt.Println(clock.NowOf(now).Format(time.Kitchen), now.Since(start))
	// Output:
	// 12:00PM
	// 12:05PM 5m0s
}

// ExampleNowOf reads a nil clock as the real one.
func ExampleNowOf() {
	var unset clock.PassiveClock
	fmt.Println(time.Since(clock.NowOf(unset)) < time.Minute)
	// Output:
	// true
}
