package e2e_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// TestOtherLifecycles: the controller takes only the ClusterManagementAddOns
// whose lifecycle annotation it is given. Beside the seed's cluster-proxy,
// annotated for it and installed as usual, three copies of cluster-proxy on
// the same Placement are left to the add-on managers they name: the seed's
// own annotation addon-manager (OCM's add-on manager), self
// (addon-framework's self-managed mode), and no annotation at all (which
// OCM v1.2.0's add-on manager takes too: addon-framework's
// utils.ManagedByAddonManager is true without the annotation). None of them
// is planned or written: each keeps its resourceVersion and has no install
// progression; its ManagedClusterAddOns that exist (on dev-cluster, which
// the Placement selects, and on edge-1, which it does not) keep theirs; none
// is created on stg-cluster or prod-cluster, none is deleted, no work is
// rendered for them, and the controller sends no request that names them.
func TestOtherLifecycles(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	o := seedHub(t, e, "30s")
	ctx, edge := context.Background(), e.ownNamespace("edge-1")
	require.NoError(t, e.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: edge}}))

	others := map[string]string{ // name -> lifecycle annotation ("": none)
		e.named("ocm-managed"):  addonv1alpha1.AddonLifecycleAddonManagerAnnotationValue,
		e.named("self-managed"): addonv1alpha1.AddonLifecycleSelfManageAnnotationValue,
		e.named("unannotated"):  "",
	}
	versions := map[string]string{} // kind/namespace/name -> resourceVersion
	for name, lifecycle := range others {
		cma, err := e.seedAddon(testhub.SeedOptions{})
		require.NoError(t, err)
		cma.Name = name
		delete(cma.Annotations, hubclient.LifecycleAnnotation)
		if lifecycle != "" {
			cma.Annotations[hubclient.LifecycleAnnotation] = lifecycle
		}
		alpha, err := testhub.AddonV1alpha1(cma)
		require.NoError(t, err)
		require.NoError(t, e.c.Create(ctx, alpha))
		versions["cma//"+name] = alpha.ResourceVersion
		for _, cluster := range []string{e.dev, edge} {
			m := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: name}}
			require.NoError(t, e.c.Create(ctx, m))
			versions["mca/"+cluster+"/"+name] = m.ResourceVersion
		}
	}

	ctl := e.controller(t)
	e.agents(t, applyTime, nil)
	e.installed(t, o, e.addonName, specHash(t, testhub.Image), 60*time.Second)
	quiet(t, ctl, 2*soak)

	for name := range others {
		var cma addonv1alpha1.ClusterManagementAddOn
		require.NoError(t, e.c.Get(ctx, types.NamespacedName{Name: name}, &cma))
		assert.Equal(t, versions["cma//"+name], cma.ResourceVersion, "ClusterManagementAddOn %s was written", name)
		assert.Empty(t, cma.Status.InstallProgressions, "%s was planned", name)

		var l addonv1alpha1.ManagedClusterAddOnList
		require.NoError(t, e.c.List(ctx, &l))
		var clusters []string
		for _, m := range l.Items {
			if m.Name != name {
				continue
			}
			clusters = append(clusters, m.Namespace)
			assert.Equal(t, versions["mca/"+m.Namespace+"/"+name], m.ResourceVersion, "%s/%s was written", m.Namespace, name)
		}
		assert.ElementsMatch(t, []string{e.dev, edge}, clusters, "%s's add-ons were created or deleted", name)
		assert.Empty(t, e.works(t, name), "a work was rendered for %s", name)
		assert.Zero(t, ctl.writes.count("/"+name), "the controller wrote %s", name)
	}
	// The add-on it takes is taken in full.
	assert.Len(t, e.works(t, e.addonName), len(o.Clusters()))
}
