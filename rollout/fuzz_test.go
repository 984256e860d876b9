package rollout_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// fuzzInput builds Plan inputs from fuzz bytes: any strategy type, any
// durations and budgets (valid or not), groups with duplicate and empty
// names, statuses out of range, transition times far in the past and
// future, and a clock before them.
type fuzzInput struct {
	data []byte
	pos  int
}

func (in *fuzzInput) next() byte {
	if in.pos >= len(in.data) {
		return 0
	}
	b := in.data[in.pos]
	in.pos++
	return b
}

func (in *fuzzInput) pick(options ...string) string { return options[int(in.next())%len(options)] }

func (in *fuzzInput) portion(free string) intstr.IntOrString {
	switch b := in.next(); b % 4 {
	case 0:
		return intstr.FromInt32(int32(int8(in.next())))
	case 1:
		return intstr.FromString(in.pick("0%", "7%", "33%", "50%", "100%", "150%", "abc", "", "-5%", "7.5%"))
	case 2:
		return intstr.FromString(free)
	default:
		return intstr.IntOrString{}
	}
}

func (in *fuzzInput) build(deadline, free string) (clusterv1alpha1.RolloutStrategy, []grouping.Group, []rollout.ClusterStatus, time.Time) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC).Add(time.Duration(int8(in.next())) * time.Minute)
	cfg := clusterv1alpha1.RolloutConfig{
		MinSuccessTime:   metav1.Duration{Duration: time.Duration(int8(in.next())) * time.Minute},
		ProgressDeadline: in.pick("", "None", "0s", "5m", "15m", "1h30m", deadline),
		MaxFailures:      in.portion(free),
	}
	var md []clusterv1alpha1.MandatoryDecisionGroup
	for range in.next() % 3 {
		md = append(md, clusterv1alpha1.MandatoryDecisionGroup{GroupName: in.pick("", "dev", "stg", "nope"), GroupIndex: int32(int8(in.next())) % 8})
	}
	s := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.RolloutType(in.pick("", "All", "Progressive", "ProgressivePerGroup", "Bogus"))}
	switch in.next() % 4 {
	case 0:
		s.All = &clusterv1alpha1.RolloutAll{RolloutConfig: cfg}
	case 1:
		s.Progressive = &clusterv1alpha1.RolloutProgressive{RolloutConfig: cfg, MaxConcurrency: in.portion(free),
			MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: md}}
	case 2:
		s.ProgressivePerGroup = &clusterv1alpha1.RolloutProgressivePerGroup{RolloutConfig: cfg,
			MandatoryDecisionGroups: clusterv1alpha1.MandatoryDecisionGroups{MandatoryDecisionGroups: md}}
	}
	names := []string{"", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "dev-cluster", "stg-cluster", "prod-cluster"}
	var groups []grouping.Group
	for range in.next() % 6 {
		g := grouping.Group{GroupKey: grouping.GroupKey{Name: in.pick("", "dev", "stg", "prod", "dev"), Index: int32(in.next() % 8)}}
		for range in.next() % 6 {
			g.Clusters = append(g.Clusters, names[int(in.next())%len(names)])
		}
		groups = append(groups, g)
	}
	var statuses []rollout.ClusterStatus
	for range in.next() % 12 {
		st := rollout.ClusterStatus{Cluster: names[int(in.next())%len(names)], Status: fuzzStatus(in.next())}
		switch in.next() % 5 {
		case 0: // unknown
		case 1:
			st.LastTransitionTime = time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)
		case 2:
			st.LastTransitionTime = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
		default:
			st.LastTransitionTime = now.Add(time.Duration(int8(in.next())) * time.Minute)
		}
		if in.next()%4 == 0 {
			st.RecheckTime = now // ignored on input
		}
		statuses = append(statuses, st)
	}
	return s, groups, statuses, now
}

// fuzzStatus is one of the six status values, or rarely one outside them
// (an error), so that most inputs get past validation.
func fuzzStatus(b byte) rollout.Status {
	if b%16 == 15 {
		return rollout.Status(int8(b))
	}
	return rollout.Status(b % 6)
}

