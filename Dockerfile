# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# The gpumend image, for linux/amd64 and linux/arm64: gpumend-webhook (the
# entry point) and the gpumend CLI, built on Debian 12 and run as an
# unprivileged user.
#
# It starts from scratch and copies the root that tests/image/rootfs.sh
# made for the target architecture in build-image/ARCH/rootfs (the build
# context is build-image/, nothing else of the tree): the two
# stripped binaries, the program interpreter and the shared libraries they
# load (nothing else: no shell, no package manager, no compiler, no
# headers), each library's Debian package recorded in
# /var/lib/dpkg/status.d/ (as distroless images do, so that image scanners
# see them) with its copyright file, and /etc/passwd and /etc/group. The
# binaries are built on the build machine, arm64 cross-compiled, so no step
# here runs a program and no emulation is needed. `make image` makes both
# roots, builds this file for each platform with buildah, offline, and
# joins the two images in a manifest list (see docs/install.md):
#
#   sh tests/image/rootfs.sh arm64
#   buildah bud --platform linux/arm64 -f Dockerfile -t gpumend:0.2.0-arm64 build-image
#
# The manifests (manifests/) run it with a read-only root filesystem; it
# writes nothing but its logs to stderr.

FROM scratch

# Set by buildah or docker from --platform.
ARG TARGETARCH
COPY ${TARGETARCH}/rootfs/ /

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
