package addon

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/grouping"
	ifield "github.com/rolloutkit/rolloutkit/internal/field"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// Reasons of the Progressing condition of an install progression that
// [PlanAddon] could not plan; the condition's message says why, naming the
// field or the object. OCM's own reasons (Progressing, Completed) are
// [Progress.Condition]'s.
const (
	// ReasonInvalidRolloutStrategy: the placement's rolloutStrategy does
	// not validate (rollout.Validate); the message lists every problem
	// with its path from the ClusterManagementAddOn's root.
	ReasonInvalidRolloutStrategy = "InvalidRolloutStrategy"
	// ReasonPlacementNotFound: the hub has no Placement by the
	// install-strategy entry's namespace and name.
	ReasonPlacementNotFound = "PlacementNotFound"
	// ReasonConfigurationError: a config the placement's add-ons run with
	// cannot be read or hashed (a ManagedProxyConfiguration that does not
	// exist, say); the message names the object.
	ReasonConfigurationError = "ConfigurationError"
	// ReasonInvalidAddons: the add-ons of the placement's clusters cannot be
	// judged (a config reference without a desiredConfig, an add-on with
	// configs of its own that cannot be hashed); the message names each.
	ReasonInvalidAddons = "InvalidAddOns"
)

// Reasons of the Configured condition that [PlanAddon] sets on an add-on,
// as OCM's add-on manager sets it.
const (
	// ReasonConfigured: the add-on has been given the configs the rollout
	// wants it to run with.
	ReasonConfigured = "ConfigurationsConfigured"
	// ReasonNotConfigured: the add-on's configs changed and the rollout has
	// not reached it yet.
	ReasonNotConfigured = "ConfigurationsNotConfigured"
)

// PlacementInput is what the hub holds for one install-strategy placement
// of a ClusterManagementAddOn.
type PlacementInput struct {
	// Placement is the Placement the entry names; nil when the hub has
	// none. Its clustersPerDecisionGroup is Progressive's default window
	// ([DefaultConcurrency]).
	Placement *clusterv1beta1.Placement
	// Groups are its decision groups, as its PlacementDecisions give them
	// (placement.GroupsFromDecisions).
	Groups []grouping.Group
}

// Step is what [PlanAddon] decides for one install-strategy placement, or
// for the add-ons of a Manual install strategy.
type Step struct {
	// Index is the placement's index in spec.installStrategy.placements;
	// -1 for the add-ons of a Manual install strategy.
	Index int
	// Ref names the placement; zero for a Manual install strategy.
	Ref addonv1beta1.PlacementRef
	// Groups are the decision groups of the clusters the placement owns
	// ([LastPlacementWins]); a group whose clusters all belong to a later
	// placement stays, empty, so that indices keep their meaning.
	Groups []grouping.Group
	// Addons are the placement's add-ons, evaluated ([Evaluate]), sorted by
	// cluster.
	Addons []Cluster
	// Result is the planner's plan for them.
	Result rollout.Result
	// Writes are the add-ons whose status changes, sorted by cluster: only
	// those, and nothing when Err is set.
	Writes []Write
	// Progress counts the rollout as the install progression reports it.
	Progress Progress
	// Progression is the placement's status.installProgressions[] entry
	// to write (equal to the current one when nothing changed); zero for
	// a Manual install strategy, which has none.
	Progression addonv1beta1.InstallProgression
	// Err is why nothing was planned for the placement, nil when it was
	// planned. Progression's Progressing condition then says it (False,
	// reason Reason), its configs are left as they were, and Writes is
	// empty.
	Err error
	// Reason classifies Err: one of the Reason* constants of this
	// package; empty when Err is nil.
	Reason string
	// Revision is a short hash of the placement's desired configs
	// ([Revision]); empty when they could not be read.
	Revision string
	// Configs are the placement's desired configs, with their spec
	// hashes ([PlacementConfigs]); nil when they could not be read.
	Configs []Config
}

// Write is the new status of one add-on the rollout changes: its
// status.configReferences and Configured condition; every other field is
// to be kept as read.
type Write struct {
	// Cluster is the add-on's cluster, its namespace.
	Cluster string
	// ConfigReferences is the add-on's new status.configReferences
	// ([ConfigReferences]); lastAppliedConfig is carried over as read.
	ConfigReferences []addonv1beta1.ConfigReference
	// Conditions are the add-on's conditions with the new Configured
	// condition set.
	Conditions []metav1.Condition
}

