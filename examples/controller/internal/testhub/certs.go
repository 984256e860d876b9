package testhub

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// certValidity is how long the conversion webhook's CA and certificate
// are valid: longer than any test hub runs.
const certValidity = 365 * 24 * time.Hour

// servingCert makes a CA and a serving certificate it signs for ip, both
// valid from an hour before now (clock skew) for certValidity. It returns
// the CA in PEM, for a caBundle, and the certificate with its key.
func servingCert(ip net.IP, now time.Time) (caPEM []byte, cert tls.Certificate, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, cert, err
	}
	ca := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "rolloutkit test hub conversion webhook CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	if ca.SerialNumber, err = serial(); err != nil {
		return nil, cert, err
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, caKey.Public(), caKey)
	if err != nil {
		return nil, cert, fmt.Errorf("making the conversion webhook's CA: %w", err)
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		return nil, cert, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, cert, err
	}
	leaf := &x509.Certificate{
		Subject:     pkix.Name{CommonName: ip.String()},
		IPAddresses: []net.IP{ip},
		NotBefore:   ca.NotBefore,
		NotAfter:    ca.NotAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if leaf.SerialNumber, err = serial(); err != nil {
		return nil, cert, err
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, key.Public(), caKey)
	if err != nil {
		return nil, cert, fmt.Errorf("making the conversion webhook's certificate: %w", err)
	}
	cert = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), cert, nil
}

func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
}
