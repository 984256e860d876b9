package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/rolloutkit/rolloutkit/clock"
)

// defaultOCMPlacementLease is the Lease OCM's placement controller leads
// with on a hub that OCM's cluster-manager installed: OCM v1.2.0's
// pkg/cmd/hub/placement.go runs library-go's controllercmd for component
// "placement", which elects with the Lease componentName+"-lock" in the
// component's namespace, open-cluster-management-hub by default.
const defaultOCMPlacementLease = "open-cluster-management-hub/placement-lock"

// parseLeaseName parses -ocm-placement-lease, NAMESPACE/NAME.
func parseLeaseName(s string) (types.NamespacedName, error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(name)) > 0 {
		return types.NamespacedName{}, fmt.Errorf("-ocm-placement-lease %q: want NAMESPACE/NAME of a Lease, such as %s", s, defaultOCMPlacementLease)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}

// leaseHolder is who holds a Lease, and when they last renewed it.
type leaseHolder struct {
	identity string
	renewed  time.Time
}

// activeHolder returns the holder of l if the Lease is held and its
// holder's term has not run out at now: it has a holderIdentity, and
// renewTime + leaseDurationSeconds is not in the past. A nil Lease (none
// on the hub) has no holder. A held Lease that lacks either time counts
// as active: what cannot be shown to have expired is taken as running.
func activeHolder(l *coordinationv1.Lease, now time.Time) (leaseHolder, bool) {
	if l == nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
		return leaseHolder{}, false
	}
	h := leaseHolder{identity: *l.Spec.HolderIdentity}
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return h, true
	}
	h.renewed = l.Spec.RenewTime.Time
	expires := h.renewed.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second)
	return h, !expires.Before(now)
}

// placementRefusal is the error of -placements beside an active holder of
// the Lease key.
func placementRefusal(key types.NamespacedName, h leaseHolder, now time.Time) error {
	renewed := "never renewed"
	if !h.renewed.IsZero() {
		renewed = fmt.Sprintf("renewed %s ago", now.Sub(h.renewed).Round(time.Second))
	}
	return fmt.Errorf("-placements: OCM's placement controller holds lease %s (holder %s, %s): two schedulers would write every Placement's decisions; "+
		"run without -placements, or stop OCM's placement controller", key, h.identity, renewed)
}

// checkNoOCMPlacement returns an error if OCM's placement controller is
// active on the hub, as the Lease key tells; or if the Lease cannot be
// read, since then it cannot be told.
func checkNoOCMPlacement(ctx context.Context, cfg *rest.Config, key types.NamespacedName, clk clock.PassiveClock) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	l, err := cs.CoordinationV1().Leases(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("-placements: reading lease %s, to tell whether OCM's placement controller runs: %w", key, err)
	}
	now := clk.Now()
	if h, ok := activeHolder(l, now); ok {
		return placementRefusal(key, h, now)
	}
	return nil
}
