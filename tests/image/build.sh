#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/image/build.sh - `make image`: builds the Dockerfile into $IMAGE
# (default gpumend:VERSION) with buildah, offline: the base image is made
# first when it is missing (tests/image/base.sh), nothing is pulled, and
# the RUN steps run with chroot isolation (no OCI runtime needed). Layers
# are kept, so a rebuild redoes only what changed.
set -eu
. "$(dirname "$0")/lib.sh"

image_need buildah buildah
sh "$IMAGE_DIR/base.sh"
cd "$IMAGE_REPO"
image_say "building $IMAGE"
revision=$(make -s --no-print-directory revision) ||
	image_die "cannot read the revision (make revision)"
buildah bud --isolation chroot --layers --pull=never -f Dockerfile \
	--build-arg VERSION="$IMAGE_VERSION" --build-arg REVISION="$revision" \
	-t "$IMAGE" . ||
	image_die "buildah bud failed"
image_say "built $IMAGE: $(buildah images --format '{{.Size}}' "$IMAGE")"
