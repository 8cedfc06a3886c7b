/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * yaml_source.c - reads YAML (and JSON, a subset of it) with libyaml into
 * the engine's json_t and a source map: a tree of nodes with the byte spans
 * of every key and value, so that the text patcher can edit the file in
 * place and lint can name the line and column of a finding.
 *
 * Input is hostile: nesting depth, alias expansion and document size are
 * capped, and every failure says where.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define SCAN_SSE2 1
#endif

#include "ascii.h"
#include "source.h"

/* Caps that hold even when the caller sets no limits. */
#define HARD_MAX_DEPTH 1000
#define HARD_MAX_ALIAS_NODES 10000000
#define JSON_INTEGER_MAX LLONG_MAX

struct anchor {
	char *name;
	json_t *json;
	struct source_node *node;
};

struct frame {
	json_t *json;
	struct source_node *node;
	char *key;                  /* pending mapping key, owned */
	size_t key_len;
	size_t key_start, key_end;
	int key_line, key_column, key_style;
	int merge_pending;          /* the pending key is << */
	json_t *merged_keys;        /* keys that came from a merge */
	char *anchor;               /* anchor of this collection, owned */
	int mapping;                /* a mapping, else a sequence */
	/* sparse documents: what the frame keeps (enum keep), where its keys
	 * start in the parser's key records, and their hash table once the
	 * mapping is large */
	int keep;
	int key_borrowed;           /* key points into the parser's kbytes */
	size_t kbase, kbytes_base;
	size_t *ktab, ktab_cap;
	/* source_reads_as(): the value this collection must be, and how many
	 * members it has had */
	json_t *expect;
	size_t seen;
};

/* A key of a mapping of a sparse document: its text in kbytes. */
struct krec {
	size_t off, len;
	unsigned hash;
};

struct source_parser {
	yaml_parser_t yaml;
	const char *text;
	size_t len;
	struct source_limits limits;
	int index;
	int finished;

	/* position cursor: mark (line, column) <-> byte offset */
	size_t cur_line, cur_col, cur_off, cur_line_off;
	size_t base_off;            /* offset of line 0, column 0 (after a BOM) */
	size_t ascii_to;            /* [base_off, ascii_to) holds no byte >= 0x80 */
	int ascii_end;              /* ascii_to stops at a byte >= 0x80 */
	int pairs_patched;          /* pairs_patch() changed a pair */
	int line_base;              /* added to libyaml's line numbers */
	int want_tree;              /* build the source tree, not only json */
	int tree;                   /* of this document (not a sparse one) */
	source_need_fn need;        /* source_parser_set_need() */
	void *need_arg;
	const struct rules_read *keep; /* of this sparse document */
	uint32_t keep_lens;         /* bit n: it names a key n bytes long */
	int keep_watch;             /* it names containers (sparse_stops()) */
	int sparse;                 /* this document is read sparse */
	size_t sparse_to;           /* need() was asked about text up to here */
	json_t *verify;             /* source_reads_as(): what it must read as */
	int verify_unsure;          /* it met what only a full read tells */
	int skipping;               /* read in full by another parser: its
				       events are only gone through */
	struct krec *krecs;         /* the keys of the open sparse mappings */
	size_t n_krecs, cap_krecs;
	char *kbytes;
	size_t n_kbytes, cap_kbytes;

	/* per document */
	struct frame *stack;
	size_t depth, cap_stack;
	struct anchor *anchors;
	size_t n_anchors, cap_anchors;
	size_t alias_nodes;
	size_t doc_start;
	size_t doc_start_index;     /* libyaml's character index of it */
	size_t read_pos, read_end;  /* what libyaml has been given of text */
	int over_cap;               /* a document outgrew max_document_bytes */
	size_t read_from;           /* where libyaml's input starts in text */
};

/* ------------------------------------------------------------------ */
/* Surrogate pairs                                                     */

/*
 * JSON writes a character past U+FFFF as a surrogate pair of escapes,
 * "\ud83d\ude00"; kubectl reads it, but libyaml refuses each half as an
 * invalid character. So libyaml is given each such pair with two of its
 * hex digits changed, byte for byte as long, so that every position stays
 * true: the high half \uD8xx-\uDBxx becomes \uE8xx-\uEBxx (D to E, in
 * its case) and the low half \uDCxx-\uDFxx becomes \uF0xx-\uF7xx (D to F;
 * the digit C-F, in its case, to 0-7); both are private-use characters.
 * In a double-quoted scalar, libyaml decodes them to two characters that
 * pairs_fix() joins into the one the pair stands for; elsewhere (plain,
 * single-quoted, block scalars) the escape is text, which pairs_fix()
 * turns back as it was written. The one input read otherwise: a character
 * U+E800-U+EBFF followed at once by one of U+F000-U+F7FF, in a double-quoted
 * scalar, is read as the character such a pair encodes.
 */

