package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"open-cluster-management.io/addon-framework/pkg/addonmanager/controllers/agentdeploy"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// progressingScenario is one generated input; Seed and Index rebuild it
// with generateProgressing.
type progressingScenario struct {
	Seed  uint64
	Index int
	progressingCase
}

// The add-on under test lives in progCluster; a hosted one is hosted on
// progHosting (now and then on progCluster itself). Works are also put in
// progOther's namespace, and carry other add-ons' names.
const (
	progCluster = "cluster1"
	progHosting = "hosting1"
	progOther   = "cluster2"
)

var (
	progAddonNames = []string{"cluster-proxy", "cluster-proxy", "cluster-proxy", "work-manager"}
	// progGRs are config group/resources, one of the core group (a key
	// without ".group").
	progGRs = []addonv1alpha1.ConfigGroupResource{
		{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"},
		{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"},
		{Group: "", Resource: "configmaps"},
	}
	progReferents = []addonv1alpha1.ConfigReferent{
		{Namespace: "open-cluster-management", Name: "default"},
		{Namespace: progCluster, Name: "override"},
		{Name: "cluster-proxy"}, // cluster-scoped
	}
	progHashes  = []string{"h1", "h2", "h3"}
	progOldTime = metav1.NewTime(time.Date(2025, 6, 1, 9, 30, 0, 0, time.UTC))
)

// generateProgressing builds scenario index of seed: an add-on with or
// without spec.configs its status supports, ManifestApplied and (hosted)
// HostingManifestApplied conditions or not, config references with and
// without desired configs and hashes, an earlier Progressing condition or
// none; and up to five ManifestWorks of it, of other add-ons and of other
// namespaces, with matching, mismatching, missing, unparsable and
// empty-valued config-spec-hash annotations, addon-namespace labels,
// pre-delete hook names, and Applied/Available conditions true, false,
// missing or of an older generation.
func generateProgressing(seed uint64, index int) progressingScenario {
	r := rand.New(rand.NewPCG(seed^0x9a0e55, uint64(index)))
	name := progAddonNames[r.IntN(len(progAddonNames))]
	mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: progCluster, Name: name}}
	hosting := ""
	if r.IntN(4) == 0 {
		hosting = progHosting
		if r.IntN(8) == 0 {
			hosting = progCluster
		}
		mca.Annotations = map[string]string{addonv1alpha1.HostingClusterNameAnnotationKey: hosting}
	}
	genSupport(r, mca)
	genAddonConditions(r, mca, hosting != "")
	genConfigReferences(r, mca)

	sc := progressingScenario{Seed: seed, Index: index}
	sc.MCA = mca
	sc.CMA = &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for i := range r.IntN(6) {
		sc.Works = append(sc.Works, genWork(r, mca, hosting, i))
	}
	if len(sc.Works) > 0 && r.IntN(30) == 0 {
		sc.Works = slices.Insert(sc.Works, r.IntN(len(sc.Works)), nil)
	}
	return sc
}

// genSupport gives mca spec.configs and status.supportedConfigs; one in
// six spec.configs entries is unsupported.
func genSupport(r *rand.Rand, mca *addonv1alpha1.ManagedClusterAddOn) {
	for _, gr := range progGRs {
		if r.IntN(3) > 0 {
			mca.Status.SupportedConfigs = append(mca.Status.SupportedConfigs, gr)
		}
	}
	for range r.IntN(3) {
		gr := progGRs[r.IntN(len(progGRs))]
		if len(mca.Status.SupportedConfigs) > 0 && r.IntN(6) > 0 {
			gr = mca.Status.SupportedConfigs[r.IntN(len(mca.Status.SupportedConfigs))]
		}
		mca.Spec.Configs = append(mca.Spec.Configs, addonv1alpha1.AddOnConfig{ConfigGroupResource: gr, ConfigReferent: progReferents[r.IntN(len(progReferents))]})
	}
}

