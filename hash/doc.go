// Package hash computes the spec hash of an add-on configuration exactly as
// Open Cluster Management does (addon-framework utils.GetSpecHash), so that a
// hash computed here can be compared with the specHash values OCM writes into
// ClusterManagementAddOn and ManagedClusterAddOn status.
//
// # Algorithm
//
// The top-level keys apiVersion, kind, metadata and status are dropped; every
// other top-level key (usually just spec) is kept. The rest is marshalled with
// encoding/json (map keys sorted, no spaces, <, > and & escaped as \u003c,
// \u003e and \u0026), hashed with SHA-256 and written as 64 lowercase hex
// digits:
//
//	{}                          44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a
//	{"spec":{"a":"<&>","b":1}}  22390ae2b41cf58f6b5174764e6b4e2e20b4be3d5b8ef9b6d213764a8a549b61
//
// A typed object hashes the same as its unstructured form ([Object] converts
// it with runtime.DefaultUnstructuredConverter). An integer hashes the same
// whether it was decoded as int64 or as float64 (as sigs.k8s.io/yaml does),
// up to 2^53, where float64 stops being exact.
//
// # What the hash does and does not stage
//
// OCM starts an add-on rollout only when the spec hash of a referenced
// config changes. For the cluster-proxy add-on of the seed story that has two
// consequences a user must know about:
//
//   - The whole spec is hashed, including fields the hub acts on directly.
//     Changing ManagedProxyConfiguration spec.proxyServer.image changes the
//     hash, so it starts a staged rollout of the agents, while the hub's
//     proxy-server Deployment is updated at once: during the rollout the hub
//     runs the new proxy-server against old agents in later groups.
//   - Anything that is not in the referenced config's spec is not staged. A
//     new agent chart or new rendering logic in the add-on manager image,
//     with an unchanged ManagedProxyConfiguration spec, changes no hash:
//     no rollout starts and every ManifestWork may be updated at once.
//
// Edits to metadata (labels, annotations, resourceVersion) and to status
// never change the hash.
package hash
