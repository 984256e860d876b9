package addon_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

const (
	progCluster = "dev-cluster"
	progHosting = "hosting-cluster"
	progAddon   = "cluster-proxy"
	// progKey is the config-spec-hash key of progRef.
	progKey = "managedproxyconfigurations.proxy.open-cluster-management.io//cluster-proxy"
)

var progNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// progRef is a config reference of the seed's proxy config desiring hash h
// (no desiredConfig when h is "-").
func progRef(h string) addonv1beta1.ConfigReference {
	r := addonv1beta1.ConfigReference{ConfigGroupResource: addontest.ProxyGR()}
	if h != "-" {
		r.DesiredConfig = &addonv1beta1.ConfigSpecHash{ConfigReferent: addontest.ProxyReferent(), SpecHash: h}
	}
	return r
}

// progMCA is an add-on in progCluster with a ManifestApplied condition,
// the proxy config supported, and refs.
func progMCA(refs ...addonv1beta1.ConfigReference) *addonv1beta1.ManagedClusterAddOn {
	return &addonv1beta1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: progCluster, Name: progAddon},
		Status: addonv1beta1.ManagedClusterAddOnStatus{
			Conditions: []metav1.Condition{{
				Type: addonv1beta1.ManagedClusterAddOnManifestApplied, Status: metav1.ConditionTrue, Reason: "AddonManifestApplied",
			}},
			SupportedConfigs: []addonv1beta1.ConfigGroupResource{addontest.ProxyGR()},
			ConfigReferences: refs,
		},
	}
}

// progWork is a ready work of the add-on in progCluster whose annotation is
// annotation (none when "-").
func progWork(name, annotation string) *workv1.ManifestWork {
	w := &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: progCluster, Name: name, Generation: 2,
			Labels: map[string]string{addonv1beta1.AddonLabelKey: progAddon},
		},
		Status: workv1.ManifestWorkStatus{Conditions: []metav1.Condition{
			{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, ObservedGeneration: 2},
			{Type: workv1.WorkAvailable, Status: metav1.ConditionTrue, ObservedGeneration: 2},
		}},
	}
	if annotation != "-" {
		w.Annotations = map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: annotation}
	}
	return w
}

func TestConfigHashes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		refs []addonv1beta1.ConfigReference
		want map[string]string
	}{
		{"none", nil, map[string]string{}},
		{"namespaced, with a group", []addonv1beta1.ConfigReference{{
			ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"},
			DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Namespace: "open-cluster-management", Name: "default"}, SpecHash: "cca7df"},
		}}, map[string]string{"addondeploymentconfigs.addon.open-cluster-management.io/open-cluster-management/default": "cca7df"}},
		{"core group, cluster-scoped", []addonv1beta1.ConfigReference{{
			ConfigGroupResource: addonv1beta1.ConfigGroupResource{Resource: "configmaps"},
			DesiredConfig:       &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cm"}, SpecHash: "h"},
		}}, map[string]string{"configmaps//cm": "h"}},
		{"no desiredConfig is skipped", []addonv1beta1.ConfigReference{progRef("-"), progRef("a")}, map[string]string{progKey: "a"}},
		{"an empty hash is kept", []addonv1beta1.ConfigReference{progRef("")}, map[string]string{progKey: ""}},
		{"the later of one key wins", []addonv1beta1.ConfigReference{progRef("a"), progRef("b")}, map[string]string{progKey: "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, addon.ConfigHashes(tt.refs))
		})
	}
}