// genAddonConditions gives mca, in a random order, a ManifestApplied
// condition (mostly), a HostingManifestApplied one (mostly, when hosted),
// an Available one, and an earlier Progressing one (half the time).
func genAddonConditions(r *rand.Rand, mca *addonv1alpha1.ManagedClusterAddOn, hosted bool) {
	var conds []metav1.Condition
	if r.IntN(8) > 0 {
		conds = append(conds, metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnManifestApplied, Status: pickStatus(r), Reason: "AddonManifestApplied", LastTransitionTime: progOldTime})
	}
	if hosted && r.IntN(5) > 0 {
		conds = append(conds, metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnHostingManifestApplied, Status: pickStatus(r), Reason: "AddonManifestApplied", LastTransitionTime: progOldTime})
	}
	if r.IntN(3) == 0 {
		conds = append(conds, metav1.Condition{Type: "Available", Status: pickStatus(r), Reason: "ProbeAvailable", LastTransitionTime: progOldTime})
	}
	if r.IntN(2) == 0 {
		earlier := [][3]string{
			{"True", "Progressing", "progressing... work is not ready"},
			{"True", "Progressing", "progressing... mca and work configs mismatch"},
			{"True", "Progressing", "progressing... no addon works"},
			{"False", "Completed", "completed with no errors."},
			{"False", "WaitingForManifestApplied", "Waiting for ManagedClusterAddOn ManifestApplied condition"},
			{"False", "Failed", "apply failed"},
		}[r.IntN(6)]
		c := metav1.Condition{Type: addonv1alpha1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionStatus(earlier[0]),
			Reason: earlier[1], Message: earlier[2], LastTransitionTime: progOldTime}
		if r.IntN(5) == 0 {
			c.ObservedGeneration = 3
		}
		conds = append(conds, c)
	}
	r.Shuffle(len(conds), func(i, j int) { conds[i], conds[j] = conds[j], conds[i] })
	mca.Status.Conditions = conds
}

func pickStatus(r *rand.Rand) metav1.ConditionStatus {
	return []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}[r.IntN(4)]
}

// genConfigReferences gives mca 0-3 config references, one in twelve
// without a desiredConfig and one in twelve with an empty desired hash;
// lastAppliedConfig is none, the desired one or an older hash.
func genConfigReferences(r *rand.Rand, mca *addonv1alpha1.ManagedClusterAddOn) {
	for range r.IntN(4) {
		ref := addonv1alpha1.ConfigReference{ConfigGroupResource: progGRs[r.IntN(len(progGRs))], LastObservedGeneration: int64(r.IntN(3))}
		referent := progReferents[r.IntN(len(progReferents))]
		ref.ConfigReferent = referent
		switch r.IntN(12) {
		case 0: // no desiredConfig
		case 1:
			ref.DesiredConfig = &addonv1alpha1.ConfigSpecHash{ConfigReferent: referent}
		default:
			ref.DesiredConfig = &addonv1alpha1.ConfigSpecHash{ConfigReferent: referent, SpecHash: progHashes[r.IntN(len(progHashes))]}
		}
		switch r.IntN(3) {
		case 0:
		case 1:
			ref.LastAppliedConfig = ref.DesiredConfig.DeepCopy()
		default:
			ref.LastAppliedConfig = &addonv1alpha1.ConfigSpecHash{ConfigReferent: referent, SpecHash: "old"}
		}
		mca.Status.ConfigReferences = append(mca.Status.ConfigReferences, ref)
	}
}

// genWork builds the i-th work of a scenario: mostly the add-on's own in
// its namespace or (hosted) in the hosting cluster's, else another
// add-on's, another namespace's, or one with a stray addon-namespace
// label.
func genWork(r *rand.Rand, mca *addonv1alpha1.ManagedClusterAddOn, hosting string, i int) *workv1.ManifestWork {
	w := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{
		Namespace: mca.Namespace, Name: fmt.Sprintf("addon-%s-deploy-%d", mca.Name, i),
		Generation: int64(1 + r.IntN(3)),
		Labels:     map[string]string{addonv1alpha1.AddonLabelKey: mca.Name},
	}}
	switch k := r.IntN(20); {
	case k < 3 && hosting != "": // the hosting cluster's, for this add-on
		w.Namespace = hosting
		w.Name = fmt.Sprintf("addon-%s-deploy-hosting-%s-%d", mca.Name, mca.Namespace, i)
		w.Labels[addonv1alpha1.AddonNamespaceLabelKey] = mca.Namespace
	case k == 3: // another add-on's
		w.Labels[addonv1alpha1.AddonLabelKey] = "other-addon"
	case k == 4: // another cluster's
		w.Namespace = progOther
	case k == 5: // a hosted work of another cluster's add-on, here or in the hosting namespace
		w.Namespace = []string{mca.Namespace, progHosting}[r.IntN(2)]
		w.Labels[addonv1alpha1.AddonNamespaceLabelKey] = []string{progOther, "", mca.Namespace}[r.IntN(3)]
	case k == 6: // no labels
		w.Labels = nil
	}
	if r.IntN(10) == 0 { // a pre-delete hook work; a name is unique in its namespace
		w.Name = "addon-" + mca.Name + "-pre-delete"
		if w.Namespace != mca.Namespace {
			w.Name += "-hosting-" + mca.Namespace
		}
		if i > 0 {
			w.Name += fmt.Sprintf("-%d", i)
		}
	}
	genAnnotation(r, w, mca.Status.ConfigReferences)
	genWorkConditions(r, w)
	return w
}

