package agent

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Options reach the Deployer and the WorkAgent that Setup registers.
func TestOptionsConfigure(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		o           Options
		wantWorkers int
	}{
		"defaults":                {Options{AddonVersion: "v1alpha1"}, DefaultWorkers},
		"applied from the writes": {Options{AddonVersion: "v1beta1", AppliedFromWrites: true, Workers: 3}, 3},
		"rendered by name":        {Options{AddonVersion: "v1alpha1", RenderByName: true, Delay: delay}, DefaultWorkers},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newClient(t)
			d := tc.o.deployer(c, mapper())
			assert.Equal(t, tc.o.AppliedFromWrites, d.AppliedFromWrites)
			assert.Equal(t, tc.o.RenderByName, d.ByName)
			assert.Equal(t, tc.o.AddonVersion, d.Version)
			assert.Equal(t, tc.wantWorkers, d.Workers)
			assert.Equal(t, []schema.GroupVersionKind{ProxyConfigKind()}, d.ConfigKinds)
			w := tc.o.workAgent(c)
			assert.Equal(t, tc.o.Delay, w.Delay)
			assert.Equal(t, tc.wantWorkers, w.Workers)
		})
	}
}
