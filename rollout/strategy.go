package rollout

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	ifield "github.com/rolloutkit/rolloutkit/internal/field"
)

// strategy is a RolloutStrategy parsed once, up front.
type strategy struct {
	kind           clusterv1alpha1.RolloutType // All, Progressive or ProgressivePerGroup
	config         string                      // the config's field: "all", "progressive", ...
	minSuccess     time.Duration               // 0 for All: the soak does not apply
	deadline       time.Duration               // valid when hasDeadline
	hasDeadline    bool
	maxFailures    ifield.Portion
	maxConcurrency ifield.Portion
	mandatory      []clusterv1alpha1.MandatoryDecisionGroup
}

// path is the path of the config's field name, e.g.
// progressive.maxFailures. Paths are made only for errors and warnings:
// Plan makes none when all is well.
func (st *strategy) path(name string) *field.Path { return field.NewPath(st.config, name) }

// Validate checks a RolloutStrategy as Plan would, and returns every problem
// in one error: *field.Error values (k8s.io/apimachinery/pkg/util/validation/field)
// joined with errors.Join, their paths relative to the strategy, e.g.
// `progressive.maxConcurrency: Invalid value: "150%": want a non-negative
// integer or a percentage 0%-100%`. The type must be All, Progressive,
// ProgressivePerGroup or empty (empty means All, the CRD default);
// progressDeadline must be "", "None" or a non-negative Go duration;
// minSuccessTime must not be negative; maxFailures and maxConcurrency must
// be a non-negative int or a whole percentage "N%" with 0 <= N <= 100.
func Validate(s clusterv1alpha1.RolloutStrategy) error {
	_, errs := parseStrategy(s)
	return errors.Join(errs...)
}

// parseStrategy parses s, returning every problem as a *field.Error.
func parseStrategy(s clusterv1alpha1.RolloutStrategy) (strategy, []error) {
	var (
		st   strategy
		cfg  clusterv1alpha1.RolloutConfig
		errs []error
	)
	switch s.Type {
	case "", clusterv1alpha1.All:
		st.kind, st.config = clusterv1alpha1.All, "all"
		if s.All != nil {
			cfg = s.All.RolloutConfig
		}
	case clusterv1alpha1.Progressive:
		st.kind, st.config = clusterv1alpha1.Progressive, "progressive"
		if s.Progressive != nil {
			cfg = s.Progressive.RolloutConfig
			st.mandatory = s.Progressive.MandatoryDecisionGroups.MandatoryDecisionGroups
			var err error
			if st.maxConcurrency, err = parsePortion(s.Progressive.MaxConcurrency, st.config, "maxConcurrency"); err != nil {
				errs = append(errs, err)
			}
		}
	case clusterv1alpha1.ProgressivePerGroup:
		st.kind, st.config = clusterv1alpha1.ProgressivePerGroup, "progressivePerGroup"
		if s.ProgressivePerGroup != nil {
			cfg = s.ProgressivePerGroup.RolloutConfig
			st.mandatory = s.ProgressivePerGroup.MandatoryDecisionGroups.MandatoryDecisionGroups
		}
	default:
		return st, []error{field.NotSupported(field.NewPath("type"), s.Type,
			[]clusterv1alpha1.RolloutType{clusterv1alpha1.All, clusterv1alpha1.Progressive, clusterv1alpha1.ProgressivePerGroup})}
	}
	return st, append(errs, st.parseConfig(cfg)...)
}

// parseConfig parses the fields every strategy type shares, and its
// mandatory groups.
func (st *strategy) parseConfig(cfg clusterv1alpha1.RolloutConfig) []error {
	var errs []error
	if d := cfg.MinSuccessTime.Duration; d < 0 {
		errs = append(errs, field.Invalid(st.path("minSuccessTime"), d.String(), "want a non-negative duration"))
	} else if st.kind != clusterv1alpha1.All {
		st.minSuccess = d
	}
	var err error
	if st.deadline, st.hasDeadline, err = parseDeadline(cfg.ProgressDeadline, st.config, "progressDeadline"); err != nil {
		errs = append(errs, err)
	}
	if st.maxFailures, err = parsePortion(cfg.MaxFailures, st.config, "maxFailures"); err != nil {
		errs = append(errs, err)
	}
	for i, m := range st.mandatory {
		if m.GroupName == "" && m.GroupIndex < 0 {
			errs = append(errs, field.Invalid(st.path("mandatoryDecisionGroups").Index(i).Child("groupIndex"),
				m.GroupIndex, "want a group index >= 0 or a groupName"))
		}
	}
	return errs
}

// parseDeadline parses the progressDeadline v, the field name of parent:
// "" and "None" mean no deadline; anything else must be a non-negative Go
// duration ("90s", "1h30m").
func parseDeadline(v, parent, name string) (time.Duration, bool, error) {
	if v == "" || v == "None" {
		return 0, false, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, false, field.Invalid(field.NewPath(parent, name), v, `want "None" or a non-negative duration such as "90s" or "1h30m"`)
	}
	return d, true, nil
}

// parsePortion parses v, the int-or-percent field name of parent, as OCM's
// CRDs admit it (internal/field.ParsePortion). The path of a problem is
// made only then.
func parsePortion(v intstr.IntOrString, parent, name string) (ifield.Portion, error) {
	p, ok := ifield.ParsePortion(v)
	if !ok {
		return p, ifield.InvalidPortion(field.NewPath(parent, name), v)
	}
	return p, nil
}

// concurrency returns the Progressive window over remaining clusters:
// maxConcurrency, else the planner's default (def, parsed by Plan; nil
// when unset), else all of them.
func (st strategy) concurrency(def *ifield.Portion, remaining int) int {
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
