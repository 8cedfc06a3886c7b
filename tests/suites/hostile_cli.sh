#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/hostile_cli.sh - the gpumend CLI fed hostile files: billion
# laughs and other alias bombs, deep nesting, a 100 MB scalar, invalid
# UTF-8, byte order marks, tabs, NUL and other control bytes, an endless
# stdin; files truncated or rewritten while they are read
# (tests/hostile/cli-changes.tsv); directories with unreadable files and
# symbolic link loops (as a user the permissions apply to: root reads
# everything); read-only files, a full disk, a file of another user, a
# file with two hard links, a file size limit (ulimit -f) and signals
# under -i; entries of a directory that vanish before they are looked at.
#
# Each hostile file goes through `migrate` (stdout), `migrate -i` and
# `lint`: a clear error naming the file, exit 2, within a time bound, and
# with -i the file byte for byte as it was, with no temporary file left
# beside it. Time bounds scale with $GPUMEND_SLOW. The hostile files are
# data: a line of tests/hostile/cli-files.tsv (sh that writes the file),
# or a file in tests/hostile/cli/; the cases judged otherwise follow.
. "$(dirname "$0")/../lib.sh"

# not dir=$(scratch): see tests/lib.sh
scratch >/dev/null
dir=$_scratch
G=$GPUMEND

SLOW=${GPUMEND_SLOW:-1}
case "$SLOW" in '' | *[!0-9]* | 0) SLOW=1 ;; esac

# ------------------------------------------------------------------
# Helpers

