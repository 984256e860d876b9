package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
	"github.com/rolloutkit/rolloutkit/examples/seed"
	"github.com/rolloutkit/rolloutkit/hash"
)

// compiled is the compiled rolloutctl, run against one hub as a person runs it.
type compiled struct {
	t          *testing.T
	bin        string
	kubeconfig string
}

// build compiles rolloutctl into a directory of the test's own.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "rolloutctl")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// run runs rolloutctl --kubeconfig FILE with args, and returns its exit code
// and outputs.
func (c compiled) run(args ...string) (int, string, string) {
	c.t.Helper()
	return c.runEnv(nil, append([]string{"--kubeconfig", c.kubeconfig}, args...)...)
}

// runEnv runs rolloutctl with args and the environment variables env
// added to the test's.
func (c compiled) runEnv(env []string, args ...string) (int, string, string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), errOut.String()
	}
	require.NoError(c.t, err, "%q", args)
	return 0, out.String(), errOut.String()
}

// seedMidRollout writes what the controller and the agents would have
// written by the time dev and stg applied the seed's config and soaked,
// an hour ago: the seed Placement's PlacementDecisions, and the add-ons of
// the three clusters in v1alpha1, the version the hub stores, prod's still
// on an older config. prod is next.
func seedMidRollout(t *testing.T, c client.Client) {
	t.Helper()
	ctx := context.Background()
	ds, err := seed.PlacementDecisions()
	require.NoError(t, err)
	for _, d := range ds {
		status := d.Status
		require.NoError(t, c.Create(ctx, d))
		d.Status = status
		require.NoError(t, c.Status().Update(ctx, d))
	}
	cfg := &unstructured.Unstructured{}
	cfg.SetGroupVersionKind(proxyGVK)
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: addonName}, cfg))
	specHash, err := hash.Spec(cfg)
	require.NoError(t, err)
	since := time.Now().Add(-time.Hour)
	for cluster, applied := range map[string]string{"dev-cluster": specHash, "stg-cluster": specHash, "prod-cluster": "an-older-config"} {
		m := &addonv1alpha1.ManagedClusterAddOn{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: addonName}}
		require.NoError(t, c.Create(ctx, m))
		ref := addonv1alpha1.ConfigReferent{Name: addonName}
		h := addonv1alpha1.ConfigSpecHash{ConfigReferent: ref, SpecHash: applied}
		m.Status.ConfigReferences = []addonv1alpha1.ConfigReference{{
			ConfigGroupResource: addonv1alpha1.ConfigGroupResource{Group: proxyGVK.Group, Resource: "managedproxyconfigurations"},
			ConfigReferent:      ref, DesiredConfig: h.DeepCopy(), LastAppliedConfig: h.DeepCopy(),
		}}
		m.Status.Conditions = []metav1.Condition{{Type: addonv1beta1.ManagedClusterAddOnConditionProgressing, Status: metav1.ConditionFalse,
			Reason: addonv1beta1.ProgressingReasonCompleted, Message: "completed with no errors.", LastTransitionTime: metav1.NewTime(since)}}
		require.NoError(t, c.Status().Update(ctx, m))
	}
}

// TestCLIOnAPIServer runs the compiled rolloutctl as a person does against
// a real API server with the seed's hub mid-rollout (no controller runs:
// what it shows is the controller's plan, computed as the controller
// computes it): status before and after an AddOnRollout requires an
// approval of prod, approve (refused for a group that waits for none,
// then given, then given again), pause and resume, bad usage, the hub
// chosen by --context, and the program run by kubectl as its plugin. The
// steps run in order, on one hub.
func TestCLIOnAPIServer(t *testing.T) {
	t.Parallel()
	h, c := testhub.ForTest(t)
	ctx := context.Background()
	require.NoError(t, testhub.Seed(ctx, c, testhub.SeedOptions{Lifecycle: testhub.Lifecycle}))
	seedMidRollout(t, c)
	kc, err := h.KubeConfig()
	require.NoError(t, err)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, kc, 0o600))
	ctl := compiled{t: t, bin: build(t), kubeconfig: kubeconfig}
	for _, step := range []struct {
		name string
		run  func(*testing.T, compiled, client.Client)
	}{
		{"without an AddOnRollout", stepNoRollout},
		{"approval", stepApproval},
		{"pause and resume", stepPauseResume},
		{"stale status", stepStale},
		{"bad usage", stepBadUsage},
		{"--context", stepContext},
		{"kubectl plugin", stepKubectlPlugin},
	} {
		if !t.Run(step.name, func(t *testing.T) { s := ctl; s.t = t; step.run(t, s, c) }) {
			return // the steps after build on this one
		}
	}
}

