#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/layers.sh - the folders are the layers, and no include runs
# back up: rules/ <- lib/ <- certs/ <- cli/, lib/ <- helm/ <- cli/, and
# lib/ <- webhook/. The Makefile's per-layer include paths already make
# such an include fail to compile; this names the file and the header when
# one is written. Above helm/, only its public header is included. And a
# build folder given by an absolute path is named relative in the rules.
. "$(dirname "$0")/../lib.sh"
cd "$REPO_DIR" || exit 2

# allowed LAYER: the folders whose headers LAYER may include
allowed() {
	case $1 in
	rules) echo "rules" ;;
	lib) echo "rules lib" ;;
	certs) echo "lib certs" ;;
	helm) echo "rules lib helm" ;;
	cli) echo "rules lib certs helm cli" ;;
	webhook) echo "rules lib webhook" ;;
	esac
}

# public LAYER: the headers of LAYER that the layers above it may include
# (nothing: all of them)
public() {
	case $1 in
	helm) echo "helm.h" ;;
	esac
}

layers="rules lib certs helm cli webhook"
for layer in $layers; do
	bad=""
	for f in "$layer"/*.c "$layer"/*.h; do
		[ -f "$f" ] || continue
		for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
			home=""
			for d in $layers; do
				[ -f "$d/$h" ] && home="$home $d"
			done
			home=${home# }
			case " $(allowed "$layer") " in
			*" $home "*) ;;
			*) bad="$bad $f:$h($home)" ;;
			esac
			pub=$(public "$home")
			if [ "$home" != "$layer" ] && [ -n "$pub" ]; then
				case " $pub " in
				*" $h "*) ;;
				*) bad="$bad $f:$h($home, not public)" ;;
				esac
			fi
		done
	done
	if [ -z "$bad" ]; then
		pass "$layer/ includes only from: $(allowed "$layer")"
	else
		fail "$layer/ includes from above its layer, or a private header:$bad"
	fi
done

# one header name, one folder: a header found in two layers would make the
# include paths ambiguous
# shellcheck disable=SC2086
dups=$(ls $layers | grep '\.h$' | sort | uniq -d)
check "every header name lives in one folder${dups:+ (twice: $dups)}" [ -z "$dups" ]

scratch >/dev/null
# a build folder given by its absolute path (as tests give BUILD) is named
# relative to the tree in the rules, so that the dependency files name
# the objects as the rules do and a header's change rebuilds them
make -s --no-print-directory -n BUILD="$REPO_DIR/build-layers-check" \
	build-layers-check/rules/engine.o >"$_scratch/make-n" 2>&1
check "make with BUILD=\$PWD/DIR compiles into DIR/, named relative" \
	sh -c 'grep -q " -o build-layers-check/rules/engine.o" "$1" &&
		! grep -q "$2/build-layers-check" "$1"' sh "$_scratch/make-n" "$REPO_DIR"

finish layers
