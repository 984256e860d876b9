// Package seed embeds the manifests of the user story in
// shared/seed/staged-addon-rollout.md (three ManagedClusters, the
// cluster-proxy Placement, the PlacementDecisions and Placement status the
// seed prints, the ClusterManagementAddOn and the ManagedProxyConfiguration)
// and decodes them strictly. Tests and examples use it so that the seed's
// own YAML is the fixture, in one place.
package seed
