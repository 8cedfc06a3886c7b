/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_diff.c - unified diffs: hunks compared with what `diff -u` (GNU
 * diffutils 3.8) prints for the same two files, and random texts checked to
 * give a diff that applies and is as short as can be.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diff.h"
#include "harness.h"

struct diff_case {
	const char *name;
	const char *old_text;
	const char *new_text;
	const char *hunks;      /* `diff -u old new` without its two headers */
};

static const struct diff_case diff_cases[] = {
	{ "middle",
	  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
	  "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n",
	  "@@ -2,7 +2,7 @@\n"
		" 2\n"
		" 3\n"
		" 4\n"
		"-5\n"
		"+five\n"
		" 6\n"
		" 7\n"
		" 8\n" },
	{ "insert_start_delete_end",
	  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
	  "new\n1\n2\n3\n4\n5\n6\n7\n8\n9\n",
	  "@@ -1,3 +1,4 @@\n"
		"+new\n"
		" 1\n"
		" 2\n"
		" 3\n"
		"@@ -7,4 +8,3 @@\n"
		" 7\n"
		" 8\n"
		" 9\n"
		"-10\n" },
	{ "two_hunks",
	  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n"
		"17\n18\n19\n20\n",
	  "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n"
		"16\n18\n19\n20\n",
	  "@@ -1,6 +1,6 @@\n"
		" 1\n"
		" 2\n"
		"-3\n"
		"+three\n"
		" 4\n"
		" 5\n"
		" 6\n"
		"@@ -14,7 +14,6 @@\n"
		" 14\n"
		" 15\n"
		" 16\n"
		"-17\n"
		" 18\n"
		" 19\n"
		" 20\n" },
	{ "gap_six",
	  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n"
		"17\n18\n19\n20\n",
	  "1\n2\n3\nfour\n5\n6\n7\n8\n9\n10\neleven\n12\n13\n14\n"
		"15\n16\n17\n18\n19\n20\n",
	  "@@ -1,14 +1,14 @@\n"
		" 1\n"
		" 2\n"
		" 3\n"
		"-4\n"
		"+four\n"
		" 5\n"
		" 6\n"
		" 7\n"
		" 8\n"
		" 9\n"
		" 10\n"
		"-11\n"
		"+eleven\n"
		" 12\n"
		" 13\n"
		" 14\n" },
	{ "gap_seven",
	  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n"
		"17\n18\n19\n20\n",
	  "1\n2\n3\nfour\n5\n6\n7\n8\n9\n10\n11\ntwelve\n13\n14\n"
		"15\n16\n17\n18\n19\n20\n",
	  "@@ -1,7 +1,7 @@\n"
		" 1\n"
		" 2\n"
		" 3\n"
		"-4\n"
		"+four\n"
		" 5\n"
		" 6\n"
		" 7\n"
		"@@ -9,7 +9,7 @@\n"
		" 9\n"
		" 10\n"
		" 11\n"
		"-12\n"
		"+twelve\n"
		" 13\n"
		" 14\n"
		" 15\n" },
	{ "from_empty",
	  "",
	  "a\nb\nc\n",
	  "@@ -0,0 +1,3 @@\n"
		"+a\n"
		"+b\n"
		"+c\n" },
	{ "to_empty",
	  "a\nb\nc\n",
	  "",
	  "@@ -1,3 +0,0 @@\n"
		"-a\n"
		"-b\n"
		"-c\n" },
	{ "add_final_newline",
	  "a\nb\nc",
	  "a\nb\nc\n",
	  "@@ -1,3 +1,3 @@\n"
		" a\n"
		" b\n"
		"-c\n"
		"\\ No newline at end of file\n"
		"+c\n" },
	{ "drop_final_newline",
	  "a\nb\nc\n",
	  "a\nb\nc",
	  "@@ -1,3 +1,3 @@\n"
		" a\n"
		" b\n"
		"-c\n"
		"+c\n"
		"\\ No newline at end of file\n" },
	{ "change_last_no_newline",
	  "a\nb\nc",
	  "a\nb\nd",
	  "@@ -1,3 +1,3 @@\n"
		" a\n"
		" b\n"
		"-c\n"
		"\\ No newline at end of file\n"
		"+d\n"
		"\\ No newline at end of file\n" },
	{ "context_no_newline",
	  "a\nb\nc\nd",
	  "a\nB\nc\nd",
	  "@@ -1,4 +1,4 @@\n"
		" a\n"
		"-b\n"
		"+B\n"
		" c\n"
		" d\n"
		"\\ No newline at end of file\n" },
	{ "crlf_change",
	  "apiVersion: v1\r\nkind: Pod\r\nmetadata:\r\n"
		"  name: x\r\n",
	  "apiVersion: v1\r\nkind: Pod\r\nmetadata:\r\n"
		"  name: y\r\n",
	  "@@ -1,4 +1,4 @@\n"
		" apiVersion: v1\r\n"
		" kind: Pod\r\n"
		" metadata:\r\n"
		"-  name: x\r\n"
		"+  name: y\r\n" },
	{ "crlf_to_lf",
	  "a\r\nb\r\nc\r\n",
	  "a\r\nb\nc\r\n",
	  "@@ -1,3 +1,3 @@\n"
		" a\r\n"
		"-b\r\n"
		"+b\n"
		" c\r\n" },
	{ "repeated_delete",
	  "x\ny\ny\ny\nz\n",
	  "x\ny\ny\nz\n",
	  "@@ -1,5 +1,4 @@\n"
		" x\n"
		" y\n"
		" y\n"
		"-y\n"
		" z\n" },
	{ "repeated_insert",
	  "a\nb\na\nb\n",
	  "a\nb\na\nb\na\nb\n",
	  "@@ -2,3 +2,5 @@\n"
		" b\n"
		" a\n"
		" b\n"
		"+a\n"
		"+b\n" },
	{ "yaml_three_renames",
	  "spec:\n  containers:\n  - name: c0\n"
		"    image: nvidia/cuda:9.0\n    resources:\n"
		"      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: 1\n"
		"  - name: c1\n    image: nvidia/cuda:9.0\n"
		"    resources:\n      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: 1\n"
		"  - name: c2\n    image: nvidia/cuda:9.0\n"
		"    resources:\n      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: 1\n",
	  "spec:\n  containers:\n  - name: c0\n"
		"    image: nvidia/cuda:9.0\n    resources:\n"
		"      limits:\n        nvidia.com/gpu: 1\n  - name: c1\n"
		"    image: nvidia/cuda:9.0\n    resources:\n"
		"      limits:\n        nvidia.com/gpu: 1\n  - name: c2\n"
		"    image: nvidia/cuda:9.0\n    resources:\n"
		"      limits:\n        nvidia.com/gpu: 1\n",
	  "@@ -4,14 +4,14 @@\n"
		"     image: nvidia/cuda:9.0\n"
		"     resources:\n"
		"       limits:\n"
		"-        alpha.kubernetes.io/nvidia-gpu: 1\n"
		"+        nvidia.com/gpu: 1\n"
		"   - name: c1\n"
		"     image: nvidia/cuda:9.0\n"
		"     resources:\n"
		"       limits:\n"
		"-        alpha.kubernetes.io/nvidia-gpu: 1\n"
		"+        nvidia.com/gpu: 1\n"
		"   - name: c2\n"
		"     image: nvidia/cuda:9.0\n"
		"     resources:\n"
		"       limits:\n"
		"-        alpha.kubernetes.io/nvidia-gpu: 1\n"
		"+        nvidia.com/gpu: 1\n" },
	{ "yaml_block_insert",
	  "spec:\n  containers:\n  - name: c0\n"
		"    image: nvidia/cuda:9.0\n    resources:\n"
		"      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: 1\n"
		"  - name: c1\n    image: nvidia/cuda:9.0\n"
		"    resources:\n      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: 1\n"
		"  - name: c2\n    image: nvidia/cuda:9.0\n"
		"    resources:\n      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: 1\n",
	  "spec:\n  containers:\n  - name: c0\n"
		"    image: nvidia/cuda:9.0\n    resources:\n"
		"      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: 1\n"
		"  - name: c7\n    image: nvidia/cuda:9.0\n"
		"    resources:\n      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: 1\n"
		"  - name: c1\n    image: nvidia/cuda:9.0\n"
		"    resources:\n      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: 1\n"
		"  - name: c2\n    image: nvidia/cuda:9.0\n"
		"    resources:\n      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: 1\n",
	  "@@ -5,6 +5,11 @@\n"
		"     resources:\n"
		"       limits:\n"
		"         alpha.kubernetes.io/nvidia-gpu: 1\n"
		"+  - name: c7\n"
		"+    image: nvidia/cuda:9.0\n"
		"+    resources:\n"
		"+      limits:\n"
		"+        alpha.kubernetes.io/nvidia-gpu: 1\n"
		"   - name: c1\n"
		"     image: nvidia/cuda:9.0\n"
		"     resources:\n" },
	{ "swap",
	  "a\nb\nc\nd\n",
	  "b\na\nc\nd\n",
	  "@@ -1,4 +1,4 @@\n"
		"-a\n"
		" b\n"
		"+a\n"
		" c\n"
		" d\n" },

};