static int hex_digit(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* 1 when t[0..12) is a surrogate pair of \u escapes. */
static int pair_at(const unsigned char *t)
{
	return t[0] == '\\' && t[1] == 'u' && (t[2] == 'd' || t[2] == 'D') &&
	       strchr("89abAB", t[3]) && t[3] && hex_digit(t[4]) &&
	       hex_digit(t[5]) && t[6] == '\\' && t[7] == 'u' &&
	       (t[8] == 'd' || t[8] == 'D') && strchr("cdefCDEF", t[9]) &&
	       t[9] && hex_digit(t[10]) && hex_digit(t[11]);
}

/* Changes, in buffer[0..n) holding text[from..from+n), the digits of the
 * surrogate pairs of escapes there (see above). */
static void pairs_patch(struct source_parser *p, unsigned char *buffer,
			size_t from, size_t n)
{
	const unsigned char *t = (const unsigned char *)p->text;
	size_t o = from >= 11 ? from - 11 : 0;

	while (o < from + n) {
		const unsigned char *hit = memchr(t + o, '\\', from + n - o);
		size_t before = 0, at;

		if (!hit)
			break;
		at = (size_t)(hit - t);
		o = at + 1;
		if (at + 12 > p->len || !pair_at(hit))
			continue;
		/* an escaped backslash starts no escape */
		while (at - before > 0 && t[at - before - 1] == '\\')
			before++;
		if (before % 2)
			continue;
		p->pairs_patched = 1;
		if (at + 2 >= from && at + 2 < from + n)
			buffer[at + 2 - from] = t[at + 2] == 'd' ? 'e' : 'E';
		if (at + 8 >= from && at + 8 < from + n)
			buffer[at + 8 - from] = t[at + 8] == 'd' ? 'f' : 'F';
		if (at + 9 >= from && at + 9 < from + n)
			buffer[at + 9 - from] =
				(unsigned char)('0' + (strchr("CDEFcdef", t[at + 9]) -
						       "CDEFcdef"));
		o = at + 12;
	}
}

/*
 * Undoes pairs_patch() in a scalar's value, in place: the two characters
 * of a double-quoted pair become the one they stand for (`quoted`), and
 * the text of an escape elsewhere is written back (`quoted` 0; only once
 * the parser has patched a pair, so most values are not looked at).
 * Returns the new length.
 */
static size_t pairs_fix(unsigned char *v, size_t len, int quoted)
{
	const unsigned char *at = memchr(v, quoted ? 0xEE : '\\', len);
	size_t i, o;

	/* most values hold none: nothing to undo */
	if (!at)
		return len;
	i = o = (size_t)(at - v);
	while (i < len) {
		if (quoted && i + 6 <= len && v[i] == 0xEE && v[i + 1] >= 0xA0 &&
		    v[i + 1] <= 0xAF && v[i + 3] == 0xEF && v[i + 4] >= 0x80 &&
		    v[i + 4] <= 0x9F) {
			/* U+E800 + h, U+F000 + (k << 8) + y: the pair
			 * \uD800 + h, \uDC00 + ((k & 3) << 8) + y */
			unsigned long high = ((unsigned long)(v[i + 1] & 0x3F) << 6 |
					      (v[i + 2] & 0x3Fu)) - 0x800,
				      low = (unsigned long)(v[i + 4] & 0x3F) << 6 |
					    (v[i + 5] & 0x3Fu),
				      c = 0x10000UL + (high << 10) +
					  ((low >> 8 & 3) << 8) + (low & 0xFF);

			v[o++] = (unsigned char)(0xF0 | c >> 18);
			v[o++] = (unsigned char)(0x80 | (c >> 12 & 0x3F));
			v[o++] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
			v[o++] = (unsigned char)(0x80 | (c & 0x3F));
			i += 6;
			continue;
		}
		if (!quoted && i + 12 <= len && v[i] == '\\' && v[i + 1] == 'u' &&
		    (v[i + 2] == 'e' || v[i + 2] == 'E') && v[i + 3] &&
		    strchr("89abAB", v[i + 3]) && hex_digit(v[i + 4]) &&
		    hex_digit(v[i + 5]) && v[i + 6] == '\\' &&
		    v[i + 7] == 'u' && (v[i + 8] == 'f' || v[i + 8] == 'F') &&
		    v[i + 9] >= '0' && v[i + 9] <= '7' &&
		    hex_digit(v[i + 10]) && hex_digit(v[i + 11])) {
			memmove(v + o, v + i, 12);
			v[o + 2] = v[i + 2] == 'e' ? 'd' : 'D';
			v[o + 8] = v[i + 8] == 'f' ? 'd' : 'D';
			v[o + 9] = (unsigned char)"CDEFcdef"[v[i + 9] - '0'];
			o += 12;
			i += 12;
			continue;
		}
		v[o++] = v[i++];
	}
	return o;
}

/*
 * Feeds libyaml from the text, refusing to go further once the current
 * document is larger than the cap: libyaml holds a scalar whole before it
 * reports it, so without this a 100 MB scalar would be read into memory
 * before its size could be checked.
 */
static int read_handler(void *data, unsigned char *buffer, size_t size,
			size_t *size_read)
{
	struct source_parser *p = data;
	size_t n = p->read_end - p->read_pos;

	if (p->limits.max_document_bytes && p->read_pos > p->doc_start &&
	    p->read_pos - p->doc_start >
		    p->limits.max_document_bytes + ((size_t)64 << 10)) {
		p->over_cap = 1;
		return 0;
	}
	if (n > size)
		n = size;
	memcpy(buffer, p->text + p->read_pos, n);
	pairs_patch(p, buffer, p->read_pos, n);
	p->read_pos += n;
	*size_read = n;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Positions                                                           */

/* Length of the line break at `off`, 0 when there is none (as libyaml). */
static size_t break_len(const struct source_parser *p, size_t off)
{
	return off < p->len ? yaml_break_len((const unsigned char *)p->text +
					     off, p->len - off)
			    : 0;
}

/* 1 when a line break (as libyaml reads them) ends just before text[at]. */
static int line_starts_at(const char *text, size_t at)
{
	const unsigned char *t = (const unsigned char *)text;

	for (size_t k = 1; k <= 3 && k <= at; k++)
		if (yaml_break_len(t + at - k, k) == k)
			return 1;
	return 0;
}

/* Byte offset of a libyaml mark, whose column counts characters. */
static size_t offset_of(struct source_parser *p, yaml_mark_t mark)
{
	const unsigned char *t = (const unsigned char *)p->text;

	/* before any multibyte character, characters are bytes; the text is
	 * checked for them as far as the marks go, once */
	if (!p->ascii_end) {
		size_t want = p->base_off + mark.index;

		if (want > p->len)
			want = p->len;
		if (p->ascii_to < p->base_off)
			p->ascii_to = p->base_off;
		if (p->ascii_to < want) {
			p->ascii_to += ascii_span(p->text + p->ascii_to,
						  want - p->ascii_to);
			p->ascii_end = p->ascii_to < want;
		}
	}
	/* every byte before ascii_to is a character of its own, so any
	 * position up to it is exact */
	if (p->base_off + mark.index <= p->ascii_to)
		return p->base_off + mark.index;

	if (mark.line < p->cur_line ||
	    (mark.line == p->cur_line && mark.column < p->cur_col)) {
		if (mark.line == p->cur_line) {
			p->cur_off = p->cur_line_off;
		} else {
			/* rare: start over from the top */
			p->cur_line = 0;
			p->cur_off = p->cur_line_off = p->base_off;
		}
		p->cur_col = 0;
	}
	while (p->cur_line < mark.line && p->cur_off < p->len) {
		size_t b = break_len(p, p->cur_off);

		if (b) {
			p->cur_off += b;
			p->cur_line++;
			p->cur_col = 0;
			p->cur_line_off = p->cur_off;
		} else {
			p->cur_off++;
		}
	}
	while (p->cur_col < mark.column && p->cur_off < p->len) {
		p->cur_off++;
		while (p->cur_off < p->len && (t[p->cur_off] & 0xC0) == 0x80)
			p->cur_off++;
		p->cur_col++;
	}
	return p->cur_off;
}

/* ------------------------------------------------------------------ */
/* Nodes                                                               */

void source_node_free(struct source_node *node)
{
	if (!node)
		return;
	for (size_t i = 0; i < node->n_children; i++) {
		free(node->children[i].key);
		source_node_free(node->children[i].node);
	}
	for (size_t i = 0; i < node->n_removed; i++) {
		free(node->removed[i].key);
		source_node_free(node->removed[i].node);
	}
	free(node->children);
	free(node->removed);
	free(node);
}

static struct source_node *node_new(enum source_kind kind)
{
	struct source_node *node = calloc(1, sizeof(*node));

	if (node)
		node->kind = kind;
	return node;
}

/* Appends a child; steals `key` and `node` (also on failure). */
static int node_add_child(struct source_node *parent, struct source_child *c)
{
	if (parent->n_children == parent->cap_children) {
		size_t cap = parent->cap_children ? parent->cap_children * 2 : 4;
		struct source_child *grown = realloc(parent->children,
						     cap * sizeof(*grown));

		if (!grown) {
			free(c->key);
			source_node_free(c->node);
			return -1;
		}
		parent->children = grown;
		parent->cap_children = cap;
	}
	parent->children[parent->n_children++] = *c;
	parent->n_original = parent->n_children;
	return 0;
}

/* A copy of an anchored node's shape for an alias: spans of the alias. */
static struct source_node *alias_node_new(const struct source_node *target)
{
	struct source_node *node = node_new(target->kind);

	if (node) {
		node->alias = 1;
		node->flow = target->flow;
		node->style = target->style;
	}
	return node;
}

/* ------------------------------------------------------------------ */
/* Scalars                                                             */

static int all_digits(const char *s, size_t n, int base)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int ok = base == 16 ? (c >= '0' && c <= '9') ||
					      (c >= 'a' && c <= 'f') ||
					      (c >= 'A' && c <= 'F')
			 : base == 8 ? c >= '0' && c <= '7'
			 : base == 2 ? c == '0' || c == '1'
				     : c >= '0' && c <= '9';
		if (!ok)
			return 0;
	}
	return 1;
}

static int is_float_text(const char *s, size_t n)
{
	size_t i = 0, digits = 0;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	while (i < n && s[i] >= '0' && s[i] <= '9') {
		i++;
		digits++;
	}
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			i++;
			digits++;
		}
	}
	if (!digits)
		return 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t exp_digits = 0;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			i++;
			exp_digits++;
		}
		if (!exp_digits)
			return 0;
	}
	return i == n;
}

static int word_in(const char *s, size_t n, const char *const *words)
{
	for (; *words; words++)
		if (strlen(*words) == n && memcmp(*words, s, n) == 0)
			return 1;
	return 0;
}

/*
 * 1 when the plain scalar text[0..len) is a string for sure, as most are
 * (names): a number starts with a digit, a sign or a dot, and the words
 * (5 bytes at most) with one of ~nNyYtTfFoO.
 */
