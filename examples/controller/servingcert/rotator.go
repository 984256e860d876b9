package servingcert

import (
	"context"
	"fmt"
	"net"
	"time"

	"slices"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// The defaults of Options, in one place.
const (
	// DefaultValidity is how long a serving certificate is valid: a year.
	DefaultValidity = 365 * 24 * time.Hour
	// DefaultRenewBefore is how long before its end a serving certificate
	// is renewed: about three months, so that a controller stopped for
	// weeks still starts with a valid one.
	DefaultRenewBefore = 90 * 24 * time.Hour
	// DefaultCAValidity is how long a CA is valid: ten years.
	DefaultCAValidity = 10 * 365 * 24 * time.Hour
	// DefaultCheckEvery is how often the Secret and the configuration are
	// checked.
	DefaultCheckEvery = time.Hour
	// DefaultRetryEvery is how soon a failed check is tried again.
	DefaultRetryEvery = 10 * time.Second
)

// Options configure a Rotator. A duration left zero takes its default
// above; Clock nil is the real clock.
type Options struct {
	// Secret is the Secret that holds the CA and the serving certificate,
	// shared by every replica.
	Secret types.NamespacedName
	// Hosts are the DNS names and IP addresses the serving certificate is
	// for: those of the Service the webhooks name, for instance. The
	// first is the certificate's common name.
	Hosts []string
	// CertDir is the directory controller-runtime's webhook server reads
	// tls.crt and tls.key from. It must be writable; it is made if it is
	// missing.
	CertDir string
	// Configurations name the webhook configurations whose webhooks get
	// the CA bundle in clientConfig.caBundle: the
	// ValidatingWebhookConfiguration and the MutatingWebhookConfiguration
	// of each name, those that exist. Empty: none.
	Configurations []string

	// Validity is how long a serving certificate is valid.
	Validity time.Duration
	// RenewBefore is how long before its end a serving certificate is
	// renewed; less than Validity.
	RenewBefore time.Duration
	// CAValidity is how long a CA is valid; more than
	// Validity+RenewBefore, the time left at which it is renewed.
	CAValidity time.Duration
	// CheckEvery is how often Start checks the Secret and the
	// configuration.
	CheckEvery time.Duration
	// RetryEvery is how soon Start checks again after a failed check.
	RetryEvery time.Duration

	// Clock tells the time, and Start's waits.
	Clock clock.WithTicker
	// Logger is where Start reports what it changed, and its failures.
	Logger logr.Logger
}

// withDefaults returns o with every zero field set to its default.
func (o Options) withDefaults() Options {
	set := func(d *time.Duration, def time.Duration) {
		if *d == 0 {
			*d = def
		}
	}
	set(&o.Validity, DefaultValidity)
	set(&o.RenewBefore, DefaultRenewBefore)
	set(&o.CAValidity, DefaultCAValidity)
	set(&o.CheckEvery, DefaultCheckEvery)
	set(&o.RetryEvery, DefaultRetryEvery)
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return o
}

// validate lists every problem of o, defaults applied.
func (o Options) validate() field.ErrorList {
	var errs field.ErrorList
	if msgs := validation.IsDNS1123Label(o.Secret.Namespace); len(msgs) > 0 {
		errs = append(errs, field.Invalid(field.NewPath("secret", "namespace"), o.Secret.Namespace, "want a namespace name"))
	}
	if msgs := validation.IsDNS1123Subdomain(o.Secret.Name); len(msgs) > 0 {
		errs = append(errs, field.Invalid(field.NewPath("secret", "name"), o.Secret.Name, "want a Secret name"))
	}
	if len(o.Hosts) == 0 {
		errs = append(errs, field.Required(field.NewPath("hosts"), "want at least one DNS name or IP address"))
	}
	for i, h := range o.Hosts {
		if net.ParseIP(h) == nil && len(validation.IsDNS1123Subdomain(h)) > 0 {
			errs = append(errs, field.Invalid(field.NewPath("hosts").Index(i), h, "want a DNS name or an IP address"))
		}
	}
	if o.CertDir == "" {
		errs = append(errs, field.Required(field.NewPath("certDir"), "want the webhook server's certificate directory"))
	}
	for i, name := range o.Configurations {
		if len(validation.IsDNS1123Subdomain(name)) > 0 {
			errs = append(errs, field.Invalid(field.NewPath("configurations").Index(i), name, "want the name of a webhook configuration"))
		}
	}
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"validity", o.Validity}, {"renewBefore", o.RenewBefore}, {"caValidity", o.CAValidity}, {"checkEvery", o.CheckEvery}, {"retryEvery", o.RetryEvery}} {
		if d.d < 0 {
			errs = append(errs, field.Invalid(field.NewPath(d.name), d.d.String(), "want a positive duration"))
		}
	}
	if o.RenewBefore >= o.Validity {
		errs = append(errs, field.Invalid(field.NewPath("renewBefore"), o.RenewBefore.String(), fmt.Sprintf("want less than validity (%s)", o.Validity)))
	}
	if o.CAValidity <= o.Validity+o.RenewBefore {
		errs = append(errs, field.Invalid(field.NewPath("caValidity"), o.CAValidity.String(),
			fmt.Sprintf("want more than validity + renewBefore (%s), the time left at which a CA is renewed", o.Validity+o.RenewBefore)))
	}
	return errs
}

// Rotator keeps a serving certificate in a Secret, in a directory and in
// the caBundle of webhook configurations. Make one with New.
type Rotator struct {
	reader client.Reader
	writer client.Writer
	o      Options
	// configurations are the names of Options.Configurations.
	configurations map[string]bool
	// factories are Watch's informers, one factory per configuration
	// name; Start runs them.
	factories []informers.SharedInformerFactory
	// kick asks Start for a check now (Watch's events); it holds one.
	kick chan struct{}
}

