package deps

import (
	_ "github.com/stretchr/testify/assert"
	_ "github.com/stretchr/testify/require"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	_ "k8s.io/apimachinery/pkg/labels"
	_ "k8s.io/apimachinery/pkg/runtime"
	_ "k8s.io/utils/clock/testing"
	_ "open-cluster-management.io/api/addon/v1alpha1"
	_ "open-cluster-management.io/api/addon/v1beta1"
	_ "open-cluster-management.io/api/cluster/v1"
	_ "open-cluster-management.io/api/cluster/v1alpha1"
	_ "open-cluster-management.io/api/cluster/v1beta1"
	_ "sigs.k8s.io/yaml"
)
