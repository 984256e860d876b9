package ocmplacement

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rolloutkit/rolloutkit/internal/realhub"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
)

// Where OCM's placement controller leads: library-go's controllercmd
// elects with the Lease <component>-lock in the component's namespace,
// cluster-manager's open-cluster-management-hub on a real hub.
const (
	ocmHubNamespace = "open-cluster-management-hub"
	ocmLeaseName    = "placement-lock"
	ocmLease        = ocmHubNamespace + "/" + ocmLeaseName
)

// The Placement OCM's controller schedules before the test starts ours:
// it selects the dev cluster of two, through the global cluster set.
const (
	leasePlacementNamespace = "default"
	leasePlacementName      = "dev"
	leaseClusterSet         = "global"
)

// leaseHub is the test hub and the test's clients of it.
type leaseHub struct {
	kubeconfig string
	kube       kubernetes.Interface
	cluster    clusterclient.Interface
}

// TestRefusesBesideOCMPlacementController proves, against OCM v1.2.0's
// own placement controller running on a real kube-apiserver with OCM's
// CRDs, that the controller binary's -placements guard works on the Lease
// that controller really takes. With OCM's controller leading (its Lease
// open-cluster-management-hub/placement-lock held, and a Placement
// scheduled by it), the controller started with -placements exits 1 and
// its stderr names that Lease and the holder identity OCM's controller
// wrote there; started without -placements (the default) it starts and
// serves its readiness probe, and exits 0 when interrupted; and once OCM's
// controller has stopped and released its Lease, -placements starts too.
//
// OCM's controller is the "controller" command of OCM's cmd/placement,
// hub.NewPlacementController, run through library-go's controllercmd in
// a process of its own (this test binary, re-executed: see TestMain).
func TestRefusesBesideOCMPlacementController(t *testing.T) {
	t.Parallel()
	realhub.NeedAPIServer(t)
	dir := t.TempDir()
	bins := realhub.BuildHubPrograms(t, dir, "ocmplacement-bin")
	_, kubeconfig := realhub.StartTestHub(t, bins.Testhub, dir, "")
	h := newLeaseHub(t, kubeconfig)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	require.NoError(t, h.seed(ctx))

	ocm := startOCMPlacement(t, dir, kubeconfig)
	h.waitScheduledByOCM(ctx, t, ocm)
	holder := h.waitLeaseHolder(ctx, t, ocm)
	host, err := os.Hostname()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(holder, host+"_"), "holder %q: want library-go's identity, the host name, _ and a UID", holder)

	for i, tc := range []struct {
		name       string
		placements bool
		stopOCM    bool // stop OCM's controller first, and see its Lease released
		refused    bool
	}{
		{name: "-placements beside OCM's placement controller: refused", placements: true, refused: true},
		{name: "without -placements beside it: starts"},
		{name: "-placements once OCM's has stopped and released its Lease: starts", placements: true, stopOCM: true},
	} {
		name := fmt.Sprintf("controller-%d", i)
		t.Run(tc.name, func(t *testing.T) {
			if tc.stopOCM {
				h.stopOCM(ctx, t, ocm, holder)
			}
			args := []string{"-kubeconfig", kubeconfig, "-webhook-bind-address", "0", "-metrics-bind-address", "0"}
			if tc.placements {
				args = append(args, "-placements")
			}
			if tc.refused {
				h.assertRefused(ctx, t, bins.Controller, dir, name, holder, args)
				return
			}
			assertStarts(t, bins.Controller, dir, name, args)
		})
	}
}

// newLeaseHub builds the test's clients of the hub in kubeconfig.
func newLeaseHub(tb testing.TB, kubeconfig string) *leaseHub {
	tb.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(tb, err)
	h := &leaseHub{kubeconfig: kubeconfig}
	h.kube, err = kubernetes.NewForConfig(cfg)
	require.NoError(tb, err)
	h.cluster, err = clusterclient.NewForConfig(cfg)
	require.NoError(tb, err)
	return h
}

