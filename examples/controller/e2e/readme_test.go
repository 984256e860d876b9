package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/internal/planreport"
)

// readmeFile is the repository's README, from the e2e package.
const readmeFile = "../../../README.md"

// readmeLine returns the README's command line that starts with prefix in
// its section "## Inspecting a real hub", without its trailing comment.
func readmeLine(t *testing.T, prefix string) string {
	t.Helper()
	f, err := os.Open(readmeFile)
	require.NoError(t, err)
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Inspecting a real hub"
		case in && strings.HasPrefix(line, prefix):
			cmd, _, _ := strings.Cut(line, "#")
			return strings.TrimSpace(cmd)
		}
	}
	require.NoError(t, sc.Err())
	require.Failf(t, "README", "no line starting %q under \"## Inspecting a real hub\"", prefix)
	return ""
}

// runREADME runs one of the README's command lines in bash, in the
// repository's root as the README's reader does, with the hub's kubeconfig
// and the kubectl built beside the test API server.
func runREADME(t *testing.T, kubeconfig, line string) string {
	t.Helper()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", line)
	cmd.Dir = "../../.."
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig,
		"PATH="+os.Getenv("KUBEBUILDER_ASSETS")+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s:\n%s", line, out)
	return string(out)
}

// checkREADMEPlan runs the README's offline plan as written (its kubectl
// get, with the AddOnRollouts and RolloutApprovals it says to add, and go
// run ./examples/plan, the report as JSON), on the hub of kubeconfig, and
// checks that it says what the controller wrote in the add-on's
// AddOnRollout: the revision, each group's phase and what it waits for,
// and the approvals pending. Once, planned from the v1beta1 add-ons with
// their configs lost, it said revision e3b0c44298fc (the SHA-256 of
// nothing) and that dev starts now.
func checkREADMEPlan(t *testing.T, c client.Client, kubeconfig, addOn string) {
	t.Helper()
	hubFile := filepath.Join(t.TempDir(), "hub.yaml")
	get := readmeLine(t, "kubectl get managedclusters,")
	require.Contains(t, get, " > hub.yaml")
	get = strings.Replace(get, "kubectl get ", "kubectl get addonrollouts,rolloutapprovals,", 1)
	runREADME(t, kubeconfig, strings.Replace(get, "> hub.yaml", "> "+hubFile, 1))
	plan := readmeLine(t, "go run ./examples/plan -f hub.yaml")
	out := runREADME(t, kubeconfig, strings.Replace(plan, "-f hub.yaml", "-f "+hubFile, 1)+" -addon "+addOn+" -o json")

	var rep planreport.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	var ar v1alpha1.AddOnRollout
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Name: addOn}, &ar))
	require.Len(t, rep.Placements, len(ar.Status.Placements), out)
	for i, ps := range ar.Status.Placements {
		p := rep.Placements[i]
		require.Nil(t, p.NotPlanned, "%s/%s: %+v", p.Namespace, p.Name, p.NotPlanned)
		assert.Equal(t, ps.Revision, p.Revision, "the plan's revision is not the controller's")
		assert.NotEqual(t, "e3b0c44298fc", p.Revision, "planned from no config")
		require.Len(t, p.Groups, len(ps.Groups))
		for j, gs := range ps.Groups {
			require.NotNil(t, p.Groups[j].Status, "group %q", gs.Name)
			got := p.Groups[j].Status
			assert.Equal(t, gs.Name+" "+gs.Phase+" "+gs.WaitsFor, got.Name+" "+got.Phase+" "+got.WaitsFor)
		}
	}
	require.NotNil(t, rep.Rollout)
	assert.Equal(t, ar.Status.PendingApprovals, rep.Rollout.PendingApprovals)
	assert.Empty(t, rep.Start, "the plan starts clusters the controller holds")
}
