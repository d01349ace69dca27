# Capsule's developer commands. `make test` sets up a fresh Debian machine
# (Docker engine, sandbox image) and runs the whole suite.

GO      ?= go
VERSION ?= 0.1.0-dev
LDFLAGS := -s -w -X github.com/capsulehq/capsule/internal/version.Version=$(VERSION)

.PHONY: build test image bench vet clean

## build: a static binary in bin/capsule (it is also the sandbox agent)
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/capsule ./cmd/capsule

## test: set up Docker and the sandbox image if needed, then vet and race-test everything
test:
	scripts/test.sh

## image: build the default sandbox image (offline where no registry answers)
image: build
	bin/capsule sandbox image

## bench: the sandbox start-up benchmark (bare process vs warm vs cold)
bench: build
	CAPSULE_AGENT=$(CURDIR)/bin/capsule $(GO) test -run '^$$' -bench . -benchtime 50x ./sandbox/

vet:
	$(GO) vet ./...

clean:
	rm -rf bin
