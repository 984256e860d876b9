// Package e2e holds the controller's end-to-end tests: each starts a real
// etcd and kube-apiserver with OCM's CRDs (internal/testhub), runs the
// controller and a fake agent against it, and asserts on the API objects it
// reads back. Without the test API server (hack/test-apiserver.sh) the tests
// skip and say so, unless ROLLOUTKIT_REQUIRE_APISERVER is set, as CI sets it.
package e2e
