package config_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/manifests"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/controller/rollouthook"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// namespace is the namespace config/default/kustomization.yaml sets.
const namespace = "rolloutkit-system"

// render builds config/default, as kubectl apply -k does.
func render(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	objs, err := manifests.Render("default")
	require.NoError(t, err)
	return objs
}

// ids names objects "Kind namespace/name", sorted.
func ids(objs []*unstructured.Unstructured) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
	}
	sort.Strings(out)
	return out
}

// as converts u to the typed object out.
func as[T any](t *testing.T, u *unstructured.Unstructured, out *T) *T {
	t.Helper()
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, out, true), "%s %s", u.GetKind(), u.GetName())
	return out
}

// TestManifests renders config/default as kubectl apply -k does and checks
// what a platform team relies on: everything lands in the namespace the
// kustomization sets (and moves with it), no RBAC rule has a wildcard, the
// Deployment runs two replicas under leader election, probed, with a
// locked-down security context and resource requests; the work gate
// guards only updates of add-ons' ManifestWorks, fails closed, and
// reaches the controller's pods through its Service; the metrics are
// served over HTTPS through a Service of their own, and the role that may
// read them is bound to no one; config/rbac read as
// kubectl apply -f reads it is the same RBAC; config/ocm-placement is
// config/default with Placements left to OCM; and
// components/cert-manager, on either, hands the gate's certificate to
// cert-manager.
func TestManifests(t *testing.T) {
	t.Parallel()
	objs := render(t)
	assert.Equal(t, []string{
		"ClusterRole /rolloutkit-approver",
		"ClusterRole /rolloutkit-approver-create",
		"ClusterRole /rolloutkit-controller",
		"ClusterRole /rolloutkit-controller-configs",
		"ClusterRole /rolloutkit-controller-metrics-auth",
		"ClusterRole /rolloutkit-controller-placements",
		"ClusterRole /rolloutkit-controller-webhook",
		"ClusterRole /rolloutkit-controller-work-gate",
		"ClusterRole /rolloutkit-metrics-reader",
		"ClusterRole /rolloutkit-viewer",
		"ClusterRoleBinding /rolloutkit-controller",
		"ClusterRoleBinding /rolloutkit-controller-configs",
		"ClusterRoleBinding /rolloutkit-controller-metrics-auth",
		"ClusterRoleBinding /rolloutkit-controller-placements",
		"ClusterRoleBinding /rolloutkit-controller-webhook",
		"ClusterRoleBinding /rolloutkit-controller-work-gate",
		"CustomResourceDefinition /addonrollouts.rolloutkit.io",
		"CustomResourceDefinition /rolloutapprovals.rolloutkit.io",
		"Deployment " + namespace + "/rolloutkit-controller",
		"MutatingWebhookConfiguration /" + rollouthook.AdmissionConfiguration,
		"Namespace /" + namespace,
		"PodDisruptionBudget " + namespace + "/rolloutkit-controller",
		"PriorityClass /rolloutkit-critical",
		"Role " + namespace + "/rolloutkit-controller-verification-credentials",
		"Role " + namespace + "/rolloutkit-controller-webhook",
		"Role " + namespace + "/rolloutkit-history-viewer",
		"Role " + namespace + "/rolloutkit-leader-election",
		"RoleBinding " + namespace + "/rolloutkit-controller-verification-credentials",
		"RoleBinding " + namespace + "/rolloutkit-controller-webhook",
		"RoleBinding " + namespace + "/rolloutkit-leader-election",
		"Service " + namespace + "/rolloutkit-controller-metrics",
		"Service " + namespace + "/rolloutkit-webhook",
		"ServiceAccount " + namespace + "/rolloutkit-controller",
		"ValidatingWebhookConfiguration /" + rollouthook.AdmissionConfiguration,
		"ValidatingWebhookConfiguration /" + gatehook.WorkGateConfiguration,
	}, ids(objs))
	assert.Equal(t, "Namespace", objs[0].GetKind(), "kubectl apply -k creates the namespace first")

	t.Run("disruption budget", func(t *testing.T) {
		t.Parallel()
		i := slices.IndexFunc(objs, func(o *unstructured.Unstructured) bool { return o.GetKind() == "PodDisruptionBudget" })
		require.GreaterOrEqual(t, i, 0)
		pdb := as(t, objs[i], &policyv1.PodDisruptionBudget{})
		require.NotNil(t, pdb.Spec.MinAvailable)
		assert.Equal(t, 1, pdb.Spec.MinAvailable.IntValue(), "one replica answers the work gate through a drain")
		d := deployment(t, objs)
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		require.NoError(t, err)
		assert.True(t, sel.Matches(labels.Set(d.Spec.Template.Labels)), "the budget selects no pod of the Deployment")
		assert.Less(t, pdb.Spec.MinAvailable.IntValue(), int(*d.Spec.Replicas), "a budget of every replica blocks every drain")
	})

	t.Run("no wildcards", func(t *testing.T) {
		t.Parallel()
		for _, o := range objs {
			var rules []rbacv1.PolicyRule
			switch o.GetKind() {
			case "ClusterRole":
				rules = as(t, o, &rbacv1.ClusterRole{}).Rules
			case "Role":
				rules = as(t, o, &rbacv1.Role{}).Rules
			default:
				continue
			}
			require.NotEmpty(t, rules, o.GetName())
			for i, r := range rules {
				for _, field := range [][]string{r.APIGroups, r.Resources, r.Verbs, r.ResourceNames, r.NonResourceURLs} {
					for _, v := range field {
						assert.NotContains(t, v, "*", "%s %s rule %d: %+v", o.GetKind(), o.GetName(), i, r)
					}
				}
				if o.GetName() != metricsReader {
					assert.Empty(t, r.NonResourceURLs, "%s %s rule %d", o.GetKind(), o.GetName(), i)
				}
			}
		}
	})

	// Every rule, so that a new one is a deliberate change of this test
	// too: TestRBACLeastPrivilege shows the controller works with these,
	// and config/rbac says why each is there.
	t.Run("rules", func(t *testing.T) {
		t.Parallel()
		got := map[string][]string{}
		for _, o := range objs {
			var rules []rbacv1.PolicyRule
			switch o.GetKind() {
			case "ClusterRole":
				rules = as(t, o, &rbacv1.ClusterRole{}).Rules
			case "Role":
				rules = as(t, o, &rbacv1.Role{}).Rules
			default:
				continue
			}
			for _, r := range rules {
				line := strings.Join(r.APIGroups, ",") + " " + strings.Join(r.Resources, ",") + " " + strings.Join(r.Verbs, ",")
				if len(r.ResourceNames) > 0 {
					line += " " + strings.Join(r.ResourceNames, ",")
				}
				if len(r.NonResourceURLs) > 0 {
					line = strings.Join(r.NonResourceURLs, ",") + " " + strings.Join(r.Verbs, ",")
				}
				got[o.GetKind()+" "+o.GetName()] = append(got[o.GetKind()+" "+o.GetName()], line)
			}
		}
		assert.Equal(t, map[string][]string{
			"ClusterRole rolloutkit-controller": {
				"addon.open-cluster-management.io clustermanagementaddons get,list,watch,patch",
				"addon.open-cluster-management.io clustermanagementaddons/status patch",
				"addon.open-cluster-management.io managedclusteraddons get,list,watch,create,patch,delete",
				"addon.open-cluster-management.io managedclusteraddons/status patch",
				"addon.open-cluster-management.io clustermanagementaddons/finalizers update",
				"apiextensions.k8s.io customresourcedefinitions get clustermanagementaddons.addon.open-cluster-management.io,managedclusteraddons.addon.open-cluster-management.io",
				"cluster.open-cluster-management.io placements,placementdecisions list,watch",
				"work.open-cluster-management.io manifestworks list,watch",
				"rolloutkit.io addonrollouts,rolloutapprovals list,watch",
				"rolloutkit.io addonrollouts/status,rolloutapprovals/status patch",
				"rolloutkit.io rolloutapprovals delete",
				"events.k8s.io events create,patch",
				"authorization.k8s.io selfsubjectaccessreviews create",
			},
			"ClusterRole rolloutkit-controller-configs": { // update: spec.onFailure: Rollback restores them
				"addon.open-cluster-management.io addondeploymentconfigs,addontemplates get,list,watch,update",
				"proxy.open-cluster-management.io managedproxyconfigurations get,list,watch,update",
			},
			"ClusterRole rolloutkit-controller-webhook": {
				"admissionregistration.k8s.io validatingwebhookconfigurations,mutatingwebhookconfigurations get,list,watch,patch " +
					gatehook.WorkGateConfiguration + "," + rollouthook.AdmissionConfiguration,
			},
			"ClusterRole rolloutkit-controller-work-gate": {
				"admissionregistration.k8s.io validatingwebhookconfigurations get,list,watch,patch " + gatehook.WorkGateConfiguration,
			},
			"Role rolloutkit-controller-webhook": {
				" secrets create",
				" secrets get,update " + certSecret,
			},
			"Role rolloutkit-controller-verification-credentials": {
				" secrets,configmaps get", // by name, at each check: no list or watch
			},
			"ClusterRole rolloutkit-controller-placements": {
				"cluster.open-cluster-management.io managedclusters,managedclustersets,managedclustersetbindings,addonplacementscores list,watch",
				"cluster.open-cluster-management.io placementdecisions create,patch,delete",
				"cluster.open-cluster-management.io placements/status,placementdecisions/status patch",
				"cluster.open-cluster-management.io placements/finalizers update",
				"coordination.k8s.io leases get placement-lock", // -placements' check of OCM's placement controller
			},
			"Role rolloutkit-leader-election": {
				"coordination.k8s.io leases create",
				"coordination.k8s.io leases get,update rolloutkit-controller",
				"coordination.k8s.io leases patch rolloutkit-controller-versions", // each replica's version
				" events create,patch",
				"apps controllerrevisions get,list,create,patch,delete", // the revision histories
			},
			"Role rolloutkit-history-viewer": {
				"apps controllerrevisions get,list",
			},
			// rolloutkit-approver aggregates the two below; roles_test.go
			// checks its rules are their union.
			"ClusterRole rolloutkit-viewer": {
				"apiextensions.k8s.io customresourcedefinitions get clustermanagementaddons.addon.open-cluster-management.io,managedclusteraddons.addon.open-cluster-management.io",
				"cluster.open-cluster-management.io managedclusters,managedclustersets,managedclustersetbindings,placements,placementdecisions,addonplacementscores get,list,watch",
				"addon.open-cluster-management.io clustermanagementaddons,managedclusteraddons get,list,watch",
				"addon.open-cluster-management.io addondeploymentconfigs,addontemplates get,list,watch",
				"proxy.open-cluster-management.io managedproxyconfigurations get,list,watch",
				"rolloutkit.io addonrollouts,rolloutapprovals get,list,watch",
				"coordination.k8s.io leases get rolloutkit-controller-versions",
			},
			"ClusterRole rolloutkit-approver-create": {
				"rolloutkit.io rolloutapprovals create",
				"rolloutkit.io decisiongroups approve",
			},
			"ClusterRole rolloutkit-approver": {
				"rolloutkit.io rolloutapprovals create",
				"rolloutkit.io decisiongroups approve",
				"apiextensions.k8s.io customresourcedefinitions get clustermanagementaddons.addon.open-cluster-management.io,managedclusteraddons.addon.open-cluster-management.io",
				"cluster.open-cluster-management.io managedclusters,managedclustersets,managedclustersetbindings,placements,placementdecisions,addonplacementscores get,list,watch",
				"addon.open-cluster-management.io clustermanagementaddons,managedclusteraddons get,list,watch",
				"addon.open-cluster-management.io addondeploymentconfigs,addontemplates get,list,watch",
				"proxy.open-cluster-management.io managedproxyconfigurations get,list,watch",
				"rolloutkit.io addonrollouts,rolloutapprovals get,list,watch",
				"coordination.k8s.io leases get rolloutkit-controller-versions",
			},
			"ClusterRole rolloutkit-controller-metrics-auth": {
				"authentication.k8s.io tokenreviews create",
				"authorization.k8s.io subjectaccessreviews create",
			},
			"ClusterRole " + metricsReader: {
				"/metrics get",
			},
		}, got)
	})

	t.Run("bindings name the service account", func(t *testing.T) {
		t.Parallel()
		for _, o := range objs {
			var subjects []rbacv1.Subject
			switch o.GetKind() {
			case "ClusterRoleBinding":
				subjects = as(t, o, &rbacv1.ClusterRoleBinding{}).Subjects
			case "RoleBinding":
				subjects = as(t, o, &rbacv1.RoleBinding{}).Subjects
			default:
				continue
			}
			assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "rolloutkit-controller", Namespace: namespace}}, subjects, o.GetName())
		}
	})

	t.Run("deployment", func(t *testing.T) {
		t.Parallel()
		d := deployment(t, objs)
		assert.Equal(t, int32(2), *d.Spec.Replicas)
		pod := d.Spec.Template.Spec
		assert.Equal(t, "rolloutkit-controller", pod.ServiceAccountName)
		assert.Equal(t, "rolloutkit-critical", pod.PriorityClassName, "the work gate fails closed: the pods are evicted after ordinary workloads")
		require.NotNil(t, pod.SecurityContext)
		assert.Equal(t, true, *pod.SecurityContext.RunAsNonRoot)
		assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, pod.SecurityContext.SeccompProfile.Type)
		require.Len(t, pod.Containers, 1)
		c := pod.Containers[0]
		assert.Equal(t, "ghcr.io/rolloutkit/controller:v0.1.0", c.Image)
		assert.Contains(t, c.Args, "-leader-elect")
		assert.Contains(t, c.Args, "-leader-elect-namespace=$(POD_NAMESPACE)")
		require.Len(t, c.Env, 1)
		assert.Equal(t, "metadata.namespace", c.Env[0].ValueFrom.FieldRef.FieldPath, "the Lease lives in the pod's namespace")
		sc := c.SecurityContext
		require.NotNil(t, sc)
		assert.Equal(t, false, *sc.AllowPrivilegeEscalation)
		assert.Equal(t, true, *sc.ReadOnlyRootFilesystem)
		assert.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop)
		assert.Empty(t, sc.Capabilities.Add)

		ports := map[string]int32{}
		for _, p := range c.Ports {
			ports[p.Name] = p.ContainerPort
		}
		assert.Equal(t, map[string]int32{"metrics": 8443, "health": 8081, "webhook": 9443}, ports)
		assert.Contains(t, c.Args, "-webhook-bind-address=:9443")
		assert.Contains(t, c.Args, "-webhook-cert-secret=$(POD_NAMESPACE)/"+certSecret, "the certificate kept by the controller, beside the pods")
		assert.Equal(t, corev1.StorageMediumMemory, certVolume(t, d).EmptyDir.Medium, "the cert dir is writable, in memory")
		assert.Contains(t, c.Args, "-metrics-bind-address=:8443")
		for _, a := range c.Args {
			assert.NotContains(t, a, "-metrics-secure", "the metrics are secure by default")
			assert.NotContains(t, a, "-zap-devel", "production logs: JSON at info level")
		}
		assert.Contains(t, c.Args, "-health-probe-bind-address=:8081")
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe} {
			require.NotNil(t, p)
			assert.Equal(t, "health", p.HTTPGet.Port.String())
		}
		assert.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
		assert.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
		assert.False(t, c.Resources.Requests.Memory().IsZero(), "memory request")
		assert.False(t, c.Resources.Requests.Cpu().IsZero(), "cpu request")
	})

	t.Run("work gate", func(t *testing.T) {
		t.Parallel()
		checkWorkGate(t, objs, namespace)
		checkAdmission(t, objs, namespace)
	})

	t.Run("metrics", func(t *testing.T) {
		t.Parallel()
		checkMetrics(t, objs, namespace)
	})

	t.Run("kubectl apply -f config/rbac", func(t *testing.T) {
		t.Parallel()
		plain, err := manifests.ReadDir("rbac")
		require.NoError(t, err)
		var rbac []*unstructured.Unstructured
		for _, o := range objs {
			if o.GetKind() == "ServiceAccount" || strings.HasPrefix(o.GetAPIVersion(), "rbac.authorization.k8s.io/") {
				rbac = append(rbac, o)
			}
		}
		assert.Equal(t, ids(rbac), ids(plain), "kubectl apply -f config/rbac/ applies the RBAC that kubectl apply -k does")
		for _, o := range plain {
			assert.NotEqual(t, "Kustomization", o.GetKind(), "kubectl apply -f would refuse it")
		}
	})

	t.Run("ocm-placement", func(t *testing.T) {
		t.Parallel()
		ocm, err := manifests.Render("ocm-placement")
		require.NoError(t, err)
		want := slices.DeleteFunc(ids(objs), func(id string) bool { return strings.HasSuffix(id, " /rolloutkit-controller-placements") })
		assert.Equal(t, want, ids(ocm), "config/default without the placements role and binding")
		c := deployment(t, ocm).Spec.Template.Spec.Containers[0]
		assert.Equal(t, append(slices.Clone(deployment(t, objs).Spec.Template.Spec.Containers[0].Args), "-placements=false"), c.Args)
	})

	t.Run("namespace set in one place", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		here, err := filepath.Abs("default")
		require.NoError(t, err)
		base, err := filepath.Rel(dir, here)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"),
			fmt.Appendf(nil, "namespace: team-a\nresources:\n- %s\n", filepath.ToSlash(base)), 0o600))
		moved, err := manifests.Render(dir)
		require.NoError(t, err)
		var where []string
		for _, o := range moved {
			where = append(where, o.GetNamespace())
			if o.GetKind() == "Namespace" {
				assert.Equal(t, "team-a", o.GetName())
			}
			if o.GetKind() == "ClusterRoleBinding" || o.GetKind() == "RoleBinding" {
				subjects, _, err := unstructured.NestedSlice(o.Object, "subjects")
				require.NoError(t, err)
				for _, s := range subjects {
					assert.Equal(t, "team-a", s.(map[string]any)["namespace"], "%s %s", o.GetKind(), o.GetName())
				}
			}
		}
		assert.NotContains(t, where, namespace)
		checkWorkGate(t, moved, "team-a")
		checkAdmission(t, moved, "team-a")
		checkMetrics(t, moved, "team-a")
	})

	t.Run("cert-manager", func(t *testing.T) {
		t.Parallel()
		checkCertManager(t, objs, withCertManager(t, "default"), namespace)
		ocm, err := manifests.Render("ocm-placement")
		require.NoError(t, err)
		checkCertManager(t, ocm, withCertManager(t, "ocm-placement"), namespace)
		moved := movedDefault(t, "team-a")
		plain, err := manifests.Render(moved)
		require.NoError(t, err)
		checkCertManager(t, plain, withCertManager(t, moved), "team-a")
	})
}

