package rollout

import (
	"errors"
	"strconv"
	"time"

	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/internal/field"
)

// FieldError is the error type for one bad field of the strategy or of the
// Plan inputs. Use errors.As to branch on it; Plan and Validate return every
// problem at once, joined.
type FieldError = field.Error

// strategy is a RolloutStrategy parsed once, up front.
type strategy struct {
	kind           clusterv1alpha1.RolloutType // All, Progressive or ProgressivePerGroup
	prefix         string                      // field path of the config: "all", "progressive", ...
	minSuccess     time.Duration               // 0 for All: the soak does not apply
	deadline       time.Duration               // valid when hasDeadline
	hasDeadline    bool
	maxFailures    field.Portion
	maxConcurrency field.Portion
	mandatory      []clusterv1alpha1.MandatoryDecisionGroup
}

// Validate checks a RolloutStrategy as Plan would, and returns every problem
// in one error (errors.Join of *FieldError). The type must be All,
// Progressive, ProgressivePerGroup or empty (empty means All, the CRD
// default); progressDeadline must be "", "None" or a non-negative Go
// duration; minSuccessTime must not be negative; maxFailures and
// maxConcurrency must be a non-negative int or a whole percentage "N%" with
// 0 <= N <= 100.
func Validate(s clusterv1alpha1.RolloutStrategy) error {
	_, err := parseStrategy(s)
	return err
}

func parseStrategy(s clusterv1alpha1.RolloutStrategy) (strategy, error) {
	var (
		st   strategy
		cfg  clusterv1alpha1.RolloutConfig
		errs []error
	)
	switch s.Type {
	case "", clusterv1alpha1.All:
		st.kind, st.prefix = clusterv1alpha1.All, "all"
		if s.All != nil {
			cfg = s.All.RolloutConfig
		}
	case clusterv1alpha1.Progressive:
		st.kind, st.prefix = clusterv1alpha1.Progressive, "progressive"
		if s.Progressive != nil {
			cfg = s.Progressive.RolloutConfig
			st.mandatory = s.Progressive.MandatoryDecisionGroups.MandatoryDecisionGroups
			mc, err := field.ParsePortion("progressive.maxConcurrency", s.Progressive.MaxConcurrency, false)
			errs = append(errs, err)
			st.maxConcurrency = mc
		}
	case clusterv1alpha1.ProgressivePerGroup:
		st.kind, st.prefix = clusterv1alpha1.ProgressivePerGroup, "progressivePerGroup"
		if s.ProgressivePerGroup != nil {
			cfg = s.ProgressivePerGroup.RolloutConfig
			st.mandatory = s.ProgressivePerGroup.MandatoryDecisionGroups.MandatoryDecisionGroups
		}
	default:
		return st, &FieldError{Field: "type", Value: string(s.Type),
			Want: `one of "All", "Progressive", "ProgressivePerGroup" or empty (All)`}
	}

	if d := cfg.MinSuccessTime.Duration; d < 0 {
		errs = append(errs, &FieldError{Field: st.prefix + ".minSuccessTime", Value: d.String(), Want: "a non-negative duration"})
	} else if st.kind != clusterv1alpha1.All {
		st.minSuccess = d
	}
	st.deadline, st.hasDeadline = parseDeadline(st.prefix+".progressDeadline", cfg.ProgressDeadline, &errs)
	mf, err := field.ParsePortion(st.prefix+".maxFailures", cfg.MaxFailures, false)
	errs = append(errs, err)
	st.maxFailures = mf
	for i, m := range st.mandatory {
		if m.GroupName == "" && m.GroupIndex < 0 {
			errs = append(errs, &FieldError{
				Field: st.prefix + ".mandatoryDecisionGroups[" + strconv.Itoa(i) + "].groupIndex",
				Value: strconv.Itoa(int(m.GroupIndex)), Want: "a group index >= 0 or a groupName"})
		}
	}
	return st, errors.Join(errs...)
}

// parseDeadline parses progressDeadline: "" and "None" mean no deadline;
// anything else must be a non-negative Go duration ("90s", "1h30m").
func parseDeadline(path, v string, errs *[]error) (time.Duration, bool) {
	if v == "" || v == "None" {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		*errs = append(*errs, &FieldError{Field: path, Value: v,
			Want: `"None" or a non-negative duration such as "90s" or "1h30m"`})
		return 0, false
	}
	return d, true
}

// ParseDeadline parses a progressDeadline value as Plan does. It reports
// ok=false with no deadline for "" and "None".
func ParseDeadline(v string) (d time.Duration, ok bool, err error) {
	var errs []error
	d, ok = parseDeadline("progressDeadline", v, &errs)
	return d, ok, errors.Join(errs...)
}

// concurrency returns the Progressive window over remaining clusters:
// maxConcurrency, else the planner's default (def, parsed by Plan; nil
// when unset), else all of them.
func (st strategy) concurrency(def *field.Portion, remaining int) int {
	p := st.maxConcurrency
	if p.IsZero() && def != nil {
		p = *def
	}
	n := p.Of(remaining)
	if n <= 0 || n > remaining {
		n = remaining
	}
	return n
}

// failureBudget is maxFailures of size: an int above size means size.
func (st strategy) failureBudget(size int) int {
	return min(st.maxFailures.Of(size), size)
}