static int plain_is_name(const char *text, size_t len)
{
	char c0 = len ? text[0] : '\0';

	return !(c0 >= '0' && c0 <= '9') && c0 != '-' && c0 != '+' &&
	       c0 != '.' && (len > 5 || (len && !strchr("~nNyYtTfFoO", c0)));
}

json_t *yaml_resolve_plain(const char *text, size_t len)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
	static const char *const trues[] = { "y", "Y", "yes", "Yes", "YES",
		"true", "True", "TRUE", "on", "On", "ON", NULL };
	static const char *const falses[] = { "n", "N", "no", "No", "NO",
		"false", "False", "FALSE", "off", "Off", "OFF", NULL };
	char clean[64];
	size_t n = 0, i = 0;
	int negative = 0, base = 10;
	char c0 = len ? text[0] : '\0';

	if (plain_is_name(text, len))
		return json_stringn_nocheck(text, len);
	if (!(c0 >= '0' && c0 <= '9') && c0 != '-' && c0 != '+' &&
	    c0 != '.') {
		if (word_in(text, len, nulls))
			return json_null();
		if (word_in(text, len, trues))
			return json_true();
		if (word_in(text, len, falses))
			return json_false();
		return json_stringn_nocheck(text, len);
	}
	if (len >= sizeof(clean) || memchr(text, '\0', len))
		return json_stringn_nocheck(text, len);

	/* numbers: underscores are dropped first, as YAML 1.1 allows */
	for (size_t k = 0; k < len; k++)
		if (text[k] != '_')
			clean[n++] = text[k];
	clean[n] = '\0';
	if (n == 0 || text[0] == '_')
		return json_stringn_nocheck(text, len);
	if (clean[0] == '+' || clean[0] == '-') {
		negative = clean[0] == '-';
		i = 1;
	}
	if (n - i > 2 && clean[i] == '0' && (clean[i + 1] == 'x' || clean[i + 1] == 'X'))
		base = 16, i += 2;
	else if (n - i > 2 && clean[i] == '0' && clean[i + 1] == 'o')
		base = 8, i += 2;
	else if (n - i > 2 && clean[i] == '0' && clean[i + 1] == 'b')
		base = 2, i += 2;
	else if (n - i > 1 && clean[i] == '0' && all_digits(clean + i, n - i, 8))
		base = 8, i += 1;
	if (all_digits(clean + i, n - i, base)) {
		unsigned long long v;
		char *end;

		errno = 0;
		v = strtoull(clean + i, &end, base);
		if (!errno && *end == '\0') {
			if (!negative && v <= (unsigned long long)JSON_INTEGER_MAX)
				return json_integer((json_int_t)v);
			if (negative && v <= (unsigned long long)JSON_INTEGER_MAX + 1ULL)
				return json_integer(v == (unsigned long long)JSON_INTEGER_MAX + 1ULL ?
					(json_int_t)(-JSON_INTEGER_MAX - 1) : -(json_int_t)v);
		}
		if (base == 10)
			return json_real(strtod(clean, NULL));
		return json_stringn_nocheck(text, len);
	}
	if (is_float_text(clean, n)) {
		double d = strtod(clean, NULL);

		if (isfinite(d))
			return json_real(d);
	}
	/* .inf and .nan cannot be JSON: they stay strings */
	return json_stringn_nocheck(text, len);
}

/* 1 when the scalar reads as the string it holds (no tag; quoted, block,
 * or a plain name). */
static int scalar_is_text(const yaml_event_t *ev)
{
	return !ev->data.scalar.tag &&
	       (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
		plain_is_name((const char *)ev->data.scalar.value,
			      ev->data.scalar.length));
}

static json_t *scalar_json(const yaml_event_t *ev)
{
	const char *value = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	const char *tag = (const char *)ev->data.scalar.tag;

	if (scalar_is_text(ev))
		return json_stringn_nocheck(value, len);
	if (tag) {
		if (strcmp(tag, YAML_STR_TAG) == 0)
			return json_stringn_nocheck(value, len);
		if (strcmp(tag, YAML_NULL_TAG) == 0)
			return json_null();
		if (strcmp(tag, YAML_BOOL_TAG) == 0 ||
		    strcmp(tag, YAML_INT_TAG) == 0 ||
		    strcmp(tag, YAML_FLOAT_TAG) == 0)
			return yaml_resolve_plain(value, len);
		if (strcmp(tag, "!") == 0)
			return json_stringn_nocheck(value, len);
	}
	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return json_stringn_nocheck(value, len);
	return yaml_resolve_plain(value, len);
}

/* ------------------------------------------------------------------ */
/* The parser                                                          */

struct source_limits source_limits_of(const struct config *cfg)
{
	struct source_limits limits = {
		.max_document_bytes = cfg->max_document_bytes,
		.max_depth = cfg->max_depth,
		.max_alias_nodes = cfg->max_alias_nodes,
	};

	return limits;
}

struct source_parser *source_parser_new(const char *text, size_t len,
					const struct source_limits *limits)
{
	struct source_parser *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (!yaml_parser_initialize(&p->yaml)) {
		free(p);
		return NULL;
	}
	p->text = text;
	p->len = len;
	if (limits)
		p->limits = *limits;
	if (!p->limits.max_depth || p->limits.max_depth > HARD_MAX_DEPTH)
		p->limits.max_depth = HARD_MAX_DEPTH;
	if (!p->limits.max_alias_nodes ||
	    p->limits.max_alias_nodes > HARD_MAX_ALIAS_NODES)
		p->limits.max_alias_nodes = HARD_MAX_ALIAS_NODES;
	p->want_tree = 1;

	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		p->base_off = 3;
	p->cur_off = p->cur_line_off = p->base_off;
	p->read_pos = 0;
	p->read_end = len;
	yaml_parser_set_input(&p->yaml, read_handler, p);
	return p;
}

static void frame_clear(struct frame *f)
{
	json_decref(f->json);
	source_node_free(f->node);
	if (!f->key_borrowed)
		free(f->key);
	json_decref(f->merged_keys);
	free(f->anchor);
	free(f->ktab);
	memset(f, 0, sizeof(*f));
}

static void doc_state_clear(struct source_parser *p)
{
	for (size_t i = 0; i < p->depth; i++)
		frame_clear(&p->stack[i]);
	p->depth = 0;
	p->n_krecs = p->n_kbytes = 0;
	for (size_t i = 0; i < p->n_anchors; i++) {
		free(p->anchors[i].name);
		json_decref(p->anchors[i].json);
	}
	p->n_anchors = 0;
	p->alias_nodes = 0;
}

void source_parser_free(struct source_parser *p)
{
	if (!p)
		return;
	doc_state_clear(p);
	free(p->stack);
	free(p->anchors);
	free(p->krecs);
	free(p->kbytes);
	yaml_parser_delete(&p->yaml);
	free(p);
}

void source_doc_clear(struct source_doc *doc)
{
	json_decref(doc->json);
	source_node_free(doc->root);
	memset(doc, 0, sizeof(*doc));
}

