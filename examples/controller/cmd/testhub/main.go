package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/config"
	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/gatehook"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	kubeconfig string
	soak       time.Duration
	deadline   time.Duration
	lifecycle  string
	setImage   string
	seed       bool
	workGate   string
	admission  string
	gc         bool
	version    bool
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("testhub", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: testhub -kubeconfig FILE [flags]\n"+
			"       testhub agents -kubeconfig FILE [flags]   (simulated add-on managers and work agents; testhub agents -h says more)\n\n"+
			"Starts a test hub (etcd and kube-apiserver) with OCM's CRDs and seeds the story.\n\nflags:\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "where to write the hub's kubeconfig (with -set-agent-image: the hub to change); use an absolute path, go -C changes directory")
	fs.DurationVar(&o.soak, "soak", 30*time.Second, "minSuccessTime of the Placement's rollout strategy the hub is seeded with, each group's soak (the story uses 5m; shorter to watch it)")
	fs.DurationVar(&o.deadline, "deadline", 2*time.Minute, "progressDeadline of the Placement's rollout strategy the hub is seeded with, each cluster's deadline (the story uses 15m)")
	fs.StringVar(&o.lifecycle, "lifecycle", testhub.Lifecycle, "value of the ClusterManagementAddOn's annotation addon.open-cluster-management.io/lifecycle: "+
		testhub.Lifecycle+" hands the add-on to the controller (its -lifecycle default); the seed's own addon-manager leaves it to OCM's add-on manager")
	fs.BoolVar(&o.seed, "seed", true, "seed the story; false: the CRDs only, for a test that writes its own objects")
	fs.StringVar(&o.setImage, "set-agent-image", "", "do not start a hub: set spec.proxyAgent.image of the running hub's ManagedProxyConfiguration, and exit")
	fs.StringVar(&o.workGate, "work-gate", "", "install the work gate (config/webhook/manifests.yaml) calling the controller at this base URL, "+
		"such as https://127.0.0.1:9443, instead of its in-cluster Service; the controller puts its CA in (-webhook-cert-secret)")
	fs.StringVar(&o.admission, "admission", "", "install admission's webhook configurations (config/webhook/admission.yaml: AddOnRollouts validated, "+
		"each RolloutApproval's creator recorded) calling the controller at this base URL, such as https://127.0.0.1:9443; the controller puts its CA in (-webhook-cert-secret)")
	fs.BoolVar(&o.gc, "gc", false, "also run kube-controller-manager's garbage collector, as a real hub does: deleting a ClusterManagementAddOn then deletes "+
		"its add-ons, through their owner references (without it they stay)")
	fs.BoolVar(&o.version, "version", false, "print testhub's version and VCS revision, and exit")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case o.version:
		return o, nil // nothing else is read
	case o.gc && o.setImage != "":
		return o, errors.New("-gc starts a hub's garbage collector; -set-agent-image changes a running hub: give one")
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.kubeconfig == "":
		return o, errors.New("-kubeconfig is required: where to write (or read) the hub's kubeconfig")
	case o.lifecycle == "":
		return o, errors.New("-lifecycle is empty: give the annotation value the controller takes (" + testhub.Lifecycle + ")")
	case o.soak < 0 || o.deadline <= 0:
		return o, fmt.Errorf("-soak %s, -deadline %s: want a soak of 0 or more and a positive deadline", o.soak, o.deadline)
	case o.workGate != "" && !strings.HasPrefix(o.workGate, "https://"):
		return o, fmt.Errorf("-work-gate %q: want the https:// base URL the API server calls the controller's webhook server at, such as https://127.0.0.1:9443", o.workGate)
	case o.admission != "" && !strings.HasPrefix(o.admission, "https://"):
		return o, fmt.Errorf("-admission %q: want the https:// base URL the API server calls the controller's webhook server at, such as https://127.0.0.1:9443", o.admission)
	case o.workGate != "" && o.admission != "" && o.workGate != o.admission:
		return o, fmt.Errorf("-work-gate %q, -admission %q: want one base URL: one webhook server serves both", o.workGate, o.admission)
	}
	return o, nil
}

