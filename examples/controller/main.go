package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // the time zones of rollout windows, on an image without a zoneinfo database

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	uberzap "go.uber.org/zap"
	// CA roots for the verification client (-verify webhooks and
	// Prometheus over HTTPS) on an image without a system store (the
	// release image's base is empty); a system store, where there is one,
	// is used instead.
	_ "golang.org/x/crypto/x509roots/fallback"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/addons"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/dryrun"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/clientthrottle"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/versionlease"
	"github.com/rolloutkit/rolloutkit/examples/controller/rollouthook"
	"github.com/rolloutkit/rolloutkit/examples/controller/rolloutmetrics"
	"github.com/rolloutkit/rolloutkit/examples/controller/servingcert"
	"github.com/rolloutkit/rolloutkit/examples/controller/verify"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(runProcess(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// runProcess is run as the process's own: client-go's log lines (klog),
// controller-runtime's that no manager's logger reaches (ctrl.Log) and the
// standard library's (an HTTP server's "TLS handshake error") go to the
// controller's logger too, in its format. Those loggers are the
// process's, so tests, which run run beside their own clients, leave them
// alone.
func runProcess(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, args, stdout, stderr, func(logger logr.Logger, raw *uberzap.Logger) func() {
		ctrl.SetLogger(logger)
		klog.SetLogger(logger)
		return uberzap.RedirectStdLog(raw)
	})
}

// run runs the controller with args, its output to stdout and its logs
// to stderr, and returns its exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, args, stdout, stderr, nil)
}

// options are the parsed flags.
type options struct {
	kubeconfig   string
	placements   bool
	addons       bool
	addonVersion string
	lifecycles   []string
	retention    time.Duration // of approvals of superseded revisions
	leaderElect  bool
	leaderNS     string
	replica      string // the name this replica reports its version under
	lease        leaseTimes
	probeAddr    string
	metrics      metricsEndpoint
	qps          float64
	burst        int
	dryRun       bool
	version      bool                 // print the build and exit
	ocmPlacement types.NamespacedName // the Lease of OCM's placement controller
	credentialNS []string             // where checks may read Secrets and ConfigMaps
	gate         gate
	zap          zap.Options
}

// textFlags are the flags read as text, which parseFlags turns into
// options once they are all parsed.
type textFlags struct {
	lifecycle    string // comma-separated
	ocmPlacement string // NAMESPACE/NAME
	credentialNS string // comma-separated
	gate         gateFlags
	metrics      metricsFlags
}

// parseFlags parses args into options, or returns every problem with them
// (flag.ErrHelp for -h).
func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("controller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: controller -kubeconfig FILE [flags]\n\n"+
			"Schedules Placements and rolls add-on configs out group by group with rolloutkit.\n"+
			"Exit codes: 0 stopped cleanly, 1 run-time error, 2 bad flags.\n\nflags:\n")
		fs.PrintDefaults()
	}
	o := options{zap: productionLogs()}
	text := o.bindWorkFlags(fs)
	o.bindHubFlags(fs, &text.metrics)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q: every option is a flag", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return o, o.complete(text, set)
}

// bindHubFlags defines the flags of how the controller meets the hub and
// the cluster it runs in: the connection, leader election, probes,
// metrics (into m, read as text) and logs.
func (o *options) bindHubFlags(fs *flag.FlagSet, m *metricsFlags) {
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the hub (default: $KUBECONFIG, ~/.kube/config, or in-cluster, as kubectl loads it)")
	fs.Float64Var(&o.qps, "kube-api-qps", 500, "requests per second to the API server, sustained, by the whole process (one client-side rate limiter; waits on it: rolloutkit_client_throttle_seconds)")
	fs.IntVar(&o.burst, "kube-api-burst", 1000, "requests to the API server in a burst")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "elect a leader with a Lease, so that only one replica writes")
	fs.StringVar(&o.leaderNS, "leader-elect-namespace", "kube-system", "namespace of the leader-election Lease, and of the Lease "+versionlease.Name+
		" on which every replica reports its version (kubectl rolloutkit version reads it), and of the add-ons' revision histories (ControllerRevisions; kubectl rolloutkit history)")
	fs.StringVar(&o.replica, "replica-name", "", "the name this replica reports its version under (default: the host name, which in a pod is the pod's name)")
	o.lease.bindFlags(fs)
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", "127.0.0.1:8081", `address of the /healthz and /readyz probes ("0" turns them off)`)
	m.bindFlags(fs)
	o.zap.BindFlags(fs)
}

// productionLogs are the logger's options before the -zap flags: JSON at
// info level, as a log pipeline reads them. -zap-devel gives console text
// at debug level, for a person watching a test hub.
func productionLogs() zap.Options {
	return zap.Options{Development: false}
}

