package servingcert

import (
	"bytes"
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// inject puts bundle into the caBundle of every webhook of the
// configuration, with one patch that carries the configuration's
// resourceVersion (so that a webhook added meanwhile is not dropped: the
// patch is refused and made again). It says whether it patched, and
// whether the configuration was missing.
func (r *Rotator) inject(ctx context.Context, bundle []byte) (patched, missing bool, err error) {
	if r.o.Configuration == "" {
		return false, false, nil
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		patched, missing = false, false
		var vwc admissionregistrationv1.ValidatingWebhookConfiguration
		if err := r.reader.Get(ctx, types.NamespacedName{Name: r.o.Configuration}, &vwc); err != nil {
			if apierrors.IsNotFound(err) {
				missing = true
				return nil
			}
			return err
		}
		before := vwc.DeepCopy()
		for i := range vwc.Webhooks {
			if !bytes.Equal(vwc.Webhooks[i].ClientConfig.CABundle, bundle) {
				vwc.Webhooks[i].ClientConfig.CABundle = bundle
				patched = true
			}
		}
		if !patched {
			return nil
		}
		return r.writer.Patch(ctx, &vwc, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}))
	})
	if err != nil {
		return false, false, err
	}
	return patched, missing, nil
}

// Watch makes Start check at once whenever the configuration is created
// or changes, so that one created after the controller started, or
// replaced without its caBundle (kubectl replace, a delete and a create),
// gets the CA within a second, not at the next check. informers is
// usually the manager's cache: configure it to hold only the
// configuration (cache.Options.ByObject, with a metadata.name field
// selector), so that the controller needs list and watch on that one name
// and not on every ValidatingWebhookConfiguration of the hub.
func (r *Rotator) Watch(ctx context.Context, informers cache.Informers) error {
	if r.o.Configuration == "" {
		return nil
	}
	inf, err := informers.GetInformer(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{}, cache.BlockUntilSynced(false))
	if err != nil {
		return err
	}
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    r.kickFor,
		UpdateFunc: func(_, obj any) { r.kickFor(obj) },
	})
	return err
}

// kickFor asks Start for a check if obj is the configuration; a check
// already asked for is enough. Its own patch kicks it too: that check
// finds nothing to do, for two reads.
func (r *Rotator) kickFor(obj any) {
	vwc, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration)
	if !ok || vwc.Name != r.o.Configuration {
		return
	}
	select {
	case r.kick <- struct{}{}:
	default:
	}
}
