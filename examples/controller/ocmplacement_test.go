package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// TestOCMPlacementActive: OCM's placement controller is taken as running
// while its Lease has a holder whose term (renewTime plus
// leaseDurationSeconds) has not run out; an absent Lease, one without a
// holder and an expired one let -placements start.
func TestOCMPlacementActive(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)
	lease := func(holder string, renewedAgo time.Duration, seconds int32) *coordinationv1.Lease {
		l := &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To(seconds)}}
		if holder != "" {
			l.Spec.HolderIdentity = ptr.To(holder)
		}
		if renewedAgo >= 0 {
			l.Spec.RenewTime = &metav1.MicroTime{Time: now.Add(-renewedAgo)}
		}
		return l
	}
	key := types.NamespacedName{Namespace: "open-cluster-management-hub", Name: "placement-lock"}
	for _, tc := range []struct {
		name  string
		lease *coordinationv1.Lease
		err   string // "": may start
	}{
		{"held and renewed", lease("cluster-manager-placement-controller-7d9_1f2e", 10*time.Second, 137),
			"-placements: OCM's placement controller holds lease open-cluster-management-hub/placement-lock " +
				"(holder cluster-manager-placement-controller-7d9_1f2e, renewed 10s ago): two schedulers would write every Placement's decisions; " +
				"run without -placements, or stop OCM's placement controller"},
		{"held, its term ending now", lease("a", 137*time.Second, 137), "(holder a, renewed 2m17s ago)"},
		{"held, never renewed", lease("a", -1, 137), "(holder a, never renewed)"},
		{"expired", lease("a", 138*time.Second, 137), ""},
		{"released: no holder", lease("", time.Second, 137), ""},
		{"absent", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, active := activeHolder(tc.lease, now)
			if tc.err == "" {
				assert.False(t, active, "holder %+v", h)
				return
			}
			if assert.True(t, active) {
				assert.ErrorContains(t, placementRefusal(key, h, now), tc.err)
			}
		})
	}
}
