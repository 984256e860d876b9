package addon

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/clock"
	ifield "github.com/rolloutkit/rolloutkit/internal/field"
)

// The reasons and messages of the Progressing condition that OCM's
// addonprogressing controller writes and that it spells out in place
// rather than as constants of the API.
const (
	reasonWaitingForManifestApplied        = "WaitingForManifestApplied"
	reasonWaitingForHostingManifestApplied = "WaitingForHostingManifestApplied"

	msgWaitingForManifestApplied        = "Waiting for ManagedClusterAddOn ManifestApplied condition"
	msgWaitingForHostingManifestApplied = "Waiting for ManagedClusterAddOn HostingManifestApplied condition"
	msgNoWorks                          = "progressing... no addon works"
	msgConfigsMismatch                  = "progressing... mca and work configs mismatch"
	msgWorkNotReady                     = "progressing... work is not ready"
	msgCompleted                        = "completed with no errors."
)

// ConfigHashes returns the config-spec-hash map that addon-framework writes
// in a ManifestWork's annotation open-cluster-management.io/config-spec-hash
// (workv1.ManifestConfigSpecHashAnnotationKey) for an add-on's
// status.configReferences: the key of each reference with a desiredConfig is
// "<resource>.<group>/<namespace>/<name>" ("<resource>/<namespace>/<name>"
// for the core group, an empty namespace for a cluster-scoped config), its
// value the desiredConfig's specHash. References without a desiredConfig
// are skipped; of two references with one key the later wins, as in
// addon-framework. The map is never nil.
func ConfigHashes(refs []addonv1beta1.ConfigReference) map[string]string {
	hashes := make(map[string]string, len(refs))
	for _, r := range refs {
		if r.DesiredConfig == nil {
			continue
		}
		hashes[configHashKey(r.ConfigGroupResource, r.DesiredConfig.ConfigReferent)] = r.DesiredConfig.SpecHash
	}
	return hashes
}

// configHashKey is the key of one config in the config-spec-hash annotation.
func configHashKey(gr addonv1beta1.ConfigGroupResource, r addonv1beta1.ConfigReferent) string {
	return grName(gr) + "/" + r.Namespace + "/" + r.Name
}

