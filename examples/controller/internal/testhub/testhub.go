package testhub

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/rolloutkit/rolloutkit/examples/controller/config"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
)

// EnvAssets is the environment variable envtest reads the binaries'
// directory from.
const EnvAssets = "KUBEBUILDER_ASSETS"

// EnvRequire, when set (CI sets it), makes ForTest fail a test that finds
// no test API server instead of skipping it.
const EnvRequire = "ROLLOUTKIT_REQUIRE_APISERVER"

// ForTest starts a hub of the test's own, with opts, stopped when the test
// ends, and returns it with an uncached client of the controller's scheme.
// Without the test API server the test is skipped and says so (failed when
// EnvRequire is set); in -short mode it is skipped.
func ForTest(t testing.TB, opts ...Option) (*Hub, client.Client) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real kube-apiserver: not in -short mode")
	}
	if _, err := Assets(); err != nil {
		if os.Getenv(EnvRequire) != "" {
			t.Fatalf("%s is set and there is no test API server: %v", EnvRequire, err)
		}
		t.Skipf("SKIP (no test API server): %v", err)
	}
	h, err := Start(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Stop() })
	c, err := h.Client()
	if err != nil {
		t.Fatal(err)
	}
	return h, c
}

// Client returns an uncached client of the hub with the controller's
// scheme (Kubernetes, OCM cluster, add-on and work types, CRDs).
func (h *Hub) Client() (client.Client, error) {
	return NewClient(h.Config)
}

// NewClient returns an uncached client of cfg with the controller's scheme.
func NewClient(cfg *rest.Config) (client.Client, error) {
	scheme, err := hubclient.NewScheme()
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}

// Hub is a running test hub.
type Hub struct {
	// Config reaches the API server as an administrator.
	Config     *rest.Config
	env        *envtest.Environment
	files      string             // the hub's own directory (restart.go)
	conversion *conversionWebhook // converts the add-ons between versions
}

// Assets returns the directory holding etcd and kube-apiserver: $KUBEBUILDER_ASSETS
// when set, else the cache hack/test-apiserver.sh builds into. It is an
// error when the binaries are not there; the message says how to build them.
func Assets() (string, error) {
	dir := os.Getenv(EnvAssets)
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".cache", "rolloutkit", "k8s-v1.37.2", "bin")
		if c := os.Getenv("ROLLOUTKIT_CACHE"); c != "" {
			dir = filepath.Join(c, "k8s-v1.37.2", "bin")
		}
	}
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return "", fmt.Errorf("no %s in %s: build the test API server with hack/test-apiserver.sh (or set %s)", b, dir, EnvAssets)
		}
	}
	return dir, nil
}

// CRDFiles returns the OCM CustomResourceDefinition files the hub needs,
// from the open-cluster-management.io/api module that the go command
// resolves for this module.
func CRDFiles() ([]string, error) {
	out, err := exec.Command("go", "list", "-m", "-json", "open-cluster-management.io/api").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("go list -m open-cluster-management.io/api: %w: %s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("go list -m open-cluster-management.io/api: %w", err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil {
		return nil, err
	}
	if mod.Dir == "" {
		return nil, errors.New("go list -m open-cluster-management.io/api: module not downloaded (run go mod download)")
	}
	files := []string{
		"cluster/v1/0000_00_clusters.open-cluster-management.io_managedclusters.crd.yaml",
		"cluster/v1alpha1/0000_05_clusters.open-cluster-management.io_addonplacementscores.crd.yaml",
		"cluster/v1beta1/0000_02_clusters.open-cluster-management.io_placements.crd.yaml",
		"cluster/v1beta1/0000_03_clusters.open-cluster-management.io_placementdecisions.crd.yaml",
		"cluster/v1beta2/0000_00_clusters.open-cluster-management.io_managedclustersets.crd.yaml",
		"cluster/v1beta2/0000_01_clusters.open-cluster-management.io_managedclustersetbindings.crd.yaml",
		// These serve both add-on versions, v1alpha1 stored; Start has
		// them convert through its conversion webhook.
		cmaCRDFile,
		mcaCRDFile,
		// The add-on's agents reach the clusters as ManifestWorks, whose
		// status is where progress comes from.
		"work/v1/0000_00_work.open-cluster-management.io_manifestworks.crd.yaml",
	}
	for i, f := range files {
		files[i] = filepath.Join(mod.Dir, filepath.FromSlash(f))
		if _, err := os.Stat(files[i]); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// The CRDs of ClusterManagementAddOn and ManagedClusterAddOn in the API
// module, which OCM's add-on manager serves the conversion of.
const (
	cmaCRDFile = "addon/v1beta1/0000_00_addon.open-cluster-management.io_clustermanagementaddons.crd.yaml"
	mcaCRDFile = "addon/v1beta1/0000_01_addon.open-cluster-management.io_managedclusteraddons.crd.yaml"
)

// ProxyConfigCRD is a minimal CustomResourceDefinition for the seed's
// cluster-scoped ManagedProxyConfiguration: any spec, and a status
// subresource.
func ProxyConfigCRD() *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "managedproxyconfigurations.proxy.open-cluster-management.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "proxy.open-cluster-management.io",
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "managedproxyconfigurations", Singular: "managedproxyconfiguration",
				Kind: "ManagedProxyConfiguration", ListKind: "ManagedProxyConfigurationList",
			},
			Scope: apiextensionsv1.ClusterScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1alpha1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec":   {Type: "object", XPreserveUnknownFields: &preserve},
						"status": {Type: "object", XPreserveUnknownFields: &preserve},
					},
				}},
			}},
		},
	}
}

