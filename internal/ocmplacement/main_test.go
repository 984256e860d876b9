package ocmplacement

import (
	"fmt"
	"os"
	"testing"

	"open-cluster-management.io/ocm/pkg/cmd/hub"
)

// envOCMPlacement, set to 1 in the environment of this package's test
// binary, makes the binary run OCM's placement controller instead of the
// tests: TestRefusesBesideOCMPlacementController starts it so, as a
// process of its own, with the command's flags as arguments.
const envOCMPlacement = "ROLLOUTKIT_CONFORMANCE_OCM_PLACEMENT"

// TestMain runs the tests, or, with envOCMPlacement set, OCM's placement
// controller.
func TestMain(m *testing.M) {
	if os.Getenv(envOCMPlacement) == "1" {
		os.Exit(runOCMPlacement(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// runOCMPlacement runs OCM v1.2.0's placement controller command with
// args: hub.NewPlacementController, the "controller" subcommand of OCM's
// cmd/placement, which runs library-go's controllercmd for component
// "placement" (leader election with the Lease placement-lock in its
// --namespace, then the scheduling controller). It returns the exit code;
// the command itself exits 0 once SIGTERM or SIGINT has made it give up
// its Lease (library-go's OnStoppedLeading).
//
// It runs in a process of its own rather than in the test's: cancelling
// it in-process would end the test binary, since library-go calls
// os.Exit(0) when the leader election stops, and klog.Fatal on errors;
// and its command installs the process's one SIGTERM handler.
func runOCMPlacement(args []string) int {
	cmd := hub.NewPlacementController()
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "ocm placement controller: %v\n", err)
		return 1
	}
	return 0
}
