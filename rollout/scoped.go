package rollout

import (
	"strings"
	"time"

	"github.com/rolloutkit/rolloutkit/grouping"
)

// RequireApproval returns a gate that holds the groups whose names are
// listed in need until they are approved, and admits every other group:
// "prod needs approval" is RequireApproval([]string{"prod"}, approved...).
// approved are read as [Approval] reads them: a key with a Name approves
// every group of that name, one with only an Index the group at that
// index, one with both the group that has both.
func RequireApproval(need []string, approved ...grouping.GroupKey) Gate {
	needs := make(map[string]bool, len(need))
	for _, n := range need {
		if n != "" {
			needs[n] = true
		}
	}
	approval := Approval(approved...)
	return GateFunc(func(g grouping.GroupKey, now time.Time) Admission {
		if !needs[g.Name] {
			return Admission{Admitted: true}
		}
		return approval.Admit(g, now)
	})
}

// ForGroups returns a gate that asks g only about the groups whose names
// are listed, and admits every other group; with no names it is g itself.
// "prod only on weekdays" is ForGroups([]string{"prod"}, weekdays).
func ForGroups(groups []string, g Gate) Gate {
	if len(groups) == 0 {
		return g
	}
	scope := scopeOf(groups)
	return GateFunc(func(k grouping.GroupKey, now time.Time) Admission {
		if !scope[k.Name] {
			return Admission{Admitted: true}
		}
		return g.Admit(k, now)
	})
}

// Scoped is a gate and the groups it applies to: those whose names are
// listed, or every group when Groups is empty.
type Scoped struct {
	// Groups are the names of the groups Gate applies to; empty: all.
	Groups []string
	// Gate is the gate.
	Gate Gate
}

// AnyOf returns a gate that admits a group when at least one of the gates
// that apply to it admits it, and a group none applies to. It is how
// several time windows combine: a group named by two windows may start
// inside either. When it holds, its reason joins those of the gates that
// apply, and its RecheckAfter is the nearest of theirs.
func AnyOf(gates ...Scoped) Gate {
	scopes := make([]map[string]bool, len(gates))
	for i, s := range gates {
		if len(s.Groups) > 0 {
			scopes[i] = scopeOf(s.Groups)
		}
	}
	return GateFunc(func(k grouping.GroupKey, now time.Time) Admission {
		var (
			held    Admission
			reasons []string
			applied bool
		)
		for i, s := range gates {
			if s.Gate == nil || scopes[i] != nil && !scopes[i][k.Name] {
				continue
			}
			applied = true
			a := s.Gate.Admit(k, now)
			if a.Admitted {
				return a
			}
			if a.Reason != "" {
				reasons = append(reasons, a.Reason)
			}
			held.RecheckAfter = Sooner(held.RecheckAfter, a.RecheckAfter)
		}
		if !applied {
			return Admission{Admitted: true}
		}
		held.Reason = strings.Join(reasons, "; ")
		return held
	})
}

func scopeOf(groups []string) map[string]bool {
	m := make(map[string]bool, len(groups))
	for _, g := range groups {
		m[g] = true
	}
	return m
}
