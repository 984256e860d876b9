package agent

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	fakeclock "github.com/rolloutkit/rolloutkit/clock/fake"
)

const delay = 2 * time.Second

// deployWork is a work at generation gen whose target is h.
func deployWork(t testing.TB, h string, gen int64) *workv1.ManifestWork {
	t.Helper()
	w, err := renderWork(cluster, addonNm, values{image: oldImage}, 1, map[string]string{hashKey: h})
	require.NoError(t, err)
	w.Generation = gen
	return w
}

func workReq() ctrl.Request { return request(cluster, WorkName(addonNm)) }

// condition returns the work's condition of type t as "Status/gen", or "".
func condition(t testing.TB, c client.Client, typ string) string {
	t.Helper()
	w, ok := getWork(t, c)
	require.True(t, ok)
	cond := meta.FindStatusCondition(w.Status.Conditions, typ)
	if cond == nil {
		return ""
	}
	return fmt.Sprintf("%s/%d", cond.Status, cond.ObservedGeneration)
}

func TestWorkAgentAppliesAfterDelay(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(start)
	c := newClient(t, deployWork(t, "h1", 1))
	a := &WorkAgent{Client: c, Delay: delay, Clock: clk}
	ctx := context.Background()

	res, err := a.Reconcile(ctx, workReq())
	require.NoError(t, err)
	assert.Equal(t, ctrl.Result{RequeueAfter: delay}, res)
	assert.Empty(t, condition(t, c, workv1.WorkApplied), "applied before the delay")

	clk.Step(delay / 2)
	res, err = a.Reconcile(ctx, workReq())
	require.NoError(t, err)
	assert.Equal(t, ctrl.Result{RequeueAfter: delay / 2}, res, "the rest of the delay")

	clk.Step(delay / 2)
	res, err = a.Reconcile(ctx, workReq())
	require.NoError(t, err)
	assert.Equal(t, ctrl.Result{}, res)
	assert.Equal(t, "True/1", condition(t, c, workv1.WorkApplied))
	assert.Equal(t, "True/1", condition(t, c, workv1.WorkAvailable))

	// Ready: nothing more is written.
	w, _ := getWork(t, c)
	_, err = a.Reconcile(ctx, workReq())
	require.NoError(t, err)
	after, _ := getWork(t, c)
	assert.Equal(t, w.ResourceVersion, after.ResourceVersion)
}

func TestWorkAgentNoDelay(t *testing.T) {
	t.Parallel()
	c := newClient(t, deployWork(t, "h1", 3))
	res, err := (&WorkAgent{Client: c, Clock: fakeclock.New(start)}).Reconcile(context.Background(), workReq())
	require.NoError(t, err)
	assert.Equal(t, ctrl.Result{}, res)
	assert.Equal(t, "True/3", condition(t, c, workv1.WorkApplied))
}

// A new generation is applied anew: the old one's Applied condition does not
// make it ready, and the delay starts over.
func TestWorkAgentNewGeneration(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(start)
	w := deployWork(t, "h2", 2)
	w.Status.Conditions = appliedConditions(nil, 1, start.Add(-time.Minute))
	c := newClient(t, w)
	a := &WorkAgent{Client: c, Delay: delay, Clock: clk}
	res, err := a.Reconcile(context.Background(), workReq())
	require.NoError(t, err)
	assert.Equal(t, ctrl.Result{RequeueAfter: delay}, res)
	assert.Equal(t, "True/1", condition(t, c, workv1.WorkApplied))
	clk.Step(delay)
	_, err = a.Reconcile(context.Background(), workReq())
	require.NoError(t, err)
	assert.Equal(t, "True/2", condition(t, c, workv1.WorkApplied))
	assert.Equal(t, "True/2", condition(t, c, workv1.WorkAvailable))
}

// A failing cluster reports Applied False at the work's generation, stays
// so (no second write), tries again every delay, and applies once Fail
// says so.
func TestWorkAgentFails(t *testing.T) {
	t.Parallel()
	clk := fakeclock.New(start)
	w := deployWork(t, "bad", 2)
	w.Status.Conditions = appliedConditions(nil, 1, start.Add(-time.Minute))
	c := newClient(t, w)
	failing := true
	var targets []string
	a := &WorkAgent{Client: c, Delay: delay, Clock: clk, Fail: func(cl, target string) bool {
		targets = append(targets, cl+":"+target)
		return failing
	}}
	ctx := context.Background()
	_, err := a.Reconcile(ctx, workReq())
	require.NoError(t, err)
	clk.Step(delay)
	res, err := a.Reconcile(ctx, workReq())
	require.NoError(t, err)
	assert.Equal(t, ctrl.Result{RequeueAfter: delay}, res, "tries again")
	assert.Equal(t, "False/2", condition(t, c, workv1.WorkApplied))
	assert.Equal(t, "True/1", condition(t, c, workv1.WorkAvailable), "Available is left at the old generation")
	assert.Equal(t, []string{"dev-cluster:bad"}, targets)

	before, _ := getWork(t, c)
	clk.Step(delay)
	_, err = a.Reconcile(ctx, workReq())
	require.NoError(t, err)
	after, _ := getWork(t, c)
	assert.Equal(t, before.ResourceVersion, after.ResourceVersion, "the failure was written again")

	failing = false
	_, err = a.Reconcile(ctx, workReq())
	require.NoError(t, err)
	assert.Equal(t, "True/2", condition(t, c, workv1.WorkApplied))
	assert.Equal(t, "True/2", condition(t, c, workv1.WorkAvailable))
}

func TestWorkAgentRetriesAtLeastEverySecond(t *testing.T) {
	t.Parallel()
	c := newClient(t, deployWork(t, "bad", 1))
	a := &WorkAgent{Client: c, Clock: fakeclock.New(start), Fail: func(string, string) bool { return true }}
	res, err := a.Reconcile(context.Background(), workReq())
	require.NoError(t, err)
	assert.Equal(t, ctrl.Result{RequeueAfter: minRetry}, res)
	assert.Equal(t, "False/1", condition(t, c, workv1.WorkApplied))
}

// The status patch carries the resourceVersion read.
func TestWorkAgentPatchIsOptimistic(t *testing.T) {
	t.Parallel()
	c := newClient(t, deployWork(t, "h1", 1))
	ctx := context.Background()
	stale, _ := getWork(t, c)
	fresh := stale.DeepCopy()
	fresh.Annotations["note"] = "someone else"
	require.NoError(t, c.Update(ctx, fresh))
	err := (&WorkAgent{Client: c}).write(ctx, stale, appliedConditions(nil, 1, start))
	require.Error(t, err)
	assert.Empty(t, condition(t, c, workv1.WorkApplied))
}
