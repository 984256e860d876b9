package hubplan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/internal/addontest"
)

// TestWorksToPublish: the works are published where a plan reads them (a
// hold, a release not done) and differ from what is published; not on a
// cluster released now (its release's write carries them), nor where the
// plan does not read them. WorksFromAddOns reads them back.
func TestWorksToPublish(t *testing.T) {
	t.Parallel()
	annotated := func(cluster string, kv ...string) *addonv1beta1.ManagedClusterAddOn {
		m := addontest.EmptyAddon(cluster)
		m.Annotations = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m.Annotations[kv[i]] = kv[i+1]
		}
		return m
	}
	value := func(v interface{ Annotation() (string, error) }) string {
		s, err := v.Annotation()
		require.NoError(t, err)
		return s
	}
	now := metav1.NewTime(addontest.PlanNow)
	hold := value(hubplan.Hold{Since: now, Works: map[string]string{deployWork: "sha256:gen1"}, Reason: hubplan.HoldRenderingHeld})
	open := value(hubplan.Release{Revision: "r1", ReleasedAt: now})
	done := value(hubplan.Release{Revision: "r1", ReleasedAt: now, DoneAt: &now})
	gen1, gen2 := worksAt(1, true), worksAt(2, false)
	mcas := []*addonv1beta1.ManagedClusterAddOn{
		annotated("held", hubplan.HoldAnnotation, hold),
		annotated("held-published", hubplan.HoldAnnotation, hold, hubplan.WorksAnnotation, value(gen2)),
		annotated("released", hubplan.ReleaseAnnotation, open, hubplan.WorksAnnotation, value(gen1)),
		annotated("done", hubplan.ReleaseAnnotation, done, hubplan.WorksAnnotation, value(gen1)),
		annotated("releasing-now"),
		annotated("untouched"),
	}
	works := map[string]hubplan.Works{"held": gen1, "held-published": gen2, "released": gen2, "done": gen2, "releasing-now": gen2, "untouched": gen2}
	got := hubplan.WorksToPublish("cluster-proxy", mcas, works, []hubplan.ReleaseWrite{{Cluster: "releasing-now"}})
	assert.Equal(t, []hubplan.WorksWrite{{Cluster: "held", Works: gen1}, {Cluster: "released", Works: gen2}}, got)

	assert.Equal(t, map[string]hubplan.Works{"held-published": gen2, "released": gen1, "done": gen1},
		hubplan.WorksFromAddOns("cluster-proxy", mcas))
	bad := annotated("bad", hubplan.WorksAnnotation, "{")
	_, ok := hubplan.PublishedWorks(bad)
	assert.False(t, ok, "an annotation that is not JSON")
}
