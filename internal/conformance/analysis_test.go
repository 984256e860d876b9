package conformance

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// class is a cluster's status evaluated at now, by this test's own reading
// of docs/semantics.md §3.3 (it does not call the planner).
type class int

const (
	cNone        class = iota // in a group, no status entry
	cToApply                  // a ToApply entry
	cProgressing              // Progressing within the deadline
	cFailing                  // Failed within the deadline: in flight and a failure
	cSoaking                  // Succeeded inside minSuccessTime
	cDone                     // Succeeded and soaked, or Skip
	cTimedOut                 // TimeOut given as input
	cTimingOut                // Progressing or Failed past the deadline
)

func (c class) inFlight() bool  { return c == cProgressing || c == cFailing || c == cSoaking }
func (c class) failure() bool   { return c == cFailing || c == cTimedOut || c == cTimingOut }
func (c class) untouched() bool { return c == cNone || c == cToApply }

// counts counts one group's clusters by class.
type counts struct {
	size, untouched, inFlight, failing, failures, timingOut int
	toApplyWithLTT                                          int // ToApply entries that carry a transition time
}

// analysis is what the divergence predicates know of a scenario: every
// cluster's class, per-group counts, and a model of how far OCM's group walks
// and its per-cluster window get. The model reproduces only OCM's stop rules
// (which groups it walks, where it stops reading statuses), not its output.
type analysis struct {
	kind       clusterv1alpha1.RolloutType // "" read as All
	cfg        clusterv1alpha1.RolloutConfig
	maxConc    intstr.IntOrString
	mandatory  []bool              // per group position (groups are generated in index order)
	mandOrder  []int               // mandatory groups, by index
	restOrder  []int               // the others, by index
	keys       []grouping.GroupKey // per group position
	classOf    map[string]class
	groupOf    map[string]int
	counts     []counts
	entries    []string // clusters in a group that have a status entry, sorted by name
	total      int      // clusters in all groups
	restSize   int      // clusters in non-mandatory groups
	inFlight   int      // in flight, all groups
	inFlightM  int      // in flight, mandatory groups
	timingOut  int      // timing out, all groups
	timingOutR int      // timing out, non-mandatory groups
	failures   int      // failures, all groups

	// OCM's phases, as its code would go.
	mand         *walk // the mandatory phase's walk; nil without mandatory groups
	mandReturned bool  // OCM returns the mandatory phase's result
	rest         *walk // ProgressivePerGroup: the walk over the other groups
	window       *perCluster
}

// walk models OCM's progressivePerGroup: which groups it walks and why it
// stopped.
type walk struct {
	groups   []int // groups walked; OCM lists their untouched clusters
	listed   int   // size of ClustersToRollout at the end
	breach   bool  // stopped on the last group's failures
	released bool  // went past a group although a listed cluster was still rolling, because it subtracted timeouts
}

// perCluster models OCM's progressivePerCluster over the sorted statuses.
type perCluster struct {
	window, budget  int  // OCM's rollout size and failure budget
	cut             int  // statuses read before the window was full: entries[:cut]
	seenFailures    int  // failures counted in entries[:cut]
	toApplyAppended bool // a ToApply entry of a non-mandatory group was listed from the statuses
}

// ocmEquivalent returns the strategy OCM must be given to mean what ours
// means: type "" is All (D1), a Go duration its pattern rejects is spelled
// in a form it accepts (D12). rewrites names what was rewritten.
func ocmEquivalent(s clusterv1alpha1.RolloutStrategy) (clusterv1alpha1.RolloutStrategy, []string) {
	var rewrites []string
	s = *s.DeepCopy()
	if s.Type == "" {
		s.Type = clusterv1alpha1.All
		rewrites = append(rewrites, "D1")
	}
	for _, cfg := range configs(&s) {
		if ocmDeadlineOK(cfg.ProgressDeadline) {
			continue
		}
		if d, err := time.ParseDuration(cfg.ProgressDeadline); err == nil && d >= 0 {
			cfg.ProgressDeadline = strconv.FormatInt(int64(d/time.Second), 10) + "s"
			rewrites = append(rewrites, "D12")
		}
	}
	return s, rewrites
}

// configs returns pointers to the strategy's rollout configs that are set.
func configs(s *clusterv1alpha1.RolloutStrategy) []*clusterv1alpha1.RolloutConfig {
	var out []*clusterv1alpha1.RolloutConfig
	if s.All != nil {
		out = append(out, &s.All.RolloutConfig)
	}
	if s.Progressive != nil {
		out = append(out, &s.Progressive.RolloutConfig)
	}
	if s.ProgressivePerGroup != nil {
		out = append(out, &s.ProgressivePerGroup.RolloutConfig)
	}
	return out
}

