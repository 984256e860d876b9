package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/testhub"
)

// newAuditedEnv starts a hub of the test's own whose API server writes an
// audit log of every write (testhub.WithAudit), and returns the log's
// reader.
func newAuditedEnv(t testing.TB) (*env, *auditLog) {
	t.Helper()
	h, c := testhub.ForTest(t, testhub.WithAudit())
	return &env{hub: h, c: c, names: seedNames()}, &auditLog{path: h.AuditLog()}
}

// auditLog reads the API server's audit log as it grows: every write to
// the hub, each with who made it, when, and what it answered (and, for
// the add-ons and the Leases, the object written).
type auditLog struct {
	path string

	mu   sync.Mutex
	off  int64  // how far the file has been read
	part []byte // an incomplete last line, until the rest is written
	all  []auditv1.Event
}

// read reads the events written since the last read, and returns them.
func (a *auditLog) read() ([]auditv1.Event, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f, err := os.Open(a.path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(a.off, io.SeekStart); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	a.off += int64(len(b))
	b = append(a.part, b...)
	end := bytes.LastIndexByte(b, '\n') + 1
	a.part = slices.Clone(b[end:])
	var fresh []auditv1.Event
	for line := range bytes.SplitSeq(b[:end], []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var e auditv1.Event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("audit log %s: %w: %.200s", a.path, err, line)
		}
		fresh = append(fresh, e)
	}
	a.all = append(a.all, fresh...)
	return fresh, nil
}

// events reads the rest of the log and returns every event in it, in the
// order the API server wrote them.
func (a *auditLog) events(t tb) []auditv1.Event {
	t.Helper()
	_, err := a.read()
	require.NoError(t, err)
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.all)
}

