// Package manifests reads the controller's install manifests
// (examples/controller/config) as the two ways a user applies them do:
// Render builds a kustomization as kubectl apply -k does, and ReadDir
// reads a directory's files as kubectl apply -f does. The tests that
// check the manifests and apply them to a test hub share it.
package manifests
