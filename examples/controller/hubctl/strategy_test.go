package hubctl

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/rollout"
)

// TestUnder: an invalid strategy's problems name their fields from the
// ClusterManagementAddOn's root, each on its own, on one line.
func TestUnder(t *testing.T) {
	t.Parallel()
	path := field.NewPath("spec", "installStrategy", "placements").Index(0).Child("rolloutStrategy")
	s := clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.ProgressivePerGroup, ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
		RolloutConfig: clusterv1alpha1.RolloutConfig{ProgressDeadline: "10mfoo", MinSuccessTime: metav1.Duration{Duration: -time.Second}},
	}}
	verr := rollout.Validate(s)
	require.Error(t, verr)
	assert.Equal(t,
		`spec.installStrategy.placements[0].rolloutStrategy.progressivePerGroup.minSuccessTime: Invalid value: "-1s": want a non-negative duration; `+
			`spec.installStrategy.placements[0].rolloutStrategy.progressivePerGroup.progressDeadline: Invalid value: "10mfoo": want "None" or a non-negative duration such as "90s" or "1h30m"`,
		under(path, verr))
	assert.Equal(t, `spec.installStrategy.placements[0].rolloutStrategy: plain`, under(path, errors.New("plain")))
}
