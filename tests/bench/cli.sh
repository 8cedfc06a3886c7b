#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/bench/cli.sh BUILD OUT - the CLI half of `make bench`.
# gpumend migrate and lint over a generated corpus of realistic manifests,
# against the floor: a libyaml pass over the same bytes that only pulls
# events. Each timing is the best of RUNS runs. Then peak memory over a
# 1 GB stream of the same documents, and the instructions both execute
# on a 3 MB corpus (valgrind --tool=callgrind; BENCH_CLI_COUNT_MB), which
# do not move from run to run as wall times do.
set -eu
BUILD=$(cd "$1" && pwd)
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
SIZE_MB=${BENCH_CORPUS_MB:-200}
STREAM_COPIES=${BENCH_STREAM_COPIES:-5}
RUNS=${BENCH_RUNS:-3}
work=${BENCH_DIR:-${TMPDIR:-/tmp}/gpumend-bench}
mkdir -p "$work"

cc -O2 -o "$work/gen_corpus" "$HERE/gen_corpus.c"
cc -O2 -o "$work/measure" "$HERE/measure.c"
cc -O2 -o "$work/yaml_floor" "$HERE/yaml_floor.c" $(pkg-config --cflags --libs yaml-0.1)

corpus="$work/corpus-$SIZE_MB.yaml"
[ -s "$corpus" ] || "$work/gen_corpus" "$SIZE_MB" >"$corpus"
bytes=$(stat -c %s "$corpus")
docs=$(grep -c '^---$' "$corpus")
legacy=$("$BUILD/gpumend" migrate --json-patch "$corpus" | grep -vc '^\[\]$' || true)

# best SECONDS and its MAXRSS over $RUNS runs: "SECONDS KIB"
best() {
	b=""
	i=0
	while [ $i -lt "$RUNS" ]; do
		r=$("$work/measure" "$@")
		set -- "$@"
		t=${r%% *}
		rest=${r#* }
		k=${rest%% *}
		if [ -z "$b" ] || [ "$(echo "$t < ${b%% *}" | bc)" = 1 ]; then
			b="$t $k"
		fi
		i=$((i + 1))
	done
	echo "$b"
}

command -v bc >/dev/null 2>&1 || apt-get install -y -qq bc >/dev/null
floor=$(best "$work/yaml_floor" "$corpus")
migrate=$(best "$BUILD/gpumend" migrate "$corpus")
lint=$(best "$BUILD/gpumend" lint --fail-on error "$corpus")

mbps() { echo "scale=1; $bytes / 1000000 / $1" | bc; }
ratio() { echo "scale=2; $1 / $2" | bc; }

stream="$work/stream-${SIZE_MB}x${STREAM_COPIES}.yaml"
if [ ! -s "$stream" ]; then
	: >"$stream"
	i=0
	while [ $i -lt "$STREAM_COPIES" ]; do
		cat "$corpus" >>"$stream"
		i=$((i + 1))
	done
fi
sbytes=$(stat -c %s "$stream")
big=$("$work/measure" "$BUILD/gpumend" migrate "$stream")
big_t=${big%% *}
big_rss=$(echo "$big" | cut -d' ' -f2)
big_in="$work/stream-inplace.yaml"
cp "$stream" "$big_in"
bigi=$("$work/measure" "$BUILD/gpumend" migrate -i "$big_in")
bigi_rss=$(echo "$bigi" | cut -d' ' -f2)
rm -f "$big_in"

# instructions: whole processes under callgrind, on a smaller corpus
count_mb=${BENCH_CLI_COUNT_MB:-3}
small="$work/corpus-$count_mb.yaml"
[ -s "$small" ] || "$work/gen_corpus" "$count_mb" >"$small"
if ! command -v valgrind >/dev/null 2>&1; then
	apt-get install -y -qq valgrind >/dev/null 2>&1 ||
		{ echo "cli bench: cannot install valgrind" >&2; exit 1; }
fi
# instructions CMD...: the instructions CMD executes (its output dropped)
instructions() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" \
		2>"$work/callgrind.err" >/dev/null ||
		{ echo "cli bench: $* failed under callgrind" >&2; exit 1; }
	sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$work/callgrind.err"
}
floor_ir=$(instructions "$work/yaml_floor" "$small")
migrate_ir=$(instructions "$BUILD/gpumend" migrate "$small")
ir_ratio=$(awk -v a="$floor_ir" -v b="$migrate_ir" 'BEGIN { printf "%.2f", a / b }')

ft=${floor%% *}
mt=${migrate%% *}
lt=${lint%% *}
{
	echo "### CLI: $((bytes / 1000000)) MB corpus, $docs documents ($legacy with something to migrate)"
	echo
	echo "| run | seconds | MB/s | x floor | peak RSS |"
	echo "|---|---:|---:|---:|---:|"
	echo "| floor: libyaml events only | $ft | $(mbps "$ft") | 1.00 | $((${floor#* } / 1024)) MB |"
	echo "| gpumend migrate | $mt | $(mbps "$mt") | $(ratio "$ft" "$mt") | $((${migrate#* } / 1024)) MB |"
	echo "| gpumend lint | $lt | $(mbps "$lt") | $(ratio "$ft" "$lt") | $((${lint#* } / 1024)) MB |"
	echo "| gpumend migrate, $((sbytes / 1000000)) MB stream to stdout | $big_t | $(echo "scale=1; $sbytes / 1000000 / $big_t" | bc) | | $((big_rss / 1024)) MB |"
	echo "| gpumend migrate -i, the same stream | ${bigi%% *} | | | $((bigi_rss / 1024)) MB |"
	echo
	echo "Instructions (callgrind, whole process) on a $count_mb MB corpus: floor $floor_ir, gpumend migrate $migrate_ir: ${ir_ratio}x the floor."
	echo
	echo "Targets: migrate >= 0.7x floor by instructions: $(awk -v r="$ir_ratio" 'BEGIN { print (r >= 0.7 ? "met" : "NOT met") }'); <= 64 MB RSS on the 1 GB stream."
	echo
} | tee -a "$OUT"