ms() {
	echo $(($1 * SLOW))
}

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# run [-v KB] COMMAND...: runs COMMAND in $case_dir (stdout in $dir/out,
# stderr in $dir/err), killed after 60 s; sets $rc, $elapsed_ms and
# $peak_kb (its VmHWM, polled). -v: an address space limit (ulimit -v), a
# guard for commands that may eat all memory (under the sanitizers,
# ASAN_OPTIONS hard_rss_limit_mb instead: ulimit -v breaks their shadow
# memory).
run() {
	_vlimit=""
	if [ "$1" = -v ]; then
		_vlimit=$2
		shift 2
	fi
	_t0=$(now_ms)
	(
		cd "$case_dir" || exit 97
		if [ -n "$_vlimit" ]; then
			if [ -n "${GPUMEND_SANITIZE:-}" ]; then
				ASAN_OPTIONS="${ASAN_OPTIONS:-}:hard_rss_limit_mb=$((_vlimit / 1024))"
				export ASAN_OPTIONS
			else
				ulimit -v "$_vlimit"
			fi
		fi
		exec "$@"
	) >"$dir/out" 2>"$dir/err" </dev/null &
	_pid=$!
	peak_kb=0
	while :; do
		_st=$(awk '$1 == "State:" { s = $2 } $1 == "VmHWM:" { h = $2 }
			END { print s, h + 0 }' "/proc/$_pid/status" 2>/dev/null)
		case "$_st" in "" | Z*) break ;; esac
		[ "${_st#* }" -gt "$peak_kb" ] && peak_kb=${_st#* }
		if [ $(($(now_ms) - _t0)) -gt 60000 ]; then
			kill -KILL "$_pid" 2>/dev/null
			break
		fi
		sleep 0.02
	done
	wait "$_pid"
	rc=$?
	elapsed_ms=$(($(now_ms) - _t0))
}

# setup NAME: a fresh directory for a case, $case_dir, holding in.yaml,
# a copy of $dir/input (and $dir/NAME.orig, the copy to compare with).
# (Not fed through a pipe: a function at the end of a pipeline runs in a
# subshell, where pass and fail would count for nothing.)
setup() {
	case_dir="$dir/$1"
	rm -rf "$case_dir"
	mkdir -p "$case_dir"
	cp "$dir/input" "$case_dir/in.yaml"
	cp "$dir/input" "$dir/$1.orig"
}

# judge NAME WANT-RC PATTERN BOUND-MS [UNCHANGED-FILE]: the last run
# exited WANT-RC within BOUND-MS (scaled), its stderr matches PATTERN
# (grep -E; "-" for anything), and UNCHANGED-FILE (in $case_dir) is byte for byte as it was,
# with no other file beside it.
judge() {
	_name=$1 _want=$2 _pattern=$3 _bound=$(ms "$4") _keep=${5:-}
	_why=""
	if [ "$rc" != "$_want" ]; then
		_why="exit $rc, wanted $_want"
	elif [ "$_pattern" != - ] && ! grep -qE -- "$_pattern" "$dir/err"; then
		_why="stderr does not match '$_pattern'"
	elif [ "$elapsed_ms" -gt "$_bound" ]; then
		_why="took $elapsed_ms ms, over the bound of $_bound ms"
	elif [ -n "$_keep" ] && ! cmp -s "$case_dir/$_keep" "$dir/$(basename "$case_dir").orig"; then
		_why="'$_keep' changed"
	elif [ -n "$_keep" ] && [ "$(ls -A "$case_dir")" != "$_keep" ]; then
		_why="files left beside it: $(ls -A "$case_dir" | tr '\n' ' ')"
	fi
	if [ -z "$_why" ]; then
		pass "$_name: exit $rc in $elapsed_ms ms"
	else
		fail "$_name: $_why"
		head -c 600 "$dir/err" | sed 's/^/    /'
	fi
}

# hostile NAME PATTERN BOUND-MS: $dir/input is a hostile file; migrate, migrate
# -i and lint each refuse it (exit 2, stderr matching PATTERN, within
# BOUND-MS) and leave it whole.
hostile() {
	_hname=$1 _hpat=$2 _hbound=$3
	_hid=$(echo "$_hname" | tr -c 'A-Za-z0-9\n' '_' | cut -c 1-40)
	setup "$_hid"
	run "$G" migrate in.yaml
	[ -s "$dir/out" ] && rc="$rc, with output"
	judge "$_hname: migrate" 2 "$_hpat" "$_hbound" in.yaml
	run "$G" migrate -i in.yaml
	judge "$_hname: migrate -i" 2 "$_hpat" "$_hbound" in.yaml
	run "$G" lint in.yaml
	judge "$_hname: lint" 2 "$_hpat" "$_hbound" in.yaml
}

# repeat N CHAR: CHAR N times.
repeat() {
	head -c "$1" /dev/zero | tr '\0' "$2"
}

# A pod that migrate changes (the legacy GPU resource).
legacy_pod() {
	printf 'kind: Pod\nmetadata:\n  name: %s\nspec:\n  containers:\n  - name: c\n    image: busybox\n    resources:\n      limits:\n        alpha.kubernetes.io/nvidia-gpu: 1\n' "${1:-p}"
}

E='^in\.yaml(:[0-9]+:[0-9]+)?: error: '

# pod_bytes BYTES: a legacy pod whose name holds BYTES (sed escapes).
pod_bytes() {
	legacy_pod xMARKy | LC_ALL=C sed "s/MARK/$1/"
}

# ------------------------------------------------------------------
# Hostile files: tests/hostile/cli-files.tsv, one loop; then each file of
# tests/hostile/cli/ as it is

tab=$(printf '\t')
cases "$TESTS_DIR/hostile/cli-files.tsv" >"$dir/cli.cases"
while IFS="$tab" read -r name pattern bound file <&3; do
	case $pattern in '$E'*) pattern="$E${pattern#'$E'}" ;; esac
	(eval "$file") >"$dir/input" </dev/null
	hostile "$name" "$pattern" "$bound"
