# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# tests/complexity/expand.awk - writes a complexity body: every part
# between "@@{" and "@@}" of the template (one line) repeated n times
# (-v n=N), with @i@ the repetition's number (0 up) and @r@ the same
# numbers the other way (n-1 down).
{
	line = $0
	out = ""
	while ((start = index(line, "@@{")) > 0) {
		out = out substr(line, 1, start - 1)
		line = substr(line, start + 3)
		stop = index(line, "@@}")
		unit = substr(line, 1, stop - 1)
		line = substr(line, stop + 3)
		for (i = 0; i < n; i++) {
			part = unit
			gsub(/@i@/, i, part)
			gsub(/@r@/, n - 1 - i, part)
			out = out part
		}
	}
	print out line
}
