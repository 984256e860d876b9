package agent

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
)

func TestDeployerRendersTheDesiredConfig(t *testing.T) {
	t.Parallel()
	cfg, h := proxyConfig(t, oldImage)
	c := newClient(t, cfg, mca(h))
	res, err := newDeployer(c).Reconcile(context.Background(), request(cluster, addonNm))
	require.NoError(t, err)
	assert.Equal(t, ctrl.Result{}, res)

	w, ok := getWork(t, c)
	require.True(t, ok, "no work rendered")
	assert.Equal(t, "addon-cluster-proxy-deploy-0", w.Name)
	assert.Equal(t, map[string]string{addonv1alpha1.AddonLabelKey: addonNm}, w.Labels)
	assert.Equal(t, annotation(t, map[string]string{hashKey: h}), w.Annotations[workv1.ManifestConfigSpecHashAnnotationKey])
	assert.Equal(t, h, WorkTarget(w))
	images, err := WorkImages(w)
	require.NoError(t, err)
	assert.Equal(t, []string{oldImage}, images)
	require.Len(t, w.OwnerReferences, 1)
	assert.Equal(t, "ManagedClusterAddOn", w.OwnerReferences[0].Kind)
	assert.Equal(t, addonNm, w.OwnerReferences[0].Name)
	// No Applied condition yet: no ManifestApplied condition either.
	assert.Nil(t, meta.FindStatusCondition(getMCA(t, c).Status.Conditions, addonv1beta1.ManagedClusterAddOnManifestApplied))
}

func TestDeployerUpdatesTheWorkWhenTheDesiredConfigChanges(t *testing.T) {
	t.Parallel()
	_, oldHash := proxyConfig(t, oldImage)
	cfg, newHash := proxyConfig(t, newImage)
	w, err := renderWork(cluster, addonNm, values{image: oldImage}, 1, map[string]string{hashKey: oldHash})
	require.NoError(t, err)
	c := newClient(t, cfg, mca(newHash), w)
	_, err = newDeployer(c).Reconcile(context.Background(), request(cluster, addonNm))
	require.NoError(t, err)
	got, _ := getWork(t, c)
	assert.Equal(t, newHash, WorkTarget(got))
	images, err := WorkImages(got)
	require.NoError(t, err)
	assert.Equal(t, []string{newImage}, images)
}

// A cluster still on the old config (prod, while dev takes the new one)
// keeps its work as it is, though the config object has moved on.
func TestDeployerLeavesAWorkThatMatches(t *testing.T) {
	t.Parallel()
	_, oldHash := proxyConfig(t, oldImage)
	cfg, _ := proxyConfig(t, newImage)
	w, err := renderWork(cluster, addonNm, values{image: oldImage}, 1, map[string]string{hashKey: oldHash})
	require.NoError(t, err)
	c := newClient(t, cfg, mca(oldHash), w)
	before, _ := getWork(t, c)
	res, err := newDeployer(c).Reconcile(context.Background(), request(cluster, addonNm))
	require.NoError(t, err)
	assert.Equal(t, ctrl.Result{}, res)
	after, _ := getWork(t, c)
	assert.Equal(t, before.ResourceVersion, after.ResourceVersion, "the work was written")
	images, err := WorkImages(after)
	require.NoError(t, err)
	assert.Equal(t, []string{oldImage}, images)
}

func TestDeployerWaits(t *testing.T) {
	t.Parallel()
	_, oldHash := proxyConfig(t, oldImage)
	cfg, _ := proxyConfig(t, newImage)
	for name, tc := range map[string]struct {
		mca  *addonv1alpha1.ManagedClusterAddOn
		want ctrl.Result
	}{
		"no desired config yet":                    {mca(""), ctrl.Result{}},
		"the config has moved on from the desired": {mca(oldHash), ctrl.Result{RequeueAfter: staleRetry}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newClient(t, cfg.DeepCopy(), tc.mca)
			res, err := newDeployer(c).Reconcile(context.Background(), request(cluster, addonNm))
			require.NoError(t, err)
			assert.Equal(t, tc.want, res)
			_, ok := getWork(t, c)
			assert.False(t, ok, "a work was rendered")
		})
	}
}

