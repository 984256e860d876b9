// Package config holds the controller's install manifests, kustomize-ready
// plain YAML: crd/ holds the CustomResourceDefinitions of rolloutkit.io
// (generated from api/v1alpha1 by hack/generate.sh). The package embeds
// them, so that the test hub and tools install exactly what ships.
package config