// newLogger is the controller's logger, writing to w, and the zap logger
// under it.
func newLogger(o *zap.Options, w io.Writer) (logr.Logger, *uberzap.Logger) {
	raw := zap.NewRaw(zap.UseFlagOptions(o), zap.WriteTo(w))
	return zapr.NewLogger(raw), raw
}

// bindWorkFlags defines the flags of what the controller does: which
// controllers run, on which add-ons, for real or as a dry run or a
// simulation; and the work gate's. It returns those read as text.
func (o *options) bindWorkFlags(fs *flag.FlagSet) *textFlags {
	t := &textFlags{}
	fs.BoolVar(&o.placements, "placements", false, "also reconcile Placements into PlacementDecisions and status, as OCM's placement controller does, "+
		"for a hub without it (the controller refuses to start while OCM's holds -ocm-placement-lease)")
	fs.StringVar(&t.ocmPlacement, "ocm-placement-lease", defaultOCMPlacementLease, "with -placements: NAMESPACE/NAME of the Lease "+
		"OCM's placement controller leads with (library-go's, named after the component: placement-lock, in cluster-manager's namespace)")
	fs.BoolVar(&o.addons, "addons", true, "install, roll out and track the ClusterManagementAddOns that -lifecycle names, as OCM's add-on manager does")
	fs.StringVar(&t.lifecycle, "lifecycle", hubclient.DefaultLifecycle, "comma-separated values of the ClusterManagementAddOn annotation "+hubclient.LifecycleAnnotation+
		" whose add-ons this controller takes (addon-manager also takes those without it); OCM's add-on manager takes addon-manager and those without it")
	fs.StringVar(&o.addonVersion, "addon-version", "", "add-on API version to read and write, v1alpha1 or v1beta1 (default: the version the hub stores)")
	fs.DurationVar(&o.retention, "approval-retention", addons.DefaultApprovalRetention, "delete a RolloutApproval of a revision its placement no longer rolls out this long after it was superseded (0 keeps it forever)")
	fs.BoolVar(&o.version, "version", false, "print the controller's version and VCS revision, and exit")
	fs.BoolVar(&o.dryRun, "dry-run", false, "read the hub, print each add-on's next rollout step as examples/plan does, write nothing, and exit")
	fs.StringVar(&t.credentialNS, "verification-secret-namespaces", "", "comma-separated namespaces whose Secrets (labelled "+verify.CredentialLabel+
		"=true) and ConfigMaps verifications may read credentials and CAs from, by name, never listed; each needs a Role granting get (config/rbac/verification_credentials_role.yaml) "+
		"(default: the controller's own namespace, $POD_NAMESPACE or its service account's; none outside a cluster)")
	t.gate.bindFlags(fs)
	return t
}

// complete fills in the options read as text, the flags set (by name)
// telling the gate's defaults from its choices, and checks them all: it
// returns every problem found.
func (o *options) complete(t *textFlags, set map[string]bool) error {
	var errs []error
	var err error
	if o.gate, err = t.gate.parse(set); err != nil {
		errs = append(errs, err)
	}
	if o.metrics, err = t.metrics.parse(set); err != nil {
		errs = append(errs, err)
	}
	if o.ocmPlacement, err = parseLeaseName(t.ocmPlacement); err != nil {
		errs = append(errs, err)
	}
	if o.credentialNS, err = parseNamespaces(t.credentialNS, set["verification-secret-namespaces"]); err != nil {
		errs = append(errs, err)
	}
	for _, l := range strings.Split(t.lifecycle, ",") {
		if l = strings.TrimSpace(l); l == "" {
			errs = append(errs, fmt.Errorf("-lifecycle %q: want comma-separated annotation values, none empty (an add-on without the annotation is OCM's add-on manager's: take it with addon-manager)", t.lifecycle))
			break
		}
		o.lifecycles = append(o.lifecycles, l)
	}
	return errors.Join(append(errs, o.validate()...)...)
}

// validate returns the problems of the options that need no parsing,
// alone and together.
func (o *options) validate() []error {
	var errs []error
	if o.retention < 0 {
		errs = append(errs, fmt.Errorf("-approval-retention %s: want a duration of 0 (keep superseded approvals forever) or more, such as 168h", o.retention))
	}
	if err := o.lease.validate(); err != nil {
		errs = append(errs, err)
	}
	if o.qps <= 0 || o.burst <= 0 {
		errs = append(errs, fmt.Errorf("-kube-api-qps %g, -kube-api-burst %d: want positive numbers", o.qps, o.burst))
	}
	if o.addonVersion != "" && o.addonVersion != hubclient.V1alpha1 && o.addonVersion != hubclient.V1beta1 {
		errs = append(errs, fmt.Errorf("-addon-version %q: want %s or %s", o.addonVersion, hubclient.V1alpha1, hubclient.V1beta1))
	}
	if !o.placements && !o.addons && !o.dryRun {
		errs = append(errs, errors.New("-addons=false without -placements: nothing to run"))
	}
	return errs
}

