// Package realhub runs the programs of a real hub for the test modules
// that cannot import the controller's module (their Kubernetes versions
// differ): the test hub (etcd and kube-apiserver with OCM's CRDs) and the
// rolloutkit controller, built from examples/controller and run as
// processes of their own, with the waits and addresses such tests need.
//
// It is test support, not an API: its functions take a testing.TB and
// fail the test on an error.
package realhub
