package dryrun

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubtest"
)

// TestDryRunSkipsAddonsNotTaken: the dry run plans the add-ons whose
// lifecycle annotation is one the controller takes, and says so when there
// is none.
func TestDryRunSkipsAddonsNotTaken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		taken   []string
		planned []string
		none    string // the text when nothing is planned
	}{
		{name: "the default takes rolloutkit's", planned: []string{hubtest.SeedAddonName}},
		{name: "addon-manager takes OCM's add-on manager's", taken: []string{"addon-manager"}, planned: []string{"other-addon"}},
		{name: "self takes none", taken: []string{"self"},
			none: `no ClusterManagementAddOn with install strategy Placements and a lifecycle annotation addon.open-cluster-management.io/lifecycle of ["self"] on the hub (2 add-ons)` + "\n"},
	} {
		for _, version := range hubtest.AddonVersions {
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				h := hubtest.DryRunHub(t, version)
				var buf bytes.Buffer
				require.NoError(t, DryRun(context.Background(), h.Client, h.Mapper, version, "rolloutkit-system", tc.taken, hubtest.Start, &buf))
				if tc.none != "" {
					assert.Equal(t, tc.none, buf.String())
					return
				}
				assert.Equal(t, tc.planned, hubtest.ParseDryRun(t, buf.String()).Addons, buf.String())
			})
		}
	}
}

// listFails is a reader whose lists of rolloutkit.io's kinds fail with
// err.
type listFails struct {
	client.Reader
	err error
}

func (r listFails) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	switch list.(type) {
	case *v1alpha1.AddOnRolloutList, *v1alpha1.RolloutApprovalList:
		return r.err
	}
	return r.Reader.List(ctx, list, opts...)
}

// TestReadHubControls: ReadHub reads the AddOnRollouts and the
// RolloutApprovals of a hub that serves them, and none, without an error,
// from a plain OCM hub, whose RESTMapper does not know them (or whose
// CRDs go away between the mapper's look and the list).
func TestReadHubControls(t *testing.T) {
	t.Parallel()
	ar := &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: hubtest.SeedAddonName}, Spec: v1alpha1.AddOnRolloutSpec{Paused: true}}
	ok := &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "ok"}, Spec: v1alpha1.RolloutApprovalSpec{AddOn: hubtest.SeedAddonName, Group: "prod", Revision: "r"}}
	noMatch := &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: v1alpha1.Group, Kind: "AddOnRollout"}}
	for _, tc := range []struct {
		name      string
		served    bool
		listErr   error
		rollouts  []string
		approvals []string
		err       string
	}{
		{name: "served", served: true, rollouts: []string{hubtest.SeedAddonName}, approvals: []string{"ok"}},
		{name: "not served: a plain OCM hub"},
		{name: "served, then gone", served: true, listErr: noMatch},
		{name: "served, list fails", served: true, listErr: errors.New("etcd is down"), err: "reading the hub: etcd is down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := hubtest.DryRunHub(t, hubclient.V1beta1, ar, ok)
			mapper := h.Mapper
			if tc.served {
				mapper = hubtest.WithRollouts(mapper)
			}
			var c client.Reader = h.Client
			if tc.listErr != nil {
				c = listFails{Reader: c, err: tc.listErr}
			}
			hub, err := ReadHub(context.Background(), c, mapper, hubclient.V1beta1)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			var rollouts, approvals []string
			for _, r := range hub.AddOnRollouts {
				rollouts = append(rollouts, r.Name)
			}
			for _, a := range hub.RolloutApprovals {
				approvals = append(approvals, a.Name)
			}
			assert.Equal(t, tc.rollouts, rollouts)
			assert.Equal(t, tc.approvals, approvals)
			assert.NotEmpty(t, hub.ClusterManagementAddOns, "the rest of the hub is read")
		})
	}
}

// forbidWorks is a reader that may not list ManifestWorks or
// ControllerRevisions, as a viewer.
type forbidWorks struct{ client.Reader }

func (f forbidWorks) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	switch list.(type) {
	case *workv1.ManifestWorkList:
		return apierrors.NewForbidden(schema.GroupResource{Group: "work.open-cluster-management.io", Resource: "manifestworks"}, "", errors.New("viewer"))
	case *appsv1.ControllerRevisionList:
		return apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "controllerrevisions"}, "", errors.New("viewer"))
	}
	return f.Reader.List(ctx, list, opts...)
}

// TestReadHubAsViewer: a reader who may not list the works reads the hub
// all the same and plans with what the add-ons publish of the works; one
// who may not list the histories plans without them.
func TestReadHubAsViewer(t *testing.T) {
	t.Parallel()
	h := hubtest.DryRunHub(t, hubclient.V1beta1)
	hub, err := ReadHub(context.Background(), forbidWorks{h.Client}, h.Mapper, hubclient.V1beta1)
	require.NoError(t, err)
	assert.Nil(t, hub.Works)
	assert.True(t, hub.WorksPublished)
	revs, err := ReadHistory(context.Background(), forbidWorks{h.Client}, "rolloutkit-system")
	require.NoError(t, err)
	assert.Nil(t, revs)

	hub, err = ReadHub(context.Background(), h.Client, h.Mapper, hubclient.V1beta1)
	require.NoError(t, err)
	assert.NotNil(t, hub.Works)
	assert.False(t, hub.WorksPublished)
}
