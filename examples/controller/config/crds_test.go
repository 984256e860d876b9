package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rolloutkit/rolloutkit/examples/controller/config"
)

func TestCRDs(t *testing.T) {
	t.Parallel()
	crds, err := config.CRDs()
	require.NoError(t, err)
	var names []string
	for _, c := range crds {
		names = append(names, c.Name)
		assert.Equal(t, "rolloutkit.io", c.Spec.Group)
		assert.Equal(t, "Cluster", string(c.Spec.Scope))
	}
	assert.Equal(t, []string{"addonrollouts.rolloutkit.io", "rolloutapprovals.rolloutkit.io"}, names)
}
