package agent

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/clock"
)

// The field managers the two roles write with (metadata.managedFields).
const (
	DeployerFieldManager  = "rolloutkit-simulated-addon-manager"
	WorkAgentFieldManager = "rolloutkit-simulated-work-agent"
)

// Options configure the simulated add-on manager and work agents.
type Options struct {
	// AddonVersion is the add-on API version to read and write
	// ManagedClusterAddOns in, v1alpha1 or v1beta1: the fields used have
	// the same shape in both.
	AddonVersion string
	// Delay is how long a work agent takes to apply a changed work, and
	// how often it tries a failed apply again.
	Delay time.Duration
	// Fail tells whether applying a work fails on cluster (its namespace);
	// target names the work's configs by their spec hashes (see Target).
	// Nil: every apply succeeds.
	Fail func(cluster, target string) bool
	// Clock stamps the conditions and times the applies. Nil: the real
	// clock.
	Clock clock.PassiveClock
	// Workers is how many add-ons the add-on manager renders, and how many
	// works the work agents apply, at once. 0: DefaultWorkers.
	Workers int
	// RenderByName makes the add-on manager render as the real
	// cluster-proxy does: from the newest spec of each config object, read
	// by name, whatever the desired spec hash (Deployer.ByName), and again
	// whenever a ManagedProxyConfiguration changes (not on an
	// AddOnDeploymentConfig's change: a hub may not serve that kind in
	// v1alpha1, and a watch of it would keep the manager from starting).
	RenderByName bool
	// AppliedFromWrites makes the add-on manager report the add-on's
	// ManifestApplied condition from its own writes of the work (True when
	// the hub accepts one, False when it refuses one) instead of from the
	// work's Applied condition (Deployer.AppliedFromWrites).
	AppliedFromWrites bool
}

// DefaultWorkers is the number of add-ons rendered and of works applied at
// once unless Options say otherwise. On a hub every cluster has a work
// agent of its own; one worker applying the works of a whole fleet one
// after another, each a status write, would make a group's applies spread
// over seconds that a real fleet does not take.
const DefaultWorkers = 16

// Setup registers the simulated add-on manager (a Deployer) and work agent
// (a WorkAgent) with mgr. mgr's scheme must hold OCM's add-on and work
// types.
func Setup(mgr ctrl.Manager, o Options) error {
	if err := o.deployer(mgr.GetClient(), mgr.GetRESTMapper()).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the simulated add-on manager: %w", err)
	}
	if err := o.workAgent(mgr.GetClient()).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the simulated work agent: %w", err)
	}
	return nil
}

// deployer is the add-on manager o configures.
func (o Options) deployer(c client.Client, mapper meta.RESTMapper) *Deployer {
	return &Deployer{Client: c, Mapper: mapper, Version: o.AddonVersion, Clock: o.Clock, Workers: o.workers(),
		ByName: o.RenderByName, ConfigKinds: []schema.GroupVersionKind{ProxyConfigKind()}, AppliedFromWrites: o.AppliedFromWrites}
}

// workAgent is the work agent o configures.
func (o Options) workAgent(c client.Client) *WorkAgent {
	return &WorkAgent{Client: c, Delay: o.Delay, Fail: o.Fail, Clock: o.Clock, Workers: o.workers()}
}

// workers is o.Workers, or DefaultWorkers when that is not positive.
func (o Options) workers() int {
	if o.Workers <= 0 {
		return DefaultWorkers
	}
	return o.Workers
}
