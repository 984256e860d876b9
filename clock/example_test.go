package clock_test

import (
	"fmt"
	"time"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/clock/fake"
)

func Example() {
	c := fake.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	var now clock.PassiveClock = c
	fmt.Println(now.Now().Format(time.Kitchen))
	c.Step(5 * time.Minute)
	fmt.Println(now.Now().Format(time.Kitchen), now.Since(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)))
	// Output:
	// 12:00PM
	// 12:05PM 5m0s
}
