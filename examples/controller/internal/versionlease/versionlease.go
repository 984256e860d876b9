package versionlease

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo"
)

const (
	// Name is the Lease's name, in the controller's namespace.
	Name = "rolloutkit-controller-versions"
	// AnnotationPrefix begins each replica's annotation on the Lease; the
	// replica's name ends it.
	AnnotationPrefix = "replicas.rolloutkit.io/"
	// DefaultPeriod is how often a replica renews its annotation.
	DefaultPeriod = time.Minute
	// DefaultStaleAfter is how long after its last renewal Read calls a
	// replica's report stale: three periods missed.
	DefaultStaleAfter = 3 * DefaultPeriod
	// DefaultForgetAfter is how long after its last renewal a replica's
	// annotation is removed by another's renewal.
	DefaultForgetAfter = time.Hour
)

// Report is what one replica records: its build and when it last
// renewed the record.
type Report struct {
	buildinfo.Info
	// RenewTime is when the replica last wrote the report, by its clock.
	RenewTime metav1.Time `json:"renewTime"`
}

// Replica is one replica's Report, as Read finds it.
type Replica struct {
	// Name is the replica's name (the pod's).
	Name string `json:"replica"`
	Report
	// Stale is true when the replica has not renewed its report for the
	// stale time Read was given: it crashed, or cannot reach the hub.
	Stale bool `json:"stale,omitempty"`
}

// annotation returns the annotation key of the replica named replica, or
// an error saying why the name cannot end one.
func annotation(replica string) (string, error) {
	key := AnnotationPrefix + replica
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return "", fmt.Errorf("replica name %q: want a name that can end the annotation %s...: %s", replica, AnnotationPrefix, strings.Join(errs, "; "))
	}
	return key, nil
}

// Read returns the reports on the Lease in namespace, sorted by replica
// name, each marked stale if not renewed for staleAfter before now. No
// Lease (no controller has reported there) is no reports and no error.
func Read(ctx context.Context, c client.Reader, namespace string, now time.Time, staleAfter time.Duration) ([]Replica, error) {
	var lease coordinationv1.Lease
	if err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: Name}, &lease); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the controller's versions (lease %s/%s): %w", namespace, Name, err)
	}
	var out []Replica
	var errs []error
	for key, value := range lease.Annotations {
		name, ok := strings.CutPrefix(key, AnnotationPrefix)
		if !ok {
			continue
		}
		var r Report
		if err := json.Unmarshal([]byte(value), &r); err != nil {
			errs = append(errs, fmt.Errorf("lease %s/%s: annotation %s: %q: want a JSON report: %w", namespace, Name, key, value, err))
			continue
		}
		r.RenewTime = metav1.NewTime(r.RenewTime.UTC()) // decoded in the local zone
		out = append(out, Replica{Name: name, Report: r, Stale: now.Sub(r.RenewTime.Time) > staleAfter})
	}
	slices.SortFunc(out, func(a, b Replica) int { return strings.Compare(a.Name, b.Name) })
	return out, errors.Join(errs...)
}

// Publisher is a manager Runnable that keeps one replica's Report on the
// Lease, on every replica (it needs no leadership).
type Publisher struct {
	// Client writes the Lease: create, and merge patches.
	Client client.Client
	// Namespace is the controller's namespace, where the Lease is.
	Namespace string
	// Replica is the replica's name, unique among the replicas: the pod's.
	Replica string
	// Info is the replica's build.
	Info buildinfo.Info
	// Clock is the time of the reports and of the renewals (nil: the real
	// clock).
	Clock clock.Clock
	// Period is how often the report is renewed (0: DefaultPeriod), and
	// ForgetAfter how long after their last renewal the reports of other
	// replicas are removed (0: DefaultForgetAfter).
	Period, ForgetAfter time.Duration
	// Logger logs the writes that failed; publishing is retried at the
	// next renewal, and never stops the controller.
	Logger logr.Logger
}

// NeedLeaderElection is false: every replica reports.
func (p *Publisher) NeedLeaderElection() bool { return false }

// Start publishes the report, renews it every Period until ctx ends, and
// then removes it. It returns nil: a failed write is logged and retried.
func (p *Publisher) Start(ctx context.Context) error {
	clk := p.clock()
	period := p.Period
	if period <= 0 {
		period = DefaultPeriod
	}
	for {
		if err := p.Publish(ctx); err != nil && ctx.Err() == nil {
			p.Logger.Error(err, "publishing the controller's version; trying again later", "lease", p.Namespace+"/"+Name, "in", period)
		}
		select {
		case <-ctx.Done():
			withdraw, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := p.Withdraw(withdraw); err != nil {
				p.Logger.Error(err, "removing the replica's version from the lease", "lease", p.Namespace+"/"+Name)
			}
			return nil
		case <-clk.After(period):
		}
	}
}

func (p *Publisher) clock() clock.Clock {
	if p.Clock == nil {
		return clock.RealClock{}
	}
	return p.Clock
}
