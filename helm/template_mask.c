/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * template_mask.c - finds the actions of a Helm template and writes the
 * template with each replaced by a placeholder of the same length (see
 * template_mask.h).
 *
 * The lexing follows Go's text/template: an action runs from "{{" to the
 * first "}}" outside a quoted string, a raw string or a character
 * constant; "{{" followed by a comment opener starts a comment that must
 * close just before "}}";
 * "{{- " and " -}}" are trim markers. Nothing is evaluated: the YAML
 * around the actions is what gpumend reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template_mask.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* Line and column (1-based, in bytes) of `off`, counting line breaks as
 * YAML does (LF, CRLF, or a lone CR). */
static void position_of(const char *text, size_t off, int *line, int *column)
{
	int l = 1;
	size_t ls = 0;

	for (size_t i = 0; i < off; i++)
		if (text[i] == '\n' ||
		    (text[i] == '\r' && (i + 1 >= off || text[i + 1] != '\n'))) {
			l++;
			ls = i + 1;
		}
	*line = l;
	*column = (int)(off - ls) + 1;
}

static int scan_fail(struct tpl_error *err, const char *text, size_t off,
		     const char *what)
{
	position_of(text, off, &err->line, &err->column);
	snprintf(err->message, sizeof(err->message), "%s", what);
	return -1;
}

static unsigned text_hash(const char *s, size_t n)
{
	unsigned h = 2166136261u;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

/* ------------------------------------------------------------------ */
/* Lexing                                                              */

/* 1 when the action's words start with `word` (a whole word). */
static int starts_word(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) >= n && memcmp(p, word, n) == 0 &&
	       (p + n == end || !is_word(p[n]));
}

/* What the action [s, e) does, from its first words. */
static enum tpl_kind action_kind(const char *text, size_t s, size_t e)
{
	const char *p = text + s + 2, *end = text + e - 2;

	if (p < end && *p == '-' && p + 1 < end && is_space(p[1]))
		p++;
	while (p < end && is_space(*p))
		p++;
	if (end - p >= 2 && p[0] == '/' && p[1] == '*')
		return TPL_SILENT;
	if (starts_word(p, end, "if"))
		return TPL_IF;
	if (starts_word(p, end, "with"))
		return TPL_WITH;
	if (starts_word(p, end, "range"))
		return TPL_RANGE;
	if (starts_word(p, end, "else"))
		return TPL_ELSE;
	if (starts_word(p, end, "end"))
		return TPL_END;
	if (starts_word(p, end, "define"))
		return TPL_DEFINE;
	if (starts_word(p, end, "block"))
		return TPL_BLOCK;
	if (starts_word(p, end, "break") || starts_word(p, end, "continue"))
		return TPL_SILENT;
	if (p < end && *p == '$') {
		/* $x := ... and $x = ... print nothing */
		p++;
		while (p < end && is_word(*p))
			p++;
		while (p < end && is_space(*p))
			p++;
		if (p < end && (*p == '=' || (*p == ':' && p + 1 < end &&
					      p[1] == '=')))
			return TPL_SILENT;
	}
	return TPL_OUTPUT;
}

/*
 * Finds the end of the action that starts at `s` ("{{"). Returns the
 * offset just past its "}}", or 0 with `err` set.
 */
static size_t action_end(const char *text, size_t len, size_t s,
			 struct tpl_error *err)
{
	size_t j = s + 2;

	if (j < len && text[j] == '-' && j + 1 < len && is_space(text[j + 1]))
		j++;
	while (j < len && is_space(text[j]))
		j++;
	if (j + 1 < len && text[j] == '/' && text[j + 1] == '*') {
		/* a comment: "*" "/" then "}}", perhaps with a trim marker */
		for (j += 2; j + 1 < len; j++) {
			size_t k;

			if (text[j] != '*' || text[j + 1] != '/')
				continue;
			k = j + 2;
			while (k < len && is_space(text[k]))
				k++;
			if (k < len && text[k] == '-')
				k++;
			if (k + 1 < len && text[k] == '}' && text[k + 1] == '}')
				return k + 2;
			scan_fail(err, text, s,
				  "a template comment does not end with '*/}}'");
			return 0;
		}
		scan_fail(err, text, s, "unclosed template comment");
		return 0;
	}
	while (j < len) {
		char c = text[j];

		if (c == '"' || c == '\'') {
			size_t open = j;

			for (j++; j < len && text[j] != c; j++) {
				if (text[j] == '\n') {
					scan_fail(err, text, open,
						  "unterminated quoted string in a template action");
					return 0;
				}
				if (text[j] == '\\')
					j++;
			}
			if (j >= len) {
				scan_fail(err, text, open,
					  "unterminated quoted string in a template action");
				return 0;
			}
			j++;
		} else if (c == '`') {
			const char *close = memchr(text + j + 1, '`',
						   len - j - 1);

			if (!close) {
				scan_fail(err, text, j,
					  "unterminated raw string in a template action");
				return 0;
			}
			j = (size_t)(close - text) + 1;
		} else if (c == '}' && j + 1 < len && text[j + 1] == '}') {
			return j + 2;
		} else {
			j++;
		}
	}
	scan_fail(err, text, s, "unclosed template action '{{'");
	return 0;
}

