// Package progress is the controller's progress reconciler
// ([ProgressReconciler]): it does what OCM's addonprogressing controller
// does, for the add-ons of the ClusterManagementAddOns the controller
// takes: it writes each add-on's Progressing condition and, once the
// add-on's ManifestWorks carry its desired spec hashes and are applied and
// available, its lastAppliedConfigs (addon.Progressing). The add-on
// reconciler reads them back as the add-on's status, and the next group
// starts after the soak.
package progress
