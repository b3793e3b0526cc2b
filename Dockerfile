# syntax=docker/dockerfile:1
#
# llmprober container image: a static binary on distroless, running as a
# non-root user, with nothing written to disk at run time (a read-only root
# file system works).
#
#   docker build -t llmprober:dev \
#     --build-arg VERSION=$(git describe --tags --always) \
#     --build-arg REVISION=$(git rev-parse HEAD) .
#
# Port 9477 (LLMPROBER_LISTEN_ADDRESS, set to :9477 below; the binary's own
# default is loopback only): landing page /, metrics /metrics, liveness
# /-/healthy (200 while serving), readiness /-/ready (200 once every target
# passed its start-up gate and finished its first probe). Distroless has no
# shell or curl, so there is no HEALTHCHECK: point the orchestrator's probes
# at those paths (deploy/kubernetes, deploy/compose).
#
# deploy/dockerbuild_test.go runs this file's go build command and checks that it
# yields a static binary; keep the command on one RUN line.

ARG GO_VERSION=1.26.7

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-trixie AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG TARGETOS TARGETARCH
ARG VERSION=dev
ARG REVISION=unknown
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} go build -trimpath -ldflags="-s -w -X main.version=${VERSION} -X main.revision=${REVISION}" -o /out/llmprober ./cmd/llmprober

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/llmprober /llmprober
# 65532 is distroless's "nonroot"; numeric, so runAsNonRoot can verify it.
USER 65532:65532
ENV LLMPROBER_LISTEN_ADDRESS=:9477
EXPOSE 9477
ENTRYPOINT ["/llmprober"]
CMD ["run"]
