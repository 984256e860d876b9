package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl/dryrun"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/hubclient"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// This file is how rolloutctl reads the hub: connecting, and planning an
// add-on as the controller does.

// connect returns a client of the hub that g's REST config names, with
// the controller's scheme.
func connect(g restConfigGetter) (client.Client, error) {
	cfg, err := g.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	scheme, err := hubclient.NewScheme()
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}

// planned is an add-on's plan as the controller makes it, from one read
// of the hub.
type planned struct {
	hub    *planreport.Hub
	report *planreport.Report
}

// checkVersion refuses an --addon-version the controller does not read.
func checkVersion(version string) error {
	if version != "" && version != hubclient.V1alpha1 && version != hubclient.V1beta1 {
		return badUsage("--addon-version %q: want %s or %s", version, hubclient.V1alpha1, hubclient.V1beta1)
	}
	return nil
}

// storedVersion is version, or when it is empty the add-on API version
// the hub stores, as the controller finds it.
func storedVersion(ctx context.Context, c client.Client, version string) (string, error) {
	if version != "" {
		return version, nil
	}
	v, err := hubclient.StorageVersion(ctx, c)
	if err != nil {
		return "", versionError(err)
	}
	return v, nil
}

// versionError explains why finding the stored add-on API version failed.
// Only a hub that answered without the add-on API's definitions is helped
// by --addon-version; a hub that did not answer is a context or kubeconfig
// to check.
func versionError(err error) error {
	var status apierrors.APIStatus
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("the hub answered without the add-on API's definitions (set --addon-version if it serves them under another name): %w", err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("the hub refused reading the add-on API's definitions (set --addon-version to skip reading them): %w", err)
	case errors.As(err, &status):
		return fmt.Errorf("finding the add-on API version the hub stores: %w", err)
	default:
		return fmt.Errorf("cannot reach the hub (check the kubeconfig and --context): %w", err)
	}
}

// plan reads the hub through c as the controller does (its add-ons in
// version; empty: the stored one) and plans the add-on at now with the
// controller's call. An add-on the hub does not have is a *noAddonError.
func plan(ctx context.Context, c client.Client, addOn, version, historyNamespace string, now time.Time) (planned, error) {
	version, err := storedVersion(ctx, c, version)
	if err != nil {
		return planned{}, err
	}
	h, err := dryrun.ReadHub(ctx, c, c.RESTMapper(), version)
	if err != nil {
		return planned{}, err
	}
	if h.Revisions, err = dryrun.ReadHistory(ctx, c, historyNamespace); err != nil {
		return planned{}, err
	}
	if names := h.AddonNames(); !slices.Contains(names, addOn) {
		return planned{}, &noAddonError{addOn: addOn, names: names}
	}
	rep, err := planreport.New(h, addOn, now, nil)
	if err != nil {
		return planned{}, err
	}
	return planned{hub: h, report: rep}, nil
}

// addonNames lists the names of the hub's ClusterManagementAddOns, sorted,
// reading only their metadata.
func addonNames(ctx context.Context, c client.Client) ([]string, error) {
	version, err := storedVersion(ctx, c, "")
	if err != nil {
		return nil, err
	}
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: addonv1alpha1.GroupVersion.Group, Version: version, Kind: "ClusterManagementAddOnList"})
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing clustermanagementaddons: %w", err)
	}
	names := make([]string, 0, len(list.Items))
	for _, m := range list.Items {
		names = append(names, m.Name)
	}
	slices.Sort(names)
	return names, nil
}

// plan checks --addon-version, connects to the hub and plans the add-on
// addOn now, as status and approve both begin.
func (c *cli) plan(ctx context.Context, addOn, version string) (client.Client, planned, error) {
	if err := checkVersion(version); err != nil {
		return nil, planned{}, err
	}
	cl, err := c.client()
	if err != nil {
		return nil, planned{}, err
	}
	p, err := plan(ctx, cl, addOn, version, c.controllerNamespace(), c.now())
	return cl, p, err
}
