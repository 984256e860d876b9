package e2e_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/manifests"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/rollout/addon"
)

// The controller's identity as config/default installs it.
const (
	controllerNamespace = "rolloutkit-system"
	controllerAccount   = "rolloutkit-controller"
	controllerUser      = "system:serviceaccount:" + controllerNamespace + ":" + controllerAccount
	placementsBinding   = "rolloutkit-controller-placements"
	leaseName           = "rolloutkit-controller"
)

// installRBAC creates, as the hub's administrator, the namespace and the
// RBAC of config/default, rendered as kubectl apply -k renders them: the
// ServiceAccount, its roles and their bindings, the approver role.
func (e *env) installRBAC(t testing.TB) {
	t.Helper()
	objs, err := manifests.Render("../config/default")
	require.NoError(t, err)
	n := 0
	for _, o := range objs {
		switch o.GetKind() {
		case "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			require.NoError(t, e.c.Create(context.Background(), o.DeepCopy()), "%s %s", o.GetKind(), o.GetName())
			n++
		}
	}
	require.Equal(t, 25, n, "objects of config/default's RBAC")
}

// serviceAccountConfig returns a config of the hub that authenticates as
// the controller's ServiceAccount and as nothing else: a bearer token from
// the TokenRequest API, no client certificate.
func (e *env) serviceAccountConfig(t testing.TB) *rest.Config {
	t.Helper()
	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(e.hub.Config)
	require.NoError(t, err)
	tr, err := cs.CoreV1().ServiceAccounts(controllerNamespace).CreateToken(ctx, controllerAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	require.NoError(t, err)
	cfg := rest.AnonymousClientConfig(e.hub.Config) // the server's CA, no credentials
	cfg.BearerToken = tr.Status.Token
	self, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Equal(t, controllerUser, self.Status.UserInfo.Username)
	require.NotContains(t, self.Status.UserInfo.Groups, "system:masters")
	return cfg
}

// startAs runs a manager as cfg's identity with what setup registers, its
// API writes recorded, electing a leader with the Lease the Deployment's
// -leader-elect uses, in the controller's namespace. It gives the Lease up
// when it stops, so that the next manager leads at once.
func (e *env) startAs(t testing.TB, cfg *rest.Config, setup func(ctrl.Manager) error) *running {
	t.Helper()
	return e.startManager(t, cfg, func(o *ctrl.Options) {
		o.LeaderElection, o.LeaderElectionID, o.LeaderElectionNamespace = true, leaseName, controllerNamespace
		o.LeaderElectionReleaseOnCancel = true
	}, setup)
}

// refused returns the writes the API server refused as forbidden.
func (w *writes) refused() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, x := range w.all {
		if x.code == http.StatusForbidden {
			out = append(out, x.method+" "+x.path)
		}
	}
	return out
}

// deleted returns how many deletes the API server accepted whose path
// contains part.
func (w *writes) deleted(part string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, x := range w.all {
		if x.method == http.MethodDelete && x.code >= 200 && x.code <= 299 && strings.Contains(x.path, part) {
			n++
		}
	}
	return n
}

// forbidden checks that err is the API server refusing the controller's
// ServiceAccount.
func forbidden(t testing.TB, err error, what string) {
	t.Helper()
	forbiddenTo(t, controllerUser, err, what)
}

// forbiddenTo checks that err is the API server refusing user.
func forbiddenTo(t testing.TB, user string, err error, what string) {
	t.Helper()
	require.Error(t, err, "%s was allowed", what)
	assert.True(t, apierrors.IsForbidden(err), "%s: %v", what, err)
	assert.Contains(t, err.Error(), `"`+user+`"`, what)
}

// approve binds the approver role to the group release-managers, as the
// README says to, and as alice, one of them, approves group prod of the
// seed's add-on (at a revision it does not wait at). Alice may create the
// approval and read it, as rolloutctl does, and do nothing else with it;
// the controller writes its status.
func (e *env) approve(t testing.TB) *v1alpha1.RolloutApproval {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, e.c.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "rolloutkit-approvers"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "rolloutkit-approver"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "release-managers"}}}))
	cfg := rest.CopyConfig(e.hub.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "alice", Groups: []string{"release-managers"}}
	alice, err := testhub.NewClient(cfg)
	require.NoError(t, err)
	a := &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: "cluster-proxy-prod"}, Spec: v1alpha1.RolloutApprovalSpec{AddOn: addonName,
		Placement: v1alpha1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"}, Group: "prod", Revision: "r0"}}
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.NoError(ct, alice.Create(ctx, a.DeepCopy()))
	}, 10*time.Second, poll, "alice approves")
	require.NoError(t, alice.Get(ctx, client.ObjectKeyFromObject(a), &v1alpha1.RolloutApproval{}), "reading a RolloutApproval")
	forbiddenTo(t, "alice", alice.Update(ctx, a), "changing a RolloutApproval")
	forbiddenTo(t, "alice", alice.Delete(ctx, a), "deleting a RolloutApproval")
	forbiddenTo(t, "alice", alice.Create(ctx, &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: "other"}}), "creating an AddOnRollout")
	return a
}

