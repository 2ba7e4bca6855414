package controlplane

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the control plane's own trust: a CA, the API server's serving certificate signed by it
// (the CA is what kubeconfigs, Helm and in-pod clients verify, as kube-root-ca.crt in every
// namespace) and the key that signs service account tokens.
type pki struct {
	CAFile, CertFile, KeyFile string // the CA; the API server's serving pair
	SAKeyFile, SAPubFile      string // service account token signing key and its public half
}

// writePKI creates the files under dir. The serving certificate names every address a client of
// the test bed uses: loopback, and the kubernetes Service's cluster IP and DNS names.
func writePKI(dir string, serviceIP net.IP) (pki, error) {
	p := pki{
		CAFile: filepath.Join(dir, "ca.crt"), CertFile: filepath.Join(dir, "apiserver.crt"),
		KeyFile: filepath.Join(dir, "apiserver.key"), SAKeyFile: filepath.Join(dir, "sa.key"),
		SAPubFile: filepath.Join(dir, "sa.pub"),
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return p, fmt.Errorf("CA key: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "warmup-sidecar test bed CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return p, fmt.Errorf("CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return p, fmt.Errorf("CA certificate: %w", err)
	}
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return p, fmt.Errorf("serving key: %w", err)
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), serviceIP},
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local"},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, ca, &srvKey.PublicKey, caKey)
	if err != nil {
		return p, fmt.Errorf("serving certificate: %w", err)
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return p, fmt.Errorf("service account key: %w", err)
	}
	files := []struct {
		path, typ string
		der       func() ([]byte, error)
	}{
		{p.CAFile, "CERTIFICATE", func() ([]byte, error) { return caDER, nil }},
		{p.CertFile, "CERTIFICATE", func() ([]byte, error) { return srvDER, nil }},
		{p.KeyFile, "EC PRIVATE KEY", func() ([]byte, error) { return x509.MarshalECPrivateKey(srvKey) }},
		{p.SAKeyFile, "EC PRIVATE KEY", func() ([]byte, error) { return x509.MarshalECPrivateKey(saKey) }},
		{p.SAPubFile, "PUBLIC KEY", func() ([]byte, error) { return x509.MarshalPKIXPublicKey(&saKey.PublicKey) }},
	}
	for _, f := range files {
		der, err := f.der()
		if err != nil {
			return p, fmt.Errorf("encode %s: %w", f.path, err)
		}
		if err := os.WriteFile(f.path, pem.EncodeToMemory(&pem.Block{Type: f.typ, Bytes: der}), 0o600); err != nil {
			return p, fmt.Errorf("write %s: %w", f.path, err)
		}
	}
	return p, nil
}