static int set_error(struct source_error *err, yaml_mark_t mark,
		     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int set_error(struct source_error *err, yaml_mark_t mark,
		     const char *fmt, ...)
{
	va_list ap;

	err->line = (int)mark.line + 1;
	err->column = (int)mark.column + 1;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return -1;
}

/* Registers (or redefines) an anchor; the anchor table keeps a reference
 * to the json and borrows the node, which lives as long as the document. */
static int anchor_set(struct source_parser *p, const char *name, json_t *json,
		      struct source_node *node)
{
	for (size_t i = 0; i < p->n_anchors; i++) {
		if (strcmp(p->anchors[i].name, name) == 0) {
			json_decref(p->anchors[i].json);
			p->anchors[i].json = json_incref(json);
			p->anchors[i].node = node;
			return 0;
		}
	}
	if (p->n_anchors == p->cap_anchors) {
		size_t cap = p->cap_anchors ? p->cap_anchors * 2 : 4;
		struct anchor *grown = realloc(p->anchors, cap * sizeof(*grown));

		if (!grown)
			return -1;
		p->anchors = grown;
		p->cap_anchors = cap;
	}
	if (!(p->anchors[p->n_anchors].name = strdup(name)))
		return -1;
	p->anchors[p->n_anchors].json = json_incref(json);
	p->anchors[p->n_anchors].node = node;
	p->n_anchors++;
	if (node)
		node->anchored = 1;
	return 0;
}

static struct anchor *anchor_get(struct source_parser *p, const char *name)
{
	for (size_t i = p->n_anchors; i-- > 0;)
		if (strcmp(p->anchors[i].name, name) == 0)
			return &p->anchors[i];
	return NULL;
}

/* Counts the nodes of `json`, stopping once past `limit`. */
static size_t count_nodes(json_t *json, size_t limit)
{
	size_t n = 1, i;
	const char *key;
	json_t *child;

	if (json_is_object(json)) {
		json_object_foreach(json, key, child) {
			n += count_nodes(child, limit - (n < limit ? n : limit));
			if (n > limit)
				return n;
		}
	} else if (json_is_array(json)) {
		json_array_foreach(json, i, child) {
			n += count_nodes(child, limit - (n < limit ? n : limit));
			if (n > limit)
				return n;
		}
	}
	return n;
}

/*
 * Merges the mapping `from` into the mapping being built (a << key):
 * explicit keys win whatever their order, so merged keys are remembered.
 */
static int merge_into(struct frame *f, json_t *from)
{
	const char *key;
	json_t *value;

	if (!f->merged_keys && !(f->merged_keys = json_object()))
		return -1;
	json_object_foreach(from, key, value) {
		if (json_member(f->json, key))
			continue;
		if (json_object_set(f->json, key, value) ||
		    json_object_set_new(f->merged_keys, key, json_true()))
			return -1;
	}
	if (f->node)
		f->node->merged = 1;
	return 0;
}

/* (set_error()'s lines are libyaml's; source_next_doc() adds line_base) */
static int duplicate_key(const struct source_parser *p,
			 const struct frame *top, yaml_mark_t mark,
			 struct source_error *err)
{
	set_error(err, mark, "duplicate key '%s'", top->key);
	err->line = top->key_line - p->line_base;
	err->column = top->key_column;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Sparse documents                                                    */

/*
 * A sparse document's json keeps what the list need() gave names
 * (rules_reads()): from the root mapping down, the members it names, whole
 * or (else) with only the members it names of their mappings and of the
 * mappings of their sequences; every element of a kept sequence is kept.
 */
enum keep { KEEP_NONE, KEEP_SOME, KEEP_WHOLE };

/* The entry of the keep list for the pending key of `f`, or NULL. */
static const struct rules_read *listed(const struct source_parser *p,
				       const struct frame *f)
{
	/* most keys are of a length no entry has */
	if (f->key_len >= 32 || !(p->keep_lens >> f->key_len & 1))
		return NULL;
	for (const struct rules_read *r = p->keep; r->key; r++)
		if (r->len == f->key_len && memcmp(r->key, f->key, r->len) == 0)
			return r;
	return NULL;
}

/* What a sparse document keeps of the value to come, at the place the
 * frame on top has open (inline: most places keep what their frame does). */
static inline enum keep sparse_keep(const struct source_parser *p)
{
	const struct frame *top = p->depth ? &p->stack[p->depth - 1] : NULL;
	const struct rules_read *r;

	if (!top)
		return KEEP_SOME;
	if (top->keep != KEEP_SOME || !top->mapping)
		return (enum keep)top->keep;
	r = listed(p, top);
	return !r ? KEEP_NONE : r->whole ? KEEP_WHOLE : KEEP_SOME;
}

static unsigned key_hash(const char *key, size_t len)
{
	unsigned h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)key[i]) * 16777619u;
	return h;
}

/* Beyond this many keys, a sparse mapping looks its keys up in a table. */
#define KTAB_FROM 16

static int krec_same(const struct source_parser *p, size_t i,
		     const char *key, size_t len)
{
	const struct krec *r = &p->krecs[i];

	return r->len == len && memcmp(p->kbytes + r->off, key, len) == 0;
}

/* Puts record `i` in f's table (cap: a power of two, 0 an empty slot). */
static void ktab_put(struct frame *f, const struct source_parser *p,
		     size_t i)
{
	size_t slot = p->krecs[i].hash & (f->ktab_cap - 1);

	while (f->ktab[slot])
		slot = (slot + 1) & (f->ktab_cap - 1);
	f->ktab[slot] = i + 1;
}

/*
 * Makes room for `n` more bytes in kbytes; the keys that point into it
 * follow it when it moves. 0, or -1 when out of memory.
 */
static int kbytes_reserve(struct source_parser *p, size_t n)
{
	size_t cap = p->cap_kbytes ? p->cap_kbytes : 1024;
	char *grown;

	if (p->cap_kbytes - p->n_kbytes >= n)
		return 0;
	while (cap - p->n_kbytes < n)
		cap *= 2;
	if (!(grown = realloc(p->kbytes, cap)))
		return -1;
	for (size_t i = 0; i < p->depth; i++)
		if (p->stack[i].key_borrowed)
			p->stack[i].key = grown + (p->stack[i].key - p->kbytes);
	p->kbytes = grown;
	p->cap_kbytes = cap;
	return 0;
}

/*
 * Records the pending key of the sparse mapping `f` (its bytes are in
 * kbytes already, handle_key() put them there): 0, 1 when the mapping
 * has it already (a duplicate), -1 when out of memory.
 */
static int sparse_key_add(struct source_parser *p, struct frame *f)
{
	const char *key = f->key;
	size_t len = f->key_len, n = p->n_krecs - f->kbase;
	/* the hash is for the table: the few keys before it go without */
	unsigned h = f->ktab || n >= KTAB_FROM ? key_hash(key, len) : 0;
	struct krec *r;

	if (f->ktab) {
		for (size_t slot = h & (f->ktab_cap - 1); f->ktab[slot];
		     slot = (slot + 1) & (f->ktab_cap - 1))
			if (p->krecs[f->ktab[slot] - 1].hash == h &&
			    krec_same(p, f->ktab[slot] - 1, key, len))
				return 1;
	} else {
		for (size_t i = f->kbase; i < p->n_krecs; i++)
			if (krec_same(p, i, key, len))
				return 1;
	}
	if (p->n_krecs == p->cap_krecs) {
		size_t cap = p->cap_krecs ? p->cap_krecs * 2 : 64;
		struct krec *grown = realloc(p->krecs, cap * sizeof(*grown));

		if (!grown)
			return -1;
		p->krecs = grown;
		p->cap_krecs = cap;
	}
	r = &p->krecs[p->n_krecs];
	r->off = (size_t)(key - p->kbytes);
	r->len = len;
	r->hash = h;
	p->n_krecs++;
	n++;
	if (n > KTAB_FROM && n * 2 > f->ktab_cap) {
		/* (re)built at twice the keys, at least */
		size_t cap = f->ktab_cap ? f->ktab_cap * 2 : 64;
		size_t *tab = calloc(cap, sizeof(*tab));

		if (!tab)
			return -1;
		/* the keys before the first table have no hash yet */
		for (size_t i = f->kbase; !f->ktab && i < p->n_krecs; i++)
			p->krecs[i].hash = key_hash(p->kbytes + p->krecs[i].off,
						    p->krecs[i].len);
		free(f->ktab);
		f->ktab = tab;
		f->ktab_cap = cap;
		for (size_t i = f->kbase; i < p->n_krecs; i++)
			ktab_put(f, p, i);
	} else if (f->ktab) {
		ktab_put(f, p, p->n_krecs - 1);
	}
	return 0;
}

/* attach() in a sparse document: `json` (NULL when not kept) goes where
 * the frame on top keeps it; a mapping's keys are checked as ever. */
static int attach_sparse(struct source_parser *p, struct frame *top,
			 json_t *json, yaml_mark_t mark,
			 struct source_error *err)
{
	int rc;

