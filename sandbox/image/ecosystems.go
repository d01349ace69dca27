package image

import (
	"fmt"
	"strings"

	"github.com/capsulehq/capsule/sandbox/agent"
)

// The images of other ecosystems. Each is the default image (python3 and
// pytest stay, so the layout is the same everywhere) plus one toolchain
// with its test runner and reporters, all usable without network: the
// sandbox's tests never have one. What a repository needs beyond them
// comes through its set-up step.

// Pinned versions outside Debian, listed in the README and
// docs/sandbox.md.
const (
	// VitestVersion is Vitest's, from the npm registry (2.x is the last
	// line that supports Node 18).
	VitestVersion = "2.1.9"
	// JestJUnitVersion is jest-junit's, from the npm registry.
	JestJUnitVersion = "16.0.0"
	// PnpmVersion and YarnVersion are the package managers detection may
	// choose by a repository's lock file.
	PnpmVersion = "9.15.9"
	YarnVersion = "1.22.22"
	// GoVersion is the Go toolchain's, from the Go module proxy's
	// golang.org/toolchain module.
	GoVersion = "1.26.8"
)

// Node is Node.js 18 and npm from Debian with Debian's Jest 29, and
// Vitest, jest-junit, pnpm and yarn from the npm registry, installed
// globally at build time. /node_modules points to the global modules, so
// that a repository's require and import of them, and Jest's reporter
// option, find them from any folder.
var Node = Recipe{
	Key:  "node",
	Name: "capsule-node",
	// The sandbox's /etc/hosts is empty, and Vite (so Vitest) looks
	// localhost up before any test: libnss-myhostname answers it
	// (127.0.0.1 and ::1) with no file and no network.
	Packages: withPython("nodejs", "npm", "jest", "libnss-myhostname"),
	// npm's cache lives in the workspace (/tmp holds only 64 MiB);
	// jest-junit names each test by its file, its describe blocks (the
	// class) and its title, and reports a test file that does not load as
	// an error rather than leaving it out.
	Env: []string{"NPM_CONFIG_UPDATE_NOTIFIER=false", "NPM_CONFIG_FUND=false", "NPM_CONFIG_AUDIT=false",
		"NPM_CONFIG_CACHE=" + agent.Workspace + "/.cache/npm",
		"JEST_JUNIT_ADD_FILE_ATTRIBUTE=true", "JEST_JUNIT_CLASSNAME={classname}", "JEST_JUNIT_TITLE={title}",
		"JEST_JUNIT_REPORT_TEST_SUITE_ERRORS=true"},
	Setup: []string{
		"NPM_CONFIG_CACHE=/root/.npm npm install --global --no-audit --no-fund vitest@" + VitestVersion + " jest-junit@" + JestJUnitVersion +
			" pnpm@" + PnpmVersion + " yarn@" + YarnVersion + " && rm -rf /root/.npm",
		"ln -s \"$(npm root --global)\" /node_modules",
		"grep -q '^hosts:.*myhostname' /etc/nsswitch.conf || sed -i 's/^hosts:.*/& myhostname/' /etc/nsswitch.conf",
		"node --version && jest --version && vitest --version && pnpm --version && yarn --version",
	},
}

// rustCrates are the crates, from Debian's librust-*-dev packages, that
// an offline cargo resolves from /usr/share/cargo/registry.
var rustCrates = []string{
	"librust-anyhow-dev", "librust-thiserror-dev", "librust-serde-dev", "librust-serde-derive-dev",
	"librust-serde-json-dev", "librust-regex-dev", "librust-rand-dev", "librust-once-cell-dev",
	"librust-lazy-static-dev", "librust-itertools-dev", "librust-libc-dev", "librust-log-dev",
	"librust-bitflags-dev", "librust-memchr-dev",
}

// cargoConfig makes every cargo under / resolve crates.io's crates from
// Debian's registry, offline: cargo reads /.cargo/config.toml from any
// folder below it, and its own home stays in the writable HOME.
const cargoConfig = `# Capsule's sandbox: crates come from Debian's librust-*-dev packages.
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "/usr/share/cargo/registry"

[net]
offline = true
`

// Rust is rustc and cargo 1.96 from bookworm's updated rustc-web and
// cargo-web (bookworm's plain rustc, 1.63, is too old for today's
// crates), with a few common crates from Debian and cargo set to resolve
// from them offline.
var Rust = Recipe{
	Key:      "rust",
	Name:     "capsule-rust",
	Packages: withPython(append([]string{"rustc-web", "cargo-web"}, rustCrates...)...),
	Env:      []string{"CARGO_TERM_COLOR=never"},
	Files:    map[string]string{"/.cargo/config.toml": cargoConfig},
	Setup:    []string{"rustc --version && cargo --version"},
}

// mavenSettings makes Maven resolve from Debian's repository, offline.
const mavenSettings = `<?xml version="1.0" encoding="UTF-8"?>
<!-- Capsule's sandbox: plugins and libraries come from Debian's packages. -->
<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">
  <localRepository>/usr/share/maven-repo</localRepository>
  <offline>true</offline>
</settings>
`

