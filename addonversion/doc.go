// Package addonversion converts OCM's add-on objects, ClusterManagementAddOn
// and ManagedClusterAddOn, between the two versions a hub serves:
// v1alpha1, the version OCM's CRDs store, and v1beta1, the version the
// planner works in and `kubectl get` prints (it is the preferred version).
// Every program of the repository that converts one uses this package: the
// controller at the edge of its reconcilers (examples/controller/internal/hubclient), examples/plan for a
// v1alpha1 dump, and the test hub's conversion webhook, which serves
// v1beta1 from v1alpha1 storage as OCM's add-on manager does on a real hub.
//
// # What is converted
//
// The conversions are open-cluster-management.io/api's own generated
// functions, with what OCM's conversion webhook
// (ocm pkg/addon/webhook/v1beta1) adds around them:
//
//   - a ClusterManagementAddOn's v1alpha1 spec.supportedConfigs[] become
//     v1beta1 spec.defaultConfigs[], a supported config without a
//     defaultConfig an entry named addonv1beta1.ReservedNoDefaultConfigName,
//     and back;
//   - a ManagedClusterAddOn's v1alpha1 spec.installNamespace becomes the
//     annotation addonv1beta1.InstallNamespaceAnnotation, and back (the
//     annotation is removed again);
//   - v1beta1 names the config of a status.configReferences[] entry only in
//     its desiredConfig: converted back to v1alpha1, the entry's own name
//     is the desiredConfig's;
//   - the type of the result is set (the generated functions leave it).
//
// What OCM's webhook drops is dropped too: a v1alpha1 spec.addOnConfiguration
// and status.addOnConfiguration (deprecated), and the name beside the
// hashes of a v1alpha1 status.configReferences[] entry.
//
// # Losses
//
// [CheckReferences] finds the v1alpha1 config references whose name is not
// their desiredConfig's, or that have no desiredConfig: the conversion to
// v1beta1 loses which config they name. A reader that must not be
// silently wrong (examples/plan) refuses them; the webhook converts them
// as OCM's does.
//
// Every function leaves its argument as it was: the result shares nothing
// with it.
package addonversion
