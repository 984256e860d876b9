package agent

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	fakeclock "github.com/rolloutkit/rolloutkit/clock/fake"
)

// otherFinalizer is a finalizer of someone other than the work agent.
const otherFinalizer = "example.io/hold"

// workWrites records the writes of works, in order: an update as the
// finalizers and number of conditions it sends, a status patch as the
// finalizers stored when it is sent.
func workWrites(writes *[]string) interceptor.Funcs {
	return interceptor.Funcs{
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if w, ok := obj.(*workv1.ManifestWork); ok {
				*writes = append(*writes, fmt.Sprintf("update %v conditions=%d", w.Finalizers, len(w.Status.Conditions)))
			}
			return c.Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			stored := &workv1.ManifestWork{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), stored); err != nil {
				return err
			}
			*writes = append(*writes, fmt.Sprintf("%s patch, stored %v", sub, stored.Finalizers))
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		},
	}
}

// The work agent puts its finalizer on a work, with an update of the work,
// before it reports any condition; the status writes then land on the work
// with the finalizer, and leave it there.
func TestWorkAgentAddsTheFinalizerFirst(t *testing.T) {
	t.Parallel()
	fail := func(string, string) bool { return true }
	for name, tc := range map[string]struct {
		finalizers []string // the work's before
		delay      time.Duration
		fail       func(cluster, target string) bool
		want       []string
		wantFinal  []string
		wantApply  string
	}{
		"no delay": {nil, 0, nil,
			[]string{"update [" + WorkFinalizer + "] conditions=0", "status patch, stored [" + WorkFinalizer + "]"},
			[]string{WorkFinalizer}, "True/1"},
		"with a delay": {nil, delay, nil,
			[]string{"update [" + WorkFinalizer + "] conditions=0", "status patch, stored [" + WorkFinalizer + "]"},
			[]string{WorkFinalizer}, "True/1"},
		"a failing apply": {nil, delay, fail,
			[]string{"update [" + WorkFinalizer + "] conditions=0", "status patch, stored [" + WorkFinalizer + "]"},
			[]string{WorkFinalizer}, "False/1"},
		"another's finalizer is kept": {[]string{otherFinalizer}, delay, nil,
			[]string{"update [" + otherFinalizer + " " + WorkFinalizer + "] conditions=0", "status patch, stored [" + otherFinalizer + " " + WorkFinalizer + "]"},
			[]string{otherFinalizer, WorkFinalizer}, "True/1"},
		"already there: not written again": {[]string{WorkFinalizer}, delay, nil,
			[]string{"status patch, stored [" + WorkFinalizer + "]"},
			[]string{WorkFinalizer}, "True/1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var writes []string
			w := deployWork(t, "h1", 1)
			w.Finalizers = tc.finalizers
			c := newClientWith(t, workWrites(&writes), w)
			clk := fakeclock.New(start)
			a := &WorkAgent{Client: c, Delay: tc.delay, Clock: clk, Fail: tc.fail}
			ctx := context.Background()

			_, err := a.Reconcile(ctx, workReq())
			require.NoError(t, err)
			if tc.delay > 0 {
				got, _ := getWork(t, c)
				assert.Equal(t, tc.wantFinal, got.Finalizers, "the finalizer waits for the delay")
				assert.Empty(t, got.Status.Conditions, "reported before the delay")
				clk.Step(tc.delay)
				_, err = a.Reconcile(ctx, workReq())
				require.NoError(t, err)
			}
			assert.Equal(t, tc.want, writes)
			got, _ := getWork(t, c)
			assert.Equal(t, tc.wantFinal, got.Finalizers)
			assert.Equal(t, tc.wantApply, condition(t, c, workv1.WorkApplied))
		})
	}
}