// PlanAddon plans one step of the rollout of the ClusterManagementAddOn cma
// whose install strategy is Placements, as OCM's add-on manager does, for
// the controller, a dry run and an offline report alike:
//
//  1. each cluster belongs to the last placement that selects it
//     ([LastPlacementWins]); a placement whose Placement is missing selects
//     nothing;
//  2. for each placement (placements[i] is spec.installStrategy.placements[i]):
//     its rolloutStrategy is validated; its add-ons (those of mcas on its
//     clusters) are evaluated against its configs ([Evaluate]); the planner
//     plans them, with Progressive's default window from the Placement
//     ([DefaultConcurrency]);
//  3. an add-on the plan lists gets the desired configs and Configured
//     True; one that waits for new configs gets Configured False, reason
//     ConfigurationsNotConfigured; a succeeded one Configured True ([Write]);
//  4. the placement's install progression is computed
//     ([InstallProgression], [Tally]).
//
// A placement that cannot be planned gets a Step with Err set, the reason
// in its install progression's condition, and no writes; the others are
// planned.
//
// An install strategy of type Manual (or none) has no placements: its
// add-ons are those created by hand, and OCM's add-on manager configures
// them all at once with the ClusterManagementAddOn's default configs (its
// "defaults" node). PlanAddon then returns one Step, with Index -1, a zero
// Ref and no Progression (OCM writes no install progression for it): one
// group of every add-on of mcas named after cma, rolled out with the All
// strategy and no deadline; placements must be empty.
//
// Given gates (a [GatesFunc]), each placement's rollout is also held by
// the gates it returns for the placement, after the planner's own: the
// operator's controls of package hubplan plan through it. OCM has no
// such gates: a caller that wants OCM's step alone gives none.
//
// The error PlanAddon returns is only for arguments it cannot work with (a
// nil cma, an unknown install strategy type, a placements slice of another
// length than the strategy's, a nil specHash, more than one GatesFunc).
// The condition times come from the planner's clock. The inputs are not
// modified.
func PlanAddon(planner rollout.Planner, cma *addonv1beta1.ClusterManagementAddOn, placements []PlacementInput,
	mcas []*addonv1beta1.ManagedClusterAddOn, specHash SpecHashFunc, gates ...GatesFunc) ([]Step, error) {
	var held GatesFunc
	switch len(gates) {
	case 0:
	case 1:
		held = gates[0]
	default:
		return nil, fmt.Errorf("plan add-on: %d GatesFuncs: want at most one", len(gates))
	}
	return planGated(planner, cma, placements, mcas, specHash, held)
}

// GatesFunc returns the gates a placement's rollout is held by, beyond the
// planner's own: for install-strategy placement i (-1: the add-ons of a
// Manual strategy) with ref, its revision, strategy and groups.
type GatesFunc func(i int, ref addonv1beta1.PlacementRef, revision string, s clusterv1alpha1.RolloutStrategy, groups []grouping.Group) []rollout.Gate

// planGated is PlanAddon with each placement's rollout also held by the
// gates gates returns for it (nil: none).
func planGated(planner rollout.Planner, cma *addonv1beta1.ClusterManagementAddOn, placements []PlacementInput,
	mcas []*addonv1beta1.ManagedClusterAddOn, specHash SpecHashFunc, gates GatesFunc) ([]Step, error) {
	if cma == nil {
		return nil, errors.New("plan add-on: nil ClusterManagementAddOn: want an object")
	}
	if specHash == nil {
		return nil, fmt.Errorf("plan add-on %s: nil SpecHashFunc: want a spec hash lookup", cmaName(cma))
	}
	strategy := cma.Spec.InstallStrategy
	switch strategy.Type {
	case "", addonv1beta1.AddonInstallStrategyManual:
		if len(placements) > 0 {
			return nil, fmt.Errorf("plan add-on %s: %d placement inputs for a %q install strategy: want none", cmaName(cma), len(placements), strategy.Type)
		}
		return []Step{planDefaults(planner, cma, mcas, specHash, gates)}, nil
	case addonv1beta1.AddonInstallStrategyPlacements:
	default:
		return nil, fmt.Errorf("plan add-on %s: spec.installStrategy.type %q: want %q or %q", cmaName(cma), strategy.Type,
			addonv1beta1.AddonInstallStrategyPlacements, addonv1beta1.AddonInstallStrategyManual)
	}
	if len(placements) != len(strategy.Placements) {
		return nil, fmt.Errorf("plan add-on %s: %d placement inputs for %d entries of spec.installStrategy.placements: want one each",
			cmaName(cma), len(placements), len(strategy.Placements))
	}
	all := make([][]grouping.Group, len(placements))
	for i, in := range placements {
		if in.Placement != nil {
			all[i] = in.Groups
		}
	}
	owned := LastPlacementWins(all)
	byCluster := make(map[string]*addonv1beta1.ManagedClusterAddOn, len(mcas))
	for _, m := range mcas {
		if m != nil && m.Name == cma.Name {
			byCluster[m.Namespace] = m
		}
	}
	lookup := memoize(specHash)
	steps := make([]Step, len(placements))
	for i := range placements {
		steps[i] = planPlacement(planner, cma, i, placements[i].Placement, owned[i], byCluster, lookup, gates)
	}
	return steps, nil
}

