package conformance

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// The objects of OCM's addonprogressing controller_test.go (ocm v1.2.0):
// the add-on "test" of cluster1, hosted on hosting-cluster in
// TestReconcileHostedAddons, configs of "foo" in the group "core", and
// works named addon-test-deploy.
const (
	portCluster = "cluster1"
	portHosting = "hosting-cluster"
	portAddon   = "test"
)

// portAddOn is addontesting.NewAddon (hosted: NewHostedModeAddon) of the
// test add-on, with the given conditions (in OCM's order) and config
// references.
func portAddOn(hosted bool, conds []string, refs ...addonv1alpha1.ConfigReference) *addonv1alpha1.ManagedClusterAddOn {
	mca := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: portCluster, Name: portAddon}}
	if hosted {
		mca.Annotations = map[string]string{addonv1alpha1.HostingClusterNameAnnotationKey: portHosting}
	}
	for _, t := range conds {
		mca.Status.Conditions = append(mca.Status.Conditions, metav1.Condition{
			Type: t, Status: metav1.ConditionTrue, Reason: addonv1alpha1.AddonManifestAppliedReasonManifestsApplied,
			Message: "manifests of addon are applied successfully",
		})
	}
	mca.Status.ConfigReferences = refs
	return mca
}

// portRef is a reference to foo.core open-cluster-management/name desiring
// hash, last applied with the hash applied.
func portRef(name, desired, applied string) addonv1alpha1.ConfigReference {
	referent := addonv1alpha1.ConfigReferent{Namespace: "open-cluster-management", Name: name}
	return addonv1alpha1.ConfigReference{
		ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "core", Resource: "foo"},
		DesiredConfig:       &addonv1alpha1.ConfigSpecHash{ConfigReferent: referent, SpecHash: desired},
		LastAppliedConfig:   &addonv1alpha1.ConfigSpecHash{ConfigReferent: referent, SpecHash: applied},
	}
}

// portWork is addontesting.NewManifestWork("addon-test-deploy", ns) with
// the labels, the config-spec-hash annotation (none when ""), and
// Applied and Available conditions of the given statuses (none when "").
func portWork(ns string, labels map[string]string, annotation string, applied, available metav1.ConditionStatus) *workv1.ManifestWork {
	w := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "addon-test-deploy", Labels: labels}}
	if annotation != "" {
		w.Annotations = map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: annotation}
	}
	if applied != "" {
		w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: workv1.WorkApplied, Status: applied})
	}
	if available != "" {
		w.Status.Conditions = append(w.Status.Conditions, metav1.Condition{Type: workv1.WorkAvailable, Status: available})
	}
	return w
}

