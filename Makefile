# Capsule's developer commands. `make test` sets up a fresh Debian machine
# (Docker engine, sandbox image) and runs the whole suite.

GO      ?= go
VERSION ?= 0.1.0-dev
LDFLAGS := -s -w -X github.com/capsulehq/capsule/internal/version.Version=$(VERSION)

.PHONY: build test demo serve image images test-images bench verify-datasets bigcodebench e2e vet clean docker-image

## build: a static binary in bin/capsule (it is also the sandbox agent)
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/capsule ./cmd/capsule

## test: set up Docker, debootstrap and the sandbox image if needed, then vet,
## staticcheck and race-test everything, a line per package as it finishes
test:
	scripts/test.sh

## demo: the App at work on this machine, with stand-ins for GitHub and the
## model (after `make test`, which builds the sandbox image; about a minute)
demo: build
	bin/capsule demo

## serve: set up Docker and the sandbox image if needed, then run the GitHub App
## (settings from the environment: see the README)
serve: build
	scripts/ensure-docker.sh
	bin/capsule sandbox image --quiet
	bin/capsule serve

## image: build the default sandbox image (offline where no registry answers)
image: build
	bin/capsule sandbox image

## images: build the other ecosystems' sandbox images (node, rust, java,
## go), offline where no registry answers; each is skipped when present
ECOSYSTEMS ?= node rust java go
images: build
	for name in $(ECOSYSTEMS); do bin/capsule sandbox image --name $$name || exit 1; done

## test-images: build the ecosystem images if need be, then run a tiny
## Jest, Vitest, cargo, Maven and Go project in each through the real
## sandbox, and solve the real issues of testdata/languages through
## capsule solve (the tests under the ecosystemimages tag; they fail
## rather than skip, as CI is set)
test-images: images
	$(GO) vet -tags ecosystemimages ./pipeline/testreport/ ./cmd/capsule/
	CI=true CAPSULE_AGENT=$(CURDIR)/bin/capsule $(GO) test -tags ecosystemimages -count=1 -timeout 40m -run 'Image$$|TestNodePackageManagers|TestNodeRewrittenReport|TestSolveLanguages|TestSolveRewrittenReport' -v ./pipeline/testreport/ ./cmd/capsule/

## bench: the sandbox start-up benchmark (bare process vs warm vs cold)
bench: build
	CAPSULE_AGENT=$(CURDIR)/bin/capsule $(GO) test -run '^$$' -bench . -benchtime 50x ./sandbox/

## verify-datasets: run every shipped dataset's reference solutions through
## `capsule bench` with CPU hogs on every core; each sound problem must pass
## (minutes per dataset; CAPSULE_DATASETS=humaneval,mbpp picks some)
verify-datasets: build
	CI=true CAPSULE_AGENT=$(CURDIR)/bin/capsule $(GO) test -run '^$$' -bench ShippedReferences -benchtime 1x -timeout 4h ./bench/

## bigcodebench: build the BigCodeBench image (about 10 minutes and 5 GB;
## offline from the host's Debian mirror where no registry answers), then
## run every reference solution in it with two workers against a bare
## local loop, and compare with the shipped reference-status file
## (BIGCODEBENCH_IMAGE=capsule-python:$(VERSION) runs the standard-library
## tasks in the default image; BIGCODEBENCH_EVERY=N every N-th task)
BIGCODEBENCH_IMAGE ?= capsule-bigcodebench:$(VERSION)
bigcodebench: build
	bin/capsule sandbox image --name bigcodebench
	CI=true CAPSULE_AGENT=$(CURDIR)/bin/capsule CAPSULE_BIGCODEBENCH_IMAGE=$(BIGCODEBENCH_IMAGE) CAPSULE_BIGCODEBENCH_EVERY=$(BIGCODEBENCH_EVERY) \
		$(GO) test -run '^$$' -bench BigCodeBenchReferences -benchtime 1x -timeout 6h ./bench/

## e2e: the end-to-end set of real fixed issues (e2e/cases.jsonl): for
## each, `capsule solve` at the issue's base commit with a scripted model
## answering the real test and, in turn, the right fix, a wrong fix and a
## no-op; prints the table and fails unless every right fix is solved and
## no wrong fix or no-op is. E2E_REPOS is a folder made by
## scripts/e2e-repos.sh; E2E_CASES=id,id picks cases; E2E_OUT=DIR keeps
## each run's attempts.md; E2E_WORKAROUNDS=1 changes the test commands by
## hand as issue 23 did (15 minutes for 45 jobs on a busy two-core machine)
E2E_REPOS       ?=
E2E_CASES       ?=
E2E_OUT         ?=
E2E_WORKAROUNDS ?=
e2e: build
	@test -n "$(E2E_REPOS)" || { echo "make e2e E2E_REPOS=DIR (made by scripts/e2e-repos.sh DIR)"; exit 2; }
	bin/capsule sandbox image --quiet
	CAPSULE_E2E_REPOS=$(abspath $(E2E_REPOS)) CAPSULE_E2E_CASES=$(E2E_CASES) CAPSULE_E2E_OUT=$(if $(E2E_OUT),$(abspath $(E2E_OUT))) CAPSULE_E2E_WORKAROUNDS=$(E2E_WORKAROUNDS) \
		CAPSULE_E2E_BIN=$(CURDIR)/bin/capsule $(GO) test -v -run '^$$' -bench E2E -benchtime 1x -timeout 6h ./e2e/

vet:
	$(GO) vet ./...

## docker-image: Capsule's server image from bin/capsule, with no registry
## (the Dockerfile's prebuilt target; plain `docker build .` builds it from
## source, and Dockerfile.action is the GitHub Action's image)
DOCKER_IMAGE ?= capsule:$(VERSION)
CA_BUNDLE    ?= /etc/ssl/certs/ca-certificates.crt
docker-image: build
	rm -rf bin/rootfs
	scripts/rootfs.sh bin/capsule $(CA_BUNDLE) bin/rootfs
	docker build --target prebuilt --build-arg VERSION=$(VERSION) -t $(DOCKER_IMAGE) .

clean:
	rm -rf bin
