package e2e_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// competitorUser is the user the competing writer authenticates as.
const competitorUser = "rolloutkit-competitor"

// competingCondition is the condition the competing writer owns in the
// add-ons' status: one no rollout reads.
const competingCondition = "CompetingWriter"

// competitor writes a condition of its own into add-ons' status, read
// fresh and patched with an optimistic lock, as another controller sharing
// the add-ons does: each of its writes makes a status write computed from
// an older read of that add-on fail with a conflict.
type competitor struct {
	cancel    context.CancelFunc
	done      chan struct{}
	writes    atomic.Int64 // accepted
	conflicts atomic.Int64 // its own writes refused as conflicts
}

// compete starts a competitor that writes the add-on of the cluster next
// returns, then waits every, until stop. next is called from the
// competitor's goroutine only.
func (e *env) compete(t testing.TB, every time.Duration, next func() string) *competitor {
	t.Helper()
	c := e.competitorClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	w := &competitor{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for n := 1; ctx.Err() == nil; n++ {
			err := competingWrite(ctx, c, next(), n)
			switch {
			case err == nil:
				w.writes.Add(1)
			case apierrors.IsConflict(err):
				w.conflicts.Add(1)
			}
			select {
			case <-ctx.Done():
			case <-time.After(every):
			}
		}
	}()
	t.Cleanup(w.stop)
	return w
}

// competitorClient returns a client of the hub that authenticates as
// competitorUser.
func (e *env) competitorClient(t testing.TB) client.Client {
	t.Helper()
	kc, err := e.hub.KubeConfigAs(competitorUser, "system:masters")
	require.NoError(t, err)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
	require.NoError(t, err)
	cfg.QPS, cfg.Burst = 1000, 1000
	c, err := testhub.NewClient(cfg)
	require.NoError(t, err)
	return c
}

// competingWrite sets the competitor's condition on cluster's add-on for
// the nth time; the status flips each time, so that every write changes
// the add-on.
func competingWrite(ctx context.Context, c client.Client, cluster string, n int) error {
	var cur addonv1alpha1.ManagedClusterAddOn
	if err := c.Get(ctx, types.NamespacedName{Namespace: cluster, Name: addonName}, &cur); err != nil {
		return err
	}
	next := cur.DeepCopy()
	status := metav1.ConditionTrue
	if n%2 == 0 {
		status = metav1.ConditionFalse
	}
	meta.SetStatusCondition(&next.Status.Conditions, metav1.Condition{Type: competingCondition, Status: status,
		Reason: "Competing", Message: fmt.Sprintf("write %d", n)})
	return c.Status().Patch(ctx, next, client.MergeFromWithOptions(&cur, client.MergeFromWithOptimisticLock{}), client.FieldOwner(competitorUser))
}

// stop stops the competitor and waits for it.
func (w *competitor) stop() {
	w.cancel()
	<-w.done
}