// ocmDeadlineOK reports whether OCM's parseTimeout accepts v: its pattern
// "^(([0-9])+[h|m|s])|None$" must match a prefix.
func ocmDeadlineOK(v string) bool {
	if v == "" || v == "None" || strings.HasSuffix(v, "None") {
		return true
	}
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	return i > 0 && i < len(v) && strings.ContainsRune("hms|", rune(v[i]))
}

// negativeInt reports whether the strategy's active config has a negative
// int maxFailures or maxConcurrency (D14): an error for us, OCM takes it.
func negativeInt(s clusterv1alpha1.RolloutStrategy) bool {
	neg := func(v intstr.IntOrString) bool { return v.Type == intstr.Int && v.IntVal < 0 }
	switch s.Type {
	case clusterv1alpha1.Progressive:
		return s.Progressive != nil && (neg(s.Progressive.MaxFailures) || neg(s.Progressive.MaxConcurrency))
	case clusterv1alpha1.ProgressivePerGroup:
		return s.ProgressivePerGroup != nil && neg(s.ProgressivePerGroup.MaxFailures)
	default:
		return s.All != nil && neg(s.All.MaxFailures)
	}
}

// analyse classifies sc under its (OCM-equivalent) strategy and models OCM.
func analyse(sc *scenario) *analysis {
	s, _ := ocmEquivalent(sc.Strategy)
	a := &analysis{classOf: map[string]class{}, groupOf: map[string]int{}}
	a.kind, a.cfg = config(s)
	var md []clusterv1alpha1.MandatoryDecisionGroup
	switch {
	case a.kind == clusterv1alpha1.Progressive && s.Progressive != nil:
		a.maxConc = s.Progressive.MaxConcurrency
		md = s.Progressive.MandatoryDecisionGroups.MandatoryDecisionGroups
	case a.kind == clusterv1alpha1.ProgressivePerGroup && s.ProgressivePerGroup != nil:
		md = s.ProgressivePerGroup.MandatoryDecisionGroups.MandatoryDecisionGroups
	}
	minSuccess := a.cfg.MinSuccessTime.Duration
	if a.kind == clusterv1alpha1.All {
		minSuccess = 0
	}
	deadline, hasDeadline := time.Duration(0), false
	if v := a.cfg.ProgressDeadline; v != "" && v != "None" {
		deadline, _ = time.ParseDuration(v)
		hasDeadline = true
	}

	a.mandatory = make([]bool, len(sc.Groups))
	for _, m := range md {
		for gi, g := range sc.Groups {
			if (m.GroupName != "" && g.Name == m.GroupName) || (m.GroupName == "" && g.Index == m.GroupIndex) {
				a.mandatory[gi] = true
			}
		}
	}
	status := make(map[string]*rollout.ClusterStatus, len(sc.Statuses))
	for i := range sc.Statuses {
		status[sc.Statuses[i].Cluster] = &sc.Statuses[i]
	}
	a.counts = make([]counts, len(sc.Groups))
	for gi, g := range sc.Groups {
		if a.mandatory[gi] {
			a.mandOrder = append(a.mandOrder, gi)
		} else {
			a.restOrder = append(a.restOrder, gi)
			a.restSize += len(g.Clusters)
		}
		a.total += len(g.Clusters)
		a.keys = append(a.keys, g.GroupKey)
		c := &a.counts[gi]
		c.size = len(g.Clusters)
		for _, name := range g.Clusters {
			cs := status[name]
			cl := classify(cs, sc.Now, minSuccess, deadline, hasDeadline)
			a.classOf[name], a.groupOf[name] = cl, gi
			if cs != nil {
				a.entries = append(a.entries, name)
			}
			switch {
			case cl.untouched():
				c.untouched++
				if cl == cToApply && !cs.LastTransitionTime.IsZero() {
					c.toApplyWithLTT++
				}
			case cl.inFlight():
				c.inFlight++
			}
			if cl == cFailing {
				c.failing++
			}
			if cl.failure() {
				c.failures++
			}
			if cl == cTimingOut {
				c.timingOut++
			}
		}
		a.inFlight += c.inFlight
		a.timingOut += c.timingOut
		a.failures += c.failures
		if a.mandatory[gi] {
			a.inFlightM += c.inFlight
		} else {
			a.timingOutR += c.timingOut
		}
	}
	slices.Sort(a.entries)
	a.modelOCM()
	return a
}

// classify is docs/semantics.md §3.3 for one cluster.
func classify(cs *rollout.ClusterStatus, now time.Time, minSuccess, deadline time.Duration, hasDeadline bool) class {
	if cs == nil {
		return cNone
	}
	from := cs.LastTransitionTime
	if from.IsZero() {
		from = now
	}
	switch cs.Status {
	case rollout.ToApply:
		return cToApply
	case rollout.Succeeded:
		if now.Before(from.Add(minSuccess)) {
			return cSoaking
		}
		return cDone
	case rollout.Skip:
		return cDone
	case rollout.TimeOut:
		return cTimedOut
	}
	if hasDeadline && !now.Before(from.Add(deadline)) {
		return cTimingOut
	}
	if cs.Status == rollout.Failed {
		return cFailing
	}
	return cProgressing
}

