package workgate_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/workgate"
)

// agentWork is the cluster-proxy agent's work on prod-eu-1 that runs the
// proxy with replicas, as rendered under the config spec hash spec.
func agentWork(replicas int, spec string) *workv1.ManifestWork {
	return &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "prod-eu-1", Name: "addon-cluster-proxy-deploy-0",
			Labels:      map[string]string{"open-cluster-management.io/addon-name": "cluster-proxy"},
			Annotations: map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: `{"managedproxyconfigurations.proxy.open-cluster-management.io//cluster-proxy":"` + spec + `"}`},
		},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{
			Raw: fmt.Appendf(nil, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"cluster-proxy-proxy-agent"},"spec":{"replicas":%d}}`, replicas),
		}}}}},
	}
}

// ExampleDecide holds the update of the prod case: the proxy config went
// from spec 3f9a1c… to 8c4e2a…, and the rollout has handed the new spec to
// group stg only. The add-on manager re-renders prod-eu-1's work at once,
// reading the config by name: the new content, under the old hash.
func ExampleDecide() {
	const older, newer = "3f9a1c0e5b7d2468ace13579bdf02468ace13579bdf02468ace13579bdf0a1b2",
		"8c4e2a6f1d3b5079e8c6a4f2d0b9e7c5a3f1d9b7e5c3a1f9d7b5e3c1a9f7d5b3"
	key := "managedproxyconfigurations.proxy.open-cluster-management.io//cluster-proxy"
	d := workgate.Decide(
		workgate.Request{Operation: workgate.Update, Old: agentWork(3, older), New: agentWork(5, older)},
		workgate.Cluster{
			AddOn: "cluster-proxy", Name: "prod-eu-1", Taken: true, Group: "prod",
			Desired: map[string]string{key: older},
			Current: map[string]string{key: newer},
			Waits:   "waiting for group stg: 2 of 3 clusters succeeded",
		})
	fmt.Println(d.Allowed(), d.Reason)
	fmt.Println(d.Message)
	// Output:
	// false ConfigMovedOn
	// rolloutkit work gate: the work addon-cluster-proxy-deploy-0 of add-on cluster-proxy on cluster prod-eu-1 (group prod) is held: config managedproxyconfigurations.proxy.open-cluster-management.io/cluster-proxy has moved on to spec 8c4e2a6f1d3b, which the rollout has not handed to prod-eu-1 yet (it is at 3f9a1c0e5b7d): a renderer that reads the config by name would land the newer spec here ahead of the rollout; waiting for group stg: 2 of 3 clusters succeeded
}

// Example_handover admits the same re-rendering once the rollout has
// handed prod-eu-1 the new spec: the work's annotation moves to it.
func Example_handover() {
	const older, newer = "3f9a1c0e5b7d2468ace13579bdf02468ace13579bdf02468ace13579bdf0a1b2",
		"8c4e2a6f1d3b5079e8c6a4f2d0b9e7c5a3f1d9b7e5c3a1f9d7b5e3c1a9f7d5b3"
	key := "managedproxyconfigurations.proxy.open-cluster-management.io//cluster-proxy"
	d := workgate.Decide(
		workgate.Request{Operation: workgate.Update, Old: agentWork(3, older), New: agentWork(5, newer)},
		workgate.Cluster{
			AddOn: "cluster-proxy", Name: "prod-eu-1", Taken: true, Group: "prod",
			Desired: map[string]string{key: newer},
			Current: map[string]string{key: newer},
		})
	fmt.Printf("%v %v %q\n", d.Allowed(), d.Reason, d.Message)
	// Output:
	// true HandedOver ""
}

// Example_recreate holds prod-eu-1's work when it comes back during the
// same halt: deleted (an operator cleaning up), it is created again by
// the add-on's manager from the config's newest spec, under the hash the
// rollout handed prod-eu-1. A create is judged as an update from an empty
// work, so it stays absent until the rollout reaches prod-eu-1.
func Example_recreate() {
	const older, newer = "3f9a1c0e5b7d2468ace13579bdf02468ace13579bdf02468ace13579bdf0a1b2",
		"8c4e2a6f1d3b5079e8c6a4f2d0b9e7c5a3f1d9b7e5c3a1f9d7b5e3c1a9f7d5b3"
	key := "managedproxyconfigurations.proxy.open-cluster-management.io//cluster-proxy"
	prod := workgate.Cluster{
		AddOn: "cluster-proxy", Name: "prod-eu-1", Taken: true, Group: "prod",
		Desired: map[string]string{key: older},
		Current: map[string]string{key: newer},
	}
	d := workgate.Decide(workgate.Request{Operation: workgate.Create, New: agentWork(5, older)}, prod)
	fmt.Println(d.Allowed(), d.Reason)

	// Once the rollout hands prod-eu-1 the newer spec, the manager's next
	// create carries it, and lands.
	prod.Desired = map[string]string{key: newer}
	d = workgate.Decide(workgate.Request{Operation: workgate.Create, New: agentWork(5, newer)}, prod)
	fmt.Println(d.Allowed(), d.Reason)
	// Output:
	// false ConfigMovedOn
	// true Created
}
