package repocontext

import (
	"path"
	"strings"
)

// reasonSecret is why a file named like a file of credentials is never
// read.
const reasonSecret = "secret: its name marks it as holding credentials, which are never shown"

// secretNames are the base names of files that hold credentials.
var secretNames = makeSet(".env .netrc _netrc .pypirc .npmrc .git-credentials .htpasswd .pgpass " +
	"id_rsa id_dsa id_ecdsa id_ed25519 credentials.json service-account.json")

// secretExts are the extensions of key and certificate stores.
var secretExts = makeSet(".pem .key .p12 .pfx .jks .keystore .kdbx")

// envTemplates end the names of .env files that are templates, without
// secrets: .env.example, .env.sample and the like.
var envTemplates = []string{".example", ".sample", ".template", ".dist"}

// isSecret reports whether the file at slash path p is named like a file
// of credentials: .env and .env.* (but not a template such as
// .env.example), .netrc, .pypirc, .npmrc, .git-credentials, SSH private
// keys, and key and certificate stores (*.pem, *.key, *.p12, ...). The
// walk already skips hidden directories (.ssh, .aws, .git); these names
// are never read wherever they are, so neither the context nor a
// lookup shows them.
func isSecret(p string) bool {
	base := strings.ToLower(path.Base(p))
	switch {
	case secretNames[base], secretExts[path.Ext(base)]:
		return true
	case strings.HasPrefix(base, ".env."):
		for _, t := range envTemplates {
			if strings.HasSuffix(base, t) {
				return false
			}
		}
		return true
	}
	return false
}
