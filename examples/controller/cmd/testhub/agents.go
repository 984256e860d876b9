package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/zapr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/rolloutkit/rolloutkit/examples/controller/agent"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
)

// agentsOptions are the parsed flags of testhub agents.
type agentsOptions struct {
	kubeconfig   string
	apply        time.Duration
	renderByName bool
	fail         map[string]bool
	placements   bool
	addonVersion string
	qps          float64
	burst        int
	zap          zap.Options
}

// parseAgents parses the flags of testhub agents, or returns every
// problem with them (flag.ErrHelp for -h).
func parseAgents(args []string, stderr io.Writer) (agentsOptions, error) {
	o := agentsOptions{zap: zap.Options{Development: true}}
	fs := flag.NewFlagSet("testhub agents", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: testhub agents -kubeconfig FILE [flags]\n\n"+
			"Plays, on a hub with no real clusters, each add-on's manager (renders its ManifestWork from the desired configs)\n"+
			"and every cluster's work agent (applies the work), as examples/controller/agent simulates them.\n"+
			"Exit codes: 0 stopped cleanly, 1 run-time error, 2 bad flags.\n\nflags:\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the hub (required)")
	fs.DurationVar(&o.apply, "apply", 2*time.Second, "how long a work agent takes to apply a changed work, and to try a failed apply again")
	fs.BoolVar(&o.renderByName, "render-by-name", false, "render each work from the newest spec of its config objects, read by name, "+
		"as the real cluster-proxy does on addon-framework (what the work gate holds back)")
	fail := fs.String("fail-clusters", "", "comma-separated clusters whose apply fails")
	fs.BoolVar(&o.placements, "placements", false, "also schedule Placements, as the controller's -placements does, for a hub where nothing else does")
	fs.StringVar(&o.addonVersion, "addon-version", "", "add-on API version to read and write, v1alpha1 or v1beta1 (default: the version the hub stores)")
	fs.Float64Var(&o.qps, "kube-api-qps", 10000, "requests per second to the API server (a fleet's agents are not rate limited together)")
	fs.IntVar(&o.burst, "kube-api-burst", 20000, "requests to the API server in a burst")
	o.zap.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q: every option is a flag", fs.Args()))
	}
	if o.kubeconfig == "" {
		errs = append(errs, errors.New("-kubeconfig is required: the hub to play the agents of"))
	}
	if o.apply <= 0 {
		errs = append(errs, fmt.Errorf("-apply %s: want a positive duration such as 2s", o.apply))
	}
	if o.addonVersion != "" && o.addonVersion != hubclient.V1alpha1 && o.addonVersion != hubclient.V1beta1 {
		errs = append(errs, fmt.Errorf("-addon-version %q: want %s or %s", o.addonVersion, hubclient.V1alpha1, hubclient.V1beta1))
	}
	if o.qps <= 0 || o.burst <= 0 {
		errs = append(errs, fmt.Errorf("-kube-api-qps %g, -kube-api-burst %d: want positive numbers", o.qps, o.burst))
	}
	o.fail = map[string]bool{}
	for _, c := range strings.Split(*fail, ",") {
		if c = strings.TrimSpace(c); c != "" {
			o.fail[c] = true
		}
	}
	return o, errors.Join(errs...)
}

// runAgents is testhub agents: it returns its exit code.
func runAgents(ctx context.Context, args []string, stderr io.Writer) int {
	o, err := parseAgents(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "testhub agents: %v\n", err)
		return 2
	}
	if err := serveAgents(ctx, o, stderr); err != nil {
		fmt.Fprintf(stderr, "testhub agents: %v\n", err)
		return 1
	}
	return 0
}

// serveAgents runs the simulated add-on manager and work agents (and,
// with -placements, the Placement scheduler) until ctx ends.
func serveAgents(ctx context.Context, o agentsOptions, stderr io.Writer) error {
	cfg, err := restConfig(o.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	scheme, err := hubclient.NewScheme()
	if err != nil {
		return err
	}
	logger := zapr.NewLogger(zap.NewRaw(zap.UseFlagOptions(&o.zap), zap.WriteTo(stderr)))
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Logger: logger,
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Cache:                  cache.Options{DefaultTransform: cache.TransformStripManagedFields()},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0"})
	if err != nil {
		return err
	}
	version := o.addonVersion
	if version == "" {
		if version, err = hubclient.StorageVersion(ctx, mgr.GetAPIReader()); err != nil {
			return err
		}
	}
	if o.placements {
		if _, err := hubctl.Setup(ctx, mgr, hubctl.Options{Placements: true, AddonVersion: version}); err != nil {
			return err
		}
	}
	fail := o.fail
	if err := agent.Setup(mgr, agent.Options{AddonVersion: version, Delay: o.apply, RenderByName: o.renderByName,
		Fail: func(cluster, _ string) bool { return fail[cluster] }}); err != nil {
		return err
	}
	logger.Info("playing the add-on managers and work agents", "apply", o.apply.String(), "renderByName", o.renderByName,
		"failClusters", strings.Join(sortedKeys(fail), ","), "placements", o.placements, "addonVersion", version)
	return mgr.Start(ctx)
}

// restConfig loads the hub's kubeconfig.
func restConfig(path string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, fmt.Errorf("-kubeconfig %q: %w", path, err)
	}
	return cfg, nil
}

// sortedKeys are m's keys, sorted.
func sortedKeys(m map[string]bool) []string {
	return slices.Sorted(maps.Keys(m))
}
