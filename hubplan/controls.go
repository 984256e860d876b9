package hubplan

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/grouping"
	ifield "github.com/rolloutkit/rolloutkit/internal/field"
	"github.com/rolloutkit/rolloutkit/rollout"
)

// Defaults of a verification.
const (
	// DefaultCheckInterval is how often a failing check is retried when
	// its interval is unset.
	DefaultCheckInterval = 30 * time.Second
	// DefaultCheckTimeout bounds one webhook call or query when its
	// timeout is unset.
	DefaultCheckTimeout = 10 * time.Second
)

// Controls are the operator's controls over one add-on's rollout, as the
// hub holds them.
type Controls struct {
	// Rollout is the AddOnRollout named after the add-on; nil when there
	// is none, and the add-on is rolled out exactly as OCM's add-on
	// manager would. Its status holds what earlier calls decided: each
	// placement's revision and when it started, and the verifications'
	// results.
	Rollout *v1alpha1.AddOnRollout
	// Approvals are the hub's RolloutApprovals; those of other add-ons are
	// ignored.
	Approvals []*v1alpha1.RolloutApproval
	// Works are, by cluster, what the add-on's ManifestWorks say: with
	// them, a new rendering that the work gate holds is rolled out as a
	// revision of its own ([Planner.Plan]). Nil: configs only.
	Works map[string]Works
	// ReleaseSettle is how long a cluster released by a rendering
	// rollout without a held work waits for its add-on's manager to render
	// it again before it counts as done with nothing to take
	// (DefaultReleaseSettle, for a controller and its dry runs); 0: done at
	// its release.
	ReleaseSettle time.Duration
	// WorkGate says whether the work gate guards the add-on's works on
	// the hub (workgate.Guards): the status's WorkGate condition. Nil: not
	// known, and no such condition.
	WorkGate *GateCheck
	// Images gives the add-on's desired image a config names, for the
	// configs the status lists (ReadInputs reads it with ConfigImage).
	// Nil: no images.
	Images ImageFunc
	// History is the add-on's revision history ([HistoryOf]), which the
	// caller reads from the ControllerRevisions the controller keeps: with
	// it, spec.fastRollback and spec.onFailure: Rollback act. Nil: no
	// history known, and neither does.
	History []HistoryEntry
}

// GateCheck is what the hub says of the work gate, for one add-on.
type GateCheck struct {
	// Guarded reports whether every update of the add-on's works goes
	// through the gate.
	Guarded bool
	// Message says where the gate is installed, or why it does not guard
	// the works.
	Message string
}

// gateKind is what a gate of an AddOnRollout holds a group for: the
// values of GroupStatus.WaitsFor, in the order the gates are asked.
type gateKind string

const (
	gateInvalid      gateKind = "Invalid"
	gatePaused       gateKind = "Paused"
	gateApproval     gateKind = "Approval"
	gateWindow       gateKind = "Window"
	gateVerification gateKind = "Verification"
)

// controls is an AddOnRollout's spec, parsed.
type controls struct {
	paused    bool
	need      []string
	approvers v1alpha1.ApproversSpec
	windows   []rollout.Scoped
	checks    []check
}

// check is one verification, parsed, with its defaults.
type check struct {
	name     string
	groups   map[string]bool // nil: every group
	interval time.Duration
	spec     v1alpha1.Verification
}

// appliesTo reports whether the check names the group.
func (c check) appliesTo(g grouping.GroupKey) bool { return c.groups == nil || c.groups[g.Name] }

// parseControls parses the spec of ar, and checks every group name it
// gives against groups, the names of the decision groups the add-on's
// placements have. It returns every problem, each a *field.Error whose
// path starts at the object's root (spec.windows[0].timeZone). validate
// checks PromQL queries (nil: only that they are not empty).
func parseControls(ar *v1alpha1.AddOnRollout, groups map[string]bool, validate QueryValidator) (controls, error) {
	known := knownGroups(groups)
	c, errs := parseSpec(ar, validate, func(path *field.Path, list []string) []error {
		var errs []error
		for i, n := range list {
			if !groups[n] {
				errs = append(errs, field.NotSupported(path.Index(i), n, known))
			}
		}
		return errs
	})
	return c, errors.Join(errs...)
}