func TestProgressing(t *testing.T) {
	t.Parallel()
	hashed := `{"` + progKey + `":"h1"}`
	with := func(w *workv1.ManifestWork, edit func(*workv1.ManifestWork)) *workv1.ManifestWork {
		edit(w)
		return w
	}
	hosted := func(m *addonv1beta1.ManagedClusterAddOn, applied bool) *addonv1beta1.ManagedClusterAddOn {
		m.Annotations = map[string]string{addonv1beta1.HostingClusterNameAnnotationKey: progHosting}
		if applied {
			m.Status.Conditions = append(m.Status.Conditions, metav1.Condition{Type: addonv1beta1.ManagedClusterAddOnHostingManifestApplied, Status: metav1.ConditionTrue})
		}
		return m
	}
	hostedWork := func(ns string) *workv1.ManifestWork {
		return with(progWork("addon-cluster-proxy-deploy-hosting-dev-cluster-0", hashed), func(w *workv1.ManifestWork) {
			w.Namespace = progHosting
			w.Labels[addonv1beta1.AddonNamespaceLabelKey] = ns
		})
	}
	const (
		noWorks   = "progressing... no addon works"
		mismatch  = "progressing... mca and work configs mismatch"
		notReady  = "progressing... work is not ready"
		completed = "completed with no errors."
	)
	tests := []struct {
		name    string
		mca     *addonv1beta1.ManagedClusterAddOn
		works   []*workv1.ManifestWork
		status  metav1.ConditionStatus
		reason  string
		message string
	}{
		{
			name: "unsupported config, the first of spec.configs",
			mca: func() *addonv1beta1.ManagedClusterAddOn {
				m := progMCA(progRef("h1"))
				m.Spec.Configs = []addonv1beta1.AddOnConfig{
					{ConfigGroupResource: addontest.ProxyGR()},
					{ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "addon.open-cluster-management.io", Resource: "addondeploymentconfigs"}},
					{ConfigGroupResource: addonv1beta1.ConfigGroupResource{Resource: "configmaps"}},
				}
				return m
			}(),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", hashed)},
			status: metav1.ConditionFalse, reason: "ConfigurationUnsupported",
			message: "Configuration with gvr addon.open-cluster-management.io/addondeploymentconfigs is not supported for this addon",
		},
		{
			name: "no ManifestApplied condition",
			mca: func() *addonv1beta1.ManagedClusterAddOn {
				m := progMCA(progRef("h1"))
				m.Status.Conditions = nil
				return m
			}(),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", hashed)},
			status: metav1.ConditionFalse, reason: "WaitingForManifestApplied",
			message: "Waiting for ManagedClusterAddOn ManifestApplied condition",
		},
		{
			name: "a False ManifestApplied is still one",
			mca: func() *addonv1beta1.ManagedClusterAddOn {
				m := progMCA(progRef("h1"))
				m.Status.Conditions[0].Status = metav1.ConditionFalse
				return m
			}(),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", hashed)},
			status: metav1.ConditionFalse, reason: "Completed", message: completed,
		},
		{
			name:   "hosted without HostingManifestApplied",
			mca:    hosted(progMCA(progRef("h1")), false),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", hashed)},
			status: metav1.ConditionFalse, reason: "WaitingForHostingManifestApplied",
			message: "Waiting for ManagedClusterAddOn HostingManifestApplied condition",
		},
		{
			name:   "hosted: the hosting namespace's work counts",
			mca:    hosted(progMCA(progRef("h1")), true),
			works:  []*workv1.ManifestWork{hostedWork(progCluster)},
			status: metav1.ConditionFalse, reason: "Completed", message: completed,
		},
		{
			name: "hosted: a hosting work not ready",
			mca:  hosted(progMCA(progRef("h1")), true),
			works: []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", hashed),
				with(hostedWork(progCluster), func(w *workv1.ManifestWork) { w.Generation = 3 })},
			status: metav1.ConditionTrue, reason: "Progressing", message: notReady,
		},
		{
			name: "hosted: the cluster's works come first, a hosting work's mismatch second",
			mca:  hosted(progMCA(progRef("h1")), true),
			works: []*workv1.ManifestWork{
				with(hostedWork(progCluster), func(w *workv1.ManifestWork) { w.Annotations = nil }),
				with(progWork("addon-cluster-proxy-deploy-0", hashed), func(w *workv1.ManifestWork) { w.Generation = 3 }),
			},
			status: metav1.ConditionTrue, reason: "Progressing", message: notReady,
		},
		{
			name: "hosted: the hosting cluster is the cluster itself",
			mca: func() *addonv1beta1.ManagedClusterAddOn {
				m := hosted(progMCA(progRef("h1")), true)
				m.Annotations[addonv1beta1.HostingClusterNameAnnotationKey] = progCluster
				return m
			}(),
			works: []*workv1.ManifestWork{
				with(hostedWork(progCluster), func(w *workv1.ManifestWork) { w.Namespace = progCluster; w.Annotations = nil }),
				progWork("addon-cluster-proxy-deploy-0", hashed),
			},
			status: metav1.ConditionTrue, reason: "Progressing", message: mismatch,
		},
		{
			name:   "hosted: a hosting work of another cluster's add-on is not ours",
			mca:    hosted(progMCA(progRef("h1")), true),
			works:  []*workv1.ManifestWork{hostedWork("other-cluster")},
			status: metav1.ConditionTrue, reason: "Progressing", message: noWorks,
		},
		{
			name:   "not hosted: the hosting namespace's work is not ours",
			mca:    progMCA(progRef("h1")),
			works:  []*workv1.ManifestWork{hostedWork(progCluster)},
			status: metav1.ConditionTrue, reason: "Progressing", message: noWorks,
		},
		{
			name:   "no works",
			mca:    progMCA(progRef("h1")),
			status: metav1.ConditionTrue, reason: "Progressing", message: noWorks,
		},
		{
			name: "only others' works, and nil entries",
			mca:  progMCA(progRef("h1")),
			works: []*workv1.ManifestWork{
				nil,
				with(progWork("addon-other-deploy-0", hashed), func(w *workv1.ManifestWork) { w.Labels[addonv1beta1.AddonLabelKey] = "other" }),
				with(progWork("addon-cluster-proxy-deploy-0", hashed), func(w *workv1.ManifestWork) { w.Namespace = "stg-cluster" }),
				with(progWork("unlabelled", hashed), func(w *workv1.ManifestWork) { w.Labels = nil }),
				with(progWork("empty-namespace-label", hashed), func(w *workv1.ManifestWork) { w.Labels[addonv1beta1.AddonNamespaceLabelKey] = "" }),
			},
			status: metav1.ConditionTrue, reason: "Progressing", message: noWorks,
		},
		{
			name: "only a pre-delete work: completed",
			mca:  progMCA(progRef("h1")),
			works: []*workv1.ManifestWork{with(progWork("addon-cluster-proxy-pre-delete", "{"), func(w *workv1.ManifestWork) {
				w.Status.Conditions = nil
			})},
			status: metav1.ConditionFalse, reason: "Completed", message: completed,
		},
		{
			name:   "matching and ready",
			mca:    progMCA(progRef("h1")),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", hashed), progWork("addon-cluster-proxy-deploy-1", hashed)},
			status: metav1.ConditionFalse, reason: "Completed", message: completed,
		},
		{
			name:   "another hash",
			mca:    progMCA(progRef("h2")),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", hashed)},
			status: metav1.ConditionTrue, reason: "Progressing", message: mismatch,
		},
		{
			name:   "an extra key in the annotation",
			mca:    progMCA(progRef("h1")),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", `{"`+progKey+`":"h1","configmaps//cm":"x"}`)},
			status: metav1.ConditionTrue, reason: "Progressing", message: mismatch,
		},
		{
			name:   "an empty value in the annotation",
			mca:    progMCA(),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", `{"configmaps//cm":""}`)},
			status: metav1.ConditionTrue, reason: "Progressing", message: mismatch,
		},
		{
			name:   "an empty desired hash on both sides",
			mca:    progMCA(progRef("")),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", `{"`+progKey+`":""}`)},
			status: metav1.ConditionTrue, reason: "Progressing", message: mismatch,
		},
		{
			name:   "a reference without a desiredConfig",
			mca:    progMCA(progRef("-")),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", `{}`)},
			status: metav1.ConditionTrue, reason: "Progressing", message: mismatch,
		},
		{
			name:   "an unparsable annotation",
			mca:    progMCA(),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", `not json`)},
			status: metav1.ConditionTrue, reason: "Progressing", message: mismatch,
		},
		{
			name:   "an empty annotation",
			mca:    progMCA(),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", "")},
			status: metav1.ConditionTrue, reason: "Progressing", message: mismatch,
		},
		{
			name:   "no annotation, config references",
			mca:    progMCA(progRef("h1")),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", "-")},
			status: metav1.ConditionTrue, reason: "Progressing", message: mismatch,
		},
		{
			name:   "no annotation, no config references",
			mca:    progMCA(),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", "-")},
			status: metav1.ConditionFalse, reason: "Completed", message: completed,
		},
		{
			name:   "a null annotation equals no configs",
			mca:    progMCA(),
			works:  []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", "null")},
			status: metav1.ConditionFalse, reason: "Completed", message: completed,
		},
		{
			name: "Available False",
			mca:  progMCA(progRef("h1")),
			works: []*workv1.ManifestWork{with(progWork("addon-cluster-proxy-deploy-0", hashed), func(w *workv1.ManifestWork) {
				w.Status.Conditions[1].Status = metav1.ConditionFalse
			})},
			status: metav1.ConditionTrue, reason: "Progressing", message: notReady,
		},
		{
			name: "Applied missing",
			mca:  progMCA(progRef("h1")),
			works: []*workv1.ManifestWork{with(progWork("addon-cluster-proxy-deploy-0", hashed), func(w *workv1.ManifestWork) {
				w.Status.Conditions = w.Status.Conditions[1:]
			})},
			status: metav1.ConditionTrue, reason: "Progressing", message: notReady,
		},
		{
			name: "Applied of an older generation",
			mca:  progMCA(progRef("h1")),
			works: []*workv1.ManifestWork{with(progWork("addon-cluster-proxy-deploy-0", hashed), func(w *workv1.ManifestWork) {
				w.Status.Conditions[0].ObservedGeneration = 1
			})},
			status: metav1.ConditionTrue, reason: "Progressing", message: notReady,
		},
		{
			name: "a mismatch wins over a work not ready, whatever the order",
			mca:  progMCA(progRef("h1")),
			works: []*workv1.ManifestWork{
				with(progWork("addon-cluster-proxy-deploy-0", hashed), func(w *workv1.ManifestWork) { w.Status.Conditions = nil }),
				progWork("addon-cluster-proxy-deploy-1", "-"),
			},
			status: metav1.ConditionTrue, reason: "Progressing", message: mismatch,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := addon.Progressing(tt.mca, tt.works, fake.New(progNow))
			require.NoError(t, err)
			cond := findCondition(got.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
			require.NotNil(t, cond)
			assert.Equal(t, tt.status, cond.Status)
			assert.Equal(t, tt.reason, cond.Reason)
			assert.Equal(t, tt.message, cond.Message)
			assert.Equal(t, progNow, cond.LastTransitionTime.Time)
			for i, r := range got.ConfigReferences {
				if tt.reason == "Completed" {
					assert.Equal(t, r.DesiredConfig, r.LastAppliedConfig, "configReferences[%d]", i)
				} else {
					assert.Nil(t, r.LastAppliedConfig, "configReferences[%d]", i)
				}
			}
		})
	}
}

