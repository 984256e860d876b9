package placement_test

import (
	"errors"
	"testing"

	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/placement"
)

// FuzzGroupsFromDecisions: any index label value is a group index or a
// *FieldError quoting it; never a panic.
func FuzzGroupsFromDecisions(f *testing.F) {
	for _, s := range []string{"0", "2147483647", "2147483648", "-1", "+1", "", "007", "1e3", " 1", "٣"} {
		f.Add(s, "dev")
	}
	f.Fuzz(func(t *testing.T, index, name string) {
		if index == "-" || name == "-" {
			return // decision's "leave the label out"
		}
		groups, err := placement.GroupsFromDecisions([]*clusterv1beta1.PlacementDecision{decision("p-decision-1", index, name, "a")})
		if err != nil {
			var fe *placement.FieldError
			if !errors.As(err, &fe) || fe.Value != index {
				t.Fatalf("error %v does not quote %q", err, index)
			}
			return
		}
		if len(groups) != 1 || groups[0].Index < 0 || groups[0].Name != name {
			t.Fatalf("groups %v from index %q", groups, index)
		}
	})
}
