package addon_test

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/clock/fake"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// FuzzProgressing feeds Progressing the text of a work's config-spec-hash
// annotation, which the add-on's manager writes and anyone with access to
// the cluster namespace can change, beside a desired spec hash and the
// work's conditions. It must not fail or panic, must not modify its
// input, must give the same answer twice, and may say Completed only when
// the annotation holds exactly the add-on's desired spec hashes.
func FuzzProgressing(f *testing.F) {
	f.Add(`{"`+progKey+`":"h1"}`, "h1", true, true, int64(2))
	f.Add(`{"`+progKey+`":"h1","configmaps//cm":"x"}`, "h1", true, true, int64(2))
	f.Add(`{"`+progKey+`":""}`, "", true, false, int64(1))
	f.Add(`null`, "-", true, true, int64(2))
	f.Add(`{}`, "h1", false, true, int64(2))
	f.Add(`["h1"]`, "h1", true, true, int64(2))
	f.Add(``, "-", true, true, int64(0))
	f.Add(`{"`+progKey+`":1}`, "1", true, true, int64(2))
	f.Fuzz(func(t *testing.T, annotation, desired string, applied, available bool, observed int64) {
		mca := progMCA(progRef(desired))
		w := progWork("addon-cluster-proxy-deploy-0", annotation)
		status := func(ok bool) metav1.ConditionStatus {
			if ok {
				return metav1.ConditionTrue
			}
			return metav1.ConditionFalse
		}
		w.Status.Conditions = []metav1.Condition{
			{Type: workv1.WorkApplied, Status: status(applied), ObservedGeneration: observed},
			{Type: workv1.WorkAvailable, Status: status(available), ObservedGeneration: observed},
		}
		mcaBefore, wBefore := mca.DeepCopy(), w.DeepCopy()
		got, err := addon.Progressing(mca, []*workv1.ManifestWork{w}, fake.New(progNow))
		if err != nil {
			t.Fatalf("Progressing: %v", err)
		}
		if !equality.Semantic.DeepEqual(mca, mcaBefore) || !equality.Semantic.DeepEqual(w, wBefore) {
			t.Fatal("Progressing modified its input")
		}
		again, err := addon.Progressing(mca, []*workv1.ManifestWork{w}, fake.New(progNow))
		if err != nil || !equality.Semantic.DeepEqual(got, again) {
			t.Fatalf("Progressing gave two answers: %v / %v (%v)", got, again, err)
		}
		c := meta.FindStatusCondition(got.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		if c == nil {
			t.Fatal("no Progressing condition")
		}
		if c.Reason != addonv1beta1.ProgressingReasonCompleted {
			return
		}
		var hashes map[string]string
		if err := json.Unmarshal([]byte(annotation), &hashes); err != nil {
			t.Fatalf("Completed from an annotation that is not a JSON object of strings: %q", annotation)
		}
		want := addon.ConfigHashes(mca.Status.ConfigReferences)
		if !equality.Semantic.DeepEqual(hashes, want) && !(len(hashes) == 0 && len(want) == 0) {
			t.Fatalf("Completed from %q, want the hashes %v", annotation, want)
		}
		for i, r := range got.ConfigReferences {
			if !equality.Semantic.DeepEqual(r.LastAppliedConfig, r.DesiredConfig) {
				t.Fatalf("Completed, but configReferences[%d].lastAppliedConfig %v is not its desiredConfig %v", i, r.LastAppliedConfig, r.DesiredConfig)
			}
		}
	})
}