// stepNoRollout: without an AddOnRollout, status shows the planner's
// plan, and approve refuses.
func stepNoRollout(t *testing.T, ctl compiled, _ client.Client) {
	code, out, errOut := ctl.run("status", addonName)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `no AddOnRollout "cluster-proxy": rolled out without operator controls`)
	assert.NotEmpty(t, lineWith(out, place, "prod", "Active", "rolling out: 1 starting now"), out)
	code, _, errOut = ctl.run("approve", addonName, "prod", "--latest")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `add-on "cluster-proxy" has no AddOnRollout`)
}

// stepApproval: an AddOnRollout requires an approval of prod; status
// shows it pending, -o json and -o yaml give its revision, approve
// refuses stg, approves prod, and approves it again.
func stepApproval(t *testing.T, ctl compiled, c client.Client) {
	ctx := context.Background()
	require.NoError(t, c.Create(ctx, &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: addonName},
		Spec: v1alpha1.AddOnRolloutSpec{ApprovalRequired: []string{"prod"}}}))
	code, out, errOut := ctl.run("status", addonName)
	require.Equal(t, 0, code, errOut)
	for _, parts := range [][]string{
		{`AddOnRollout "cluster-proxy": generation 1, status of generation 0: the controller has not written it yet`},
		{place, "stg", "1", "Complete", "1/0/0/0/0"},
		{place, "prod", "2", "Blocked", "Approval", "0/0/0/0/1", `held: waiting for approval of group "prod"`},
		{place, `group "prod", revision`, "rolloutctl approve cluster-proxy prod"},
		{"Progressing", "True", "WaitingForApproval"},
	} {
		assert.NotEmpty(t, lineWith(out, parts...), "no line with %q in\n%s", parts, out)
	}
	pending := pendingApproval(t, ctl)
	code, _, errOut = ctl.run("approve", addonName, "stg", "--latest")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `nothing to approve: group "stg" of add-on "cluster-proxy" waits for no approval`)
	assert.Contains(t, errOut, `pending approvals: group "prod" of placement `+place+" at revision "+pending.Revision)

	name := "cluster-proxy-prod-" + pending.Revision
	code, out, errOut = ctl.run("approve", addonName, "prod", "--latest")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `RolloutApproval "`+name+`" created`)
	var a v1alpha1.RolloutApproval
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: name}, &a))
	assert.Equal(t, v1alpha1.RolloutApprovalSpec{AddOn: addonName, Placement: pending.Placement, Group: "prod", Revision: pending.Revision}, a.Spec)
	code, out, errOut = ctl.run("approve", addonName, "prod", "--placement", place, "--latest")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `already approved: RolloutApproval "`+name+`"`)
	code, out, errOut = ctl.run("status", addonName)
	require.Equal(t, 0, code, errOut)
	assert.NotEmpty(t, lineWith(out, place, "prod", "Active", "rolling out: 1 starting now"), out)
	assert.Contains(t, out, "pending approvals: none")
}

// pendingApproval reads the one approval pending as a script does, with
// the hub from $KUBECONFIG: from status -o json, and the same from
// -o yaml.
func pendingApproval(t *testing.T, ctl compiled) v1alpha1.PendingApproval {
	t.Helper()
	var reports [2]struct {
		Rollout struct {
			PendingApprovals []v1alpha1.PendingApproval `json:"pendingApprovals"`
		} `json:"rollout"`
	}
	for i, format := range []string{"json", "yaml"} {
		code, out, errOut := ctl.runEnv([]string{"KUBECONFIG=" + ctl.kubeconfig}, "status", addonName, "-o", format)
		require.Equal(t, 0, code, "$KUBECONFIG: %s", errOut)
		require.NoError(t, yaml.Unmarshal([]byte(out), &reports[i]), out)
	}
	pending := reports[0].Rollout.PendingApprovals
	assert.Equal(t, pending, reports[1].Rollout.PendingApprovals, "-o yaml differs from -o json")
	require.Len(t, pending, 1)
	assert.Equal(t, "prod", pending[0].Group)
	require.Len(t, pending[0].Revision, 12)
	return pending[0]
}