// runWith is run, with process calling on the process's loggers (nil:
// none); what it returns undoes it.
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, process func(logr.Logger, *uberzap.Logger) func()) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "controller: %v\n", err)
		return 2
	}
	if o.version {
		fmt.Fprintf(stdout, "controller %s\n", buildinfo.Read())
		return 0
	}
	var gateOn bool
	var gateOff string
	if !o.dryRun {
		if gateOn, gateOff, err = o.gate.serves(); err != nil {
			fmt.Fprintf(stderr, "controller: %v\n", err)
			return 2
		}
	}
	cfg, err := restConfig(o.kubeconfig)
	if err != nil {
		fmt.Fprintf(stderr, "controller: %v\n", err)
		return 2
	}
	// A rollout writes one status per cluster it starts, and two more as
	// the cluster's work is applied, in bursts of thousands when a large
	// group starts: client-go's default of 5 requests a second would make
	// a 1,000-cluster group wait minutes on the client, and even 100 made
	// a 3,500-cluster rollout wait on the client rather than on the API
	// server (docs/performance.md). The hub's API Priority and Fairness,
	// not the client, is what protects the API server.
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	if err := clientthrottle.Limit(cfg, clientthrottle.NewHistogram(), metrics.Registry); err != nil {
		fmt.Fprintf(stderr, "controller: %v\n", err)
		return 1
	}
	logger, raw := newLogger(&o.zap, stderr)
	if process != nil {
		defer process(logger, raw)()
	}
	if o.dryRun {
		if err := dryRun(ctx, cfg, o, stdout); err != nil {
			fmt.Fprintf(stderr, "controller: %v\n", err)
			return 1
		}
		return 0
	}
	if !gateOn {
		logger.Info("the work gate is off", "why", gateOff)
	}
	if err := serve(ctx, cfg, o, gateOn, logger); err != nil {
		fmt.Fprintf(stderr, "controller: %v\n", err)
		return 1
	}
	return 0
}

// restConfig loads the hub's kubeconfig with client-go's loading rules,
// as kubectl and rolloutctl do: the file -kubeconfig names; else the files
// $KUBECONFIG lists; else ~/.kube/config; else, in a pod, its service
// account.
func restConfig(kubeconfig string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	switch {
	case err == nil:
		return cfg, nil
	case kubeconfig != "":
		return nil, fmt.Errorf("-kubeconfig %q: %w", kubeconfig, err)
	}
	return nil, fmt.Errorf("no hub: set -kubeconfig or $KUBECONFIG, or run in a pod: %w", err)
}

// newManager builds the manager every mode shares: a cache that also holds
// unstructured config objects (without their managedFields, which nothing
// here reads: they are most of an add-on's bytes, and every read from the
// cache copies them), probes, metrics and leader election; and, when the
// webhook server serves, the server, with admission registered on it
// (the work gate is Setup's, with -addons).
func newManager(cfg *rest.Config, o options, gateOn bool, logger logr.Logger) (ctrl.Manager, error) {
	scheme, err := hubclient.NewScheme()
	if err != nil {
		return nil, err
	}
	cacheOpts := cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
	var webhookServer webhook.Server
	if gateOn {
		webhookServer = webhook.NewServer(webhook.Options{Host: o.gate.host, Port: o.gate.port, CertDir: o.gate.certDir})
		sars, err := authorizationclient.NewForConfig(cfg)
		if err != nil {
			return nil, fmt.Errorf("building the approvers' access reviews: %w", err)
		}
		rollouthook.Register(webhookServer, scheme, o.credentialNS,
			rollouthook.SubjectAccessReviews{Client: sars.SubjectAccessReviews()})
	}
	return ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Logger:                  logger,
		Client:                  client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Cache:                   cacheOpts,
		WebhookServer:           webhookServer,
		Metrics:                 o.metrics.serverOptions(),
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "rolloutkit-controller",
		LeaderElectionNamespace: o.leaderNS,
		LeaseDuration:           &o.lease.duration,
		RenewDeadline:           &o.lease.renewDeadline,
		RetryPeriod:             &o.lease.retryPeriod,
	})
}

