package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/internal/planreport"
)

// planned is an add-on's plan as the controller makes it, from one read
// of the hub.
type planned struct {
	hub    *planreport.Hub
	report *planreport.Report
}

// versionFlag registers -addon-version on fs.
func versionFlag(fs *flag.FlagSet) *string {
	return fs.String("addon-version", "", "add-on API version to read, v1alpha1 or v1beta1 (default: the version the hub stores, as the controller reads it)")
}

// checkVersion refuses an -addon-version the controller does not read.
func checkVersion(version string) error {
	if version != "" && version != hubctl.V1alpha1 && version != hubctl.V1beta1 {
		return badUsage("-addon-version %q: want %s or %s", version, hubctl.V1alpha1, hubctl.V1beta1)
	}
	return nil
}

// plan reads the hub through c as the controller does (its add-ons in
// version; empty: the stored one) and plans the add-on at now with the
// controller's call. An add-on the hub does not have is bad usage.
func plan(ctx context.Context, c client.Client, addOn, version string, now time.Time) (planned, error) {
	if version == "" {
		v, err := hubctl.StorageVersion(ctx, c)
		if err != nil {
			return planned{}, fmt.Errorf("finding the add-on API version the hub stores (or set -addon-version): %w", err)
		}
		version = v
	}
	h, err := hubctl.ReadHub(ctx, c, c.RESTMapper(), version)
	if err != nil {
		return planned{}, err
	}
	names := h.AddonNames()
	if !slices.Contains(names, addOn) {
		found := "none"
		if len(names) > 0 {
			found = strings.Join(names, ", ")
		}
		return planned{}, badUsage("the hub has no ClusterManagementAddOn %q (it has: %s)", addOn, found)
	}
	rep, err := planreport.Plan(h, addOn, now, nil)
	if err != nil {
		return planned{}, err
	}
	return planned{hub: h, report: rep}, nil
}