// run is testhub, or with "agents" first, testhub agents (agents.go).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "agents" {
		return runAgents(ctx, args[1:], stderr)
	}
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "testhub: %v\n", err)
		return 2
	}
	if o.version {
		fmt.Fprintf(stdout, "testhub %s\n", buildinfo.Read())
		return 0
	}
	if o.setImage != "" {
		err = setImage(ctx, o, stdout)
	} else {
		err = serve(ctx, o, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "testhub: %v\n", err)
		return 1
	}
	return 0
}

func newClient(cfgPath string) (client.Client, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", cfgPath)
	if err != nil {
		return nil, err
	}
	return testhub.NewClient(cfg)
}

// setImage sets the agent image of the running hub's
// ManagedProxyConfiguration and says what it changed.
func setImage(ctx context.Context, o options, stdout io.Writer) error {
	c, err := newClient(o.kubeconfig)
	if err != nil {
		return err
	}
	cfg, err := testhub.ProxyConfig(o.setImage)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%s %q", cfg.GetKind(), cfg.GetName())
	was, err := agentImage(ctx, c, cfg)
	if err != nil {
		return fmt.Errorf("reading %s: %w", what, err)
	}
	if was == o.setImage {
		fmt.Fprintf(stdout, "%s: spec.proxyAgent.image is already %s: nothing changed, nothing to roll out\n", what, was)
		return nil
	}
	if err := testhub.SetAgentImage(ctx, c, o.setImage); err != nil {
		return fmt.Errorf("changing %s: %w", what, err)
	}
	fmt.Fprintf(stdout, "%s: spec.proxyAgent.image %s -> %s\n"+
		"the controller rolls it out group by group: the agent Deployment in each cluster's ManifestWork "+
		"addon-cluster-proxy-deploy-0 takes it when the rollout reaches the cluster's group\n", what, was, o.setImage)
	return nil
}

// agentImage reads spec.proxyAgent.image of the hub's copy of cfg.
func agentImage(ctx context.Context, c client.Client, cfg *unstructured.Unstructured) (string, error) {
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(cfg.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(cfg), cur); err != nil {
		return "", err
	}
	image, _, err := unstructured.NestedString(cur.Object, "spec", "proxyAgent", "image")
	return image, err
}

func serve(ctx context.Context, o options, stdout io.Writer) error {
	h, err := testhub.Start()
	if err != nil {
		return err
	}
	defer func() { _ = h.Stop() }()
	gc, err := startGC(h, o.gc)
	if err != nil {
		return err
	}
	defer func() { _ = gc.Stop() }() // before the hub
	kc, err := h.KubeConfig()
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.kubeconfig, kc, 0o600); err != nil {
		return err
	}
	if !o.seed {
		fmt.Fprintf(stdout, "hub running at %s with OCM's CRDs, nothing seeded\n  add-ons converted between v1alpha1 and v1beta1 by the hub's webhook at %s\n  kubeconfig: %s\n",
			h.Describe(), h.ConversionURL(), o.kubeconfig)
		<-ctx.Done()
		return nil
	}
	so, err := seedHub(ctx, o, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, `hub running at %s with OCM's CRDs and the seed's story
  clusters: %v (ProgressivePerGroup, soak %s, deadline %s, maxFailures 0)
  add-on: cluster-proxy, annotated addon.open-cluster-management.io/lifecycle=%s
  cluster set: %s, bound in the Placement's namespace
  add-ons served in v1alpha1 (stored) and v1beta1 (what kubectl get prints), converted by the hub's webhook at %s, as OCM's add-on manager converts them
  kubeconfig: %s
  %s

run the controller, scheduling the Placements too (in another terminal, from the repository root):
  go -C examples/controller run . -kubeconfig %s -placements%s -zap-devel
and a simulated add-on manager and work agents (in a third):
  go -C examples/controller run ./cmd/testhub agents -kubeconfig %s -apply 2s%s
then change the agent image, and watch dev, stg and prod take it in turn:
  go -C examples/controller run ./cmd/testhub -kubeconfig %s -set-agent-image quay.io/open-cluster-management/cluster-proxy:v0.9.1
see the next step at any time:
  go -C examples/controller run . -kubeconfig %s%s -dry-run

Ctrl-C stops the hub.
`, h.Describe(), so.Clusters(), o.soak, o.deadline, o.lifecycle, testhub.GlobalSetName, h.ConversionURL(), o.kubeconfig, gcLine(o.gc),
		o.kubeconfig, takeFlag(o.lifecycle)+webhookFlags(o.workGate, o.admission), o.kubeconfig, renderFlag(o.workGate), o.kubeconfig, o.kubeconfig, takeFlag(o.lifecycle))
	<-ctx.Done()
	return nil
}

