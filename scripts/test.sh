#!/usr/bin/env bash
# The test command: sets up what the tests need on a fresh machine (a Docker
# engine, the sandbox image, a static build of Capsule for the in-container
# agent, PostgreSQL's server binaries for the tests' throwaway clusters),
# then vets, runs staticcheck and runs every test with the race detector,
# showing a line per package as it finishes (scripts/testprogress).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-docker.sh
scripts/ensure-postgres.sh
make --no-print-directory build
# ensure-docker.sh installed debootstrap, which the offline image build
# needs, even where an engine answered already.
if ! bin/capsule sandbox image --quiet; then
  echo "could not build the sandbox image; see the messages above" >&2
  exit 1
fi

export CAPSULE_AGENT="$PWD/bin/capsule"
export CI="${CI:-}"
# Go files under testdata are data (real projects' files, kept as they are).
gofiles=$(git ls-files '*.go' ':!:**/testdata/**')
test -z "$(gofmt -l $gofiles)" || { echo "gofmt would change:" >&2; gofmt -l $gofiles >&2; exit 1; }
go vet ./...
# staticcheck is pinned in go.mod's tool block and comes through the module proxy.
go tool staticcheck ./...
# One line per package as it finishes, the output of failed tests, and the
# totals per package at the end; every event is kept in out/test.json, or
# in CAPSULE_TEST_JSON when it names a file.
go build -o bin/testprogress ./scripts/testprogress
events="${CAPSULE_TEST_JSON:-out/test.json}"
mkdir -p "$(dirname "$events")"
go test -race -count=1 -p 4 -timeout 15m -json ./... | bin/testprogress -raw "$events"