	top->seen++;
	if (!top->mapping) {
		/* the elements of a kept sequence are kept */
		if (json && json_array_append_new(top->json, json))
			return set_error(err, mark, "out of memory");
		return 0;
	}
	rc = sparse_key_add(p, top);
	if (rc != 0 || !json)
		json_decref(json);
	else if (json_object_setn_new_nocheck(top->json, top->key,
					      top->key_len, json))
		rc = -1;
	if (rc > 0)
		return duplicate_key(p, top, mark, err);
	top->key = NULL;
	top->key_borrowed = 0;
	return rc ? set_error(err, mark, "out of memory") : 0;
}

static int expecting_key(struct source_parser *p);

/* 1 when a sparse document cannot go on sparse at event `ev`: an anchor,
 * an alias or a merge key (a merge's keys come from values), or a
 * containers member left out (rules_reads(): the rules may find a pod spec
 * anywhere one is). */
static int sparse_stops(struct source_parser *p, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return 1;
	case YAML_MAPPING_START_EVENT:
		return ev->data.mapping_start.anchor != NULL;
	case YAML_SEQUENCE_START_EVENT:
		return ev->data.sequence_start.anchor != NULL;
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.anchor)
			return 1;
		if (!expecting_key(p))
			return 0;
		return (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
			ev->data.scalar.length == 2 &&
			memcmp(ev->data.scalar.value, "<<", 2) == 0) ||
		       (p->keep_watch &&
			p->stack[p->depth - 1].keep == KEEP_NONE &&
			ev->data.scalar.length == 10 &&
			memcmp(ev->data.scalar.value, "containers", 10) == 0);
	default:
		return 0;
	}
}

/*
 * Attaches a finished value to the frame on top (or makes it the document
 * root). Steals `json` and `node`.
 */
static int attach(struct source_parser *p, struct source_doc *doc,
		  json_t *json, struct source_node *node, yaml_mark_t mark,
		  struct source_error *err)
{
	struct frame *top = p->depth ? &p->stack[p->depth - 1] : NULL;
	struct source_child child = { 0 };
	size_t size;

	if (!top) {
		doc->json = json;
		doc->root = node;
		return 0;
	}
	if (p->sparse)
		return attach_sparse(p, top, json, mark, err);
	if (!top->mapping) {
		child.node = node;
		if (json_array_append_new(top->json, json))
			goto out_nomem;
		if (!top->node)
			return 0;
		return node_add_child(top->node, &child) ? set_error(err, mark,
			"out of memory") : 0;
	}
	if (top->merge_pending) {
		size_t i;
		json_t *item;
		int rc = 0;

		top->merge_pending = 0;
		free(top->key);
		top->key = NULL;
		if (json_is_object(json)) {
			rc = merge_into(top, json);
		} else if (json_is_array(json)) {
			/* earlier mappings of the list win */
			json_array_foreach(json, i, item) {
				if (!json_is_object(item)) {
					rc = 1;
					break;
				}
				if ((rc = merge_into(top, item)))
					break;
			}
		} else {
			rc = 1;
		}
		json_decref(json);
		source_node_free(node);
		if (rc)
			return set_error(err, mark, rc > 0 ?
				"a merge key (<<) needs a mapping or a list of mappings" :
				"out of memory");
		return 0;
	}
	/* libyaml has checked the UTF-8 already, and keys hold no NUL; a
	 * key that was there already (the size stays) is a duplicate, unless
	 * a merge put it there: the merged keys are some of the mapping's */
	size = json_object_size(top->json);
	if (json_object_setn_new_nocheck(top->json, top->key, top->key_len,
					 json))
		goto out_nomem_node;
	if (json_object_size(top->json) == size) {
		if (!json_object_getn(top->merged_keys, top->key,
				      top->key_len)) {
			source_node_free(node);
			return duplicate_key(p, top, mark, err);
		}
		json_object_deln(top->merged_keys, top->key, top->key_len);
	}
	child.key = top->key;
	child.key_start = top->key_start;
	child.key_end = top->key_end;
	child.key_line = top->key_line;
	child.key_column = top->key_column;
	child.key_style = top->key_style;
	child.node = node;
	top->key = NULL;
	if (!top->node) {
		free(child.key);
		return 0;
	}
	return node_add_child(top->node, &child) ?
		set_error(err, mark, "out of memory") : 0;
out_nomem:
	source_node_free(node);
	return set_error(err, mark, "out of memory");
out_nomem_node:
	source_node_free(node);
	return set_error(err, mark, "out of memory");
}

/* 1 when the next node event is a mapping key. */
static int expecting_key(struct source_parser *p)
{
	struct frame *top = p->depth ? &p->stack[p->depth - 1] : NULL;

	return top && top->mapping && !top->key &&
	       !top->merge_pending;
}

/* End of a scalar's text: block scalars' end marks include the trailing
 * line breaks, which belong to no node. */
static size_t scalar_end(struct source_parser *p, size_t start, size_t end,
			 int style)
{
	if (style == YAML_LITERAL_SCALAR_STYLE ||
	    style == YAML_FOLDED_SCALAR_STYLE) {
		/* with "keep" chomping (|+, >+) the trailing breaks are part of
		 * the value: the node ends where the next line starts */
		for (size_t i = start; i < end && p->text[i] != '\n' &&
				       p->text[i] != '\r' && p->text[i] != '#'; i++)
			if (p->text[i] == '+')
				return end;
		while (end > start && (p->text[end - 1] == '\n' ||
				       p->text[end - 1] == '\r' ||
				       p->text[end - 1] == ' ' ||
				       p->text[end - 1] == '\t'))
			end--;
	}
	return end;
}

static int handle_key(struct source_parser *p, yaml_event_t *ev,
		      struct source_error *err)
{
	struct frame *top = &p->stack[p->depth - 1];
	size_t start, end;

	if (ev->type != YAML_SCALAR_EVENT)
		return set_error(err, ev->start_mark,
				 ev->type == YAML_ALIAS_EVENT ?
				 "an alias as a mapping key is not supported" :
				 "a mapping or sequence as a mapping key is not supported");
	/* only a double-quoted escape writes one: the reader refuses the
	 * character itself */
	if (ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE &&
	    memchr(ev->data.scalar.value, '\0', ev->data.scalar.length))
		return set_error(err, ev->start_mark,
				 "a mapping key contains a NUL character");
	if (p->tree) {
		start = offset_of(p, ev->start_mark);
		end = scalar_end(p, start, offset_of(p, ev->end_mark),
				 ev->data.scalar.style);
	} else {
		start = end = 0;
	}
	if (p->sparse) {
		/* the mapping's key records keep it: it goes there at once */
		if (kbytes_reserve(p, ev->data.scalar.length + 1))
			return set_error(err, ev->start_mark, "out of memory");
		top->key = p->kbytes + p->n_kbytes;
		top->key_borrowed = 1;
		memcpy(top->key, ev->data.scalar.value, ev->data.scalar.length);
		p->n_kbytes += ev->data.scalar.length + 1;
	} else {
		/* taken from the event (libyaml's malloc'd value, no NUL in
		 * it) */
		top->key = (char *)ev->data.scalar.value;
		ev->data.scalar.value = NULL;
	}
	/* pairs_fix() may have shortened it: it is ended again */
	top->key[ev->data.scalar.length] = '\0';
	top->key_len = ev->data.scalar.length;
	top->key_start = start;
	top->key_end = end;
	top->key_line = (int)ev->start_mark.line + 1 + p->line_base;
	top->key_column = (int)ev->start_mark.column + 1;
	top->key_style = ev->data.scalar.style;
	top->merge_pending = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
			     top->key_len == 2 && top->key[0] == '<' &&
			     top->key[1] == '<';
	return 0;
}

/*
 * source_reads_as(): what the value to come must be (NULL when nothing is
 * there), at the place the frame on top has open.
 */
