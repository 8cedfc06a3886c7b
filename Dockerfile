# The gpumend image: gpumend-webhook (the entry point) and the gpumend CLI,
# built on Debian 12 and run as an unprivileged user.
#
#   docker build -t gpumend:0.1.0 .
#   docker run --rm --entrypoint gpumend gpumend:0.1.0 --help
#
# The manifests (manifests/) run it with a read-only root filesystem; it
# writes nothing but its logs to stderr.

ARG DEBIAN_IMAGE=debian:12-slim

# ---------------------------------------------------------------- build
FROM ${DEBIAN_IMAGE} AS build

# The Makefile's own list (`make deps`), so that it finds nothing missing.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential pkg-config \
      libjansson-dev libyaml-dev libmicrohttpd-dev libssl-dev libgnutls28-dev \
      openssl curl jq \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY . .
RUN make -j"$(nproc)" all \
 && make install DESTDIR=/out PREFIX=/usr/local \
 && strip /out/usr/local/bin/gpumend /out/usr/local/bin/gpumend-webhook

# ---------------------------------------------------------------- runtime
FROM ${DEBIAN_IMAGE}

# The shared libraries only; no compiler, no headers, no package lists.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libjansson4 libyaml-0-2 libmicrohttpd12 libssl3 libgnutls30 \
 && rm -rf /var/lib/apt/lists/*

COPY --from=build /out/usr/local/bin/gpumend /out/usr/local/bin/gpumend-webhook \
     /usr/local/bin/

LABEL org.opencontainers.image.title="gpumend" \
      org.opencontainers.image.description="Migrates legacy Kubernetes GPU manifests: CLI and mutating admission webhook"

# The same numeric user as the Deployment's runAsUser (runAsNonRoot needs a
# number to check).
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["/usr/local/bin/gpumend-webhook"]
