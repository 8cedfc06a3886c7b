#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
#
# tests/dist/test.sh - `make dist-test`: what `make dist` wrote in dist/
# works where a CI job downloads it.
#
#   - each static CLI (linux-amd64, linux-arm64) is an ELF for its machine
#     with no program interpreter and no dynamic section;
#   - run alone in an empty root (a chroot holding only the binary, its
#     inputs, a minimal /etc and /tmp; for arm64 also qemu-aarch64-static,
#     which runs it, called explicitly: binfmt_misc may not be mounted),
#     `migrate` and `lint` (text, json, sarif) give the dynamic build's
#     output, standard error and exit status for every golden case, every
#     Helm case and the examples; `--version` is the same;
#   - `certs` there writes a pair (ECDSA and RSA) that `certs check`
#     accepts, there and in the dynamic build, and prints its caBundle;
#   - the Helm chart gpumend-VERSION.tgz is charts/gpumend under gpumend/,
#     and renders (tests/helm-template) as charts/gpumend does;
#   - SHA256SUMS holds, NOTICES names every library with its licence, and
#     the source tarball has VERSION and the REVISION of this checkout,
#     no .git, and builds a gpumend whose --version names that revision.
# As root (chroot). The dynamic build is $GPUMEND_BUILD (make: build/).
. "$(dirname "$0")/../lib.sh"
cd "$REPO_DIR" || exit 2
VERSION=$(cat VERSION)
DIST=$REPO_DIR/dist
revision=$(make -s --no-print-directory revision)

CHROOT=$(command -v chroot)
if [ "$(id -u)" != 0 ] || [ -z "$CHROOT" ]; then
	fail "dist-test needs root (chroot)"
	finish dist
	exit 1
fi
for f in "gpumend-$VERSION.tar.gz" "gpumend-$VERSION.tgz" "gpumend-$VERSION-linux-amd64" \
	"gpumend-$VERSION-linux-arm64" NOTICES SHA256SUMS; do
	check "dist/$f exists (make dist)" [ -s "$DIST/$f" ]
done
check "dist/SHA256SUMS holds for every artefact" \
	sh -c "cd '$DIST' && sha256sum --quiet -c SHA256SUMS && [ \$(wc -l <SHA256SUMS) = 5 ]"
for word in jansson libyaml libssl-dev glibc Expat Apache-2.0 LGPL-2.1 "relink"; do
	check "dist/NOTICES names $word" grep -q -- "$word" "$DIST/NOTICES"
done

# ------------------------------------------------------- the chart
chart=$(scratch)
tar -xzf "$DIST/gpumend-$VERSION.tgz" -C "$chart" 2>/dev/null
check "the chart tarball holds gpumend/Chart.yaml of version $VERSION" \
	grep -qx "version: $VERSION" "$chart/gpumend/Chart.yaml"
check "the chart tarball holds nothing but gpumend/" \
	[ "$(ls "$chart")" = gpumend ]
if helm_template_build "$chart"; then
	"$RENDER" render "$chart/gpumend" -n gpumend-system >"$chart/packaged.yaml" 2>&1
	"$RENDER" render charts/gpumend -n gpumend-system >"$chart/tree.yaml" 2>&1
	check "the packaged chart renders as charts/gpumend does" sh -c \
		"grep -q '^kind: Deployment' '$chart/packaged.yaml' &&
		 cmp -s '$chart/packaged.yaml' '$chart/tree.yaml'"
else
	fail "the Go renderer (helm-template) builds"
fi