static json_t *verify_expect(const struct source_parser *p)
{
	const struct frame *top = p->depth ? &p->stack[p->depth - 1] : NULL;

	if (!top)
		return p->verify;
	return top->mapping ? json_object_getn(top->expect, top->key,
					       top->key_len)
			    : json_array_get(top->expect, top->seen);
}

/* Ends a source_reads_as() reading: the text reads as something else. */
static int verify_differs(yaml_mark_t mark, struct source_error *err)
{
	return set_error(err, mark, "reads as another value");
}

static int push_frame(struct source_parser *p, yaml_event_t *ev,
		      struct source_error *err)
{
	int mapping = ev->type == YAML_MAPPING_START_EVENT;
	const unsigned char *anchor = mapping ? ev->data.mapping_start.anchor
					      : ev->data.sequence_start.anchor;
	struct frame *f;
	enum keep keep;
	json_t *expect = NULL;

	if ((int)p->depth >= p->limits.max_depth)
		return set_error(err, ev->start_mark,
				 "nesting deeper than %d levels",
				 p->limits.max_depth);
	if (p->depth == p->cap_stack) {
		size_t cap = p->cap_stack ? p->cap_stack * 2 : 16;
		struct frame *grown = realloc(p->stack, cap * sizeof(*grown));

		if (!grown)
			return set_error(err, ev->start_mark, "out of memory");
		p->stack = grown;
		p->cap_stack = cap;
	}
	if (p->verify) {
		expect = verify_expect(p);
		if (mapping ? !json_is_object(expect) : !json_is_array(expect))
			return verify_differs(ev->start_mark, err);
		keep = KEEP_NONE;
	} else {
		keep = p->sparse ? sparse_keep(p) : KEEP_WHOLE;
	}
	f = &p->stack[p->depth];
	memset(f, 0, sizeof(*f));
	f->expect = expect;
	f->mapping = mapping;
	f->keep = keep;
	f->kbase = p->n_krecs;
	f->kbytes_base = p->n_kbytes;
	if (keep != KEEP_NONE)
		f->json = mapping ? json_object() : json_array();
	f->node = p->tree ?
		node_new(mapping ? SOURCE_MAPPING : SOURCE_SEQUENCE) : NULL;
	if (anchor)
		f->anchor = strdup((const char *)anchor);
	p->depth++;
	if ((keep != KEEP_NONE && !f->json) || (p->tree && !f->node) ||
	    (anchor && !f->anchor))
		return set_error(err, ev->start_mark, "out of memory");
	if (!f->node)
		return 0;
	f->node->flow = mapping ?
		ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE :
		ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
	f->node->start = offset_of(p, ev->start_mark);
	f->node->line = (int)ev->start_mark.line + 1 + p->line_base;
	f->node->column = (int)ev->start_mark.column + 1;
	return 0;
}

static int pop_frame(struct source_parser *p, struct source_doc *doc,
		     yaml_event_t *ev, struct source_error *err)
{
	struct frame *f = &p->stack[p->depth - 1];
	struct source_node *node = f->node;
	json_t *json = f->json;
	char *anchor = f->anchor;

	/* every member was found, and there are no others (its keys are
	 * distinct: the key records tell duplicates) */
	if (p->verify && f->seen != (f->mapping ? json_object_size(f->expect)
					       : json_array_size(f->expect)))
		return verify_differs(ev->start_mark, err);
	if (!node)
		;
	else if (node->flow)
		node->end = offset_of(p, ev->end_mark);
	else if (node->n_children)
		node->end = node->children[node->n_children - 1].node->end;
	else
		node->end = node->start;
	if (anchor && anchor_set(p, anchor, json, node)) {
		free(anchor);
		return set_error(err, ev->start_mark, "out of memory");
	}
	free(anchor);
	if (!f->key_borrowed)
		free(f->key);
	json_decref(f->merged_keys);
	free(f->ktab);
	p->n_krecs = f->kbase;
	p->n_kbytes = f->kbytes_base;
	/* (frames above the depth are not looked at: push_frame() clears) */
	p->depth--;
	return attach(p, doc, json, node, ev->start_mark, err);
}

static int handle_node(struct source_parser *p, struct source_doc *doc,
		       yaml_event_t *ev, struct source_error *err)
{
	struct source_node *node;
	json_t *json;

	if (ev->type == YAML_MAPPING_START_EVENT ||
	    ev->type == YAML_SEQUENCE_START_EVENT)
		return push_frame(p, ev, err);

	if (ev->type == YAML_ALIAS_EVENT) {
		struct anchor *a = anchor_get(p, (const char *)ev->data.alias.anchor);
		size_t budget;

		if (!a)
			return set_error(err, ev->start_mark, "unknown alias '%s'",
					 (const char *)ev->data.alias.anchor);
		budget = p->limits.max_alias_nodes - p->alias_nodes;
		p->alias_nodes += count_nodes(a->json, budget);
		if (p->alias_nodes > p->limits.max_alias_nodes)
			return set_error(err, ev->start_mark,
					 "aliases expand to more than %zu nodes",
					 p->limits.max_alias_nodes);
		json = json_deep_copy(a->json);
		node = p->tree ? alias_node_new(a->node) : NULL;
		if (!json || (p->tree && !node)) {
			json_decref(json);
			source_node_free(node);
			return set_error(err, ev->start_mark, "out of memory");
		}
		if (node) {
			node->start = offset_of(p, ev->start_mark);
			node->end = offset_of(p, ev->end_mark);
			node->line = (int)ev->start_mark.line + 1 + p->line_base;
			node->column = (int)ev->start_mark.column + 1;
		}
		return attach(p, doc, json, node, ev->start_mark, err);
	}

	/* scalar */
	if (p->verify) {
		json_t *expect = verify_expect(p);
		const char *value = (const char *)ev->data.scalar.value;
		size_t len = ev->data.scalar.length;
		int same;

		/* a string for sure: compared as it is */
		if (scalar_is_text(ev)) {
			same = json_is_string(expect) &&
			       json_string_length(expect) == len &&
			       memcmp(json_string_value(expect), value, len) == 0;
		} else {
			if (!(json = scalar_json(ev)))
				return set_error(err, ev->start_mark,
						 "out of memory");
			same = expect && json_equal(json, expect);
			json_decref(json);
		}
		if (!same)
			return verify_differs(ev->start_mark, err);
		return attach(p, doc, NULL, NULL, ev->start_mark, err);
	}
	if (p->sparse) {
		int kept = sparse_keep(p) != KEEP_NONE;

		json = kept ? scalar_json(ev) : NULL;
		if (kept && !json)
			return set_error(err, ev->start_mark, "out of memory");
		return attach(p, doc, json, NULL, ev->start_mark, err);
	}
	json = scalar_json(ev);
	node = p->tree ? node_new(SOURCE_SCALAR) : NULL;
	if (!json || (p->tree && !node)) {
		json_decref(json);
		source_node_free(node);
		return set_error(err, ev->start_mark, "out of memory");
	}
	if (node) {
		node->style = ev->data.scalar.style;
		node->start = offset_of(p, ev->start_mark);
		node->end = scalar_end(p, node->start,
				       offset_of(p, ev->end_mark), node->style);
		node->line = (int)ev->start_mark.line + 1 + p->line_base;
		node->column = (int)ev->start_mark.column + 1;
	}
	if (ev->data.scalar.anchor &&
	    anchor_set(p, (const char *)ev->data.scalar.anchor, json, node)) {
		json_decref(json);
		source_node_free(node);
		return set_error(err, ev->start_mark, "out of memory");
	}
	return attach(p, doc, json, node, ev->start_mark, err);
}

static int doc_reread(const char *text, size_t len, struct source_doc *doc,
		      size_t end, const struct source_limits *limits,
		      int tree, struct source_error *err);

/* need() about the whole of a sparse document that ran on past the text
 * it was asked about: 1 when it is to be read in full (it wants that, or
 * to keep other members than it was read with). */
