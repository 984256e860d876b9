package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/rollouthook"
)

// webhookService is the Service in front of the replicas' webhook servers
// (config/webhook/service.yaml): the default names of the serving
// certificate are its in-cluster DNS names.
const webhookService = "rolloutkit-webhook"

// gateFlags are the flags of the webhook server, which serves the work
// gate and admission, as given.
type gateFlags struct {
	bindAddress, certDir, secret, hosts, configurations string
}

func (g *gateFlags) bindFlags(fs *flag.FlagSet) {
	fs.StringVar(&g.bindAddress, "webhook-bind-address", ":9443", "host:port of the webhook server that serves the work gate (it judges the updates of the ManifestWorks of the add-ons "+
		"the controller takes) at "+gatehook.WorkGatePath+", and admission: AddOnRollouts validated at "+rollouthook.RolloutValidationPath+
		", RolloutApprovals given their creator at "+rollouthook.ApprovalMutationPath+`; "0" turns the server off, and with it the gate and admission. `+
		"Left at its default, the server runs only where there is a certificate (-webhook-cert-secret, or tls.crt and tls.key in -webhook-cert-dir), and is off otherwise")
	fs.StringVar(&g.certDir, "webhook-cert-dir", "", "directory of the webhook server's tls.crt and tls.key, which it reloads when they change; with -webhook-cert-secret "+
		"the controller writes them there (default: controller-runtime's, $TMPDIR/k8s-webhook-server/serving-certs)")
	fs.StringVar(&g.secret, "webhook-cert-secret", "", "NAMESPACE/NAME of a Secret in which the controller makes and keeps a CA and the gate's serving certificate, "+
		"renews it, writes it into -webhook-cert-dir and puts its CA in the -webhook-configuration ones (every replica serves the same one); "+
		"without it the certificate comes from elsewhere, e.g. cert-manager")
	fs.StringVar(&g.hosts, "webhook-cert-hosts", "", "with -webhook-cert-secret: comma-separated DNS names and IP addresses of the serving certificate "+
		"(default: "+webhookService+".NAMESPACE.svc and "+webhookService+".NAMESPACE.svc.cluster.local, the Service in the Secret's namespace)")
	fs.StringVar(&g.configurations, "webhook-configuration", gatehook.WorkGateConfiguration+","+rollouthook.AdmissionConfiguration,
		"with -webhook-cert-secret: comma-separated names of the webhook configurations whose webhooks get the CA in their caBundle, "+
			`the ValidatingWebhookConfiguration and the MutatingWebhookConfiguration of each name ("": none)`)
}

// gate is the webhook server's configuration, parsed: the server of the
// work gate and of admission.
type gate struct {
	// port is the webhook server's port; 0: the server is off.
	port int
	host string
	// certDir is where the webhook server reads tls.crt and tls.key.
	certDir string
	// explicit is true when -webhook-bind-address or -webhook-cert-dir
	// was given: the server was asked for, and no certificate is an error.
	explicit bool
	// secret is the self-managed certificate's Secret; zero: the
	// certificate comes from elsewhere.
	secret types.NamespacedName
	hosts  []string
	// configurations name the webhook configurations that get the CA.
	configurations []string
}

// selfManaged says whether the controller keeps the certificate itself.
func (g gate) selfManaged() bool { return g.secret.Name != "" }

// parse checks the flags, and returns every problem at once. set says
// which flags were given. With -webhook-bind-address=0 the certificate
// flags are ignored, so that appending it to a Deployment's arguments
// turns the server off.
func (f gateFlags) parse(set map[string]bool) (gate, error) {
	g := gate{certDir: f.certDir, explicit: set["webhook-bind-address"] || set["webhook-cert-dir"]}
	if f.configurations != "" {
		for _, name := range strings.Split(f.configurations, ",") {
			g.configurations = append(g.configurations, strings.TrimSpace(name))
		}
	}
	if g.certDir == "" {
		g.certDir = filepath.Join(os.TempDir(), "k8s-webhook-server", "serving-certs")
	}
	if f.bindAddress == "0" {
		return g, nil
	}
	var errs []error
	host, port, err := net.SplitHostPort(f.bindAddress)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n < 1 || n > 65535 {
		errs = append(errs, fmt.Errorf(`-webhook-bind-address %q: want host:port with a port from 1 to 65535, such as :9443, or "0" to turn the webhook server off`, f.bindAddress))
	}
	g.host, g.port = host, n
	if f.secret == "" {
		for _, name := range []string{"webhook-cert-hosts", "webhook-configuration"} {
			if set[name] {
				errs = append(errs, fmt.Errorf("-%s needs -webhook-cert-secret: without it the controller keeps no certificate", name))
			}
		}
		return g, errors.Join(errs...)
	}
	ns, name, ok := strings.Cut(f.secret, "/")
	if !ok || len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(name)) > 0 {
		errs = append(errs, fmt.Errorf("-webhook-cert-secret %q: want NAMESPACE/NAME of a Secret", f.secret))
	}
	g.secret = types.NamespacedName{Namespace: ns, Name: name}
	g.hosts = []string{webhookService + "." + ns + ".svc", webhookService + "." + ns + ".svc.cluster.local"}
	if set["webhook-cert-hosts"] {
		g.hosts = nil
		for _, h := range strings.Split(f.hosts, ",") {
			h = strings.TrimSpace(h)
			if net.ParseIP(h) == nil && len(validation.IsDNS1123Subdomain(h)) > 0 {
				errs = append(errs, fmt.Errorf("-webhook-cert-hosts %q: %q is neither a DNS name nor an IP address", f.hosts, h))
				continue
			}
			g.hosts = append(g.hosts, h)
		}
	}
	for _, name := range g.configurations {
		if len(validation.IsDNS1123Subdomain(name)) > 0 {
			errs = append(errs, fmt.Errorf("-webhook-configuration %q: %q is not the name of a webhook configuration", f.configurations, name))
		}
	}
	return g, errors.Join(errs...)
}

// serves says whether the webhook server serves, and if not, why. It
// serves admission, and, with -addons, the work gate (hubctl.Setup's
// WorkGate is for the add-ons the controller takes). It needs a
// certificate: one the controller keeps (-webhook-cert-secret), or
// tls.crt and tls.key in the directory. Where there is none and the
// server was not asked for (the flags' defaults, as on a developer's
// machine), it is off; where it was asked for, that is an error.
func (g gate) serves() (bool, string, error) {
	const off = "; no webhook server: no admission of AddOnRollouts and RolloutApprovals either"
	switch {
	case g.port == 0:
		return false, "-webhook-bind-address=0" + off, nil
	case g.selfManaged():
		return true, "", nil
	}
	var missing []string
	for _, name := range []string{"tls.crt", "tls.key"} {
		if _, err := os.Stat(filepath.Join(g.certDir, name)); err != nil {
			missing = append(missing, name)
		}
	}
	switch {
	case len(missing) == 0:
		return true, "", nil
	case g.explicit:
		return false, "", fmt.Errorf("-webhook-cert-dir %q: no %s there: want the directory of the webhook server's certificate, "+
			"or -webhook-cert-secret NAMESPACE/NAME for the controller to make one, or -webhook-bind-address=0 to turn the server off",
			g.certDir, strings.Join(missing, " and "))
	}
	return false, fmt.Sprintf("no certificate: no %s in %s, and no -webhook-cert-secret", strings.Join(missing, " and "), g.certDir) + off, nil
}
