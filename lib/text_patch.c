/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * text_patch.c - turns the engine's operations into edits of the source
 * text, so that everything no rule changes stays byte for byte: comments,
 * key order, quoting, indentation, blank lines, markers, line endings.
 *
 * The operations are first applied to the source tree (which keeps track of
 * renamed, removed, added and replaced nodes); the tree is then walked
 * alongside the migrated json to produce edits: a renamed key rewrites the
 * key's text, a removed member takes its lines with it, an added member is
 * written after its last sibling and indented like it, a replaced value is
 * rendered anew from the result. The edited document is parsed again and
 * compared with the engine's result; if they differ, or an operation cannot
 * be placed (aliases, merge keys), the document is re-emitted whole and the
 * caller says so: the output is never wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "source.h"
#include "text_patch.h"

struct edit {
	size_t start, end;   /* replaced span; start == end inserts */
	char *text;          /* owned, NULL deletes */
	size_t text_len;
	size_t seq;          /* creation order, keeps insertions stable */
	enum text_edit_kind kind;
	const struct source_node *node; /* see struct text_edit */
};

struct patcher {
	const char *text;
	size_t len;
	struct source_doc *doc;
	struct edit *edits;
	size_t n_edits, cap_edits;
	int crlf;            /* the file uses CRLF line endings */
	int json_doc;        /* the document is JSON */
	int json_step;       /* JSON indentation step; 0 for one line */
	int indent_tab;      /* the JSON document is indented with tabs */
	int json_compact;    /* minified JSON: no blank after ',' and ':' */
	int indentless;      /* sequences in mappings at the key's column */
	/* trailing comments of changed lines stay: a template's, where an
	 * action may stand right before them */
	int keep_comments;
	int failed;
	char why[200];
};

