/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * diff.c - unified diffs of two texts.
 *
 * The steps, in the manner of GNU diff so that the hunks come out the same:
 *   1. split both texts into lines and intern every line into an
 *      equivalence class by hash, so that lines compare as integers;
 *   2. set aside the common head and tail, keeping a few lines of each in
 *      play so that changes can still slide into them;
 *   3. mark the lines that occur nowhere in the other text's middle as
 *      changed outright and leave them out of the comparison;
 *   4. compare what remains with Myers' O(ND) algorithm, dividing at the
 *      middle snake so that memory stays linear (past a cost bound, dividing
 *      at the furthest point reached instead);
 *   5. slide every run of changes over equal neighbouring lines so that
 *      runs merge where they can and otherwise sit as low as they can;
 *   6. group the changes into hunks with context and print them.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

/* Lines of the common head and tail that stay in the comparison. */
#define DIFF_HORIZON DIFF_CONTEXT

/* The cost bound of the comparison is never below this. */
#define DIFF_MIN_COST_LIMIT 4096

struct diff_line {
	const char *text;
	size_t len;             /* with its line ending, if any */
};

/* One of the two texts. */
struct diff_side {
	struct diff_line *lines;
	size_t n;
	size_t *class;          /* equivalence class of each line */
	char *changed_alloc;
	char *changed;          /* n flags, with changed[-1] == changed[n] == 0 */
	size_t *cmp_class;      /* classes of the lines Myers compares */
	size_t *cmp_line;       /* index in lines[] of each compared line */
	size_t ncmp;
};

/* The hash table that interns lines into equivalence classes. */
struct diff_classes {
	size_t *slot;           /* class + 1, or 0 when free */
	size_t mask;
	const struct diff_line **rep;   /* first line seen of each class */
	uint64_t *hash;
	size_t n;
};

struct myers_range {
	long xoff, xlim, yoff, ylim;
};

struct myers {
	const size_t *a, *b;    /* classes of the compared lines */
	struct diff_side *sa, *sb;
	long *fd, *bd;          /* furthest x per diagonal, forward and back */
	long cost_limit;
	struct myers_range *stack;
	size_t depth, stack_alloc;
};

/* A run of changed lines: a[a, a + na) become b[b, b + nb). */
struct diff_change {
	size_t a, na, b, nb;
};

