// Package hubclient is the controller's boundary with the hub's API
// server, below every reconciler and webhook of the controller: the scheme
// (NewScheme), the field manager every write names, the add-on API version
// the hub stores (StorageVersion) and the conversion of add-on objects
// between it and v1beta1 (AddonAPI, Snapshot), the reads the reconcilers
// share (CacheHub, ReadPlacementHub, AddonWorks) with the cache indexes
// they use, the lifecycle annotation that says which add-ons the
// controller takes (Takes), and the patches every write is made with
// (PatchStatus, PatchObject).
//
// # Versions
//
// ClusterManagementAddOns and ManagedClusterAddOns are served in v1alpha1 and
// v1beta1. The controller reads and writes the version the hub stores
// (found from the CustomResourceDefinition), so no field is lost to a missing
// conversion webhook. It converts each object to v1beta1 once, at its edge
// (a Snapshot), with addonversion (the API module's conversions, as
// OCM's conversion webhook applies them); the reconcilers
// work in v1beta1 only, and their status writes are put back onto the
// object as read, in the hub's version.
//
// # Writes
//
// Every write is a merge patch that carries the resourceVersion it was
// computed from (PatchStatus, PatchObject), so a concurrent write by anyone
// else makes it fail with a conflict and the reconcile runs again on fresh
// data; nothing is ever forced over newer data.
package hubclient
