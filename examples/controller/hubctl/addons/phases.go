package addons

import (
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/rollout"
)

// phaseLog logs a group's reason whenever its phase changes, with what it
// waits for as separate fields (the planner's structured Wait). It remembers
// the last phase it logged for each group; that memory only decides what
// to log, never what to roll out, so losing it on a restart costs one log
// line per group and nothing else.
type phaseLog struct {
	mu   sync.Mutex
	last map[string]map[string]rollout.Phase // add-on -> placement/group -> phase
}

func newPhaseLog() *phaseLog {
	return &phaseLog{last: make(map[string]map[string]rollout.Phase)}
}

// observe logs the groups of one placement of the add-on whose phase
// differs from the last one logged.
func (l *phaseLog) observe(logger logr.Logger, addonName string, ref addonv1beta1.PlacementRef, groups []rollout.GroupProgress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := l.last[addonName]
	if seen == nil {
		seen = make(map[string]rollout.Phase)
		l.last[addonName] = seen
	}
	for _, g := range groups {
		key := fmt.Sprintf("%s/%s#%d", ref.Namespace, ref.Name, g.Index)
		if old, ok := seen[key]; ok && old == g.Phase {
			continue
		}
		seen[key] = g.Phase
		kv := []any{
			"placement", ref.Namespace + "/" + ref.Name,
			"group", g.Name, "index", g.Index,
			"phase", g.Phase.String(), "reason", g.Reason,
			"size", g.Size,
		}
		if w := g.Wait; w.Kind != rollout.WaitNone {
			kv = append(kv, "waitsFor", w.Kind.String())
			if w.Kind == rollout.WaitGroup || w.Kind == rollout.WaitMandatory {
				kv = append(kv, "waitGroup", w.Group.String())
			}
			if w.Cluster.Name != "" {
				kv = append(kv, "waitCluster", w.Cluster.Name, "waitClusterStatus", w.Cluster.Status.String())
			}
			if !w.Until.IsZero() {
				kv = append(kv, "until", w.Until.UTC().Format(time.RFC3339))
			}
		}
		logger.Info("group phase changed", kv...)
	}
}

// forget drops what was logged for a deleted add-on.
func (l *phaseLog) forget(addonName string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.last, addonName)
}