// metricsReader is the ClusterRole that may read the metrics.
const metricsReader = "rolloutkit-metrics-reader"

// checkMetrics checks the metrics' Service: in ns, HTTPS on 8443, to the
// Deployment's pods' port metrics; and that the role it needs a scraper
// to be bound to is bound to no one.
func checkMetrics(t *testing.T, objs []*unstructured.Unstructured, ns string) {
	t.Helper()
	svc := as(t, object(t, objs, "Service", "rolloutkit-controller-metrics"), &corev1.Service{})
	assert.Equal(t, ns, svc.Namespace)
	require.Len(t, svc.Spec.Ports, 1)
	p := svc.Spec.Ports[0]
	assert.Equal(t, "https", p.Name)
	assert.Equal(t, int32(8443), p.Port)
	assert.Equal(t, "metrics", p.TargetPort.String())
	d := deployment(t, objs)
	assert.True(t, labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)), "the Service selects no pod of the Deployment")
	c := d.Spec.Template.Spec.Containers[0]
	i := slices.IndexFunc(c.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == p.TargetPort.String() })
	require.GreaterOrEqual(t, i, 0, "no container port %s", p.TargetPort.String())
	assert.Contains(t, c.Args, fmt.Sprintf("-metrics-bind-address=:%d", c.Ports[i].ContainerPort))
	for _, o := range objs {
		if o.GetKind() == "ClusterRoleBinding" {
			assert.NotEqual(t, metricsReader, as(t, o, &rbacv1.ClusterRoleBinding{}).RoleRef.Name, "the metrics reader is bound to %s", o.GetName())
		}
	}
}

