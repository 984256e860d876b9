package hash_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rolloutkit/rolloutkit/hash"
	"github.com/rolloutkit/rolloutkit/internal/seed"
)

// ExampleSpec hashes the seed's ManagedProxyConfiguration, then the same
// config after a Helm upgrade to a new tag (both images change), after a
// change of metadata only, and after a change of the hub-side
// proxyServer.image only: that one changes the hash too, so it starts a
// staged agent rollout although only the hub is meant to change.
func ExampleSpec() {
	cfg, err := seed.ManagedProxyConfiguration()
	if err != nil {
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
	show("seed (vX.Y.Z)", cfg)

	relabelled := cfg.DeepCopy()
	relabelled.SetLabels(map[string]string{"app.kubernetes.io/version": "v1.2.3"})
	show("metadata only", relabelled)

	const image = "quay.io/open-cluster-management/cluster-proxy:v1.2.3"
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
	show("both images (v1.2.3)", upgraded)
	// Output:
	// seed (vX.Y.Z)          27341f6bf06bf9d2cf6f41076a6268f1fda70673eb53f5bed546ff24ea9402c1
	// metadata only          27341f6bf06bf9d2cf6f41076a6268f1fda70673eb53f5bed546ff24ea9402c1
	// proxyServer.image only b1e16685da56f5233603349c5e178e5d98cce22bdbdcac460804cd35c83358b6
	// both images (v1.2.3)   d2c1bae8a01bb424ec2bd6b3cb5bb3692dd3faab365996ce6b2d89a4d339b222
}
