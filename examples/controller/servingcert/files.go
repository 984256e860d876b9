package servingcert

import (
	"bytes"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
)

// writeFiles writes m's serving pair into dir as tls.crt and tls.key,
// unless they hold it already, and says whether it wrote. Each file is
// written beside its final name and renamed over it, so that the webhook
// server's certwatcher never reads half a file; the key goes first, and
// a certwatcher that reads the new key with the old certificate refuses
// the pair and keeps serving the old one until the certificate follows.
func writeFiles(dir string, m material) (bool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	wrote := false
	for _, f := range []struct {
		name string
		data []byte
	}{{corev1.TLSPrivateKeyKey, m.key}, {corev1.TLSCertKey, m.cert}} {
		path := filepath.Join(dir, f.name)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, f.data) {
			continue
		}
		if err := writeAtomically(path, f.data); err != nil {
			return wrote, err
		}
		wrote = true
	}
	return wrote, nil
}

func writeAtomically(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing left to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
