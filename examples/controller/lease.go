package main

import (
	"flag"
	"fmt"
	"time"
)

// leaseTimes are the leader election's timings, client-go's (and
// controller-runtime's) defaults unless flags change them.
//
// A replica that leads renews the Lease every retryPeriod; if it has not
// renewed for renewDeadline (an API-server outage longer than that, say),
// it stops leading and the process exits, for its pod to be restarted. The
// others take the Lease once it has not been renewed for duration, which
// bounds a failover after a leader dies (plus up to two retry periods: a
// candidate counts the duration from when it last saw the Lease renewed,
// and looks every retryPeriod).
type leaseTimes struct {
	duration, renewDeadline, retryPeriod time.Duration
}

// jitter is client-go's leaderelection.JitterFactor: a candidate waits up
// to retryPeriod times this between tries.
const jitter = 1.2

func (l *leaseTimes) bindFlags(fs *flag.FlagSet) {
	fs.DurationVar(&l.duration, "leader-elect-lease-duration", 15*time.Second,
		"with -leader-elect: how long the other replicas wait, after the leader's last renewal, before taking the Lease (a failover takes about this long)")
	fs.DurationVar(&l.renewDeadline, "leader-elect-renew-deadline", 10*time.Second,
		"with -leader-elect: how long the leader keeps trying to renew the Lease before it stops leading and exits (set it above the API-server outages to ride out)")
	fs.DurationVar(&l.retryPeriod, "leader-elect-retry-period", 2*time.Second,
		"with -leader-elect: how often the replicas try to take or renew the Lease")
}

// validate checks the order client-go requires: duration > renewDeadline >
// jitter * retryPeriod > 0.
func (l leaseTimes) validate() error {
	if l.retryPeriod <= 0 || l.renewDeadline <= time.Duration(jitter*float64(l.retryPeriod)) || l.duration <= l.renewDeadline {
		return fmt.Errorf("-leader-elect-lease-duration %s, -leader-elect-renew-deadline %s, -leader-elect-retry-period %s: "+
			"want lease duration > renew deadline > %.1f x retry period > 0", l.duration, l.renewDeadline, l.retryPeriod, jitter)
	}
	return nil
}
