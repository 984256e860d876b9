package gatehook

import (
	"context"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/rolloutkit/rolloutkit/clock"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// gateCheckEvery is how long a Check trusts what it read of
// the work gate's ValidatingWebhookConfiguration: reading it at every
// reconcile would be a request per reconcile, for an object that changes
// once an install.
const gateCheckEvery = 30 * time.Second

// Check reads the work gate's ValidatingWebhookConfiguration from the
// API server, at most every gateCheckEvery, and says whether it guards an
// add-on's works (workgate.Guards): the add-on reconciler's WorkGate
// condition.
type Check struct {
	reader client.Reader
	serves bool // this controller serves the gate
	clock  clock.PassiveClock

	mu   sync.Mutex
	at   time.Time
	cfg  *admissionregistrationv1.ValidatingWebhookConfiguration
	read bool // cfg is what the hub holds (nil: none)
}

// NewCheck returns a Check that reads the configuration through reader
// (the API server), for a controller that serves the gate or not
// (serves), on clk (nil: the real clock).
func NewCheck(reader client.Reader, serves bool, clk clock.PassiveClock) *Check {
	return &Check{reader: reader, serves: serves, clock: clk}
}

// Guards says whether the gate guards add-on addOn's works; nil when the
// hub could not be read, or g is nil.
func (g *Check) Guards(ctx context.Context, addOn string) *hubplan.GateCheck {
	if g == nil {
		return nil
	}
	if !g.serves {
		return &hubplan.GateCheck{Message: "this controller serves no work gate (-webhook-bind-address 0): the add-on's works can change ahead of the rollout"}
	}
	cfg, ok := g.config(ctx)
	if !ok {
		return nil
	}
	guarded, msg := workgate.Guards(cfg, WorkGateWebhook, addOn)
	return &hubplan.GateCheck{Guarded: guarded, Message: msg}
}

// config returns the configuration as last read, read again when older
// than gateCheckEvery; false when it could not be read.
func (g *Check) config(ctx context.Context) (*admissionregistrationv1.ValidatingWebhookConfiguration, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := clock.NowOf(g.clock)
	if g.read && now.Sub(g.at) < gateCheckEvery {
		return g.cfg, true
	}
	var cfg admissionregistrationv1.ValidatingWebhookConfiguration
	switch err := g.reader.Get(ctx, types.NamespacedName{Name: WorkGateConfiguration}, &cfg); {
	case apierrors.IsNotFound(err):
		g.cfg = nil
	case err != nil:
		log.FromContext(ctx).Error(err, "reading the work gate's ValidatingWebhookConfiguration", "name", WorkGateConfiguration)
		return nil, false
	default:
		g.cfg = &cfg
	}
	g.at, g.read = now, true
	return g.cfg, true
}
