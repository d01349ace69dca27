# Capsule's own image: one static binary, the CA bundle, a non-root user.
#
# Targets, in file order:
#
#   prebuilt  the server image from a binary built outside, with no base
#             image and no registry (make docker-image stages bin/rootfs/)
#   build     compiles Capsule from source in the Go image
#   capsule   the server image built from source:
#               docker build --target capsule -t capsule .
#   action    the default target, the one GitHub builds for action.yml:
#             the capsule image, run as root (see the stage)
#
# prebuilt comes before the Go stage on purpose: the legacy builder (Docker
# without BuildKit) runs every stage up to the target, so with
# --target prebuilt it never needs the Go image. The from-source targets need
# a registry for the Go image, and BuildKit, which skips the prebuilt stage
# they do not use (the default since Docker 23; DOCKER_BUILDKIT=1 on 20.10).

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

# The offline variant: bin/rootfs/ holds capsule, etc/passwd, etc/group,
# etc/ssl/certs/ca-certificates.crt and tmp/, laid out as in the image.
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
# The flags of `make build`; the rootfs is what the prebuilt variant copies
# from bin/rootfs/ (make docker-image writes the same files).
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
      go build -trimpath -ldflags "-s -w -X github.com/capsulehq/capsule/internal/version.Version=${VERSION}" \
      -o /rootfs/capsule ./cmd/capsule \
 && mkdir -p /rootfs/etc/ssl/certs /rootfs/tmp \
 && chmod 1777 /rootfs/tmp \
 && cp /etc/ssl/certs/ca-certificates.crt /rootfs/etc/ssl/certs/ca-certificates.crt \
 && printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'capsule:x:65532:65532:capsule:/nonexistent:/sbin/nologin' >/rootfs/etc/passwd \
 && printf '%s\n' 'root:x:0:' 'capsule:x:65532:' >/rootfs/etc/group \
 && chmod 0644 /rootfs/etc/passwd /rootfs/etc/group /rootfs/etc/ssl/certs/ca-certificates.crt

FROM base AS capsule
COPY --from=build /rootfs/ /

# The GitHub Action's image. The runner starts it with the host's Docker
# socket (root:docker, mode 660), the workspace and the file behind
# GITHUB_OUTPUT (both owned by the runner's uid 1001) mounted, and no --user
# or --group-add, and action.yml cannot ask for either: only root can use all
# three. GitHub's documentation says as much ("Docker actions must be run by
# the default Docker user (root)"). The socket gives root on the host anyway.
# It is the last stage because the runner builds the default target.
FROM capsule AS action
LABEL org.opencontainers.image.description="Capsule as a GitHub Action: turns labelled issues into tested pull requests"
USER 0:0