// TestProgressingPorted runs the hand-written cases of OCM v1.2.0's
// pkg/addon/controllers/addonprogressing/controller_test.go (all 22 of
// TestReconcile and TestReconcileHostedAddons), rewritten as data, through
// OCM's controller and through addon.Progressing, and asserts both against
// what each case expects: the Progressing condition's status and reason,
// and lastAppliedConfig set to the desired config on completion and left
// alone otherwise (OCM's cases check that the patch holds no
// configReferences). The two cases without an add-on expect OCM to write
// nothing; ours is given a nil add-on and must refuse it.
func TestProgressingPorted(t *testing.T) {
	t.Parallel()
	const (
		applied = addonv1alpha1.ManagedClusterAddOnManifestApplied
		hosting = addonv1alpha1.ManagedClusterAddOnHostingManifestApplied
		T, F    = metav1.ConditionTrue, metav1.ConditionFalse
	)
	own := map[string]string{addonv1alpha1.AddonLabelKey: portAddon}
	hostedOwn := map[string]string{addonv1alpha1.AddonLabelKey: portAddon, addonv1alpha1.AddonNamespaceLabelKey: portCluster}
	stale := `{"foo.core/open-cluster-management/test":"hash"}`
	current := `{"foo.core/open-cluster-management/test":"hashnew"}`
	both := `{"foo.core/open-cluster-management/test1":"hash1new","foo.core/open-cluster-management/test2":"hash2new"}`
	unsupported := func(m *addonv1alpha1.ManagedClusterAddOn) *addonv1alpha1.ManagedClusterAddOn {
		m.Spec.Configs = []addonv1alpha1.AddOnConfig{{
			ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: "config1.test", Resource: "config1"},
			ConfigReferent:      addonv1alpha1.ConfigReferent{Namespace: "cluster1", Name: "override"},
		}}
		m.Status.SupportedConfigs = []addonv1alpha1.ConfigGroupResource{{Group: "configs.test", Resource: "testconfigs"}}
		return m
	}
	cma := &addonv1alpha1.ClusterManagementAddOn{ObjectMeta: metav1.ObjectMeta{Name: portAddon}}

	tests := []struct {
		name   string
		mca    *addonv1alpha1.ManagedClusterAddOn // nil: no add-on
		noCMA  bool
		works  []*workv1.ManifestWork
		status metav1.ConditionStatus // "": OCM writes nothing
		reason string
	}{
		{name: "TestReconcile/no clustermanagementaddon", noCMA: true},
		{name: "TestReconcile/no managedClusteraddon"},
		{name: "TestReconcile/no work applied condition", mca: portAddOn(false, nil), status: F, reason: "WaitingForManifestApplied"},
		{name: "TestReconcile/update managedclusteraddon to installing when no work", mca: portAddOn(false, []string{applied}), status: T, reason: "Progressing"},
		{
			name:  "TestReconcile/update managedclusteraddon to installing when work config spec not match",
			mca:   portAddOn(false, []string{applied}, portRef("test1", "hash1new", ""), portRef("test2", "hash2new", "")),
			works: []*workv1.ManifestWork{portWork(portCluster, own, stale, T, T)}, status: T, reason: "Progressing",
		},
		{
			name:  "TestReconcile/update managedclusteraddon to installing when work is not ready",
			mca:   portAddOn(false, []string{applied}, portRef("test", "hashnew", "")),
			works: []*workv1.ManifestWork{portWork(portCluster, own, current, F, T)}, status: T, reason: "Progressing",
		},
		{
			name:  "TestReconcile/update managedclusteraddon to uprading when work config spec not match",
			mca:   portAddOn(false, []string{applied}, portRef("test1", "hash1new", "hash"), portRef("test2", "hash2new", "hash")),
			works: []*workv1.ManifestWork{portWork(portCluster, own, stale, T, T)}, status: T, reason: "Progressing",
		},
		{
			name:  "TestReconcile/update managedclusteraddon to uprading when work is not ready",
			mca:   portAddOn(false, []string{applied}, portRef("test", "hashnew", "hash")),
			works: []*workv1.ManifestWork{portWork(portCluster, own, current, T, F)}, status: T, reason: "Progressing",
		},
		{
			name:  "TestReconcile/update managedclusteraddon to install succeed",
			mca:   portAddOn(false, []string{applied}, portRef("test1", "hash1new", ""), portRef("test2", "hash2new", "")),
			works: []*workv1.ManifestWork{portWork(portCluster, own, both, T, T)}, status: F, reason: "Completed",
		},
		{
			name:  "TestReconcile/update managedclusteraddon to upgrade succeed",
			mca:   portAddOn(false, []string{applied}, portRef("test1", "hash1new", "hash"), portRef("test2", "hash2new", "hash")),
			works: []*workv1.ManifestWork{portWork(portCluster, own, both, T, T)}, status: F, reason: "Completed",
		},
		{
			name: "TestReconcile/works for hosted and default addon in the same namespace",
			mca:  portAddOn(false, []string{applied}, portRef("test", "hashnew", "hash")),
			works: []*workv1.ManifestWork{
				portWork(portCluster, own, current, T, T),
				func() *workv1.ManifestWork {
					w := portWork(portCluster, map[string]string{addonv1alpha1.AddonLabelKey: portAddon, addonv1alpha1.AddonNamespaceLabelKey: "another-cluster"}, "", "", "")
					w.Name = "addon-test-deploy-hosting-another-cluster"
					return w
				}(),
			},
			status: F, reason: "Completed",
		},
		{
			name:   "TestReconcile/update managedclusteraddon to configuration unsupported...",
			mca:    unsupported(portAddOn(false, []string{applied})),
			status: F, reason: "ConfigurationUnsupported",
		},
		{name: "TestReconcileHostedAddons/no work applied condition", mca: portAddOn(true, nil), status: F, reason: "WaitingForManifestApplied"},
		{name: "TestReconcileHostedAddons/no hosting work applied condition", mca: portAddOn(true, []string{applied}), status: F, reason: "WaitingForHostingManifestApplied"},
		{name: "TestReconcileHostedAddons/update managedclusteraddon to installing when no work", mca: portAddOn(true, []string{applied, hosting}), status: T, reason: "Progressing"},
		{
			name:  "TestReconcileHostedAddons/update managedclusteraddon to installing when work config spec not match",
			mca:   portAddOn(true, []string{applied, hosting}, portRef("test", "hashnew", "")),
			works: []*workv1.ManifestWork{portWork(portHosting, hostedOwn, stale, T, T)}, status: T, reason: "Progressing",
		},
		{
			name:  "TestReconcileHostedAddons/update managedclusteraddon to installing when work is not ready",
			mca:   portAddOn(true, []string{applied, hosting}, portRef("test", "hashnew", "")),
			works: []*workv1.ManifestWork{portWork(portHosting, hostedOwn, current, F, T)}, status: T, reason: "Progressing",
		},
		{
			name:  "TestReconcileHostedAddons/update managedclusteraddon to uprading when work config spec not match",
			mca:   portAddOn(true, []string{applied, hosting}, portRef("test", "hashnew", "hash")),
			works: []*workv1.ManifestWork{portWork(portHosting, hostedOwn, stale, T, T)}, status: T, reason: "Progressing",
		},
		{
			name:  "TestReconcileHostedAddons/update managedclusteraddon to uprading when work is not ready",
			mca:   portAddOn(true, []string{applied, hosting}, portRef("test", "hashnew", "hash")),
			works: []*workv1.ManifestWork{portWork(portHosting, hostedOwn, current, T, F)}, status: T, reason: "Progressing",
		},
		{
			name:  "TestReconcileHostedAddons/update managedclusteraddon to install succeed",
			mca:   portAddOn(true, []string{applied, hosting}, portRef("test", "hashnew", "")),
			works: []*workv1.ManifestWork{portWork(portHosting, hostedOwn, current, T, T)}, status: F, reason: "Completed",
		},
		{
			name:  "TestReconcileHostedAddons/update managedclusteraddon to upgrade succeed",
			mca:   portAddOn(true, []string{applied, hosting}, portRef("test", "hashnew", "hash")),
			works: []*workv1.ManifestWork{portWork(portHosting, hostedOwn, current, T, T)}, status: F, reason: "Completed",
		},
		{
			name:   "TestReconcileHostedAddons/update managedclusteraddon to configuration unsupported...",
			mca:    unsupported(portAddOn(true, []string{applied, hosting})),
			status: F, reason: "ConfigurationUnsupported",
		},
	}
	require.Len(t, tests, 22, "OCM v1.2.0's controller_test.go has 12 + 10 cases")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc := progressingCase{CMA: cma, MCA: tt.mca, Works: tt.works}
			if tt.noCMA {
				pc.CMA = nil
			}
			if tt.mca == nil {
				pc.MCA, pc.Absent = &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: "test", Name: "test"}}, true
			}
			theirs, ours := runOCMProgressing(pc), runOurProgressing(pc)
			if tt.mca == nil {
				require.NoError(t, theirs.Err)
				assert.False(t, theirs.Wrote, "OCM writes nothing")
				assert.EqualError(t, ours.Err, "mca: Required value: a ManagedClusterAddOn to report the progress of")
				return
			}
			input, err := betaAddon(tt.mca)
			require.NoError(t, err)
			for who, o := range map[string]progressingOutcome{"OCM": theirs, "ours": ours} {
				require.NoError(t, o.Err, who)
				assert.True(t, o.Wrote, "%s writes", who)
				c := meta.FindStatusCondition(o.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
				require.NotNil(t, c, who)
				assert.Equal(t, tt.status, c.Status, who)
				assert.Equal(t, tt.reason, c.Reason, who)
				require.Len(t, o.Status.ConfigReferences, len(input.Status.ConfigReferences), who)
				for i, r := range o.Status.ConfigReferences {
					want := input.Status.ConfigReferences[i].LastAppliedConfig
					if tt.reason == "Completed" {
						want = r.DesiredConfig
					}
					assert.Equal(t, want, r.LastAppliedConfig, "%s: configReferences[%d]", who, i)
				}
			}
			assert.Empty(t, diffProgressing(ours, theirs))
		})
	}
}