// stepPauseResume: pause sets spec.paused alone, status shows prod held
// by it, resume clears it, and resuming again has nothing to do.
func stepPauseResume(t *testing.T, ctl compiled, c client.Client) {
	ctx := context.Background()
	code, out, errOut := ctl.run("pause", addonName)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `paused add-on "cluster-proxy"`)
	var ar v1alpha1.AddOnRollout
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: addonName}, &ar))
	assert.True(t, ar.Spec.Paused)
	assert.Equal(t, []string{"prod"}, ar.Spec.ApprovalRequired, "the merge patch touched another field")
	code, out, errOut = ctl.run("status", addonName)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `AddOnRollout "cluster-proxy", paused: generation 2, status of generation 0`)
	assert.NotEmpty(t, lineWith(out, place, "prod", "Blocked", "Paused"), out)

	code, out, errOut = ctl.run("resume", addonName)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `resumed add-on "cluster-proxy"`)
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: addonName}, &ar))
	assert.False(t, ar.Spec.Paused)
	code, out, errOut = ctl.run("resume", addonName)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `nothing to resume: add-on "cluster-proxy" is not paused`)
}

// stepStale: a status past its recheck time, which no controller
// confirmed, is shown as stale, in text and in JSON; the groups are shown
// as it last said them, with their times past as past. The status is
// cleared afterwards.
func stepStale(t *testing.T, ctl compiled, c client.Client) {
	ctx := context.Background()
	var ar v1alpha1.AddOnRollout
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: addonName}, &ar))
	at := time.Now().Truncate(time.Second) // as the API server stores times
	confirmed, due := metav1.NewTime(at.Add(-20*time.Minute)), metav1.NewTime(at.Add(-15*time.Minute))
	ar.Status = v1alpha1.AddOnRolloutStatus{ObservedGeneration: ar.Generation, LastConfirmedTime: &confirmed, RecheckTime: &due,
		Placements: []v1alpha1.PlacementStatus{{Namespace: hubNS, Name: placeName, Groups: []v1alpha1.GroupStatus{
			{Name: "stg", Index: 1, Phase: "Active", WaitsFor: "Cluster", Until: &due, Counts: v1alpha1.GroupCounts{Succeeded: 1, Soaking: 1}},
		}}}}
	require.NoError(t, c.Status().Update(ctx, &ar))

	code, out, errOut := ctl.run("status", addonName)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "status is stale: the controller last confirmed it at "+confirmed.UTC().Format("2006-01-02 15:04:05 MST")+" (20m ago) "+
		"and was due to recheck by "+due.UTC().Format("2006-01-02 15:04:05 MST")+" (15m ago): is the controller running?")
	assert.NotEmpty(t, lineWith(out, place, "stg", "Active", "(15m ago)"), out)
	assert.NotContains(t, out, "starting now")
	assert.NotContains(t, out, "the controller has written it for the current spec")

	code, out, errOut = ctl.run("status", addonName, "-o", "json")
	require.Equal(t, 0, code, errOut)
	var doc struct {
		Rollout struct {
			Confirmation struct {
				Stale       bool      `json:"stale"`
				RecheckTime time.Time `json:"recheckTime"`
			} `json:"confirmation"`
		} `json:"rollout"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(out), &doc))
	assert.True(t, doc.Rollout.Confirmation.Stale, out)
	assert.True(t, due.Time.Equal(doc.Rollout.Confirmation.RecheckTime), out)

	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: addonName}, &ar))
	ar.Status = v1alpha1.AddOnRolloutStatus{}
	require.NoError(t, c.Status().Update(ctx, &ar), "the steps after read the plan, not a stale status")
}

// stepBadUsage: bad usage exits 2, the status of an add-on the hub does
// not have included; pausing or approving one is refused (exit 1).
func stepBadUsage(t *testing.T, ctl compiled, _ client.Client) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"approve", addonName}, 2, "approve: want ADDON GROUP"},
		{[]string{"status", "nope"}, 2, `the hub has no ClusterManagementAddOn "nope" (it has: cluster-proxy)`},
		{[]string{"pause", "cluster-prxy"}, 1, `the hub has no ClusterManagementAddOn "cluster-prxy" (it has: cluster-proxy); did you mean "cluster-proxy"?`},
		{[]string{"approve", "cluster-prxy", "prod", "--latest"}, 1, `the hub has no ClusterManagementAddOn "cluster-prxy"`},
		{[]string{"status", addonName, "-o", "xml"}, 2, `-o "xml": want text, json, yaml`},
	} {
		code, _, errOut := ctl.run(tc.args...)
		assert.Equal(t, tc.code, code, "%q: %s", tc.args, errOut)
		assert.Contains(t, errOut, tc.want, "%q", tc.args)
	}
}

// stepContext: with a kubeconfig whose current context is another hub
// (one that does not answer), --context chooses the test's; without it
// the request fails (exit 1); an unknown context is bad usage.
func stepContext(t *testing.T, ctl compiled, _ client.Client) {
	cfg, err := clientcmd.LoadFromFile(ctl.kubeconfig)
	require.NoError(t, err)
	hubContext := cfg.CurrentContext
	require.NotEmpty(t, hubContext)
	cfg.Clusters["elsewhere"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1", InsecureSkipTLSVerify: true}
	cfg.Contexts["elsewhere"] = &clientcmdapi.Context{Cluster: "elsewhere", AuthInfo: cfg.Contexts[hubContext].AuthInfo}
	cfg.CurrentContext = "elsewhere"
	two := compiled{t: t, bin: ctl.bin, kubeconfig: filepath.Join(t.TempDir(), "two-contexts")}
	require.NoError(t, clientcmd.WriteToFile(*cfg, two.kubeconfig))

	code, out, errOut := two.run("--context", hubContext, "status", addonName)
	require.Equal(t, 0, code, errOut)
	assert.NotEmpty(t, lineWith(out, place, "prod", "Active"), out)
	code, out, errOut = two.run("status", addonName, "--context="+hubContext, "-o", "json")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"addon": "cluster-proxy"`)
	code, _, errOut = two.run("status", addonName)
	assert.Equal(t, 1, code, "the current context's hub does not answer: %s", errOut)
	assert.Contains(t, errOut, "127.0.0.1:1")
	code, _, errOut = two.run("--context", "nope", "status", addonName)
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, `--context "nope": context "nope" does not exist`)
	code, out, errOut = two.run("__complete", "--context", "")
	require.Equal(t, 0, code, errOut)
	assert.ElementsMatch(t, []string{"elsewhere", hubContext, ":4"}, strings.Fields(out))
}