TEST(diff_unified_matches_diff_u)
{
	for (size_t i = 0; i < sizeof(diff_cases) / sizeof(diff_cases[0]); i++) {
		const struct diff_case *c = &diff_cases[i];
		struct buf out, want;

		buf_init(&out, 0);
		buf_init(&want, 0);
		CHECK(buf_printf(&want, "--- old\n+++ new\n%s", c->hunks) == 0);
		CHECK(diff_unified(&out, "old", "new", c->old_text,
				   strlen(c->old_text), c->new_text,
				   strlen(c->new_text)) == 0);
		if (!out.data || strcmp(out.data, want.data) != 0) {
			fprintf(stderr, "  case %s:\n%s", c->name,
				out.data ? out.data : "(nothing)\n");
			(*failures)++;
		}
		buf_free(&out);
		buf_free(&want);
	}
}

TEST(diff_unified_equal_texts_append_nothing)
{
	const char *text = "kind: Pod\r\nmetadata:\r\n  name: x";
	struct buf out;

	buf_init(&out, 0);
	CHECK(buf_puts(&out, "before\n") == 0);
	CHECK(diff_unified(&out, "a", "b", text, strlen(text), text,
			   strlen(text)) == 0);
	CHECK_STR(out.data, "before\n");
	CHECK(diff_unified(&out, "a", "b", NULL, 0, NULL, 0) == 0);
	CHECK_STR(out.data, "before\n");
	buf_free(&out);
}

