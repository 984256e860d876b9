// Package addontest holds the seed's add-on fixtures that the tests of
// rollout/addon and hubplan share: the cluster-proxy
// ClusterManagementAddOn and its placement, its dev/stg/prod groups, and
// add-ons in a given state. It is for tests only.
package addontest