// certSecret is the Secret of the gate's serving certificate.
const certSecret = "rolloutkit-webhook-cert"

// object returns the object of objs of that kind and name.
func object(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	i := slices.IndexFunc(objs, func(o *unstructured.Unstructured) bool { return o.GetKind() == kind && o.GetName() == name })
	require.GreaterOrEqual(t, i, 0, "no %s %s", kind, name)
	return objs[i]
}

// certVolume returns the volume the controller's -webhook-cert-dir is
// mounted from.
func certVolume(t *testing.T, d *appsv1.Deployment) corev1.Volume {
	t.Helper()
	c := d.Spec.Template.Spec.Containers[0]
	var dir string
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "-webhook-cert-dir="); ok {
			dir = v
		}
	}
	require.NotEmpty(t, dir, "no -webhook-cert-dir: %q", c.Args)
	i := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == dir })
	require.GreaterOrEqual(t, i, 0, "nothing mounted at -webhook-cert-dir %s", dir)
	j := slices.IndexFunc(d.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == c.VolumeMounts[i].Name })
	require.GreaterOrEqual(t, j, 0, "no volume %s", c.VolumeMounts[i].Name)
	return d.Spec.Template.Spec.Volumes[j]
}

// checkWorkGate checks the gate's ValidatingWebhookConfiguration and
// Service in objs, the controller being in ns: what it guards (creates and
// updates of taken add-ons' ManifestWorks that change their content or
// owner, failing closed; deletes, failing open), its scope as shipped (no
// work, until the controller scopes it), and that the API server reaches
// the controller's webhook server through the Service.
func checkWorkGate(t *testing.T, objs []*unstructured.Unstructured, ns string) {
	t.Helper()
	vwc := as(t, object(t, objs, "ValidatingWebhookConfiguration", gatehook.WorkGateConfiguration), &admissionregistrationv1.ValidatingWebhookConfiguration{})
	require.Len(t, vwc.Webhooks, 2)
	rule := func(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{Operations: ops,
			Rule: admissionregistrationv1.Rule{APIGroups: []string{"work.open-cluster-management.io"}, APIVersions: []string{"v1"},
				Resources: []string{"manifestworks"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)}}}
	}
	for i, want := range []struct {
		name    string
		rules   []admissionregistrationv1.RuleWithOperations
		failure admissionregistrationv1.FailurePolicyType
		matches int
	}{
		{gatehook.WorkGateWebhook, rule(admissionregistrationv1.Create, admissionregistrationv1.Update), admissionregistrationv1.Fail, 1},
		{gatehook.WorkGateDeletionWebhook, rule(admissionregistrationv1.Delete), admissionregistrationv1.Ignore, 0},
	} {
		w := vwc.Webhooks[i]
		assert.Equal(t, want.name, w.Name)
		require.NotNil(t, w.ClientConfig.Service)
		assert.Nil(t, w.ClientConfig.URL)
		assert.Empty(t, w.ClientConfig.CABundle, "the controller or cainjector puts the CA there")
		assert.Equal(t, admissionregistrationv1.ServiceReference{Namespace: ns, Name: "rolloutkit-webhook", Path: ptr.To(gatehook.WorkGatePath), Port: ptr.To[int32](443)},
			*w.ClientConfig.Service)
		assert.Equal(t, want.rules, w.Rules, "%s: manifestworks only, not their status", w.Name)
		assert.Equal(t, want.failure, *w.FailurePolicy, w.Name)
		assert.Len(t, w.MatchConditions, want.matches, w.Name)
		assert.Equal(t, admissionregistrationv1.SideEffectClassNoneOnDryRun, *w.SideEffects, "%s: the gate records holds, never on a dry run", w.Name)
		assert.Equal(t, admissionregistrationv1.Equivalent, *w.MatchPolicy)
		assert.Equal(t, []string{"v1"}, w.AdmissionReviewVersions)
		require.NotNil(t, w.TimeoutSeconds)
		assert.LessOrEqual(t, *w.TimeoutSeconds, int32(10), "a write waits at most this long for the gate")
		assert.Equal(t, workgate.Scope(nil), w.ObjectSelector, "%s: no work until the controller scopes it", w.Name)
		assert.Nil(t, w.NamespaceSelector)
	}

	svc := as(t, object(t, objs, "Service", "rolloutkit-webhook"), &corev1.Service{})
	assert.Equal(t, ns, svc.Namespace)
	d := deployment(t, objs)
	require.NotEmpty(t, svc.Spec.Selector)
	assert.True(t, labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)), "the Service selects the controller's pods")
	require.Len(t, svc.Spec.Ports, 1)
	p := svc.Spec.Ports[0]
	assert.Equal(t, int32(443), p.Port, "the port the webhook names")
	c := d.Spec.Template.Spec.Containers[0]
	i := slices.IndexFunc(c.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == p.TargetPort.String() })
	require.GreaterOrEqual(t, i, 0, "targetPort %s names no container port", p.TargetPort.String())
	assert.Contains(t, c.Args, fmt.Sprintf("-webhook-bind-address=:%d", c.Ports[i].ContainerPort), "the webhook server listens on the Service's target")
}

