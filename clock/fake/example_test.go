package fake_test

import (
	"fmt"
	"time"

	"github.com/rolloutkit/rolloutkit/clock/fake"
)

func ExampleNew() {
	c := fake.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	c.Step(90 * time.Second)
	fmt.Println(c.Now().Format(time.TimeOnly))
	c.SetTime(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	fmt.Println(c.Now().Format(time.DateTime))
	// Output:
	// 12:01:30
	// 2026-12-01 09:00:00
}
