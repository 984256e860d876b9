package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// newApproveCommand is approve: the RolloutApproval of the revision a
// group waits at.
func newApproveCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:               "approve ADDON GROUP",
		Short:             "Create the RolloutApproval of revision --revision of GROUP, or with --latest of the revision it waits at; refused when nothing waits, or another revision than --revision does",
		Args:              exactArgs("ADDON", "GROUP"),
		ValidArgsFunction: c.completeApprove,
	}
	placement := cmd.Flags().String("placement", "", "approve the group only for this install-strategy placement, NAMESPACE/NAME (default: every placement where it waits)")
	mustComplete(cmd, "placement", c.completePlacements)
	revision := cmd.Flags().String("revision", "", "approve only this revision, the one reviewed (status lists its configs): refused when the group waits at another (this or --latest is required)")
	latest := cmd.Flags().Bool("latest", false, "approve the revision the group waits at now, whatever it is, and print it with its configs (this or --revision is required)")
	wait := cmd.Flags().Duration("wait", 0, "wait this long for the controller to judge the approval, and say what it judged (0: do not wait)")
	version := addonVersionFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		only, err := placementRef(*placement)
		if err != nil {
			return err
		}
		if err := revisionChoice(*revision, *latest); err != nil {
			return err
		}
		if *wait < 0 {
			return badUsage("approve: --wait %s: want a duration of 0 or more", *wait)
		}
		cl, p, err := c.plan(cmd.Context(), args[0], *version)
		if err != nil {
			return err
		}
		return approve(cmd.Context(), cl, c.env, p, approval{group: args[1], only: only, revision: *revision, wait: *wait})
	}
	return cmd
}

// revisionChoice requires exactly one of --revision and --latest: an
// approval without either could approve a revision changed since it was
// reviewed.
func revisionChoice(revision string, latest bool) error {
	switch {
	case revision == "" && !latest:
		return badUsage("approve: want --revision REV (the revision reviewed in status) or --latest (the revision waiting now, whatever it is)")
	case revision != "" && latest:
		return badUsage("approve: --revision %q and --latest: want one of them", revision)
	}
	return nil
}

// approval is what approve is asked to approve, and how.
type approval struct {
	// group is the group to approve.
	group string
	// only is the placement to approve it for; nil: every placement.
	only *v1alpha1.PlacementRef
	// revision is the revision reviewed; "": the one the group waits at.
	revision string
	// wait is how long to wait for the controller's judgement; 0: not at
	// all.
	wait time.Duration
}

// inScope tells whether the placement ref is one to approve for.
func (o approval) inScope(ref v1alpha1.PlacementRef) bool { return o.only == nil || ref == *o.only }

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

// approve creates a RolloutApproval for each approval of o.group pending
// in p (of o.only, when it is set), once each waits at o.revision (when
// set). When none is pending it reports the approvals that already
// approve the group, or refuses and says what is pending instead, or what
// the status of an approval says when it approves nothing.
func approve(ctx context.Context, c client.Client, e env, p planned, o approval) error {
	rep := p.report
	if o.only != nil && !slices.ContainsFunc(rep.Placements, func(pl planreport.Placement) bool { return pl.Namespace == o.only.Namespace && pl.Name == o.only.Name }) {
		return badUsage("approve: add-on %q has no install-strategy placement %s/%s (it has: %s)", rep.Addon, o.only.Namespace, o.only.Name, placementList(rep))
	}
	if rep.Rollout == nil {
		return refused("nothing to approve: add-on %q has no AddOnRollout, so no group of it waits for an approval", rep.Addon)
	}
	var todo []v1alpha1.PendingApproval
	for _, pa := range rep.Rollout.PendingApprovals {
		if pa.Group == o.group && o.inScope(pa.Placement) {
			todo = append(todo, pa)
		}
	}
	if len(todo) == 0 {
		return approvedAlready(e, p, o)
	}
	for _, pa := range todo {
		if o.revision != "" && pa.Revision != o.revision {
			return refused("%s", otherRevision(rep, pa, o.revision, e.name))
		}
	}
	several := len(rep.Placements) > 1
	for _, pa := range todo {
		a, stored, verb, err := createOrAdd(ctx, c, rep.Addon, pa, approvalName(rep.Addon, pa, several))
		if err != nil {
			return err
		}
		head := fmt.Sprintf("group %q of placement %s/%s at revision %s: RolloutApproval %q %s", pa.Group, pa.Placement.Namespace, pa.Placement.Name, pa.Revision, a.Name, verb)
		if err := reportJudged(ctx, c, e.stdout, stored, head, o.wait); err != nil {
			return err
		}
		if _, err := fmt.Fprintf(e.stdout, "  revision %s: %s\n", pa.Revision, revisionConfigs(rep, pa.Placement)); err != nil {
			return err
		}
	}
	return nil
}

