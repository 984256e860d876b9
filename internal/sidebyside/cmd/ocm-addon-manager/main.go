package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	clientmetrics "k8s.io/client-go/tools/metrics"
	"k8s.io/klog/v2"
	"open-cluster-management.io/addon-framework/pkg/addonmanager/controllers/cmaconfig"
	"open-cluster-management.io/addon-framework/pkg/index"
	"open-cluster-management.io/addon-framework/pkg/utils"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonclient "open-cluster-management.io/api/client/addon/clientset/versioned"
	addoninformers "open-cluster-management.io/api/client/addon/informers/externalversions"
	clusterclient "open-cluster-management.io/api/client/cluster/clientset/versioned"
	clusterinformers "open-cluster-management.io/api/client/cluster/informers/externalversions"
	workclient "open-cluster-management.io/api/client/work/clientset/versioned"
	workinformers "open-cluster-management.io/api/client/work/informers/externalversions"
	"open-cluster-management.io/ocm/pkg/addon/controllers/addonconfiguration"
	"open-cluster-management.io/ocm/pkg/addon/controllers/addonmanagement"
	"open-cluster-management.io/ocm/pkg/addon/controllers/addonowner"
	"open-cluster-management.io/ocm/pkg/addon/controllers/addonprogressing"
	"open-cluster-management.io/ocm/pkg/addon/controllers/cmainstallprogression"
	addonindex "open-cluster-management.io/ocm/pkg/addon/index"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

// options are the parsed flags.
type options struct {
	kubeconfig  string
	qps         float64
	burst       int
	workers     int
	metricsAddr string
	configs     []schema.GroupVersionResource
}

// The defaults of OCM's own add-on manager command (pkg/common/options):
// 50 requests a second, bursts of 100.
const (
	defaultQPS   = 50
	defaultBurst = 100
)

// defaultConfig is the config resource of the seed's add-on.
const defaultConfig = "managedproxyconfigurations.v1alpha1.proxy.open-cluster-management.io"

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("ocm-addon-manager", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the hub (required)")
	fs.Float64Var(&o.qps, "kube-api-qps", defaultQPS, "requests per second to the API server (OCM's default)")
	fs.IntVar(&o.burst, "kube-api-burst", defaultBurst, "requests to the API server in a burst (OCM's default)")
	fs.IntVar(&o.workers, "workers", 2, "workers of each controller (OCM's manager runs 2)")
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", "0", `address of the metrics endpoint ("0": off)`)
	configs := fs.String("config-resources", defaultConfig, "comma-separated config resources (resource.version.group) whose spec hashes the cmaconfig controller writes")
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	fs.Var(klogFlags.Lookup("v").Value, "v", "log verbosity (klog)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ocm-addon-manager -kubeconfig FILE [flags]\n\n"+
			"Runs OCM v1.2.0's add-on manager controllers against a hub.\n"+
			"Exit codes: 0 stopped cleanly, 1 run-time error, 2 bad flags.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q: every option is a flag", fs.Args()))
	}
	if o.kubeconfig == "" {
		errs = append(errs, errors.New("-kubeconfig is required"))
	}
	if o.qps <= 0 || o.burst <= 0 || o.workers <= 0 {
		errs = append(errs, fmt.Errorf("-kube-api-qps %g, -kube-api-burst %d, -workers %d: want positive numbers", o.qps, o.burst, o.workers))
	}
	for _, c := range strings.Split(*configs, ",") {
		if c = strings.TrimSpace(c); c == "" {
			continue
		}
		gvr, _ := schema.ParseResourceArg(c)
		if gvr == nil {
			errs = append(errs, fmt.Errorf("-config-resources %q: want resource.version.group", c))
			continue
		}
		o.configs = append(o.configs, *gvr)
	}
	return o, errors.Join(errs...)
}

func run(ctx context.Context, args []string, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "ocm-addon-manager: %v\n", err)
		return 2
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		fmt.Fprintf(stderr, "ocm-addon-manager: -kubeconfig %q: %v\n", o.kubeconfig, err)
		return 2
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	if err := serve(ctx, cfg, o); err != nil {
		fmt.Fprintf(stderr, "ocm-addon-manager: %v\n", err)
		return 1
	}
	return 0
}

// serve runs the controllers, and the metrics endpoint, until ctx ends.
func serve(ctx context.Context, cfg *rest.Config, o options) error {
	if o.metricsAddr != "0" {
		if err := serveMetrics(ctx, o.metricsAddr); err != nil {
			return err
		}
	}
	c, err := newClients(cfg)
	if err != nil {
		return err
	}
	inf := newInformers(c)
	if err := addIndexers(inf.addons, inf.works); err != nil {
		return err
	}
	for name, ctl := range newControllers(c, inf, o.configs) {
		klog.InfoS("starting controller", "name", name, "workers", o.workers)
		go ctl.Run(ctx, o.workers)
	}
	inf.start(ctx)
	<-ctx.Done()
	return nil
}

// clients are the hub's clientsets the controllers use.
type clients struct {
	addon   addonclient.Interface
	cluster clusterclient.Interface
	work    workclient.Interface
	dynamic dynamic.Interface
}

func newClients(cfg *rest.Config) (clients, error) {
	var c clients
	var err error
	if c.addon, err = addonclient.NewForConfig(cfg); err != nil {
		return c, err
	}
	if c.cluster, err = clusterclient.NewForConfig(cfg); err != nil {
		return c, err
	}
	if c.work, err = workclient.NewForConfig(cfg); err != nil {
		return c, err
	}
	c.dynamic, err = dynamic.NewForConfig(cfg)
	return c, err
}

