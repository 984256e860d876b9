package rollout

import (
	"fmt"
	"strconv"
)

// markMandatory marks the groups named by the strategy's
// mandatoryDecisionGroups (docs/semantics.md §3.7): an entry with a groupName
// matches every group of that name, otherwise its groupIndex matches that
// index. It returns a warning for every entry that matches nothing.
func (r *run) markMandatory() []Warning {
	if len(r.st.mandatory) == 0 {
		return nil
	}
	byName := make(map[string][]int, len(r.f.groups))
	byIndex := make(map[int32]int, len(r.f.groups))
	for gi, g := range r.f.groups {
		byName[g.key.Name] = append(byName[g.key.Name], gi)
		byIndex[g.key.Index] = gi
	}
	var unmatched []Warning
	for i, m := range r.st.mandatory {
		var matched []int
		what := "groupIndex " + strconv.Itoa(int(m.GroupIndex))
		if m.GroupName != "" {
			matched = byName[m.GroupName]
			what = fmt.Sprintf("groupName %q", m.GroupName)
		} else if gi, ok := byIndex[m.GroupIndex]; ok {
			matched = []int{gi}
		}
		for _, gi := range matched {
			r.f.groups[gi].mandatory = true
		}
		if len(matched) == 0 {
			unmatched = append(unmatched, Warning{Kind: UnmatchedMandatoryGroup, Message: fmt.Sprintf(
				"%s (%s) matches no decision group; it is ignored", r.st.path("mandatoryDecisionGroups").Index(i), what)})
		}
	}
	return unmatched
}

// walkOrder is the order of a group walk: the mandatory groups first, then
// the others, each in ascending index.
func (r *run) walkOrder() []int {
	order := make([]int, 0, len(r.f.groups))
	for gi := range r.f.groups {
		if r.f.groups[gi].mandatory {
			order = append(order, gi)
		}
	}
	for gi := range r.f.groups {
		if !r.f.groups[gi].mandatory {
			order = append(order, gi)
		}
	}
	return order
}

// mandatoryGroups is the mandatory groups, in ascending index: Progressive
// walks them before its window opens.
func (r *run) mandatoryGroups() []int {
	var order []int
	for gi := range r.f.groups {
		if r.f.groups[gi].mandatory {
			order = append(order, gi)
		}
	}
	return order
}
