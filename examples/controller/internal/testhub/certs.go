package testhub

import (
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"net"

	certutil "k8s.io/client-go/util/cert"
)

// servingCert makes a CA and a serving certificate it signs for ip
// (client-go's GenerateSelfSignedCertKey, valid for a year: longer than any
// test hub runs). It returns the CA in PEM, for a caBundle, and the
// certificate with its key.
func servingCert(ip net.IP) (caPEM []byte, cert tls.Certificate, err error) {
	chainPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey(ip.String(), []net.IP{ip}, nil)
	if err != nil {
		return nil, cert, fmt.Errorf("making the conversion webhook's certificate: %w", err)
	}
	chain, err := certutil.ParseCertsPEM(chainPEM)
	if err != nil || len(chain) != 2 {
		return nil, cert, fmt.Errorf("the conversion webhook's certificate: want a certificate and its CA, got %d certificates: %v", len(chain), err)
	}
	if cert, err = tls.X509KeyPair(pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: chain[0].Raw}), keyPEM); err != nil {
		return nil, cert, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: chain[1].Raw}), cert, nil
}