// seed writes what a hub that cluster-manager installed has, for OCM's
// placement controller: its namespace (where it leads and records
// events); and what it schedules: a dev and a prod cluster, the global
// cluster set bound in the Placement's namespace, and a Placement of the
// dev clusters.
func (h *leaseHub) seed(ctx context.Context) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ocmHubNamespace}}
	if _, err := h.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return err
	}
	for _, env := range []string{"dev", "prod"} {
		mc := &clusterv1.ManagedCluster{
			ObjectMeta: metav1.ObjectMeta{Name: env + "-cluster", Labels: map[string]string{"environment": env}},
			Spec:       clusterv1.ManagedClusterSpec{HubAcceptsClient: true, LeaseDurationSeconds: 60},
		}
		if _, err := h.cluster.ClusterV1().ManagedClusters().Create(ctx, mc, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	set := &clusterv1beta2.ManagedClusterSet{
		ObjectMeta: metav1.ObjectMeta{Name: leaseClusterSet},
		Spec: clusterv1beta2.ManagedClusterSetSpec{ClusterSelector: clusterv1beta2.ManagedClusterSelector{
			SelectorType: clusterv1beta2.LabelSelector, LabelSelector: &metav1.LabelSelector{},
		}},
	}
	if _, err := h.cluster.ClusterV1beta2().ManagedClusterSets().Create(ctx, set, metav1.CreateOptions{}); err != nil {
		return err
	}
	binding := &clusterv1beta2.ManagedClusterSetBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: leasePlacementNamespace, Name: leaseClusterSet},
		Spec:       clusterv1beta2.ManagedClusterSetBindingSpec{ClusterSet: leaseClusterSet},
	}
	if _, err := h.cluster.ClusterV1beta2().ManagedClusterSetBindings(leasePlacementNamespace).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return err
	}
	p := &clusterv1beta1.Placement{
		ObjectMeta: metav1.ObjectMeta{Namespace: leasePlacementNamespace, Name: leasePlacementName},
		Spec: clusterv1beta1.PlacementSpec{
			ClusterSets: []string{leaseClusterSet},
			Predicates: []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"environment": "dev"}},
			}}},
		},
	}
	_, err := h.cluster.ClusterV1beta1().Placements(leasePlacementNamespace).Create(ctx, p, metav1.CreateOptions{})
	return err
}

// startOCMPlacement starts OCM's placement controller against the hub in
// kubeconfig, in namespace open-cluster-management-hub, as
// cluster-manager deploys it ("placement controller"), with its default
// leader election (a 137s Lease). Its secure server (healthz, metrics)
// listens on a free 127.0.0.1 port, with the self-signed certificate
// library-go makes in a directory of the test's.
func startOCMPlacement(tb testing.TB, dir, kubeconfig string) *realhub.Process {
	tb.Helper()
	self, err := os.Executable()
	require.NoError(tb, err)
	tmp := filepath.Join(dir, "ocm-tmp")
	require.NoError(tb, os.Mkdir(tmp, 0o755))
	return realhub.StartProcess(tb, dir, "", "ocm-placement", []string{envOCMPlacement + "=1", "TMPDIR=" + tmp}, false, self,
		"--kubeconfig", kubeconfig, "--namespace", ocmHubNamespace, "--listen", realhub.FreeAddr(tb))
}

