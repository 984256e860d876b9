package conformance

// The progressing hub: one ManagedClusterAddOn, its ClusterManagementAddOn
// and ManifestWorks, given a Progressing condition and lastAppliedConfigs
// by OCM v1.2.0's own addonprogressing controller
// (pkg/addon/controllers/addonprogressing: NewAddonProgressingController,
// its sync run once over fake clientsets and informers, with the filter
// OCM's add-on manager gives it) and by rolloutkit's addon.Progressing.
// Both results are read into one comparable form, progressingOutcome.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"
	"open-cluster-management.io/addon-framework/pkg/utils"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	fakeaddon "open-cluster-management.io/api/client/addon/clientset/versioned/fake"
	addoninformers "open-cluster-management.io/api/client/addon/informers/externalversions"
	fakework "open-cluster-management.io/api/client/work/clientset/versioned/fake"
	workinformers "open-cluster-management.io/api/client/work/informers/externalversions"
	workinformersv1 "open-cluster-management.io/api/client/work/informers/externalversions/work/v1"
	worklisters "open-cluster-management.io/api/client/work/listers/work/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"open-cluster-management.io/ocm/pkg/addon/controllers/addonprogressing"
	"open-cluster-management.io/sdk-go/pkg/basecontroller/factory"

	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// progressingNow is the time of our clock; OCM reads the real one.
var progressingNow = time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)

// progressingCase is one input: an add-on in OCM's storage version, its
// ClusterManagementAddOn, and ManifestWorks of any namespace. The order of
// Works is the order in which the OCM harness's lister returns them.
type progressingCase struct {
	CMA   *addonv1alpha1.ClusterManagementAddOn
	MCA   *addonv1alpha1.ManagedClusterAddOn
	Works []*workv1.ManifestWork
	// Absent says that MCA does not exist: OCM syncs its namespace/name,
	// and ours is given a nil add-on.
	Absent bool
}

// progressingOutcome is what one controller made of a case: the add-on's
// status in v1beta1, whose Progressing condition has its
// lastTransitionTime cleared when the controller set a new one
// (NewTime).
type progressingOutcome struct {
	Err     error
	Wrote   bool // OCM: a patch was sent; ours: the status differs from the input's
	NewTime bool // the Progressing condition got a new lastTransitionTime
	Status  addonv1beta1.ManagedClusterAddOnStatus
}

