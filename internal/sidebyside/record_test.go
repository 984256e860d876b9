package sidebyside

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// addonState is what the recorder keeps of one cluster's add-on.
type addonState struct {
	exists           bool
	desired, applied string // spec hashes of its one config; "" when unset
	progressing      *metav1.Condition
	manifestApplied  *metav1.Condition
}

// addonEvent is one version of a ManagedClusterAddOn, as the watch
// delivered it, and when.
type addonEvent struct {
	at      time.Time
	cluster string
	state   addonState
}

// workEvent is one version of an add-on's ManifestWork on a cluster: the
// configs it claims to be rendered for (the spec hashes of its annotation,
// as agent.Target joins them), the agent image its body carries, and
// whether it is applied and available at its generation; or its deletion
// (deleted, and nothing else), once the delete has completed.
type workEvent struct {
	at      time.Time
	cluster string
	target  string
	image   string
	ready   bool
	deleted bool
}

// cmaEvent is one version of a ClusterManagementAddOn's install
// progressions, and when the watch delivered it.
type cmaEvent struct {
	at           time.Time
	progressions []addonv1alpha1.InstallProgression
}

// recorder watches every ManagedClusterAddOn, ClusterManagementAddOn and
// add-on ManifestWork of the hub and keeps every version of them, with the
// time it was seen: the history both sides are compared on.
type recorder struct {
	mu      sync.Mutex
	changed chan struct{}                    // closed, and replaced, at every event
	addons  map[string][]addonEvent          // by add-on name
	current map[string]map[string]addonState // add-on -> cluster -> state
	cmas    map[string][]cmaEvent            // by add-on name
	works   map[string][]workEvent           // by add-on name
	cma     map[string]addonv1alpha1.InstallProgression
}

// record starts watching the hub from now; the watches end with ctx.
// Without works, the add-ons' ManifestWorks are not watched (a benchmark
// spares the API server their events).
func record(ctx context.Context, tb testing.TB, h *hub, works bool) *recorder {
	tb.Helper()
	r := &recorder{
		changed: make(chan struct{}),
		addons:  map[string][]addonEvent{},
		current: map[string]map[string]addonState{},
		cmas:    map[string][]cmaEvent{},
		works:   map[string][]workEvent{},
		cma:     map[string]addonv1alpha1.InstallProgression{},
	}
	mcas := h.addon.AddonV1alpha1().ManagedClusterAddOns("")
	cmas := h.addon.AddonV1alpha1().ClusterManagementAddOns()
	workList := h.work.WorkV1().ManifestWorks("")
	watches := []struct {
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
	}
	if works {
		watches = append(watches, struct {
			list  func() (string, error)
			watch func(metav1.ListOptions) (watch.Interface, error)
		}{func() (string, error) {
			l, err := workList.List(ctx, metav1.ListOptions{Limit: 1})
			if err != nil {
				return "", err
			}
			return l.ResourceVersion, nil
		}, func(o metav1.ListOptions) (watch.Interface, error) { return workList.Watch(ctx, o) }})
	}
	for _, w := range watches {
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
			if c := meta.FindStatusCondition(o.Status.Conditions, addonv1alpha1.ManagedClusterAddOnManifestApplied); c != nil {
				s.manifestApplied = c.DeepCopy()
			}
		}
		if r.current[o.Name] == nil {
			r.current[o.Name] = map[string]addonState{}
		}
		r.current[o.Name][o.Namespace] = s
		r.addons[o.Name] = append(r.addons[o.Name], addonEvent{at: now, cluster: o.Namespace, state: s})
	case *addonv1alpha1.ClusterManagementAddOn:
		var ps []addonv1alpha1.InstallProgression
		for _, p := range o.Status.InstallProgressions {
			ps = append(ps, *p.DeepCopy())
		}
		r.cmas[o.Name] = append(r.cmas[o.Name], cmaEvent{at: now, progressions: ps})
		if len(ps) > 0 {
			r.cma[o.Name] = ps[0]
		}
	case *workv1.ManifestWork:
		name := o.Labels[addonv1alpha1.AddonLabelKey]
		switch {
		case name == "":
			return
		case ev.Type == watch.Deleted:
			r.works[name] = append(r.works[name], workEvent{at: now, cluster: o.Namespace, deleted: true})
		default:
			r.works[name] = append(r.works[name], workEvent{at: now, cluster: o.Namespace, target: workTarget(o), image: workImage(o), ready: workReady(o)})
		}
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

// work returns the latest version of the named add-on's work on cluster
// (its deletion, when that came last), or the zero version.
func (v view) work(name, cluster string) workEvent {
	ws := v.r.works[name]
	for i := len(ws) - 1; i >= 0; i-- {
		if ws[i].cluster == cluster {
			return ws[i]
		}
	}
	return workEvent{}
}

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

// workTarget joins the spec hashes of a work's config-spec-hash
// annotation in the order of their keys, as the simulated agents'
// agent.Target does; "" without one.
func workTarget(w *workv1.ManifestWork) string {
	var hashes map[string]string
	if err := json.Unmarshal([]byte(w.Annotations[workv1.ManifestConfigSpecHashAnnotationKey]), &hashes); err != nil {
		return ""
	}
	keys := slices.Sorted(maps.Keys(hashes))
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = hashes[k]
	}
	return strings.Join(out, ",")
}

// workImage is the image of the containers of the Deployments a work
// carries (the simulated add-on manager renders one, with one container),
// joined with commas in their order; "" when there is none.
func workImage(w *workv1.ManifestWork) string {
	var images []string
	for _, m := range w.Spec.Workload.Manifests {
		var d appsv1.Deployment
		if err := json.Unmarshal(m.Raw, &d); err != nil || d.Kind != "Deployment" {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			images = append(images, c.Image)
		}
	}
	return strings.Join(images, ",")
}

// workReady tells whether a work is Applied and Available at its
// generation.
func workReady(w *workv1.ManifestWork) bool {
	for _, t := range []string{workv1.WorkApplied, workv1.WorkAvailable} {
		c := meta.FindStatusCondition(w.Status.Conditions, t)
		if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != w.Generation {
			return false
		}
	}
	return true
}

// workHistory returns a copy of the recorded versions of the named
// add-on's works.
func (r *recorder) workHistory(name string) []workEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]workEvent(nil), r.works[name]...)
}

// history returns copies of what was recorded of the named add-on.
func (r *recorder) history(name string) ([]addonEvent, []cmaEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]addonEvent(nil), r.addons[name]...), append([]cmaEvent(nil), r.cmas[name]...)
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
