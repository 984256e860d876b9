// Package seed embeds the manifests of the user story told in
// docs/story.md (three ManagedClusters, the cluster-proxy Placement, the
// PlacementDecisions and Placement status the story shows, the
// ClusterManagementAddOn and the ManagedProxyConfiguration) and decodes
// them strictly. The tests and the example programs use it so that the
// story's own YAML is the fixture, in one place. Being internal, it is not
// for the Example functions: those build their inputs inline, so that a
// user can copy them.
package seed
