package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// TestStatusAfterUnseenChange: the rollout completes, the controller is
// stopped, and the agent image changes. At once, however recently the
// status was confirmed, kubectl rolloutkit status says that the controller
// has not acted on the new revision, naming it and its configs (the new
// image among them) and the revision the status describes; it shows the
// groups as the status last said them, nothing as starting now, and its
// JSON lists the placement. The printer columns (the Table API, what
// kubectl get shows) give the revision acted on, not the new one. Started
// again, the controller acts on the change, and status no longer says so.
func TestStatusAfterUnseenChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	o := seedHub(t, e, "60s")
	ctx := context.Background()
	ctl := e.controller(t)
	e.agents(t, applyTime, nil)
	require.NoError(t, e.c.Create(ctx, &v1alpha1.AddOnRollout{ObjectMeta: metav1.ObjectMeta{Name: e.addonName}}))
	e.installed(t, o, addonName, specHash(t, testhub.Image), 60*time.Second)
	e.rolloutCompleted(t, 60*time.Second, "the install completes", nil)
	acted := e.rolloutStatus(t).Placements[0].Revision
	require.NotEmpty(t, acted)

	ctl.stop(t)
	e.setAgentImage(t, newImage)
	kc, err := e.hub.KubeConfig()
	require.NoError(t, err)
	kubeconfig := filepath.Join(t.TempDir(), "hub.kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, kc, 0o600))
	cli := binary(t, "./cmd/rolloutctl", "rolloutctl")

	out, code := rolloutctl(t, cli, kubeconfig, "status", e.addonName, "-o", "json")
	require.Zero(t, code, out)
	var rep struct {
		Rollout struct {
			NotActedOn []struct {
				Revision, Written string
				Configs           []v1alpha1.RevisionConfig
			} `json:"notActedOn"`
		} `json:"rollout"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Rollout.NotActedOn, 1, out)
	unacted := rep.Rollout.NotActedOn[0]
	assert.NotEqual(t, acted, unacted.Revision)
	assert.Equal(t, acted, unacted.Written)
	require.Len(t, unacted.Configs, 1)
	assert.Equal(t, newImage, unacted.Configs[0].Image)

	out, code = rolloutctl(t, cli, kubeconfig, "status", e.addonName)
	require.Zero(t, code, out)
	assert.Contains(t, out, "the controller has not acted on revision "+unacted.Revision+" yet (placement ")
	assert.Contains(t, out, "image "+newImage+"): the status describes revision "+acted)
	assert.Contains(t, out, "the groups as the status last said them, for the revisions before the change")
	assert.NotContains(t, out, "starting now")
	assert.NotContains(t, out, "the controller has written it for the current spec")
	assert.Equal(t, acted, e.printerColumn(t, "Revision"), "the Revision column")

	e.controller(t)
	waitFor(t, 60*time.Second, "the controller acts on the change", func(ct *assert.CollectT) {
		assert.Equal(ct, unacted.Revision, e.rolloutStatus(ct).Placements[0].Revision)
	})
	out, code = rolloutctl(t, cli, kubeconfig, "status", e.addonName)
	require.Zero(t, code, out)
	assert.NotContains(t, out, "has not acted on")
	assert.Equal(t, unacted.Revision, e.printerColumn(t, "Revision"), "the Revision column once acted on")
}

// printerColumn is the cell of the column named name in the test's
// AddOnRollout's row, as the API server's Table API gives it to kubectl
// get.
func (e *env) printerColumn(t *testing.T, name string) any {
	t.Helper()
	hc, err := rest.HTTPClientFor(e.hub.Config)
	require.NoError(t, err)
	u, err := url.JoinPath(e.hub.Config.Host, e.hub.Config.APIPath, "/apis/rolloutkit.io/v1alpha1/addonrollouts", e.addonName)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodGet, u, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		require.Failf(t, "the Table API", "GET %s: %s: %s", u, resp.Status, body)
	}
	var table metav1.Table
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&table))
	require.Len(t, table.Rows, 1)
	for i, c := range table.ColumnDefinitions {
		if c.Name == name {
			return table.Rows[0].Cells[i]
		}
	}
	require.Failf(t, "no such column", "%q in %+v", name, table.ColumnDefinitions)
	return nil
}