static int push(void **items, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 16;
		void *grown = realloc(*items, grown_cap * size);

		if (!grown)
			return -1;
		*items = grown;
		*cap = grown_cap;
	}
	memset((char *)*items + *n * size, 0, size);
	(*n)++;
	return 0;
}

static int lex_actions(struct tpl *t, struct tpl_error *err)
{
	const char *text = t->text;
	size_t len = t->len, cap = 0, i = 0;

	while (i + 1 < len) {
		const char *open = memchr(text + i, '{', len - i - 1);
		size_t s, e;
		struct tpl_action *a;

		if (!open)
			break;
		s = (size_t)(open - text);
		if (text[s + 1] != '{') {
			i = s + 1;
			continue;
		}
		if (!(e = action_end(text, len, s, err)))
			return -1;
		if (push((void **)&t->actions, &t->n_actions, &cap,
			 sizeof(*t->actions)))
			return scan_fail(err, text, s, "out of memory");
		a = &t->actions[t->n_actions - 1];
		a->start = a->mask_start = s;
		a->end = a->mask_end = e;
		position_of(text, s, &a->line, &a->column);
		a->kind = action_kind(text, s, e);
		a->place = TPL_PLACE_SCALAR;
		a->hash = text_hash(text + s, e - s);
		a->chain = -1;
		i = e;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Conditionals                                                        */

static int new_branch(struct tpl *t, size_t *cap, int chain, int index,
		      int parent, size_t start)
{
	struct tpl_branch *b;

	if (push((void **)&t->branches, &t->n_branches, cap,
		 sizeof(*t->branches)))
		return -1;
	b = &t->branches[t->n_branches - 1];
	b->start = b->end = start;
	b->chain = chain;
	b->index = index;
	b->parent = parent;
	return 0;
}

/* The condition of an opening action: its text without delimiters, trim
 * markers and outer blanks. */
static void condition_of(const struct tpl *t, const struct tpl_action *a,
			 const char **s, size_t *n)
{
	const char *p = t->text + a->start + 2, *e = t->text + a->end - 2;

	if (p < e && *p == '-')
		p++;
	while (p < e && is_space(*p))
		p++;
	if (e > p && e[-1] == '-' && e - 1 > p && is_space(e[-2]))
		e--;
	while (e > p && is_space(e[-1]))
		e--;
	*s = p;
	*n = (size_t)(e - p);
}

/* The range, with or define around chain `c` (what "." is), or -1. */
static int scope_of(const struct tpl *t, int c)
{
	for (int b = t->chains[c].parent; b >= 0; b = t->branches[b].parent) {
		enum tpl_kind k = t->chains[t->branches[b].chain].kind;

		if (k == TPL_RANGE || k == TPL_WITH || k == TPL_DEFINE)
			return t->branches[b].chain;
	}
	return -1;
}

/* Links the if and with chains that test the same condition in the same
 * scope: rendering takes the same branch of each. */
static void link_chains(struct tpl *t)
{
	for (size_t c = 0; c < t->n_chains; c++) {
		struct tpl_chain *ch = &t->chains[c];
		const char *s;
		size_t n;

		ch->group = (int)c;
		if (ch->kind != TPL_IF && ch->kind != TPL_WITH)
			continue;
		condition_of(t, &t->actions[ch->open_action], &s, &n);
		for (size_t d = 0; d < c; d++) {
			const struct tpl_chain *other = &t->chains[d];
			const char *s2;
			size_t n2;

			if (other->kind != ch->kind ||
			    other->group != (int)d)
				continue;
			condition_of(t, &t->actions[other->open_action], &s2,
				     &n2);
			if (n == n2 && memcmp(s, s2, n) == 0 &&
			    scope_of(t, (int)c) == scope_of(t, (int)d)) {
				ch->group = (int)d;
				break;
			}
		}
	}
}

static int build_chains(struct tpl *t, struct tpl_error *err)
{
	int *stack = NULL;        /* open chains */
	int *current = NULL;      /* their current branch */
	size_t depth = 0, cap_chains = 0, cap_branches = 0;
	int rc = -1;

	stack = malloc((t->n_actions + 1) * sizeof(*stack));
	current = malloc((t->n_actions + 1) * sizeof(*current));
	if (!stack || !current) {
		scan_fail(err, t->text, 0, "out of memory");
		goto out_free;
	}
	for (size_t i = 0; i < t->n_actions; i++) {
		struct tpl_action *a = &t->actions[i];
		int parent = depth ? current[depth - 1] : -1;

		switch (a->kind) {
		case TPL_IF:
		case TPL_WITH:
		case TPL_RANGE:
		case TPL_DEFINE:
		case TPL_BLOCK: {
			struct tpl_chain *c;
			int id = (int)t->n_chains;

			if (push((void **)&t->chains, &t->n_chains, &cap_chains,
				 sizeof(*t->chains)) ||
			    new_branch(t, &cap_branches, id, 0, parent, a->end)) {
				scan_fail(err, t->text, a->start, "out of memory");
				goto out_free;
			}
			c = &t->chains[id];
			c->kind = a->kind;
			c->first_branch = (int)t->n_branches - 1;
			c->n_branches = 1;
			c->parent = parent;
			c->open_action = (int)i;
			a->chain = id;
			stack[depth] = id;
			current[depth] = c->first_branch;
			depth++;
			break;
		}
		case TPL_ELSE: {
			struct tpl_chain *c;

			if (!depth) {
				scan_fail(err, t->text, a->start,
					  "'{{ else }}' without its '{{ if }}'");
				goto out_free;
			}
			c = &t->chains[stack[depth - 1]];
			if (c->kind == TPL_DEFINE || c->kind == TPL_BLOCK) {
				scan_fail(err, t->text, a->start,
					  "'{{ else }}' inside a define or block");
				goto out_free;
			}
			t->branches[current[depth - 1]].end = a->start;
			if (new_branch(t, &cap_branches, stack[depth - 1],
				       c->n_branches, c->parent, a->end)) {
				scan_fail(err, t->text, a->start, "out of memory");
				goto out_free;
			}
			c->n_branches++;
			a->chain = stack[depth - 1];
			current[depth - 1] = (int)t->n_branches - 1;
			break;
		}
		case TPL_END:
			if (!depth) {
				scan_fail(err, t->text, a->start,
					  "'{{ end }}' without an opening action");
				goto out_free;
			}
			t->branches[current[depth - 1]].end = a->start;
			a->chain = stack[depth - 1];
			depth--;
			break;
		default:
			break;
		}
	}
	if (depth) {
		const struct tpl_action *a =
			&t->actions[t->chains[stack[depth - 1]].open_action];

		scan_fail(err, t->text, a->start,
			  "this action has no '{{ end }}'");
		goto out_free;
	}
	for (size_t c = 0; c < t->n_chains; c++) {
		struct tpl_chain *ch = &t->chains[c];
		const struct tpl_action *last = NULL;
		int has_else;

		/* the last else of an if or with chain: a plain else ends the
		 * alternatives, an "else if" leaves an empty one after it */
		for (size_t i = (size_t)ch->open_action + 1; i < t->n_actions; i++)
			if (t->actions[i].chain == (int)c &&
			    t->actions[i].kind == TPL_ELSE)
				last = &t->actions[i];
		has_else = 0;
		if (last) {
			const char *p = t->text + last->start + 2;
			const char *end = t->text + last->end - 2;

			if (p < end && *p == '-')
				p++;
			while (p < end && is_space(*p))
				p++;
			p += 4; /* "else" */
			while (p < end && is_space(*p))
				p++;
			has_else = !(starts_word(p, end, "if") ||
				     starts_word(p, end, "with"));
		}
		switch (ch->kind) {
		case TPL_DEFINE:
			ch->choices = 0;
			break;
		case TPL_BLOCK:
			ch->choices = 1;
			break;
		case TPL_RANGE:
			ch->choices = ch->n_branches;
			break;
		default:
			ch->choices = ch->n_branches + !has_else;
			break;
		}
	}
	link_chains(t);
	rc = 0;
out_free:
	free(stack);
	free(current);
	return rc;
}

/* 1 when branch `b` sits (at any depth) inside a define. */
static int under_define(const struct tpl *t, int b)
{
	for (; b >= 0; b = t->branches[b].parent)
		if (t->chains[t->branches[b].chain].choices == 0)
			return 1;
	return 0;
}

static int add_variant(struct tpl *t, const int *row, size_t *cap,
		       struct tpl_error *err)
{
	size_t n = t->n_chains;

	for (size_t v = 0; v < t->n_variants; v++)
		if (!n || memcmp(t->variants + v * n, row, n * sizeof(*row)) == 0)
			return 0;
	if (t->n_variants == TPL_MAX_VARIANTS) {
		err->line = err->column = 0;
		snprintf(err->message, sizeof(err->message),
			 "too many conditionals: gpumend reads at most %d combinations of branches",
			 TPL_MAX_VARIANTS);
		return -1;
	}
	if (t->n_variants == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 8;
		int *grown = realloc(t->variants,
				     grown_cap * (n ? n : 1) * sizeof(*grown));

		if (!grown)
			return scan_fail(err, t->text, 0, "out of memory");
		t->variants = grown;
		*cap = grown_cap;
	}
	if (n)
		memcpy(t->variants + t->n_variants * n, row, n * sizeof(*row));
	t->n_variants++;
	return 0;
}

static int build_variants(struct tpl *t, struct tpl_error *err)
{
	size_t n = t->n_chains, cap = 0;
	int *row = calloc(n ? n : 1, sizeof(*row));
	int rc = -1;

	if (!row)
		return scan_fail(err, t->text, 0, "out of memory");
	if (add_variant(t, row, &cap, err))
		goto out_free;
	for (size_t c = 0; c < n; c++) {
		const struct tpl_chain *ch = &t->chains[c];

		if (ch->choices < 2 || under_define(t, ch->parent))
			continue;
		if (ch->group != (int)c)
			continue; /* taken with the first of its group */
		for (int b = 1; b < ch->choices; b++) {
			memset(row, 0, n * sizeof(*row));
			for (size_t d = c; d < n; d++)
				if (t->chains[d].group == (int)c)
					row[d] = b < t->chains[d].choices ? b :
						 t->chains[d].choices - 1;
			/* the branches around it must be shown too */
			for (int p = ch->parent; p >= 0; p = t->branches[p].parent)
				row[t->branches[p].chain] = t->branches[p].index;
			if (add_variant(t, row, &cap, err))
				goto out_free;
		}
	}
	rc = 0;
out_free:
	free(row);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Lines                                                               */

static int build_lines(struct tpl *t, struct tpl_error *err)
{
	size_t cap = 0, s = 0;

	while (s <= t->len) {
		const char *nl = s < t->len ? memchr(t->text + s, '\n',
						     t->len - s) : NULL;
		size_t e = nl ? (size_t)(nl - t->text) : t->len;
		struct tpl_line *l;

		if (push((void **)&t->lines, &t->n_lines, &cap,
			 sizeof(*t->lines)))
			return scan_fail(err, t->text, s, "out of memory");
		l = &t->lines[t->n_lines - 1];
		l->start = s;
		l->end = e > s && t->text[e - 1] == '\r' ? e - 1 : e;
		if (!nl)
			break;
		s = e + 1;
	}
	return 0;
}

size_t tpl_line_of(const struct tpl *t, size_t off)
{
	size_t lo = 0, hi = t->n_lines;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (t->lines[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Marks the lines that hold only actions (and blanks, and a comment after
 * an action), and the continuation lines of actions spanning lines.
 */
static void mark_action_lines(struct tpl *t)
{
	size_t ai = 0;

	for (size_t a = 0; a < t->n_actions; a++) {
		size_t first = tpl_line_of(t, t->actions[a].start);
		size_t last = tpl_line_of(t, t->actions[a].end - 1);

		for (size_t l = first + 1; l <= last; l++)
			t->lines[l].action_line = 1;
	}
	for (size_t l = 0; l < t->n_lines; l++) {
		struct tpl_line *line = &t->lines[l];
		size_t p = line->start;
		int has_action = 0, has_text = 0;

		if (line->action_line)
			continue;
		while (ai < t->n_actions && t->actions[ai].end <= line->start)
			ai++;
		for (size_t k = ai; p < line->end && !has_text; ) {
			if (k < t->n_actions && t->actions[k].start == p) {
				has_action = 1;
				p = t->actions[k].end;
				k++;
			} else if (is_blank(t->text[p])) {
				p++;
			} else if (t->text[p] == '#' && has_action &&
				   is_blank(t->text[p - 1])) {
				break; /* a comment after an action */
			} else {
				has_text = 1;
			}
		}
		if (has_action && !has_text)
			line->action_line = 1;
	}
}

/* Leading blanks of a line, in bytes. */
static size_t indent_of(const struct tpl *t, const struct tpl_line *l)
{
	size_t p = l->start;

	while (p < l->end && is_blank(t->text[p]))
		p++;
	return p - l->start;
}

/*
 * If line `l` opens a block scalar (`key: |`, `- >-`...), the indentation
 * its content must exceed; else -1.
 */
static long block_scalar_parent(const struct tpl *t, const struct tpl_line *l)
{
	const char *text = t->text;
	size_t s = l->start, e = l->end, p, key_col, last_dash = (size_t)-1;

	/* drop a trailing comment: " #" outside quotes is good enough here */
	for (p = s; p < e; p++)
		if (text[p] == '#' && p > s && is_blank(text[p - 1])) {
			e = p;
			break;
		}
	while (e > s && is_blank(text[e - 1]))
		e--;
	p = e;
	while (p > s && (text[p - 1] == '+' || text[p - 1] == '-' ||
			 (text[p - 1] >= '0' && text[p - 1] <= '9')))
		p--;
	if (p == s || (text[p - 1] != '|' && text[p - 1] != '>'))
		return -1;
	p--;
	if (p == s || !is_blank(text[p - 1]))
		return -1;
	while (p > s && is_blank(text[p - 1]))
		p--;
	if (p == s || (text[p - 1] != ':' && text[p - 1] != '-'))
		return -1;
	/* the column of the key, or of the last "- " before the indicator */
	key_col = s;
	for (;;) {
		while (key_col < e && is_blank(text[key_col]))
			key_col++;
		if (key_col + 1 < e && text[key_col] == '-' &&
		    is_blank(text[key_col + 1])) {
			last_dash = key_col;
			key_col++;
			continue;
		}
		break;
	}
	if (key_col >= p - 1 && last_dash != (size_t)-1)
		return (long)(last_dash - s);
	return (long)(key_col - s);
}

static void mark_block_scalars(struct tpl *t)
{
	long parent = -1;

	for (size_t l = 0; l < t->n_lines; l++) {
		struct tpl_line *line = &t->lines[l];

		if (parent >= 0) {
			size_t ind = indent_of(t, line);

			if (line->action_line || ind == (size_t)(line->end - line->start) ||
			    (long)ind > parent) {
				line->in_block_scalar = 1;
				continue;
			}
			parent = -1;
		}
		if (!line->action_line)
			parent = block_scalar_parent(t, line);
	}
}

/* ------------------------------------------------------------------ */
/* Where inline actions stand                                          */

static void classify(struct tpl *t)
{
	const char *text = t->text;

	for (size_t i = 0; i < t->n_actions; i++) {
		struct tpl_action *a = &t->actions[i];
		size_t first = tpl_line_of(t, a->start), last = tpl_line_of(t, a->end - 1);
		const struct tpl_line *l = &t->lines[first];
		size_t before = a->start, after = a->end, p;
		int prev_ok, quoted = 0, next_value = 0, next_key = 0, gap;
		char q;

		if (l->action_line) {
			/* a whole line: its bytes are the line's */
			a->place = TPL_PLACE_LINE;
			a->mask_start = l->start;
			a->mask_end = t->lines[last].end;
			continue;
		}
		if (last != first) {
			/* the rest of the last line goes with it */
			a->mask_end = t->lines[last].end;
		}
		if (l->in_block_scalar || a->kind != TPL_OUTPUT) {
			a->place = TPL_PLACE_SCALAR;
			continue;
		}
		q = before > l->start ? text[before - 1] : 0;
		if ((q == '"' || q == '\'') && last == first && after < l->end &&
		    text[after] == q) {
			quoted = 1;
			before--;
			after++;
		}
		p = before;
		while (p > l->start && is_blank(text[p - 1]))
			p--;
		gap = p < before;
		if (p == l->start)
			prev_ok = 1;
		else if (strchr("[{,?", text[p - 1]))
			prev_ok = 1;
		else if ((text[p - 1] == ':' || text[p - 1] == '-') && gap)
			prev_ok = text[p - 1] == ':' || p - 1 == l->start ||
				  is_blank(text[p - 2]);
		else
			prev_ok = 0;
		if (last == first) {
			p = after;
			while (p < l->end && is_blank(text[p]))
				p++;
			if (p == l->end || strchr(",]}", text[p]) ||
			    (text[p] == '#' && p > after))
				next_value = 1;
			else if (text[p] == ':' && (p + 1 == l->end ||
						    is_blank(text[p + 1])))
				next_key = 1;
		} else {
			next_value = 1;
		}
		if (prev_ok && (next_value || next_key)) {
			a->place = next_key ? TPL_PLACE_KEY : TPL_PLACE_VALUE;
			if (quoted) {
				a->mask_start = before;
				a->mask_end = after;
			}
		} else {
			a->place = TPL_PLACE_SCALAR;
		}
	}
}

/* ------------------------------------------------------------------ */
/* The public functions                                                */

void tpl_free(struct tpl *t)
{
	if (!t)
		return;
	free(t->actions);
	free(t->branches);
	free(t->chains);
	free(t->lines);
	free(t->variants);
	memset(t, 0, sizeof(*t));
}

int tpl_scan(const char *text, size_t len, struct tpl *t,
	     struct tpl_error *err)
{
	memset(t, 0, sizeof(*t));
	memset(err, 0, sizeof(*err));
	t->text = text;
	t->len = len;
	if (lex_actions(t, err) || build_chains(t, err) ||
	    build_variants(t, err) || build_lines(t, err)) {
		tpl_free(t);
		return -1;
	}
	mark_action_lines(t);
	mark_block_scalars(t);
	classify(t);
	return 0;
}

int tpl_visible(const struct tpl *t, size_t variant, int branch)
{
	for (; branch >= 0; branch = t->branches[branch].parent) {
		const struct tpl_branch *b = &t->branches[branch];

		if (t->chains[b->chain].choices == 0 ||
		    t->variants[variant * t->n_chains + (size_t)b->chain] !=
			    b->index)
			return 0;
	}
	return 1;
}

int tpl_context(const struct tpl *t, size_t offset, int insertion)
{
	int best = -1;

	for (size_t b = 0; b < t->n_branches; b++) {
		const struct tpl_branch *br = &t->branches[b];

		if (br->start <= offset &&
		    (offset < br->end || (insertion && offset == br->end)) &&
		    (best < 0 || br->start >= t->branches[best].start))
			best = (int)b;
	}
	return best;
}

int tpl_action_at(const struct tpl *t, size_t start, size_t end)
{
	for (size_t i = 0; i < t->n_actions; i++) {
		const struct tpl_action *a = &t->actions[i];

		if (start == end) {
			if (a->mask_start < start && start < a->mask_end)
				return (int)i;
		} else if (a->mask_start < end && start < a->mask_end) {
			return (int)i;
		}
	}
	return -1;
}

static const char base36[] = "0123456789abcdefghijklmnopqrstuvwxyz";

void tpl_placeholder(const struct tpl *t, size_t index, int valuation,
		     char *out, size_t size)
{
	const struct tpl_action *a = &t->actions[index];
	size_t first_end = t->lines[tpl_line_of(t, a->mask_start)].end;
	size_t span = (a->mask_end < first_end ? a->mask_end : first_end) -
		      a->mask_start;
	size_t n = 0;

	if (size < 16) {
		if (size)
			out[0] = '\0';
		return;
	}
	if (a->place == TPL_PLACE_VALUE) {
		if (valuation == 3) {
			snprintf(out, size, "%s", span >= 3 ? "x y" : "x");
			return;
		}
		{
			size_t digits = span < 7 ? span : 7, lead = 0;
			unsigned h = a->hash;

			if (!a->as_number && digits >= 3)
				out[lead++] = 's';
			out[lead] = valuation == 2 ? '2' : '1';
			for (size_t i = digits - 1; i > lead; i--) {
				out[i] = (char)('0' + h % 10);
				h /= 10;
			}
			n = digits ? digits : 1;
		}
		out[n] = '\0';
		return;
	}
	out[n++] = 'x';
	for (unsigned h = a->hash; n < span && n < 8; h /= 36)
		out[n++] = base36[h % 36];
	out[n] = '\0';
}

/* Masks the bytes of line `l` whole: a comment, or blanks in a block
 * scalar. */
static void mask_line(const struct tpl *t, size_t l, char *out)
{
	const struct tpl_line *line = &t->lines[l];

	if (line->end == line->start)
		return;
	memset(out + line->start, ' ', line->end - line->start);
	if (!line->in_block_scalar)
		out[line->start] = '#';
}

size_t tpl_inner_placeholder(const struct tpl *t, size_t index, char *out,
			     size_t size)
{
	struct tpl_action a = t->actions[index];
	struct tpl copy = *t;
	size_t n;

	/* the action alone, as a part of a scalar */
	a.place = TPL_PLACE_SCALAR;
	a.mask_start = a.start;
	a.mask_end = a.end;
	copy.actions = &a;
	copy.n_actions = 1;
	n = tpl_placeholder_bytes(&copy, 0, 1, out, size);
	return n;
}

size_t tpl_placeholder_bytes(const struct tpl *t, size_t index, int valuation,
			     char *out, size_t size)
{
	const struct tpl_action *a = &t->actions[index];
	size_t first_end = t->lines[tpl_line_of(t, a->mask_start)].end;
	size_t end = a->mask_end < first_end ? a->mask_end : first_end;
	size_t span = end - a->mask_start, n;
	char ph[16];

	if (span > size)
		return 0;
	if (a->kind != TPL_OUTPUT) {
		memset(out, ' ', span);
		return span;
	}
	tpl_placeholder(t, index, valuation, ph, sizeof(ph));
	n = strlen(ph);
	if (n > span)
		n = span;
	memcpy(out, ph, n);
	memset(out + n, a->place == TPL_PLACE_VALUE ? ' ' : '_', span - n);
	return span;
}

void tpl_mask(const struct tpl *t, size_t variant, int valuation, char *out)
{
	memcpy(out, t->text, t->len);
	/* placeholders first: the whole lines masked below overwrite them */
	for (size_t i = 0; i < t->n_actions; i++) {
		const struct tpl_action *a = &t->actions[i];

		if (a->place == TPL_PLACE_LINE || a->place == TPL_PLACE_MEMBER)
			continue;
		tpl_placeholder_bytes(t, i, valuation, out + a->mask_start,
				      t->len - a->mask_start);
	}
	for (size_t l = 0; l < t->n_lines; l++)
		if (t->lines[l].action_line)
			mask_line(t, l, out);
	/* includes read as members: "xHASH: xHASH" where the action was */
	for (size_t i = 0; i < t->n_actions; i++) {
		const struct tpl_action *a = &t->actions[i];
		char ph[16];
		size_t n, room = a->mask_end - a->start;

		if (a->place != TPL_PLACE_MEMBER)
			continue;
		tpl_placeholder(t, i, valuation, ph, sizeof(ph));
		n = strlen(ph);
		if (2 * n + 2 > room)
			continue;
		memset(out + a->mask_start, ' ', a->mask_end - a->mask_start);
		memcpy(out + a->start, ph, n);
		memcpy(out + a->start + n, ": ", 2);
		memcpy(out + a->start + n + 2, ph, n);
	}
	/* the lines of the branches this variant does not take */
	for (size_t b = 0; b < t->n_branches; b++) {
		const struct tpl_branch *br = &t->branches[b];
		size_t l;

		if (tpl_visible(t, variant, (int)b) ||
		    (br->parent >= 0 && !tpl_visible(t, variant, br->parent)))
			continue;
		for (l = tpl_line_of(t, br->start); l < t->n_lines &&
		     t->lines[l].start <= br->end; l++)
			if (t->lines[l].start >= br->start &&
			    t->lines[l].end <= br->end)
				mask_line(t, l, out);
	}
	/* a lone CR breaks lines for YAML too: every break stays */
	for (const char *cr = memchr(t->text, '\r', t->len); cr;
	     cr = memchr(cr + 1, '\r', t->len - (size_t)(cr + 1 - t->text)))
		out[cr - t->text] = '\r';
}

/* ------------------------------------------------------------------ */
/* Includes read as members                                            */

int tpl_action_define(const struct tpl *t, size_t index, const char **name,
		      size_t *len)
{
	const struct tpl_action *a = &t->actions[index];
	const char *p = t->text + a->start + 2, *end = t->text + a->end - 2;
	const char *q;

	if (p < end && *p == '-')
		p++;
	while (p < end && is_space(*p))
		p++;
	if (starts_word(p, end, "include"))
		p += 7;
	else if (starts_word(p, end, "template"))
		p += 8;
	else if (starts_word(p, end, "define"))
		p += 6;
	else
		return 0;
	while (p < end && is_space(*p))
		p++;
	if (p >= end || *p != '"')
		return 0;
	q = memchr(p + 1, '"', (size_t)(end - p - 1));
	if (!q)
		return 0;
	*name = p + 1;
	*len = (size_t)(q - p - 1);
	return 1;
}

/*
 * The number of the last `| nindent N` of action `a`: its offsets in
 * *num_start, *num_end; -1 when the action does not end with one.
 */
static long member_nindent(const struct tpl *t, const struct tpl_action *a,
			   size_t *num_start, size_t *num_end)
{
	const char *text = t->text;
	size_t e = a->end - 2, p;
	long n = 0;

	if (e > a->start + 2 && text[e - 1] == '-')
		e--;
	while (e > a->start && is_space(text[e - 1]))
		e--;
	p = e;
	while (p > a->start && text[p - 1] >= '0' && text[p - 1] <= '9')
		p--;
	if (p == e || e - p > 4)
		return -1;
	*num_start = p;
	*num_end = e;
	for (size_t i = p; i < e; i++)
		n = n * 10 + (text[i] - '0');
	while (p > a->start && is_space(text[p - 1]))
		p--;
	if (p < a->start + 9 || memcmp(text + p - 7, "nindent", 7) != 0 ||
	    is_word(text[p - 8]))
		return -1;
	p -= 7;
	while (p > a->start && is_space(text[p - 1]))
		p--;
	if (text[p - 1] != '|')
		return -1;
	return n;
}

int tpl_mark_members(struct tpl *t,
		     int (*known)(void *arg, const char *name, size_t len),
		     void *arg)
{
	int marked = 0;

	for (size_t i = 0; i < t->n_actions; i++) {
		struct tpl_action *a = &t->actions[i];
		size_t line = tpl_line_of(t, a->start), ns, ne;
		const struct tpl_line *l = &t->lines[line];
		const char *name;
		size_t len, indent;
		long n;

		if (a->place != TPL_PLACE_LINE || a->kind != TPL_OUTPUT ||
		    l->in_block_scalar || tpl_line_of(t, a->end - 1) != line ||
		    !tpl_action_define(t, i, &name, &len) ||
		    !known(arg, name, len))
			continue;
		indent = indent_of(t, l);
		/* alone on the line: nothing before it but blanks, nothing
		 * after it */
		if (l->start + indent != a->start || a->end != l->end)
			continue;
		n = member_nindent(t, a, &ns, &ne);
		if (n < 0 || (size_t)n != indent)
			continue;
		/* the same include at another indentation is the same
		 * member: its number does not count */
		a->hash = text_hash(t->text + a->start, ns - a->start) ^
			  text_hash(t->text + ne, a->end - ne);
		a->place = TPL_PLACE_MEMBER;
		a->mask_start = l->start;
		a->mask_end = l->end;
		marked++;
	}
	return marked;
}

void tpl_unmark_members(struct tpl *t)
{
	for (size_t i = 0; i < t->n_actions; i++)
		if (t->actions[i].place == TPL_PLACE_MEMBER) {
			t->actions[i].place = TPL_PLACE_LINE;
			t->actions[i].hash = text_hash(t->text + t->actions[i].start,
						       t->actions[i].end -
						       t->actions[i].start);
		}
}

size_t tpl_member_text(const struct tpl *t, size_t index, int indent,
		       char *out, size_t size)
{
	const struct tpl_action *a = &t->actions[index];
	size_t ns, ne;
	int n;

	if (member_nindent(t, a, &ns, &ne) < 0)
		return 0;
	n = snprintf(out, size, "%.*s%d%.*s", (int)(ns - a->start),
		     t->text + a->start, indent, (int)(a->end - ne),
		     t->text + ne);
	return n > 0 && (size_t)n < size ? (size_t)n : 0;
}