// progressing is the outcome's Progressing condition as status/reason
// "message", or <none>.
func (o progressingOutcome) progressing() conditionOutcome {
	return readCondition(o.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
}

func (o progressingOutcome) String() string {
	if o.Err != nil {
		return "error: " + o.Err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "wrote=%t Progressing=%s new-time=%t", o.Wrote, o.progressing(), o.NewTime)
	for i, r := range o.Status.ConfigReferences {
		fmt.Fprintf(&b, " ref[%d] desired=%s applied=%s", i, specHashString(r.DesiredConfig), specHashString(r.LastAppliedConfig))
	}
	return b.String()
}

func specHashString(h *addonv1beta1.ConfigSpecHash) string {
	if h == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%s/%s@%q", h.Namespace, h.Name, h.SpecHash)
}

// betaAddon is the v1beta1 form of a v1alpha1 add-on, by the api module's
// generated conversion.
func betaAddon(in *addonv1alpha1.ManagedClusterAddOn) (*addonv1beta1.ManagedClusterAddOn, error) {
	out := &addonv1beta1.ManagedClusterAddOn{}
	if err := addonv1beta1.Convert_v1alpha1_ManagedClusterAddOn_To_v1beta1_ManagedClusterAddOn(in.DeepCopy(), out, nil); err != nil {
		return nil, fmt.Errorf("converting managedclusteraddon %s/%s to v1beta1: %w", in.Namespace, in.Name, err)
	}
	return out, nil
}

// settle clears the Progressing condition's lastTransitionTime of status
// when it is not before's, and says whether it was.
func settle(status *addonv1beta1.ManagedClusterAddOnStatus, before []metav1.Condition) bool {
	c := meta.FindStatusCondition(status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
	if c == nil {
		return false
	}
	if old := meta.FindStatusCondition(before, addonv1beta1.ManagedClusterAddOnConditionProgressing); old != nil && old.LastTransitionTime.Equal(&c.LastTransitionTime) {
		return false
	}
	c.LastTransitionTime = metav1.Time{}
	return true
}

// runOurProgressing runs addon.Progressing on the case, its add-on
// converted to v1beta1.
func runOurProgressing(pc progressingCase) progressingOutcome {
	clk := testingclock.NewFakePassiveClock(progressingNow)
	if pc.Absent {
		_, err := addon.Progressing(nil, pc.Works, clk)
		return progressingOutcome{Err: err}
	}
	mca, err := betaAddon(pc.MCA)
	if err != nil {
		return progressingOutcome{Err: err}
	}
	status, err := addon.Progressing(mca, pc.Works, clk)
	if err != nil {
		return progressingOutcome{Err: err}
	}
	o := progressingOutcome{Wrote: !equality.Semantic.DeepEqual(status, mca.Status), Status: status}
	o.NewTime = settle(&o.Status, mca.Status.Conditions)
	return o
}

// runOCMProgressing runs one sync of OCM v1.2.0's addonprogressing
// controller, with the filter OCM's add-on manager gives it
// (utils.ManagedByAddonManager), on the case's objects, and reads back
// the add-on it patched.
func runOCMProgressing(pc progressingCase) progressingOutcome {
	return runOCMProgressingWith(pc, utils.ManagedByAddonManager)
}

// runOCMProgressingWith is runOCMProgressing with another filter of
// ClusterManagementAddOns.
func runOCMProgressingWith(pc progressingCase, filter factory.EventFilterFunc) progressingOutcome {
	mca := pc.MCA.DeepCopy()
	var existing []runtime.Object
	if !pc.Absent {
		existing = append(existing, mca.DeepCopy())
	}
	addonClient := fakeaddon.NewSimpleClientset(existing...)
	workClient := fakework.NewSimpleClientset()
	// The informers are not started: their stores are filled by hand, as
	// OCM's own controller_test.go does.
	addonInf := addoninformers.NewSharedInformerFactory(addonClient, 10*time.Minute)
	workInf := workinformers.NewSharedInformerFactory(workClient, 10*time.Minute)
	mcas, cmas := addonInf.Addon().V1alpha1().ManagedClusterAddOns(), addonInf.Addon().V1alpha1().ClusterManagementAddOns()
	works := workInf.Work().V1().ManifestWorks()
	for _, o := range existing {
		if err := mcas.Informer().GetStore().Add(o); err != nil {
			return progressingOutcome{Err: err}
		}
	}
	if pc.CMA != nil {
		if err := cmas.Informer().GetStore().Add(pc.CMA.DeepCopy()); err != nil {
			return progressingOutcome{Err: err}
		}
	}
	for _, w := range pc.Works {
		if w == nil {
			continue
		}
		if err := works.Informer().GetStore().Add(w.DeepCopy()); err != nil {
			return progressingOutcome{Err: err}
		}
	}

	ctrl := addonprogressing.NewAddonProgressingController(addonClient, mcas, cmas, orderedWorks{works, pc.Works}, filter)
	ctx := klog.NewContext(context.Background(), logr.Discard())
	defer ctrl.SyncContext().Queue().ShutDown() // its own queue, unused: stop its goroutines
	syncErr := ctrl.Sync(ctx, recordingSyncContext{queue: &requeueRecorder{}}, mca.Namespace+"/"+mca.Name)
	if syncErr != nil {
		return progressingOutcome{Err: syncErr}
	}
	wrote := slices.ContainsFunc(addonClient.Actions(), isPatch)
	if pc.Absent {
		return progressingOutcome{Wrote: wrote}
	}

	got, err := addonClient.AddonV1alpha1().ManagedClusterAddOns(mca.Namespace).Get(ctx, mca.Name, metav1.GetOptions{})
	if err != nil {
		return progressingOutcome{Err: err}
	}
	before, err := betaAddon(mca)
	if err != nil {
		return progressingOutcome{Err: err}
	}
	after, err := betaAddon(got)
	if err != nil {
		return progressingOutcome{Err: err}
	}
	o := progressingOutcome{Wrote: wrote, Status: after.Status}
	o.NewTime = settle(&o.Status, before.Status.Conditions)
	return o
}

func isPatch(a clienttesting.Action) bool { return a.GetVerb() == "patch" }

// orderedWorks is the ManifestWork informer handed to OCM's controller:
// the real one, whose lister returns the works of a list in the order of
// the case, not the informer's map order, so that a run is reproducible.
type orderedWorks struct {
	workinformersv1.ManifestWorkInformer
	order []*workv1.ManifestWork
}

func (o orderedWorks) Lister() worklisters.ManifestWorkLister {
	return orderedLister{o.ManifestWorkInformer.Lister(), o.order}
}

type orderedLister struct {
	worklisters.ManifestWorkLister
	order []*workv1.ManifestWork
}

func (l orderedLister) ManifestWorks(ns string) worklisters.ManifestWorkNamespaceLister {
	return orderedNamespaceLister{l.ManifestWorkLister.ManifestWorks(ns), l.order}
}

type orderedNamespaceLister struct {
	worklisters.ManifestWorkNamespaceLister
	order []*workv1.ManifestWork
}

func (l orderedNamespaceLister) List(sel labels.Selector) ([]*workv1.ManifestWork, error) {
	got, err := l.ManifestWorkNamespaceLister.List(sel)
	if err != nil {
		return nil, err
	}
	position := func(w *workv1.ManifestWork) int {
		return slices.IndexFunc(l.order, func(o *workv1.ManifestWork) bool {
			return o != nil && o.Namespace == w.Namespace && o.Name == w.Name
		})
	}
	slices.SortStableFunc(got, func(a, b *workv1.ManifestWork) int { return position(a) - position(b) })
	return got, nil
}

// diffProgressing lists how two outcomes differ.
func diffProgressing(ours, theirs progressingOutcome) []string {
	var d []string
	if (ours.Err == nil) != (theirs.Err == nil) {
		d = append(d, fmt.Sprintf("error: ours %v, OCM %v", ours.Err, theirs.Err))
		return d
	}
	if ours.progressing() != theirs.progressing() {
		d = append(d, fmt.Sprintf("Progressing: ours %s, OCM %s", ours.progressing(), theirs.progressing()))
	}
	if ours.NewTime != theirs.NewTime {
		d = append(d, fmt.Sprintf("new lastTransitionTime: ours %t, OCM %t", ours.NewTime, theirs.NewTime))
	}
	if ours.Wrote != theirs.Wrote {
		d = append(d, fmt.Sprintf("writes: ours %t, OCM %t", ours.Wrote, theirs.Wrote))
	}
	if len(ours.Status.ConfigReferences) != len(theirs.Status.ConfigReferences) {
		d = append(d, fmt.Sprintf("configReferences: ours %d, OCM %d", len(ours.Status.ConfigReferences), len(theirs.Status.ConfigReferences)))
	} else {
		for i := range ours.Status.ConfigReferences {
			a, b := ours.Status.ConfigReferences[i].LastAppliedConfig, theirs.Status.ConfigReferences[i].LastAppliedConfig
			if !equality.Semantic.DeepEqual(a, b) {
				d = append(d, fmt.Sprintf("configReferences[%d].lastAppliedConfig: ours %s, OCM %s", i, specHashString(a), specHashString(b)))
			}
		}
	}
	if len(d) == 0 && !equality.Semantic.DeepEqual(ours.Status, theirs.Status) {
		d = append(d, fmt.Sprintf("status: ours %+v, OCM %+v", ours.Status, theirs.Status))
	}
	return d
}