// A deleted work that carries the work agent's finalizer loses it Delay
// after the agent first sees it deleting, and nothing is reported about it
// meanwhile; a deleting work without the finalizer is left as it is.
func TestWorkAgentCleansUpADeletedWork(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		finalizers []string
		delay      time.Duration
		want       []string // the finalizers left; nil: the work is gone
		wantWait   bool     // the agent waits for the delay
	}{
		"ours alone: the delete completes":         {[]string{WorkFinalizer}, delay, nil, true},
		"ours alone, no delay":                     {[]string{WorkFinalizer}, 0, nil, false},
		"another's too: it stays, deleting":        {[]string{otherFinalizer, WorkFinalizer}, delay, []string{otherFinalizer}, true},
		"not ours: left as it is (not even added)": {[]string{otherFinalizer}, delay, []string{otherFinalizer}, false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := deployWork(t, "h1", 2)
			w.Finalizers = tc.finalizers
			c := newClient(t, w)
			ctx := context.Background()
			require.NoError(t, c.Delete(ctx, w))
			deleting, ok := getWork(t, c)
			require.True(t, ok, "the fake deleted a work with finalizers")
			clk := fakeclock.New(start)
			a := &WorkAgent{Client: c, Delay: tc.delay, Clock: clk}

			res, err := a.Reconcile(ctx, workReq())
			require.NoError(t, err)
			if tc.wantWait {
				assert.Equal(t, ctrl.Result{RequeueAfter: tc.delay}, res)
				clk.Step(tc.delay / 2)
				res, err = a.Reconcile(ctx, workReq())
				require.NoError(t, err)
				assert.Equal(t, ctrl.Result{RequeueAfter: tc.delay / 2}, res, "the rest of the delay")
				got, _ := getWork(t, c)
				assert.Equal(t, deleting.ResourceVersion, got.ResourceVersion, "written before the delay")
				clk.Step(tc.delay / 2)
				res, err = a.Reconcile(ctx, workReq())
				require.NoError(t, err)
			}
			assert.Equal(t, ctrl.Result{}, res)
			got, ok := getWork(t, c)
			if tc.want == nil {
				assert.False(t, ok, "the work is still there")
				return
			}
			require.True(t, ok)
			assert.Equal(t, tc.want, got.Finalizers)
			assert.Empty(t, got.Status.Conditions, "a deleting work was applied")
			if !tc.wantWait {
				assert.Equal(t, deleting.ResourceVersion, got.ResourceVersion, "a work not ours was written")
			}
		})
	}
}

// The finalizer updates carry the resourceVersion read: a write by someone
// else in between makes them fail with a conflict and change nothing, and
// the agent, reading again, then succeeds.
func TestWorkAgentFinalizerUpdatesAreOptimistic(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		finalizers []string
		deleted    bool
		write      func(a *WorkAgent, stale *workv1.ManifestWork) error
		wantAfter  []string // the finalizers after the agent reads again; nil: gone
	}{
		"adding": {nil, false, func(a *WorkAgent, stale *workv1.ManifestWork) error {
			_, err := a.addFinalizer(context.Background(), stale)
			return err
		}, []string{WorkFinalizer}},
		"removing": {[]string{WorkFinalizer}, true, func(a *WorkAgent, stale *workv1.ManifestWork) error {
			_, err := a.cleanUp(context.Background(), workReq().String(), stale, start)
			return err
		}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := deployWork(t, "h1", 1)
			w.Finalizers = tc.finalizers
			c := newClient(t, w)
			ctx := context.Background()
			if tc.deleted {
				require.NoError(t, c.Delete(ctx, w))
			}
			stale, _ := getWork(t, c)
			fresh := stale.DeepCopy()
			fresh.Annotations["note"] = "someone else"
			require.NoError(t, c.Update(ctx, fresh))

			a := &WorkAgent{Client: c, Clock: fakeclock.New(start)}
			err := tc.write(a, stale)
			require.Error(t, err)
			assert.True(t, apierrors.IsConflict(err), "want a conflict, got %v", err)
			got, _ := getWork(t, c)
			assert.Equal(t, fresh.ResourceVersion, got.ResourceVersion)
			assert.Equal(t, tc.finalizers, got.Finalizers)

			_, err = a.Reconcile(ctx, workReq())
			require.NoError(t, err)
			got, ok := getWork(t, c)
			if tc.wantAfter == nil {
				assert.False(t, ok, "the work is still there")
				return
			}
			assert.Equal(t, tc.wantAfter, got.Finalizers)
			assert.Equal(t, "someone else", got.Annotations["note"], "their write was overwritten")
		})
	}
}