// checkAdmission checks admission's webhook configurations in objs, the
// controller being in ns: AddOnRollouts validated on create and update,
// RolloutApprovals given their creator on create, both failing closed,
// through the Service the work gate uses.
func checkAdmission(t *testing.T, objs []*unstructured.Unstructured, ns string) {
	t.Helper()
	service := func(path string) admissionregistrationv1.ServiceReference {
		return admissionregistrationv1.ServiceReference{Namespace: ns, Name: "rolloutkit-webhook", Path: ptr.To(path), Port: ptr.To[int32](443)}
	}
	rule := func(resource string, ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: []string{"rolloutkit.io"},
			APIVersions: []string{"v1alpha1"}, Resources: []string{resource}, Scope: ptr.To(admissionregistrationv1.ClusterScope)}}}
	}
	vwc := as(t, object(t, objs, "ValidatingWebhookConfiguration", rollouthook.AdmissionConfiguration), &admissionregistrationv1.ValidatingWebhookConfiguration{})
	require.Len(t, vwc.Webhooks, 1)
	v := vwc.Webhooks[0]
	assert.Equal(t, rollouthook.RolloutValidationWebhook, v.Name)
	require.NotNil(t, v.ClientConfig.Service)
	assert.Equal(t, service(rollouthook.RolloutValidationPath), *v.ClientConfig.Service)
	assert.Equal(t, rule("addonrollouts", admissionregistrationv1.Create, admissionregistrationv1.Update), v.Rules)
	assert.Equal(t, admissionregistrationv1.Fail, *v.FailurePolicy)
	assert.Equal(t, admissionregistrationv1.SideEffectClassNone, *v.SideEffects)

	mwc := as(t, object(t, objs, "MutatingWebhookConfiguration", rollouthook.AdmissionConfiguration), &admissionregistrationv1.MutatingWebhookConfiguration{})
	require.Len(t, mwc.Webhooks, 1)
	m := mwc.Webhooks[0]
	assert.Equal(t, rollouthook.ApprovalMutationWebhook, m.Name)
	require.NotNil(t, m.ClientConfig.Service)
	assert.Equal(t, service(rollouthook.ApprovalMutationPath), *m.ClientConfig.Service)
	assert.Equal(t, rule("rolloutapprovals", admissionregistrationv1.Create), m.Rules, "creates only: the CRD keeps the spec immutable")
	assert.Equal(t, admissionregistrationv1.Fail, *m.FailurePolicy, "no approval without a recorded approver")
	assert.Equal(t, admissionregistrationv1.SideEffectClassNone, *m.SideEffects)
	for _, cc := range []admissionregistrationv1.WebhookClientConfig{v.ClientConfig, m.ClientConfig} {
		assert.Nil(t, cc.URL)
		assert.Empty(t, cc.CABundle, "the controller or cainjector puts the CA there")
	}
}

