package servingcert

import (
	"bytes"
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// webhookConfiguration is one of the two kinds of webhook configuration,
// as inject reads and patches it.
type webhookConfiguration interface {
	// caBundles are the clientConfig.caBundle fields of its webhooks.
	caBundles() []*[]byte
}

type validating struct {
	admissionregistrationv1.ValidatingWebhookConfiguration
}

func (v *validating) caBundles() []*[]byte {
	out := make([]*[]byte, len(v.Webhooks))
	for i := range v.Webhooks {
		out[i] = &v.Webhooks[i].ClientConfig.CABundle
	}
	return out
}

type mutating struct {
	admissionregistrationv1.MutatingWebhookConfiguration
}

func (m *mutating) caBundles() []*[]byte {
	out := make([]*[]byte, len(m.Webhooks))
	for i := range m.Webhooks {
		out[i] = &m.Webhooks[i].ClientConfig.CABundle
	}
	return out
}

// configurationKind is a kind of webhook configuration: its resource
// (for errors), and a new empty object of it, as read and patched and as
// inject changes it.
type configurationKind struct {
	resource string
	object   func() (client.Object, webhookConfiguration)
}

// configurationKinds are the kinds every name of Options.Configurations
// is looked up as.
func configurationKinds() []configurationKind {
	return []configurationKind{
		{"validatingwebhookconfiguration", func() (client.Object, webhookConfiguration) {
			v := &validating{}
			return &v.ValidatingWebhookConfiguration, v
		}},
		{"mutatingwebhookconfiguration", func() (client.Object, webhookConfiguration) {
			m := &mutating{}
			return &m.MutatingWebhookConfiguration, m
		}},
	}
}

// inject puts bundle into the caBundle of every webhook of every
// configuration of Options.Configurations, validating and mutating. It
// says whether it patched one, and which names have neither kind.
func (r *Rotator) inject(ctx context.Context, bundle []byte) (patched bool, missing []string, err error) {
	for _, name := range r.o.Configurations {
		found := false
		for _, k := range configurationKinds() {
			p, ok, err := r.injectOne(ctx, k.object, name, bundle)
			if err != nil {
				return patched, missing, fmt.Errorf("%s %s: %w", k.resource, name, err)
			}
			patched, found = patched || p, found || ok
		}
		if !found {
			missing = append(missing, name)
		}
	}
	return patched, missing, nil
}

// injectOne puts bundle into the configuration of one kind and name, with
// one patch that carries its resourceVersion (so that a webhook added
// meanwhile is not dropped: the patch is refused and made again). It says
// whether it patched, and whether the configuration exists.
func (r *Rotator) injectOne(ctx context.Context, kind func() (client.Object, webhookConfiguration), name string, bundle []byte) (patched, found bool, err error) {
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		patched, found = false, false
		obj, cfg := kind()
		if err := r.reader.Get(ctx, types.NamespacedName{Name: name}, obj); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		}
		found = true
		before := obj.DeepCopyObject().(client.Object)
		for _, b := range cfg.caBundles() {
			if !bytes.Equal(*b, bundle) {
				*b = bundle
				patched = true
			}
		}
		if !patched {
			return nil
		}
		return r.writer.Patch(ctx, obj, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}))
	})
	return patched, found, err
}

// Watch makes Start check at once whenever one of the configurations is
// created or changes, so that one created after the controller started,
// or replaced without its caBundle (kubectl replace, a delete and a
// create), gets the CA within a second, not at the next check. It watches
// each name of Options.Configurations, of both kinds, with informers of
// its own that Start runs, each listing and watching with a metadata.name
// field selector: the controller needs list and watch on those names
// alone, not on every webhook configuration of the hub. Call it before
// Start.
func (r *Rotator) Watch(cs kubernetes.Interface) error {
	for _, name := range r.o.Configurations {
		f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		}))
		v1 := f.Admissionregistration().V1()
		for _, inf := range []toolscache.SharedIndexInformer{v1.ValidatingWebhookConfigurations().Informer(), v1.MutatingWebhookConfigurations().Informer()} {
			if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
				AddFunc:    r.kickFor,
				UpdateFunc: func(_, obj any) { r.kickFor(obj) },
			}); err != nil {
				return err
			}
		}
		r.factories = append(r.factories, f)
	}
	return nil
}

// kickFor asks Start for a check if obj is one of the configurations; a
// check already asked for is enough. Its own patch kicks it too: that
// check finds nothing to do, for a few reads.
func (r *Rotator) kickFor(obj any) {
	o, ok := obj.(client.Object)
	if !ok || !r.configurations[o.GetName()] {
		return
	}
	select {
	case r.kick <- struct{}{}:
	default:
	}
}
