package simulate_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// The seed's rollout: dev, stg and prod, one cluster each, rolled out
// ProgressivePerGroup with a 5m soak and a 15m deadline, every cluster
// taking 2m to apply the new configuration.
func ExampleRun() {
	strategy := clusterv1alpha1.RolloutStrategy{
		Type: clusterv1alpha1.ProgressivePerGroup,
		ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
			RolloutConfig: clusterv1alpha1.RolloutConfig{
				MinSuccessTime:   metav1.Duration{Duration: 5 * time.Minute},
				ProgressDeadline: "15m",
				MaxFailures:      intstr.FromInt32(0),
			},
		},
	}
	fleet := simulate.Fleet{
		Groups: []grouping.Group{
			{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
			{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
			{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
		},
		Default: simulate.Behavior{ApplyDuration: 2 * time.Minute},
	}
	r, err := simulate.Run(simulate.Options{Strategy: strategy}, fleet)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(r.Timeline())
	// Output:
	// +00:00 started group dev
	// +00:00 applied dev-cluster (dev)
	// +00:00 progressing dev-cluster (dev)
	// +02:00 succeeded dev-cluster (dev)
	// +07:00 completed group dev: 1 succeeded
	// +07:00 started group stg
	// +07:00 applied stg-cluster (stg)
	// +07:00 progressing stg-cluster (stg)
	// +09:00 succeeded stg-cluster (stg)
	// +14:00 completed group stg: 1 succeeded
	// +14:00 started group prod
	// +14:00 applied prod-cluster (prod)
	// +14:00 progressing prod-cluster (prod)
	// +16:00 succeeded prod-cluster (prod)
	// +21:00 completed group prod: 1 succeeded
	// +21:00 completed: all 3 groups complete (10 planner calls)
}

// The seed's failure story: stg-cluster stops reporting, times out after
// the 15m deadline, and the rollout halts before prod; when the cluster
// recovers, the rollout resumes once it has soaked for 5m.
func Example_recovery() {
	strategy := clusterv1alpha1.RolloutStrategy{
		Type: clusterv1alpha1.ProgressivePerGroup,
		ProgressivePerGroup: &clusterv1alpha1.RolloutProgressivePerGroup{
			RolloutConfig: clusterv1alpha1.RolloutConfig{
				MinSuccessTime:   metav1.Duration{Duration: 5 * time.Minute},
				ProgressDeadline: "15m",
			},
		},
	}
	fleet := simulate.Fleet{
		Groups: []grouping.Group{
			{GroupKey: grouping.GroupKey{Name: "dev", Index: 0}, Clusters: []string{"dev-cluster"}},
			{GroupKey: grouping.GroupKey{Name: "stg", Index: 1}, Clusters: []string{"stg-cluster"}},
			{GroupKey: grouping.GroupKey{Name: "prod", Index: 2}, Clusters: []string{"prod-cluster"}},
		},
		Default:   simulate.Behavior{ApplyDuration: 2 * time.Minute},
		Behaviors: map[string]simulate.Behavior{"stg-cluster": {Silent: true, RecoverAfter: time.Hour}},
	}
	r, err := simulate.Run(simulate.Options{Strategy: strategy}, fleet)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(r.Timeline())
	for _, g := range r.Groups {
		fmt.Printf("%s: %s - %s\n", g.Name, g.Started.Format("15:04"), g.Finished.Format("15:04"))
	}
	// Output:
	// +00:00 started group dev
	// +00:00 applied dev-cluster (dev)
	// +00:00 progressing dev-cluster (dev)
	// +02:00 succeeded dev-cluster (dev)
	// +07:00 completed group dev: 1 succeeded
	// +07:00 started group stg
	// +07:00 applied stg-cluster (stg)
	// +07:00 progressing stg-cluster (stg)
	// +22:00 timed out stg-cluster (stg): Progressing since +07:00, past the progressDeadline
	// +22:00 breach in group stg: 1 failed or timed out, maxFailures allows 0 in this group: "stg-cluster" timed out at 00:22:00
	// +1:07:00 recovered stg-cluster (stg): from Progressing
	// +1:07:00 breach cleared in group stg
	// +1:12:00 completed group stg: 1 succeeded
	// +1:12:00 started group prod
	// +1:12:00 applied prod-cluster (prod)
	// +1:12:00 progressing prod-cluster (prod)
	// +1:14:00 succeeded prod-cluster (prod)
	// +1:19:00 completed group prod: 1 succeeded
	// +1:19:00 completed: all 3 groups complete (11 planner calls)
	// dev: 00:00 - 00:07
	// stg: 00:07 - 01:12
	// prod: 01:12 - 01:19
}