// withCertManager renders a kustomization that lists base (a directory
// under config, or a path) and components/cert-manager, as README shows.
func withCertManager(t *testing.T, base string) []*unstructured.Unstructured {
	t.Helper()
	return withComponent(t, base, "components/cert-manager")
}

// withComponent renders a kustomization, in a directory of its own, that
// lists base as a resource and component as a component (each a
// directory under config, or a path).
func withComponent(t *testing.T, base, component string) []*unstructured.Unstructured {
	t.Helper()
	dir := t.TempDir()
	rel := func(p string) string {
		abs, err := filepath.Abs(p)
		require.NoError(t, err)
		r, err := filepath.Rel(dir, abs)
		require.NoError(t, err)
		return filepath.ToSlash(r)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"),
		fmt.Appendf(nil, "resources:\n- %s\ncomponents:\n- %s\n", rel(base), rel(component)), 0o600))
	objs, err := manifests.Render(dir)
	require.NoError(t, err)
	return objs
}

// movedDefault writes a copy of config/default that sets namespace ns, as
// someone who changes the namespace in its one place does, and returns
// its directory.
func movedDefault(t *testing.T, ns string) string {
	t.Helper()
	data, err := os.ReadFile("default/kustomization.yaml")
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "default")
	require.NoError(t, os.Mkdir(dir, 0o700))
	here, err := filepath.Abs(".")
	require.NoError(t, err)
	base, err := filepath.Rel(dir, here)
	require.NoError(t, err)
	text := strings.ReplaceAll(string(data), "namespace: "+namespace, "namespace: "+ns)
	text = strings.ReplaceAll(text, "- ../", "- "+filepath.ToSlash(base)+"/")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(text), 0o600))
	return dir
}