// planPlacement plans install-strategy placement i over the groups it owns.
func planPlacement(planner rollout.Planner, cma *addonv1beta1.ClusterManagementAddOn, i int, p *clusterv1beta1.Placement,
	groups []grouping.Group, byCluster map[string]*addonv1beta1.ManagedClusterAddOn, specHash SpecHashFunc, gates GatesFunc) Step {
	ps := cma.Spec.InstallStrategy.Placements[i]
	step := Step{Index: i, Ref: ps.PlacementRef, Groups: groups}
	path := field.NewPath("spec", "installStrategy", "placements").Index(i)
	if err := rollout.Validate(ps.RolloutStrategy); err != nil {
		return step.refused(cma, planner.Clock, ReasonInvalidRolloutStrategy, ifield.Rooted(path.Child("rolloutStrategy"), err))
	}
	if p == nil {
		return step.refused(cma, planner.Clock, ReasonPlacementNotFound,
			fmt.Errorf("placement %q (%s) not found: nothing is rolled out for it", placementName(ps.PlacementRef), path))
	}
	desired, err := PlacementConfigs(cma, ps.PlacementRef, specHash)
	if err != nil {
		return step.refused(cma, planner.Clock, ReasonConfigurationError, err)
	}
	step.Revision, step.Configs = Revision(desired), desired
	var mcas []*addonv1beta1.ManagedClusterAddOn
	for _, g := range groups {
		for _, c := range g.Clusters {
			if m, ok := byCluster[c]; ok {
				mcas = append(mcas, m)
			}
		}
	}
	if step.Addons, err = Evaluate(cma, ps.PlacementRef, mcas, specHash); err != nil {
		return step.refused(cma, planner.Clock, ReasonInvalidAddons, err)
	}
	planner.DefaultConcurrency = DefaultConcurrency(ps.RolloutStrategy, p)
	if gates != nil {
		planner.Gates = append(slices.Clip(planner.Gates), gates(i, ps.PlacementRef, step.Revision, ps.RolloutStrategy, groups)...)
	}
	if step.Result, err = planner.Plan(ps.RolloutStrategy, groups, Statuses(step.Addons)); err != nil {
		// Validate passed and the groups come from GroupsFromDecisions
		// and LastPlacementWins: only statuses can be refused here.
		return step.refused(cma, planner.Clock, ReasonInvalidAddons, err)
	}
	now := clock.NowOf(planner.Clock)
	step.Writes = writes(byCluster, step.Addons, step.Result, now)
	step.Progress = Tally(groups, step.Addons, step.Result)
	step.Progression = InstallProgression(cma.Status.InstallProgressions, ps.PlacementRef, desired, step.Progress, planner.Clock)
	return step
}

// refused is step with nothing planned because of err: the placement's
// current install progression, its configs left as they were, with a
// Progressing condition False, reason, and err's text.
func (step Step) refused(cma *addonv1beta1.ClusterManagementAddOn, clk clock.PassiveClock, reason string, err error) Step {
	ip := addonv1beta1.InstallProgression{PlacementRef: step.Ref}
	for _, prev := range cma.Status.InstallProgressions {
		if prev.PlacementRef == step.Ref {
			ip = *prev.DeepCopy()
			break
		}
	}
	meta.SetStatusCondition(&ip.Conditions, metav1.Condition{
		Type:               addonv1beta1.ManagedClusterAddOnConditionProgressing,
		Status:             metav1.ConditionFalse,
		Reason:             reason,
		Message:            ifield.OneLine(err),
		LastTransitionTime: metav1.NewTime(clock.NowOf(clk)),
	})
	step.Progression, step.Err, step.Reason = ip, err, reason
	step.Addons, step.Writes = nil, nil
	return step
}

// Writes returns the status writes of the add-ons the plan res changes,
// as PlanAddon makes them, sorted by cluster: addons are a step's
// evaluated add-ons (sorted by cluster, as [Step.Addons]), mcas the
// ManagedClusterAddOns they were evaluated from, and res a plan of them
// (a plan under more constraints than the step's own, such as
// package hubplan's rendering rollouts): an add-on res lists gets
// the desired configs, one whose configs wait gets Configured False, a
// succeeded one Configured True. The inputs are not modified.
func Writes(mcas []*addonv1beta1.ManagedClusterAddOn, addons []Cluster, res rollout.Result, now time.Time) []Write {
	byCluster := make(map[string]*addonv1beta1.ManagedClusterAddOn, len(mcas))
	for _, m := range mcas {
		if m != nil {
			byCluster[m.Namespace] = m
		}
	}
	return writes(byCluster, addons, res, now)
}

