package simulate

import (
	"errors"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// sim is the state of one simulation.
type sim struct {
	strategy clusterv1alpha1.RolloutStrategy
	planner  rollout.Planner // a copy, on the simulation's clock
	clock    *fake.Clock
	groupsIn []grouping.Group // the caller's groups with sorted cluster lists, passed to every Plan
	now      time.Time
	limit    time.Time
	maxPlans int

	groups      []group // by index
	byKey       map[grouping.GroupKey]int
	names       map[string]int // how many groups have each name
	clusters    []cluster      // by group index, then name
	byName      map[string]int
	pending     transitions
	statuses    []rollout.ClusterStatus // reused by every planner call
	breach      bool
	breachGroup grouping.GroupKey // the group a Breach event named
	last        rollout.Result    // the last planner call's result
	res         Result
}

// group is what the simulation tracks of one group.
type group struct {
	key       grouping.GroupKey
	started   bool
	completed bool
	held      bool
}

// cluster is one simulated cluster.
type cluster struct {
	name     string
	group    int
	behavior Behavior
	applied  bool
	status   rollout.Status // once applied
	since    time.Time      // last transition time, once applied
	// timedOutCall is the last planner call (counted from 1) that listed
	// the cluster as timed out; 0 if none did.
	timedOutCall int
}

// newSim validates the inputs and indexes the fleet. Groups are indexed
// leniently (a duplicate or empty name is skipped): the planner reports
// those problems, and newSim asks it to check the inputs once.
func newSim(opts Options, fleet Fleet) (*sim, error) {
	var errs []error
	if opts.Limit < 0 {
		errs = append(errs, field.Invalid(field.NewPath("opts", "Limit"), opts.Limit.String(), "want a non-negative duration (0: 30 days)"))
	}
	if opts.MaxPlans < 0 {
		errs = append(errs, field.Invalid(field.NewPath("opts", "MaxPlans"), opts.MaxPlans, "want a non-negative number of planner calls (0: the default)"))
	}

	s := &sim{strategy: opts.Strategy, groupsIn: sortedGroups(fleet.Groups), byKey: make(map[grouping.GroupKey]int, len(fleet.Groups)),
		names: make(map[string]int, len(fleet.Groups))}
	s.index(fleet)
	errs = append(errs, s.behave(fleet)...)

	// The planner checks the strategy, the groups and its default
	// concurrency; ask it once, without gates, before anything happens.
	check := opts.Planner
	check.Clock, check.Gates = fake.New(time.Time{}), nil
	_, err := check.Plan(opts.Strategy, fleet.Groups, nil)
	errs = append(errs, planProblems(err)...)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	start := opts.Start.Round(0)
	if start.IsZero() {
		start = defaultStart()
	}
	limit := opts.Limit
	if limit == 0 {
		limit = defaultLimit
	}
	s.maxPlans = opts.MaxPlans
	if s.maxPlans == 0 {
		s.maxPlans = defaultPlans + defaultPlansPerCluster*len(s.clusters)
	}
	s.now, s.limit = start, start.Add(limit)
	s.clock = fake.New(start)
	s.planner = opts.Planner
	s.planner.Clock = s.clock
	s.res.Start = start
	// Most clusters are applied, report Progressing, then an outcome; most
	// groups start and finish.
	s.res.Events = make([]Event, 0, 3*len(s.clusters)+2*len(s.groups))
	return s, nil
}

// behave gives every cluster its behaviour, and checks the behaviours:
// every field, and every name in Behaviors, in name order.
func (s *sim) behave(fleet Fleet) []error {
	errs := fleet.Default.validate(field.NewPath("fleet", "Default"))
	names := make([]string, 0, len(fleet.Behaviors))
	for name := range fleet.Behaviors {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := field.NewPath("fleet", "Behaviors").Key(name)
		if _, ok := s.byName[name]; !ok {
			e := field.NotFound(path, name)
			e.Detail = "want a cluster of one of fleet.Groups"
			errs = append(errs, e)
			continue
		}
		errs = append(errs, fleet.Behaviors[name].validate(path)...)
	}
	for i := range s.clusters {
		c := &s.clusters[i]
		c.behavior = fleet.Default
		if b, ok := fleet.Behaviors[c.name]; ok {
			c.behavior = b
		}
	}
	return errs
}

// index orders the groups by index and their clusters by name
// (grouping.InOrder), skipping a repeated group key, cluster or an empty
// name.
func (s *sim) index(fleet Fleet) {
	ordered := grouping.InOrder(fleet.Groups)
	total := 0
	for i := range ordered {
		total += len(ordered[i].Clusters)
	}
	s.groups = make([]group, 0, len(ordered))
	s.res.Groups = make([]GroupTimes, 0, len(ordered))
	s.clusters = make([]cluster, 0, total)
	s.byName = make(map[string]int, total)
	for _, g := range ordered {
		if _, dup := s.byKey[g.GroupKey]; dup {
			continue
		}
		gi := len(s.groups)
		s.byKey[g.GroupKey] = gi
		s.names[g.Name]++
		s.groups = append(s.groups, group{key: g.GroupKey})
		s.res.Groups = append(s.res.Groups, GroupTimes{GroupKey: g.GroupKey})
		for _, name := range g.Clusters {
			if _, dup := s.byName[name]; dup || name == "" {
				continue
			}
			s.byName[name] = len(s.clusters)
			s.clusters = append(s.clusters, cluster{name: name, group: gi})
		}
	}
}

// validate checks one behaviour; path names it in errors.
func (b Behavior) validate(path *field.Path) []error {
	var errs []error
	bad := func(f string, v any, want string) {
		errs = append(errs, field.Invalid(path.Child(f), v, want))
	}
	if b.ApplyDuration < 0 {
		bad("ApplyDuration", b.ApplyDuration.String(), "want a non-negative duration")
	}
	if b.Fail && b.Silent {
		bad("Silent", true, "want false when Fail is set: a silent cluster never reports a failure")
	}
	switch {
	case b.RecoverAfter < 0:
		bad("RecoverAfter", b.RecoverAfter.String(), "want a non-negative duration")
	case b.RecoverAfter > 0 && !b.Fail && !b.Silent:
		bad("RecoverAfter", b.RecoverAfter.String(), "want 0 unless Fail or Silent is set: only a failing or silent cluster recovers")
	case b.RecoverAfter > 0 && b.Fail && b.RecoverAfter <= b.ApplyDuration:
		bad("RecoverAfter", b.RecoverAfter.String(), "want more than ApplyDuration ("+b.ApplyDuration.String()+"): the cluster fails first, then recovers")
	}
	return errs
}

// planProblems are the problems Planner.Plan found in Run's arguments, each
// a *field.Error whose path Plan roots at its own arguments (see
// rollout.Planner.Plan), named by the path of Run's instead: the
// strategy's fields under opts.Strategy, the planner's under opts, the
// groups as fleet.Groups.
func planProblems(err error) []error {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else if err != nil {
		errs = []error{err}
	}
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		fe, ok := e.(*field.Error)
		if !ok {
			out = append(out, e)
			continue
		}
		c := *fe
		switch {
		case strings.HasPrefix(c.Field, "groups["):
			c.Field = "fleet.Groups" + strings.TrimPrefix(c.Field, "groups")
		case strings.HasPrefix(c.Field, "Planner."):
			c.Field = "opts." + c.Field
		default:
			c.Field = "opts.Strategy." + c.Field
		}
		out = append(out, &c)
	}
	return out
}

// sortedGroups copies groups with each cluster list sorted, once, so that
// the planner does not sort an unsorted list again at every step. The
// caller's groups are not modified.
func sortedGroups(groups []grouping.Group) []grouping.Group {
	out := make([]grouping.Group, len(groups))
	for i, g := range groups {
		out[i] = grouping.Group{GroupKey: g.GroupKey, Clusters: slices.Sorted(slices.Values(g.Clusters))}
	}
	return out
}