// waitScheduledByOCM waits until OCM's placement controller has scheduled
// the Placement: a PlacementDecision of it that lists the dev cluster
// alone, and its status counting one cluster selected.
func (h *leaseHub) waitScheduledByOCM(ctx context.Context, tb testing.TB, ocm *realhub.Process) {
	tb.Helper()
	selector := clusterv1beta1.PlacementLabel + "=" + leasePlacementName
	realhub.Poll(tb, 2*time.Minute, "OCM's placement controller to schedule Placement "+leasePlacementNamespace+"/"+leasePlacementName, func() (bool, string, error) {
		if ocm.Exited() {
			return false, "", errors.New(ocm.Describe())
		}
		pds, err := h.cluster.ClusterV1beta1().PlacementDecisions(leasePlacementNamespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err.Error(), nil
		}
		var decided []string
		for _, pd := range pds.Items {
			for _, d := range pd.Status.Decisions {
				decided = append(decided, d.ClusterName)
			}
		}
		p, err := h.cluster.ClusterV1beta1().Placements(leasePlacementNamespace).Get(ctx, leasePlacementName, metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		status := fmt.Sprintf("%d PlacementDecisions deciding %v; Placement status selects %d", len(pds.Items), decided, p.Status.NumberOfSelectedClusters)
		return slices.Equal(decided, []string{"dev-cluster"}) && p.Status.NumberOfSelectedClusters == 1, status + "\n" + ocm.Describe(), nil
	})
}

// waitLeaseHolder waits until the Lease of OCM's placement controller has
// a holder, and returns the holder's identity.
func (h *leaseHub) waitLeaseHolder(ctx context.Context, tb testing.TB, ocm *realhub.Process) string {
	tb.Helper()
	var holder string
	realhub.Poll(tb, time.Minute, "OCM's placement controller to hold Lease "+ocmLease, func() (bool, string, error) {
		if ocm.Exited() {
			return false, "", errors.New(ocm.Describe())
		}
		holder = h.leaseHolder(ctx)
		return holder != "" && !strings.HasPrefix(holder, "("), "holder " + holder + "\n" + ocm.Describe(), nil
	})
	return holder
}

// leaseHolder reads the holder identity of OCM's Lease: "" when none,
// or what went wrong in parentheses.
func (h *leaseHub) leaseHolder(ctx context.Context) string {
	l, err := h.kube.CoordinationV1().Leases(ocmHubNamespace).Get(ctx, ocmLeaseName, metav1.GetOptions{})
	switch {
	case err != nil:
		return "(" + err.Error() + ")"
	case l.Spec.HolderIdentity == nil:
		return ""
	}
	return *l.Spec.HolderIdentity
}

// stopOCM stops OCM's placement controller with SIGTERM, as a pod's
// deletion does, and waits until it has exited and released its Lease
// (library-go elects with ReleaseOnCancel): holder was its identity.
func (h *leaseHub) stopOCM(ctx context.Context, tb testing.TB, ocm *realhub.Process, holder string) {
	tb.Helper()
	require.Equal(tb, holder, h.leaseHolder(ctx), "OCM's placement controller still holds its Lease before it is stopped")
	require.NoError(tb, ocm.Signal(syscall.SIGTERM))
	require.True(tb, ocm.Wait(time.Minute), "OCM's placement controller did not exit within 1m of SIGTERM: %s", ocm.Describe())
	tb.Logf("OCM's placement controller exited with code %d after SIGTERM", ocm.ExitCode())
	assert.Empty(tb, h.leaseHolder(ctx), "Lease %s once OCM's placement controller has stopped: want it released", ocmLease)
}

// assertRefused runs the controller with args and asserts that it refuses
// to start: it exits 1, and its stderr names OCM's Lease and its holder,
// which still holds it afterwards.
func (h *leaseHub) assertRefused(ctx context.Context, tb testing.TB, bin, dir, name, holder string, args []string) {
	tb.Helper()
	ours := realhub.StartProcess(tb, dir, "", name, nil, false, bin, args...)
	require.True(tb, ours.Wait(2*time.Minute), "the controller did not exit within 2m: %s", ours.Describe())
	stderr := ours.Output("stderr")
	assert.Equal(tb, 1, ours.ExitCode(), "exit code; stderr:\n%s", stderr)
	assert.Contains(tb, stderr, "OCM's placement controller holds lease "+ocmLease)
	assert.Contains(tb, stderr, "(holder "+holder+", renewed ")
	assert.Equal(tb, holder, h.leaseHolder(ctx), "the Lease's holder after the controller's refusal")
}

// assertStarts starts the controller with args and asserts that it starts
// (its readiness probe answers 200) and that, interrupted, it exits 0.
func assertStarts(tb testing.TB, bin, dir, name string, args []string) {
	tb.Helper()
	probe := realhub.FreeAddr(tb)
	ours := realhub.StartProcess(tb, dir, "", name, nil, false, bin, append(args, "-health-probe-bind-address", probe)...)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	realhub.Poll(tb, 2*time.Minute, "the controller's readiness probe to answer 200", func() (bool, string, error) {
		if ours.Exited() {
			return false, "", errors.New(ours.Describe())
		}
		resp, err := client.Get("http://" + probe + "/readyz")
		if err != nil {
			return false, err.Error(), nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status + "\n" + ours.Describe(), nil
	})
	require.NoError(tb, ours.Signal(os.Interrupt))
	require.True(tb, ours.Wait(time.Minute), "the controller did not exit within 1m of SIGINT: %s", ours.Describe())
	stderr := ours.Output("stderr")
	assert.Equal(tb, 0, ours.ExitCode(), "exit code; stderr:\n%s", stderr)
	assert.NotContains(tb, stderr, "holds lease")
}