// TestRBACLeastPrivilege runs the controller as the ServiceAccount that
// config/default installs, bound by the shipped roles and by nothing else
// (a token from the TokenRequest API, on a hub that authorizes with RBAC
// and enforces owner-reference permissions as OpenShift does):
//
//   - the seed's rollout passes under it, with leader election and under an
//     AddOnRollout, as TestSeedRollout's does under the administrator, and
//     not one of its writes is refused;
//   - it adopts add-ons made by hand before it started (OCM issue 1156):
//     one of the seed's Placements strategy, and a Manual add-on's, each
//     then controlled by its ClusterManagementAddOn (an owner reference
//     that blocks its deletion, which the hub lets it set only with the
//     shipped roles' finalizers permission);
//   - an approver (the approver role bound to a group) may create a
//     RolloutApproval and read it, and do nothing else with it;
//   - it may read a Secret of its own namespace by name, for
//     verifications' credentials, and no other, and may not list them;
//   - it may not write ManagedClusters or write
//     ManifestWorks (the -simulate-agents test mode is not covered);
//   - without placements_role.yaml's binding it may not write
//     PlacementDecisions, and the controller with -placements=false still
//     installs add-ons;
//   - an add-on whose config resource the roles do not list says so, on
//     its install progression (ConfigurationError) and in a Warning event,
//     naming the resource; once a ClusterRole grants it as
//     configs_role.yaml documents, the add-on rolls out.
func TestRBACLeastPrivilege(t *testing.T) {
	t.Parallel()
	// A hub of its own: it binds and unbinds cluster-wide roles, installs
	// a CRD, and elects a leader with the shipped Lease.
	e := newEnv(t)
	ctx := context.Background()
	e.installRBAC(t)
	sa := e.serviceAccountConfig(t)
	asSA, err := testhub.NewClient(sa)
	require.NoError(t, err)

	o := seedHub(t, e, "30s")
	// Made before the controller starts (OCM issue 1156): the seed's add-on
	// on dev-cluster, by hand, and a Manual add-on's on two clusters.
	const manual = "rbac-manual"
	e.byHand(t, addonName, "dev-cluster")
	e.gcAddon(t, manual, testhub.Lifecycle, true)
	e.byHand(t, manual, "dev-cluster", "stg-cluster")
	ctl := e.startAs(t, sa, func(mgr ctrl.Manager) error {
		_, err := hubctl.Setup(ctx, mgr, hubctl.Options{Placements: true, Addons: true, Lifecycles: []string{testhub.Lifecycle}})
		return err
	})
	e.agents(t, applyTime, nil) // the add-on's manager and the work agents: not the controller's job
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	e.installed(t, o, addonName, oldHash, 60*time.Second)
	e.adopted(t, addonName, "dev-cluster")
	e.adopted(t, manual, "dev-cluster", "stg-cluster")

	// The add-on under an AddOnRollout without gates, and an approval it
	// does not need: the controller writes the status of both.
	ar := &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addonName}}
	require.NoError(t, e.c.Create(ctx, ar))
	approval := e.approve(t)
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var got v1alpha1.AddOnRollout
		var a v1alpha1.RolloutApproval
		require.NoError(ct, e.c.Get(ctx, client.ObjectKeyFromObject(ar), &got))
		require.NoError(ct, e.c.Get(ctx, client.ObjectKeyFromObject(approval), &a))
		assert.Equal(ct, got.Generation, got.Status.ObservedGeneration, "the AddOnRollout's observed generation")
		assert.NotNil(ct, meta.FindStatusCondition(a.Status.Conditions, hubplan.ConditionApproved), "the approval's Approved condition")
	}, 30*time.Second, poll, "the controller writes the controls' status")

	ob := e.observe(t, o.Clusters(), addonName, newHash)
	require.NoError(t, testhub.SetAgentImage(ctx, e.c, newImage))
	e.installed(t, o, addonName, newHash, 60*time.Second)
	e.requireStaged(t, ob, o, oldHash, newHash)
	e.requireSeedDecisions(t)
	var lease coordinationv1.Lease
	require.NoError(t, e.c.Get(ctx, types.NamespacedName{Namespace: controllerNamespace, Name: leaseName}, &lease))
	assert.NotEmpty(t, ptr.Deref(lease.Spec.HolderIdentity, ""), "the controller leads through its Lease")
	assert.Positive(t, ctl.writes.count("/placementdecisions"), "the controller wrote the PlacementDecisions")

	// prod-cluster leaves the placement: its decision and its add-on go.
	require.NoError(t, e.c.Patch(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "prod-cluster"}},
		client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"cluster-proxy":"disabled"}}}`))))
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.False(ct, e.addon(ct, "prod-cluster", addonName).exists, "the add-on is still there")
	}, 30*time.Second, poll, "prod-cluster's add-on removed")
	assert.Positive(t, ctl.writes.deleted("/managedclusteraddons/"), "no ManagedClusterAddOn deleted")
	assert.Positive(t, ctl.writes.deleted("/placementdecisions/"), "no PlacementDecision deleted")
	assert.Empty(t, ctl.writes.refused(), "writes refused to the controller")
	ctl.stop(t)

	t.Run("refused", func(t *testing.T) {
		// Outside -verification-secret-namespaces (the controller's own
		// namespace), no Secret can be read; inside, one can be read by
		// name only (verification_credentials_role.yaml), never listed.
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: "hub-credentials"}, StringData: map[string]string{"token": "x"}}
		require.NoError(t, e.c.Create(ctx, secret))
		forbidden(t, asSA.Get(ctx, client.ObjectKeyFromObject(secret), &corev1.Secret{}), "reading a Secret")
		forbidden(t, asSA.List(ctx, &corev1.SecretList{}), "listing Secrets")
		forbidden(t, asSA.List(ctx, &corev1.SecretList{}, client.InNamespace(controllerNamespace)), "listing the Secrets of its namespace")
		forbidden(t, asSA.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(controllerNamespace)), "listing the ConfigMaps of its namespace")
		own := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: controllerNamespace, Name: "verifier-token"}, StringData: map[string]string{"token": "x"}}
		require.NoError(t, e.c.Create(ctx, own))
		require.NoError(t, asSA.Get(ctx, client.ObjectKeyFromObject(own), &corev1.Secret{}), "reading a Secret of its namespace by name")

		forbidden(t, asSA.Patch(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "dev-cluster"}},
			client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"environment":"prod"}}}`))), "patching a ManagedCluster")
		forbidden(t, asSA.Create(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "intruder"}}), "creating a ManagedCluster")
		forbidden(t, asSA.Delete(ctx, &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: "dev-cluster"}}), "deleting a ManagedCluster")
		forbidden(t, asSA.Create(ctx, &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Namespace: "dev-cluster", Name: "intruder"}}), "creating a ManifestWork")
	})

	// Without placements_role.yaml's binding, as where OCM's placement
	// controller runs and the controller runs with -placements=false.
	require.NoError(t, e.c.Delete(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: placementsBinding}}))
	d := e.decisions(t)[0]
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		err := asSA.Create(ctx, &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: "intruder"}})
		assert.True(ct, apierrors.IsForbidden(err), "%v", err)
	}, 10*time.Second, poll, "PlacementDecision writes refused")
	next := d.DeepCopy()
	next.Status.Decisions = nil
	forbidden(t, asSA.Status().Patch(ctx, next, client.MergeFrom(&d)), "patching a PlacementDecision's status")
	forbidden(t, asSA.Delete(ctx, &d), "deleting a PlacementDecision")

	e.configNotReadable(t, sa)
}