// parseSpec parses the spec of ar and returns every problem, in the
// order of the fields: those ValidateSpec finds, and those names finds in
// each list of group names (nil: none).
func parseSpec(ar *v1alpha1.AddOnRollout, validate QueryValidator, names func(*field.Path, []string) []error) (controls, []error) {
	spec := field.NewPath("spec")
	c := controls{paused: ar.Spec.Paused, need: ar.Spec.ApprovalRequired, approvers: ar.Spec.ApproversSpec}
	errs := approverErrors(spec, ar)
	checkNames := func(path *field.Path, list []string) {
		if names != nil {
			errs = append(errs, names(path, list)...)
		}
	}
	checkNames(spec.Child("approvalRequired"), ar.Spec.ApprovalRequired)
	for i, w := range ar.Spec.Windows {
		path := spec.Child("windows").Index(i)
		checkNames(path.Child("groups"), w.Groups)
		gate, err := rollout.WindowOf(w.Days, w.Start, w.End, w.TimeZone)
		if err != nil {
			errs = append(errs, ifield.Problems(ifield.Rooted(path, err))...)
			continue
		}
		c.windows = append(c.windows, rollout.Scoped{Groups: w.Groups, Gate: gate})
	}
	seen := make(map[string]int, len(ar.Spec.Verifications)) // name: the first verification of that name
	for i, v := range ar.Spec.Verifications {
		path := spec.Child("verifications").Index(i)
		checkNames(path.Child("groups"), v.Groups)
		ch, verrs := parseCheck(path, i, v, validate)
		errs = append(errs, verrs...)
		if first, dup := seen[ch.name]; dup {
			e := field.Duplicate(path.Child("name"), ch.name)
			e.Detail = fmt.Sprintf("want a name of its own (%s has it)", spec.Child("verifications").Index(first))
			errs = append(errs, e)
		} else {
			seen[ch.name] = i
		}
		c.checks = append(c.checks, ch)
	}
	switch ar.Spec.OnFailure {
	case "", v1alpha1.OnFailurePause, v1alpha1.OnFailureRollback:
	default:
		errs = append(errs, field.NotSupported(spec.Child("onFailure"), ar.Spec.OnFailure, []string{v1alpha1.OnFailurePause, v1alpha1.OnFailureRollback}))
	}
	if l := ar.Spec.RevisionHistoryLimit; l != nil && (*l < 1 || *l > 100) {
		errs = append(errs, field.Invalid(spec.Child("revisionHistoryLimit"), *l, "want 1 to 100"))
	}
	return c, errs
}

// parseCheck parses verification i at path, its query checked by
// validate.
func parseCheck(path *field.Path, i int, v v1alpha1.Verification, validate QueryValidator) (check, []error) {
	ch := check{name: v.Name, interval: DefaultCheckInterval, spec: *v.DeepCopy()}
	if ch.name == "" {
		ch.name = fmt.Sprintf("verifications[%d]", i)
	}
	if len(v.Groups) > 0 {
		ch.groups = make(map[string]bool, len(v.Groups))
		for _, g := range v.Groups {
			ch.groups[g] = true
		}
	}
	var errs []error
	positive := func(p *field.Path, d *metav1.Duration, def time.Duration) *metav1.Duration {
		if d == nil {
			return &metav1.Duration{Duration: def}
		}
		if d.Duration <= 0 {
			errs = append(errs, field.Invalid(p, d.Duration.String(), "want a positive duration, e.g. 30s"))
		}
		return d
	}
	ch.spec.Interval = positive(path.Child("interval"), ch.spec.Interval, DefaultCheckInterval)
	ch.interval = ch.spec.Interval.Duration
	switch {
	case v.Webhook == nil && v.Prometheus == nil:
		errs = append(errs, field.Required(path, "one of webhook and prometheus"))
	case v.Webhook != nil && v.Prometheus != nil:
		errs = append(errs, field.Forbidden(path.Child("prometheus"), "set only one of webhook and prometheus"))
	case v.Webhook != nil:
		p := path.Child("webhook")
		errs = append(errs, endpointErrors(p, "url", v.Webhook.URL, v.Webhook.HTTPClientConfig)...)
		ch.spec.Webhook.Timeout = positive(p.Child("timeout"), ch.spec.Webhook.Timeout, DefaultCheckTimeout)
	default:
		p := path.Child("prometheus")
		errs = append(errs, endpointErrors(p, "address", v.Prometheus.Address, v.Prometheus.HTTPClientConfig)...)
		errs = append(errs, basicAuthErrors(p.Child("basicAuth"), v.Prometheus.BasicAuth, v.Prometheus.BearerToken)...)
		if msg := checkPromQL(v.Prometheus.Query, validate); msg != "" {
			errs = append(errs, field.Invalid(p.Child("query"), v.Prometheus.Query, msg))
		}
		ch.spec.Prometheus.Timeout = positive(p.Child("timeout"), ch.spec.Prometheus.Timeout, DefaultCheckTimeout)
	}
	return ch, errs
}

// httpURL returns what is wrong with s as an absolute http or https URL
// with a host, or "" when nothing is.
func httpURL(s string) string {
	u, err := url.Parse(s)
	const want = "want an absolute http or https URL, e.g. http://verifier.example:8080/verify"
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return want
	}
	return ""
}

// knownGroups lists the group names, sorted, for an error message.
func knownGroups(groups map[string]bool) []string {
	out := make([]string, 0, len(groups))
	for g := range groups {
		if g != "" {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}