TEST(diff_unified_cap_leaves_buffer_alone)
{
	struct buf out;

	buf_init(&out, 20);
	CHECK(buf_puts(&out, "kept") == 0);
	CHECK(diff_unified(&out, "old", "new", "a\nb\n", 4, "a\nc\n", 4) ==
	      -1);
	CHECK(out.len == 4);
	CHECK_STR(out.data, "kept");
	buf_free(&out);
}

/* Two lines of a text of 200000 numbered lines: small diff, large input. */
TEST(diff_unified_large_text_small_change)
{
	struct buf a, b, out;

	buf_init(&a, 0);
	buf_init(&b, 0);
	buf_init(&out, 0);
	for (int i = 1; i <= 200000; i++) {
		CHECK(buf_printf(&a, "%d\n", i) == 0);
		if (i == 100000)
			CHECK(buf_puts(&b, "x\n") == 0);
		else if (i != 150000)
			CHECK(buf_printf(&b, "%d\n", i) == 0);
	}
	CHECK(diff_unified(&out, "a", "b", a.data, a.len, b.data, b.len) == 0);
	CHECK_STR(out.data,
		"--- a\n"
		"+++ b\n"
		"@@ -99997,7 +99997,7 @@\n"
		" 99997\n"
		" 99998\n"
		" 99999\n"
		"-100000\n"
		"+x\n"
		" 100001\n"
		" 100002\n"
		" 100003\n"
		"@@ -149997,7 +149997,6 @@\n"
		" 149997\n"
		" 149998\n"
		" 149999\n"
		"-150000\n"
		" 150001\n"
		" 150002\n"
		" 150003\n");
	buf_free(&a);
	buf_free(&b);
	buf_free(&out);
}

/* Two unrelated texts of many short repeated lines: the cost bound. */
TEST(diff_unified_unrelated_texts)
{
	struct buf a, b, out;
	uint32_t seed = 12345;
	size_t minus = 0, plus = 0;

	buf_init(&a, 0);
	buf_init(&b, 0);
	buf_init(&out, 0);
	for (int i = 0; i < 20000; i++) {
		seed = seed * 1103515245u + 12345u;
		CHECK(buf_printf(&a, "%c\n", 'a' + (int)(seed >> 16) % 3) == 0);
		seed = seed * 1103515245u + 12345u;
		CHECK(buf_printf(&b, "%c\n", 'a' + (int)(seed >> 16) % 3) == 0);
	}
	CHECK(diff_unified(&out, "a", "b", a.data, a.len, b.data, b.len) == 0);
	for (const char *p = out.data; p && *p; p = strchr(p, '\n') + 1) {
		minus += *p == '-';
		plus += *p == '+';
	}
	/* Headers aside, as many lines go as come, and not all of them. */
	CHECK(minus == plus);
	CHECK(minus > 1 && minus < 20000);
	buf_free(&a);
	buf_free(&b);
	buf_free(&out);
}

/* ------------------------------------------------------------------ */
/* Random texts                                                        */

struct text_lines {
	const char *line[64];
	size_t len[64];
	size_t n;
};

static void lines_split(struct text_lines *t, const char *text, size_t len)
{
	const char *end = text + len, *nl;

	t->n = 0;
	while (text < end) {
		nl = memchr(text, '\n', (size_t)(end - text));
		t->line[t->n] = text;
		t->len[t->n] = nl ? (size_t)(nl + 1 - text) : (size_t)(end - text);
		text += t->len[t->n++];
	}
}

