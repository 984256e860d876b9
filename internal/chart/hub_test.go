package chart

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rolloutkit/rolloutkit/internal/realhub"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v4/pkg/chart/common"
	chartutil "helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/engine"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

// hub is the test hub as the test reaches it: as its administrator.
type hub struct {
	cfg    *rest.Config
	dyn    dynamic.Interface
	cs     kubernetes.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

// newHub connects to the hub of kubeconfig.
func newHub(t testing.TB, kubeconfig string) *hub {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	h := &hub{cfg: cfg}
	h.dyn, err = dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	h.cs = cs
	h.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cs.Discovery()))
	return h
}

// resource returns the client of o's resource, in o's namespace if it
// has one.
func (h *hub) resource(o *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	gvk := o.GroupVersionKind()
	m, err := h.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		h.mapper.Reset()
		if m, err = h.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			return nil, err
		}
	}
	if m.Scope.Name() == "namespace" {
		return h.dyn.Resource(m.Resource).Namespace(o.GetNamespace()), nil
	}
	return h.dyn.Resource(m.Resource), nil
}

// apply applies o server-side, as helm install does (Helm 4 applies
// server-side), retrying while its kind is not served yet (a CRD just
// made).
func (h *hub) apply(t testing.TB, o *unstructured.Unstructured) {
	t.Helper()
	realhub.Poll(t, 30*time.Second, "applying "+id(o), func() (bool, string, error) {
		r, err := h.resource(o)
		if err == nil {
			_, err = r.Apply(context.Background(), o.GetName(), o, metav1.ApplyOptions{FieldManager: "helm", Force: true})
		}
		if err != nil {
			return false, err.Error(), nil
		}
		return true, "", nil
	})
}

// get reads the object of kind (apiVersion, kind) and name, or fails t.
func (h *hub) get(t testing.TB, apiVersion, kind, name string) *unstructured.Unstructured {
	t.Helper()
	o := &unstructured.Unstructured{}
	o.SetAPIVersion(apiVersion)
	o.SetKind(kind)
	o.SetName(name)
	r, err := h.resource(o)
	require.NoError(t, err)
	got, err := r.Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return got
}

// callAt points every webhook of the webhook configuration o at base
// (https://127.0.0.1:PORT) and its Service's path: a test API server has
// no Service network to reach the controller through.
func callAt(t testing.TB, o *unstructured.Unstructured, base string) {
	t.Helper()
	hooks, _, err := unstructured.NestedSlice(o.Object, "webhooks")
	require.NoError(t, err)
	for _, w := range hooks {
		cc := w.(map[string]any)["clientConfig"].(map[string]any)
		path, _, _ := unstructured.NestedString(cc, "service", "path")
		require.NotEmpty(t, path, "%s: a webhook calls no Service path", id(o))
		delete(cc, "service")
		cc["url"] = base + path
	}
	require.NoError(t, unstructured.SetNestedSlice(o.Object, hooks, "webhooks"))
}

// install applies the chart's objects as helm install --create-namespace
// does, the namespace labelled as the README says, the webhooks pointed
// at base.
func (h *hub) install(t testing.TB, objs objects, base string) {
	t.Helper()
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": namespace, "labels": map[string]any{"pod-security.kubernetes.io/enforce": "restricted"}}}}
	h.apply(t, ns)
	for _, o := range objs.ofKind(crdKind) {
		h.apply(t, o)
	}
	for _, k := range objs.ids() {
		o := objs[k].DeepCopy()
		switch o.GetKind() {
		case "CustomResourceDefinition":
			continue
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			callAt(t, o, base)
		}
		h.apply(t, o)
	}
}