// stepKubectlPlugin: installed as kubectl-rolloutkit on $PATH, the program
// is kubectl's plugin "kubectl rolloutkit", and names itself so; with
// kubectl_complete-rolloutkit beside it, kubectl completes its words.
// kubectl is the one hack/test-apiserver.sh builds beside the API server
// (in $KUBEBUILDER_ASSETS), else the one on $PATH.
func stepKubectlPlugin(t *testing.T, ctl compiled, _ client.Client) {
	kubectl := filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
	if _, err := os.Stat(kubectl); err != nil || os.Getenv("KUBEBUILDER_ASSETS") == "" {
		var lookErr error
		kubectl, lookErr = exec.LookPath("kubectl")
		require.NoError(t, lookErr, "no kubectl in $KUBEBUILDER_ASSETS (hack/test-apiserver.sh builds it) nor on $PATH")
	}
	dir := t.TempDir()
	require.NoError(t, os.Symlink(ctl.bin, filepath.Join(dir, "kubectl-rolloutkit")))
	require.NoError(t, os.Symlink(ctl.bin, filepath.Join(dir, "kubectl_complete-rolloutkit")))
	plugin := compiled{t: t, bin: kubectl, kubeconfig: ctl.kubeconfig}
	path := []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}

	code, out, errOut := plugin.runEnv(path, "rolloutkit", "--kubeconfig", ctl.kubeconfig, "status", addonName)
	require.Equal(t, 0, code, errOut)
	assert.NotEmpty(t, lineWith(out, place, "prod", "Active"), out)
	code, out, errOut = plugin.runEnv(path, "rolloutkit", "approve", "--help")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "kubectl rolloutkit approve ADDON GROUP [flags]")
	code, _, errOut = plugin.runEnv(path, "rolloutkit", "approve", addonName)
	assert.Equal(t, 2, code, "kubectl passes the plugin's exit code on")
	assert.Contains(t, errOut, "kubectl rolloutkit: approve: want ADDON GROUP")

	env := append(path, "KUBECONFIG="+ctl.kubeconfig)
	code, out, errOut = plugin.runEnv(env, "__complete", "rolloutkit", "status", "cl")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, []string{addonName, ":4"}, strings.Fields(out))
}
