package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// This file is how approve tells what an approval did: it never reports
// an approval as given when its status says otherwise.

// judgePoll is how often approve --wait reads the approval.
const judgePoll = 500 * time.Millisecond

// verdict says what the status of a says it did: ok while it approves
// (Used, NotUsedYet) or the controller has not judged it yet, and in
// words; not ok when its status says it approves nothing
// (RevisionMismatch, NotRequired, UnknownGroup, AddOnNotFound).
func verdict(a *v1alpha1.RolloutApproval) (bool, string) {
	c := meta.FindStatusCondition(a.Status.Conditions, hubplan.ConditionApproved)
	switch {
	case c == nil:
		return true, "the controller has not judged it yet"
	case c.Reason == hubplan.ReasonUsed || c.Reason == hubplan.ReasonNotUsedYet:
		return true, fmt.Sprintf("its status says %s: %s", c.Reason, c.Message)
	}
	return false, fmt.Sprintf("its status says %s: %s", c.Reason, c.Message)
}

// approvedAlready reports the hub's approvals that name o.group of a
// placement in scope at the placement's current revision (as the
// controller tells, hubplan.Approves), when nothing of it is
// pending. It refuses when there are none, when one is of another
// revision than o.revision, and when the status of one says it approves
// nothing.
func approvedAlready(e env, p planned, o approval) error {
	rep := p.report
	var lines []string
	for _, pl := range rep.Placements {
		ref := v1alpha1.PlacementRef{Namespace: pl.Namespace, Name: pl.Name}
		if !o.inScope(ref) {
			continue
		}
		for _, a := range p.hub.RolloutApprovals {
			if !hubplan.Approves(a, rep.Addon, addonv1beta1.PlacementRef{Namespace: pl.Namespace, Name: pl.Name}, o.group, pl.Revision) {
				continue
			}
			what := fmt.Sprintf("RolloutApproval %q names group %q of placement %s/%s at revision %s", a.Name, a.Spec.Group, pl.Namespace, pl.Name, a.Spec.Revision)
			if o.revision != "" && o.revision != a.Spec.Revision {
				return refused("not approved: %s, the revision the placement rolls out, not %s", what, o.revision)
			}
			ok, says := verdict(a)
			if !ok {
				return refused("not approved: %s, but approves nothing: %s; %s", what, says, nothingPending(rep, o.group, o.inScope))
			}
			lines = append(lines, fmt.Sprintf("already approved: RolloutApproval %q approves group %q of placement %s/%s at revision %s: %s\n",
				a.Name, a.Spec.Group, pl.Namespace, pl.Name, a.Spec.Revision, says))
		}
	}
	if len(lines) == 0 {
		return refused("%s", nothingPending(rep, o.group, o.inScope))
	}
	_, err := io.WriteString(e.stdout, strings.Join(lines, ""))
	return err
}

// reportJudged says what the approval a, just created or found (head
// says which), did: after waiting up to timeout for the controller to judge
// it, when timeout is not 0. It refuses when its status says it approves
// nothing, or when the controller did not judge it in time.
func reportJudged(ctx context.Context, c client.Client, out io.Writer, a *v1alpha1.RolloutApproval, head string, timeout time.Duration) error {
	if timeout > 0 {
		judged, err := awaitJudgement(ctx, c, a.Name, timeout)
		if err != nil {
			return fmt.Errorf("%s; %w", head, err)
		}
		a = judged
	}
	ok, says := verdict(a)
	if !ok {
		return refused("not approved: %s, but %s", head, says)
	}
	if meta.FindStatusCondition(a.Status.Conditions, hubplan.ConditionApproved) == nil {
		says += ": it starts the group at its next reconcile"
	}
	_, err := fmt.Fprintf(out, "approved %s; %s\n", head, says)
	return err
}

// awaitJudgement reads the approval name until it has an Approved
// condition, for up to timeout, and returns it.
func awaitJudgement(ctx context.Context, c client.Client, name string, timeout time.Duration) (*v1alpha1.RolloutApproval, error) {
	var a v1alpha1.RolloutApproval
	err := wait.PollUntilContextTimeout(ctx, judgePoll, timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, types.NamespacedName{Name: name}, &a); err != nil {
			return false, fmt.Errorf("reading rolloutapproval %q: %w", name, err)
		}
		return meta.FindStatusCondition(a.Status.Conditions, hubplan.ConditionApproved) != nil, nil
	})
	if wait.Interrupted(err) {
		return nil, refused("the controller has not judged it within --wait %s: is it running?", timeout)
	}
	if err != nil {
		return nil, err
	}
	return &a, nil
}
