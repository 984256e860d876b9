package addon_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// TestRevision: 12 hex digits of the desired configs' hash; the order they
// are listed in does not matter, any change of one does.
func TestRevision(t *testing.T) {
	t.Parallel()
	a := cfg("proxy.open-cluster-management.io", "managedproxyconfigurations", "", "cluster-proxy", "h1")
	b := cfg("addon.open-cluster-management.io", "addondeploymentconfigs", "open-cluster-management", "deploy", "h2")
	base := addon.Revision([]addon.Config{a, b})
	assert.Regexp(t, `^[0-9a-f]{12}$`, base)
	assert.Equal(t, base, addon.Revision([]addon.Config{b, a}), "order does not matter")
	for name, configs := range map[string][]addon.Config{
		"a spec hash changed": {a, cfg("addon.open-cluster-management.io", "addondeploymentconfigs", "open-cluster-management", "deploy", "h3")},
		"a config replaced":   {a, cfg("addon.open-cluster-management.io", "addondeploymentconfigs", "open-cluster-management", "other", "h2")},
		"a config removed":    {a},
		"none":                nil,
	} {
		assert.NotEqual(t, base, addon.Revision(configs), name)
	}
}
