package addon_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// ExampleProgressing follows the cluster-proxy add-on of dev-cluster while
// its agent's ManifestWork is rendered with a new spec hash of its config
// and then applied: Progressing until the work carries the new hash and is
// available for its generation, then Completed with lastAppliedConfig set.
func ExampleProgressing() {
	proxy := addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	desired := &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "new"}
	mca := &addonv1beta1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "cluster-proxy"},
		Status: addonv1beta1.ManagedClusterAddOnStatus{
			Conditions:       []metav1.Condition{{Type: "ManifestApplied", Status: metav1.ConditionTrue, Reason: "AddonManifestApplied"}},
			SupportedConfigs: []addonv1beta1.ConfigGroupResource{proxy},
			ConfigReferences: []addonv1beta1.ConfigReference{{ConfigGroupResource: proxy, DesiredConfig: desired}},
		},
	}
	hashes := addon.ConfigHashes(mca.Status.ConfigReferences)
	fmt.Println("annotation:", hashes)

	work := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{
		Namespace: "dev-cluster", Name: "addon-cluster-proxy-deploy-0", Generation: 1,
		Labels:      map[string]string{"open-cluster-management.io/addon-name": "cluster-proxy"},
		Annotations: map[string]string{"open-cluster-management.io/config-spec-hash": `{"managedproxyconfigurations.proxy.open-cluster-management.io//cluster-proxy":"old"}`},
	}}
	clk := fake.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	show := func() {
		st, err := addon.Progressing(mca, []*workv1.ManifestWork{work}, clk)
		if err != nil {
			fmt.Println(err)
			return
		}
		c := st.Conditions[len(st.Conditions)-1]
		fmt.Printf("%s %s=%s %s: %q, last applied %v\n", clk.Now().Format("15:04"),
			c.Type, c.Status, c.Reason, c.Message, st.ConfigReferences[0].LastAppliedConfig != nil)
		mca.Status = st
	}

	show() // the work still carries the old hash
	clk.Step(time.Minute)
	work.Generation = 2 // the add-on manager renders the new hash
	work.Annotations["open-cluster-management.io/config-spec-hash"] = `{"managedproxyconfigurations.proxy.open-cluster-management.io//cluster-proxy":"new"}`
	show()
	clk.Step(time.Minute)
	work.Status.Conditions = []metav1.Condition{ // the work agent applies it
		{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, ObservedGeneration: 2},
		{Type: workv1.WorkAvailable, Status: metav1.ConditionTrue, ObservedGeneration: 2},
	}
	show()
	// Output:
	// annotation: map[managedproxyconfigurations.proxy.open-cluster-management.io//cluster-proxy:new]
	// 12:00 Progressing=True Progressing: "progressing... mca and work configs mismatch", last applied false
	// 12:01 Progressing=True Progressing: "progressing... work is not ready", last applied false
	// 12:02 Progressing=False Completed: "completed with no errors.", last applied true
}

// ExamplePlanProgress follows the same add-on through a rollout, writing
// its status only when PlanProgress says so: the change from "configs
// mismatch" to "work is not ready" a few seconds later is held back, and
// Completed is written at once.
func ExamplePlanProgress() {
	proxy := addonv1beta1.ConfigGroupResource{Group: "proxy.open-cluster-management.io", Resource: "managedproxyconfigurations"}
	desired := &addonv1beta1.ConfigSpecHash{ConfigReferent: addonv1beta1.ConfigReferent{Name: "cluster-proxy"}, SpecHash: "new"}
	mca := &addonv1beta1.ManagedClusterAddOn{
		ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "cluster-proxy"},
		Status: addonv1beta1.ManagedClusterAddOnStatus{
			Conditions:       []metav1.Condition{{Type: "ManifestApplied", Status: metav1.ConditionTrue, Reason: "AddonManifestApplied"}},
			SupportedConfigs: []addonv1beta1.ConfigGroupResource{proxy},
			ConfigReferences: []addonv1beta1.ConfigReference{{ConfigGroupResource: proxy, DesiredConfig: desired}},
		},
	}
	const key = "open-cluster-management.io/config-spec-hash"
	work := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{
		Namespace: "dev-cluster", Name: "addon-cluster-proxy-deploy-0", Generation: 1,
		Labels:      map[string]string{"open-cluster-management.io/addon-name": "cluster-proxy"},
		Annotations: map[string]string{key: `{"managedproxyconfigurations.proxy.open-cluster-management.io//cluster-proxy":"old"}`},
	}}
	clk := fake.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	writes := 0
	step := func() {
		p, err := addon.PlanProgress(mca, []*workv1.ManifestWork{work}, clk)
		if err != nil {
			fmt.Println(err)
			return
		}
		c := p.Status.Conditions[len(p.Status.Conditions)-1]
		fmt.Printf("%s %q: write %t, held %t (look again in %s)\n", clk.Now().Format("15:04:05"), c.Message, p.Write, p.RecheckAfter > 0, p.RecheckAfter)
		if p.Write {
			mca.Status = p.Status
			writes++
		}
	}

	step() // the new desired config: the work carries the old hash
	clk.Step(3 * time.Second)
	work.Generation = 2 // rendered with the new hash
	work.Annotations[key] = `{"managedproxyconfigurations.proxy.open-cluster-management.io//cluster-proxy":"new"}`
	step()
	clk.Step(2 * time.Second)
	work.Status.Conditions = []metav1.Condition{ // applied
		{Type: workv1.WorkApplied, Status: metav1.ConditionTrue, ObservedGeneration: 2},
		{Type: workv1.WorkAvailable, Status: metav1.ConditionTrue, ObservedGeneration: 2},
	}
	step()
	fmt.Println("writes:", writes)
	// Output:
	// 12:00:00 "progressing... mca and work configs mismatch": write true, held false (look again in 0s)
	// 12:00:03 "progressing... work is not ready": write false, held true (look again in 27s)
	// 12:00:05 "completed with no errors.": write true, held false (look again in 0s)
	// writes: 2
}
