package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"help", []string{"-h"}, 0, "usage: ocm-addon-manager"},
		{"no kubeconfig", nil, 2, "-kubeconfig is required"},
		{"bad rate", []string{"-kubeconfig", "k", "-kube-api-qps", "0"}, 2, "want positive numbers"},
		{"bad config resource", []string{"-kubeconfig", "k", "-config-resources", "nogroup"}, 2, `-config-resources "nogroup": want resource.version.group`},
		{"stray argument", []string{"-kubeconfig", "k", "extra"}, 2, "unexpected arguments"},
		{"missing kubeconfig file", []string{"-kubeconfig", "/nonexistent/kubeconfig"}, 2, `-kubeconfig "/nonexistent/kubeconfig"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			code := run(context.Background(), tc.args, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("run(%q) = %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
			}
		})
	}
}

func TestDefaultsAreOCMs(t *testing.T) {
	t.Parallel()
	o, err := parseFlags([]string{"-kubeconfig", "k"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.qps != 50 || o.burst != 100 || o.workers != 2 {
		t.Fatalf("defaults qps %g burst %d workers %d; want OCM's 50, 100 and 2", o.qps, o.burst, o.workers)
	}
	if len(o.configs) != 1 || o.configs[0].Resource != "managedproxyconfigurations" || o.configs[0].Group != "proxy.open-cluster-management.io" {
		t.Fatalf("configs %v; want the seed's ManagedProxyConfiguration", o.configs)
	}
}