// Java is OpenJDK 17 and Maven 3.8.7 from Debian, resolving offline from
// Debian's /usr/share/maven-repo, with Surefire 2.22 and its JUnit
// Platform provider, JUnit 5.9 and JUnit 4.
var Java = Recipe{
	Key:  "java",
	Name: "capsule-java",
	Packages: withPython("default-jdk-headless", "maven", "libsurefire-java", "junit5", "junit4",
		"libmaven-compiler-plugin-java", "libmaven-resources-plugin-java", "libmaven-jar-plugin-java",
		"libmaven-install-plugin-java"),
	Files: map[string]string{"/etc/maven/settings.xml": mavenSettings},
	Setup: []string{mavenRelocations(), "java -version && mvn --version"},
}

// mavenPinned are plugin versions that pom.xml files commonly pin, by the
// plugin and the version Debian packages. Each is relocated to Debian's,
// as Debian itself relocates the versions Maven's defaults name (Surefire
// 2.12.4 to 2.22.3), so that such a pom resolves offline; the plugins'
// options of later versions that 2.22.3 lacks are ignored, as Maven 3.8
// does with every option it does not know.
var mavenPinned = []struct {
	plugin, debian string
	pinned         []string
}{
	{"maven-surefire-plugin", "2.22.3", []string{"2.22.0", "2.22.1", "2.22.2", "3.0.0-M5", "3.0.0-M7", "3.0.0-M9",
		"3.0.0", "3.1.0", "3.1.2", "3.2.2", "3.2.5", "3.3.0", "3.3.1", "3.4.0", "3.5.0", "3.5.1", "3.5.2", "3.5.3"}},
	{"maven-compiler-plugin", "3.10.1", []string{"3.5.1", "3.6.0", "3.6.1", "3.7.0", "3.8.0", "3.8.1", "3.9.0",
		"3.10.0", "3.11.0", "3.12.1", "3.13.0", "3.14.0"}},
	{"maven-resources-plugin", "3.3.0", []string{"2.7", "3.0.2", "3.1.0", "3.2.0", "3.3.1"}},
}

// mavenRelocations is the set-up step that writes mavenPinned's
// relocation poms into Debian's repository, leaving any version Debian
// has alone.
func mavenRelocations() string {
	var b strings.Builder
	b.WriteString("set -e; relocate() { d=/usr/share/maven-repo/org/apache/maven/plugins/$1/$3; test -e $d/$1-$3.pom && return 0; mkdir -p $d; " +
		`printf '<project><modelVersion>4.0.0</modelVersion><groupId>org.apache.maven.plugins</groupId><artifactId>%s</artifactId><version>%s</version>` +
		`<distributionManagement><relocation><version>%s</version></relocation></distributionManagement></project>\n' $1 $3 $2 > $d/$1-$3.pom; }`)
	for _, p := range mavenPinned {
		for _, v := range p.pinned {
			fmt.Fprintf(&b, "; relocate %s %s %s", p.plugin, p.debian, v)
		}
	}
	return b.String()
}

// Go is a Go toolchain from the Go module proxy's golang.org/toolchain
// module (Debian's 1.19 rejects go.mod's toolchain lines), checked
// against its pinned hash and unpacked into /usr/local/go. Tests run with
// GOTOOLCHAIN=local (no other toolchain is fetched) and GOPROXY=off: a
// repository's modules come vendored or through its set-up step.
var Go = Recipe{
	Key:      "go",
	Name:     "capsule-go",
	Packages: withPython(),
	// The build and module caches live in the workspace: /tmp holds only
	// 64 MiB, and a set-up step's downloads (with GOPROXY set) are kept
	// with the committed workspace. The test binaries are built there
	// too, since /tmp does not run programs.
	Env: []string{"PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-modcacherw", "GOTMPDIR=" + agent.Workspace,
		"GOCACHE=" + agent.Workspace + "/.cache/go-build", "GOMODCACHE=" + agent.Workspace + "/.cache/go-mod"},
	Archives: []Archive{{
		URL:    "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go" + GoVersion + ".linux-amd64.zip",
		SHA256: goToolchainSHA256,
		Strip:  "golang.org/toolchain@v0.0.1-go" + GoVersion + ".linux-amd64",
		Dest:   "/usr/local/go",
	}},
	// The standard library, compiled once into a cache the image keeps:
	// Go ships none compiled, and the job's build cache (in the
	// workspace) starts from a copy of it (repo.GoWarmUp).
	Setup: []string{"go version && GOCACHE=" + GoStdCache + " GOTMPDIR=/tmp go build std && chmod -R a+rX " + GoStdCache},
}

// GoStdCache is where the Go image keeps a build cache of the standard
// library, compiled when the image is built, for a job's set-up to copy
// into its own build cache.
const GoStdCache = "/usr/local/share/capsule/go-std-cache"

// goToolchainSHA256 is the SHA-256 of the toolchain module's zip, recorded
// when it was pinned from proxy.golang.org. sum.golang.org was out of
// reach then, so the module's go.sum line is recorded to be checked
// against it where it answers:
//
//	golang.org/toolchain v0.0.1-go1.26.8.linux-amd64 h1:ZOmGe1OnfREDMIdb1Qi4G9JSuDPBLGExZMQ4nis1RXM=
//
// Its bin/go was byte for byte the go1.26.8 linux-amd64 release's from go.dev.
const goToolchainSHA256 = "30c2b1bf7dcc88d3eb0a1364e47ddd9128edb3110a30e8a0ef61cd5856b31de7"

// withPython returns the default image's packages followed by more.
func withPython(more ...string) []string {
	return append(append([]string(nil), Python.Packages...), more...)
}