// FuzzPlan checks Planner.Plan on arbitrary inputs: it never panics; an
// error is a join of *field.Error; the inputs are unchanged; the output
// does not depend on the order of the inputs; every listed cluster belongs
// to its group; RecheckAfter is never negative.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{0, 5, 2, 1, 0, 3, 3, 1, 1, 2, 3, 0, 1, 14, 2, 1, 15, 3, 2, 2, 2, 4, 13, 1, 3}, "15m", "50%")
	f.Add([]byte{10, 0, 6, 3, 5, 2, 2, 1, 3, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 3, 2, 5, 0, 1, 2, 3}, "-1m", "150%")
	f.Add([]byte("ProgressivePerGroup with everything in it, twice over: ProgressivePerGroup with everything"), "1.5h", "abc")
	f.Fuzz(func(t *testing.T, data []byte, deadline, free string) {
		in := &fuzzInput{data: data}
		s, groups, statuses, now := in.build(deadline, free)
		sCopy, gCopy, stCopy := s.DeepCopy(), deepGroups(groups), slices.Clone(statuses)
		gates := []rollout.Gate{rollout.Approval(grouping.GroupKey{Name: "dev"}, grouping.GroupKey{Index: 1})}
		if len(data) > 0 && data[0]%2 == 0 {
			gates = nil
		}
		p := rollout.Planner{Clock: fake.New(now), Gates: gates}
		res, err := p.Plan(s, groups, statuses)

		if !reflect.DeepEqual(sCopy, s.DeepCopy()) || !reflect.DeepEqual(gCopy, groups) || !reflect.DeepEqual(stCopy, statuses) {
			t.Fatal("Plan modified its inputs")
		}
		res2, err2 := p.Plan(s, reversedGroups(groups), reversed(statuses))
		if (err == nil) != (err2 == nil) {
			t.Fatalf("errors depend on input order: %v / %v", err, err2)
		}
		if err != nil {
			checkFieldErrors(t, err)
			return
		}
		if !slices.Equal(names(res.Removed), reversed(names(res2.Removed))) {
			t.Fatalf("Removed is not in input order: %v / %v", names(res.Removed), names(res2.Removed))
		}
		res.Removed, res2.Removed = nil, nil
		if !reflect.DeepEqual(res, res2) {
			t.Fatalf("output depends on input order:\n%+v\n%+v", res, res2)
		}
		if res.RecheckAfter < 0 {
			t.Fatalf("RecheckAfter %v < 0", res.RecheckAfter)
		}
		member := map[string]grouping.GroupKey{}
		for _, g := range groups {
			for _, c := range g.Clusters {
				member[c] = g.GroupKey
			}
		}
		for _, list := range [][]rollout.ClusterStatus{res.ToRollout, res.TimedOut} {
			for _, c := range list {
				if k, ok := member[c.Cluster]; !ok || k != c.Group {
					t.Fatalf("listed cluster %q with group %v is not in that group", c.Cluster, c.Group)
				}
			}
		}
		if len(res.Groups) != len(groups) {
			t.Fatalf("%d group explanations for %d groups", len(res.Groups), len(groups))
		}
	})
}

// checkFieldErrors requires the error to be one flat join of *field.Error
// values (or one of them), each with a path and a detail that says what
// was expected.
func checkFieldErrors(t *testing.T, err error) {
	t.Helper()
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		fe, ok := e.(*field.Error)
		if !ok {
			t.Fatalf("error %q is not a *field.Error", e)
		}
		if fe.Field == "" || fe.Detail == "" {
			t.Fatalf("error %q does not name its field and what was expected", e)
		}
	}
}

func deepGroups(gs []grouping.Group) []grouping.Group {
	if gs == nil {
		return nil
	}
	out := make([]grouping.Group, len(gs))
	for i, g := range gs {
		out[i] = grouping.Group{GroupKey: g.GroupKey, Clusters: slices.Clone(g.Clusters)}
	}
	return out
}

func reversedGroups(gs []grouping.Group) []grouping.Group {
	out := deepGroups(gs)
	slices.Reverse(out)
	for i := range out {
		slices.Reverse(out[i].Clusters)
	}
	return out
}

func reversed[T any](s []T) []T {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}
