package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// newPauseCommand is pause (paused true) or resume (false), of an add-on
// the hub has: either refuses one it does not have.
func newPauseCommand(c *cli, paused bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:               "pause ADDON | --all",
		Short:             "Set spec.paused of the add-on's AddOnRollout (created if need be): no cluster starts; clusters in flight finish",
		Args:              addonOrNone,
		ValidArgsFunction: c.completeAddons,
	}
	if !paused {
		cmd.Use, cmd.Short = "resume ADDON | --all", "Clear spec.paused of the add-on's AddOnRollout: clusters start again"
	}
	all := cmd.Flags().Bool("all", false, "every add-on of the hub")
	reason := new(string)
	if paused {
		reason = cmd.Flags().String("reason", "", "why, recorded on the AddOnRollout (annotation "+PauseReasonAnnotation+") and shown by status")
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if *all == (len(args) == 1) {
			return badUsage("%s: want ADDON or --all", cmd.Name())
		}
		cl, err := c.client()
		if err != nil {
			return err
		}
		names := args
		if *all {
			if names, err = addonNames(cmd.Context(), cl); err != nil {
				return err
			}
		} else if err := checkAddon(cmd.Context(), cl, args[0]); err != nil {
			return err
		}
		for _, name := range names {
			if err := pauseOrResume(cmd.Context(), c, cl, name, paused, *reason); err != nil {
				return err
			}
		}
		return nil
	}
	return cmd
}

// pauseOrResume pauses (with reason) or resumes the add-on addOn.
func pauseOrResume(ctx context.Context, s *cli, c client.Client, addOn string, paused bool, reason string) error {
	if paused {
		return pause(ctx, s, c, addOn, reason)
	}
	return resume(ctx, s, c, addOn)
}

// pause sets spec.paused of the AddOnRollout addOn, created when there is
// none.
func pause(ctx context.Context, s *cli, c client.Client, addOn, reason string) error {
	ar, err := getRollout(ctx, c, addOn)
	if err != nil {
		return err
	}
	if ar == nil {
		ar = &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addOn, Annotations: pausedBy(reason, s.now())}, Spec: v1alpha1.AddOnRolloutSpec{Paused: true}}
		switch err := c.Create(ctx, ar); {
		case err == nil:
			_, err := fmt.Fprintf(s.stdout, "paused add-on %q: created AddOnRollout %q with spec.paused true: no cluster starts; clusters in flight finish\n", addOn, addOn)
			return err
		case !apierrors.IsAlreadyExists(err):
			return fmt.Errorf("creating addonrollout %q: %w", addOn, err)
		}
		// created meanwhile by someone else: set its spec.paused
	} else if ar.Spec.Paused && reason == "" {
		_, err := fmt.Fprintf(s.stdout, "add-on %q is already paused (AddOnRollout %q)\n", addOn, addOn)
		return err
	}
	if err := setPaused(ctx, c, addOn, true, pausedBy(reason, s.now())); err != nil {
		return err
	}
	_, err = fmt.Fprintf(s.stdout, "paused add-on %q: no cluster starts; clusters in flight finish (%s resume %s resumes it)\n", addOn, s.name, addOn)
	return err
}

// resume clears spec.paused of the AddOnRollout addOn; with none, or
// none paused, there is nothing to do.
func resume(ctx context.Context, s *cli, c client.Client, addOn string) error {
	ar, err := getRollout(ctx, c, addOn)
	if err != nil {
		return err
	}
	switch {
	case ar == nil:
		_, err := fmt.Fprintf(s.stdout, "nothing to resume: no AddOnRollout %q\n", addOn)
		return err
	case !ar.Spec.Paused:
		_, err := fmt.Fprintf(s.stdout, "nothing to resume: add-on %q is not paused\n", addOn)
		return err
	}
	if err := setPaused(ctx, c, addOn, false, nil); err != nil {
		return err
	}
	_, err = fmt.Fprintf(s.stdout, "resumed add-on %q: the controller starts clusters again at its next reconcile\n", addOn)
	return err
}

// getRollout reads the AddOnRollout name; nil when there is none. A hub
// that does not serve AddOnRollouts is an error that says so.
func getRollout(ctx context.Context, c client.Client, name string) (*v1alpha1.AddOnRollout, error) {
	ar := &v1alpha1.AddOnRollout{}
	switch err := c.Get(ctx, types.NamespacedName{Name: name}, ar); {
	case apierrors.IsNotFound(err):
		return nil, nil
	case meta.IsNoMatchError(err):
		return nil, noCRDs(err)
	case err != nil:
		return nil, fmt.Errorf("reading addonrollout %q: %w", name, err)
	}
	return ar, nil
}

// noCRDs is the error of a hub without rolloutkit.io's CRDs.
func noCRDs(err error) error {
	return refused("the hub does not serve %s AddOnRollouts: install the CRDs of examples/controller/config/crd (%w)", v1alpha1.GroupVersion(), err)
}

// setPaused sets spec.paused of the AddOnRollout name with a merge patch:
// no other field is touched, and no resourceVersion is asked for, as the
// operator's word wins over whatever changed the object meanwhile. Pausing
// sets the annotations of pausedBy; resuming removes them.
func setPaused(ctx context.Context, c client.Client, name string, paused bool, annotations map[string]string) error {
	ar := &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: name}}
	meta := map[string]any{PauseReasonAnnotation: nil, PausedAtAnnotation: nil}
	for k, v := range annotations {
		meta[k] = v
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": meta}, "spec": map[string]any{"paused": paused}})
	if err != nil {
		return err
	}
	if err := c.Patch(ctx, ar, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("setting spec.paused of addonrollout %q to %t: %w", name, paused, err)
	}
	return nil
}