// serviceAccountKubeconfig writes a kubeconfig that authenticates as the
// chart's ServiceAccount alone (a token from the TokenRequest API, the
// API server's CA, no client certificate), and returns its path.
func (h *hub) serviceAccountKubeconfig(t testing.TB, dir string) string {
	t.Helper()
	tr, err := h.cs.CoreV1().ServiceAccounts(namespace).CreateToken(context.Background(), "rolloutkit-controller",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	require.NoError(t, err)
	ca := h.cfg.CAData
	if len(ca) == 0 {
		ca, err = os.ReadFile(h.cfg.CAFile)
		require.NoError(t, err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["hub"] = &clientcmdapi.Cluster{Server: h.cfg.Host, CertificateAuthorityData: ca}
	kc.AuthInfos["controller"] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	kc.Contexts["hub"] = &clientcmdapi.Context{Cluster: "hub", AuthInfo: "controller"}
	kc.CurrentContext = "hub"
	path := filepath.Join(dir, "controller.kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
}

// podOf returns a Pod of the Deployment d's template, named name, with
// priorityClassName class when not empty.
func podOf(t testing.TB, d *unstructured.Unstructured, name, class string) *unstructured.Unstructured {
	t.Helper()
	spec := podSpec(t, d)
	if class != "" {
		spec["priorityClassName"] = class
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": namespace}, "spec": spec}}
}

// admittedPriority creates pod in a server-side dry run, and returns the
// priority the API server's admission gave it.
func (h *hub) admittedPriority(t testing.TB, pod *unstructured.Unstructured) int64 {
	t.Helper()
	r, err := h.resource(pod)
	require.NoError(t, err)
	got, err := r.Create(context.Background(), pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	require.NoError(t, err, "the API server refuses a pod of the Deployment (restricted Pod Security, priority)")
	p, _, err := unstructured.NestedInt64(got.Object, "spec", "priority")
	require.NoError(t, err)
	return p
}

// controllerArgs are the rendered Deployment's container arguments, with
// $(POD_NAMESPACE) expanded as the kubelet does, and after them what a
// run outside the cluster needs: the ServiceAccount's kubeconfig,
// addresses of free ports on 127.0.0.1, a certificate directory and the
// certificate's host (the API server calls 127.0.0.1).
func controllerArgs(t testing.TB, d *unstructured.Unstructured, kubeconfig, dir string, probe, metrics, webhook string) []string {
	t.Helper()
	var args []string
	for _, a := range containerArgs(t, d) {
		args = append(args, strings.ReplaceAll(a, "$(POD_NAMESPACE)", namespace))
	}
	return append(args, "-kubeconfig="+kubeconfig, "-health-probe-bind-address="+probe,
		"-metrics-bind-address="+metrics, "-webhook-bind-address="+webhook,
		"-webhook-cert-dir="+filepath.Join(dir, "certs"), "-webhook-cert-hosts=127.0.0.1")
}

// TestChartOnHub applies the chart's objects, rendered with a second
// taken lifecycle (team-a), to a real kube-apiserver with OCM's CRDs: the
// CRDs, RBAC, webhook configurations (pointed at 127.0.0.1), Services,
// PDB, PriorityClass and Deployment are all accepted, and a pod of the
// Deployment passes the namespace's restricted Pod Security and gets
// rolloutkit-critical's priority (and system-cluster-critical's, which
// the API server admits outside kube-system). The controller binary then
// runs with the rendered Deployment's arguments as the chart's
// ServiceAccount: it becomes ready, puts its CA in the three webhook
// configurations, its admission refuses a bad AddOnRollout, it scopes the
// work gate to an add-on of lifecycle team-a, and nothing it does is
// forbidden. Rendered again as helm upgrade renders it (lookup), the
// gate keeps that scope, and Helm's unforced server-side apply of it
// does not conflict with the controller's write.
func TestChartOnHub(t *testing.T) {
	t.Parallel()
	realhub.NeedAPIServer(t)
	dir := t.TempDir()
	progs := realhub.BuildHubPrograms(t, dir, "chart-bin")
	_, kubeconfig := realhub.StartTestHub(t, progs.Testhub, dir, controllerModule(t))
	h := newHub(t, kubeconfig)
	vals := map[string]any{"addOns": map[string]any{"lifecycles": []any{"rolloutkit", "team-a"}}}
	chart := mustRenderChart(t, vals)
	webhook := realhub.FreeAddr(t)
	h.install(t, chart, "https://"+webhook)

	d := chart[deploymentID]
	assert.Equal(t, int64(1000000), h.admittedPriority(t, podOf(t, d, "chart-pod", "")), "the chart's rolloutkit-critical")
	assert.Equal(t, int64(2000000000), h.admittedPriority(t, podOf(t, d, "critical-pod", "system-cluster-critical")),
		"system-cluster-critical, admitted outside kube-system")

	probe, metrics := realhub.FreeAddr(t), realhub.FreeAddr(t)
	args := controllerArgs(t, d, h.serviceAccountKubeconfig(t, dir), dir, probe, metrics, webhook)
	ctl := realhub.StartProcess(t, dir, "", "controller", nil, false, progs.Controller, args...)
	realhub.Poll(t, 60*time.Second, "the controller's /readyz", func() (bool, string, error) {
		if ctl.Exited() {
			return false, "", fmt.Errorf("%s", ctl.Describe())
		}
		resp, err := http.Get("http://" + probe + "/readyz")
		if err != nil {
			return false, err.Error(), nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status + "; " + ctl.Describe(), nil
	})
	for _, c := range [][2]string{{"ValidatingWebhookConfiguration", "rolloutkit-work-gate"},
		{"ValidatingWebhookConfiguration", "rolloutkit-admission"}, {"MutatingWebhookConfiguration", "rolloutkit-admission"}} {
		hooks, _, _ := unstructured.NestedSlice(h.get(t, "admissionregistration.k8s.io/v1", c[0], c[1]).Object, "webhooks")
		for _, w := range hooks {
			ca, _, _ := unstructured.NestedString(w.(map[string]any), "clientConfig", "caBundle")
			assert.NotEmpty(t, ca, "%s %s: the controller's CA", c[0], c[1])
		}
	}
	h.refusesBadRollout(t)
	h.gateScoped(t, "team-a-addon", "team-a")
	h.upgradeKeepsGateScope(t, vals, "https://"+webhook, "team-a-addon")
	assert.NotContains(t, ctl.Output("stderr"), "forbidden", "the chart's RBAC refused the controller something")
}

// refusesBadRollout creates an AddOnRollout whose time zone is no IANA
// name, which only the controller's webhook refuses.
func (h *hub) refusesBadRollout(t testing.TB) {
	t.Helper()
	bad := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "rolloutkit.io/v1alpha1", "kind": "AddOnRollout",
		"metadata": map[string]any{"name": "cluster-proxy"},
		"spec":     map[string]any{"windows": []any{map[string]any{"days": []any{"Mon"}, "start": "09:00", "end": "17:00", "timeZone": "Europe/Berln"}}}}}
	r, err := h.resource(bad)
	require.NoError(t, err)
	_, err = r.Create(context.Background(), bad, metav1.CreateOptions{})
	require.Error(t, err, "a time zone that is no IANA name")
	assert.Contains(t, err.Error(), `admission webhook "addonrollouts.rolloutkit.io" denied the request`)
}

// gateScoped creates a ClusterManagementAddOn name of lifecycle, and
// waits until the work gate's objectSelector names it.
func (h *hub) gateScoped(t testing.TB, name, lifecycle string) {
	t.Helper()
	cma := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "addon.open-cluster-management.io/v1alpha1", "kind": "ClusterManagementAddOn",
		"metadata": map[string]any{"name": name, "annotations": map[string]any{"addon.open-cluster-management.io/lifecycle": lifecycle}},
		"spec":     map[string]any{}}}
	h.apply(t, cma)
	realhub.Poll(t, 30*time.Second, "the work gate scoped to "+name, func() (bool, string, error) {
		gate := h.get(t, "admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "rolloutkit-work-gate")
		hooks, _, _ := unstructured.NestedSlice(gate.Object, "webhooks")
		sel := fmt.Sprint(hooks[0].(map[string]any)["objectSelector"])
		return strings.Contains(sel, name), sel, nil
	})
}

// upgradeKeepsGateScope renders the work gate's configuration as helm
// upgrade does, looking up the live objects (lookup), and applies it
// server-side as Helm's field manager without forcing: the scope the
// controller wrote (naming addOn) is rendered back, so the apply neither
// conflicts with the controller's write nor opens the gate.
func (h *hub) upgradeKeepsGateScope(t testing.TB, vals map[string]any, base, addOn string) {
	t.Helper()
	ch, err := loader.Load(chartDir)
	require.NoError(t, err)
	caps := common.DefaultCapabilities.Copy()
	caps.KubeVersion = *kubeVersion
	rv, err := chartutil.ToRenderValues(ch, vals, common.ReleaseOptions{Name: releaseName, Namespace: namespace, IsUpgrade: true}, caps)
	require.NoError(t, err)
	files, err := engine.New(h.cfg).Render(ch, rv)
	require.NoError(t, err)
	objs, err := decodeAll([]byte(files["rolloutkit/templates/webhook/manifests.yaml"]))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	gate := objs[0]
	hooks, _, _ := unstructured.NestedSlice(gate.Object, "webhooks")
	for _, w := range hooks {
		assert.Contains(t, fmt.Sprint(w.(map[string]any)["objectSelector"]), addOn, "helm upgrade renders the live scope")
	}
	callAt(t, gate, base)
	r, err := h.resource(gate)
	require.NoError(t, err)
	_, err = r.Apply(context.Background(), gate.GetName(), gate, metav1.ApplyOptions{FieldManager: "helm"})
	require.NoError(t, err, "helm upgrade's server-side apply, not forced")
}

// controllerModule is examples/controller's directory: the chart's hub
// takes OCM's CRDs from the OCM API module the controller requires.
func controllerModule(tb testing.TB) string {
	tb.Helper()
	wd, err := filepath.Abs(filepath.Join("..", "..", "examples", "controller"))
	if err != nil {
		tb.Fatal(err)
	}
	return wd
}