func findCondition(conds []metav1.Condition, t string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// TestProgressingCondition checks the condition's time and
// observedGeneration as meta.SetStatusCondition gives them, and what is
// kept of the rest of the status.
func TestProgressingCondition(t *testing.T) {
	t.Parallel()
	before := progNow.Add(-time.Hour)
	tests := []struct {
		name     string
		previous *metav1.Condition
		wantTime time.Time
	}{
		{"new condition: now", nil, progNow},
		{"same status and reason: the old time", &metav1.Condition{Status: metav1.ConditionFalse, Reason: "Completed", Message: "old", ObservedGeneration: 4}, before},
		// W2: Completed starts the soak, also after another reason of the
		// same status (OCM keeps the old time there).
		{"Completed after WaitingForManifestApplied, also False: now", &metav1.Condition{Status: metav1.ConditionFalse, Reason: "WaitingForManifestApplied", ObservedGeneration: 4}, progNow},
		{"another status: now", &metav1.Condition{Status: metav1.ConditionTrue, Reason: "Completed"}, progNow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mca := progMCA(progRef("h1"))
			mca.Status.Conditions = append(mca.Status.Conditions, metav1.Condition{Type: "Available", Status: metav1.ConditionTrue, Reason: "Probe"})
			if tt.previous != nil {
				c := *tt.previous
				c.Type = addonv1beta1.ManagedClusterAddOnConditionProgressing
				c.LastTransitionTime = metav1.NewTime(before)
				mca.Status.Conditions = append(mca.Status.Conditions, c)
			}
			got, err := addon.Progressing(mca, []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", `{"`+progKey+`":"h1"}`)}, fake.New(progNow))
			require.NoError(t, err)
			require.Len(t, got.Conditions, 3)
			assert.Equal(t, mca.Status.Conditions[:2], got.Conditions[:2], "the other conditions are kept, in order")
			assert.Equal(t, metav1.Condition{
				Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse,
				Reason: "Completed", Message: "completed with no errors.", LastTransitionTime: metav1.NewTime(tt.wantTime),
			}, got.Conditions[2])
			assert.Equal(t, mca.Status.SupportedConfigs, got.SupportedConfigs)
		})
	}
}

func TestProgressingCopies(t *testing.T) {
	t.Parallel()
	mca := progMCA(progRef("h1"), progRef("-"))
	mca.Spec.Configs = []addonv1beta1.AddOnConfig{{ConfigGroupResource: addontest.ProxyGR(), ConfigReferent: addontest.ProxyReferent()}}
	// A pre-delete work only: Completed although a reference has no
	// desiredConfig, as in OCM.
	works := []*workv1.ManifestWork{progWork("addon-cluster-proxy-pre-delete", "-")}
	mcaBefore, worksBefore := mca.DeepCopy(), []*workv1.ManifestWork{works[0].DeepCopy()}

	got, err := addon.Progressing(mca, works, fake.New(progNow))
	require.NoError(t, err)
	assert.Equal(t, mcaBefore, mca, "mca is not modified")
	assert.Equal(t, worksBefore, works, "works are not modified")

	require.Len(t, got.ConfigReferences, 2)
	assert.Equal(t, got.ConfigReferences[0].DesiredConfig, got.ConfigReferences[0].LastAppliedConfig)
	assert.Nil(t, got.ConfigReferences[1].LastAppliedConfig, "a nil desiredConfig is copied as nil")
	got.ConfigReferences[0].LastAppliedConfig.SpecHash = "edited"
	got.ConfigReferences[0].DesiredConfig.SpecHash = "edited"
	got.Conditions[0].Reason = "edited"
	got.SupportedConfigs[0].Group = "edited"
	assert.Equal(t, mcaBefore, mca, "the result shares nothing with mca")
}

func TestProgressingErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mca  *addonv1beta1.ManagedClusterAddOn
		want string
	}{
		{"nil", nil, "mca: Required value: a ManagedClusterAddOn to report the progress of"},
		{"no namespace", &addonv1beta1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Name: progAddon}},
			`managedclusteraddon "cluster-proxy": metadata.namespace: Required value: the name of the managed cluster`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := addon.Progressing(tt.mca, []*workv1.ManifestWork{nil}, nil)
			require.EqualError(t, err, tt.want)
			var fe *field.Error
			assert.True(t, errors.As(err, &fe))
			assert.Equal(t, addonv1beta1.ManagedClusterAddOnStatus{}, got)
		})
	}
}

// BenchmarkProgressing judges an add-on with two config references
// against its two ready works among twenty of other add-ons, as a
// controller does for each add-on it reconciles.
func BenchmarkProgressing(b *testing.B) {
	ref := func(name, h string) addonv1beta1.ConfigReference {
		return addonv1beta1.ConfigReference{ConfigGroupResource: addontest.ProxyGR(),
			DesiredConfig: &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: name}, SpecHash: h}}
	}
	mca := progMCA(ref("a", "h1"), ref("b", "h2"))
	annotation := `{"managedproxyconfigurations.proxy.open-cluster-management.io//a":"h1","managedproxyconfigurations.proxy.open-cluster-management.io//b":"h2"}`
	works := []*workv1.ManifestWork{progWork("addon-cluster-proxy-deploy-0", annotation), progWork("addon-cluster-proxy-deploy-1", annotation)}
	for i := range 20 {
		w := progWork("addon-other-deploy-"+string(rune('a'+i)), annotation)
		w.Labels[addonv1beta1.AddonLabelKey] = "other"
		works = append(works, w)
	}
	clk := fake.New(progNow)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := addon.Progressing(mca, works, clk); err != nil {
			b.Fatal(err)
		}
	}
}
