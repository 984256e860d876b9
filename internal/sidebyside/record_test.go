package sidebyside

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

// addonState is what the recorder keeps of one cluster's add-on.
type addonState struct {
	exists           bool
	desired, applied string // spec hashes of its one config; "" when unset
	progressing      *metav1.Condition
}

// addonEvent is one version of a ManagedClusterAddOn, as the watch
// delivered it, and when.
type addonEvent struct {
	at      time.Time
	cluster string
	state   addonState
}

// cmaEvent is one version of a ClusterManagementAddOn's install
// progressions, and when the watch delivered it.
type cmaEvent struct {
	at           time.Time
	progressions []addonv1alpha1.InstallProgression
}

// recorder watches every ManagedClusterAddOn and ClusterManagementAddOn of
// the hub and keeps every version of them, with the time it was seen:
// the history both sides are compared on.
type recorder struct {
	mu      sync.Mutex
	changed chan struct{}                    // closed, and replaced, at every event
	addons  map[string][]addonEvent          // by add-on name
	current map[string]map[string]addonState // add-on -> cluster -> state
	cmas    map[string][]cmaEvent            // by add-on name
	cma     map[string]addonv1alpha1.InstallProgression
	writes  map[string]int // versions seen per add-on, ManagedClusterAddOns and its ClusterManagementAddOn
}

// record starts watching the hub from now; the watches end with ctx.
func record(ctx context.Context, tb testing.TB, h *hub) *recorder {
	tb.Helper()
	r := &recorder{
		changed: make(chan struct{}),
		addons:  map[string][]addonEvent{},
		current: map[string]map[string]addonState{},
		cmas:    map[string][]cmaEvent{},
		cma:     map[string]addonv1alpha1.InstallProgression{},
		writes:  map[string]int{},
	}
	mcas := h.addon.AddonV1alpha1().ManagedClusterAddOns("")
	cmas := h.addon.AddonV1alpha1().ClusterManagementAddOns()
	for _, w := range []struct {
		list  func() (string, error)
		watch func(metav1.ListOptions) (watch.Interface, error)
	}{
		{func() (string, error) {
			l, err := mcas.List(ctx, metav1.ListOptions{})
			if err != nil {
				return "", err
			}
			return l.ResourceVersion, nil
		}, func(o metav1.ListOptions) (watch.Interface, error) { return mcas.Watch(ctx, o) }},
		{func() (string, error) {
			l, err := cmas.List(ctx, metav1.ListOptions{})
			if err != nil {
				return "", err
			}
			return l.ResourceVersion, nil
		}, func(o metav1.ListOptions) (watch.Interface, error) { return cmas.Watch(ctx, o) }},
	} {
		rv, err := w.list()
		if err != nil {
			tb.Fatal(err)
		}
		rw, err := watchtools.NewRetryWatcherWithContext(ctx, rv, &cache.ListWatch{WatchFunc: w.watch})
		if err != nil {
			tb.Fatal(err)
		}
		go func() {
			defer rw.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case ev, ok := <-rw.ResultChan():
					if !ok {
						return
					}
					r.observe(ev)
				}
			}
		}()
	}
	return r
}

// observe records one watch event.
func (r *recorder) observe(ev watch.Event) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	switch o := ev.Object.(type) {
	case *addonv1alpha1.ManagedClusterAddOn:
		s := addonState{exists: ev.Type != watch.Deleted}
		if s.exists {
			for _, ref := range o.Status.ConfigReferences {
				if ref.DesiredConfig != nil {
					s.desired = ref.DesiredConfig.SpecHash
				}
				if ref.LastAppliedConfig != nil {
					s.applied = ref.LastAppliedConfig.SpecHash
				}
			}
			if c := meta.FindStatusCondition(o.Status.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing); c != nil {
				s.progressing = c.DeepCopy()
			}
		}
		if r.current[o.Name] == nil {
			r.current[o.Name] = map[string]addonState{}
		}
		r.current[o.Name][o.Namespace] = s
		r.addons[o.Name] = append(r.addons[o.Name], addonEvent{at: now, cluster: o.Namespace, state: s})
		r.writes[o.Name]++
	case *addonv1alpha1.ClusterManagementAddOn:
		var ps []addonv1alpha1.InstallProgression
		for _, p := range o.Status.InstallProgressions {
			ps = append(ps, *p.DeepCopy())
		}
		r.cmas[o.Name] = append(r.cmas[o.Name], cmaEvent{at: now, progressions: ps})
		if len(ps) > 0 {
			r.cma[o.Name] = ps[0]
		}
		r.writes[o.Name]++
	default:
		return // a bookmark, or an error the retry watcher reports
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// view is the latest state the recorder has seen, read under its lock.
type view struct{ r *recorder }

// addon returns the add-on of cluster of the named add-on.
func (v view) addon(name, cluster string) addonState { return v.r.current[name][cluster] }

// progression returns the named add-on's first install progression.
func (v view) progression(name string) addonv1alpha1.InstallProgression { return v.r.cma[name] }

// waitFor waits until cond holds of what the recorder has seen, calling it
// at every event and every second; it fails tb after timeout, with the
// last thing cond said.
func (r *recorder) waitFor(tb testing.TB, timeout time.Duration, what string, cond func(view) (bool, string)) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		r.mu.Lock()
		ok, msg := cond(view{r})
		ch := r.changed
		r.mu.Unlock()
		if ok {
			return
		}
		left := time.Until(deadline)
		if left <= 0 {
			tb.Fatalf("%s: not within %s: %s", what, timeout, msg)
		}
		select {
		case <-ch:
		case <-time.After(min(left, time.Second)):
		}
	}
}

// history returns copies of what was recorded of the named add-on.
func (r *recorder) history(name string) ([]addonEvent, []cmaEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]addonEvent(nil), r.addons[name]...), append([]cmaEvent(nil), r.cmas[name]...)
}

// versions returns how many versions of the named add-on's objects were
// seen.
func (r *recorder) versions(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writes[name]
}

// rolledOut tells whether every cluster of clusters runs the config with
// hash h on the named add-on, and its install progression is Completed
// with h as last known good.
func rolledOut(v view, name string, clusters []string, h string) (bool, string) {
	for _, c := range clusters {
		if s := v.addon(name, c); s.desired != h || s.applied != h {
			return false, fmt.Sprintf("%s on %s: desired %.8s applied %.8s", name, c, s.desired, s.applied)
		}
	}
	p := v.progression(name)
	cond := meta.FindStatusCondition(p.Conditions, addonv1alpha1.ManagedClusterAddOnConditionProgressing)
	if cond == nil || cond.Reason != addonv1alpha1.ProgressingReasonCompleted {
		return false, fmt.Sprintf("%s: install progression %+v", name, cond)
	}
	for _, ref := range p.ConfigReferences {
		if ref.LastKnownGoodConfig == nil || ref.LastKnownGoodConfig.SpecHash != h {
			return false, fmt.Sprintf("%s: last known good %+v", name, ref.LastKnownGoodConfig)
		}
	}
	return true, ""
}
