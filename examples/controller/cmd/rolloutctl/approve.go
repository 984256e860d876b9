package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/addonrollout"
	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/internal/planreport"
)

// newApproveCommand is approve: the RolloutApproval of the revision a
// group waits at.
func newApproveCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:               "approve ADDON GROUP",
		Short:             "Create the RolloutApproval of the revision GROUP waits at; refused when nothing waits",
		Args:              exactArgs("ADDON", "GROUP"),
		ValidArgsFunction: c.completeApprove,
	}
	placement := cmd.Flags().String("placement", "", "approve the group only for this install-strategy placement, NAMESPACE/NAME (default: every placement where it waits)")
	mustComplete(cmd, "placement", c.completePlacements)
	version := addonVersionFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		only, err := placementRef(*placement)
		if err != nil {
			return err
		}
		cl, p, err := c.plan(cmd.Context(), args[0], *version)
		if err != nil {
			return err
		}
		return approve(cmd.Context(), cl, c.stdout, p, args[1], only)
	}
	return cmd
}

// placementRef parses --placement NAMESPACE/NAME; nil when it is empty.
func placementRef(s string) (*v1alpha1.PlacementRef, error) {
	if s == "" {
		return nil, nil
	}
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return nil, badUsage("approve: --placement %q: want NAMESPACE/NAME", s)
	}
	return &v1alpha1.PlacementRef{Namespace: ns, Name: name}, nil
}

// approve creates a RolloutApproval for each approval of group pending in
// p (of placement only, when it is not nil). When none is pending it
// reports the approvals that already approve the group, or refuses and
// says what is pending instead.
func approve(ctx context.Context, c client.Client, out io.Writer, p planned, group string, only *v1alpha1.PlacementRef) error {
	rep := p.report
	if only != nil && !slices.ContainsFunc(rep.Placements, func(pl planreport.Placement) bool { return pl.Namespace == only.Namespace && pl.Name == only.Name }) {
		return badUsage("approve: add-on %q has no install-strategy placement %s/%s (it has: %s)", rep.Addon, only.Namespace, only.Name, placementList(rep))
	}
	if rep.Rollout == nil {
		return refused("nothing to approve: add-on %q has no AddOnRollout, so no group of it waits for an approval", rep.Addon)
	}
	inScope := func(ref v1alpha1.PlacementRef) bool { return only == nil || ref == *only }
	var todo []v1alpha1.PendingApproval
	for _, pa := range rep.Rollout.PendingApprovals {
		if pa.Group == group && inScope(pa.Placement) {
			todo = append(todo, pa)
		}
	}
	if len(todo) == 0 {
		if done := approvedAlready(p, group, inScope); len(done) > 0 {
			for _, a := range done {
				if _, err := fmt.Fprintf(out, "already approved: RolloutApproval %q approves group %q of placement %s/%s at revision %s\n",
					a.Name, a.Spec.Group, a.Spec.Placement.Namespace, a.Spec.Placement.Name, a.Spec.Revision); err != nil {
					return err
				}
			}
			return nil
		}
		return refused("%s", nothingPending(rep, group, inScope))
	}
	several := len(rep.Placements) > 1
	for _, pa := range todo {
		a := &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: approvalName(rep.Addon, pa, several)},
			Spec: v1alpha1.RolloutApprovalSpec{AddOn: rep.Addon, Placement: pa.Placement, Group: pa.Group, Revision: pa.Revision}}
		verb, err := createApproval(ctx, c, a)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(out, "approved group %q of placement %s/%s at revision %s: RolloutApproval %q %s; the controller starts the group at its next reconcile\n",
			pa.Group, pa.Placement.Namespace, pa.Placement.Name, pa.Revision, a.Name, verb); err != nil {
			return err
		}
	}
	return nil
}

// createApproval creates a, and says so ("created"); an approval of its
// name approving the same (whoever created it) is fine ("already
// exists"), one approving something else is refused.
func createApproval(ctx context.Context, c client.Client, a *v1alpha1.RolloutApproval) (string, error) {
	err := c.Create(ctx, a)
	switch {
	case err == nil:
		return "created", nil
	case meta.IsNoMatchError(err):
		return "", noCRDs(err)
	case !apierrors.IsAlreadyExists(err):
		return "", fmt.Errorf("creating rolloutapproval %q: %w", a.Name, err)
	}
	var existing v1alpha1.RolloutApproval
	if err := c.Get(ctx, types.NamespacedName{Name: a.Name}, &existing); err != nil {
		return "", fmt.Errorf("reading rolloutapproval %q: %w", a.Name, err)
	}
	if e := existing.Spec; e.AddOn != a.Spec.AddOn || e.Placement != a.Spec.Placement || e.Group != a.Spec.Group || e.Revision != a.Spec.Revision {
		return "", refused("rolloutapproval %q exists and approves group %q of add-on %q, placement %s/%s, at revision %s instead: delete it, or approve with kubectl under another name",
			a.Name, existing.Spec.Group, existing.Spec.AddOn, existing.Spec.Placement.Namespace, existing.Spec.Placement.Name, existing.Spec.Revision)
	}
	return "already exists", nil
}