# ------------------------------------------------------- the empty roots
# inputs: the golden cases, the Helm cases' inputs, the examples
inputs=$(scratch)/in
mkdir -p "$inputs/helm"
cp -R tests/golden "$inputs/golden"
cp -R examples "$inputs/examples"
for c in tests/helm/*/; do
	[ -d "$c/input" ] && cp -R "$c/input" "$inputs/helm/$(basename "$c")"
done

# make_root ARCH: an empty root for ARCH's CLI, printed
make_root() {
	_r=$(scratch)/root-$1
	mkdir -p "$_r/bin" "$_r/etc" "$_r/tmp" "$_r/dev"
	chmod 1777 "$_r/tmp"
	cp "$DIST/gpumend-$VERSION-linux-$1" "$_r/bin/gpumend"
	printf 'root:x:0:0:root:/root:/bin/gpumend\n' >"$_r/etc/passwd"
	printf 'root:x:0:\n' >"$_r/etc/group"
	cp -R "$inputs" "$_r/in"
	if [ "$1" = arm64 ]; then
		cp "$(command -v qemu-aarch64-static)" "$_r/qemu-aarch64-static"
	fi
	echo "$_r"
}

# in_root ROOT ARCH ARGS...: the static CLI in ROOT, with a bare
# environment; the working directory is the root's /
in_root() {
	_r=$1
	_a=$2
	shift 2
	if [ "$_a" = arm64 ]; then
		env -i PATH=/bin "$CHROOT" "$_r" /qemu-aarch64-static /bin/gpumend "$@"
	else
		env -i PATH=/bin "$CHROOT" "$_r" /bin/gpumend "$@"
	fi
}

# same ROOT ARCH ARGS...: the static CLI in ROOT and the dynamic build
# (run from ROOT, so that the paths read the same) print the same stdout
# and stderr and exit the same; else prints what differs
same() {
	_r=$1
	_a=$2
	shift 2
	in_root "$_r" "$_a" "$@" >"$work/s.out" 2>"$work/s.err"
	echo "exit $?" >>"$work/s.out"
	(cd "$_r" && env -i PATH=/usr/bin:/bin "$GPUMEND" "$@") >"$work/d.out" 2>"$work/d.err"
	echo "exit $?" >>"$work/d.out"
	cmp -s "$work/s.out" "$work/d.out" && cmp -s "$work/s.err" "$work/d.err" && return 0
	echo "gpumend $*:"
	diff -u "$work/d.out" "$work/s.out" | head -n 10
	diff -u "$work/d.err" "$work/s.err" | head -n 10
	return 1
}

work=$(scratch)
command -v qemu-aarch64-static >/dev/null 2>&1 ||
	fail "qemu-aarch64-static is missing (make dist installs qemu-user-static)"

for arch in amd64 arm64; do
	bin=$DIST/gpumend-$VERSION-linux-$arch
	[ -s "$bin" ] || continue
	case $arch in
	amd64) machine="X86-64" ;;
	arm64) machine="AArch64" ;;
	esac
	check "$arch: an ELF for $machine" sh -c "readelf -h '$bin' | grep -q 'Machine:.*$machine'"
	check "$arch: statically linked (no interpreter, no dynamic section)" \
		sh -c "! readelf -lW '$bin' | grep -q INTERP && readelf -d '$bin' | grep -q 'no dynamic section'"
	root=$(make_root "$arch")
	[ "$arch" = arm64 ] && [ ! -x "$root/qemu-aarch64-static" ] && continue

	got=$(in_root "$root" "$arch" --version 2>&1)
	want=$("$GPUMEND" --version)
	check "$arch: --version in the empty root is '$want' (got '$got')" [ "$got" = "$want" ]

	for kind in migrate "lint" "lint --format json"; do
		n=0
		bad=""
		for c in "$root"/in/golden/*/; do
			c=${c%/}
			name=${c##*/}
			input=$(ls "$c"/input.* 2>/dev/null | head -n 1)
			[ -n "$input" ] || continue
			n=$((n + 1))
			set -- $kind
			[ -f "$c/config.yaml" ] && set -- "$@" -c "in/golden/$name/config.yaml"
			same "$root" "$arch" "$@" "in/golden/$name/${input##*/}" >>"$work/diffs" ||
				bad="$bad $name"
		done
		check "$arch: '$kind' of $n golden cases in the empty root gives the dynamic build's output${bad:+; differs:$bad}" \
			test "$n" -gt 0 -a -z "$bad"
	done
	for kind in "migrate --diff" "lint --format json"; do
		n=0
		bad=""
		for c in "$root"/in/helm/*/; do
			c=${c%/}
			n=$((n + 1))
			same "$root" "$arch" $kind "in/helm/${c##*/}" >>"$work/diffs" ||
				bad="$bad ${c##*/}"
		done
		check "$arch: '$kind' of $n Helm charts in the empty root gives the dynamic build's output${bad:+; differs:$bad}" \
			test "$n" -gt 0 -a -z "$bad"
	done
	for args in "migrate in/examples" "migrate --check in/examples" \
		"lint --format sarif in/examples" "lint --format github in/examples" "config" "rules"; do
		# shellcheck disable=SC2086
		check "$arch: 'gpumend $args' in the empty root gives the dynamic build's output" \
			same "$root" "$arch" $args
	done

	for key in ecdsa rsa; do
		out=$(in_root "$root" "$arch" certs --service gpumend-webhook --namespace gpumend-system \
			--out "/tmp/$key" --ip 127.0.0.1 --key-type "$key" 2>"$work/certs.err")
		rc=$?
		check "$arch: certs --key-type $key in the empty root exits 0$([ $rc = 0 ] || echo ": $(cat "$work/certs.err")")" \
			[ "$rc" = 0 ]
		check "$arch: certs --key-type $key prints the caBundle, ca.crt in base64" \
			sh -c "[ -n '$out' ] && [ '$out' = \"\$(base64 -w0 <'$root/tmp/$key/ca.crt')\" ]"
		in_root "$root" "$arch" certs check "/tmp/$key/tls.crt" --service gpumend-webhook \
			--namespace gpumend-system --ca "/tmp/$key/ca.crt" >"$work/check.out" 2>&1
		rc=$?
		check "$arch: certs check accepts the $key pair in the empty root$([ $rc = 0 ] || echo ": $(cat "$work/check.out")")" \
			[ "$rc" = 0 ]
		check "$arch: the dynamic build's certs check accepts the $key pair" \
			sh -c "'$GPUMEND' certs check '$root/tmp/$key/tls.crt' --service gpumend-webhook \
				--namespace gpumend-system --ca '$root/tmp/$key/ca.crt' >/dev/null"
		check "$arch: the $key keys are mode 0600" \
			sh -c "[ \"\$(stat -c %a '$root/tmp/$key/tls.key')\" = 600 ] && [ \"\$(stat -c %a '$root/tmp/$key/ca.key')\" = 600 ]"
	done
