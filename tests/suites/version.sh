#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
#
# tests/suites/version.sh - the version is kept in one place, VERSION, and
# everything that names it reads it or agrees with it: both binaries'
# --version ("NAME VERSION (REVISION)", the revision the Makefile
# computes), the image tag of manifests/base, the Helm chart's version
# and appVersion, the Debian package's changelog, and a section of
# CHANGELOG.md.
. "$(dirname "$0")/../lib.sh"
cd "$REPO_DIR" || exit 2

version=$(cat VERSION 2>/dev/null)
check "VERSION holds one line, MAJOR.MINOR.PATCH ('$version')" \
	sh -c '[ "$(wc -l <VERSION)" = 1 ] && grep -qxE "[0-9]+\.[0-9]+\.[0-9]+" VERSION'

revision=$(make -s --no-print-directory revision 2>/dev/null)
check "the revision is a commit or 'unknown' ('$revision')" \
	sh -c "echo '$revision' | grep -qxE '[0-9a-f]{7,40}|unknown'"

for bin in gpumend gpumend-webhook; do
	got=$("$GPUMEND_BUILD/$bin" --version 2>&1)
	check "$bin --version prints '$bin $version ($revision)' (got '$got')" \
		[ "$got" = "$bin $version ($revision)" ]
done

tag=$(sed -n 's/^[[:space:]]*newTag:[[:space:]]*//p' manifests/base/kustomization.yaml)
check "manifests/base names the image tag $version (got '$tag')" [ "$tag" = "$version" ]
# until `kustomize edit set image`, a registry that cannot resolve: a
# forgotten push fails clearly, and nothing is pulled from Docker Hub
name=$(sed -n 's/^[[:space:]]*newName:[[:space:]]*//p' manifests/base/kustomization.yaml)
check "manifests/base names the image at a .invalid registry until set (got '$name')" \
	sh -c "echo '$name' | grep -qE '^[a-z0-9.-]+\.invalid/gpumend$'"

# the chart: `make dist` packages it as gpumend-VERSION.tgz, and its image
# tag defaults to appVersion
for key in version appVersion; do
	got=$(sed -n "s/^$key: *//p" charts/gpumend/Chart.yaml | tr -d '"')
	check "charts/gpumend/Chart.yaml has $key $version (got '$got')" [ "$got" = "$version" ]
done
got=$(sed -n 's/^  registry: *//p' charts/gpumend/values.yaml)
check "charts/gpumend names the image at a .invalid registry until set (got '$got')" \
	sh -c "echo '$got' | grep -qE '^[a-z0-9.-]+\.invalid\$'"

if [ -f debian/changelog ]; then
	deb=$(sed -n '1s/^gpumend (\([^)]*\)).*/\1/p' debian/changelog)
	check "debian/changelog's first entry is $version-N (got '$deb')" \
		sh -c "case '$deb' in '$version'-[0-9]*) exit 0 ;; *) exit 1 ;; esac"
fi

# the CI drop-ins install this release by default (other images' tags,
# on `image:` lines, aside)
for f in action.yml ci/install.sh ci/gitlab-ci.yml ci/github-workflow.yml; do
	other=$(grep -v 'image:' "$f" | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' |
		grep -vxF "$version" | sort -u | tr '\n' ' ')
	check "$f names release $version and no other${other:+ (also: $other)}" \
		sh -c "grep -qF '$version' '$f' && [ -z '$other' ]"
done

check "CHANGELOG.md has a section '## [$version]'" \
	grep -q "^## \[$version\]" CHANGELOG.md

finish version
