package servingcert

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// The Secret's keys besides corev1.TLSCertKey and corev1.TLSPrivateKeyKey:
// cert-manager's for the CA bundle, and the CA's key, which only the
// Rotator reads.
const (
	caCertKey = "ca.crt"
	caKeyKey  = "ca.key"
)

// backdate is how far before now a certificate starts to be valid, so
// that an API server whose clock is behind the controller's accepts it.
const backdate = time.Hour

// material is the PEM the Secret holds: the CA bundle (the current CA
// first, then the one before it while it is valid), the current CA's key,
// and the serving pair.
type material struct {
	caBundle, caKey []byte
	cert, key       []byte
}

func fromSecret(s *corev1.Secret) material {
	return material{caBundle: s.Data[caCertKey], caKey: s.Data[caKeyKey],
		cert: s.Data[corev1.TLSCertKey], key: s.Data[corev1.TLSPrivateKeyKey]}
}

func (m material) data() map[string][]byte {
	return map[string][]byte{caCertKey: m.caBundle, caKeyKey: m.caKey,
		corev1.TLSCertKey: m.cert, corev1.TLSPrivateKeyKey: m.key}
}

// Change says what Ensure changed in the Secret.
type Change int

const (
	// Unchanged: the Secret's certificates were good, or another replica
	// had just made good ones.
	Unchanged Change = iota
	// Created: there was no Secret; Ensure made a CA and a serving
	// certificate and created it.
	Created
	// Renewed: a new serving certificate, signed by the same CA.
	Renewed
	// NewCA: a new CA (the old one stays in the bundle while it is valid)
	// and a serving certificate signed by it.
	NewCA
)

// String returns the change's name.
func (c Change) String() string {
	switch c {
	case Unchanged:
		return "Unchanged"
	case Created:
		return "Created"
	case Renewed:
		return "Renewed"
	case NewCA:
		return "NewCA"
	}
	return fmt.Sprintf("Change(%d)", int(c))
}

// lifetimes are the durations that decide when a certificate is renewed.
type lifetimes struct {
	validity, caValidity, renewBefore time.Duration
}

// check says what m needs at now: Unchanged, Renewed (a new serving
// certificate) or NewCA, and why, for the log.
func check(m material, hosts []string, now time.Time, l lifetimes) (Change, string) {
	ca, _, err := parseCA(m)
	if err != nil {
		return NewCA, err.Error()
	}
	// A CA renewed with less than this left could sign a serving
	// certificate that outlives it.
	if left := ca.NotAfter.Sub(now); left < l.validity+l.renewBefore {
		return NewCA, fmt.Sprintf("the CA expires at %s, in less than %s", ca.NotAfter.Format(time.RFC3339), l.validity+l.renewBefore)
	}
	pair, err := tls.X509KeyPair(m.cert, m.key)
	if err != nil {
		return Renewed, fmt.Sprintf("the serving key pair: %v", err)
	}
	leaf := pair.Leaf
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		return Renewed, fmt.Sprintf("the serving certificate does not verify against the CA: %v", err)
	}
	for _, h := range hosts {
		if err := leaf.VerifyHostname(h); err != nil {
			return Renewed, fmt.Sprintf("the serving certificate does not cover %s", h)
		}
	}
	if left := leaf.NotAfter.Sub(now); left < l.renewBefore {
		return Renewed, fmt.Sprintf("the serving certificate expires at %s, in less than %s", leaf.NotAfter.Format(time.RFC3339), l.renewBefore)
	}
	return Unchanged, ""
}

// parseCA returns the current CA of m (the first of its bundle) and its
// key, or what is wrong with them.
func parseCA(m material) (*x509.Certificate, crypto.Signer, error) {
	if len(m.caBundle) == 0 || len(m.caKey) == 0 {
		return nil, nil, errors.New("no CA")
	}
	certs, err := certutil.ParseCertsPEM(m.caBundle)
	if err != nil {
		return nil, nil, fmt.Errorf("the CA bundle: %w", err)
	}
	key, err := keyutil.ParsePrivateKeyPEM(m.caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("the CA key: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, nil, fmt.Errorf("the CA key is a %T: want a signing key", key)
	}
	ca := certs[0]
	pub, ok := signer.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(ca.PublicKey) {
		return nil, nil, errors.New("the CA key does not match the CA certificate")
	}
	if !ca.IsCA {
		return nil, nil, errors.New("the CA certificate is not a CA")
	}
	return ca, signer, nil
}

// issue returns m with what c asks for made anew: a serving certificate
// for hosts (Renewed), or a CA and one (NewCA, Created). name names the
// CA, with the time, as Kubernetes names its own.
func issue(m material, c Change, hosts []string, now time.Time, l lifetimes, name string) (material, error) {
	var out material
	ca, caKey, err := parseCA(m)
	if c != Renewed || err != nil {
		if ca, caKey, out, err = newCA(m, now, l, name); err != nil {
			return material{}, err
		}
	} else {
		out.caBundle, out.caKey = m.caBundle, m.caKey
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return material{}, err
	}
	serial, err := serialNumber()
	if err != nil {
		return material{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: hosts[0]},
		NotBefore:    now.Add(-backdate).UTC(),
		NotAfter:     now.Add(l.validity).UTC(),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return material{}, fmt.Errorf("signing the serving certificate: %w", err)
	}
	out.cert = encodeCert(der)
	if out.key, err = keyutil.MarshalPrivateKeyToPEM(key); err != nil {
		return material{}, err
	}
	return out, nil
}

// newCA makes a CA, and the material's bundle and key for it: the new CA
// first, then the one m had, if it parses and is still valid at now.
func newCA(m material, now time.Time, l lifetimes, name string) (*x509.Certificate, crypto.Signer, material, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, material{}, err
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, nil, material{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: fmt.Sprintf("%s-ca@%d", name, now.Unix())},
		NotBefore:             now.Add(-backdate).UTC(),
		NotAfter:              now.Add(l.caValidity).UTC(),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, material{}, fmt.Errorf("signing the CA: %w", err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, material{}, err
	}
	out := material{caBundle: encodeCert(der)}
	if old, _, err := parseCA(m); err == nil && now.Before(old.NotAfter) {
		out.caBundle = append(out.caBundle, encodeCert(old.Raw)...)
	}
	if out.caKey, err = keyutil.MarshalPrivateKeyToPEM(key); err != nil {
		return nil, nil, material{}, err
	}
	return ca, key, out, nil
}

func encodeCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: der})
}

// serialNumber is a random 128-bit serial, as RFC 5280 allows (at most
// 20 octets, positive).
func serialNumber() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
}

// parseLeaf returns m's serving certificate.
func parseLeaf(m material) (*x509.Certificate, error) {
	pair, err := tls.X509KeyPair(m.cert, m.key)
	if err != nil {
		return nil, err
	}
	return pair.Leaf, nil
}
