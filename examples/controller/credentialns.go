package main

import (
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// serviceAccountNamespace is the file a pod's service account token is
// mounted beside, naming the pod's namespace.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// parseNamespaces parses -verification-secret-namespaces: comma-separated
// namespace names. When the flag is not set, the controller's own
// namespace: $POD_NAMESPACE, else its service account's; none outside a
// cluster.
func parseNamespaces(text string, set bool) ([]string, error) {
	if !set {
		if ns := ownNamespace(); ns != "" {
			return []string{ns}, nil
		}
		return nil, nil
	}
	var out []string
	for _, ns := range strings.Split(text, ",") {
		ns = strings.TrimSpace(ns)
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			return nil, fmt.Errorf("-verification-secret-namespaces %q: want comma-separated namespace names: %q: %s", text, ns, strings.Join(msgs, "; "))
		}
		out = append(out, ns)
	}
	return out, nil
}

// ownNamespace is the controller's namespace, or "" outside a cluster.
func ownNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	b, err := os.ReadFile(serviceAccountNamespace)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
