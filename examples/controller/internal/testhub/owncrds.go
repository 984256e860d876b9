package testhub

import (
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// WithoutOwnCRDs starts the hub without the CustomResourceDefinitions of
// rolloutkit.io (config/crd): a test that installs them itself, those of
// an earlier release, say, then finds none of this tree's there.
func WithoutOwnCRDs() Option {
	return func(h *Hub) error {
		h.env.CRDInstallOptions.CRDs = slices.DeleteFunc(slices.Clone(h.env.CRDInstallOptions.CRDs),
			func(c *apiextensionsv1.CustomResourceDefinition) bool { return c.Spec.Group == v1alpha1.Group })
		return nil
	}
}