var (
	_ manager.Runnable               = &Rotator{}
	_ manager.LeaderElectionRunnable = &Rotator{}
)

// New returns a Rotator that reads with reader, which should not be a
// cache (a manager's APIReader: the Secret is then read by name, which
// needs get on it alone), and writes with writer. It returns every
// problem of o at once.
func New(reader client.Reader, writer client.Writer, o Options) (*Rotator, error) {
	o = o.withDefaults()
	if errs := o.validate(); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	o.Hosts = slices.Clone(o.Hosts)
	o.Configurations = slices.Clone(o.Configurations)
	names := make(map[string]bool, len(o.Configurations))
	for _, n := range o.Configurations {
		names[n] = true
	}
	return &Rotator{reader: reader, writer: writer, o: o, configurations: names, kick: make(chan struct{}, 1)}, nil
}

// Result is what one Ensure found and did.
type Result struct {
	// Change is what it changed in the Secret.
	Change Change
	// Why says why it changed (empty when Unchanged).
	Why string
	// Injected is true when it patched the caBundle of a configuration.
	Injected bool
	// Missing are the names of Options.Configurations of which there is
	// no configuration of either kind, so nothing was injected there.
	Missing []string
	// WroteFiles is true when it wrote tls.crt and tls.key.
	WroteFiles bool
	// NotAfter is when the serving certificate expires.
	NotAfter time.Time
}

// Ensure checks the Secret, the configuration and the files once, and
// brings them up to date: the Secret first (created if missing, renewed
// if due), then the CA bundle into the configuration, then the files, so
// that no one serves a certificate the API server does not trust yet. A
// configuration that does not exist is not an error (Missing);
// when injecting fails, the files are left as they are.
func (r *Rotator) Ensure(ctx context.Context) (Result, error) {
	m, res, err := r.ensureSecret(ctx)
	if err != nil {
		return res, fmt.Errorf("secret %s: %w", r.o.Secret, err)
	}
	if res.Injected, res.Missing, err = r.inject(ctx, m.caBundle); err != nil {
		return res, err
	}
	if res.WroteFiles, err = writeFiles(r.o.CertDir, m); err != nil {
		return res, fmt.Errorf("certificate directory %s: %w", r.o.CertDir, err)
	}
	return res, nil
}

// ensureSecret returns the Secret's material, made or renewed if due. On a
// race with another replica (AlreadyExists on create, Conflict on update)
// it reads the Secret again and judges the winner's material.
func (r *Rotator) ensureSecret(ctx context.Context) (material, Result, error) {
	var m material
	var res Result
	raced := func(err error) bool { return apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) }
	err := retry.OnError(retry.DefaultRetry, raced, func() error {
		now := r.o.Clock.Now()
		var s corev1.Secret
		err := r.reader.Get(ctx, r.o.Secret, &s)
		missing := apierrors.IsNotFound(err)
		if err != nil && !missing {
			return err
		}
		m = fromSecret(&s)
		change, why := check(m, r.o.Hosts, now, r.lifetimes())
		if change == Unchanged {
			res = Result{Change: Unchanged}
			return nil
		}
		if m, err = issue(m, change, r.o.Hosts, now, r.lifetimes(), r.o.Secret.Name); err != nil {
			return err
		}
		if missing {
			s = corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: r.o.Secret.Namespace, Name: r.o.Secret.Name}, Type: corev1.SecretTypeTLS, Data: m.data()}
			res = Result{Change: Created, Why: "no Secret"}
			return r.writer.Create(ctx, &s)
		}
		// A Secret of another type cannot be changed to kubernetes.io/tls;
		// it keeps its type and gets the keys.
		s.Data = m.data()
		res = Result{Change: change, Why: why}
		return r.writer.Update(ctx, &s) // with its resourceVersion: a race is a Conflict
	})
	if err != nil {
		return material{}, Result{}, err
	}
	if leaf, err := parseLeaf(m); err == nil {
		res.NotAfter = leaf.NotAfter
	}
	return m, res, nil
}

func (r *Rotator) lifetimes() lifetimes {
	return lifetimes{validity: r.o.Validity, caValidity: r.o.CAValidity, renewBefore: r.o.RenewBefore}
}

// NeedLeaderElection returns false: every replica serves the webhook, so
// every replica keeps its files fresh.
func (r *Rotator) NeedLeaderElection() bool { return false }

// Start checks at once, then every CheckEvery, after a failure after
// RetryEvery, and when Watch sees the configuration change, until ctx is
// done. It returns nil then: a failed check is logged and retried, never
// fatal, since the files of the last good check are still served.
func (r *Rotator) Start(ctx context.Context) error {
	for _, f := range r.factories {
		f.Start(ctx.Done())
		defer f.Shutdown()
	}
	for {
		wait := r.o.CheckEvery
		res, err := r.Ensure(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			r.o.Logger.Error(err, "serving certificate check failed", "retryIn", r.o.RetryEvery.String())
			wait = r.o.RetryEvery
		case res.Change != Unchanged || res.Injected || res.WroteFiles:
			r.o.Logger.Info("serving certificate updated", "secret", r.o.Secret.String(), "change", res.Change.String(), "why", res.Why,
				"injected", res.Injected, "wroteFiles", res.WroteFiles, "notAfter", res.NotAfter)
		}
		if len(res.Missing) > 0 && err == nil {
			r.o.Logger.Info("no webhook configuration to put the CA in yet", "names", res.Missing)
		}
		t := r.o.Clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C():
		case <-r.kick:
			t.Stop()
		}
	}
}
