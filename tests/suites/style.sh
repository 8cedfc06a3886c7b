#!/bin/sh
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/suites/style.sh - the C style: every line of C written or changed
# since .clang-format came in is as clang-format lays it out
# (tests/tools/format-check.sh, which `make format` runs with --fix).
#
# First the checker's own known answers, in a scratch git repository
# holding .clang-format and the checker: a line already there keeps its
# layout; a new one, committed or not, tracked or not, is checked, on the
# branch and once merged (the base is the commit that added
# .clang-format, not the merge base); a block moved as it was is not a
# change; --fix lays out the new lines only; a shallow clone is refused.
# Then this repository: a check per C file with changed lines (with
# clang-format's layout of them when it differs). Outside a git checkout
# (a release tarball) the repository's check is skipped, which CI does
# not allow.
. "$(dirname "$0")/../lib.sh"

tmp=$(scratch)
checker="$TESTS_DIR/tools/format-check.sh"

if ! command -v clang-format >/dev/null 2>&1; then
	fail "clang-format is installed (make test-deps installs Debian's clang-format)"
	finish style
	exit 1
fi
check "clang-format $(clang-format --version | sed -n 's/.*version \([0-9.]*\).*/\1/p') reads .clang-format" \
	sh -c "cd '$REPO_DIR' && clang-format --style=file --dump-config >/dev/null"

# ------------------------------------------------------------------
# The checker's known answers

r="$tmp/repo"
mkdir -p "$r/tests/tools"
cp "$REPO_DIR/.clang-format" "$r/"
cp "$checker" "$r/tests/tools/"
# old.c: there before .clang-format, laid out otherwise
cat >"$r/old.c" <<'EOF'
int old_sum(int first_argument, int second_argument)
{
  return  first_argument + second_argument + 1000000;
}
EOF
git_r() {
	git -C "$r" -c user.name=test -c user.email=test@example.invalid "$@"
}
(git_r init -q && git_r add old.c tests && git_r commit -qm old &&
	git_r add .clang-format && git_r commit -qm style) >"$tmp/git.err" 2>&1 ||
	{ fail "a scratch git repository"; sed 's/^/    /' "$tmp/git.err"; }
# run NAME: the checker in the scratch repository; its output in
# $tmp/NAME.out, its exit status in $rc
run() {
	sh "$r/tests/tools/format-check.sh" "$@" >"$tmp/out" 2>&1
	rc=$?
}

run
check "checker: the lines there before .clang-format keep their layout (exit $rc)" \
	[ "$rc" = 0 ]

printf 'int new_one(void) {  return 1; }\n' >>"$r/old.c"
run
check "checker: a new line laid out otherwise, not committed: named, exit 1 (exit $rc)" \
	sh -c "[ $rc = 1 ] && grep -qx 'bad old.c 1' '$tmp/out' &&
		grep -qF '+int new_one(void)' '$tmp/out'"
git_r commit -qam new
run
check "checker: the same, committed on the branch (exit $rc)" \
	sh -c "[ $rc = 1 ] && grep -qx 'bad old.c 1' '$tmp/out'"
# merged: main is where the branch is; the merge base is HEAD
git_r branch -q -f main HEAD 2>/dev/null
git_r checkout -q main 2>/dev/null
run
check "checker: the same, once merged into main (the base is the commit that added .clang-format, not the merge base) (exit $rc)" \
	sh -c "[ $rc = 1 ] && grep -qx 'bad old.c 1' '$tmp/out' &&
		grep -qx \"base \$(git -C '$r' rev-parse HEAD~1)\" '$tmp/out'"

printf 'int loose(void) { return  2; }\n' >"$r/loose.c"
run
check "checker: a C file git does not track yet is checked whole (exit $rc)" \
	sh -c "[ $rc = 1 ] && grep -qx 'bad loose.c 1' '$tmp/out'"
rm -f "$r/loose.c"

run --fix
fixed_rc=$rc
run
check "checker: --fix lays out the new lines, and then they pass (exit $fixed_rc, then $rc)" \
	sh -c "[ $fixed_rc = 0 ] && [ $rc = 0 ] && grep -qx 'ok old.c 4' '$tmp/out' &&
		grep -qx 'int new_one(void)' '$r/old.c'"
check "checker: --fix leaves the lines there before as they were" \
	grep -qx '  return  first_argument + second_argument + 1000000;' "$r/old.c"
git_r commit -qam fixed

# old_sum moved to a file of its own, as it was
sed -n '1,4p' "$r/old.c" >"$r/moved.c"
sed -i '1,4d' "$r/old.c"
git_r add moved.c
git_r commit -qam moved
run
check "checker: a block moved to another file as it was is not a change (exit $rc)" \
	sh -c "[ $rc = 0 ] && ! grep -q moved.c '$tmp/out'"
printf 'int added(void)\n{\n\treturn 3;\n}\n' >>"$r/moved.c"
run
check "checker: new lines laid out as clang-format does pass (exit $rc)" \
	sh -c "[ $rc = 0 ] && grep -qx 'ok moved.c 4' '$tmp/out'"

git clone -q --depth 1 "file://$r" "$tmp/shallow" 2>/dev/null
sh "$tmp/shallow/tests/tools/format-check.sh" >"$tmp/out" 2>&1
rc=$?
check "checker: a shallow clone is refused, not checked against a wrong base (exit $rc)" \
	sh -c "[ $rc = 3 ] && grep -q 'shallow clone' '$tmp/out'"

# ------------------------------------------------------------------
# This repository

if ! git -C "$REPO_DIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	skip "C style of the lines changed since .clang-format" "not a git checkout (a release tarball): no history to tell changed lines by"
	finish style
	exit
fi
sh "$checker" >"$tmp/repo.out" 2>&1
rc=$?
base=$(sed -n 's/^base //p' "$tmp/repo.out")
n_files=$(grep -c '^\(ok\|bad\) ' "$tmp/repo.out")
check "C files with lines written or changed since $(git -C "$REPO_DIR" log -1 --format='%h (%s)' "$base" 2>/dev/null): $n_files, checked (exit $rc)" \
	sh -c "[ -n '$base' ] && [ $rc -le 1 ]"
[ -n "$base" ] || sed 's/^/    /' "$tmp/repo.out"
awk '
	/^(ok|bad) / { if (f) close(f); f = ""; print; next }
	/^    / { print }' "$tmp/repo.out" >"$tmp/results"
while read -r verdict file count; do
	case $verdict in
	ok) pass "$file: its $count changed lines as .clang-format lays them out" ;;
	bad)
		fail "$file: its $count changed lines are not as .clang-format lays them out (make format)"
		awk -v f="$file" '$1 ~ /^(ok|bad)$/ { on = ($2 == f); next } on' "$tmp/results" | head -n 40
		;;
	esac
done <<EOF
$(grep -E '^(ok|bad) ' "$tmp/results")
EOF

finish style