// modelOCM follows GetRolloutCluster's phases: the mandatory groups' walk,
// returned when it lists anything or anything timed out; then the other
// groups' walk (ProgressivePerGroup) or the per-cluster window (Progressive).
func (a *analysis) modelOCM() {
	if a.kind == clusterv1alpha1.All {
		return
	}
	if len(a.mandOrder) > 0 {
		m := a.ocmWalk(a.mandOrder, func(int) int { return 0 })
		a.mand = &m
		a.mandReturned = m.listed > 0 || a.timingOut > 0
	}
	if a.mandReturned {
		return
	}
	if a.kind == clusterv1alpha1.ProgressivePerGroup {
		r := a.ocmWalk(a.restOrder, func(size int) int { return ocmPortion(a.cfg.MaxFailures, size, 0) })
		a.rest = &r
		return
	}
	p := perCluster{window: ocmPortion(a.maxConc, a.restSize, a.restSize), budget: ocmPortion(a.cfg.MaxFailures, a.total, 0)}
	listed, breach := 0, false
	p.cut = len(a.entries)
	for i, name := range a.entries {
		cl := a.classOf[name]
		if (!breach || cl != cToApply) && (cl == cToApply || cl.inFlight()) {
			listed++
			if cl == cToApply && !a.mandatory[a.groupOf[name]] {
				p.toApplyAppended = true
			}
		}
		if cl.failure() {
			p.seenFailures++
			breach = p.seenFailures > p.budget
		}
		if listed >= p.window {
			p.cut = i + 1
			break
		}
	}
	a.window = &p
}

// ocmWalk models OCM's progressivePerGroup over the groups in order: every
// in-flight cluster anywhere is listed first; each group walked lists its
// untouched clusters; OCM stops after a group when its failures exceed
// budget(size), or when the listed clusters outnumber the failures counted
// so far (timeouts included, which is the point of D4).
func (a *analysis) ocmWalk(order []int, budget func(size int) int) walk {
	w := walk{listed: a.inFlight}
	fails, failing := 0, 0
	for _, gi := range order {
		c := a.counts[gi]
		w.groups = append(w.groups, gi)
		w.listed += c.untouched
		fails += c.failures
		failing += c.failing
		if c.failures > budget(c.size) {
			w.breach = true
			return w
		}
		if w.listed-fails > 0 {
			return w
		}
		if w.listed-failing > 0 {
			w.released = true // we would stop here: only Failed clusters of walked groups do not hold
		}
	}
	return w
}

// returnedWalk is the group walk whose result OCM returns, if any.
func (a *analysis) returnedWalk() *walk {
	if a.mandReturned {
		return a.mand
	}
	return a.rest
}

// ocmPortion is OCM's calculateRolloutSize: the int as is, a percentage in
// floating point rounded up; a result <= 0 or above total gives def.
func ocmPortion(v intstr.IntOrString, total, def int) int {
	n := def
	switch v.Type {
	case intstr.Int:
		n = int(v.IntVal)
	case intstr.String:
		f, _ := strconv.ParseFloat(strings.TrimSuffix(v.StrVal, "%"), 64)
		n = int(math.Ceil(f / 100 * float64(total)))
	}
	if n <= 0 || n > total {
		n = def
	}
	return n
}

// ourPortion is docs/semantics.md's reading: the int as is, a percentage rounded up
// in exact integer arithmetic.
func ourPortion(v intstr.IntOrString, total int) int {
	if v.Type == intstr.Int {
		return int(v.IntVal)
	}
	n, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	return (n*total + 99) / 100
}

// ourGroupBudget is our failure budget of group gi in a group walk: none
// for a mandatory group, else maxFailures of its size, at most its size.
func (a *analysis) ourGroupBudget(gi int) int {
	if a.mandatory[gi] {
		return 0
	}
	size := a.counts[gi].size
	return min(ourPortion(a.cfg.MaxFailures, size), size)
}

// ourProgressiveBreach is our Progressive breach, counted at every call: a
// failure in a mandatory group, or failures over all clusters beyond
// maxFailures.
func (a *analysis) ourProgressiveBreach() bool {
	for _, gi := range a.mandOrder {
		if a.counts[gi].failures > 0 {
			return true
		}
	}
	return a.failures > min(ourPortion(a.cfg.MaxFailures, a.total), a.total)
}

// ourWindow is our Progressive window over the non-mandatory clusters.
func (a *analysis) ourWindow() int {
	n := ourPortion(a.maxConc, a.restSize)
	if n <= 0 || n > a.restSize {
		n = a.restSize
	}
	return n
}