done 3<"$dir/cli.cases"
for f in "$TESTS_DIR"/hostile/cli/*; do
	[ -f "$f" ] || continue
	cp "$f" "$dir/input"
	hostile "tests/hostile/cli/$(basename "$f")" "$E" 2000
done

# ------------------------------------------------------------------
# Alias bombs that are fine

{
	printf 'base: &b\n  k0: v\n'
	i=1
	while [ $i -le 17 ]; do
		printf 'm%d: &m%d\n  <<: [*%s, *%s]\n  k%d: v\n' $i $i \
			"$([ $i = 1 ] && echo b || echo "m$((i - 1))")" \
			"$([ $i = 1 ] && echo b || echo "m$((i - 1))")" $i
		i=$((i + 1))
	done
} >"$dir/input"
setup merge_laughs
run "$G" lint in.yaml
judge "merge keys doubled over 17 levels (no blow-up: merged keys are kept once)" 0 - 2000

# ------------------------------------------------------------------
# Nesting that is fine

{ printf 'kind: Pod\nmetadata:\n  annotations:\n    x: |\n'; repeat 100000 '[' | sed 's/^/      /'; echo; } >"$dir/input"
setup deep_in_block_scalar
run "$G" migrate -i in.yaml
judge "100,000 brackets inside a block scalar are text: migrate -i" 0 - 2000 in.yaml

# ------------------------------------------------------------------
# Size: memory bounds, and input that never ends

{ printf 'kind: Pod\nmetadata:\n  name: '; repeat 100000000 a; echo; } >"$dir/input"
setup big_plain
for mode in migrate "migrate -i" lint; do
	# shellcheck disable=SC2086
	run "$G" $mode in.yaml
	judge "a 100 MB plain scalar: $mode" 2 "${E}.*larger than" 10000 in.yaml
	if [ "$peak_kb" -le 65536 ]; then
		pass "a 100 MB plain scalar: $mode: peak RSS $peak_kb kB (at most 64 MiB)"
	else
		fail "a 100 MB plain scalar: $mode: peak RSS $peak_kb kB, over 64 MiB (the document cap is 8 MiB)"
	fi
done

# stdin that never ends: refused within bounded memory
case_dir=$dir
# (run gives the command /dev/null: the endless input through a wrapper)
run -v 1048576 sh -c "exec '$G' migrate - </dev/zero"
judge "stdin from /dev/zero: migrate -" 2 "error: .*('-'|<stdin>)" 10000
if [ "$peak_kb" -le 262144 ]; then
	pass "stdin from /dev/zero: peak RSS $peak_kb kB (at most 256 MiB)"
else
	fail "stdin from /dev/zero: peak RSS $peak_kb kB, over 256 MiB: stdin is read whole, without a cap"
fi
if grep -q 'more than 0 bytes' "$dir/err"; then
	fail "stdin from /dev/zero: the message names no limit: $(head -n 1 "$dir/err")"
else
	pass "stdin from /dev/zero: the message makes sense: $(head -n 1 "$dir/err")"
fi
run -v 1048576 "$G" lint /dev/zero
judge "lint /dev/zero (a character device)" 2 "error: " 10000
[ "$peak_kb" -le 262144 ] &&
	pass "lint /dev/zero: peak RSS $peak_kb kB (at most 256 MiB)" ||
	fail "lint /dev/zero: peak RSS $peak_kb kB, over 256 MiB"

# ------------------------------------------------------------------
# Bytes that are fine: an escaped NUL, a BOM first, a tab in a value

# an escaped NUL is valid YAML: migrated, the escape kept as written
legacy_pod q | sed 's/  name: q/  name: "q\\0"/' >"$dir/input"
setup escaped_nul
run "$G" migrate -i in.yaml
if [ "$rc" = 0 ] && grep -qF 'name: "q\0"' "$case_dir/in.yaml" &&
   grep -q 'nvidia.com/gpu' "$case_dir/in.yaml"; then
	pass "an escaped NUL in a double-quoted value: migrated, kept as written"
else
	fail "an escaped NUL in a double-quoted value: exit $rc"
	sed 's/^/    /' "$dir/err"
fi

# valid after all: a BOM and tabs inside values are kept
{ printf '\357\273\277'; legacy_pod; } >"$dir/input"
setup bom
run "$G" migrate -i in.yaml
if [ "$rc" = 0 ] && [ "$(head -c 3 "$case_dir/in.yaml" | od -An -tx1 | tr -d ' ')" = efbbbf ] &&
   grep -q 'nvidia.com/gpu: 1' "$case_dir/in.yaml"; then
	pass "a byte order mark first: migrated, the BOM kept (exit 0 in $elapsed_ms ms)"
else
	fail "a byte order mark first: exit $rc, or the BOM lost"
fi
{ legacy_pod; printf '    command: ["sh", "-c", "echo a\tb"]\n'; } >"$dir/input"
setup tab_in_value
run "$G" migrate -i in.yaml
if [ "$rc" = 0 ] && grep -q "$(printf 'a\tb')" "$case_dir/in.yaml"; then
	pass "a tab inside a value: migrated, the tab kept"
else
	fail "a tab inside a value: exit $rc"
fi

# ------------------------------------------------------------------
# Files that change while they are read: tests/hostile/cli-changes.tsv

awk 'BEGIN { for (i = 1; i <= 60000; i++)
	printf "---\nkind: Pod\nmetadata:\n  name: p%d\nspec:\n  containers:\n  - name: c\n    image: busybox\n    resources:\n      limits:\n        alpha.kubernetes.io/nvidia-gpu: 1\n", i }' \
	>"$dir/input"
cases "$TESTS_DIR/hostile/cli-changes.tsv" >"$dir/changes.cases"
while IFS="$tab" read -r name command change <&3; do
	setup changes
	# what the change makes of the file: what judge compares it with
	(f="$dir/changes.orig"; eval "$change") </dev/null
	_t0=$(now_ms)
	# shellcheck disable=SC2086
	(cd "$case_dir" && exec "$G" $command in.yaml) >"$dir/out" 2>"$dir/err" </dev/null &
	pid=$!
	# the change comes once the file is mapped
	i=0
	while ! grep -q 'in\.yaml' "/proc/$pid/maps" 2>/dev/null &&
	      webhook_running "$pid" && [ $i -lt 20000 ]; do
		i=$((i + 1))
	done
	(f="$case_dir/in.yaml"; eval "$change") </dev/null
	wait "$pid"
	rc=$?
	elapsed_ms=$(($(now_ms) - _t0))
	# nothing written from the file: migrate prints nothing, lint only
	# the error that it changed
	if [ "$command" = lint ]; then
		grep -q 'legacy-gpu-resource' "$dir/out" && rc="$rc, with findings from it"
	else
		[ -s "$dir/out" ] && rc="$rc, with output"
	fi
	judge "$name" 2 "error: 'in\.yaml' changed while it was read" 60000 in.yaml
done 3<"$dir/changes.cases"

# ------------------------------------------------------------------
# Directories: unreadable files, symbolic link loops, odd entries
#
# As root, permissions do not stop reads: the unreadable cases run as
# nobody (65534) through setpriv or runuser.

as_user=""
if [ "$(id -u)" != 0 ]; then
	as_user=" "
elif command -v setpriv >/dev/null 2>&1; then
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups --"
elif command -v runuser >/dev/null 2>&1; then
	as_user="runuser -u nobody --"
fi

case_dir="$dir/tree"
mkdir -p "$case_dir/sub" "$case_dir/closed"
legacy_pod a >"$case_dir/a.yaml"
legacy_pod b >"$case_dir/sub/b.yaml"
legacy_pod c >"$case_dir/c.yaml"
legacy_pod d >"$case_dir/closed/d.yaml"
ln -s loop2.yaml "$case_dir/loop1.yaml"
ln -s loop1.yaml "$case_dir/loop2.yaml"
ln -s self.yaml "$case_dir/self.yaml"
ln -s missing.yaml "$case_dir/dangling.yaml"
ln -s .. "$case_dir/sub/up"
ln -s . "$case_dir/sub/here"
mkfifo "$case_dir/fifo.yaml" 2>/dev/null
cp -R "$case_dir" "$dir/tree.orig"

if [ -z "$as_user" ]; then
	skip "a tree with unreadable files and directories, link loops" \
		"root, and neither setpriv nor runuser to drop it"
else
	chmod 000 "$case_dir/c.yaml" "$case_dir/closed"
	chmod 777 "$case_dir" "$case_dir/sub"
	chmod 644 "$case_dir/a.yaml" "$case_dir/sub/b.yaml"
	# theirs: -i keeps a file's owner, and only root may give it away
	chown 65534:65534 "$case_dir/a.yaml" "$case_dir/sub/b.yaml" 2>/dev/null || :
	chmod 711 "$_scratch_root" "$dir"
	# sanitizer logs where that user can write them
	if [ -n "${GPUMEND_SANITIZE:-}" ]; then
		mkdir -p "$dir/san"
		chmod 777 "$dir/san"
	fi
	run_as() {
		if [ -n "${GPUMEND_SANITIZE:-}" ]; then
			run env ASAN_OPTIONS="log_path=$dir/san/asan:detect_leaks=1" \
				UBSAN_OPTIONS="log_path=$dir/san/ubsan:print_stacktrace=1" \
				$as_user "$@"
		else
			# shellcheck disable=SC2086
			run $as_user "$@"
		fi
	}
	run_as "$G" lint .
	judge "lint of a tree with an unreadable file and directory, link loops (as $(id -un 65534 2>/dev/null || echo 65534))" \
		2 "cannot open '(\./)?c\.yaml'" 10000
	grep -q "loop1.yaml" "$dir/err" && grep -q "self.yaml" "$dir/err" &&
		grep -q "closed" "$dir/err" && grep -q "dangling.yaml" "$dir/err" &&
		pass "lint: each unreadable entry named (loops, the closed directory, the dangling link)" ||
		{ fail "lint: not every unreadable entry named"; sed 's/^/    /' "$dir/err"; }
	grep -q "a.yaml:.*legacy-gpu-resource" "$dir/out" && grep -q "b.yaml:.*legacy-gpu-resource" "$dir/out" &&
		pass "lint: the readable files are still linted" ||
		fail "lint: the readable files are not all linted"
	[ "$(grep -c 'b.yaml:' "$dir/out")" = 1 ] &&
		pass "lint: the file reached again through sub/up and sub/here is read once" ||
		fail "lint: sub/b.yaml reported $(grep -c 'b.yaml:' "$dir/out") times"
	run_as "$G" migrate -i .
	judge "migrate -i of that tree" 2 "cannot open '(\./)?c\.yaml'" 10000
	grep -q 'nvidia.com/gpu' "$case_dir/a.yaml" && grep -q 'nvidia.com/gpu' "$case_dir/sub/b.yaml" &&
		pass "migrate -i: the readable files are migrated" ||
		fail "migrate -i: the readable files are not migrated"
	chmod 644 "$case_dir/c.yaml"
	chmod 755 "$case_dir/closed"
	cmp -s "$case_dir/c.yaml" "$dir/tree.orig/c.yaml" && cmp -s "$case_dir/closed/d.yaml" "$dir/tree.orig/closed/d.yaml" &&
		pass "migrate -i: the unreadable file and directory untouched" ||
		fail "migrate -i: an unreadable file was changed"
	left=$(find "$case_dir" -name '.*' ! -name '.' | head -n 3)
	[ -z "$left" ] && pass "migrate -i: no temporary file left in the tree" ||
		fail "migrate -i: temporary files left: $left"
	if [ -n "${GPUMEND_SANITIZE:-}" ] && [ -n "$(ls "$dir/san")" ]; then
		fail "sanitizer reports from the runs as nobody:"
		cat "$dir/san"/*
	fi
fi
# the loops alone, as whoever runs the suite
run "$G" lint loop1.yaml self.yaml dangling.yaml
judge "lint of symbolic link loops and a dangling link, named on the command line" 2 \
	"loop1\.yaml.*(symbolic links|loop)" 5000
# links to the directory itself and to its parent, nothing else odd
mkdir -p "$dir/cycle/sub"
legacy_pod a >"$dir/cycle/a.yaml"
legacy_pod b >"$dir/cycle/sub/b.yaml"
ln -s .. "$dir/cycle/sub/up"
ln -s . "$dir/cycle/sub/here"
case_dir="$dir/cycle"
run "$G" migrate --check .
judge "a tree that links to itself and to its parent: walked once" 1 "would migrate" 5000
[ "$(grep -c "would migrate" "$dir/err")" = 2 ] &&
	pass "a tree that links to itself and to its parent: each file once" ||
	fail "a tree that links to itself and to its parent: $(grep -c "would migrate" "$dir/err") files for 2"

# ------------------------------------------------------------------
# Entries that are gone when they are looked at (listed, then removed
# before their stat: an editor's swap or backup file). Dangling symbolic
# links give the same ENOENT every time. One that would never be read is
# no error; one that would be is.

legacy_pod >"$dir/input"
setup vanished_other
ln -s gone "$case_dir/in.yaml~"
ln -s gone "$case_dir/4913"
ln -s gone "$case_dir/in.yaml.swp"
run "$G" lint .
judge "lint DIR: entries gone before their stat, of names never read, are no error" 1 - 2000
grep -q "cannot stat" "$dir/err" &&
	fail "lint DIR: an entry never read was reported: $(grep "cannot stat" "$dir/err" | head -n 1)"
setup vanished_manifest
ln -s gone "$case_dir/gone.yaml"
run "$G" lint .
judge "lint DIR: a manifest gone before its stat is an error" 2 "cannot stat '\./gone\.yaml'" 2000

# ------------------------------------------------------------------
# Read-only files and a full disk under -i

legacy_pod >"$dir/input"
setup readonly
chmod 444 "$case_dir/in.yaml"
run "$G" migrate -i in.yaml
judge "migrate -i of a read-only file (mode 444)" 2 "read-only" 2000 in.yaml
if [ -n "$as_user" ] && [ "$(id -u)" = 0 ]; then
	legacy_pod >"$dir/input"
	setup not_writable
	chmod 755 "$case_dir"
	chmod 644 "$case_dir/in.yaml"
	run_as "$G" migrate -i in.yaml
	judge "migrate -i of a file the user cannot write, in a directory it cannot write" 2 \
		"in\.yaml" 2000 in.yaml
fi

# past the file size limit (ulimit -f: 100 blocks, at most 100 KiB) in the
# middle of -i: the write fails (EFBIG) rather than SIGXFSZ killing the
# process, which would leave its temporary file behind
awk 'BEGIN { for (i = 1; i <= 2000; i++)
	printf "---\nkind: Pod\nmetadata:\n  name: p%d\nspec:\n  containers:\n  - name: c\n    resources:\n      limits:\n        alpha.kubernetes.io/nvidia-gpu: 1\n", i }' \
	>"$dir/input"
setup file_size_limit
run sh -c 'ulimit -f 100 && exec "$@"' sh "$G" migrate -i in.yaml
judge "migrate -i past the file size limit (ulimit -f)" 2 \
	"cannot write 'in\.yaml': File too large" 5000 in.yaml

# -i keeps the file's identity: its owner and group (as root), its links
# (refused: a new file would part it from them)
legacy_pod >"$dir/input"
if [ "$(id -u)" = 0 ]; then
	setup owner
	chown 65534:65534 "$case_dir/in.yaml"
	chmod 640 "$case_dir/in.yaml"
	run "$G" migrate -i in.yaml
	owner=$(stat -c '%u:%g %a' "$case_dir/in.yaml")
	if [ "$rc" = 0 ] && [ "$owner" = "65534:65534 640" ] &&
	   grep -q 'nvidia.com/gpu' "$case_dir/in.yaml"; then
		pass "migrate -i as root of a file of another user: migrated, owner, group and mode kept ($owner)"
	else
		fail "migrate -i as root of a file of another user: exit $rc, now $owner (wanted 65534:65534 640)"
	fi
else
	skip "migrate -i as root of a file of another user" "not root"
fi
if [ -n "$as_user" ] && [ "$(id -u)" = 0 ]; then
	# root's file in a directory another user may write: that user could
	# rename a new file over it, but not give it back to root
	setup not_owner
	chmod 777 "$case_dir"
	chmod 666 "$case_dir/in.yaml"
	run_as "$G" migrate -i in.yaml
	judge "migrate -i by another user of root's file, in a directory it may write: refused, the owner cannot be kept" \
		2 "cannot keep the owner and group of 'in\.yaml'" 2000 in.yaml
	[ "$(stat -c %u "$case_dir/in.yaml")" = 0 ] ||
		fail "migrate -i by another user: the file is no longer root's"
fi
setup hard_link
ln "$case_dir/in.yaml" "$case_dir/link.yaml"
run "$G" migrate -i in.yaml
if [ "$rc" = 2 ] && grep -q "'in.yaml' has 2 hard links" "$dir/err" &&
   [ "$(stat -c %i "$case_dir/in.yaml")" = "$(stat -c %i "$case_dir/link.yaml")" ] &&
   cmp -s "$case_dir/in.yaml" "$dir/hard_link.orig" &&
   [ "$(ls -A "$case_dir" | tr '\n' ' ')" = "in.yaml link.yaml " ]; then
	pass "migrate -i of a file with two hard links: refused, saying why, both links as they were"
else
	fail "migrate -i of a file with two hard links: exit $rc; $(head -n 1 "$dir/err")"
fi

# a signal in the middle of -i: the temporary file goes too (a file of
# 180,000 pods, about 30 MB, is written out as it is migrated: the
# signal comes once the temporary file is there)
awk 'BEGIN { for (i = 1; i <= 180000; i++)
	printf "---\nkind: Pod\nmetadata:\n  name: p%d\nspec:\n  containers:\n  - name: c\n    image: busybox\n    resources:\n      limits:\n        alpha.kubernetes.io/nvidia-gpu: 1\n", i }' \
	>"$dir/input"
for sig in TERM:143 INT:130 HUP:129; do
	setup "signal_${sig%:*}"
	# (a job in the background starts with SIGINT ignored: reset)
	(cd "$case_dir" && exec env --default-signal=INT,HUP,TERM "$G" migrate -i in.yaml) \
		>"$dir/out" 2>"$dir/err" </dev/null &
	pid=$!
	i=0
	while [ -z "$(ls "$case_dir" | grep gpumend-)" ] && webhook_running "$pid" &&
	      [ $i -lt 100000 ]; do
		i=$((i + 1))
	done
	seen=$(ls "$case_dir" | grep -c gpumend-)
	kill -"${sig%:*}" "$pid"
	wait "$pid"
	rc=$?
	if [ "$seen" = 1 ] && [ "$rc" = "${sig#*:}" ] &&
	   cmp -s "$case_dir/in.yaml" "$dir/signal_${sig%:*}.orig" &&
	   [ "$(ls -A "$case_dir")" = in.yaml ]; then
		pass "SIG${sig%:*} during migrate -i: exit $rc, the file as it was, the temporary file removed"
	else
		fail "SIG${sig%:*} during migrate -i: temporary file seen: $seen, exit $rc (wanted ${sig#*:}), left: $(ls -A "$case_dir" | tr '\n' ' ')"
	fi
done

# a small tmpfs in a private mount namespace: the mount cannot outlive us
full_disk=""
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 &&
   unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$dir' 2>/dev/null" 2>/dev/null; then
	full_disk=1
fi
if [ -z "$full_disk" ]; then
	skip "a full disk during -i" "needs root, 'unshare -m' and 'mount -t tmpfs'"
else
	{
		legacy_pod
		printf '  annotations:\n'
		i=0
		while [ $i -lt 1400 ]; do
			printf '    note-%d: "%s"\n' $i xxxxxxxxxxxxxxxxxxxx
			i=$((i + 1))
		done
	} >"$dir/full.yaml"
	legacy_pod small >"$dir/small.yaml"
	# disk: 64 KiB; full.yaml ~45 KiB: its temporary copy cannot fit
	cat >"$dir/full.sh" <<EOF
mount -t tmpfs -o size=64k tmpfs "$dir/mnt" || exit 98
cp "$dir/small.yaml" "$dir/full.yaml" "$dir/mnt/" || exit 98
cd "$dir/mnt" || exit 98
"$G" migrate -i small.yaml full.yaml 2>"$dir/full.err"
echo \$? >"$dir/full.rc"
cp small.yaml "$dir/small.after"
cp full.yaml "$dir/full.after"
ls -A >"$dir/full.ls"
EOF
	mkdir -p "$dir/mnt"
	case_dir=$dir
	run unshare -m sh "$dir/full.sh"
	rc=$(cat "$dir/full.rc" 2>/dev/null)
	cp "$dir/full.err" "$dir/err" 2>/dev/null
	if [ "$rc" = 2 ] && grep -q "No space left on device" "$dir/err"; then
		pass "full disk during -i: exit 2, saying so: $(head -n 1 "$dir/err")"
	else
		fail "full disk during -i: exit ${rc:-?}"
		sed 's/^/    /' "$dir/err" 2>/dev/null
	fi
	cmp -s "$dir/full.after" "$dir/full.yaml" &&
		pass "full disk during -i: the file that did not fit is byte for byte as it was" ||
		fail "full disk during -i: the file that did not fit changed"
	grep -q 'nvidia.com/gpu' "$dir/small.after" &&
		pass "full disk during -i: the file that fitted is migrated" ||
		fail "full disk during -i: the file that fitted is not migrated"
	[ "$(tr '\n' ' ' <"$dir/full.ls")" = "full.yaml small.yaml " ] &&
		pass "full disk during -i: no temporary file left" ||
		fail "full disk during -i: left on the disk: $(tr '\n' ' ' <"$dir/full.ls")"
fi

finish hostile_cli