// informers are the shared informer factories, with manager.go's resync
// periods; its ManifestWork informer sees only works labelled with an
// add-on.
type informers struct {
	cluster clusterinformers.SharedInformerFactory
	addons  addoninformers.SharedInformerFactory
	works   workinformers.SharedInformerFactory
	dynamic dynamicinformer.DynamicSharedInformerFactory
}

func newInformers(c clients) informers {
	withAddon := func(lo *metav1.ListOptions) {
		lo.LabelSelector = metav1.FormatLabelSelector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: addonv1alpha1.AddonLabelKey, Operator: metav1.LabelSelectorOpExists},
		}})
	}
	return informers{
		cluster: clusterinformers.NewSharedInformerFactory(c.cluster, 30*time.Minute),
		addons:  addoninformers.NewSharedInformerFactory(c.addon, 10*time.Minute),
		works:   workinformers.NewSharedInformerFactoryWithOptions(c.work, 10*time.Minute, workinformers.WithTweakListOptions(withAddon)),
		dynamic: dynamicinformer.NewDynamicSharedInformerFactory(c.dynamic, 10*time.Minute),
	}
}

// start starts the informers the controllers asked for, until ctx ends.
func (inf informers) start(ctx context.Context) {
	inf.cluster.Start(ctx.Done())
	inf.addons.Start(ctx.Done())
	inf.works.Start(ctx.Done())
	inf.dynamic.Start(ctx.Done())
}

// newControllers builds, by name, the five add-on manager controllers
// with OCM's constructors and filter, and addon-framework's cmaconfig
// controller over the config resources configs.
func newControllers(c clients, inf informers, configs []schema.GroupVersionResource) map[string]interface{ Run(context.Context, int) } {
	mcas := inf.addons.Addon().V1alpha1().ManagedClusterAddOns()
	cmas := inf.addons.Addon().V1alpha1().ClusterManagementAddOns()
	placements := inf.cluster.Cluster().V1beta1().Placements()
	decisions := inf.cluster.Cluster().V1beta1().PlacementDecisions()
	filter := utils.ManagedByAddonManager
	gvrs := make(map[schema.GroupVersionResource]bool, len(configs))
	for _, g := range configs {
		gvrs[g] = true
	}
	return map[string]interface{ Run(context.Context, int) }{
		"addonmanagement":       addonmanagement.NewAddonManagementController(c.addon, mcas, cmas, placements, decisions, filter),
		"addonconfiguration":    addonconfiguration.NewAddonConfigurationController(c.addon, mcas, cmas, placements, decisions, filter),
		"addonowner":            addonowner.NewAddonOwnerController(c.addon, mcas, cmas, filter),
		"addonprogressing":      addonprogressing.NewAddonProgressingController(c.addon, mcas, cmas, inf.works.Work().V1().ManifestWorks(), filter),
		"cmainstallprogression": cmainstallprogression.NewCMAInstallProgressionController(c.addon, mcas, cmas, filter),
		"cmaconfig":             cmaconfig.NewCMAConfigController(c.addon, cmas, inf.dynamic, gvrs, filter),
	}
}

// addIndexers adds the indexers manager.go adds that these controllers
// use.
func addIndexers(addons addoninformers.SharedInformerFactory, works workinformers.SharedInformerFactory) error {
	err := works.Work().V1().ManifestWorks().Informer().AddIndexers(cache.Indexers{
		index.ManifestWorkByAddon:           index.IndexManifestWorkByAddon,
		index.ManifestWorkByHostedAddon:     index.IndexManifestWorkByHostedAddon,
		index.ManifestWorkHookByHostedAddon: index.IndexManifestWorkHookByHostedAddon,
	})
	if err != nil {
		return err
	}
	err = addons.Addon().V1alpha1().ManagedClusterAddOns().Informer().AddIndexers(cache.Indexers{
		addonindex.ManagedClusterAddonByName: addonindex.IndexManagedClusterAddonByName,
		index.ManagedClusterAddonByNamespace: index.IndexManagedClusterAddonByNamespace,
		index.AddonByConfig:                  index.IndexAddonByConfig,
	})
	if err != nil {
		return err
	}
	return addons.Addon().V1alpha1().ClusterManagementAddOns().Informer().AddIndexers(cache.Indexers{
		addonindex.ClusterManagementAddonByPlacement: addonindex.IndexClusterManagementAddonByPlacement,
		index.ClusterManagementAddonByConfig:         index.IndexClusterManagementAddonByConfig,
	})
}

// requests counts the API requests of the process's clients.
type requests struct{ c *prometheus.CounterVec }

func (r requests) Increment(_ context.Context, code, method, host string) {
	r.c.WithLabelValues(code, method, host).Inc()
}

// serveMetrics registers the client's request counter and the process
// collectors, and serves them on addr until ctx ends.
func serveMetrics(ctx context.Context, addr string) error {
	reg := prometheus.NewRegistry()
	counter := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rest_client_requests_total",
		Help: "Number of HTTP requests, partitioned by status code, method, and host.",
	}, []string{"code", "method", "host"})
	reg.MustRegister(counter, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	clientmetrics.Register(clientmetrics.RegisterOpts{RequestResult: requests{counter}})
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("-metrics-bind-address %q: %w", addr, err)
	}
	srv := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	return nil
}
