package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestVersionError checks that only a hub that answered without the
// add-on API is told about --addon-version, and an unreachable one is
// told to check its context.
func TestVersionError(t *testing.T) {
	t.Parallel()
	crds := schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
	name := "clustermanagementaddons.addon.open-cluster-management.io"
	wrap := func(err error) error { return fmt.Errorf("reading customresourcedefinition %q: %w", name, err) }
	for _, tc := range []struct {
		name    string
		err     error
		want    string
		version bool
	}{
		{name: "unreachable", err: wrap(errors.New(`Get "https://127.0.0.1:1/apis": dial tcp 127.0.0.1:1: connect: connection refused`)), want: "cannot reach the hub (check the kubeconfig and --context)"},
		{name: "no add-on API", err: wrap(apierrors.NewNotFound(crds, name)), want: "the hub answered without the add-on API's definitions", version: true},
		{name: "forbidden", err: wrap(apierrors.NewForbidden(crds, name, errors.New("no"))), want: "the hub refused reading", version: true},
		{name: "other answer", err: wrap(apierrors.NewInternalError(errors.New("etcd"))), want: "finding the add-on API version the hub stores"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := versionError(tc.err)
			assert.ErrorIs(t, got, tc.err)
			assert.Contains(t, got.Error(), tc.want)
			assert.Equal(t, tc.version, strings.Contains(got.Error(), "--addon-version"), got.Error())
		})
	}
}
