package e2e_test

import (
	"testing"
	"time"
)

// eventually polls cond every 100ms until it holds or timeout passes; the
// failure message is the last thing cond said.
//
// Only cli_test.go calls it: every other wait is require.EventuallyWithT.
// Its conditions call rolloutctl, which fails the test with t.Fatalf, and
// so must run on the test's goroutine; once they fail the
// assert.CollectT of an EventuallyWithT condition instead, delete this.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ok, msg := cond()
		if ok {
			return
		}
		last = msg
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %s", what, timeout, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