static int sparse_again(struct source_parser *p, struct source_doc *doc)
{
	const struct rules_read *was = p->keep;

	return p->need(p->need_arg, p->text + doc->start,
		       doc->end - doc->start, &p->keep) != 0 ||
	       p->keep != was;
}

/*
 * A sparse document that cannot go on sparse (sparse_stops()) is read in
 * full from its start by another parser, whose first error, if any, is the
 * document's first one; this parser only goes through its events to its
 * end then. 0, or -1 with `err`.
 */
static int sparse_leave(struct source_parser *p, struct source_doc *doc,
			struct source_error *err)
{
	doc_state_clear(p);
	p->sparse = 0;
	p->skipping = 1;
	return doc_reread(p->text, p->len, doc, p->len, &p->limits, 0, err);
}

/* How far need() is shown past a document's start for the next marker. */
#define SPARSE_SCAN ((size_t)64 << 10)

/* 1 when a document marker (--- or ...) starts at `q`. */
static int marker_at(const char *q, const char *end)
{
	return end - q >= 3 &&
	       (memcmp(q, "---", 3) == 0 || memcmp(q, "...", 3) == 0) &&
	       (end - q == 3 || q[3] == ' ' || q[3] == '\t' ||
		q[3] == '\r' || q[3] == '\n');
}

/*
 * The first line in (from, limit) that opens with a document marker: the
 * start of a line after a '\n' at `from` or later. NULL when none.
 */
static const char *marker_line(const char *from, const char *limit,
			       const char *end)
{
	const char *q = from;

#if SCAN_SSE2
	/* a line break followed by '-' or '.': 16 places at once */
	const __m128i nl = _mm_set1_epi8('\n'), dash = _mm_set1_epi8('-'),
		      dot = _mm_set1_epi8('.');

	for (; limit - q >= 17; q += 16) {
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(q + 1));
		unsigned hits = (unsigned)_mm_movemask_epi8(_mm_and_si128(
			_mm_cmpeq_epi8(_mm_loadu_si128(
				(const __m128i *)(const void *)q), nl),
			_mm_or_si128(_mm_cmpeq_epi8(b, dash),
				     _mm_cmpeq_epi8(b, dot))));

		for (; hits; hits &= hits - 1)
			if (marker_at(q + __builtin_ctz(hits) + 1, end))
				return q + __builtin_ctz(hits) + 1;
	}
#endif
	for (; limit - q >= 2; q++)
		if (*q == '\n' && marker_at(q + 1, end))
			return q + 1;
	return NULL;
}

/* 1 when text[0..len) holds "<<". */
static int has_merge(const char *text, size_t len)
{
	for (const char *q = text;
	     (q = memchr(q, '<', len - (size_t)(q - text))) != NULL; q++)
		if (q + 1 < text + len && q[1] == '<')
			return 1;
	return 0;
}

/* Sets keep_lens and keep_watch of the keep list. */
static void keep_index(struct source_parser *p)
{
	p->keep_lens = 0;
	p->keep_watch = 0;
	for (const struct rules_read *r = p->keep; r->key; r++) {
		if (r->len < 32)
			p->keep_lens |= (uint32_t)1 << r->len;
		if (r->len == 10 && memcmp(r->key, "containers", 10) == 0)
			p->keep_watch = 1;
	}
}

/*
 * At a document's start: asks need() about the text from `start` to the
 * end of the next line that opens with a document marker, or to the
 * text's end, whichever comes first, whether the document is read sparse
 * and whether it gets its tree at once. That is where the
 * document ends unless it runs on past a marker line (DOCUMENT_END asks
 * again then); with no such line in SPARSE_SCAN bytes, it is read in full.
 */
static void sparse_decide(struct source_parser *p, size_t start)
{
	const char *t = p->text, *end = t + p->len;
	const char *limit = p->len - start > SPARSE_SCAN ?
			    t + start + SPARSE_SCAN : end;
	const char *q;
	size_t to = 0;

	p->sparse = 0;
	p->tree = p->want_tree;
	if (p->verify) {
		/* compared as it is read: a sparse reading that keeps nothing
		 * but the key records */
		p->sparse = 1;
		p->sparse_to = p->len;
		p->tree = 0;
		p->keep_watch = 0;
		return;
	}
	if (!p->need)
		return;
	if ((q = marker_line(t + start, limit, end)) != NULL) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));

		to = nl ? (size_t)(nl - t) + 1 : p->len;
	}
	if (!to && limit == end)
		to = p->len;
	/* an anchor, alias or merge key (& * <<) may be there: in full
	 * (sparse_leave() reads the document twice otherwise) */
	if (to && (memchr(t + start, '&', to - start) ||
		   memchr(t + start, '*', to - start) ||
		   has_merge(t + start, to - start)))
		to = 0;
	if (to) {
		int need = p->need(p->need_arg, t + start, to - start,
				   &p->keep);

		p->sparse = !need;
		p->sparse_to = to;
		/* a tree at once only when need() asks for it */
		p->tree = p->want_tree && need > 1;
		if (p->sparse)
			keep_index(p);
	}
}

int source_next_doc(struct source_parser *p, struct source_doc *doc,
		    struct source_error *err)
{
	yaml_event_t ev;
	int rc = -1;

	memset(doc, 0, sizeof(*doc));
	memset(err, 0, sizeof(*err));
	if (p->finished)
		return 0;
	for (;;) {
		if (!yaml_parser_parse(&p->yaml, &ev)) {
			yaml_mark_t mark = p->yaml.problem_mark;

			if (p->yaml.context)
				set_error(err, mark, "%s %s",
					  p->yaml.problem ? p->yaml.problem : "syntax error",
					  p->yaml.context);
			else
				set_error(err, mark, "%s", p->yaml.problem ?
					  p->yaml.problem : "syntax error");
			if (p->over_cap) {
				err->line = 0;
				err->column = 0;
				snprintf(err->message, sizeof(err->message),
					 "a document is larger than %zu bytes (limits.maxDocumentBytes)",
					 p->limits.max_document_bytes);
			} else if (p->yaml.error == YAML_READER_ERROR) {
				/* reader errors count bytes, not lines */
				err->line = 0;
				err->column = 0;
				snprintf(err->message, sizeof(err->message),
					 "%s at byte %zu",
					 p->yaml.problem ? p->yaml.problem :
					 "invalid input",
					 p->read_from + p->yaml.problem_offset);
			}
			goto out_fail;
		}
		if (ev.type == YAML_SCALAR_EVENT &&
		    (ev.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ||
		     p->pairs_patched))
			ev.data.scalar.length = pairs_fix(
				ev.data.scalar.value, ev.data.scalar.length,
				ev.data.scalar.style ==
					YAML_DOUBLE_QUOTED_SCALAR_STYLE);
		switch (ev.type) {
		case YAML_STREAM_START_EVENT:
		case YAML_NO_EVENT:
			break;
		case YAML_STREAM_END_EVENT:
			p->finished = 1;
			yaml_event_delete(&ev);
			return 0;
		case YAML_DOCUMENT_START_EVENT:
			doc->start = p->doc_start = offset_of(p, ev.start_mark);
			/* an indented first line belongs to the document: its
			 * span starts at the line's start */
			while (doc->start > p->base_off &&
			       (p->text[doc->start - 1] == ' ' ||
				p->text[doc->start - 1] == '\t'))
				doc->start--;
			if (doc->start > p->base_off &&
			    p->text[doc->start - 1] != '\n' &&
			    p->text[doc->start - 1] != '\r')
				doc->start = p->doc_start;
			p->doc_start_index = ev.start_mark.index;
			doc->line = (int)ev.start_mark.line + 1 + p->line_base;
			doc->index = p->index++;
			sparse_decide(p, doc->start);
			break;
		case YAML_DOCUMENT_END_EVENT:
			doc->end = offset_of(p, ev.end_mark);
			if (doc->end < doc->start)
				doc->end = doc->start;
			doc_state_clear(p);
			yaml_event_delete(&ev);
			/* longer than the text need() saw: asked again, and
			 * read in full unless it keeps the same */
			doc->sparse = p->sparse;
			p->sparse = 0;
			p->skipping = 0;
			if (doc->sparse && doc->end > p->sparse_to &&
			    sparse_again(p, doc) &&
			    doc_reread(p->text, p->len, doc, doc->end,
				       &p->limits, 0, err)) {
				source_doc_clear(doc);
				p->finished = 1;
				return -1;
			}
			return 1;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			if (!p->skipping && pop_frame(p, doc, &ev, err))
				goto out_fail;
			break;
		default:
			if (p->skipping)
				break;
			if (p->sparse && sparse_stops(p, &ev)) {
				if (p->verify) {
					/* anchors, aliases, merges: read in
					 * full instead */
					p->verify_unsure = 1;
					set_error(err, ev.start_mark,
						  "read in full");
					goto out_fail;
				}
				if (sparse_leave(p, doc, err))
					goto out_fail;
			} else if (expecting_key(p)) {
				if (handle_key(p, &ev, err))
					goto out_fail;
			} else if (handle_node(p, doc, &ev, err)) {
				goto out_fail;
			}
			break;
		}
		/* characters, not bytes: cheap, and never more than the bytes */
		if (p->limits.max_document_bytes &&
		    ev.end_mark.index - p->doc_start_index >
			    p->limits.max_document_bytes) {
			set_error(err, ev.end_mark,
				  "document larger than %zu bytes (limits.maxDocumentBytes)",
				  p->limits.max_document_bytes);
			goto out_fail;
		}
		yaml_event_delete(&ev);
	}
out_fail:
	/* a document read again: its lines in the whole text */
	if (err->line > 0)
		err->line += p->line_base;
	yaml_event_delete(&ev);
	doc_state_clear(p);
	p->sparse = p->skipping = 0;
	source_doc_clear(doc);
	p->finished = 1;
	return rc;
}