done
if [ -s "$work/diffs" ]; then
	echo "differences, dynamic build first:"
	head -n 60 "$work/diffs"
fi

# ------------------------------------------------------------ the source
src=$(scratch)
tar -xzf "$DIST/gpumend-$VERSION.tar.gz" -C "$src" 2>/dev/null
top=$src/gpumend-$VERSION
check "the tarball unpacks into gpumend-$VERSION/" [ -d "$top" ]
check "the tarball has VERSION ($VERSION)" sh -c "[ \"\$(cat '$top/VERSION')\" = '$VERSION' ]"
check "the tarball's REVISION is this checkout's ($revision)" \
	sh -c "[ \"\$(cat '$top/REVISION')\" = '$revision' ]"
check "the tarball has no .git" [ ! -e "$top/.git" ]
check "the tarball has LICENSE, NOTICE and THIRD_PARTY_NOTICES" \
	sh -c "[ -s '$top/LICENSE' ] && [ -s '$top/NOTICE' ] && [ -s '$top/THIRD_PARTY_NOTICES' ]"
make -s -C "$top" -j2 build/gpumend >"$work/src-build.log" 2>&1
check "the tarball builds gpumend (make build/gpumend)" [ -x "$top/build/gpumend" ]
got=$("$top/build/gpumend" --version 2>&1)
check "gpumend built from the tarball says 'gpumend $VERSION ($revision)' (got '$got')" \
	[ "$got" = "gpumend $VERSION ($revision)" ]

finish dist