// A deleted deploy work is rendered again from the add-on's desired
// configs: by default only from a config object that still has the desired
// spec hash, ByName from the config's newest spec.
func TestDeployerRendersADeletedWorkAgain(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		byName    bool
		movedOn   bool   // the config object has a newer spec than the desired one
		wantImage string // "": no work
		wantRes   ctrl.Result
	}{
		"the config has the desired spec":                   {false, false, oldImage, ctrl.Result{}},
		"the config has moved on: not under the old hash":   {false, true, "", ctrl.Result{RequeueAfter: staleRetry}},
		"by name, the config has the desired spec":          {true, false, oldImage, ctrl.Result{}},
		"by name, the config has moved on: its newest spec": {true, true, newImage, ctrl.Result{}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			cfg, h := proxyConfig(t, oldImage)
			c := newClient(t, cfg, mca(h))
			d := newDeployer(c)
			d.ByName = tc.byName
			_, err := d.Reconcile(ctx, request(cluster, addonNm))
			require.NoError(t, err)
			first, ok := getWork(t, c)
			require.True(t, ok, "no work rendered")
			if tc.movedOn {
				next, _ := proxyConfig(t, newImage)
				next.SetResourceVersion(cfg.GetResourceVersion())
				require.NoError(t, c.Update(ctx, next))
			}

			require.NoError(t, c.Delete(ctx, first))
			_, ok = getWork(t, c)
			require.False(t, ok, "the work was not deleted")
			res, err := d.Reconcile(ctx, request(cluster, addonNm))
			require.NoError(t, err)
			assert.Equal(t, tc.wantRes, res)
			got, ok := getWork(t, c)
			if tc.wantImage == "" {
				assert.False(t, ok, "rendered under a hash the config no longer has")
				return
			}
			require.True(t, ok, "not rendered again")
			images, err := WorkImages(got)
			require.NoError(t, err)
			assert.Equal(t, []string{tc.wantImage}, images)
			assert.Equal(t, h, WorkTarget(got), "the desired hashes")
		})
	}
}

func TestAddonOfWork(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		work *workv1.ManifestWork
		want int
	}{
		"deploy work":    {&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "addon-cluster-proxy-deploy-0", Labels: map[string]string{addonv1alpha1.AddonLabelKey: addonNm}}}, 1},
		"split work":     {&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "addon-cluster-proxy-deploy-1", Labels: map[string]string{addonv1alpha1.AddonLabelKey: addonNm}}}, 1},
		"pre-delete":     {&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "addon-cluster-proxy-pre-delete", Labels: map[string]string{addonv1alpha1.AddonLabelKey: addonNm}}}, 0},
		"another's work": {&workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: "app"}}, 0},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			reqs := addonOfWork(context.Background(), tc.work)
			require.Len(t, reqs, tc.want)
			if tc.want == 1 {
				assert.Equal(t, request(cluster, addonNm), reqs[0])
			}
		})
	}
}

func TestTarget(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "", Target(nil))
	assert.Equal(t, "h1", Target(map[string]string{"a": "h1"}))
	assert.Equal(t, "h1,h2", Target(map[string]string{"b": "h2", "a": "h1"}), "in the order of the keys")
	assert.Equal(t, "", WorkTarget(&workv1.ManifestWork{}), "no annotation")
	bad := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: "not json"}}}
	assert.Equal(t, "", WorkTarget(bad))
}

// A new chart (Replicas) under unchanged configs: ByName renders the work
// again with it, as a manager of a new version does; the default mode,
// which renders only when the hashes change, leaves it.
func TestDeployerRendersANewChart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		byName bool
		want   []int32
	}{
		{name: "by name", byName: true, want: []int32{3}},
		{name: "from the desired spec", byName: false, want: []int32{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, h := proxyConfig(t, oldImage)
			w, err := renderWork(cluster, addonNm, values{image: oldImage}, 1, map[string]string{hashKey: h})
			require.NoError(t, err)
			c := newClient(t, cfg, mca(h), w)
			d := newDeployer(c)
			d.ByName, d.Replicas = tc.byName, 3
			_, err = d.Reconcile(context.Background(), request(cluster, addonNm))
			require.NoError(t, err)
			got, _ := getWork(t, c)
			assert.Equal(t, tc.want, workReplicas(got))
			assert.Equal(t, h, WorkTarget(got), "the hashes stay")
		})
	}
	assert.Nil(t, workReplicas(nil))
}
