// Package seed embeds the manifests of the user story told in
// docs/story.md (three ManagedClusters, the cluster-proxy Placement, the
// PlacementDecisions and Placement status the story shows, the
// ClusterManagementAddOn and the ManagedProxyConfiguration) and decodes
// them strictly. The tests, the example programs and the controller's test
// hub use it so that the story's own YAML is the fixture, in one place. It
// is a package of the examples, not of the library's API: the Example
// functions build their inputs inline, so that a user can copy them.
package seed
