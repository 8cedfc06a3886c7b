#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/deps.sh - what the Makefile does about missing Debian
# packages: a plain `make` only builds, and when the build lacks a package
# it names it and `make deps` and stops, building nothing and installing
# nothing; `make deps`, `make demo` and `make test` install what is
# missing (as root; otherwise they name it and stop).
#
# Run in a build folder of its own, with a pkg-config that says some
# libraries are missing (it answers for the others as the real one does)
# and an apt-get that only records what it is asked (APT_GET), whose
# install fails: so nothing is installed, and a target that tries to
# install stops there.
. "$(dirname "$0")/../lib.sh"

tmp=$(scratch)
b="$tmp/build"

# a pkg-config without jansson and GnuTLS
cat >"$tmp/pkg-config" <<'EOF'
#!/bin/sh
if [ "$1" = --exists ]; then
	for a in "$@"; do
		case $a in jansson | gnutls) exit 1 ;; esac
	done
fi
exec pkg-config "$@"
EOF
# an apt-get that records its arguments; `install` fails
cat >"$tmp/apt-get" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/apt.log"
[ "\$1" != install ]
EOF
chmod +x "$tmp/pkg-config" "$tmp/apt-get"

# mk NAME [MAKE-ARGS...]: make in the repository with the build folder,
# the apt-get and the pkg-config above (PKG_CONFIG= in MAKE-ARGS to give
# another); output in $tmp/NAME.out, exit status in $rc. Not the make
# that runs the tests: none of its flags or job server.
mk() {
	_n=$1
	shift
	: >"$tmp/apt.log"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CI make -C "$REPO_DIR" --no-print-directory \
		BUILD="$b" APT_GET="$tmp/apt-get" PKG_CONFIG="$tmp/pkg-config" "$@" \
		>"$tmp/$_n.out" 2>&1
	rc=$?
}
# built: anything in the build folder but the version stamp
built() {
	find "$b" -type f ! -name version.stamp 2>/dev/null | head -n 3
}
show() {
	sed 's/^/    /' "$tmp/$1.out" | head -n 20
}
names() {
	grep -q "the build needs these Debian packages: libjansson-dev libgnutls28-dev\$" "$tmp/$1.out" &&
		grep -q "make deps" "$tmp/$1.out"
}
asked() {
	grep -qx "install -y -qq $1" "$tmp/apt.log" &&
		[ "$(grep -c "^install" "$tmp/apt.log")" = 1 ]
}
root=0
[ "$(id -u)" = 0 ] && root=1

for goal in "" all "$b/gpumend-webhook"; do
	rm -rf "$b"
	mk plain $goal
	what="make${goal:+ $(echo "$goal" | sed "s|$b|BUILD|")}"
	if [ "$rc" = 2 ] && names plain && [ -z "$(built)" ] && [ ! -s "$tmp/apt.log" ]; then
		pass "$what, jansson and GnuTLS missing: names libjansson-dev, libgnutls28-dev and make deps, exits 2, builds and installs nothing"
	else
		fail "$what, jansson and GnuTLS missing: exit $rc, built '$(built)', apt-get asked '$(cat "$tmp/apt.log")'"
		show plain
	fi
done

rm -rf "$b"
mk nopc PKG_CONFIG="$tmp/no-such-pkg-config"
check "make without pkg-config: names pkg-config and every library's -dev package, exits 2" \
	sh -c "[ $rc = 2 ] && grep -q 'the build needs these Debian packages: pkg-config libjansson-dev libyaml-dev libmicrohttpd-dev libssl-dev libgnutls28-dev\$' '$tmp/nopc.out'"

mk skip SKIP_DEPS=1 deps-check
check "SKIP_DEPS=1 (the package build) checks nothing (exit $rc)" [ "$rc" = 0 ]

for goal in deps demo test; do
	rm -rf "$b"
	mk "$goal" "$goal"
	if [ $root = 1 ]; then
		if [ "$rc" != 0 ] && asked "libjansson-dev libgnutls28-dev" && [ -z "$(built)" ]; then
			pass "make $goal, as root, jansson and GnuTLS missing: apt-get install libjansson-dev libgnutls28-dev, nothing else; stops when it fails"
		else
			fail "make $goal, as root: exit $rc, apt-get asked '$(cat "$tmp/apt.log")', built '$(built)'"
			show "$goal"
		fi
	else
		check "make $goal, not root: names libjansson-dev and libgnutls28-dev, installs and builds nothing" \
			sh -c "[ $rc != 0 ] && grep -q 'run as root or install: libjansson-dev libgnutls28-dev' '$tmp/$goal.out' &&
				[ ! -s '$tmp/apt.log' ] && [ -z '$(built)' ]"
	fi
done

# every package there: a plain build builds, and installs nothing
rm -rf "$b"
mk present PKG_CONFIG=pkg-config "$b/rules/quantity.o"
if [ "$rc" = 0 ] && [ -s "$b/rules/quantity.o" ] && [ ! -s "$tmp/apt.log" ]; then
	pass "make, every package there: builds (rules/quantity.o), installs nothing"
else
	fail "make, every package there: exit $rc, apt-get asked '$(cat "$tmp/apt.log")'"
	show present
fi

finish deps