// genAnnotation gives w a config-spec-hash annotation: mostly the one
// addon-framework would render for refs (agentdeploy.ConfigsToMap), else
// none, one with a changed, missing or extra entry, an empty value,
// unparsable text, "", "null" or "{}".
func genAnnotation(r *rand.Rand, w *workv1.ManifestWork, refs []addonv1alpha1.ConfigReference) {
	rendered := agentdeploy.ConfigsToMap(refs)
	var text string
	switch k := r.IntN(20); {
	case k < 11:
		text = mustJSON(rendered)
	case k == 11:
		return // no annotation
	case k == 12 && len(rendered) > 0: // a changed hash
		m := maps.Clone(rendered)
		key := slices.Sorted(maps.Keys(m))[r.IntN(len(m))]
		m[key] = "stale"
		text = mustJSON(m)
	case k == 13 && len(rendered) > 0: // a missing entry
		m := maps.Clone(rendered)
		delete(m, slices.Sorted(maps.Keys(m))[r.IntN(len(m))])
		text = mustJSON(m)
	case k == 14: // an extra entry
		m := maps.Clone(rendered)
		m["configmaps/"+progCluster+"/extra"] = "h1"
		text = mustJSON(m)
	case k == 15: // an empty value
		m := maps.Clone(rendered)
		m["configmaps//empty"] = ""
		text = mustJSON(m)
	case k == 16:
		text = []string{`{"a":`, `["h1"]`, `{"configmaps//x":1}`, `not json`}[r.IntN(4)]
	case k == 17:
		text = []string{"", "null", "{}"}[r.IntN(3)]
	default:
		text = mustJSON(rendered)
	}
	w.Annotations = map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: text}
}

func mustJSON(m map[string]string) string {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// genWorkConditions gives w, each in fifteen of sixteen cases, an Applied
// and an Available condition, mostly True and of w's generation.
func genWorkConditions(r *rand.Rand, w *workv1.ManifestWork) {
	for _, t := range []string{workv1.WorkApplied, workv1.WorkAvailable} {
		if r.IntN(16) == 0 {
			continue
		}
		c := metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: "Done", ObservedGeneration: w.Generation, LastTransitionTime: progOldTime}
		if r.IntN(12) == 0 {
			c.Status = metav1.ConditionFalse
		}
		if r.IntN(12) == 0 {
			c.ObservedGeneration = w.Generation - 1
		}
		w.Status.Conditions = append(w.Status.Conditions, c)
	}
}

func (sc progressingScenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "progressing scenario %d of seed %d (replay: -progressing-seed %d -progressing-scenario %d)\n", sc.Index, sc.Seed, sc.Seed, sc.Index)
	b.WriteString(sc.progressingCase.String())
	return b.String()
}

func (pc progressingCase) String() string {
	var b strings.Builder
	m := pc.MCA
	fmt.Fprintf(&b, "  add-on %s/%s annotations=%v\n", m.Namespace, m.Name, m.Annotations)
	fmt.Fprintf(&b, "    spec.configs=%v supportedConfigs=%v\n", m.Spec.Configs, m.Status.SupportedConfigs)
	for _, c := range m.Status.Conditions {
		fmt.Fprintf(&b, "    condition %s=%s %s %q gen=%d\n", c.Type, c.Status, c.Reason, c.Message, c.ObservedGeneration)
	}
	for i, r := range m.Status.ConfigReferences {
		fmt.Fprintf(&b, "    ref[%d] %s.%s desired=%s applied=%s\n", i, r.Resource, r.Group, alphaHash(r.DesiredConfig), alphaHash(r.LastAppliedConfig))
	}
	if pc.CMA != nil {
		fmt.Fprintf(&b, "  cma %s annotations=%v\n", pc.CMA.Name, pc.CMA.Annotations)
	}
	for _, w := range pc.Works {
		if w == nil {
			b.WriteString("  work <nil>\n")
			continue
		}
		fmt.Fprintf(&b, "  work %s/%s gen=%d labels=%v annotations=%v\n", w.Namespace, w.Name, w.Generation, w.Labels, w.Annotations)
		for _, c := range w.Status.Conditions {
			fmt.Fprintf(&b, "    condition %s=%s gen=%d\n", c.Type, c.Status, c.ObservedGeneration)
		}
	}
	return b.String()
}

func alphaHash(h *addonv1alpha1.ConfigSpecHash) string {
	if h == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%s/%s@%q", h.Namespace, h.Name, h.SpecHash)
}