// adopted waits until the add-on name on each of clusters, made by hand,
// is controlled by its ClusterManagementAddOn, as the controller adopts
// it (the owner reference OCM's addonowner controller sets).
func (e *env) adopted(t *testing.T, name string, clusters ...string) {
	t.Helper()
	var cma addonv1beta1.ClusterManagementAddOn
	require.NoError(t, e.c.Get(context.Background(), types.NamespacedName{Name: name}, &cma))
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		mcas, _ := e.addonObjects(ct, name)
		for _, c := range clusters {
			owner := metav1.GetControllerOf(ptr.To(mcas[c]))
			if assert.NotNil(ct, owner, "%s/%s: no controller", c, name) {
				assert.Equal(ct, cma.UID, owner.UID, "%s/%s: controlled by another", c, name)
			}
		}
	}, 30*time.Second, poll, "the add-ons %s made by hand adopted", name)
}

// configNotReadable runs the controller with -placements=false as the
// ServiceAccount and gives it an add-on whose config is a Widget, a
// resource its roles do not list: the add-ons are installed, and the
// install progression and a Warning event name the resource. Once a
// ClusterRole of its own grants list and watch on it, the add-on rolls out.
func (e *env) configNotReadable(t *testing.T, sa *rest.Config) {
	ctx := context.Background()
	crd := testhub.ProxyConfigCRD()
	crd.Name, crd.Spec.Group = "widgets.example.io", "example.io"
	crd.Spec.Names.Plural, crd.Spec.Names.Singular, crd.Spec.Names.Kind, crd.Spec.Names.ListKind = "widgets", "widget", "Widget", "WidgetList"
	require.NoError(t, e.c.Create(ctx, crd))
	widget := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.io/v1alpha1", "kind": "Widget",
		"metadata": map[string]any{"name": "blue"}, "spec": map[string]any{"color": "blue"}}}
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.NoError(ct, e.c.Create(ctx, widget.DeepCopy()))
	}, 30*time.Second, poll, "Widget CRD established")
	widgetHash, err := hash.Spec(widget)
	require.NoError(t, err)
	const name = "widgets"
	cma := &addonv1beta1.ClusterManagementAddOn{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{hubclient.LifecycleAnnotation: testhub.Lifecycle}},
		Spec: addonv1beta1.ClusterManagementAddOnSpec{
			DefaultConfigs: []addonv1beta1.AddOnConfig{{ConfigGroupResource: addonv1beta1.ConfigGroupResource{Group: "example.io", Resource: "widgets"},
				ConfigReferent: addonv1beta1.ConfigReferent{Name: "blue"}}},
			InstallStrategy: addonv1beta1.InstallStrategy{Type: addonv1beta1.AddonInstallStrategyPlacements, Placements: []addonv1beta1.PlacementStrategy{{
				PlacementRef:    addonv1beta1.PlacementRef{Namespace: "open-cluster-management", Name: "cluster-proxy-placement"},
				RolloutStrategy: clusterv1alpha1.RolloutStrategy{Type: clusterv1alpha1.All},
			}}},
		},
	}
	alpha, err := testhub.AddonV1alpha1(cma)
	require.NoError(t, err)
	require.NoError(t, e.c.Create(ctx, alpha))

	ctl := e.startAs(t, sa, func(mgr ctrl.Manager) error {
		_, err := hubctl.Setup(ctx, mgr, hubctl.Options{Addons: true, Lifecycles: []string{testhub.Lifecycle}})
		return err
	})
	const says = `config resource "widgets.example.io": the controller may not list or watch it`
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		ip, ok := e.progression(ct, name)
		require.True(ct, ok, "no install progression")
		c := meta.FindStatusCondition(ip.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing)
		require.NotNil(ct, c, "no Progressing condition")
		assert.Equal(ct, metav1.ConditionFalse, c.Status, c.Message)
		assert.Equal(ct, addon.ReasonConfigurationError, c.Reason, c.Message)
		assert.Contains(ct, c.Message, says)
	}, 30*time.Second, poll, "the install progression names the resource")
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		var evs eventsv1.EventList
		require.NoError(ct, e.c.List(ctx, &evs))
		i := slices.IndexFunc(evs.Items, func(ev eventsv1.Event) bool {
			return ev.Type == corev1.EventTypeWarning && ev.Reason == addon.ReasonConfigurationError && ev.Regarding.Name == name && strings.Contains(ev.Note, says)
		})
		assert.GreaterOrEqual(ct, i, 0, "%d events, none from the controller about %s", len(evs.Items), name)
	}, 30*time.Second, poll, "a Warning event names the resource")
	clusters := []string{"dev-cluster", "stg-cluster"} // prod-cluster left the placement
	for _, c := range clusters {
		assert.True(t, e.addon(t, c, name).exists, "%s: the add-on is installed without the placements role", c)
	}

	// As configs_role.yaml and the README say to.
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "rolloutkit-config-widgets"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"example.io"}, Resources: []string{"widgets"}, Verbs: []string{"list", "watch"}}}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "rolloutkit-config-widgets"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: controllerNamespace, Name: controllerAccount}}}
	require.NoError(t, e.c.Create(ctx, role))
	require.NoError(t, e.c.Create(ctx, binding))
	e.installedOn(t, clusters, name, widgetHash, 60*time.Second)
	assert.Empty(t, ctl.writes.refused(), "writes refused to the controller with -placements=false")
	assert.Zero(t, ctl.writes.count("/placementdecisions"))
}