// Start starts etcd and kube-apiserver, with opts, and installs the CRDs,
// the add-ons' converting between v1alpha1 and v1beta1 through a
// conversion webhook that the hub serves itself, as OCM's add-on manager
// serves it on a real hub (ConversionURL). Stop the hub when done.
func Start(opts ...Option) (*Hub, error) {
	assets, err := Assets()
	if err != nil {
		return nil, err
	}
	files, err := CRDFiles()
	if err != nil {
		return nil, err
	}
	own, err := config.CRDs()
	if err != nil {
		return nil, err
	}
	conversion, err := startConversionWebhook()
	if err != nil {
		return nil, err
	}
	crds, files, err := conversion.crds(files)
	if err != nil {
		return nil, errors.Join(err, conversion.stop())
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDInstallOptions: envtest.CRDInstallOptions{
			Paths:              files,
			CRDs:               append(own, ProxyConfigCRD()),
			ErrorIfPathMissing: true,
		},
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// kube-apiserver v1.37 will not reconcile its endpoint on a loopback
	// address; nothing here needs that endpoint.
	env.ControlPlane.GetAPIServer().Configure().Set("endpoint-reconciler-type", "none")
	// envtest authorizes with RBAC (system:masters for the admin Config).
	// As on OpenShift, setting an owner reference that blocks its owner's
	// deletion takes update of the owner's finalizers: a controller whose
	// RBAC lacks it fails here as it would there (TestRBACLeastPrivilege).
	env.ControlPlane.GetAPIServer().Configure().Append("enable-admission-plugins", "OwnerReferencesPermissionEnforcement")
	h := &Hub{env: env, conversion: conversion}
	if err := h.configure(opts); err != nil {
		return nil, errors.Join(err, os.RemoveAll(h.files), conversion.stop())
	}
	cfg, err := env.Start()
	if err != nil {
		_ = h.Stop()
		return nil, fmt.Errorf("starting the test hub: %w", err)
	}
	h.Config = cfg
	// Installed apart: envtest sets the conversion of the CRDs it installs
	// with the environment (strategy None for types its scheme cannot
	// convert).
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{CRDs: crds}); err != nil {
		return nil, errors.Join(fmt.Errorf("installing the add-on CRDs: %w", err), h.Stop())
	}
	return h, nil
}

// KubeConfig returns a kubeconfig for an administrator of the hub.
func (h *Hub) KubeConfig() ([]byte, error) {
	u, err := h.env.AddUser(envtest.User{Name: "rolloutkit-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, err
	}
	return u.KubeConfig()
}

// Stop stops kube-apiserver, then etcd, then the conversion webhook.
func (h *Hub) Stop() error {
	return errors.Join(h.env.Stop(), os.RemoveAll(h.files), h.conversion.stop())
}

// ConversionURL is where the API server calls the hub's conversion webhook
// to convert ClusterManagementAddOns and ManagedClusterAddOns between
// v1alpha1, the version stored, and v1beta1.
func (h *Hub) ConversionURL() string {
	return h.conversion.url
}

// Describe names the hub for a person: the API server's address.
func (h *Hub) Describe() string {
	return strings.TrimSuffix(h.Config.Host, "/")
}
