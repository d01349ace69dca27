# Capsule's server image: one static binary, the CA bundle, a non-root user.
# `docker build .` builds it from source (the last stage, capsule). The
# GitHub Action's image, which must run as root, is Dockerfile.action.
#
# Targets, in file order:
#
#   prebuilt  the server image from a binary built outside, with no base
#             image and no registry (make docker-image stages bin/rootfs/)
#   build     compiles Capsule from source in the Go image
#   capsule   the default target: the server image built from source
#
# prebuilt comes before the Go stage on purpose: the legacy builder (Docker
# without BuildKit) runs every stage up to the target, so with
# --target prebuilt it never needs the Go image. The from-source build needs
# a registry for the Go image, and BuildKit, which skips the prebuilt stage
# it does not use (the default since Docker 23; DOCKER_BUILDKIT=1 on 20.10).
#
# scripts/rootfs.sh lays out the root file system (the binary, the CA
# bundle, /etc/passwd and /etc/group, /tmp) for every variant.

ARG GO_IMAGE=golang:1.26-alpine
ARG VERSION=0.1.0-dev

# Settings every variant shares. USER is numeric so the engine never looks
# it up; /etc/passwd names it for tools such as ps.
FROM scratch AS base
ARG VERSION
LABEL org.opencontainers.image.title="capsule" \
      org.opencontainers.image.description="Turns labelled GitHub issues into tested pull requests" \
      org.opencontainers.image.source="https://github.com/capsulehq/capsule" \
      org.opencontainers.image.url="https://github.com/capsulehq/capsule" \
      org.opencontainers.image.version="${VERSION}"
USER 65532:65532
EXPOSE 8080
# What Ctrl-C sends: Capsule cancels its work and removes the sandbox
# containers it started before it exits.
STOPSIGNAL SIGINT
ENTRYPOINT ["/capsule"]
CMD ["serve"]

# The offline variant: make docker-image lays out bin/rootfs/ with
# scripts/rootfs.sh from bin/capsule and the host's CA bundle.
FROM base AS prebuilt
COPY bin/rootfs/ /

FROM --platform=$BUILDPLATFORM ${GO_IMAGE} AS build
ARG VERSION
ARG TARGETOS
ARG TARGETARCH
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The flags of `make build`, then the layout make docker-image writes to
# bin/rootfs/ for the prebuilt variant.
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
      go build -trimpath -ldflags "-s -w -X github.com/capsulehq/capsule/internal/version.Version=${VERSION}" \
      -o /out/capsule ./cmd/capsule \
 && sh scripts/rootfs.sh /out/capsule /etc/ssl/certs/ca-certificates.crt /rootfs

# The default target, so it stays last: the server image, non-root.
FROM base AS capsule
COPY --from=build /rootfs/ /

