// Package config holds the controller's install manifests, kustomize-ready
// plain YAML:
//
//   - crd/: the CustomResourceDefinitions of rolloutkit.io (generated from
//     api/v1alpha1 by hack/generate.sh), which the package embeds so that
//     the test hub and tools install exactly what ships;
//   - rbac/: the controller's ServiceAccount and least-privilege roles (the
//     add-ons, the config types it reads, the Placement scheduling that
//     -placements adds, with a read of OCM's placement controller's
//     Lease, the leader-election Lease and the Lease each replica
//     reports its version on, the work gate's serving certificate, a get
//     of the Secrets and ConfigMaps verifications name in the
//     controller's namespace), a viewer role (which may also read that
//     version Lease), and an approver role that adds only the creation of
//     RolloutApprovals;
//   - manager/: the namespace and the Deployment (two replicas under
//     leader election, both serving the work gate with a certificate the
//     controller keeps, probed, locked down), and its pods' PriorityClass
//     rolloutkit-critical, since the gate fails closed;
//   - webhook/: the work gate's ValidatingWebhookConfiguration (updates of
//     add-ons' ManifestWorks, failing closed) and its Service;
//   - default/: all of it, in the namespace its kustomization sets:
//     kubectl apply -k examples/controller/config/default;
//   - ocm-placement/: default/ for a hub where OCM's placement controller
//     runs: -placements=false (the flag's default, which the Deployment
//     overrides), and no RBAC for Placements;
//   - components/cert-manager/: a kustomize Component that hands the
//     gate's certificate to cert-manager, for a kustomization that lists
//     default/ or ocm-placement/;
//   - components/prometheus/: a kustomize Component with a Prometheus
//     Operator ServiceMonitor of the metrics and a PrometheusRule of the
//     controller's alerts (docs/alerts.md; commented out in default/).
//
// examples/controller/charts/rolloutkit is a Helm chart of the same
// objects; internal/chart's TestHelmMatchesKustomize compares the two.
//
// TestManifests checks what they promise; TestPrometheusComponent that
// the component's objects name what they scrape and alert on as the
// manifests do; TestManifestsApply applies them
// to the test hub with a server-side dry run; TestRBACLeastPrivilege
// (package e2e) runs the controller under the RBAC alone.
package config
