package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// metricsReaderRole is the ClusterRole that grants get on /metrics
// (config/rbac/metrics_reader_role.yaml).
const metricsReaderRole = "rolloutkit-metrics-reader"

// metricsFlags are the metrics endpoint's flags, as given.
type metricsFlags struct {
	bindAddress, certDir string
	secure               bool
}

func (m *metricsFlags) bindFlags(fs *flag.FlagSet) {
	fs.StringVar(&m.bindAddress, "metrics-bind-address", "0", `host:port of the metrics endpoint, /metrics, such as :8443 (the Deployment's); "0" turns it off`)
	fs.BoolVar(&m.secure, "metrics-secure", true, "serve the metrics over HTTPS, only to clients the hub's API server authenticates (TokenReview) "+
		"and authorizes to get /metrics (SubjectAccessReview: ClusterRole "+metricsReaderRole+"); "+
		"false serves them over plain HTTP to anyone who can reach the port: for local runs only")
	fs.StringVar(&m.certDir, "metrics-cert-dir", "", "with -metrics-secure: directory of the metrics endpoint's tls.crt and tls.key, "+
		"which it reloads when they change (default: controller-runtime's, $TMPDIR/k8s-metrics-server/serving-certs, or where that holds none, a self-signed certificate made at start)")
}

// metricsEndpoint is the metrics endpoint's configuration, parsed.
type metricsEndpoint struct {
	// addr is its host:port; "0": off.
	addr string
	// secure: HTTPS, authenticated and authorized by the hub.
	secure bool
	// certDir holds its tls.crt and tls.key; "": a self-signed
	// certificate.
	certDir string
}

// parse checks the flags, and returns every problem at once. set says
// which flags were given. With -metrics-bind-address=0 the other flags
// are ignored, so that appending it to a Deployment's arguments turns
// the endpoint off.
func (f metricsFlags) parse(set map[string]bool) (metricsEndpoint, error) {
	m := metricsEndpoint{addr: f.bindAddress, secure: f.secure, certDir: f.certDir}
	if m.addr == "0" {
		return m, nil
	}
	var errs []error
	_, port, err := net.SplitHostPort(m.addr)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n < 1 || n > 65535 {
		errs = append(errs, fmt.Errorf(`-metrics-bind-address %q: want host:port with a port from 1 to 65535, such as :8443, or "0" to turn the metrics off`, m.addr))
	}
	switch {
	case set["metrics-cert-dir"] && !m.secure:
		errs = append(errs, fmt.Errorf("-metrics-cert-dir %q needs -metrics-secure: plain HTTP serves no certificate", m.certDir))
	case set["metrics-cert-dir"]:
		var missing []string
		for _, name := range []string{"tls.crt", "tls.key"} {
			if _, err := os.Stat(filepath.Join(m.certDir, name)); err != nil {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			errs = append(errs, fmt.Errorf("-metrics-cert-dir %q: no %s there: want the directory of the metrics endpoint's serving certificate, "+
				"or no -metrics-cert-dir for a self-signed one", m.certDir, strings.Join(missing, " and ")))
		}
	}
	return m, errors.Join(errs...)
}

// serverOptions are the manager's metrics server options: secure, as
// kubebuilder's scaffold serves them, behind the hub's authentication and
// authorization, over HTTP/1.1 only (HTTP/2's stream resets,
// CVE-2023-44487 and CVE-2023-39325, cost a server more than a client);
// or plain HTTP, unauthenticated.
func (m metricsEndpoint) serverOptions() metricsserver.Options {
	if !m.secure {
		return metricsserver.Options{BindAddress: m.addr}
	}
	return metricsserver.Options{
		BindAddress:    m.addr,
		SecureServing:  true,
		FilterProvider: filters.WithAuthenticationAndAuthorization,
		CertDir:        m.certDir,
		TLSOpts:        []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
	}
}