static int fail(struct patcher *pt, const char *why)
{
	if (!pt->failed) {
		pt->failed = 1;
		snprintf(pt->why, sizeof(pt->why), "%s", why);
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* Applying operations to the tree                                     */

static struct source_child *find_child(struct source_node *node,
				       const char *token, size_t *index)
{
	if (node->kind == SOURCE_MAPPING) {
		for (size_t i = 0; i < node->n_children; i++) {
			if (strcmp(node->children[i].key, token) == 0) {
				*index = i;
				return &node->children[i];
			}
		}
		return NULL;
	}
	if (node->kind == SOURCE_SEQUENCE) {
		char *end;
		unsigned long idx = strtoul(token, &end, 10);

		if (!*token || *end || idx >= node->n_children)
			return NULL;
		*index = idx;
		return &node->children[idx];
	}
	return NULL;
}

/*
 * Walks `path` to the parent of its last token. Returns the parent, NULL
 * when the operation lands inside a node that is rendered whole anyway
 * (*inside = 1) or on failure (*inside = 0).
 */
static struct source_node *walk_parent(struct patcher *pt, const char *path,
				       char *last, size_t size, int *inside)
{
	struct source_node *node = pt->doc->root;
	const char *p = path;
	char token[1024];

	*inside = 0;
	if (!*path || !node) {
		fail(pt, "an operation on the whole document");
		return NULL;
	}
	for (;;) {
		if (node->added || node->replaced) {
			*inside = 1;
			return NULL;
		}
		if (node->alias) {
			/* written as *alias: render the value out in full */
			node->replaced = 1;
			*inside = 1;
			return NULL;
		}
		if (json_pointer_next(&p, token, sizeof(token))) {
			fail(pt, "a malformed operation path");
			return NULL;
		}
		if (!*p)
			break;
		{
			size_t idx;
			struct source_child *c = find_child(node, token, &idx);

			if (!c) {
				fail(pt, "an operation path missing in the source");
				return NULL;
			}
			node = c->node;
		}
	}
	snprintf(last, size, "%s", token);
	return node;
}

static int child_insert(struct source_node *parent, size_t at,
			struct source_child *c)
{
	if (parent->n_children == parent->cap_children) {
		size_t cap = parent->cap_children ? parent->cap_children * 2 : 4;
		struct source_child *grown = realloc(parent->children,
						     cap * sizeof(*grown));

		if (!grown)
			return -1;
		parent->children = grown;
		parent->cap_children = cap;
	}
	memmove(&parent->children[at + 1], &parent->children[at],
		(parent->n_children - at) * sizeof(*c));
	parent->children[at] = *c;
	parent->n_children++;
	return 0;
}

/* Takes child `index` out of the live list; an original one is kept in
 * the removed list so that its text can be deleted. */
static int child_remove(struct source_node *parent, size_t index)
{
	struct source_child c = parent->children[index];

	memmove(&parent->children[index], &parent->children[index + 1],
		(parent->n_children - index - 1) * sizeof(c));
	parent->n_children--;
	if (c.node->added) {
		free(c.key);
		source_node_free(c.node);
		return 0;
	}
	if (parent->n_removed == parent->cap_removed) {
		size_t cap = parent->cap_removed ? parent->cap_removed * 2 : 4;
		struct source_child *grown = realloc(parent->removed,
						     cap * sizeof(*grown));

		if (!grown) {
			free(c.key);
			source_node_free(c.node);
			return -1;
		}
		parent->removed = grown;
		parent->cap_removed = cap;
	}
	parent->removed[parent->n_removed++] = c;
	return 0;
}

static int tree_add(struct patcher *pt, const char *path)
{
	char last[1024];
	int inside;
	struct source_node *parent = walk_parent(pt, path, last, sizeof(last),
						 &inside);
	struct source_child c = { 0 };
	size_t idx, at;

	if (!parent)
		return inside ? 0 : -1;
	if (parent->kind == SOURCE_MAPPING) {
		struct source_child *existing = find_child(parent, last, &idx);

		if (existing) {
			if (!existing->node->added)
				existing->node->replaced = 1;
			return 0;
		}
		at = parent->n_children;
	} else if (parent->kind == SOURCE_SEQUENCE) {
		char *end;

		if (strcmp(last, "-") == 0) {
			at = parent->n_children;
		} else {
			at = strtoul(last, &end, 10);
			if (*end || at > parent->n_children)
				return fail(pt, "an add past the end of a list");
		}
	} else {
		return fail(pt, "an add into a scalar");
	}
	c.node = calloc(1, sizeof(*c.node));
	if (!c.node || (parent->kind == SOURCE_MAPPING &&
			!(c.key = strdup(last)))) {
		free(c.node);
		return fail(pt, "out of memory");
	}
	c.node->added = 1;
	if (child_insert(parent, at, &c)) {
		free(c.key);
		free(c.node);
		return fail(pt, "out of memory");
	}
	return 0;
}

static int tree_remove(struct patcher *pt, const char *path)
{
	char last[1024];
	int inside;
	struct source_node *parent = walk_parent(pt, path, last, sizeof(last),
						 &inside);
	size_t idx;

	if (!parent)
		return inside ? 0 : -1;
	if (!find_child(parent, last, &idx))
		return fail(pt, "a remove of something missing in the source");
	return child_remove(parent, idx) ? fail(pt, "out of memory") : 0;
}

static int tree_replace(struct patcher *pt, const char *path)
{
	char last[1024];
	int inside;
	struct source_node *parent;
	struct source_child *c;
	size_t idx;

	if (!*path) {
		if (pt->doc->root)
			pt->doc->root->replaced = 1;
		return 0;
	}
	parent = walk_parent(pt, path, last, sizeof(last), &inside);
	if (!parent)
		return inside ? 0 : -1;
	c = find_child(parent, last, &idx);
	if (!c)
		return fail(pt, "a replace of something missing in the source");
	if (!c->node->added)
		c->node->replaced = 1;
	return 0;
}

static int tree_move(struct patcher *pt, const char *from, const char *path)
{
	const char *fs = strrchr(from, '/'), *ps = strrchr(path, '/');
	char last[1024], target[1024];
	const char *tp;
	int inside;
	struct source_node *parent;
	struct source_child *c;
	size_t idx, other;

	if (!fs || !ps || fs - from != ps - path ||
	    strncmp(from, path, (size_t)(fs - from)) != 0)
		return fail(pt, "a move between two mappings");
	parent = walk_parent(pt, from, last, sizeof(last), &inside);
	if (!parent)
		return inside ? 0 : -1;
	if (parent->kind != SOURCE_MAPPING)
		return fail(pt, "a move inside a list");
	tp = ps;
	if (json_pointer_next(&tp, target, sizeof(target)))
		return fail(pt, "a malformed operation path");
	if (strcmp(last, target) == 0)
		return 0;
	if (find_child(parent, target, &other) &&
	    child_remove(parent, other))
		return fail(pt, "out of memory");
	c = find_child(parent, last, &idx);
	if (!c)
		return fail(pt, "a move of something missing in the source");
	free(c->key);
	if (!(c->key = strdup(target)))
		return fail(pt, "out of memory");
	if (!c->node->added)
		c->renamed = 1;
	return 0;
}

static int tree_apply(struct patcher *pt, const struct patch_op *op)
{
	switch (op->kind) {
	case PATCH_ADD:
		return tree_add(pt, op->path);
	case PATCH_REMOVE:
		return tree_remove(pt, op->path);
	case PATCH_REPLACE:
		return tree_replace(pt, op->path);
	case PATCH_MOVE:
		return tree_move(pt, op->from, op->path);
	}
	return fail(pt, "an unknown operation");
}

/* ------------------------------------------------------------------ */
/* Edits                                                               */

/* Records an edit; `text` (may be NULL to delete) is copied, with "\n"
 * written as "\r\n" in CRLF files. */
static int add_edit(struct patcher *pt, size_t start, size_t end,
		    const char *text, size_t len, enum text_edit_kind kind,
		    const struct source_node *node)
{
	struct edit *e;
	char *copy = NULL;
	size_t n = 0;

	if (pt->n_edits == pt->cap_edits) {
		size_t cap = pt->cap_edits ? pt->cap_edits * 2 : 16;
		struct edit *grown = realloc(pt->edits, cap * sizeof(*grown));

		if (!grown)
			return fail(pt, "out of memory");
		pt->edits = grown;
		pt->cap_edits = cap;
	}
	if (text) {
		copy = malloc(len * 2 + 1);
		if (!copy)
			return fail(pt, "out of memory");
		int line_head = 0;

		for (size_t i = 0; i < len; i++) {
			if (pt->crlf && text[i] == '\n' &&
			    (i == 0 || text[i - 1] != '\r'))
				copy[n++] = '\r';
			/* rendered indentation is spaces: a unit each */
			if (pt->indent_tab && line_head && text[i] == ' ') {
				copy[n++] = '\t';
				continue;
			}
			line_head = text[i] == '\n' ||
				    (line_head && text[i] == ' ');
			copy[n++] = text[i];
		}
		copy[n] = '\0';
	}
	e = &pt->edits[pt->n_edits];
	e->start = start;
	e->end = end;
	e->text = copy;
	e->text_len = n;
	e->kind = kind;
	e->node = node;
	e->seq = pt->n_edits++;
	return 0;
}

static size_t line_start(struct patcher *pt, size_t off)
{
	while (off > pt->doc->start && pt->text[off - 1] != '\n' &&
	       pt->text[off - 1] != '\r')
		off--;
	return off;
}

/* Offset just past the line break that ends the line holding `off`. */
static size_t line_end(struct patcher *pt, size_t off)
{
	/* a node that ends with its line break (a |+ block) ends there */
	if (off > pt->doc->start && pt->text[off - 1] == '\n')
		return off;
	while (off < pt->len && pt->text[off] != '\n' && pt->text[off] != '\r')
		off++;
	if (off < pt->len && pt->text[off] == '\r')
		off++;
	if (off < pt->len && pt->text[off] == '\n')
		off++;
	return off;
}

static int only_blanks(struct patcher *pt, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (pt->text[i] != ' ' && pt->text[i] != '\t')
			return 0;
	return 1;
}

/* Past the run of blank lines that starts at the line start `ls`. */
static size_t blank_lines_from(struct patcher *pt, size_t ls)
{
	for (;;) {
		size_t i = ls;

		while (i < pt->doc->end && (pt->text[i] == ' ' ||
					    pt->text[i] == '\t'))
			i++;
		if (i >= pt->doc->end ||
		    (pt->text[i] != '\n' && pt->text[i] != '\r'))
			return ls;
		if (pt->text[i] == '\r' && i + 1 < pt->doc->end &&
		    pt->text[i + 1] == '\n')
			i++;
		ls = i + 1;
	}
}

/* 1 when the line above the line start `ls` is blank, or there is none. */
static int blank_above(struct patcher *pt, size_t ls)
{
	size_t prev;

	if (ls <= pt->doc->start)
		return 1;
	prev = ls - 1;
	if (prev > pt->doc->start && pt->text[prev] == '\n' &&
	    pt->text[prev - 1] == '\r')
		prev--;
	return only_blanks(pt, line_start(pt, prev), prev);
}

/* The start of the run of blank lines right above the line start `ls`. */
static size_t blank_lines_above(struct patcher *pt, size_t ls)
{
	while (ls > pt->doc->start && blank_above(pt, ls)) {
		size_t prev = ls - 1;

		if (prev > pt->doc->start && pt->text[prev] == '\n' &&
		    pt->text[prev - 1] == '\r')
			prev--;
		ls = line_start(pt, prev);
	}
	return ls;
}

/*
 * The start of the comment lines directly above the line at `ls` that are
 * indented like it: they describe what is on that line, and go with it.
 */
static size_t comments_above(struct patcher *pt, size_t ls)
{
	int indent = 0;
	size_t at = ls;

	while (ls + indent < pt->len && pt->text[ls + indent] == ' ')
		indent++;
	while (at > pt->doc->start) {
		size_t prev = at - 1, i;

		if (prev > pt->doc->start && pt->text[prev] == '\n' &&
		    pt->text[prev - 1] == '\r')
			prev--;
		prev = line_start(pt, prev);
		for (i = prev; i < at && pt->text[i] == ' '; i++)
			;
		if ((int)(i - prev) != indent || i >= at || pt->text[i] != '#')
			break;
		at = prev;
	}
	return at;
}

/*
 * A comment that ends the line after `from` (blanks, then '#' with a blank
 * before it), from the blanks on, up to the line break: [*start, *end).
 * 0 when there is none, or when it holds a template action ("{{"), which
 * is not the patcher's to drop.
 */
static int trailing_comment(struct patcher *pt, size_t from, size_t *start,
			    size_t *end)
{
	size_t i = from, e;

	while (i < pt->len && (pt->text[i] == ' ' || pt->text[i] == '\t'))
		i++;
	if (i == from || i >= pt->len || pt->text[i] != '#')
		return 0;
	for (e = i; e < pt->len && pt->text[e] != '\n' && pt->text[e] != '\r';
	     e++)
		if (pt->text[e] == '{' && e + 1 < pt->len &&
		    pt->text[e + 1] == '{')
			return 0;
	*start = from;
	*end = e;
	return 1;
}

/*
 * A comment at the end of a line whose key or scalar value an operation
 * rewrote describes what the line said before ("aliyun.com/gpu-mem: 2  #
 * 2 GiB" becomes one shared GPU): it goes with the change. Comment lines
 * above stay, as every line no operation touches does.
 */
static int drop_stale_comment(struct patcher *pt, struct source_child *c,
			      enum text_edit_kind kind)
{
	size_t start, end;

	if (pt->json_doc || pt->keep_comments ||
	    c->node->kind != SOURCE_SCALAR ||
	    c->node->end <= c->node->start ||
	    !trailing_comment(pt, c->node->end, &start, &end))
		return 0;
	return add_edit(pt, start, end, NULL, 0, kind, c->node);
}

/* Where a block sequence item's "-" is. */
static size_t dash_of(struct patcher *pt, const struct source_child *c)
{
	size_t off = c->node->start;

	while (off > pt->doc->start) {
		char ch = pt->text[off - 1];

		if (ch == '-')
			return off - 1;
		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
			break;
		off--;
	}
	return (size_t)-1;
}

/* Where a member's or item's text starts: its key, or its "-". */
static size_t child_start(struct patcher *pt, const struct source_node *parent,
			  const struct source_child *c)
{
	if (parent->kind == SOURCE_MAPPING) {
		size_t off = c->key_start;

		/* an explicit "? key" starts at its "?" */
		while (off > pt->doc->start && (pt->text[off - 1] == ' ' ||
						pt->text[off - 1] == '\t'))
			off--;
		if (off > pt->doc->start && pt->text[off - 1] == '?' &&
		    !parent->flow)
			return off - 1;
		return c->key_start;
	}
	if (parent->flow)
		return c->node->start;
	return dash_of(pt, c);
}

/* Where a member's or item's text ends. An empty value (`key:`) has no
 * text of its own: its span may point at the next line. */
static size_t child_end(const struct source_node *parent,
			const struct source_child *c)
{
	const struct source_node *n = c->node;

	if (n->kind == SOURCE_SCALAR && n->start == n->end &&
	    n->style == YAML_PLAIN_SCALAR_STYLE) {
		if (parent->kind == SOURCE_MAPPING)
			return c->key_end + 1; /* the ':' */
		return n->start;
	}
	return n->end;
}

/* The column (0-based, in bytes) of the line holding `off`. */
static int column_of(struct patcher *pt, size_t off)
{
	return (int)(off - line_start(pt, off));
}

/* Original children (live and removed) in source order. */
static struct source_child **originals(struct source_node *node, size_t *n)
{
	size_t count = 0;
	struct source_child **list = malloc((node->n_children +
					     node->n_removed + 1) *
					    sizeof(*list));

	if (!list)
		return NULL;
	for (size_t i = 0; i < node->n_children; i++)
		if (!node->children[i].node->added)
			list[count++] = &node->children[i];
	for (size_t i = 0; i < node->n_removed; i++)
		list[count++] = &node->removed[i];
	/* sort by position: removed ones came after */
	for (size_t i = 1; i < count; i++) {
		struct source_child *c = list[i];
		size_t j = i;

		while (j > 0 && list[j - 1]->node->start > c->node->start) {
			list[j] = list[j - 1];
			j--;
		}
		list[j] = c;
	}
	*n = count;
	return list;
}

static int is_removed(struct source_node *node, struct source_child *c)
{
	return c >= node->removed && c < node->removed + node->n_removed;
}

/* ------------------------------------------------------------------ */
/* Rendering                                                           */

static enum emit_context context_of(struct patcher *pt, int flow)
{
	if (pt->json_doc)
		return EMIT_JSON;
	return flow ? EMIT_FLOW : EMIT_BLOCK;
}

/* Indentation of the line holding `off`: its leading blanks (a tab counts
 * one, as a JSON file indented with tabs is rendered with tabs). */
static int indent_of_line(struct patcher *pt, size_t off)
{
	size_t s = line_start(pt, off), i = s;

	while (i < pt->len && (pt->text[i] == ' ' || pt->text[i] == '\t'))
		i++;
	return (int)(i - s);
}

/* Renders a collection in flow style, or JSON as the document writes it. */
static int render_flow_collection(struct patcher *pt, struct buf *b,
				  json_t *value, int indent)
{
	if (pt->json_doc && pt->json_step)
		return emit_json_pretty(b, value, indent, pt->json_step);
	if (pt->json_compact) {
		char *text = json_text_new(value, JSON_COMPACT);
		int rc = text ? buf_puts(b, text) : -1;

		free(text);
		return rc;
	}
	return emit_flow(b, value, context_of(pt, 1));
}

/* Renders a value placed in a flow collection (or a JSON document). */
static int render_flow_value(struct patcher *pt, struct buf *b, json_t *value,
			     int style, size_t at)
{
	if (json_is_object(value) || json_is_array(value))
		return render_flow_collection(pt, b, value, column_of(pt, at));
	return emit_scalar(b, value, style, context_of(pt, 1));
}

/* A replaced node: rewrite its text from `value`. */
static int render_replaced(struct patcher *pt, struct source_node *parent,
			   struct source_child *c, json_t *value)
{
	struct source_node *n = c->node;
	struct buf b;
	size_t start, end;
	int rc;

	if (n->anchored)
		/* its &anchor would go with the old text, and aliases with it */
		return fail(pt, "a changed value carries an &anchor");
	buf_init(&b, 0);
	if (!parent || parent->flow || pt->json_doc) {
		/* in place of the old value */
		start = n->start;
		end = n->end;
		if (!parent) {
			rc = pt->json_doc ? emit_json_pretty(&b, value, 0,
							     pt->json_step ? pt->json_step : 2)
					  : emit_block(&b, value, 0, pt->indentless);
		} else if (json_is_object(value) || json_is_array(value)) {
			rc = render_flow_collection(pt, &b, value,
						    indent_of_line(pt, n->start));
		} else {
			rc = emit_scalar(&b, value, n->style, context_of(pt, 1));
		}
	} else if (n->kind == SOURCE_SCALAR && !json_is_object(value) &&
		   !json_is_array(value) && n->end > n->start) {
		/* a scalar stays where it was, in its style when possible */
		start = n->start;
		end = n->end;
		rc = emit_scalar(&b, value, n->style, EMIT_BLOCK);
	} else {
		/* a block value: everything after "key:" or "-" */
		int indent;

		if (parent->kind == SOURCE_MAPPING) {
			start = c->key_end;
			while (start < pt->len && pt->text[start] != ':')
				start++;
			if (start >= pt->len)
				return fail(pt, "no ':' after a key");
			start++;
			indent = column_of(pt, c->key_start);
		} else {
			size_t dash = dash_of(pt, c);

			if (dash == (size_t)-1)
				return fail(pt, "no '-' before a list item");
			start = dash + 1;
			indent = column_of(pt, dash);
		}
		end = child_end(parent, c);
		if (end < start)
			end = start;
		if (parent->kind == SOURCE_MAPPING &&
		    ((json_is_object(value) && json_object_size(value)) ||
		     (json_is_array(value) && json_array_size(value)))) {
			int at = json_is_array(value) && pt->indentless ? indent
									: indent + 2;

			rc = buf_putc(&b, '\n');
			for (int i = 0; !rc && i < at; i++)
				rc = buf_putc(&b, ' ');
			if (!rc)
				rc = emit_block(&b, value, at, pt->indentless);
		} else {
			rc = buf_putc(&b, ' ');
			if (!rc)
				rc = emit_block(&b, value, indent + 2,
						pt->indentless);
		}
	}
	if (!rc)
		rc = add_edit(pt, start, end, b.data ? b.data : "", b.len,
			      TEXT_EDIT_REPLACE, n);
	buf_free(&b);
	return rc ? fail(pt, "out of memory") : 0;
}

/* The text of added children, for a block parent, one per line. */
static int render_block_additions(struct patcher *pt, struct source_node *node,
				  json_t *value, size_t from, size_t to,
				  int indent, struct buf *b)
{
	for (size_t i = from; i < to; i++) {
		struct source_child *c = &node->children[i];
		json_t *v, *wrapper;
		int rc;

		if (!c->node->added)
			continue;
		for (int k = 0; k < indent; k++)
			if (buf_putc(b, ' '))
				return -1;
		if (node->kind == SOURCE_MAPPING) {
			v = json_member(value, c->key);
			wrapper = v ? json_pack("{s:O}", c->key, v) : NULL;
		} else {
			v = json_array_get(value, i);
			wrapper = v ? json_pack("[O]", v) : NULL;
		}
		if (!wrapper)
			return -1;
		rc = emit_block(b, wrapper, indent, pt->indentless);
		json_decref(wrapper);
		if (rc || buf_putc(b, '\n'))
			return -1;
	}
	return 0;
}

/* The text of added children for a flow parent, each preceded by `sep`. */
static int render_flow_additions(struct patcher *pt, struct source_node *node,
				 json_t *value, size_t from, size_t to,
				 const char *sep, size_t sep_len, int key_style,
				 size_t at, struct buf *b)
{
	for (size_t i = from; i < to; i++) {
		struct source_child *c = &node->children[i];
		json_t *v;

		if (!c->node->added)
			continue;
		if (buf_append(b, sep, sep_len))
			return -1;
		if (node->kind == SOURCE_MAPPING) {
			v = json_member(value, c->key);
			if (!v || emit_key(b, c->key, key_style,
					   context_of(pt, 1)) ||
			    buf_puts(b, pt->json_compact ? ":" : ": "))
				return -1;
		} else {
			v = json_array_get(value, i);
			if (!v)
				return -1;
		}
		if (render_flow_value(pt, b, v, YAML_ANY_SCALAR_STYLE, at))
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Walking the tree with the result                                    */

static int gen_node(struct patcher *pt, struct source_node *parent,
		    struct source_child *self, json_t *value);

static int gen_removals_block(struct patcher *pt, struct source_node *node)
{
	size_t n;
	struct source_child **orig = originals(node, &n);

	if (!orig)
		return fail(pt, "out of memory");
	for (size_t k = 0; k < n; k++) {
		struct source_child *c = orig[k];
		size_t s, e;

		if (!is_removed(node, c))
			continue;
		s = child_start(pt, node, c);
		if (s == (size_t)-1) {
			free(orig);
			return fail(pt, "no '-' before a list item");
		}
		if (only_blanks(pt, line_start(pt, s), s)) {
			s = comments_above(pt, line_start(pt, s));
			e = line_end(pt, child_end(node, c));
			/* a member set apart by blank lines takes those below
			 * it along: no run of them is left in its place */
			if (blank_above(pt, s))
				e = blank_lines_from(pt, e);
			/* at the end, the blank lines above it, unless the
			 * member before, removed too, takes them */
			if (e >= pt->doc->end && s > pt->doc->start &&
			    (k == 0 || !is_removed(node, orig[k - 1])))
				s = blank_lines_above(pt, s);
		} else if (k + 1 < n) {
			/* first member on a "- " line: up to the next one */
			e = child_start(pt, node, orig[k + 1]);
		} else {
			free(orig);
			return fail(pt, "removing the only member of a list item");
		}
		if (add_edit(pt, s, e, NULL, 0, TEXT_EDIT_REMOVE, c->node)) {
			free(orig);
			return -1;
		}
	}
	free(orig);
	return 0;
}

static int gen_removals_flow(struct patcher *pt, struct source_node *node)
{
	size_t n, tail;
	struct source_child **orig = originals(node, &n);
	int rc = 0;

	if (!orig)
		return fail(pt, "out of memory");
	/* a trailing run of removed members takes the comma before it */
	tail = n;
	while (tail > 0 && is_removed(node, orig[tail - 1]))
		tail--;
	for (size_t k = 0; !rc && k < tail; k++)
		if (is_removed(node, orig[k]))
			rc = add_edit(pt, child_start(pt, node, orig[k]),
				      child_start(pt, node, orig[k + 1]), NULL, 0,
				      TEXT_EDIT_REMOVE, orig[k]->node);
	if (!rc && tail < n)
		rc = add_edit(pt, tail ? orig[tail - 1]->node->end :
				    child_start(pt, node, orig[0]),
			      orig[n - 1]->node->end, NULL, 0, TEXT_EDIT_REMOVE,
			      orig[tail]->node);
	free(orig);
	return rc;
}

static int gen_additions(struct patcher *pt, struct source_node *node,
			 json_t *value)
{
	size_t n, i = 0;
	struct source_child **orig = originals(node, &n);
	struct buf b, sepbuf;
	int rc = 0;

	if (!orig)
		return fail(pt, "out of memory");
	buf_init(&b, 0);
	buf_init(&sepbuf, 0);
	while (!rc && i < node->n_children) {
		size_t run_end = i, at;
		struct source_child *next = NULL;
		int no_final_newline = 0;

		if (!node->children[i].node->added) {
			i++;
			continue;
		}
		while (run_end < node->n_children &&
		       node->children[run_end].node->added)
			run_end++;
		if (run_end < node->n_children)
			next = &node->children[run_end];
		buf_reset(&b);
		if (node->flow) {
			struct source_child *last = orig[n - 1];
			const char *sep = pt->json_compact ? "," : ", ";
			size_t sep_len = strlen(sep);

			if (next) {
				rc = -1; /* insertion before a flow item */
				break;
			}
			if (n >= 2) {
				/* as the last two members are separated */
				sep = pt->text + orig[n - 2]->node->end;
				sep_len = child_start(pt, node, last) -
					  orig[n - 2]->node->end;
			} else if (line_start(pt, child_start(pt, node, last)) !=
				   line_start(pt, node->start)) {
				/* one member per line: a new line, same indent */
				int indent = indent_of_line(pt, child_start(pt, node,
									    last));

				if (buf_puts(&sepbuf, ",\n") ||
				    buf_printf(&sepbuf, "%*s", indent, "")) {
					rc = -1;
					break;
				}
				sep = sepbuf.data;
				sep_len = sepbuf.len;
			}
			at = last->node->end;
			rc = render_flow_additions(pt, node, value, i, run_end,
						   sep, sep_len, last->key_style,
						   child_start(pt, node, last), &b);
		} else {
			int indent;
			size_t ref_start = child_start(pt, node, orig[0]);

			if (ref_start == (size_t)-1) {
				rc = -1;
				break;
			}
			indent = column_of(pt, ref_start);
			if (next) {
				at = line_start(pt, child_start(pt, node, next));
			} else {
				at = line_end(pt, child_end(node, orig[n - 1]));
				if (at == pt->len && at > 0 &&
				    pt->text[at - 1] != '\n') {
					/* the file has no final newline: the
					 * added lines come before it, none after */
					rc = buf_putc(&b, '\n');
					no_final_newline = 1;
				}
			}
			if (!rc)
				rc = render_block_additions(pt, node, value, i,
							    run_end, indent, &b);
			if (!rc && no_final_newline && b.len &&
			    b.data[b.len - 1] == '\n')
				b.data[--b.len] = '\0';
		}
		if (!rc)
			rc = add_edit(pt, at, at, b.data, b.len, TEXT_EDIT_ADD,
				      node);
		i = run_end;
	}
	buf_free(&b);
	buf_free(&sepbuf);
	free(orig);
	return rc ? fail(pt, "an addition that cannot be placed") : 0;
}

static int gen_node(struct patcher *pt, struct source_node *parent,
		    struct source_child *self, json_t *value)
{
	struct source_node *node = self->node;
	size_t n_live_orig = 0;

	if (!value)
		return fail(pt, "the source tree and the result disagree");
	if (node->replaced)
		return render_replaced(pt, parent, self, value);
	if (node->kind == SOURCE_SCALAR || node->alias)
		return 0;
	for (size_t i = 0; i < node->n_children; i++)
		if (!node->children[i].node->added)
			n_live_orig++;
	if (n_live_orig == 0 && node->n_removed && node->n_children == 0 &&
	    !node->flow && json_is_null(value) && parent &&
	    parent->kind == SOURCE_MAPPING)
		/* emptied, and null in the result: its members' lines go and
		 * `key:` stays, which reads as null (a Helm template's
		 * collection whose other members are conditional) */
		return gen_removals_block(pt, node);
	if (n_live_orig == 0 && (node->n_removed || node->n_children) &&
	    (node->flow || node->n_children == 0)) {
		/* nothing of the original is left: write it anew (a block
		 * collection that gains members keeps its lines instead) */
		node->replaced = 1;
		return render_replaced(pt, parent, self, value);
	}
	for (size_t i = 0; i < node->n_children; i++) {
		struct source_child *c = &node->children[i];
		json_t *child_value;

		if (c->node->added)
			continue;
		child_value = node->kind == SOURCE_MAPPING ?
			json_member(value, c->key) : json_array_get(value, i);
		if ((c->renamed || c->node->replaced) && !node->flow &&
		    drop_stale_comment(pt, c, c->node->replaced ?
					      TEXT_EDIT_REPLACE :
					      TEXT_EDIT_RENAME))
			return -1;
		if (c->renamed) {
			struct buf b;
			int rc;

			buf_init(&b, 0);
			rc = emit_key(&b, c->key, c->key_style,
				      context_of(pt, node->flow));
			if (!rc)
				rc = add_edit(pt, c->key_start, c->key_end,
					      b.data, b.len, TEXT_EDIT_RENAME,
					      c->node);
			buf_free(&b);
			if (rc)
				return fail(pt, "out of memory");
		}
		if (gen_node(pt, node, c, child_value))
			return -1;
	}
	if (node->n_removed &&
	    (node->flow ? gen_removals_flow(pt, node)
			: gen_removals_block(pt, node)))
		return -1;
	if (node->n_children > n_live_orig && gen_additions(pt, node, value))
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Putting the text together                                           */

static int edit_cmp(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* at one place: insertions first, then by creation order */
	if ((x->start == x->end) != (y->start == y->end))
		return x->start == x->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Appends the document's span with the edits applied. */
static int apply_edits(struct patcher *pt, struct buf *out)
{
	size_t pos = pt->doc->start;

	qsort(pt->edits, pt->n_edits, sizeof(*pt->edits), edit_cmp);
	for (size_t i = 0; i < pt->n_edits; i++) {
		struct edit *e = &pt->edits[i];

		if (e->start < pos) {
			/* inside text already replaced or deleted */
			if (e->end > pos && !e->text)
				pos = e->end; /* overlapping deletions merge */
			else if (e->end > pos || e->start != e->end)
				return fail(pt, "overlapping edits");
			continue;
		}
		if (buf_append(out, pt->text + pos, e->start - pos))
			return -1;
		if (e->text && buf_append(out, e->text, e->text_len))
			return -1;
		pos = e->end;
	}
	if (pos < pt->doc->end &&
	    buf_append(out, pt->text + pos, pt->doc->end - pos))
		return -1;
	return 0;
}

static void detect_style(struct patcher *pt)
{
	const char *nl = memchr(pt->text, '\n', pt->len);
	struct source_node *root = pt->doc->root;

	pt->crlf = nl && nl > pt->text && nl[-1] == '\r';
	if (root && root->flow && root->kind != SOURCE_SCALAR) {
		pt->json_doc = 1;
		for (size_t i = 0; i < root->n_children; i++) {
			size_t s = root->kind == SOURCE_MAPPING ?
				root->children[i].key_start :
				root->children[i].node->start;

			if (line_start(pt, s) != line_start(pt, root->start)) {
				pt->json_step = indent_of_line(pt, s) -
						indent_of_line(pt, root->start);
				if (pt->json_step <= 0)
					pt->json_step = 2;
				pt->indent_tab = pt->text[line_start(pt, s)] == '\t';
			} else if (root->kind == SOURCE_MAPPING &&
				   root->children[i].key_end < pt->len &&
				   pt->text[root->children[i].key_end] == ':' &&
				   root->children[i].key_end + 1 < pt->len &&
				   pt->text[root->children[i].key_end + 1] != ' ') {
				pt->json_compact = 1;
			}
			break;
		}
	}
	/* sequences inside mappings: at the key's column, or indented? */
	pt->indentless = 0;
	if (root && root->kind == SOURCE_MAPPING && !root->flow) {
		struct source_node *stack[64];
		int top = 0;

		stack[top++] = root;
		while (top > 0) {
			struct source_node *n = stack[--top];

			for (size_t i = 0; i < n->n_children; i++) {
				struct source_child *c = &n->children[i];

				if (n->kind == SOURCE_MAPPING &&
				    c->node->kind == SOURCE_SEQUENCE &&
				    !c->node->flow && c->node->n_children) {
					size_t dash = dash_of(pt, &c->node->children[0]);

					if (dash != (size_t)-1)
						pt->indentless = column_of(pt, dash) ==
							column_of(pt, c->key_start);
					return;
				}
				if (c->node->kind != SOURCE_SCALAR && !c->node->flow &&
				    top < 64)
					stack[top++] = c->node;
			}
		}
	}
}

/* Writes the whole document anew from `migrated`. */
static int reemit(struct patcher *pt, struct buf *out, json_t *migrated)
{
	struct source_node *root = pt->doc->root;
	size_t content_start = root ? root->start : pt->doc->start;
	size_t content_end = root ? line_end(pt, root->end) : pt->doc->end;
	struct buf b;
	int rc;

	if (content_end > pt->doc->end)
		content_end = pt->doc->end;
	if (root && !pt->json_doc)
		content_start = line_start(pt, content_start);
	buf_init(&b, 0);
	rc = pt->json_doc ? emit_json_pretty(&b, migrated, 0,
					     pt->json_step ? pt->json_step : 2)
			  : emit_document(&b, migrated, 0, pt->indentless);
	if (!rc && pt->json_doc && content_end > root->end)
		rc = buf_putc(&b, '\n');
	if (!rc) {
		for (size_t i = 0; i < pt->n_edits; i++)
			free(pt->edits[i].text);
		pt->n_edits = 0;
		rc = add_edit(pt, content_start, content_end, b.data, b.len,
			      TEXT_EDIT_REPLACE, root);
	}
	buf_free(&b);
	if (!rc)
		rc = apply_edits(pt, out);
	return rc;
}

/* Applies the operations to the tree and makes the edits; 0 or -1 (why in
 * pt->why). */
static int make_edits(struct patcher *pt, const struct rules_result *result,
		      json_t *migrated)
{
	struct source_child root_child = { 0 };

	detect_style(pt);
	for (size_t i = 0; !pt->failed && i < result->n_ops; i++)
		tree_apply(pt, &result->ops[i]);
	if (!pt->failed && pt->doc->root) {
		root_child.node = pt->doc->root;
		gen_node(pt, NULL, &root_child, migrated);
	}
	return pt->failed ? -1 : 0;
}

static void patcher_free(struct patcher *pt)
{
	for (size_t i = 0; i < pt->n_edits; i++)
		free(pt->edits[i].text);
	free(pt->edits);
	pt->edits = NULL;
	pt->n_edits = pt->cap_edits = 0;
}

int text_patch_document(struct buf *out, const char *text, size_t len,
			struct source_doc *doc, const struct rules_result *result,
			json_t *migrated, const struct source_limits *limits,
			int *reemitted, char *why, size_t why_len)
{
	struct patcher pt = { .text = text, .len = len, .doc = doc };
	size_t mark = out->len;
	int rc = 0;

	*reemitted = 0;
	if (make_edits(&pt, result, migrated) == 0 &&
	    apply_edits(&pt, out) == 0 && !pt.failed &&
	    source_reads_as(out->data + mark, out->len - mark, limits,
			    migrated))
		goto out_free;
	if (!pt.failed)
		fail(&pt, "the edited text did not read back as the result");
	/* fall back: the document written anew */
	out->len = mark;
	if (out->data)
		out->data[mark] = '\0';
	*reemitted = 1;
	snprintf(why, why_len, "%s", pt.why);
	pt.failed = 0;
	if (reemit(&pt, out, migrated) || pt.failed ||
	    !source_reads_as(out->data + mark, out->len - mark, limits,
			     migrated)) {
		/* never write what does not read back */
		snprintf(why, why_len, "%s; the document cannot be written",
			 pt.why[0] ? pt.why : "rendering failed");
		out->len = mark;
		if (out->data)
			out->data[mark] = '\0';
		rc = -1;
	}
out_free:
	patcher_free(&pt);
	return rc;
}

int text_patch_edits(const char *text, size_t len, struct source_doc *doc,
		     const struct rules_result *result, json_t *migrated,
		     const struct source_limits *limits,
		     struct text_edits *edits, char *why, size_t why_len)
{
	struct patcher pt = { .text = text, .len = len, .doc = doc,
			      .keep_comments = 1 };
	struct buf out;
	int rc = -1;

	memset(edits, 0, sizeof(*edits));
	buf_init(&out, 0);
	if (make_edits(&pt, result, migrated) || apply_edits(&pt, &out) ||
	    pt.failed) {
		if (!pt.failed)
			fail(&pt, "out of memory");
		goto out_free;
	}
	if (!source_reads_as(out.data, out.len, limits, migrated)) {
		fail(&pt, "the edited text did not read back as the result");
		goto out_free;
	}
	/* apply_edits sorted them; they become the caller's */
	edits->items = calloc(pt.n_edits ? pt.n_edits : 1,
			      sizeof(*edits->items));
	if (!edits->items) {
		fail(&pt, "out of memory");
		goto out_free;
	}
	/* as apply_edits() applied them: what falls inside text already
	 * replaced goes, overlapping deletions merge */
	{
		size_t pos = doc->start, n = 0;

		for (size_t i = 0; i < pt.n_edits; i++) {
			struct edit *pe = &pt.edits[i];
			struct text_edit *e = &edits->items[n];

			if (pe->start < pos) {
				if (pe->end <= pos || pe->text)
					continue;
				e->start = pos;
			} else {
				e->start = pe->start;
			}
			e->end = pe->end;
			e->text = pe->text;
			e->len = pe->text_len;
			e->kind = pe->kind;
			e->node = pe->node;
			pe->text = NULL;
			pos = pe->end;
			n++;
		}
		edits->n = n;
	}
	rc = 0;
out_free:
	if (rc)
		snprintf(why, why_len, "%s", pt.why);
	buf_free(&out);
	patcher_free(&pt);
	return rc;
}

void text_edits_clear(struct text_edits *edits)
{
	if (!edits)
		return;
	for (size_t i = 0; i < edits->n; i++)
		free(edits->items[i].text);
	free(edits->items);
	memset(edits, 0, sizeof(*edits));
}
