package placement

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// Reasons and messages of the Placement conditions, exactly as OCM's
// scheduling controller writes them (Succeedconfigured is its spelling).
const (
	reasonSucceedconfigured = "Succeedconfigured"
	messageConfigured       = "Placement configurations check pass"
	reasonMisconfigured     = "Misconfigured"

	reasonNoBindings      = "NoManagedClusterSetBindings"
	messageNoBindings     = "No valid ManagedClusterSetBindings found in placement namespace"
	reasonNoIntersection  = "NoIntersection"
	formatNoIntersection  = "None of ManagedClusterSets [%s] is bound to placement namespace"
	reasonSetsEmpty       = "AllManagedClusterSetsEmpty"
	formatSetsEmpty       = "All ManagedClusterSets [%s] have no member ManagedCluster"
	reasonAllScheduled    = "AllDecisionsScheduled"
	messageAllScheduled   = "All cluster decisions scheduled"
	reasonNoneMatched     = "NoManagedClusterMatched"
	messageNoneMatched    = "No ManagedCluster matches any of the cluster predicate"
	reasonNotAllScheduled = "NotAllDecisionsScheduled"
	formatNotAllScheduled = "%d cluster decisions unscheduled"
)

// misconfiguredCondition is PlacementMisconfigured: False when message is
// empty, else True with message.
func misconfiguredCondition(message string) metav1.Condition {
	if message == "" {
		return metav1.Condition{
			Type:    clusterv1beta1.PlacementConditionMisconfigured,
			Status:  metav1.ConditionFalse,
			Reason:  reasonSucceedconfigured,
			Message: messageConfigured,
		}
	}
	return metav1.Condition{
		Type:    clusterv1beta1.PlacementConditionMisconfigured,
		Status:  metav1.ConditionTrue,
		Reason:  reasonMisconfigured,
		Message: message,
	}
}

// satisfiedCondition is PlacementSatisfied, with OCM's first reason that
// applies: no binding counts; the bound sets and spec.clusterSets (specSets)
// do not meet; the eligible sets have no available member; nothing was
// selected; numberOfClusters asked for more than were selected
// (unscheduled); or all is well.
func satisfiedCondition(sets *boundSets, specSets []string, available, selected, unscheduled int) metav1.Condition {
	c := metav1.Condition{Type: clusterv1beta1.PlacementConditionSatisfied, Status: metav1.ConditionFalse}
	switch {
	case sets.bindings == 0:
		c.Reason, c.Message = reasonNoBindings, messageNoBindings
	case len(sets.eligible) == 0:
		c.Reason, c.Message = reasonNoIntersection, fmt.Sprintf(formatNoIntersection, strings.Join(specSets, ","))
	case available == 0:
		c.Reason, c.Message = reasonSetsEmpty, fmt.Sprintf(formatSetsEmpty, strings.Join(sets.eligible, ","))
	case selected == 0:
		c.Reason, c.Message = reasonNoneMatched, messageNoneMatched
	case unscheduled == 0:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, reasonAllScheduled, messageAllScheduled
	default:
		c.Reason, c.Message = reasonNotAllScheduled, fmt.Sprintf(formatNotAllScheduled, unscheduled)
	}
	return c
}

// setConditions sets each condition, in order, on a copy of existing with
// meta.SetStatusCondition: a condition whose status does not change keeps
// its lastTransitionTime, a new or changed one gets now.
func setConditions(existing []metav1.Condition, now time.Time, conds ...metav1.Condition) []metav1.Condition {
	out := slices.Clone(existing)
	for _, c := range conds {
		c.LastTransitionTime = metav1.NewTime(now)
		meta.SetStatusCondition(&out, c)
	}
	return out
}
