package e2e_test

import (
	"sync"
	"time"
)

// keeper keeps a number of replicas running, as a Deployment's ReplicaSet
// and the kubelet do: a replica that exits, killed or crashed, is replaced
// by a new one (a new pod: a new process with a user of its own), not
// before the hold the test sets, and with a back-off when replacements
// keep crashing soon after they start (1s, doubled up to 8s, as a crash
// loop's).
type keeper struct {
	p    *pods
	want int

	mu        sync.Mutex
	notBefore time.Time
	started   []*replica
	errs      []error

	stop chan struct{}
	done chan struct{}
}

// keep starts keeping want replicas running; stop it with halt.
func (p *pods) keep(want int) *keeper {
	k := &keeper{p: p, want: want, stop: make(chan struct{}), done: make(chan struct{})}
	go k.run()
	return k
}

func (k *keeper) run() {
	defer close(k.done)
	backoff := time.Second
	var last *replica
	var lastAt time.Time
	for {
		select {
		case <-k.stop:
			return
		case <-time.After(100 * time.Millisecond):
		}
		if len(k.p.running()) >= k.want {
			if last != nil && time.Since(lastAt) > 10*time.Second {
				backoff = time.Second // the last replacement stayed up
			}
			continue
		}
		k.mu.Lock()
		wait := time.Now().Before(k.notBefore)
		k.mu.Unlock()
		if wait {
			continue
		}
		if last != nil && last.exited() && !last.killed.Load() && time.Since(lastAt) < 10*time.Second {
			// The last replacement crashed soon after it started: back off
			// as a crash loop does.
			k.hold(backoff)
			backoff = min(2*backoff, 8*time.Second)
			last = nil
			continue
		}
		r, err := k.p.launch()
		k.mu.Lock()
		if err != nil {
			k.errs = append(k.errs, err)
		} else {
			k.started = append(k.started, r)
			last, lastAt = r, time.Now()
		}
		k.mu.Unlock()
	}
}

// hold keeps the keeper from starting a replacement for d from now: the
// time a pod takes to be rescheduled.
func (k *keeper) hold(d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if until := time.Now().Add(d); until.After(k.notBefore) {
		k.notBefore = until
	}
}

// halt stops the keeper and returns the replicas it started and the
// errors it met starting them.
func (k *keeper) halt() ([]*replica, []error) {
	select {
	case <-k.stop:
	default:
		close(k.stop)
	}
	<-k.done
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.started, k.errs
}