// seedHub seeds the hub o.kubeconfig names with the story's objects,
// and installs the webhooks o asks for.
func seedHub(ctx context.Context, o options, stdout io.Writer) (testhub.SeedOptions, error) {
	so := testhub.SeedOptions{Strategy: testhub.Strategy(o.soak.String(), o.deadline.String(), 0), Lifecycle: o.lifecycle}
	c, err := newClient(o.kubeconfig)
	if err != nil {
		return so, err
	}
	if err := testhub.Seed(ctx, c, so); err != nil {
		return so, err
	}
	if err := installAdmission(ctx, c, o.admission, stdout); err != nil {
		return so, err
	}
	return so, installGate(ctx, c, o.workGate, stdout)
}

// webhookFlags are the controller flags that serve its webhooks where the
// hub calls them (gate and admission, as -work-gate and -admission gave
// them; "": not installed), with a certificate the controller makes
// itself.
func webhookFlags(gate, admission string) string {
	base := cmp.Or(gate, admission)
	if base == "" {
		return ""
	}
	host := strings.TrimPrefix(base, "https://")
	return fmt.Sprintf(" -webhook-bind-address %s -webhook-cert-secret default/rolloutkit-webhook-cert"+
		" -webhook-cert-hosts %s -webhook-cert-dir /tmp/rolloutkit-webhook-certs", host, strings.Split(host, ":")[0])
}

// renderFlag is, with the work gate (gate, as -work-gate gave it; "": not
// installed), the flag of testhub agents that renders by name, as the real
// cluster-proxy does: what the gate holds back.
func renderFlag(gate string) string {
	if gate == "" {
		return ""
	}
	return " -render-by-name"
}

// installGate installs the work gate calling base ("": none), and says
// so.
func installGate(ctx context.Context, c client.Client, base string, stdout io.Writer) error {
	if base == "" {
		return nil
	}
	vwc, err := config.WorkGateAt(base)
	if err != nil {
		return err
	}
	if err := c.Create(ctx, vwc); err != nil {
		return fmt.Errorf("installing the work gate: %w", err)
	}
	fmt.Fprintf(stdout, "work gate installed: ValidatingWebhookConfiguration %s calls %s%s (failurePolicy Fail: add-ons' works cannot change until the controller serves it)\n",
		vwc.Name, base, gatehook.WorkGatePath)
	return nil
}

// installAdmission installs admission's webhook configurations calling
// base ("": none), and says so.
func installAdmission(ctx context.Context, c client.Client, base string, stdout io.Writer) error {
	if base == "" {
		return nil
	}
	vwc, mwc, err := config.AdmissionAt(base)
	if err != nil {
		return err
	}
	for _, obj := range []client.Object{vwc, mwc} {
		if err := c.Create(ctx, obj); err != nil {
			return fmt.Errorf("installing admission: %w", err)
		}
	}
	fmt.Fprintf(stdout, "admission installed: ValidatingWebhookConfiguration and MutatingWebhookConfiguration %s call %s "+
		"(failurePolicy Fail: AddOnRollouts and RolloutApprovals cannot be created until the controller serves them)\n", vwc.Name, base)
	return nil
}

// takeFlag is the controller flag that takes an add-on annotated
// lifecycle: none for the controller's default.
func takeFlag(lifecycle string) string {
	if lifecycle == testhub.Lifecycle {
		return ""
	}
	return " -lifecycle " + lifecycle
}

// startGC starts the hub's garbage collector when on is true, and
// otherwise returns nil, whose Stop does nothing.
func startGC(h *testhub.Hub, on bool) (*testhub.GC, error) {
	if !on {
		return nil, nil
	}
	gc, err := h.StartGC()
	if err != nil {
		return nil, fmt.Errorf("-gc: %w", err)
	}
	return gc, nil
}

// gcLine says whether the hub collects garbage.
func gcLine(on bool) string {
	if on {
		return "garbage collector: kube-controller-manager's, alone: deleting a ClusterManagementAddOn deletes its add-ons, as on a real hub"
	}
	return "garbage collector: none (start the hub with -gc for one): deleting a ClusterManagementAddOn leaves its add-ons, unlike a real hub"
}
