# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# The gpumend image: gpumend-webhook (the entry point) and the gpumend CLI,
# built on Debian 12 and run as an unprivileged user.
#
#   docker build -t gpumend:0.1.0 .
#   docker run --rm --entrypoint gpumend gpumend:0.1.0 --help
#
# The runtime stage starts from scratch: the two stripped binaries, the
# program interpreter and the shared libraries they load (nothing else:
# no shell, no package manager, no compiler, no headers), each library's
# Debian package recorded in /var/lib/dpkg/status.d/ (as distroless images
# do, so that image scanners see them) with its copyright file. The
# manifests (manifests/) run it with a read-only root filesystem; it writes
# nothing but its logs to stderr. `make image` builds it offline with
# buildah (see docs/deploy.md, "The image").

ARG DEBIAN_IMAGE=debian:12-slim

# ---------------------------------------------------------------- build
FROM ${DEBIAN_IMAGE} AS build

# The Makefile's own list (`make deps`), so that it finds nothing missing.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential pkg-config \
      libjansson-dev libyaml-dev libmicrohttpd-dev libssl-dev libgnutls28-dev \
      openssl curl jq \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY . .
# The context has no .git: the revision comes from `make image`.
ARG REVISION=unknown
RUN make -j"$(nproc)" REVISION="$REVISION" all \
 && make install DESTDIR=/rootfs PREFIX=/usr/local \
 && strip /rootfs/usr/local/bin/gpumend /rootfs/usr/local/bin/gpumend-webhook

# The runtime root in /rootfs. ldd names what the binaries load: the
# program interpreter goes where the binaries ask for it, each library
# under its soname in its own directory (the loader's default search path,
# so no ld.so.cache is needed), and each owning package's status and
# copyright file go along.
RUN set -e; \
    bins="/rootfs/usr/local/bin/gpumend /rootfs/usr/local/bin/gpumend-webhook"; \
    ldd $bins >/tmp/ldd; \
    interp=$(awk '$1 ~ /^\// && $2 ~ /^\(/ { print $1 }' /tmp/ldd | sort -u); \
    test -n "$interp"; \
    { echo "$interp"; awk '$2 == "=>" && $3 ~ /^\// { print $3 }' /tmp/ldd; } \
      | sort -u >/tmp/libs; \
    : >/tmp/pkgs; \
    while read -r lib; do \
      real=$(readlink -f "$lib"); \
      dest=$(dirname "$real")/$(basename "$lib"); \
      [ "$lib" != "$interp" ] || dest=$lib; \
      mkdir -p "/rootfs$(dirname "$dest")"; \
      cp "$real" "/rootfs$dest"; \
      { dpkg -S "$lib" 2>/dev/null || dpkg -S "$real"; } | sed -n '1s/:.*//p' >>/tmp/pkgs; \
    done </tmp/libs; \
    mkdir -p /rootfs/var/lib/dpkg/status.d; \
    for pkg in $(sort -u /tmp/pkgs); do \
      dpkg-query -s "$pkg" >"/rootfs/var/lib/dpkg/status.d/$pkg"; \
      mkdir -p "/rootfs/usr/share/doc/$pkg"; \
      cp "/usr/share/doc/$pkg/copyright" "/rootfs/usr/share/doc/$pkg/"; \
    done; \
    mkdir -p /rootfs/etc; \
    printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin\n' \
      >/rootfs/etc/passwd; \
    printf 'root:x:0:\nnonroot:x:65532:\n' >/rootfs/etc/group

# ---------------------------------------------------------------- runtime
FROM scratch

COPY --from=build /rootfs/ /

# VERSION and REVISION: the VERSION file and the commit (`make image`).
ARG VERSION=unknown
ARG REVISION=unknown
LABEL org.opencontainers.image.title="gpumend" \
      org.opencontainers.image.description="Migrates legacy Kubernetes GPU manifests: CLI and mutating admission webhook" \
      org.opencontainers.image.version="$VERSION" \
      org.opencontainers.image.revision="$REVISION" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/gpumend/gpumend"

ENV PATH=/usr/local/bin
# The same numeric user as the Deployment's runAsUser (runAsNonRoot needs a
# number to check).
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["/usr/local/bin/gpumend-webhook"]
