# Capsule's developer commands. `make test` sets up a fresh Debian machine
# (Docker engine, sandbox image) and runs the whole suite.

GO      ?= go
VERSION ?= 0.1.0-dev
LDFLAGS := -s -w -X github.com/capsulehq/capsule/internal/version.Version=$(VERSION)

.PHONY: build test image bench vet clean docker-image

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

## docker-image: Capsule's own image from bin/capsule, with no registry (the
## Dockerfile's prebuilt target; plain `docker build .` builds from source)
DOCKER_IMAGE ?= capsule:$(VERSION)
CA_BUNDLE    ?= /etc/ssl/certs/ca-certificates.crt
docker-image: build
	rm -rf bin/rootfs
	install -d -m 0755 bin/rootfs bin/rootfs/etc bin/rootfs/etc/ssl bin/rootfs/etc/ssl/certs
	install -d -m 1777 bin/rootfs/tmp
	install -m 0755 bin/capsule bin/rootfs/capsule
	install -m 0644 $(CA_BUNDLE) bin/rootfs/etc/ssl/certs/ca-certificates.crt
	printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'capsule:x:65532:65532:capsule:/nonexistent:/sbin/nologin' >bin/rootfs/etc/passwd
	printf '%s\n' 'root:x:0:' 'capsule:x:65532:' >bin/rootfs/etc/group
	chmod 0644 bin/rootfs/etc/passwd bin/rootfs/etc/group
	docker build --target prebuilt --build-arg VERSION=$(VERSION) -t $(DOCKER_IMAGE) .

clean:
	rm -rf bin