void source_parser_set_tree(struct source_parser *p, int want_tree)
{
	p->want_tree = want_tree;
}

void source_parser_set_need(struct source_parser *p, source_need_fn need,
			    void *arg)
{
	p->need = need;
	p->need_arg = arg;
}

/*
 * Reads the span of `doc` again, in full: takes its source tree (`tree`)
 * or its value (else). 0, or -1 with `err`.
 */
static int doc_reread(const char *text, size_t len, struct source_doc *doc,
		      size_t end, const struct source_limits *limits,
		      int tree, struct source_error *err)
{
	struct source_parser *p;
	struct source_doc again;
	size_t from = doc->start;
	int rc;

	/* from the start of the document's first line, so that columns and
	 * the position cursor agree with the first pass (NEL, U+2028 and
	 * U+2029 end lines too) */
	while (from > 0 && !line_starts_at(text, from))
		from--;
	p = source_parser_new(text, len, limits);
	if (!p) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return -1;
	}
	if (from > p->base_off)
		p->base_off = from;
	p->cur_off = p->cur_line_off = p->base_off;
	p->line_base = doc->line - 1;
	yaml_parser_delete(&p->yaml);
	yaml_parser_initialize(&p->yaml);
	p->read_pos = p->doc_start = p->read_from = p->base_off;
	p->read_end = end;
	yaml_parser_set_input(&p->yaml, read_handler, p);
	p->want_tree = tree;
	rc = source_next_doc(p, &again, err);
	if (rc > 0) {
		if (tree) {
			source_node_free(doc->root);
			doc->root = again.root;
			again.root = NULL;
		} else {
			json_decref(doc->json);
			doc->json = again.json;
			again.json = NULL;
			doc->sparse = 0;
		}
		source_doc_clear(&again);
		rc = 0;
	} else if (rc == 0) {
		snprintf(err->message, sizeof(err->message),
			 "the document vanished on a second reading");
		rc = -1;
	}
	source_parser_free(p);
	return rc;
}

int source_doc_tree(const char *text, size_t len, struct source_doc *doc,
		    const struct source_limits *limits,
		    struct source_error *err)
{
	return doc_reread(text, len, doc, doc->end, limits, 1, err);
}

int source_doc_full(const char *text, size_t len, struct source_doc *doc,
		    const struct source_limits *limits,
		    struct source_error *err)
{
	return doc_reread(text, len, doc, doc->end, limits, 0, err);
}

json_t *source_parse_one(const char *text, size_t len,
			 const struct source_limits *limits,
			 struct source_node **root, struct source_error *err)
{
	struct source_parser *p = source_parser_new(text, len, limits);
	struct source_doc doc, extra;
	json_t *json = NULL;
	int rc;

	if (root)
		*root = NULL;
	if (!p) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return NULL;
	}
	p->want_tree = root != NULL;
	rc = source_next_doc(p, &doc, err);
	if (rc == 0) {
		json = json_null();
		goto out;
	}
	if (rc < 0)
		goto out;
	rc = source_next_doc(p, &extra, err);
	if (rc != 0) {
		if (rc > 0) {
			err->line = extra.line;
			err->column = 1;
			snprintf(err->message, sizeof(err->message),
				 "expected one document, found more");
			source_doc_clear(&extra);
		}
		source_doc_clear(&doc);
		goto out;
	}
	json = doc.json ? doc.json : json_null();
	doc.json = NULL;
	if (root) {
		*root = doc.root;
		doc.root = NULL;
	}
	source_doc_clear(&doc);
out:
	source_parser_free(p);
	return json;
}

int source_reads_as(const char *text, size_t len,
		    const struct source_limits *limits, json_t *expected)
{
	struct source_parser *p = source_parser_new(text, len, limits);
	struct source_doc doc, extra;
	struct source_error err;
	json_t *got;
	int rc, same = 0;

	if (!p)
		return 0;
	p->want_tree = 0;
	p->verify = expected;
	rc = source_next_doc(p, &doc, &err);
	if (rc > 0) {
		source_doc_clear(&doc);
		/* one document, no more */
		rc = source_next_doc(p, &extra, &err);
		if (rc > 0)
			source_doc_clear(&extra);
		same = rc == 0;
	} else if (rc == 0) {
		same = json_is_null(expected);
	}
	if (p->verify_unsure) {
		got = source_parse_one(text, len, limits, NULL, &err);
		same = got && json_equal(got, expected);
		json_decref(got);
	}
	source_parser_free(p);
	return same;
}

/* ------------------------------------------------------------------ */
/* Locating a pointer                                                  */

/*
 * Walks `pointer` down the tree from `root`: *line, *column as
 * source_locate() says; with `value`, a member found whole is named at
 * its value rather than its key.
 */
static void locate(struct source_node *root, const char *pointer,
		   int value, int *line, int *column)
{
	struct source_node *node = root;
	char token[1024];

	*line = root ? root->line : 0;
	*column = root ? root->column : 0;
	while (node && *pointer) {
		struct source_child *found = NULL;

		if (node->alias || node->merged ||
		    json_pointer_next(&pointer, token, sizeof(token)) != 0)
			return;
		if (node->kind == SOURCE_MAPPING) {
			for (size_t i = 0; i < node->n_children; i++) {
				if (strcmp(node->children[i].key, token) == 0) {
					found = &node->children[i];
					break;
				}
			}
			if (!found)
				return;
			*line = found->key_line;
			*column = found->key_column;
		} else if (node->kind == SOURCE_SEQUENCE) {
			char *end;
			unsigned long idx = strtoul(token, &end, 10);

			if (*end || !*token || idx >= node->n_children)
				return;
			found = &node->children[idx];
			*line = found->node->line;
			*column = found->node->column;
		} else {
			return;
		}
		node = found->node;
	}
	/* the whole pointer was found: its value's own place, if asked */
	if (value && node && node != root && node->line > 0) {
		*line = node->line;
		*column = node->column;
	}
}

void source_locate(struct source_node *root, const char *pointer, int *line,
		   int *column)
{
	locate(root, pointer, 0, line, column);
}

void source_locate_value(struct source_node *root, const char *pointer,
			 int *line, int *column)
{
	locate(root, pointer, 1, line, column);
}