// writes returns the status writes of the add-ons the plan res changes,
// sorted by cluster (addons is).
func writes(byCluster map[string]*addonv1beta1.ManagedClusterAddOn, addons []Cluster, res rollout.Result, now time.Time) []Write {
	listed := make(map[string]bool, len(res.ToRollout))
	for _, s := range res.ToRollout {
		listed[s.Cluster] = true
	}
	var out []Write
	for _, a := range addons {
		mca := byCluster[a.Status.Cluster]
		if mca == nil {
			continue // not an add-on given: nothing to write to
		}
		refs := mca.Status.ConfigReferences
		cond := metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionConfigured, Status: metav1.ConditionTrue,
			Reason: ReasonConfigured, Message: "Configurations configured", LastTransitionTime: metav1.NewTime(now)}
		switch {
		case listed[a.Status.Cluster]:
			refs = ConfigReferences(refs, a.Configs)
		case a.Status.Status == rollout.ToApply:
			cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, ReasonNotConfigured, "Configurations updated and not configured yet"
		case a.Status.Status != rollout.Succeeded:
			continue
		}
		conds := make([]metav1.Condition, len(mca.Status.Conditions))
		copy(conds, mca.Status.Conditions) // metav1.Condition holds no pointers
		meta.SetStatusCondition(&conds, cond)
		if equality.Semantic.DeepEqual(refs, mca.Status.ConfigReferences) && equality.Semantic.DeepEqual(conds, mca.Status.Conditions) {
			continue
		}
		if !listed[a.Status.Cluster] {
			refs = mca.Status.DeepCopy().ConfigReferences
		}
		out = append(out, Write{Cluster: a.Status.Cluster, ConfigReferences: refs, Conditions: conds})
	}
	return out
}

// planDefaults plans the add-ons of a Manual install strategy as OCM's
// add-on manager's defaults node does: the default configs, every add-on
// that has not succeeded at once.
func planDefaults(planner rollout.Planner, cma *addonv1beta1.ClusterManagementAddOn, mcas []*addonv1beta1.ManagedClusterAddOn,
	specHash SpecHashFunc, gates GatesFunc) Step {
	step := Step{Index: -1}
	byCluster := make(map[string]*addonv1beta1.ManagedClusterAddOn, len(mcas))
	group := grouping.Group{}
	var own []*addonv1beta1.ManagedClusterAddOn
	for _, m := range mcas {
		if m != nil && m.Name == cma.Name {
			if _, dup := byCluster[m.Namespace]; !dup {
				group.Clusters = append(group.Clusters, m.Namespace)
			}
			byCluster[m.Namespace] = m
			own = append(own, m)
		}
	}
	slices.Sort(group.Clusters)
	step.Groups = []grouping.Group{group}
	fail := func(reason string, err error) Step {
		step.Err, step.Reason, step.Addons = err, reason, nil
		return step
	}
	desired, err := PlacementConfigs(cma, addonv1beta1.PlacementRef{}, specHash)
	if err != nil {
		return fail(ReasonConfigurationError, err)
	}
	step.Revision, step.Configs = Revision(desired), desired
	if step.Addons, err = Evaluate(cma, addonv1beta1.PlacementRef{}, own, specHash); err != nil {
		return fail(ReasonInvalidAddons, err)
	}
	all := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All}
	if gates != nil {
		planner.Gates = append(slices.Clip(planner.Gates), gates(-1, addonv1beta1.PlacementRef{}, step.Revision, all, step.Groups)...)
	}
	if step.Result, err = planner.Plan(all, step.Groups, Statuses(step.Addons)); err != nil {
		return fail(ReasonInvalidAddons, err)
	}
	step.Writes = writes(byCluster, step.Addons, step.Result, clock.NowOf(planner.Clock))
	step.Progress = Tally(step.Groups, step.Addons, step.Result)
	return step
}

// DefaultConcurrency is the window OCM's add-on manager gives a
// Progressive strategy whose maxConcurrency is unset: the Placement's
// clustersPerDecisionGroup. Nil for another strategy type, a nil Placement
// or an unset clustersPerDecisionGroup (every remaining cluster at once).
// It is meant for rollout.Planner.DefaultConcurrency; the result shares
// nothing with p.
func DefaultConcurrency(s clusterv1alpha1.RolloutStrategy, p *clusterv1beta1.Placement) *intstr.IntOrString {
	if s.Type != clusterv1alpha1.Progressive || p == nil {
		return nil
	}
	cpg := p.Spec.DecisionStrategy.GroupStrategy.ClustersPerDecisionGroup
	if cpg == (intstr.IntOrString{}) {
		return nil
	}
	return &cpg
}
