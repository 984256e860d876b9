// Package chart tests the controller's Helm chart,
// examples/controller/charts/rolloutkit, against the kustomize config it
// sits beside, examples/controller/config:
//
//   - TestHelmMatchesKustomize renders the chart at its default values
//     with Helm's Go SDK, as helm template does, and compares it object by
//     object with kustomize build examples/controller/config/default.
//     Every difference is listed, with why, in defaultDifferences, and
//     each must still occur; anything else fails the test;
//   - TestChartValues renders it with other values (cert-manager, the
//     Prometheus objects, replicas, a PriorityClass, the taken add-ons,
//     Placements left to OCM) and checks what changes, comparing
//     cert-manager's objects with kustomize's cert-manager component;
//   - TestChartSchema shows helm refusing bad values, naming the value;
//   - TestChartOnHub applies the rendered objects to a real
//     kube-apiserver with OCM's CRDs (the test hub of examples/controller)
//     and runs the controller binary with the rendered Deployment's
//     arguments, as the chart's ServiceAccount: it becomes ready, keeps
//     its webhooks' certificate, answers admission and scopes the work
//     gate to the add-ons the chart's values take; rendered as helm
//     upgrade renders it, the gate keeps that scope, and Helm's
//     unforced server-side apply does not conflict with the controller.
//
// It is a module of its own so that Helm's dependencies never enter the
// library's go.mod or the controller's. It imports neither: the
// controller and the test hub are run as programs, built from their own
// module. TestChartOnHub needs the test API server (hack/test-apiserver.sh;
// KUBEBUILDER_ASSETS): without it the test skips, or fails when
// ROLLOUTKIT_REQUIRE_APISERVER is set, as CI sets it.
//
//	cd internal/chart && go test ./...
package chart