// approvedAlready returns the hub's approvals that approve group of a
// placement in scope at the placement's current revision, as the
// controller tells (addonrollout.Approves).
func approvedAlready(p planned, group string, inScope func(v1alpha1.PlacementRef) bool) []*v1alpha1.RolloutApproval {
	var out []*v1alpha1.RolloutApproval
	for _, pl := range p.report.Placements {
		if !inScope(v1alpha1.PlacementRef{Namespace: pl.Namespace, Name: pl.Name}) {
			continue
		}
		ref := addonv1beta1.PlacementRef{Namespace: pl.Namespace, Name: pl.Name}
		for _, a := range p.hub.RolloutApprovals {
			if addonrollout.Approves(a, p.report.Addon, ref, group, pl.Revision) {
				out = append(out, a)
			}
		}
	}
	return out
}

// nothingPending says why nothing of group waits for an approval, and
// what waits instead.
func nothingPending(rep *planreport.Report, group string, inScope func(v1alpha1.PlacementRef) bool) string {
	parts := []string{fmt.Sprintf("nothing to approve: group %q of add-on %q waits for no approval", group, rep.Addon)}
	found := false
	for _, pl := range rep.Placements {
		if !inScope(v1alpha1.PlacementRef{Namespace: pl.Namespace, Name: pl.Name}) {
			continue
		}
		for _, g := range pl.Groups {
			if g.Name != group {
				continue
			}
			found = true
			r := g.Row()
			state := r.Phase
			if r.WaitsFor != "-" {
				state += ", waits for " + r.WaitsFor
			}
			parts = append(parts, fmt.Sprintf("in placement %s/%s it is %s: %s", pl.Namespace, pl.Name, state, r.Message))
		}
	}
	if !found {
		parts = append(parts, fmt.Sprintf("no placement has a group %q (groups: %s)", group, groupList(rep)))
	}
	if r := rep.Rollout; len(r.Invalid) > 0 {
		parts = append(parts, "the AddOnRollout is invalid, and holds every group until it is fixed: "+strings.Join(r.Invalid, "; "))
	}
	pending := "pending approvals: none"
	if len(rep.Rollout.PendingApprovals) > 0 {
		var ps []string
		for _, pa := range rep.Rollout.PendingApprovals {
			ps = append(ps, fmt.Sprintf("group %q of placement %s/%s at revision %s", pa.Group, pa.Placement.Namespace, pa.Placement.Name, pa.Revision))
		}
		pending = "pending approvals: " + strings.Join(ps, ", ")
	}
	return strings.Join(append(parts, pending), "; ")
}

// groupList lists the names of the groups of every placement, once each.
func groupList(rep *planreport.Report) string {
	var names []string
	for _, pl := range rep.Placements {
		for _, g := range pl.Groups {
			if g.Name != "" && !slices.Contains(names, g.Name) {
				names = append(names, g.Name)
			}
		}
	}
	if len(names) == 0 {
		return "none named"
	}
	return strings.Join(names, ", ")
}

// placementList lists the install-strategy placements, NAMESPACE/NAME.
func placementList(rep *planreport.Report) string {
	var refs []string
	for _, pl := range rep.Placements {
		refs = append(refs, pl.Namespace+"/"+pl.Name)
	}
	return strings.Join(refs, ", ")
}

// approvalName names the approval of pa of the add-on addOn:
// ADDON-GROUP-REVISION, with the placement's namespace and name after
// the add-on's when it has several placements. Lowercased, with every
// character an object name cannot hold replaced by "-", and at most 253
// characters long; when that changed the name, the first 8 hex digits of
// the SHA-256 of the exact names are appended, so that two approvals whose
// names differ only in case or in such characters get two objects.
func approvalName(addOn string, pa v1alpha1.PendingApproval, withPlacement bool) string {
	parts := []string{addOn}
	if withPlacement {
		parts = append(parts, pa.Placement.Namespace, pa.Placement.Name)
	}
	parts = append(parts, pa.Group, pa.Revision)
	raw := strings.Join(parts, "-")
	name := objectName(raw)
	if name == raw && len(name) <= validation.DNS1123SubdomainMaxLength {
		return name
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	suffix := "-" + hex.EncodeToString(sum[:])[:8]
	name = strings.TrimRight(name[:min(len(name), validation.DNS1123SubdomainMaxLength-len(suffix))], "-")
	return name + suffix
}

// objectName is s lowercased, with each character other than a-z, 0-9
// and "-" replaced by "-", and without a leading or trailing "-".
func objectName(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			b[i] = '-'
		}
	}
	out := strings.Trim(string(b), "-")
	if out == "" {
		return "approval"
	}
	return out
}
