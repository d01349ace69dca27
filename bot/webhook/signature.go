package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
)

// signatureHeader carries "sha256=<hex HMAC-SHA256 of the body>". The
// legacy X-Hub-Signature (HMAC-SHA1) header is not accepted.
const (
	signatureHeader = "X-Hub-Signature-256"
	signaturePrefix = "sha256="
)

var (
	errNoSignature  = errors.New("webhook: " + signatureHeader + " header missing")
	errBadSignature = errors.New("webhook: signature does not match")
)

// wantMAC reads the MAC the X-Hub-Signature-256 header of h claims for
// the body. A header that is repeated, lacks the "sha256=" prefix or is not
// 64 hex digits is refused before any of the body is read.
func wantMAC(h http.Header) ([]byte, error) {
	values := h.Values(signatureHeader)
	switch {
	case len(values) == 0:
		return nil, errNoSignature
	case len(values) > 1:
		return nil, errBadSignature
	}
	digits, ok := strings.CutPrefix(values[0], signaturePrefix)
	if !ok || len(digits) != hex.EncodedLen(sha256.Size) {
		return nil, errBadSignature
	}
	want := make([]byte, sha256.Size)
	if _, err := hex.Decode(want, []byte(digits)); err != nil {
		return nil, errBadSignature
	}
	return want, nil
}

// sign returns the X-Hub-Signature-256 value GitHub sends for body.
func sign(secret, body []byte) string {
	return signaturePrefix + hex.EncodeToString(mac(secret, body))
}

func mac(secret, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return m.Sum(nil)
}
