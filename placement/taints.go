package placement

import (
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// OCM's messages for a toleration its TaintToleration plugin refuses.
const (
	messageEmptyKey    = "If the key is empty, operator must be Exists."
	messageExistsValue = "If the operator is Exists, the value should be empty."
)

// checkTolerations finds the tolerations OCM refuses: an empty key with an
// operator other than Exists, and Exists with a value. It returns every
// problem and OCM's message for the first.
func checkTolerations(ts []clusterv1beta1.Toleration) (errs []error, ocm string) {
	for i, t := range ts {
		path := field.NewPath("spec", "tolerations").Index(i)
		switch {
		case t.Key == "" && t.Operator != clusterv1beta1.TolerationOpExists:
			errs = append(errs, field.Invalid(path.Child("operator"), string(t.Operator),
				"want Exists when the key is empty (an empty key with Exists tolerates every taint)"))
			if ocm == "" {
				ocm = messageEmptyKey
			}
		case t.Operator == clusterv1beta1.TolerationOpExists && t.Value != "":
			errs = append(errs, field.Invalid(path.Child("value"), t.Value, "want no value with operator Exists"))
			if ocm == "" {
				ocm = messageExistsValue
			}
		}
	}
	return errs, ocm
}

// tolerance is how a Placement's tolerations treat one cluster's taints at
// one time.
type tolerance struct {
	// tolerated: every taint is tolerated, so the cluster may be selected.
	tolerated bool
	// blocking is the index in spec.taints of the first taint that is not
	// tolerated, and expired says that a toleration matched it but its
	// tolerationSeconds have run out. Meaningless when tolerated.
	blocking int
	expired  bool
	// requeue is when OCM looks again: over the taints, the earliest expiry
	// of the first toleration (in spec order) that tolerates each. Zero for
	// none.
	requeue time.Time
	// until is when the cluster stops being tolerated: over the taints, the
	// earliest of the latest expiry among the tolerations that tolerate
	// each. Zero for never.
	until time.Time
}

// tolerate evaluates cl's taints against ts at now, as OCM's
// TaintToleration plugin does: PreferNoSelect taints are always tolerated;
// NoSelectIfNew taints are tolerated when the cluster is already among the
// Placement's decisions (inDecisions, asked only then); every other taint
// needs a toleration whose effect (empty: any), key (empty: any) and value
// (operator Equal or empty) or mere presence (Exists) match it, and whose
// tolerationSeconds, counted from the taint's timeAdded, have not run out.
func tolerate(cl *clusterv1.ManagedCluster, ts []clusterv1beta1.Toleration, inDecisions func() bool, now time.Time) tolerance {
	out := tolerance{tolerated: true}
	for i := range cl.Spec.Taints {
		taint := &cl.Spec.Taints[i]
		if taint.Effect == clusterv1.TaintEffectPreferNoSelect ||
			taint.Effect == clusterv1.TaintEffectNoSelectIfNew && inDecisions() {
			continue
		}
		ok, first, last, expired := tolerateTaint(taint, ts, now)
		if !ok {
			return tolerance{blocking: i, expired: expired}
		}
		out.requeue = earliest(out.requeue, first)
		out.until = earliest(out.until, last)
	}
	return out
}

// tolerateTaint reports whether some toleration of ts tolerates taint at
// now; the expiry of the first that does (zero: never) and the latest
// expiry of all that do (zero: never); and whether a matching toleration
// has expired.
func tolerateTaint(taint *clusterv1.Taint, ts []clusterv1beta1.Toleration, now time.Time) (ok bool, first, last time.Time, expired bool) {
	forever := false
	for i := range ts {
		t := &ts[i]
		if !matches(t, taint) {
			continue
		}
		var end time.Time
		if t.TolerationSeconds != nil {
			// As OCM computes it, overflow included.
			end = taint.TimeAdded.Add(time.Duration(*t.TolerationSeconds) * time.Second)
			if !now.Before(end) {
				expired = true
				continue
			}
		}
		if !ok {
			ok, first = true, end
		}
		if end.IsZero() {
			forever = true
		} else if end.After(last) {
			last = end
		}
	}
	if forever {
		last = time.Time{}
	}
	return ok, first, last, expired
}

// matches reports whether t applies to taint, its expiry aside. An
// operator other than Equal, Exists or empty (Equal) matches nothing, as in
// OCM.
func matches(t *clusterv1beta1.Toleration, taint *clusterv1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect || t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", clusterv1beta1.TolerationOpEqual:
		return t.Value == taint.Value
	case clusterv1beta1.TolerationOpExists:
		return true
	}
	return false
}

// earliest returns the earlier of a and b, where zero means never.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}
