package hubtest

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
)

// AddonAt is an add-on whose agent has applied the config hash applied,
// given desired, and reports Progressing (completed when the two are
// equal) since since.
func AddonAt(cluster, desired, applied string, since time.Time) *addonv1beta1.ManagedClusterAddOn {
	m := FreshAddon(cluster, SeedAddonName)
	referent := addonv1beta1.ConfigReferent{Name: "cluster-proxy"}
	m.Status.ConfigReferences = []addonv1beta1.ConfigReference{{ConfigGroupResource: ProxyGR,
		DesiredConfig:     &addonv1beta1.ConfigSpecHash{ConfigReferent: referent, SpecHash: desired},
		LastAppliedConfig: &addonv1beta1.ConfigSpecHash{ConfigReferent: referent, SpecHash: applied}}}
	progressing := metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse,
		Reason: addonv1beta1.ProgressingReasonCompleted, Message: "completed with no errors.", LastTransitionTime: metav1.NewTime(since)}
	if desired != applied {
		progressing.Status, progressing.Reason, progressing.Message = metav1.ConditionTrue, addonv1beta1.ProgressingReasonProgressing, "progressing... work is not ready"
	}
	m.Status.Conditions = []metav1.Condition{
		{Type: addonv1beta1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionTrue, Reason: "AddonManifestApplied", LastTransitionTime: metav1.NewTime(since)},
		progressing,
	}
	return m
}

// DryRunHub is a hub where the seed's add-on is half-way through a new
// config, cfg: the seed placement (ProgressivePerGroup) and a canary
// placement (All) both select stg-cluster, which the canary, the last,
// owns. dev has applied cfg and soaks, prod waits for it; on the canary,
// stg runs the old config, qa has a fresh add-on and edge is applying cfg.
// A second add-on, other-addon, is OCM's add-on manager's.
// The hub's operator controls (extra) are added to it as they are.
func DryRunHub(t *testing.T, version string, extra ...client.Object) *AddonHub {
	t.Helper()
	return DryRunHubWith(t, version, nil, extra...)
}

// DryRunHubWith is DryRunHub with its objects changed by change (nil:
// none).
func DryRunHubWith(t *testing.T, version string, change func([]client.Object) []client.Object, extra ...client.Object) *AddonHub {
	t.Helper()
	cfg := ProxyConfig(t, "cluster-proxy", "v1.0.0")
	now, old := SpecHashOf(t, cfg), SpecHashOf(t, ProxyConfig(t, "cluster-proxy", "v0.9.0"))
	other := SeedAddon(t, "addon-manager")
	other.Name, other.UID = "other-addon", "other-addon-uid"
	objs := HubObjects(
		[]client.Object{SeedAddon(t, hubclient.DefaultLifecycle, AlsoPlacing(CanaryRef, "")), other, cfg},
		SeedPlacement(t), PlacementWith(CanaryRef, "edge-cluster", "qa-cluster", "stg-cluster"),
		[]client.Object{
			AddonAt("dev-cluster", now, now, Start.Add(-2*time.Minute)),
			AddonAt("stg-cluster", old, old, Start.Add(-time.Hour)),
			AddonAt("prod-cluster", old, old, Start.Add(-time.Hour)),
			FreshAddon("qa-cluster", SeedAddonName),
			AddonAt("edge-cluster", now, old, Start.Add(-2*time.Minute)),
		}, extra)
	if change != nil {
		objs = change(objs)
	}
	return NewAddonHub(t, version, nil, objs...)
}

// WithRollouts is mapper, which the fake hubs give the config objects'
// kind only, with rolloutkit.io's kinds: a hub with the CRDs of
// examples/controller/config/crd installed.
func WithRollouts(mapper meta.RESTMapper) meta.RESTMapper {
	gv := v1alpha1.GroupVersion()
	rm := meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})
	for _, kind := range []string{"AddOnRollout", "RolloutApproval"} {
		rm.Add(gv.WithKind(kind), meta.RESTScopeRoot)
	}
	return meta.MultiRESTMapper{mapper, rm}
}

// DryRunText is what DryRun says of a hub.
type DryRunText struct {
	Addons      []string            // the add-ons planned
	Start       []string            // "clusters to start now", over every placement
	Progression map[string]string   // by placement namespace/name
	StartOf     map[string][]string // by placement namespace/name
}

var (
	addonLine     = regexp.MustCompile(`^add-on "([^"]+)" at `)
	placementLine = regexp.MustCompile(`^placement "([^"]+)", `)
	quotedName    = regexp.MustCompile(`"([^"]+)"`)
)

// ParseDryRun reads DryRun's text back. The text is for people; the test
// reads it to hold the dry run to its promise that it says what the
// controller will do.
func ParseDryRun(t *testing.T, text string) DryRunText {
	t.Helper()
	out := DryRunText{Progression: map[string]string{}, StartOf: map[string][]string{}}
	names := func(list string) []string {
		got := []string{}
		for _, m := range quotedName.FindAllStringSubmatch(list, -1) {
			got = append(got, m[1])
		}
		return got
	}
	placement := ""
	for _, line := range strings.Split(text, "\n") {
		if m := addonLine.FindStringSubmatch(line); m != nil {
			out.Addons = append(out.Addons, m[1])
		}
		if m := placementLine.FindStringSubmatch(line); m != nil {
			placement = m[1]
		}
		if s, ok := strings.CutPrefix(line, "  start now: "); ok {
			out.StartOf[placement] = names(s)
		}
		if s, ok := strings.CutPrefix(line, "  progression: "); ok {
			out.Progression[placement] = s
		}
		if s, ok := strings.CutPrefix(line, "clusters to start now: "); ok {
			out.Start = append(out.Start, names(s)...)
		}
	}
	return out
}
