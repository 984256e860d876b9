package servingcert

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certutil "k8s.io/client-go/util/cert"
)

var (
	// t0 is when the tests' certificates are issued.
	t0    = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	hosts = []string{"rolloutkit-webhook.rolloutkit-system.svc", "127.0.0.1"}
	life  = lifetimes{validity: DefaultValidity, caValidity: DefaultCAValidity, renewBefore: DefaultRenewBefore}
)

// fresh issues a CA and a serving certificate for hosts at t0.
func fresh(t *testing.T) material {
	t.Helper()
	m, err := issue(material{}, NewCA, hosts, t0, life, "test")
	require.NoError(t, err)
	return m
}

// TestCheck: what each state of the Secret needs, and when.
func TestCheck(t *testing.T) {
	t.Parallel()
	good, other := fresh(t), fresh(t)
	dueAt := t0.Add(life.validity - life.renewBefore) // the serving certificate has exactly renewBefore left
	caDueAt := t0.Add(life.caValidity - life.validity - life.renewBefore)
	for _, tc := range []struct {
		name  string
		m     material
		hosts []string
		now   time.Time
		want  Change
		why   string
	}{
		{"no Secret", material{}, hosts, t0, NewCA, "no CA"},
		{"fresh", good, hosts, t0, Unchanged, ""},
		{"fresh, one host of two", good, hosts[1:], t0, Unchanged, ""},
		{"a minute before renewal", good, hosts, dueAt.Add(-time.Minute), Unchanged, ""},
		{"a minute into renewal", good, hosts, dueAt.Add(time.Minute), Renewed, "the serving certificate expires at 2027-03-01T12:00:00Z, in less than 2160h0m0s"},
		{"a new host", good, append([]string{"rolloutkit-webhook.rolloutkit-system.svc.cluster.local"}, hosts...), t0, Renewed,
			"the serving certificate does not cover rolloutkit-webhook.rolloutkit-system.svc.cluster.local"},
		{"a new IP", good, []string{"10.0.0.1"}, t0, Renewed, "the serving certificate does not cover 10.0.0.1"},
		{"another CA's certificate", material{caBundle: good.caBundle, caKey: good.caKey, cert: other.cert, key: other.key}, hosts, t0, Renewed,
			"the serving certificate does not verify against the CA"},
		{"no serving key", material{caBundle: good.caBundle, caKey: good.caKey, cert: good.cert}, hosts, t0, Renewed, "the serving key pair"},
		{"the CA due", good, hosts, caDueAt.Add(time.Minute), NewCA, "the CA expires at 2036-02-27T12:00:00Z, in less than 10920h0m0s"},
		{"another CA's key", material{caBundle: good.caBundle, caKey: other.caKey, cert: good.cert, key: good.key}, hosts, t0, NewCA,
			"the CA key does not match the CA certificate"},
		{"a CA bundle that is not PEM", material{caBundle: []byte("junk"), caKey: good.caKey, cert: good.cert, key: good.key}, hosts, t0, NewCA, "the CA bundle"},
		{"a serving certificate as the CA", material{caBundle: good.cert, caKey: good.key, cert: good.cert, key: good.key}, hosts, t0, NewCA,
			"the CA certificate is not a CA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, why := check(tc.m, tc.hosts, tc.now, life)
			assert.Equal(t, tc.want, got)
			if tc.why == "" {
				assert.Empty(t, why)
			} else {
				assert.Contains(t, why, tc.why)
			}
		})
	}
}

// TestIssue: a renewal keeps the CA; a new CA keeps the old one in the
// bundle while it is valid, so that a replica still serving a certificate
// of the old CA is trusted.
func TestIssue(t *testing.T) {
	t.Parallel()
	old := fresh(t)
	oldCA, _, err := parseCA(old)
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		change   Change
		at       time.Time
		sameCA   bool
		bundleOf int
	}{
		{"renewed", Renewed, t0.Add(300 * 24 * time.Hour), true, 1},
		{"new CA", NewCA, t0.Add(life.caValidity - 2*life.validity), false, 2},
		{"new CA after the old one expired", NewCA, oldCA.NotAfter.Add(time.Second), false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := issue(old, tc.change, hosts, tc.at, life, "test")
			require.NoError(t, err)
			bundle, err := certutil.ParseCertsPEM(m.caBundle)
			require.NoError(t, err)
			assert.Len(t, bundle, tc.bundleOf)
			assert.Equal(t, tc.sameCA, bundle[0].Equal(oldCA), "the current CA")
			if tc.bundleOf == 2 {
				assert.True(t, bundle[1].Equal(oldCA), "the old CA second")
			}
			assert.NotEqual(t, old.cert, m.cert)
			got, why := check(m, hosts, tc.at, life)
			assert.Equal(t, Unchanged, got, why)
			leaf, err := parseLeaf(m)
			require.NoError(t, err)
			assert.Equal(t, tc.at.Add(life.validity).UTC(), leaf.NotAfter)
			assert.Equal(t, tc.at.Add(-backdate).UTC(), leaf.NotBefore, "backdated for an API server whose clock is behind")
			assert.Equal(t, []string{hosts[0]}, leaf.DNSNames)
			require.Len(t, leaf.IPAddresses, 1)
			assert.Equal(t, "127.0.0.1", leaf.IPAddresses[0].String())
		})
	}
}

func TestChangeString(t *testing.T) {
	t.Parallel()
	for c, want := range map[Change]string{Unchanged: "Unchanged", Created: "Created", Renewed: "Renewed", NewCA: "NewCA", Change(9): "Change(9)"} {
		assert.Equal(t, want, c.String())
	}
}