// serve runs the controller until ctx ends. With -placements it first
// makes sure that OCM's placement controller is not running.
func serve(ctx context.Context, cfg *rest.Config, o options, gateOn bool, logger logr.Logger) error {
	if o.placements {
		if err := checkNoOCMPlacement(ctx, cfg, o.ocmPlacement, clock.Real{}); err != nil {
			return err
		}
	}
	mgr, err := newManager(cfg, o, gateOn, logger)
	if err != nil {
		return err
	}
	if gateOn && o.gate.selfManaged() {
		if err := keepServingCert(ctx, mgr, o.gate, logger); err != nil {
			return err
		}
	}
	if err := reportVersion(mgr, o, logger); err != nil {
		return err
	}
	version, err := hubctl.Setup(ctx, mgr, hubctl.Options{Placements: o.placements, Addons: o.addons, AddonVersion: o.addonVersion,
		Lifecycles: o.lifecycles, Metrics: metrics.Registry, WorkGate: gateOn,
		Verifier:          verify.Verifier{HTTP: &http.Client{}, Credentials: verify.Credentials{Reader: mgr.GetAPIReader(), Namespaces: o.credentialNS}},
		ApprovalRetention: o.retention, HistoryNamespace: o.leaderNS})
	if err != nil {
		return err
	}
	if o.probeAddr != "0" {
		if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
			return err
		}
		ready, err := apiServerAnswers(cfg)
		if err != nil {
			return err
		}
		if err := mgr.AddReadyzCheck("apiserver", ready); err != nil {
			return err
		}
		if gateOn {
			// Not ready until the gate answers, so that the Service sends
			// the API server's calls only to replicas that serve.
			if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
				return err
			}
		}
	}
	if o.metrics.addr != "0" && !o.metrics.secure {
		logger.Info("serving metrics over plain HTTP to anyone who can reach the port: for local runs only (-metrics-secure=false)", "address", o.metrics.addr)
	}
	logger.Info("starting", "placements", o.placements, "addons", o.addons, "lifecycles", o.lifecycles, "addonVersion", version,
		"leaderElect", o.leaderElect, "workGate", gateOn)
	return mgr.Start(ctx)
}

// reportVersion exports the controller's build as the metric
// rolloutkit_build_info, and has every replica publish it on the Lease
// versionlease.Name in -leader-elect-namespace, named by -replica-name
// (default: the host name).
func reportVersion(mgr ctrl.Manager, o options, logger logr.Logger) error {
	info := buildinfo.Read()
	if err := rolloutmetrics.RegisterBuildInfo(metrics.Registry, info.Version, info.Revision, info.GoVersion); err != nil {
		return err
	}
	replica := o.replica
	if replica == "" {
		host, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("naming the replica that reports its version (set -replica-name): %w", err)
		}
		replica = host
	}
	logger.Info("version", "version", info.Version, "revision", info.Revision, "modified", info.Modified, "goVersion", info.GoVersion, "replica", replica)
	return mgr.Add(&versionlease.Publisher{Client: mgr.GetClient(), Namespace: o.leaderNS, Replica: replica, Info: info,
		Logger: logger.WithName("versionlease")})
}

// keepServingCert makes or renews the webhook server's certificate once,
// so that the server finds its files when the manager starts it, then has
// every replica (not only the leader) keep it fresh: every hour, and at
// once when one of the -webhook-configuration ones changes.
func keepServingCert(ctx context.Context, mgr ctrl.Manager, g gate, logger logr.Logger) error {
	logger = logger.WithName("servingcert")
	rot, err := servingcert.New(mgr.GetAPIReader(), mgr.GetClient(), servingcert.Options{Secret: g.secret, Hosts: g.hosts,
		CertDir: g.certDir, Configurations: g.configurations, Logger: logger})
	if err != nil {
		return err
	}
	res, err := rot.Ensure(ctx)
	if err != nil {
		return fmt.Errorf("the webhook server's certificate: %w", err)
	}
	logger.Info("serving certificate ready", "secret", g.secret.String(), "hosts", g.hosts, "change", res.Change.String(), "why", res.Why,
		"notAfter", res.NotAfter, "configurations", g.configurations, "injected", res.Injected, "missing", res.Missing)
	cs, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	if err := rot.Watch(cs); err != nil {
		return err
	}
	return mgr.Add(rot)
}

func dryRun(ctx context.Context, cfg *rest.Config, o options, stdout io.Writer) error {
	scheme, err := hubclient.NewScheme()
	if err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	version := o.addonVersion
	if version == "" {
		if version, err = hubclient.StorageVersion(ctx, c); err != nil {
			return err
		}
	}
	return dryrun.DryRun(ctx, c, c.RESTMapper(), version, o.leaderNS, o.lifecycles, time.Now(), stdout)
}
