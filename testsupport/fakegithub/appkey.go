package fakegithub

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"testing"
)

// NewAppKey makes a GitHub App key for a test: the key, for WithApp, and
// its PEM text, as GitHub hands it out.
func NewAppKey(t testing.TB) (*rsa.PrivateKey, []byte) {
	t.Helper()
	key, keyPEM, err := GenerateAppKey()
	if err != nil {
		t.Fatal(err)
	}
	return key, keyPEM
}

// GenerateAppKey is NewAppKey outside a test.
func GenerateAppKey() (*rsa.PrivateKey, []byte, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	return key, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), nil
}