static uint64_t line_hash(const struct diff_line *line)
{
	uint64_t h = 14695981039346656037ULL;   /* FNV-1a */

	for (size_t i = 0; i < line->len; i++) {
		h ^= (unsigned char)line->text[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static int side_split(struct diff_side *side, const char *text, size_t len)
{
	const char *p, *end, *nl;
	size_t n = 0;

	memset(side, 0, sizeof(*side));
	if (len) {
		for (p = text, end = text + len; p < end; n++) {
			nl = memchr(p, '\n', (size_t)(end - p));
			p = nl ? nl + 1 : end;
		}
	}
	side->lines = calloc(n ? n : 1, sizeof(*side->lines));
	side->class = calloc(n ? n : 1, sizeof(*side->class));
	side->cmp_class = calloc(n ? n : 1, sizeof(*side->cmp_class));
	side->cmp_line = calloc(n ? n : 1, sizeof(*side->cmp_line));
	side->changed_alloc = calloc(n + 2, 1);
	if (!side->lines || !side->class || !side->cmp_class ||
	    !side->cmp_line || !side->changed_alloc)
		return -1;
	side->changed = side->changed_alloc + 1;
	side->n = n;
	if (!len)
		return 0;
	n = 0;
	for (p = text, end = text + len; p < end; n++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		side->lines[n].text = p;
		p = nl ? nl + 1 : end;
		side->lines[n].len = (size_t)(p - side->lines[n].text);
	}
	return 0;
}

static void side_free(struct diff_side *side)
{
	free(side->lines);
	free(side->class);
	free(side->cmp_class);
	free(side->cmp_line);
	free(side->changed_alloc);
}

static int classes_init(struct diff_classes *classes, size_t lines)
{
	size_t size = 16;

	memset(classes, 0, sizeof(*classes));
	while (size < 2 * lines) {
		if (size > SIZE_MAX / 4)
			return -1;
		size *= 2;
	}
	classes->slot = calloc(size, sizeof(*classes->slot));
	classes->rep = calloc(lines ? lines : 1, sizeof(*classes->rep));
	classes->hash = calloc(lines ? lines : 1, sizeof(*classes->hash));
	if (!classes->slot || !classes->rep || !classes->hash)
		return -1;
	classes->mask = size - 1;
	return 0;
}

static void classes_free(struct diff_classes *classes)
{
	free(classes->slot);
	free(classes->rep);
	free(classes->hash);
}

/* Gives every line of `side` the class of the equal lines seen before. */
static void classes_intern(struct diff_classes *classes, struct diff_side *side)
{
	for (size_t i = 0; i < side->n; i++) {
		const struct diff_line *line = &side->lines[i];
		uint64_t h = line_hash(line);
		size_t at = (size_t)h & classes->mask;
		size_t c;

		for (;; at = (at + 1) & classes->mask) {
			if (!classes->slot[at]) {
				c = classes->n++;
				classes->rep[c] = line;
				classes->hash[c] = h;
				classes->slot[at] = c + 1;
				break;
			}
			c = classes->slot[at] - 1;
			if (classes->hash[c] == h &&
			    classes->rep[c]->len == line->len &&
			    memcmp(classes->rep[c]->text, line->text,
				   line->len) == 0)
				break;
		}
		side->class[i] = c;
	}
}

/*
 * Lines [from, to) of `side` take part in the comparison unless their class
 * is absent from `other_has`; those are changed whatever Myers finds.
 */
static void side_select(struct diff_side *side, size_t from, size_t to,
			const char *other_has)
{
	side->ncmp = 0;
	for (size_t i = from; i < to; i++) {
		if (!other_has[side->class[i]]) {
			side->changed[i] = 1;
			continue;
		}
		side->cmp_class[side->ncmp] = side->class[i];
		side->cmp_line[side->ncmp++] = i;
	}
}

static void myers_mark(struct diff_side *side, long from, long to)
{
	for (long k = from; k < to; k++)
		side->changed[side->cmp_line[k]] = 1;
}

static int myers_push(struct myers *m, long xoff, long xlim, long yoff,
		      long ylim)
{
	if (m->depth == m->stack_alloc) {
		size_t alloc = m->stack_alloc ? 2 * m->stack_alloc : 64;
		struct myers_range *grown;

		grown = realloc(m->stack, alloc * sizeof(*grown));
		if (!grown)
			return -1;
		m->stack = grown;
		m->stack_alloc = alloc;
	}
	m->stack[m->depth++] = (struct myers_range){ xoff, xlim, yoff, ylim };
	return 0;
}

/*
 * Past the cost bound: picks, among the furthest points reached forward and
 * backward, the one that got furthest from its own corner. Returns 0 with
 * the point, or -1 when that point would not shrink the problem.
 */
static int myers_heuristic(const struct myers *m, const struct myers_range *r,
			   long fmin, long fmax, long bmin, long bmax,
			   long *xmid, long *ymid)
{
	long fbest = -1, fx = 0, fy = 0, bbest = LONG_MAX, bx = 0, by = 0;
	long d, x, y;

	for (d = fmax; d >= fmin; d -= 2) {
		x = m->fd[d] < r->xlim ? m->fd[d] : r->xlim;
		y = x - d;
		if (y > r->ylim) {
			y = r->ylim;
			x = y + d;
		}
		if (x + y > fbest) {
			fbest = x + y;
			fx = x;
			fy = y;
		}
	}
	for (d = bmax; d >= bmin; d -= 2) {
		x = m->bd[d] > r->xoff ? m->bd[d] : r->xoff;
		y = x - d;
		if (y < r->yoff) {
			y = r->yoff;
			x = y + d;
		}
		if (x + y < bbest) {
			bbest = x + y;
			bx = x;
			by = y;
		}
	}
	if (fbest - (r->xoff + r->yoff) >= (r->xlim + r->ylim) - bbest) {
		*xmid = fx;
		*ymid = fy;
	} else {
		*xmid = bx;
		*ymid = by;
	}
	if ((*xmid == r->xoff && *ymid == r->yoff) ||
	    (*xmid == r->xlim && *ymid == r->ylim))
		return -1;
	return 0;
}

/*
 * Finds where to divide a[xoff, xlim) x b[yoff, ylim), both non-empty and
 * with differing first and last lines: the end of the middle snake of a
 * shortest edit path (Myers 1986, section 4b), searching from both corners
 * at once along diagonals k = x - y.
 */
static void myers_split(struct myers *m, const struct myers_range *r,
			long *xmid, long *ymid)
{
	const size_t *a = m->a, *b = m->b;
	long *fd = m->fd, *bd = m->bd;
	long xoff = r->xoff, xlim = r->xlim, yoff = r->yoff, ylim = r->ylim;
	long dmin = xoff - ylim, dmax = xlim - yoff;
	long fmid = xoff - yoff, bmid = xlim - ylim;
	long fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
	int odd = (fmid - bmid) % 2 != 0;
	long cost, d, x, y;

	fd[fmid] = xoff;
	bd[bmid] = xlim;
	for (cost = 1;; cost++) {
		/*
		 * Widen the band of diagonals by one each side while inside
		 * the rectangle, else narrow it to keep the parity; the slot
		 * just outside the band is marked unreachable.
		 */
		if (fmin > dmin)
			fd[--fmin - 1] = -1;
		else
			fmin++;
		if (fmax < dmax)
			fd[++fmax + 1] = -1;
		else
			fmax--;
		for (d = fmax; d >= fmin; d -= 2) {
			x = fd[d - 1] >= fd[d + 1] ? fd[d - 1] + 1 : fd[d + 1];
			y = x - d;
			while (x < xlim && y < ylim && a[x] == b[y]) {
				x++;
				y++;
			}
			fd[d] = x;
			if (odd && bmin <= d && d <= bmax && bd[d] <= x) {
				*xmid = x;
				*ymid = y;
				return;
			}
		}

		if (bmin > dmin)
			bd[--bmin - 1] = LONG_MAX;
		else
			bmin++;
		if (bmax < dmax)
			bd[++bmax + 1] = LONG_MAX;
		else
			bmax--;
		for (d = bmax; d >= bmin; d -= 2) {
			x = bd[d - 1] < bd[d + 1] ? bd[d - 1] : bd[d + 1] - 1;
			y = x - d;
			while (x > xoff && y > yoff && a[x - 1] == b[y - 1]) {
				x--;
				y--;
			}
			bd[d] = x;
			if (!odd && fmin <= d && d <= fmax && x <= fd[d]) {
				*xmid = x;
				*ymid = y;
				return;
			}
		}

		if (cost >= m->cost_limit &&
		    myers_heuristic(m, r, fmin, fmax, bmin, bmax,
				    xmid, ymid) == 0)
			return;
	}
}

/* Marks the lines outside some shortest common subsequence as changed. */
static int myers_compare(struct myers *m)
{
	struct myers_range r;
	long xmid, ymid;

	if (myers_push(m, 0, (long)m->sa->ncmp, 0, (long)m->sb->ncmp) != 0)
		return -1;
	while (m->depth) {
		r = m->stack[--m->depth];
		while (r.xoff < r.xlim && r.yoff < r.ylim &&
		       m->a[r.xoff] == m->b[r.yoff]) {
			r.xoff++;
			r.yoff++;
		}
		while (r.xoff < r.xlim && r.yoff < r.ylim &&
		       m->a[r.xlim - 1] == m->b[r.ylim - 1]) {
			r.xlim--;
			r.ylim--;
		}
		if (r.xoff == r.xlim) {
			myers_mark(m->sb, r.yoff, r.ylim);
			continue;
		}
		if (r.yoff == r.ylim) {
			myers_mark(m->sa, r.xoff, r.xlim);
			continue;
		}
		myers_split(m, &r, &xmid, &ymid);
		if (myers_push(m, xmid, r.xlim, ymid, r.ylim) != 0 ||
		    myers_push(m, r.xoff, xmid, r.yoff, ymid) != 0)
			return -1;
	}
	return 0;
}

static int myers_run(struct diff_side *sa, struct diff_side *sb)
{
	struct myers m = { .a = sa->cmp_class, .b = sb->cmp_class,
			   .sa = sa, .sb = sb };
	size_t diagonals, span;
	long *fd_alloc = NULL, *bd_alloc = NULL;
	int rc = -1;

	if (sa->ncmp > LONG_MAX / 4 || sb->ncmp > LONG_MAX / 4)
		return -1;
	diagonals = sa->ncmp + sb->ncmp + 3;
	fd_alloc = malloc(diagonals * sizeof(*fd_alloc));
	bd_alloc = malloc(diagonals * sizeof(*bd_alloc));
	if (!fd_alloc || !bd_alloc)
		goto out_free_diagonals;
	/* Diagonals run from -(ncmp_b + 1) to ncmp_a + 1. */
	m.fd = fd_alloc + sb->ncmp + 1;
	m.bd = bd_alloc + sb->ncmp + 1;
	/* Roughly the square root of the problem size, at least the minimum. */
	m.cost_limit = 1;
	for (span = diagonals; span; span >>= 2)
		m.cost_limit <<= 1;
	if (m.cost_limit < DIFF_MIN_COST_LIMIT)
		m.cost_limit = DIFF_MIN_COST_LIMIT;
	rc = myers_compare(&m);
	free(m.stack);
out_free_diagonals:
	free(fd_alloc);
	free(bd_alloc);
	return rc;
}

/*
 * Slides each run of changed lines of `side` up and down over equal lines
 * (changing which of two equal lines counts as changed does not change the
 * diff's size): first up as far as it goes, merging with the runs it meets,
 * then down as far as it goes, again merging, until it stops growing; then
 * back up to the lowest place where its end lines up with a run of changes
 * in `other`, if it passed one, so that deletions and insertions stay
 * together. `j` follows the line of `other` that pairs with line `i`.
 */
static void side_compact(struct diff_side *side, const struct diff_side *other)
{
	char *changed = side->changed;
	const char *other_changed = other->changed;
	const size_t *class = side->class;
	size_t n = side->n, i = 0, start, run, aligned;
	/* Signed: stepping back may rest on the sentinel before line 0. */
	long j = 0;

	for (;;) {
		while (i < n && !changed[i]) {
			while (other_changed[j])
				j++;
			i++;
			j++;
		}
		if (i == n)
			break;
		start = i;
		while (changed[i])
			i++;
		while (other_changed[j])
			j++;
		do {
			run = i - start;
			while (start > 0 && class[start - 1] == class[i - 1]) {
				changed[--start] = 1;
				changed[--i] = 0;
				while (changed[start - 1])
					start--;
				do
					j--;
				while (other_changed[j]);
			}
			aligned = other_changed[j - 1] ? i : n;
			while (i < n && class[start] == class[i]) {
				changed[start++] = 0;
				changed[i++] = 1;
				while (changed[i])
					i++;
				j++;
				while (other_changed[j]) {
					j++;
					aligned = i;
				}
			}
		} while (run != i - start);
		while (aligned < i) {
			changed[--start] = 1;
			changed[--i] = 0;
			do
				j--;
			while (other_changed[j]);
		}
	}
}

static int changes_collect(const struct diff_side *sa,
			   const struct diff_side *sb,
			   struct diff_change **changes_out, size_t *count_out)
{
	struct diff_change *changes = NULL, *grown, *change;
	size_t count = 0, alloc = 0, i = 0, j = 0;

	while (i < sa->n || j < sb->n) {
		if (!sa->changed[i] && !sb->changed[j]) {
			i++;
			j++;
			continue;
		}
		if (count == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			grown = realloc(changes, alloc * sizeof(*changes));
			if (!grown) {
				free(changes);
				return -1;
			}
			changes = grown;
		}
		change = &changes[count++];
		change->a = i;
		change->b = j;
		while (sa->changed[i])
			i++;
		while (sb->changed[j])
			j++;
		change->na = i - change->a;
		change->nb = j - change->b;
	}
	*changes_out = changes;
	*count_out = count;
	return 0;
}

static int emit_line(struct buf *out, char mark, const struct diff_line *line)
{
	if (buf_putc(out, mark) != 0 ||
	    buf_append(out, line->text, line->len) != 0)
		return -1;
	if (line->text[line->len - 1] != '\n')
		return buf_puts(out, "\n\\ No newline at end of file\n");
	return 0;
}

static int emit_lines(struct buf *out, char mark, const struct diff_side *side,
		      size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (emit_line(out, mark, &side->lines[i]) != 0)
			return -1;
	return 0;
}

/* "start,count" in 1-based lines; an empty range names the line before. */
static int emit_range(struct buf *out, size_t start, size_t count)
{
	if (count == 0)
		return buf_printf(out, "%zu,0", start);
	if (count == 1)
		return buf_printf(out, "%zu", start + 1);
	return buf_printf(out, "%zu,%zu", start + 1, count);
}

static size_t min_size(size_t x, size_t y)
{
	return x < y ? x : y;
}

static int emit_hunks(struct buf *out, const struct diff_side *sa,
		      const struct diff_side *sb,
		      const struct diff_change *changes, size_t count)
{
	size_t first = 0, last, k, lead, trail, gap, prev_end = 0;
	size_t a_start, b_start, a_end, b_end, a_at;

	while (first < count) {
		/* Changes at most 2 * DIFF_CONTEXT lines apart share a hunk. */
		last = first;
		while (last + 1 < count &&
		       changes[last + 1].a - (changes[last].a +
					      changes[last].na) <=
		       2 * DIFF_CONTEXT)
			last++;
		lead = min_size(DIFF_CONTEXT, changes[first].a - prev_end);
		a_end = changes[last].a + changes[last].na;
		b_end = changes[last].b + changes[last].nb;
		gap = last + 1 < count ? changes[last + 1].a - a_end
				       : sa->n - a_end;
		trail = min_size(DIFF_CONTEXT, gap);
		a_start = changes[first].a - lead;
		b_start = changes[first].b - lead;
		if (buf_puts(out, "@@ -") != 0 ||
		    emit_range(out, a_start, a_end + trail - a_start) != 0 ||
		    buf_puts(out, " +") != 0 ||
		    emit_range(out, b_start, b_end + trail - b_start) != 0 ||
		    buf_puts(out, " @@\n") != 0)
			return -1;
		a_at = a_start;
		for (k = first; k <= last; k++) {
			const struct diff_change *c = &changes[k];

			if (emit_lines(out, ' ', sa, a_at, c->a) != 0 ||
			    emit_lines(out, '-', sa, c->a, c->a + c->na) != 0 ||
			    emit_lines(out, '+', sb, c->b, c->b + c->nb) != 0)
				return -1;
			a_at = c->a + c->na;
		}
		if (emit_lines(out, ' ', sa, a_at, a_at + trail) != 0)
			return -1;
		prev_end = a_end;
		first = last + 1;
	}
	return 0;
}

int diff_unified(struct buf *out, const char *old_label, const char *new_label,
		 const char *a, size_t alen, const char *b, size_t blen)
{
	struct diff_side sa, sb;
	struct diff_classes classes;
	struct diff_change *changes = NULL;
	char *in_a = NULL, *in_b = NULL;
	size_t head = 0, tail = 0, count, mark = out->len, i;
	int rc = -1;

	if (side_split(&sa, a, alen) != 0)
		goto out_free_a;
	if (side_split(&sb, b, blen) != 0)
		goto out_free_b;
	if (classes_init(&classes, sa.n + sb.n) != 0)
		goto out_free_classes;
	classes_intern(&classes, &sa);
	classes_intern(&classes, &sb);

	while (head < sa.n && head < sb.n && sa.class[head] == sb.class[head])
		head++;
	if (head == sa.n && head == sb.n) {
		rc = 0;
		goto out_free_classes;
	}
	while (tail < sa.n - head && tail < sb.n - head &&
	       sa.class[sa.n - 1 - tail] == sb.class[sb.n - 1 - tail])
		tail++;
	head = head > DIFF_HORIZON ? head - DIFF_HORIZON : 0;
	tail = tail > DIFF_HORIZON ? tail - DIFF_HORIZON : 0;

	in_a = calloc(classes.n, 1);
	in_b = calloc(classes.n, 1);
	if (!in_a || !in_b)
		goto out_free_presence;
	for (i = head; i < sa.n - tail; i++)
		in_a[sa.class[i]] = 1;
	for (i = head; i < sb.n - tail; i++)
		in_b[sb.class[i]] = 1;
	side_select(&sa, head, sa.n - tail, in_b);
	side_select(&sb, head, sb.n - tail, in_a);
	if (myers_run(&sa, &sb) != 0)
		goto out_free_presence;
	side_compact(&sa, &sb);
	side_compact(&sb, &sa);

	if (changes_collect(&sa, &sb, &changes, &count) != 0)
		goto out_free_presence;
	if (buf_printf(out, "--- %s\n+++ %s\n", old_label, new_label) != 0 ||
	    emit_hunks(out, &sa, &sb, changes, count) != 0)
		goto out_free_changes;
	rc = 0;
out_free_changes:
	free(changes);
out_free_presence:
	free(in_a);
	free(in_b);
out_free_classes:
	classes_free(&classes);
out_free_b:
	side_free(&sb);
out_free_a:
	side_free(&sa);
	if (rc != 0 && out->len != mark) {
		out->len = mark;
		out->data[mark] = '\0';
	}
	return rc;
}