// revisionConfigs words the configs of the revision of placement ref, or
// says the status lists none.
func revisionConfigs(rep *planreport.Report, ref v1alpha1.PlacementRef) string {
	for _, pl := range rep.Placements {
		if pl.Namespace == ref.Namespace && pl.Name == ref.Name && len(pl.Configs) > 0 {
			return "its configs: " + configsText(pl.Configs)
		}
	}
	return "the status lists no configs of it"
}

// otherRevision says that pa waits at another revision than the one
// reviewed, and what its revision is made of.
func otherRevision(rep *planreport.Report, pa v1alpha1.PendingApproval, reviewed, self string) string {
	configs := revisionConfigs(rep, pa.Placement)
	return fmt.Sprintf("not approved: group %q of placement %s/%s waits at revision %s, not %s (%s); review it (%s status %s) and approve --revision %s",
		pa.Group, pa.Placement.Namespace, pa.Placement.Name, pa.Revision, reviewed, configs, self, rep.Addon, pa.Revision)
}

// configsText words a revision's configs on one line: each as
// resource[.group] [namespace/]name, its spec hash and its image.
func configsText(configs []v1alpha1.RevisionConfig) string {
	parts := make([]string, len(configs))
	for i, c := range configs {
		parts[i] = fmt.Sprintf("%s spec hash %s", hubplan.ConfigRef(c), c.SpecHash)
		if c.Image != "" {
			parts[i] += " image " + c.Image
		}
	}
	return strings.Join(parts, "; ")
}

// maxApprovalsPerGroup bounds the approvals createOrAdd makes of one group
// and revision: the most distinct users a group's gate can usefully ask
// for from one command's point of view.
const maxApprovalsPerGroup = 16

// createOrAdd creates the approval of pa named name. When an approval of
// that name approves the same but its status says it waits for more
// approvers (a group with minApprovers), it adds another, named name-2,
// name-3 and so on: each approval records the one user who created it, so
// a second approver needs an object of their own. The same user's
// approvals count once (the controller counts distinct users).
func createOrAdd(ctx context.Context, c client.Client, addOn string, pa v1alpha1.PendingApproval, name string) (*v1alpha1.RolloutApproval, *v1alpha1.RolloutApproval, string, error) {
	for n := 1; ; n++ {
		a := &v1alpha1.RolloutApproval{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1alpha1.RolloutApprovalSpec{AddOn: addOn, Placement: pa.Placement, Group: pa.Group, Revision: pa.Revision}}
		if n > 1 {
			a.Name = objectName(fmt.Sprintf("%s-%d", name, n))
		}
		stored, verb, err := createApproval(ctx, c, a)
		if err != nil || verb == "created" || !awaitingApprovers(stored) || n >= maxApprovalsPerGroup {
			return a, stored, verb, err
		}
	}
}

// awaitingApprovers tells whether a's status says its group waits for
// approvals from more users.
func awaitingApprovers(a *v1alpha1.RolloutApproval) bool {
	cond := meta.FindStatusCondition(a.Status.Conditions, hubplan.ConditionApproved)
	return cond != nil && cond.Reason == hubplan.ReasonAwaitingApprovers
}

// createApproval creates a, and returns the approval stored and says so
// ("created"); an approval of its name approving the same (whoever
// created it) is fine ("already exists"), one approving something else is
// refused.
func createApproval(ctx context.Context, c client.Client, a *v1alpha1.RolloutApproval) (*v1alpha1.RolloutApproval, string, error) {
	err := c.Create(ctx, a)
	switch {
	case err == nil:
		return a, "created", nil
	case meta.IsNoMatchError(err):
		return nil, "", noCRDs(err)
	case !apierrors.IsAlreadyExists(err):
		return nil, "", fmt.Errorf("creating rolloutapproval %q: %w", a.Name, err)
	}
	var existing v1alpha1.RolloutApproval
	if err := c.Get(ctx, types.NamespacedName{Name: a.Name}, &existing); err != nil {
		return nil, "", fmt.Errorf("reading rolloutapproval %q: %w", a.Name, err)
	}
	if e := existing.Spec; e.AddOn != a.Spec.AddOn || e.Placement != a.Spec.Placement || e.Group != a.Spec.Group || e.Revision != a.Spec.Revision {
		return nil, "", refused("rolloutapproval %q exists and approves group %q of add-on %q, placement %s/%s, at revision %s instead: delete it, or approve with kubectl under another name",
			a.Name, existing.Spec.Group, existing.Spec.AddOn, existing.Spec.Placement.Namespace, existing.Spec.Placement.Name, existing.Spec.Revision)
	}
	return &existing, "already exists", nil
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
			r := g.Row(rep.Now)
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
			p := fmt.Sprintf("group %q of placement %s/%s at revision %s", pa.Group, pa.Placement.Namespace, pa.Placement.Name, pa.Revision)
			if progress := hubplan.PendingProgress(pa); progress != "" {
				p += " (" + progress + ")"
			}
			ps = append(ps, p)
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
