#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/bench/run.sh BUILD - `make bench`: the CLI benchmark, the webhook's
# instructions per request (callgrind), its wall-clock benchmark, its
# latency during connection floods and its peak memory over large reviews.
# Prints a Markdown report and writes it to BUILD/bench.md.
set -eu
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$BUILD/bench.md"
{
	echo "## Benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
	echo
	echo "Command: \`make bench\`"
	echo
} >"$OUT"
sh "$HERE/cli.sh" "$BUILD" "$OUT"
sh "$HERE/instructions.sh" "$BUILD" "$OUT"
sh "$HERE/webhook.sh" "$BUILD" "$OUT"
sh "$HERE/floods.sh" "$BUILD" "$OUT"
sh "$HERE/memory.sh" "$BUILD" "$OUT"
echo "report written to $OUT"