// checkCertManager checks that with is plain with cert-manager keeping
// the gate's certificate: its Issuers and Certificates added, the
// controller's own certificate's flag and RBAC taken out, the Secret
// cert-manager writes mounted at -webhook-cert-dir, and cainjector told
// to put its CA in the gate, the controller being in ns.
func checkCertManager(t *testing.T, plain, with []*unstructured.Unstructured, ns string) {
	t.Helper()
	want := slices.DeleteFunc(ids(plain), func(id string) bool { return strings.HasSuffix(id, "/rolloutkit-controller-webhook") })
	want = append(want, "Certificate "+ns+"/rolloutkit-webhook-ca", "Certificate "+ns+"/"+certSecret,
		"Issuer "+ns+"/rolloutkit-selfsigned", "Issuer "+ns+"/rolloutkit-webhook-ca")
	sort.Strings(want)
	assert.Equal(t, want, ids(with), "no RBAC for a certificate the controller does not keep")

	c := deployment(t, with).Spec.Template.Spec.Containers[0]
	assert.Equal(t, slices.DeleteFunc(slices.Clone(deployment(t, plain).Spec.Template.Spec.Containers[0].Args),
		func(a string) bool { return strings.HasPrefix(a, "-webhook-cert-secret=") }), c.Args)
	v := certVolume(t, deployment(t, with))
	assert.Nil(t, v.EmptyDir)
	require.NotNil(t, v.Secret)
	assert.Equal(t, certSecret, v.Secret.SecretName)

	cert := object(t, with, "Certificate", certSecret)
	for _, c := range []struct{ kind, name string }{
		{"ValidatingWebhookConfiguration", gatehook.WorkGateConfiguration},
		{"ValidatingWebhookConfiguration", rollouthook.AdmissionConfiguration},
		{"MutatingWebhookConfiguration", rollouthook.AdmissionConfiguration},
	} {
		assert.Equal(t, ns+"/"+cert.GetName(), object(t, with, c.kind, c.name).GetAnnotations()["cert-manager.io/inject-ca-from"], "%s %s", c.kind, c.name)
	}
	secretName, _, err := unstructured.NestedString(cert.Object, "spec", "secretName")
	require.NoError(t, err)
	assert.Equal(t, certSecret, secretName, "the Secret mounted")
	dnsNames, _, err := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
	require.NoError(t, err)
	assert.Equal(t, []string{"rolloutkit-webhook." + ns + ".svc", "rolloutkit-webhook." + ns + ".svc.cluster.local"}, dnsNames)
	checkWorkGate(t, with, ns)
	checkAdmission(t, with, ns)
}

