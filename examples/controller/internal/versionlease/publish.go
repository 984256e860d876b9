package versionlease

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
)

// Publish writes the replica's report once, creating the Lease if there
// is none, and removes the reports of the replicas not renewed for
// ForgetAfter.
func (p *Publisher) Publish(ctx context.Context) error {
	key, err := annotation(p.Replica)
	if err != nil {
		return err
	}
	now := p.clock().Now()
	value, err := json.Marshal(Report{Info: p.Info, RenewTime: metav1.NewTime(now.UTC().Truncate(time.Second))})
	if err != nil {
		return err
	}
	lease, err := p.patch(ctx, map[string]any{key: string(value)})
	if apierrors.IsNotFound(err) {
		lease, err = p.create(ctx, key, string(value))
	}
	if err != nil {
		return err
	}
	return p.forget(ctx, lease, now)
}

// Withdraw removes the replica's report.
func (p *Publisher) Withdraw(ctx context.Context) error {
	key, err := annotation(p.Replica)
	if err != nil {
		return err
	}
	_, err = p.patch(ctx, map[string]any{key: nil})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// patch merges annotations (a nil value removes one) into the Lease, and
// returns the Lease as the patch left it.
func (p *Publisher) patch(ctx context.Context, annotations map[string]any) (*coordinationv1.Lease, error) {
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return nil, err
	}
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: Name}}
	if err := p.Client.Patch(ctx, lease, client.RawPatch(types.MergePatchType, body), client.FieldOwner(hubclient.FieldManager)); err != nil {
		return nil, fmt.Errorf("patching lease %s/%s: %w", p.Namespace, Name, err)
	}
	return lease, nil
}

// create creates the Lease with the annotation key; if another replica
// created it first, it patches that one.
func (p *Publisher) create(ctx context.Context, key, value string) (*coordinationv1.Lease, error) {
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: Name,
		Labels:      map[string]string{"app.kubernetes.io/name": "rolloutkit-controller"},
		Annotations: map[string]string{key: value}}}
	err := p.Client.Create(ctx, lease, client.FieldOwner(hubclient.FieldManager))
	if apierrors.IsAlreadyExists(err) {
		return p.patch(ctx, map[string]any{key: value})
	}
	if err != nil {
		return nil, fmt.Errorf("creating lease %s/%s: %w", p.Namespace, Name, err)
	}
	return lease, nil
}

// forget removes from lease the reports of other replicas last renewed
// more than ForgetAfter before now.
func (p *Publisher) forget(ctx context.Context, lease *coordinationv1.Lease, now time.Time) error {
	after := p.ForgetAfter
	if after <= 0 {
		after = DefaultForgetAfter
	}
	gone := map[string]any{}
	for key, value := range lease.Annotations {
		if !strings.HasPrefix(key, AnnotationPrefix) || key == AnnotationPrefix+p.Replica {
			continue
		}
		var r Report
		// One that cannot be read is left for Read to report.
		if err := json.Unmarshal([]byte(value), &r); err == nil && now.Sub(r.RenewTime.Time) > after {
			gone[key] = nil
		}
	}
	if len(gone) == 0 {
		return nil
	}
	_, err := p.patch(ctx, gone)
	return err
}
