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
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// readmeFile is the repository's README, from the e2e package.
const readmeFile = "../../../README.md"

// readmeLine returns the README's command line that starts with prefix in
// its section (a heading line, "## Inspecting a real hub"), without its
// trailing comment.
func readmeLine(t *testing.T, section, prefix string) string {
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
		case strings.HasPrefix(line, "#"):
			in = line == section
		case in && strings.HasPrefix(line, prefix):
			cmd, _, _ := strings.Cut(line, "#")
			return strings.TrimSpace(cmd)
		}
	}
	require.NoError(t, sc.Err())
	require.Failf(t, "README", "no line starting %q under %q", prefix, section)
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

// checkREADMEPlan runs the README's offline plans as written, on the hub
// of kubeconfig: the kubectl get of "Inspecting a real hub" (with the
// AddOnRollouts and RolloutApprovals it says to add) and that of the
// approval walk-through, each followed by go run ./examples/plan (its
// report as JSON), and checks that each says what the controller wrote in
// the add-on's AddOnRollout (assertPlanIsStatus). Once, planned from the v1beta1 add-ons with
// their configs lost, it said revision e3b0c44298fc (the SHA-256 of
// nothing) and that dev starts now.
func checkREADMEPlan(t *testing.T, c client.Client, kubeconfig, addOn string) {
	t.Helper()
	var ar v1alpha1.AddOnRollout
	require.NoError(t, c.Get(context.Background(), types.NamespacedName{Name: addOn}, &ar))
	const inspecting, walkThrough = "## Inspecting a real hub", "#### Approve prod with rolloutctl"
	get := readmeLine(t, inspecting, "kubectl get managedclusters,")
	get = strings.Replace(get, "kubectl get ", "kubectl get addonrollouts,rolloutapprovals,", 1)
	for _, cmds := range [][2]string{
		{get, readmeLine(t, inspecting, "go run ./examples/plan -f hub.yaml")},
		{readmeLine(t, walkThrough, "kubectl --kubeconfig /tmp/hub.kubeconfig get managedclusters,"),
			readmeLine(t, walkThrough, "go run ./examples/plan -f hub.yaml")},
	} {
		hubFile := filepath.Join(t.TempDir(), "hub.yaml")
		dump := strings.Replace(strings.Replace(cmds[0], "/tmp/hub.kubeconfig", kubeconfig, 1), "> hub.yaml", "> "+hubFile, 1)
		require.NotEqual(t, cmds[0], dump, "the README's kubectl get writes no hub.yaml")
		runREADME(t, kubeconfig, dump)
		out := runREADME(t, kubeconfig, strings.Replace(cmds[1], "-f hub.yaml", "-f "+hubFile, 1)+" -addon "+addOn+" -o json")
		var rep planreport.Report
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		assertPlanIsStatus(t, &rep, &ar)
	}
}

// assertPlanIsStatus checks that rep says what the controller wrote in
// ar's status: each placement's revision, each group's phase and what it
// waits for, and the approvals pending; and that it starts nothing.
func assertPlanIsStatus(t *testing.T, rep *planreport.Report, ar *v1alpha1.AddOnRollout) {
	t.Helper()
	require.Len(t, rep.Placements, len(ar.Status.Placements))
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