// deployment returns the Deployment of objs.
func deployment(t *testing.T, objs []*unstructured.Unstructured) *appsv1.Deployment {
	t.Helper()
	return as(t, deploymentObject(t, objs), &appsv1.Deployment{})
}

func deploymentObject(t *testing.T, objs []*unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	i := slices.IndexFunc(objs, func(o *unstructured.Unstructured) bool { return o.GetKind() == "Deployment" })
	require.GreaterOrEqual(t, i, 0, "no Deployment")
	return objs[i]
}

// warnings collects the API server's warnings (a deprecated field, a Pod
// Security violation, an unknown field).
type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.seen
	w.seen = nil
	return out
}

// TestManifestsApply applies every object of config/default (the work
// gate's ValidatingWebhookConfiguration and Service among them), of
// config/rbac as kubectl apply -f reads it, config/ocm-placement's
// Deployment, and config/default with components/cert-manager's Deployment
// and gate, to the test hub with
// server-side apply in dry-run mode: a field the API does not know, a
// value it refuses, or a pod the namespace's restricted Pod Security
// Standard would refuse fails, so that a typo fails CI. Only the namespace
// is created for real (a dry run of an object in a namespace that does
// not exist fails).
func TestManifestsApply(t *testing.T) {
	t.Parallel()
	h, _ := testhub.ForTest(t)
	w := &warnings{}
	cfg := rest.CopyConfig(h.Config)
	cfg.WarningHandler = w
	c, err := testhub.NewClient(cfg)
	require.NoError(t, err)
	ctx := context.Background()
	objs := render(t)
	require.NoError(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace,
		Labels: objs[0].GetLabels()}}))
	apply := func(u *unstructured.Unstructured) error {
		return c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u.DeepCopy()), client.DryRunAll, client.ForceOwnership, client.FieldOwner("rolloutkit-manifests-test"))
	}

	plain, err := manifests.ReadDir("rbac")
	require.NoError(t, err)
	ocm, err := manifests.Render("ocm-placement")
	require.NoError(t, err)
	// With cert-manager, what changes that the test hub knows (it has no
	// cert-manager CRDs): the Deployment and the gate's annotation.
	cm := withCertManager(t, "default")
	for _, o := range slices.Concat(objs, plain, []*unstructured.Unstructured{deploymentObject(t, ocm),
		deploymentObject(t, cm), object(t, cm, "ValidatingWebhookConfiguration", gatehook.WorkGateConfiguration)}) {
		assert.NoError(t, apply(o), "%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
		assert.Empty(t, w.take(), "warnings for %s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
	}

	t.Run("a typo fails", func(t *testing.T) {
		typo := deploymentObject(t, objs).DeepCopy()
		require.NoError(t, unstructured.SetNestedField(typo.Object, int64(2), "spec", "replica"))
		assert.ErrorContains(t, apply(typo), "replica")

		privileged := deploymentObject(t, objs).DeepCopy()
		containers, _, err := unstructured.NestedSlice(privileged.Object, "spec", "template", "spec", "containers")
		require.NoError(t, err)
		require.NoError(t, unstructured.SetNestedField(containers[0].(map[string]any), true, "securityContext", "allowPrivilegeEscalation"))
		require.NoError(t, unstructured.SetNestedSlice(privileged.Object, containers, "spec", "template", "spec", "containers"))
		require.NoError(t, apply(privileged))
		assert.NotEmpty(t, w.take(), "the restricted Pod Security Standard says nothing of a container that may escalate privileges")
	})
}
