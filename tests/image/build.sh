#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/image/build.sh - `make image`: the image for each architecture of
# IMAGE_ARCHES (default amd64 arm64), and $IMAGE (default gpumend:VERSION),
# the manifest list that joins them. For each ARCH, tests/image/rootfs.sh
# makes the root on this machine (arm64 cross-compiled), then buildah
# builds the Dockerfile for linux/ARCH into $IMAGE-ARCH, offline: nothing
# is pulled (the Dockerfile starts from scratch) and no step runs a
# program, so no emulation is needed. The labels carry VERSION and the
# commit. $IMAGE, an image or a list left by an earlier build, is replaced.
set -eu
. "$(dirname "$0")/lib.sh"

image_need buildah buildah
cd "$IMAGE_REPO"
revision=$(make -s --no-print-directory revision) ||
	image_die "cannot read the revision (make revision)"
for arch in $IMAGE_ARCHES; do
	sh "$IMAGE_DIR/rootfs.sh" "$arch"
	image_say "building $(image_of "$arch") (linux/$arch)"
	buildah bud --quiet --isolation chroot --pull=never -f Dockerfile \
		--platform "linux/$arch" \
		--build-arg VERSION="$IMAGE_VERSION" --build-arg REVISION="$revision" \
		-t "$(image_of "$arch")" build-image >/dev/null ||
		image_die "buildah bud for linux/$arch failed"
done

# The list: made anew, so that it names only these images. A plain image
# of that name (an earlier `make image`) is untagged; a list is removed
# alone (buildah rmi of a list would remove the images it names).
if buildah manifest inspect "$IMAGE" >/dev/null 2>&1; then
	buildah manifest rm "$IMAGE" >/dev/null || image_die "cannot remove the list $IMAGE"
elif image_exists "$IMAGE"; then
	buildah rmi "$IMAGE" >/dev/null || image_die "cannot remove the image $IMAGE"
fi
buildah manifest create "$IMAGE" >/dev/null || image_die "cannot create the list $IMAGE"
for arch in $IMAGE_ARCHES; do
	buildah manifest add "$IMAGE" "containers-storage:$(image_stored "$(image_of "$arch")")" >/dev/null ||
		image_die "cannot add $(image_of "$arch") to $IMAGE"
	image_say "built $(image_of "$arch"): $(buildah images --format '{{.Size}}' "$(image_of "$arch")")"
done
image_say "built $IMAGE: the manifest list of $(image_platforms)"
