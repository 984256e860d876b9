// Package gatehook is the controller's work gate (docs/semantics.md §7):
// [WorkGate], the validating webhook of the ManifestWorks of the add-ons
// the controller takes, [GateScope], the controller that keeps the gate's
// configuration scoped to those add-ons, and [Check], which tells the
// add-on reconciler whether the gate guards an add-on's works (the
// AddOnRollout's WorkGate condition).
//
// [WorkGate] judges creates and content changes with workgate.Decide,
// records a hold on the cluster's add-on (hubplan.HoldAnnotation) and
// sends one WorkHeld event per cluster, content and reason; it admits
// deletes, warning whoever deletes a taken add-on's work what happens to
// the one its manager creates in its place. [GateScope] keeps the gate's
// configuration scoped to the add-ons the controller takes, so that no
// other add-on's works wait for it.
package gatehook
