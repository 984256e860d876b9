package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/rolloutkit/rolloutkit/examples/controller/hubctl"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// TestWritesPerCluster reads, from the API server's audit log, every
// write each cluster's add-on got during the seed's config change, and
// who made it. The controller runs as its ServiceAccount, so its writes
// are told apart from the add-on's manager's and the work agents'. Of the
// controller's, each add-on gets what docs/performance.md says it needs,
// in order, and nothing else:
//
//   - dev, the first group: its desired configs with Configured True and
//     Progressing True ("mca and work configs mismatch") in one patch, and
//     Completed with its lastAppliedConfig: 2 writes;
//   - stg and prod, which wait for their turn: Configured False first
//     (OCM's "Configurations updated and not configured yet"), then the
//     same two: 3 writes.
//
// The "work is not ready" message between them is held back
// (addon.MessageHold), since each work is applied within a second.
func TestWritesPerCluster(t *testing.T) {
	t.Parallel()
	e, audit := newAuditedEnv(t)
	e.installRBAC(t)
	sa := e.serviceAccountConfig(t)
	o := seedHub(t, e, "60s")
	e.startAs(t, sa, func(mgr ctrl.Manager) error {
		_, err := hubctl.Setup(context.Background(), mgr, hubctl.Options{Placements: true, Addons: true, Lifecycles: []string{testhub.Lifecycle}})
		return err
	})
	e.agents(t, applyTime, nil)
	oldHash, newHash := specHash(t, testhub.Image), specHash(t, newImage)
	e.installed(t, o, addonName, oldHash, 60*time.Second)
	// Writes of the install still in flight land in the log before the
	// change's: settle, then take the log's length as the mark.
	time.Sleep(2 * time.Second)
	mark := len(audit.events(t))

	require.NoError(t, testhub.SetAgentImage(context.Background(), e.c, newImage))
	e.installed(t, o, addonName, newHash, 60*time.Second)
	time.Sleep(2 * time.Second) // a write after Completed would show here
	events := audit.events(t)[mark:]

	versions := addonVersions(t, events, addonName)
	for _, c := range o.Clusters() {
		t.Logf("%s: %s", c, strings.Join(writersOf(events, c, addonName), "; "))
	}
	want := map[string][]string{
		e.dev:  {"start", "completed"},
		e.stg:  {"waiting", "start", "completed"},
		e.prod: {"waiting", "start", "completed"},
	}
	for _, c := range o.Clusters() {
		var got []string
		prev := oldHash
		for _, v := range versions[c] {
			if v.user != controllerUser {
				continue
			}
			got = append(got, v.purpose(prev, newHash))
			prev = v.desired
		}
		assert.Equal(t, want[c], got, "%s: the controller's writes of its add-on, in order", c)
	}
}

// purpose names what a version the controller wrote is for, from the
// desired hash before it (prev) and the new config's hash h: start (the
// desired config changes to h), waiting (Configured False), completed
// (Progressing Completed with h applied), or what it says otherwise.
func (v addonVersion) purpose(prev, h string) string {
	switch {
	case v.desired == h && prev != h:
		return "start"
	case v.configured != nil && v.configured.Status == metav1.ConditionFalse:
		return "waiting"
	case v.completedWith(h):
		return "completed"
	case v.progressing != nil:
		return fmt.Sprintf("other: Progressing %s %s %q", v.progressing.Status, v.progressing.Reason, v.progressing.Message)
	}
	return "other"
}

// writersOf lists who wrote what of cluster's add-on name and of its
// ManifestWorks in events: each writer with its accepted writes per
// resource, and the refused ones.
func writersOf(events []auditv1.Event, cluster, name string) []string {
	type key struct{ user, what string }
	accepted, refused := map[key]int{}, map[key]int{}
	var keys []key
	for i := range events {
		ev := &events[i]
		if !auditWrite(ev) || ev.ObjectRef.Namespace != cluster {
			continue
		}
		r := ev.ObjectRef
		switch {
		case r.Resource == "managedclusteraddons" && r.Name == name:
		case r.Resource == "manifestworks" && strings.HasPrefix(r.Name, "addon-"+name+"-"):
		default:
			continue
		}
		what := r.Resource
		if r.Subresource != "" {
			what += "/" + r.Subresource
		}
		k := key{ev.User.Username, ev.Verb + " " + what}
		if accepted[k] == 0 && refused[k] == 0 {
			keys = append(keys, k)
		}
		if auditAccepted(ev) {
			accepted[k]++
		} else {
			refused[k]++
		}
	}
	slices.SortFunc(keys, func(a, b key) int { return strings.Compare(a.user+a.what, b.user+b.what) })
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		s := fmt.Sprintf("%s: %s x%d", k.user, k.what, accepted[k])
		if refused[k] > 0 {
			s += fmt.Sprintf(" (%d refused)", refused[k])
		}
		out = append(out, s)
	}
	return out
}