/* The length of the longest common subsequence of lines. */
static size_t lines_lcs(const struct text_lines *a, const struct text_lines *b)
{
	static size_t table[65][65];

	for (size_t i = 0; i <= a->n; i++) {
		for (size_t j = 0; j <= b->n; j++) {
			if (!i || !j)
				table[i][j] = 0;
			else if (a->len[i - 1] == b->len[j - 1] &&
				 !memcmp(a->line[i - 1], b->line[j - 1],
					 a->len[i - 1]))
				table[i][j] = table[i - 1][j - 1] + 1;
			else if (table[i - 1][j] > table[i][j - 1])
				table[i][j] = table[i - 1][j];
			else
				table[i][j] = table[i][j - 1];
		}
	}
	return table[a->n][b->n];
}

/*
 * Applies `diff` (as diff_unified writes it) to the lines of `a` into
 * `out`, checking every context and removed line and every hunk's counts.
 * Returns the number of lines removed and added, or -1 when it does not
 * apply.
 */
static long diff_apply(const struct text_lines *a, const char *diff,
		       struct buf *out)
{
	size_t at = 0, start, old_left = 0, new_left = 0, len;
	unsigned long s1, c1, s2, c2;
	const char *p = diff, *nl;
	long edits = 0;
	char mark;

	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			return -1;
		if (!strncmp(p, "--- ", 4) || !strncmp(p, "+++ ", 4))
			continue;
		if (!strncmp(p, "@@ ", 3)) {
			if (old_left || new_left)
				return -1;
			c1 = c2 = 1;
			if (sscanf(p, "@@ -%lu,%lu +", &s1, &c1) != 2)
				sscanf(p, "@@ -%lu +", &s1);
			if (sscanf(strchr(p, '+'), "+%lu,%lu", &s2, &c2) != 2)
				sscanf(strchr(p, '+'), "+%lu", &s2);
			start = c1 ? s1 - 1 : s1;
			if (start < at || start > a->n)
				return -1;
			for (; at < start; at++)
				buf_append(out, a->line[at], a->len[at]);
			old_left = c1;
			new_left = c2;
			continue;
		}
		mark = *p++;
		len = (size_t)(nl + 1 - p);
		/* The line before "\ No newline" lost its '\n' to the diff. */
		if (nl[1] == '\\')
			len--;
		if (mark == ' ' || mark == '-') {
			if (at >= a->n || a->len[at] != len ||
			    memcmp(a->line[at], p, len) || !old_left--)
				return -1;
			at++;
		}
		if (mark == ' ' || mark == '+') {
			if (!new_left--)
				return -1;
			buf_append(out, p, len);
		}
		if (mark == '-' || mark == '+')
			edits++;
		if (nl[1] == '\\')
			nl = strchr(nl + 1, '\n');
	}
	for (; at < a->n; at++)
		buf_append(out, a->line[at], a->len[at]);
	return old_left || new_left ? -1 : edits;
}

static void random_text(struct buf *text, uint32_t *seed)
{
	static const char *const words[] = { "a\n", "b\n", "c\n", "d\n",
					     "a\r\n", "  - name: x\n" };
	size_t n;

	*seed = *seed * 1103515245u + 12345u;
	n = (*seed >> 16) % 40;
	for (size_t i = 0; i < n; i++) {
		*seed = *seed * 1103515245u + 12345u;
		buf_puts(text, words[(*seed >> 16) % 6]);
	}
	*seed = *seed * 1103515245u + 12345u;
	if (text->len && (*seed >> 16) % 4 == 0)
		text->data[--text->len] = '\0';
}

TEST(diff_unified_random_texts_apply_and_are_minimal)
{
	uint32_t seed = 42;

	for (int round = 0; round < 2000; round++) {
		struct buf a, b, diff, result;
		struct text_lines la, lb;
		long edits;

		buf_init(&a, 0);
		buf_init(&b, 0);
		buf_init(&diff, 0);
		buf_init(&result, 0);
		random_text(&a, &seed);
		random_text(&b, &seed);
		lines_split(&la, a.data ? a.data : "", a.len);
		lines_split(&lb, b.data ? b.data : "", b.len);
		CHECK(diff_unified(&diff, "a", "b", a.data, a.len, b.data,
				   b.len) == 0);
		edits = diff_apply(&la, diff.data ? diff.data : "", &result);
		CHECK(edits >= 0);
		CHECK(result.len == b.len &&
		      (!b.len || !memcmp(result.data, b.data, b.len)));
		CHECK((size_t)edits ==
		      la.n + lb.n - 2 * lines_lcs(&la, &lb));
		buf_free(&a);
		buf_free(&b);
		buf_free(&diff);
		buf_free(&result);
	}
}
