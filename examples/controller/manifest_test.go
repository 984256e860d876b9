package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// TestDeploymentFlags: the arguments config/manager/manager.yaml gives the
// controller are flags it takes, and mean what the manifests rely on:
// leader election in the pod's namespace (where the leader-election Role
// is), the probes and metrics on the ports the Deployment names, the
// metrics secure, and production logs.
func TestDeploymentFlags(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("config/manager/manager.yaml")
	require.NoError(t, err)
	var d appsv1.Deployment
	require.NoError(t, yaml.UnmarshalStrict(data, &d))
	require.Len(t, d.Spec.Template.Spec.Containers, 1)
	c := d.Spec.Template.Spec.Containers[0]
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = strings.ReplaceAll(a, "$(POD_NAMESPACE)", "rolloutkit-system") // the kubelet expands it from the env
	}
	o, err := parseFlags(args, io.Discard)
	require.NoError(t, err, "%q", c.Args)
	assert.True(t, o.leaderElect)
	assert.Equal(t, "rolloutkit-system", o.leaderNS)
	assert.Equal(t, ":8081", o.probeAddr)
	assert.Equal(t, metricsEndpoint{addr: ":8443", secure: true}, o.metrics, "metrics over HTTPS behind the hub's authentication and authorization")
	assert.False(t, o.zap.Development, "production logs: JSON at info level")
	assert.True(t, o.placements, "the Deployment runs OCM's placement job too (config/rbac/placements_role.yaml), "+
		"as -placements asks: it is off by default")
	assert.True(t, o.addons)
}
