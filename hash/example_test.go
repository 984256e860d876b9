package hash_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/hash"
)

// ExampleSpec hashes the cluster-proxy ManagedProxyConfiguration of
// docs/story.md as the Helm chart installs it at v0.9.0, then the same
// config after a change of metadata only, after a change of the hub-side
// proxyServer.image only, and after a Helm upgrade to v0.9.1 (both images).
// Only the spec counts: metadata leaves the hash, so no rollout starts; the
// hub-side image alone changes it, so it starts a staged agent rollout
// although only the hub was meant to change.
func ExampleSpec() {
	const manifest = `
apiVersion: proxy.open-cluster-management.io/v1alpha1
kind: ManagedProxyConfiguration
metadata:
  name: cluster-proxy
spec:
  authentication:
    dump:
      secrets: {}
    signer:
      type: SelfSigned
  proxyServer:
    image: quay.io/open-cluster-management/cluster-proxy:v0.9.0
    replicas: 1
    namespace: open-cluster-management
    entrypoint:
      type: PortForward
    port: 8091
  proxyAgent:
    image: quay.io/open-cluster-management/cluster-proxy:v0.9.0
    replicas: 1
`
	cfg := new(unstructured.Unstructured)
	if err := yaml.Unmarshal([]byte(manifest), &cfg.Object); err != nil {
		fmt.Println(err)
		return
	}
	show := func(what string, obj *unstructured.Unstructured) {
		h, err := hash.Spec(obj)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-22s %s\n", what, h)
	}
	show("installed (v0.9.0)", cfg)

	relabelled := cfg.DeepCopy()
	relabelled.SetLabels(map[string]string{"app.kubernetes.io/version": "v0.9.1"})
	show("metadata only", relabelled)

	const image = "quay.io/open-cluster-management/cluster-proxy:v0.9.1"
	serverOnly := cfg.DeepCopy()
	if err := unstructured.SetNestedField(serverOnly.Object, image, "spec", "proxyServer", "image"); err != nil {
		fmt.Println(err)
		return
	}
	show("proxyServer.image only", serverOnly)

	upgraded := serverOnly.DeepCopy()
	if err := unstructured.SetNestedField(upgraded.Object, image, "spec", "proxyAgent", "image"); err != nil {
		fmt.Println(err)
		return
	}
	show("both images (v0.9.1)", upgraded)
	// Output:
	// installed (v0.9.0)     94b3ba64b5e7176856cee504c9287a83a418a09bc9adb41a45c32ebae4dfad33
	// metadata only          94b3ba64b5e7176856cee504c9287a83a418a09bc9adb41a45c32ebae4dfad33
	// proxyServer.image only 4f3a7ca518f32f3fa74909793aa973f97ec4b2884890f06aa1c19714f90d7243
	// both images (v0.9.1)   bceb0100b7f1c038bb053fbecccf257a33df042e15447130ff2ee5b0871f75cc
}
