package rollout_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout"
)

func TestAfterVerified(t *testing.T) {
	t.Parallel()
	order := []grouping.GroupKey{key("dev", 0), key("stg", 1), key("prod", 2)}
	tests := []struct {
		name    string
		pending map[grouping.GroupKey]string
		want    map[string]rollout.Admission // by group name; admitted when absent
	}{
		{name: "nothing pending: all admitted"},
		{name: "the first pending holds every group after it",
			pending: map[grouping.GroupKey]string{key("dev", 0): "slo: 503"},
			want: map[string]rollout.Admission{
				"stg":  {Reason: `waiting for the verification of group "dev": slo: 503`},
				"prod": {Reason: `waiting for the verification of group "dev": slo: 503`},
			}},
		{name: "a pending group is not held by its own verification",
			pending: map[grouping.GroupKey]string{key("prod", 2): ""},
			want:    map[string]rollout.Admission{}},
		{name: "the earliest pending names the wait",
			pending: map[grouping.GroupKey]string{key("stg", 1): "", key("dev", 0): "not run yet"},
			want: map[string]rollout.Admission{
				"stg":  {Reason: `waiting for the verification of group "dev": not run yet`},
				"prod": {Reason: `waiting for the verification of group "dev": not run yet`},
			}},
		{name: "no why: the group only",
			pending: map[grouping.GroupKey]string{key("stg", 1): ""},
			want:    map[string]rollout.Admission{"prod": {Reason: `waiting for the verification of group "stg"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := rollout.AfterVerified(order, tt.pending)
			for _, k := range append(order, key("qa", 9)) { // qa: not in order, never held
				want, held := tt.want[k.Name]
				if !held {
					want = rollout.Admission{Admitted: true}
				}
				assert.Equal(t, want, g.Admit(k, t0()), k.Label())
			}
		})
	}
}

func TestWalkOrder(t *testing.T) {
	t.Parallel()
	groups := []grouping.Group{group("prod", 2, "p"), group("dev", 0, "d"), group("stg", 1, "s"), group("canary", 3, "c")}
	tests := []struct {
		name string
		s    clusterv1alpha1.RolloutStrategy
		want []grouping.GroupKey
	}{
		{name: "by index", s: strategy(perGroup, cfg{}),
			want: []grouping.GroupKey{key("dev", 0), key("stg", 1), key("prod", 2), key("canary", 3)}},
		{name: "mandatory first, by name", s: strategy(perGroup, cfg{}, mandatory(byName("canary"))),
			want: []grouping.GroupKey{key("canary", 3), key("dev", 0), key("stg", 1), key("prod", 2)}},
		{name: "mandatory first, by index, in index order", s: strategy(progressive, cfg{}, mandatory(byIndex(3), byIndex(1))),
			want: []grouping.GroupKey{key("stg", 1), key("canary", 3), key("dev", 0), key("prod", 2)}},
		{name: "All has no mandatory groups", s: strategy(all, cfg{}),
			want: []grouping.GroupKey{key("dev", 0), key("stg", 1), key("prod", 2), key("canary", 3)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := append([]grouping.Group(nil), groups...)
			got, err := rollout.WalkOrder(tt.s, groups)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, before, groups, "groups not modified")
		})
	}
}

// TestWalkOrderErrors: WalkOrder refuses what Plan refuses, with Plan's
// errors.
func TestWalkOrderErrors(t *testing.T) {
	t.Parallel()
	groups := []grouping.Group{group("dev", 0, "a"), group("stg", 0, "b")}
	s := strategy(perGroup, cfg{deadline: "15x"})
	_, err := rollout.WalkOrder(s, groups)
	require.Error(t, err)
	_, planErr := plannerAt(t0()).Plan(s, groups, nil)
	assert.Equal(t, planErr.Error(), err.Error())
	var fe *field.Error
	assert.True(t, errors.As(err, &fe))
	assert.Contains(t, err.Error(), "progressivePerGroup.progressDeadline")
	assert.Contains(t, err.Error(), "groups[1].Index")
}

// TestPlanAfterVerified: the gate holds the groups after, in walk order,
// a group whose verification is pending, under each progressive strategy
// and with mandatory groups first.
func TestPlanAfterVerified(t *testing.T) {
	t.Parallel()
	done := func(clusters ...string) []rollout.ClusterStatus {
		var out []rollout.ClusterStatus
		for _, c := range clusters {
			out = append(out, status(c, rollout.Succeeded, at(-time.Hour)))
		}
		return out
	}
	tests := []struct {
		name     string
		s        clusterv1alpha1.RolloutStrategy
		pending  []string // groups whose verification is pending
		statuses []rollout.ClusterStatus
		starting []string
		phases   []string
		reasons  map[string]string
	}{
		{
			name: "ProgressivePerGroup: dev complete, not verified: stg held, prod waits for stg",
			s:    strategy(perGroup, cfg{soak: 5 * time.Minute}), pending: []string{"dev"}, statuses: done("dev-cluster"),
			phases: []string{"dev Complete", "stg Blocked", "prod Waiting"},
			reasons: map[string]string{
				"stg":  `held: waiting for the verification of group "dev": slo failing`,
				"prod": `waiting for group "stg": held: waiting for the verification of group "dev": slo failing`,
			},
		},
		{
			name: "ProgressivePerGroup: dev verified, stg not yet: stg starts",
			s:    strategy(perGroup, cfg{}), pending: []string{"stg"}, statuses: done("dev-cluster"),
			starting: []string{"stg-cluster"}, phases: []string{"dev Complete", "stg Active", "prod Waiting"},
		},
		{
			name: "ProgressivePerGroup: the last group pending holds nothing",
			s:    strategy(perGroup, cfg{}), pending: []string{"prod"}, statuses: done("dev-cluster", "stg-cluster", "prod-cluster"),
			phases: []string{"dev Complete", "stg Complete", "prod Complete"},
		},
		{
			name: "Progressive: the window would take all; the groups after dev are held",
			s:    strategy(progressive, cfg{}), pending: []string{"dev"},
			starting: []string{"dev-cluster"}, phases: []string{"dev Active", "stg Blocked", "prod Blocked"},
			reasons: map[string]string{"prod": `held: waiting for the verification of group "dev": slo failing`},
		},
		{
			name: "Progressive: stg pending holds prod only",
			s:    strategy(progressive, cfg{}), pending: []string{"stg"},
			starting: []string{"dev-cluster", "stg-cluster"}, phases: []string{"dev Active", "stg Active", "prod Blocked"},
		},
		{
			name: "ProgressivePerGroup, mandatory prod: prod goes first, and its verification holds dev",
			s:    strategy(perGroup, cfg{}, mandatory(byName("prod"))), pending: []string{"prod"}, statuses: done("prod-cluster"),
			phases:  []string{"dev Blocked", "stg Waiting", "prod Complete"},
			reasons: map[string]string{"dev": `held: waiting for the verification of group "prod": slo failing`},
		},
		{
			name: "Progressive, mandatory stg: dev waits for stg's verification, not the other way round",
			s:    strategy(progressive, cfg{}, mandatory(byName("stg"))), pending: []string{"stg", "dev"}, statuses: done("stg-cluster"),
			phases: []string{"dev Blocked", "stg Complete", "prod Blocked"},
			reasons: map[string]string{
				"dev":  `held: waiting for the verification of group "stg": slo failing`,
				"prod": `held: waiting for the verification of group "stg": slo failing`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			order, err := rollout.WalkOrder(tt.s, seedGroups())
			require.NoError(t, err)
			pending := make(map[grouping.GroupKey]string)
			for _, g := range seedGroups() {
				for _, p := range tt.pending {
					if g.Name == p {
						pending[g.GroupKey] = "slo failing"
					}
				}
			}
			res, err := plannerAt(t0(), rollout.AfterVerified(order, pending)).Plan(tt.s, seedGroups(), tt.statuses)
			require.NoError(t, err)
			assert.Equal(t, tt.starting, names(res.Starting()))
			assert.Equal(t, tt.phases, phases(res.Groups))
			for g, want := range tt.reasons {
				assert.Equal(t, want, reasons(res.Groups)[g], g)
			}
		})
	}
}