// Progressing returns the status that OCM's addonprogressing controller
// (ocm v1.2.0 pkg/addon/controllers/addonprogressing) gives the
// ManagedClusterAddOn mca from works: mca's status with its Progressing
// condition set by the first rule that applies, in OCM's order:
//
//   - a spec.configs entry whose group/resource is not in
//     status.supportedConfigs: False, ConfigurationUnsupported,
//     "Configuration with gvr <group>/<resource> is not supported for this
//     addon", for the first such entry;
//   - no ManifestApplied condition (of any status): False,
//     WaitingForManifestApplied;
//   - a hosted add-on (annotation
//     addon.open-cluster-management.io/hosting-cluster-name) without a
//     HostingManifestApplied condition: False,
//     WaitingForHostingManifestApplied;
//   - none of the add-on's works: True, Progressing, "progressing... no
//     addon works";
//   - a work whose configs do not match the add-on's: True, Progressing,
//     "progressing... mca and work configs mismatch";
//   - a work that is not ready: True, Progressing, "progressing... work is
//     not ready";
//   - otherwise False, Completed, "completed with no errors.", and every
//     status.configReferences[].lastAppliedConfig set to a copy of its
//     desiredConfig (nil where that is nil).
//
// works may hold any ManifestWorks; the add-on's own are, as OCM lists
// them, those in mca's namespace labelled
// open-cluster-management.io/addon-name=<mca's name> and without the
// open-cluster-management.io/addon-namespace label, and, for a hosted
// add-on, those in the hosting cluster's namespace labelled with both the
// add-on's name and addon-namespace=<mca's namespace>. A pre-delete hook
// work (a name starting with addon-<name>-pre-delete) counts as a work of
// the add-on but is not checked, so an add-on with only pre-delete works
// is Completed. nil entries are skipped.
//
// A work matches when its config-spec-hash annotation, read as a JSON
// object of strings, has no empty value, every configReference has a
// desiredConfig with a non-empty specHash, and the two maps are equal
// (the annotation against [ConfigHashes]); a work without the annotation
// matches only an add-on without configReferences, and an annotation that
// is not such a JSON object matches nothing. A work is ready when its
// Available and Applied conditions are both True with an observedGeneration
// equal to its metadata.generation.
//
// OCM checks the works of mca's namespace, then those of the hosting
// cluster's, and stops at the first that fails. Within one namespace its
// order is its informer's, a map's, which varies: when one work there
// mismatches and another is not ready, OCM's message depends on that
// order. Progressing reports the mismatch, one of OCM's answers, every
// time.
//
// OCM never sets the reason Failed from a work: a work that fails to apply
// keeps the add-on Progressing until the rollout's deadline makes it
// TimeOut.
//
// The condition is set as meta.SetStatusCondition sets it, with an
// observedGeneration of 0 as OCM writes it and a lastTransitionTime read
// from clk (the real clock when nil) when its status changes, and also
// when it becomes Completed from another reason of the same status (such
// as WaitingForManifestApplied): the planner measures the soak from that
// time, which OCM would leave at the older reason's, skipping the soak
// (docs/compatibility.md, W2). mca and works are not modified, and the
// result shares nothing with them.
//
// A nil mca, or one without a namespace, is an apimachinery *field.Error.
func Progressing(mca *addonv1beta1.ManagedClusterAddOn, works []*workv1.ManifestWork, clk clock.PassiveClock) (addonv1beta1.ManagedClusterAddOnStatus, error) {
	if mca == nil {
		return addonv1beta1.ManagedClusterAddOnStatus{},
			field.Required(field.NewPath("mca"), "a ManagedClusterAddOn to report the progress of")
	}
	if mca.Namespace == "" {
		return addonv1beta1.ManagedClusterAddOnStatus{}, ifield.About(mcaName(mca),
			field.Required(field.NewPath("metadata", "namespace"), "the name of the managed cluster"))
	}
	status := *mca.Status.DeepCopy()
	cond := progressingFrom(mca, works)
	if cond.Reason == addonv1beta1.ProgressingReasonCompleted {
		for i := range status.ConfigReferences {
			status.ConfigReferences[i].LastAppliedConfig = status.ConfigReferences[i].DesiredConfig.DeepCopy()
		}
	}
	now := metav1.NewTime(clock.NowOf(clk))
	cond.LastTransitionTime = now
	before := meta.FindStatusCondition(mca.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
	meta.SetStatusCondition(&status.Conditions, cond)
	if cond.Reason == addonv1beta1.ProgressingReasonCompleted && before != nil && before.Reason != cond.Reason {
		// Completed starts the soak (the planner measures minSuccessTime
		// from this time), also when the condition was already False
		// for another reason, such as WaitingForManifestApplied: OCM
		// keeps that older time there, and the soak is skipped (W2).
		meta.FindStatusCondition(status.Conditions, cond.Type).LastTransitionTime = now
	}
	return status, nil
}

// progressingFrom is the Progressing condition, without a time, that the
// rules of Progressing give mca.
func progressingFrom(mca *addonv1beta1.ManagedClusterAddOn, works []*workv1.ManifestWork) metav1.Condition {
	if gr, ok := unsupportedConfig(mca); ok {
		return newProgressing(metav1.ConditionFalse, addonv1beta1.ProgressingReasonConfigurationUnsupported,
			fmt.Sprintf("Configuration with gvr %s/%s is not supported for this addon", gr.Group, gr.Resource))
	}
	if meta.FindStatusCondition(mca.Status.Conditions, addonv1beta1.ManagedClusterAddOnManifestApplied) == nil {
		return newProgressing(metav1.ConditionFalse, reasonWaitingForManifestApplied, msgWaitingForManifestApplied)
	}
	hosting := mca.Annotations[addonv1beta1.HostingClusterNameAnnotationKey]
	if hosting != "" && meta.FindStatusCondition(mca.Status.Conditions, addonv1beta1.ManagedClusterAddOnHostingManifestApplied) == nil {
		return newProgressing(metav1.ConditionFalse, reasonWaitingForHostingManifestApplied, msgWaitingForHostingManifestApplied)
	}

	// OCM lists the works of mca's namespace, then those of the hosting
	// cluster's, and reports the first work that fails.
	preDelete := "addon-" + mca.Name + "-pre-delete"
	want := newWantedHashes(mca.Status.ConfigReferences)
	var own bool
	var verdicts [2]workVerdict // of mca's namespace, of the hosting cluster's
	for _, w := range works {
		if w == nil {
			continue
		}
		list, ok := workList(mca, hosting, w)
		if !ok {
			continue
		}
		own = true
		if strings.HasPrefix(w.Name, preDelete) {
			continue
		}
		verdicts[list] = max(verdicts[list], want.verdictOf(w))
	}
	if !own {
		return newProgressing(metav1.ConditionTrue, addonv1beta1.ProgressingReasonProgressing, msgNoWorks)
	}
	for _, v := range verdicts {
		switch v {
		case workMismatch:
			return newProgressing(metav1.ConditionTrue, addonv1beta1.ProgressingReasonProgressing, msgConfigsMismatch)
		case workNotReady:
			return newProgressing(metav1.ConditionTrue, addonv1beta1.ProgressingReasonProgressing, msgWorkNotReady)
		}
	}
	return newProgressing(metav1.ConditionFalse, addonv1beta1.ProgressingReasonCompleted, msgCompleted)
}

// workVerdict is what OCM finds of one work, in the order in which
// Progressing reports it among the works of one namespace.
type workVerdict int

const (
	workReady workVerdict = iota
	workNotReady
	workMismatch
)

// wantedHashes is what a work's config-spec-hash annotation must say,
// computed once for all the works of an add-on.
type wantedHashes struct {
	refs     int               // the number of config references
	complete bool              // every reference has a desired spec hash
	hashes   map[string]string // ConfigHashes of the references
}

func newWantedHashes(refs []addonv1beta1.ConfigReference) wantedHashes {
	w := wantedHashes{refs: len(refs), complete: true}
	for _, r := range refs {
		if r.DesiredConfig == nil || r.DesiredConfig.SpecHash == "" {
			w.complete = false
		}
	}
	if w.complete {
		w.hashes = ConfigHashes(refs)
	}
	return w
}

// verdictOf checks w's configs, then its readiness.
func (want wantedHashes) verdictOf(w *workv1.ManifestWork) workVerdict {
	switch {
	case !want.matches(w):
		return workMismatch
	case !WorkReady(w):
		return workNotReady
	}
	return workReady
}

// matches reports whether w was rendered with the wanted configs, by its
// config-spec-hash annotation.
func (want wantedHashes) matches(w *workv1.ManifestWork) bool {
	annotation, ok := w.Annotations[workv1.ManifestConfigSpecHashAnnotationKey]
	if !ok {
		return want.refs == 0
	}
	var rendered map[string]string
	if err := json.Unmarshal([]byte(annotation), &rendered); err != nil {
		return false
	}
	for _, h := range rendered {
		if h == "" {
			return false
		}
	}
	if !want.complete || len(rendered) != len(want.hashes) {
		return false
	}
	for k, h := range want.hashes {
		if got, ok := rendered[k]; !ok || got != h {
			return false
		}
	}
	return true
}

// newProgressing is a Progressing condition without a time.
func newProgressing(status metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{
		Type:    addonv1beta1.ManagedClusterAddOnConditionProgressing,
		Status:  status,
		Reason:  reason,
		Message: message,
	}
}

// unsupportedConfig returns the first group/resource of mca's spec.configs
// that is not in its status.supportedConfigs.
func unsupportedConfig(mca *addonv1beta1.ManagedClusterAddOn) (addonv1beta1.ConfigGroupResource, bool) {
	if len(mca.Spec.Configs) == 0 {
		return addonv1beta1.ConfigGroupResource{}, false
	}
	supported := make(map[addonv1beta1.ConfigGroupResource]bool, len(mca.Status.SupportedConfigs))
	for _, gr := range mca.Status.SupportedConfigs {
		supported[gr] = true
	}
	for _, c := range mca.Spec.Configs {
		if !supported[c.ConfigGroupResource] {
			return c.ConfigGroupResource, true
		}
	}
	return addonv1beta1.ConfigGroupResource{}, false
}

// workList reports whether OCM's label selectors list w as a work of mca,
// and in which list: 0 for mca's namespace (without the addon-namespace
// label; a label with an empty value is still there), 1 for a hosted
// add-on's hosting cluster's namespace (with addon-namespace naming mca's
// namespace).
func workList(mca *addonv1beta1.ManagedClusterAddOn, hosting string, w *workv1.ManifestWork) (int, bool) {
	name, ok := w.Labels[addonv1beta1.AddonLabelKey]
	if !ok || name != mca.Name {
		return 0, false
	}
	ns, labelled := w.Labels[addonv1beta1.AddonNamespaceLabelKey]
	switch {
	case w.Namespace == mca.Namespace && !labelled:
		return 0, true
	case hosting != "" && w.Namespace == hosting && labelled && ns == mca.Namespace:
		return 1, true
	}
	return 0, false
}

// WorkReady reports whether w's Available and Applied conditions are both
// True for its current generation.
func WorkReady(w *workv1.ManifestWork) bool {
	for _, t := range [...]string{workv1.WorkAvailable, workv1.WorkApplied} {
		c := meta.FindStatusCondition(w.Status.Conditions, t)
		if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != w.Generation {
			return false
		}
	}
	return true
}
