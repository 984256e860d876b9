// Package e2e holds the controller's end-to-end tests against a real etcd
// and kube-apiserver with OCM's CRDs (internal/testhub): each runs the
// controller and a fake agent against a hub and asserts on the API objects
// it reads back. Most share one hub, each under names of its own
// (sharedEnv); those that stop the API server, elect leaders, run the
// garbage collector or change cluster-wide state start one of their own
// (newEnv). Without the test API server (hack/test-apiserver.sh) the tests
// skip and say so, unless ROLLOUTKIT_REQUIRE_APISERVER is set, as CI sets it.
package e2e