// written reports whether e is the final record of a write (a create,
// update, patch or delete), whether or not it was accepted.
func auditWrite(e *auditv1.Event) bool {
	if e.Stage != auditv1.StageResponseComplete || e.ObjectRef == nil {
		return false
	}
	switch e.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// accepted reports whether e is a write the API server accepted.
func auditAccepted(e *auditv1.Event) bool {
	return auditWrite(e) && e.ResponseStatus != nil && e.ResponseStatus.Code >= 200 && e.ResponseStatus.Code < 300
}

// code is the HTTP status the API server answered e with.
func auditCode(e *auditv1.Event) int32 {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

// stateWrite reports whether e is an accepted write of the hub's state:
// not a Lease (leader election has its own record, leaseTerms), an Event,
// or a review that is never stored.
func auditStateWrite(e *auditv1.Event) bool {
	if !auditAccepted(e) {
		return false
	}
	switch e.ObjectRef.Resource {
	case "leases", "events", "selfsubjectaccessreviews", "selfsubjectreviews", "subjectaccessreviews",
		"localsubjectaccessreviews", "tokenreviews":
		return false
	}
	return true
}

// describe names a write for a person.
func auditDescribe(e *auditv1.Event) string {
	r := e.ObjectRef
	what := r.Resource
	if r.Subresource != "" {
		what += "/" + r.Subresource
	}
	return fmt.Sprintf("%s %s %s/%s by %s at %s: %d", e.Verb, what, r.Namespace, r.Name, e.User.Username,
		e.StageTimestamp.Format("15:04:05.000000"), auditCode(e))
}

// term is one holder's hold of the leader-election Lease, from the write
// that gave it the Lease.
type term struct {
	holder string // the Lease's holderIdentity
	user   string // who wrote it: which replica
	from   time.Time
}

// leaseTerms returns the terms of the Lease namespace/name, in order: a
// new term starts with each accepted write that names a new holder.
func leaseTerms(t tb, events []auditv1.Event, namespace, name string) []term {
	t.Helper()
	var out []term
	for i := range events {
		e := &events[i]
		if !auditAccepted(e) || e.ObjectRef.Resource != "leases" || e.ObjectRef.Namespace != namespace || e.ObjectRef.Name != name || e.ResponseObject == nil {
			continue
		}
		var l coordinationv1.Lease
		require.NoError(t, json.Unmarshal(e.ResponseObject.Raw, &l), "lease in the audit log")
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		if holder == "" || (len(out) > 0 && out[len(out)-1].holder == holder) {
			continue
		}
		out = append(out, term{holder: holder, user: e.User.Username, from: e.StageTimestamp.Time})
	}
	return out
}

// fenceViolations returns the accepted state writes of the users that
// isReplica picks that were not received and answered within one of the
// writer's own terms of the Lease: a write of a leader that was no longer
// the leader, or of a replica that never led. A term ends where the next
// one starts.
func fenceViolations(events []auditv1.Event, terms []term, isReplica func(user string) bool) []string {
	var out []string
	for i := range events {
		e := &events[i]
		if !auditStateWrite(e) || !isReplica(e.User.Username) {
			continue
		}
		in := false
		for k, tm := range terms {
			end := time.Unix(1<<40, 0) // the last term has not ended
			if k+1 < len(terms) {
				end = terms[k+1].from
			}
			if tm.user == e.User.Username && !e.RequestReceivedTimestamp.Time.Before(tm.from) && e.StageTimestamp.Time.Before(end) {
				in = true
				break
			}
		}
		if !in {
			out = append(out, auditDescribe(e))
		}
	}
	return out
}

// addonVersion is one stored version of a cluster's add-on, as the audit
// log recorded the write that made it.
type addonVersion struct {
	cluster string
	user    string
	at      time.Time // when the write was answered
	rv      int64
	desired string // spec hashes; "" when unset
	applied string
	// progressing and configured are the Progressing and Configured
	// conditions, nil when none.
	progressing, configured *metav1.Condition
}

// completedWith reports whether the version shows the add-on done with
// the config whose hash is h: applied, and Progressing Completed.
func (v addonVersion) completedWith(h string) bool {
	return v.applied == h && v.desired == h && v.progressing != nil && v.progressing.Reason == addonv1beta1.ProgressingReasonCompleted
}

// addonVersions returns, by cluster, every version of the add-on name that
// an accepted write made, in the order they were stored (resourceVersion:
// etcd's revision, which the test hub's API server hands out as it is).
func addonVersions(t testing.TB, events []auditv1.Event, name string) map[string][]addonVersion {
	t.Helper()
	out := make(map[string][]addonVersion)
	for i := range events {
		e := &events[i]
		if !auditAccepted(e) || e.ObjectRef.Resource != "managedclusteraddons" || e.ObjectRef.Name != name || e.Verb == "delete" || e.ResponseObject == nil {
			continue
		}
		var m addonv1alpha1.ManagedClusterAddOn
		require.NoError(t, json.Unmarshal(e.ResponseObject.Raw, &m), "add-on in the audit log")
		require.True(t, strings.HasPrefix(m.APIVersion, addonv1alpha1.GroupVersion.String()), "add-on written as %s: the test reads v1alpha1", m.APIVersion)
		rv, err := strconv.ParseInt(m.ResourceVersion, 10, 64)
		require.NoError(t, err, "resourceVersion")
		v := addonVersion{cluster: m.Namespace, user: e.User.Username, at: e.StageTimestamp.Time, rv: rv,
			progressing: meta.FindStatusCondition(m.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionProgressing),
			configured:  meta.FindStatusCondition(m.Status.Conditions, addonv1beta1.ManagedClusterAddOnConditionConfigured)}
		for _, r := range m.Status.ConfigReferences {
			if r.DesiredConfig != nil {
				v.desired = r.DesiredConfig.SpecHash
			}
			if r.LastAppliedConfig != nil {
				v.applied = r.LastAppliedConfig.SpecHash
			}
		}
		out[m.Namespace] = append(out[m.Namespace], v)
	}
	for _, vs := range out {
		slices.SortFunc(vs, func(a, b addonVersion) int { return int(a.rv - b.rv) })
	}
	return out
}

// sequence returns the values that field takes in vs, each once per run
// of versions that hold it, leaving out "".
func hashRuns(vs []addonVersion, field func(addonVersion) string) []string {
	var out []string
	for _, v := range vs {
		if s := field(v); s != "" && (len(out) == 0 || out[len(out)-1] != s) {
			out = append(out, s)
		}
	}
	return out
}
