/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * patch.c - JSON Pointer (RFC 6901) and JSON Patch (RFC 6902) on jansson.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "rules.h"

/* The first '/' or '~' of p[0..end), or end: eight bytes a step. */
static inline const char *token_stop(const char *p, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;

	for (; end - p >= 8; p += 8) {
		uint64_t word, slash, tilde, hits;

		memcpy(&word, p, 8);
		slash = word ^ (ones * '/');
		tilde = word ^ (ones * '~');
		/* the lowest byte flagged is the first match (higher ones
		 * may be false, after a borrow) */
		hits = (((slash - ones) & ~slash) | ((tilde - ones) & ~tilde)) &
		       highs;
		if (hits)
			return p + __builtin_ctzll(hits) / 8;
	}
#endif
	while (p < end && *p != '/' && *p != '~')
		p++;
	return p;
}

char *json_pointer_join(const char *base, const char *token)
{
	size_t blen = strlen(base), tlen = strlen(token), extra = 0;
	const char *end = token + tlen, *p;
	char *out, *o;

	/* most tokens need no escape: then one copy */
	for (p = token_stop(token, end); p < end; p = token_stop(p + 1, end))
		extra++;
	if (!(out = malloc(blen + tlen + extra + 2)))
		return NULL;
	memcpy(out, base, blen);
	o = out + blen;
	*o++ = '/';
	for (p = token;;) {
		const char *stop = token_stop(p, end);

		memcpy(o, p, (size_t)(stop - p));
		o += stop - p;
		if (stop == end)
			break;
		*o++ = '~';
		*o++ = *stop == '~' ? '0' : '1';
		p = stop + 1;
	}
	*o = '\0';
	return out;
}

char *json_pointer_join_index(const char *base, size_t index)
{
	char number[24], *d = number + sizeof(number);

	*--d = '\0';
	do
		*--d = (char)('0' + index % 10);
	while (index /= 10);
	return json_pointer_join(base, d);
}

/*
 * The next token of `*pointer` (at its '/', the pointer ending at `end`),
 * decoded into out[0..size) with its length; *pointer moves past it. -1
 * when malformed or too long.
 */
static int pointer_token(const char **pointer, const char *end, char *out,
			 size_t size, size_t *len)
{
	const char *p = *pointer + 1;
	size_t n = 0;

	if (*pointer == end || **pointer != '/')
		return -1;
	for (;;) {
		const char *stop = token_stop(p, end);
		size_t run = (size_t)(stop - p);

		if (n + run + 1 >= size)
			return -1;
		memcpy(out + n, p, run);
		n += run;
		p = stop;
		if (p == end || *p == '/')
			break;
		if (end - p < 2 || (p[1] != '0' && p[1] != '1'))
			return -1;
		out[n++] = p[1] == '0' ? '~' : '/';
		p += 2;
	}
	out[n] = '\0';
	*pointer = p;
	*len = n;
	return 0;
}

int json_pointer_next(const char **pointer, char *out, size_t size)
{
	size_t len;

	return pointer_token(pointer, *pointer + strlen(*pointer), out, size,
			     &len);
}

/*
 * The next token of `*pointer` (at its '/', the pointer ending at `end`),
 * which moves past it: the pointer's own bytes, *token[0..*len), when it
 * has no escape, else their decoding in out[0..size). -1 when malformed
 * or too long to decode.
 */
static inline int pointer_step(const char **pointer, const char *end,
			       char *out, size_t size, const char **token,
			       size_t *len)
{
	const char *p = *pointer + 1, *q;

	if (*pointer == end || **pointer != '/')
		return -1;
	q = token_stop(p, end);
	if (q < end && *q == '~') {
		*token = out;
		return pointer_token(pointer, end, out, size, len);
	}
	*token = p;
	*len = (size_t)(q - p);
	*pointer = q;
	return 0;
}

/* An array index token[0..len): digits only, no leading zero. */
static int parse_index_n(const char *token, size_t len, size_t *index)
{
	size_t v = 0;

	if (!len || (token[0] == '0' && len > 1))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (token[i] < '0' || token[i] > '9' ||
		    v > (SIZE_MAX - 9) / 10)
			return -1;
		v = v * 10 + (size_t)(token[i] - '0');
	}
	*index = v;
	return 0;
}

static json_t *child_of(json_t *node, const char *token, size_t len)
{
	size_t index;

	if (json_is_object(node))
		return json_object_getn(node, token, len);
	if (json_is_array(node) && parse_index_n(token, len, &index) == 0)
		return json_array_get(node, index);
	return NULL;
}

json_t *json_pointer_get(json_t *root, const char *pointer)
{
	char buf[1024];
	const char *token, *end = pointer + strlen(pointer);
	json_t *node = root;
	size_t len;

	while (node && pointer < end) {
		if (pointer_step(&pointer, end, buf, sizeof(buf), &token,
				 &len) != 0)
			return NULL;
		node = child_of(node, token, len);
	}
	return node;
}

/* The last token of a path: its bytes, in the path itself when it has
 * no escape, else decoded in `buf`. */
struct last_token {
	const char *text;
	size_t len;
	char buf[1024];
};

/*
 * Splits `path` into its parent container (borrowed) and last token.
 * Returns NULL when the path is the root or the parent is missing.
 */
static json_t *parent_of(json_t *root, const char *path,
			 struct last_token *last)
{
	const char *p = path, *end = path + strlen(path);
	json_t *node = root;

	if (p == end)
		return NULL;
	for (;;) {
		if (pointer_step(&p, end, last->buf, sizeof(last->buf),
				 &last->text, &last->len) != 0)
			return NULL;
		if (p == end)
			return node;
		if (!(node = child_of(node, last->text, last->len)))
			return NULL;
	}
}

/* The last token of `path` (not the root), as parent_of() gives it. */
static int last_token_of(const char *path, struct last_token *last)
{
	const char *p = strrchr(path, '/');

	if (!p || pointer_step(&p, p + strlen(p), last->buf, sizeof(last->buf),
			       &last->text, &last->len) != 0)
		return -1;
	return 0;
}

/* 1 when paths `a` and `b` (not the root) name members of one parent:
 * they are the same up to their last '/'. */
static int same_parent(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');

	return sa && sb && sa - a == sb - b &&
	       memcmp(a, b, (size_t)(sa - a)) == 0;
}

/*
 * The parent of `path` and its last token, for a move whose `from` had
 * the parent `from_parent`: a key renamed in its map finds the map once;
 * any other path is walked (after the removal, which may have shifted an
 * array on its way).
 */
static json_t *move_parent(json_t *root, const char *path, const char *from,
			   json_t *from_parent, struct last_token *last)
{
	if (same_parent(path, from))
		return last_token_of(path, last) == 0 ? from_parent : NULL;
	return parent_of(root, path, last);
}

/*
 * json_object_setn() (`value` not stolen), without jansson's UTF-8 check
 * of the key when it is ASCII: the same member, for less.
 */
static int member_set(json_t *object, const char *key, size_t len,
		      json_t *value)
{
	json_incref(value);
	return ascii_span(key, len) == len ?
	       json_object_setn_new_nocheck(object, key, len, value) :
	       json_object_setn_new(object, key, len, value);
}

/* The member or element `last` names in `parent`, NULL when none. */
static json_t *last_of(json_t *parent, const struct last_token *last)
{
	return child_of(parent, last->text, last->len);
}

/* `last` as an array index: 0, or -1 when it is none. */
static int last_index(const struct last_token *last, size_t *index)
{
	return parse_index_n(last->text, last->len, index);
}

/*
 * Adds `value` (not stolen) at `last` of `parent`. *old gets the member
 * it replaced (a new reference; NULL when there was none), *index the
 * array position it went to.
 */
static int put_at(json_t *parent, const struct last_token *last,
		  json_t *value, json_t **old, size_t *index)
{
	*old = NULL;
	if (json_is_object(parent)) {
		json_t *member = last_of(parent, last);

		if (member)
			*old = json_incref(member);
		if (member_set(parent, last->text, last->len, value) == 0)
			return 0;
		json_decref(*old);
		*old = NULL;
		return -1;
	}
	if (!json_is_array(parent))
		return -1;
	if (last->len == 1 && last->text[0] == '-') {
		*index = json_array_size(parent);
		return json_array_append(parent, value);
	}
	if (last_index(last, index) != 0 || *index > json_array_size(parent))
		return -1;
	return json_array_insert(parent, *index, value);
}

/* Removes the value at `last` of `parent`; *removed gets it (a new
 * reference). */
static int take_at(json_t *parent, const struct last_token *last,
		   json_t **removed)
{
	size_t index;
	json_t *value;

	*removed = NULL;
	if (json_is_object(parent)) {
		value = last_of(parent, last);
		if (!value)
			return -1;
		*removed = json_incref(value);
		if (json_object_deln(parent, last->text, last->len) == 0)
			return 0;
	} else if (json_is_array(parent) && last_index(last, &index) == 0 &&
		   (value = json_array_get(parent, index))) {
		*removed = json_incref(value);
		if (json_array_remove(parent, index) == 0)
			return 0;
	}
	json_decref(*removed);
	*removed = NULL;
	return -1;
}

/* put_at() at `path`. */
static int op_add(json_t *root, const char *path, json_t *value,
		  json_t **old, size_t *index)
{
	struct last_token last;
	json_t *parent = parent_of(root, path, &last);

	*old = NULL;
	return parent ? put_at(parent, &last, value, old, index) : -1;
}

/* take_at() at `path`. */
static int op_remove(json_t *root, const char *path, json_t **removed)
{
	struct last_token last;
	json_t *parent = parent_of(root, path, &last);

	*removed = NULL;
	return parent ? take_at(parent, &last, removed) : -1;
}

int patch_apply_op_copy(json_t *root, const struct patch_op *op)
{
	struct patch_op applied = *op;
	int rc;

	if (!op->value)
		return patch_apply_op(root, op);
	if (!(applied.value = json_deep_copy(op->value)))
		return -1;
	rc = patch_apply_op(root, &applied);
	json_decref(applied.value);
	return rc;
}

int patch_op_equal(const struct patch_op *a, const struct patch_op *b)
{
	if (a->kind != b->kind || a->rule != b->rule ||
	    strcmp(a->path, b->path) != 0)
		return 0;
	if ((a->from == NULL) != (b->from == NULL) ||
	    (a->from && strcmp(a->from, b->from) != 0))
		return 0;
	if ((a->value == NULL) != (b->value == NULL))
		return 0;
	return !a->value || json_equal(a->value, b->value);
}

/*
 * Applies `op`; *undo gets what it removed or overwrote (a new reference,
 * NULL when nothing), *index where an add or a move put its value in an
 * array.
 */
static int op_apply(json_t *root, const struct patch_op *op, json_t **undo,
		    size_t *index)
{
	json_t *moved = NULL, *old = NULL;
	int rc;

	*undo = NULL;
	switch (op->kind) {
	case PATCH_ADD:
		return op_add(root, op->path, op->value, undo, index);
	case PATCH_REMOVE:
		return op_remove(root, op->path, undo);
	case PATCH_REPLACE: {
		/* the target must exist; in an array it is overwritten, not
		 * shifted, hence remove then insert */
		struct last_token last;
		json_t *parent = parent_of(root, op->path, &last);

		if (!parent || take_at(parent, &last, undo) != 0)
			return -1;
		return put_at(parent, &last, op->value, &old, index);
	}
	case PATCH_MOVE: {
		struct last_token last;
		json_t *parent;
		size_t from_len = strlen(op->from);

		/* RFC 6902: from must not be a proper prefix of path (a value
		 * moved into itself), whatever a shifted array would make of it */
		if (strncmp(op->path, op->from, from_len) == 0 &&
		    op->path[from_len] == '/')
			return -1;
		parent = parent_of(root, op->from, &last);
		if (!parent || take_at(parent, &last, &moved) != 0)
			return -1;
		parent = move_parent(root, op->path, op->from, parent, &last);
		rc = parent ? put_at(parent, &last, moved, undo, index) : -1;
		json_decref(moved);
		return rc;
	}
	}
	return -1;
}

int patch_apply_op(json_t *root, const struct patch_op *op)
{
	json_t *undo;
	size_t index;
	int rc = op_apply(root, op, &undo, &index);

	json_decref(undo);
	return rc;
}

int patch_apply_op_undo(json_t *root, struct patch_op *op)
{
	json_decref(op->undo);
	op->undo = NULL;
	op->index = 0;
	return op_apply(root, op, &op->undo, &op->index);
}

/*
 * Takes the value at `last` out of `parent`, where an operation put it at
 * array position `index`, and, with `old`, puts back the member it
 * replaced. *taken gets the value (a new reference).
 */
static int revert_put(json_t *parent, const struct last_token *last,
		      size_t index, json_t *old, json_t **taken)
{
	json_t *value;

	*taken = NULL;
	if (json_is_object(parent)) {
		if (!(value = last_of(parent, last)))
			return -1;
		*taken = json_incref(value);
		if (old ? member_set(parent, last->text, last->len, old) == 0
			: json_object_deln(parent, last->text, last->len) == 0)
			return 0;
	} else if (json_is_array(parent) && !old &&
		   (value = json_array_get(parent, index))) {
		*taken = json_incref(value);
		if (json_array_remove(parent, index) == 0)
			return 0;
	}
	json_decref(*taken);
	*taken = NULL;
	return -1;
}

/* Puts `value` back at `last` of `parent`, where an operation removed it
 * from. */
static int revert_take(json_t *parent, const struct last_token *last,
		       json_t *value)
{
	size_t index;

	if (json_is_object(parent))
		return last_of(parent, last) ? -1 :
		       member_set(parent, last->text, last->len, value);
	if (!json_is_array(parent) || last_index(last, &index) != 0 ||
	    index > json_array_size(parent))
		return -1;
	return json_array_insert(parent, index, value);
}

int patch_revert_op(json_t *root, const struct patch_op *op)
{
	struct last_token last;
	json_t *taken = NULL, *parent = parent_of(root, op->path, &last);
	size_t index;
	int rc = -1;

	if (!parent)
		return -1;
	switch (op->kind) {
	case PATCH_ADD:
		/* what was added must still be there, as it was recorded */
		if (revert_put(parent, &last, op->index, op->undo, &taken) == 0)
			rc = json_equal(taken, op->value) ? 0 : -1;
		break;
	case PATCH_REMOVE:
		rc = op->undo ? revert_take(parent, &last, op->undo) : -1;
		break;
	case PATCH_REPLACE:
		if (!op->undo || !(taken = last_of(parent, &last)) ||
		    !json_equal(taken, op->value))
			return -1;
		taken = NULL;
		if (json_is_object(parent))
			return member_set(parent, last.text, last.len,
					  op->undo);
		if (json_is_array(parent) && last_index(&last, &index) == 0)
			return json_array_set(parent, index, op->undo);
		return -1;
	case PATCH_MOVE:
		if (revert_put(parent, &last, op->index, op->undo, &taken) == 0 &&
		    (parent = move_parent(root, op->from, op->path, parent,
					  &last)))
			rc = revert_take(parent, &last, taken);
		break;
	}
	json_decref(taken);
	return rc;
}

json_t *json_value_copy_seen(const json_t *value, json_text_seen_fn seen,
			     void *arg)
{
	json_t *copy = NULL, *child;
	const char *key;
	size_t i, key_len;

	switch (json_typeof(value)) {
	case JSON_OBJECT:
		if (!(copy = json_object()))
			return NULL;
		json_object_keylen_foreach((json_t *)value, key, key_len, child) {
			if (seen)
				seen(arg, key, key_len);
			if (json_object_setn_new_nocheck(copy, key, key_len,
							 json_value_copy_seen(child, seen, arg)))
				goto out_fail;
		}
		return copy;
	case JSON_ARRAY:
		if (!(copy = json_array()))
			return NULL;
		json_array_foreach(value, i, child)
			if (json_array_append_new(copy, json_value_copy_seen(child,
									     seen, arg)))
				goto out_fail;
		return copy;
	case JSON_STRING:
		if (seen)
			seen(arg, json_string_value(value),
			     json_string_length(value));
		return json_stringn_nocheck(json_string_value(value),
					    json_string_length(value));
	case JSON_INTEGER:
		return json_integer(json_integer_value(value));
	case JSON_REAL:
		return json_real(json_real_value(value));
	default:
		/* true, false and null are shared */
		return json_incref((json_t *)value);
	}
out_fail:
	json_decref(copy);
	return NULL;
}

json_t *json_value_copy(const json_t *value)
{
	return json_value_copy_seen(value, NULL, NULL);
}

static const char *patch_kind_name(enum patch_kind kind)
{
	switch (kind) {
	case PATCH_ADD:
		return "add";
	case PATCH_REMOVE:
		return "remove";
	case PATCH_REPLACE:
		return "replace";
	case PATCH_MOVE:
		return "move";
	}
	return "?";
}

json_t *rules_patch_json(const struct rules_result *result)
{
	json_t *patch = json_array();
	size_t i;

	if (!patch)
		return NULL;
	for (i = 0; i < result->n_ops; i++) {
		const struct patch_op *op = &result->ops[i];
		json_t *item = json_object();

		if (!item || json_array_append_new(patch, item) != 0)
			goto out_fail;
		if (json_object_set_new(item, "op",
					json_string(patch_kind_name(op->kind))) ||
		    (op->from && json_object_set_new(item, "from",
						      json_string(op->from))) ||
		    json_object_set_new(item, "path", json_string(op->path)) ||
		    (op->value && json_object_set(item, "value", op->value)))
			goto out_fail;
	}
	return patch;
out_fail:
	json_decref(patch);
	return NULL;
}

struct dump_sink {
	char *data;
	size_t len, alloc;
	int failed;
};

static int dump_append(const char *buffer, size_t size, void *data)
{
	struct dump_sink *sink = data;

	if (sink->len + size + 1 > sink->alloc) {
		size_t alloc = sink->alloc ? sink->alloc : 64;
		char *grown;

		while (alloc < sink->len + size + 1)
			alloc *= 2;
		grown = realloc(sink->data, alloc);
		if (!grown) {
			sink->failed = 1;
			return -1;
		}
		sink->data = grown;
		sink->alloc = alloc;
	}
	memcpy(sink->data + sink->len, buffer, size);
	sink->len += size;
	sink->data[sink->len] = '\0';
	return 0;
}

int json_text_string(json_dump_callback_t append, void *data,
		     const char *text, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	static const unsigned char escaped[256] = {
		[0x00 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1,
	};
	size_t run = 0;

	if (append("\"", 1, data))
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		char esc[6] = { '\\', 0 };
		size_t n = 2;

		if (!escaped[c])
			continue;
		if (i > run && append(text + run, i - run, data))
			return -1;
		run = i + 1;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			n = 6;
		}
		if (append(esc, n, data))
			return -1;
	}
	if (len > run && append(text + run, len - run, data))
		return -1;
	return append("\"", 1, data);
}

/*
 * jansson's JSON_COMPACT output, written without its per-byte callbacks:
 * the webhook writes every answer and log line this way. Reals, rare in
 * Kubernetes objects, are left to jansson's own formatting (`flags`).
 */
static int compact_value(struct dump_sink *sink, const json_t *value,
			 size_t flags)
{
	char number[32];
	const char *key;
	json_t *child;
	size_t i, key_len;
	int first = 1, len;

	switch (json_typeof(value)) {
	case JSON_OBJECT:
		if (dump_append("{", 1, sink))
			return -1;
		/* a key may hold a NUL (nul.h): written whole, as jansson does */
		json_object_keylen_foreach((json_t *)value, key, key_len, child) {
			if ((!first && dump_append(",", 1, sink)) ||
			    json_text_string(dump_append, sink, key, key_len) ||
			    dump_append(":", 1, sink) ||
			    compact_value(sink, child, flags))
				return -1;
			first = 0;
		}
		return dump_append("}", 1, sink);
	case JSON_ARRAY:
		if (dump_append("[", 1, sink))
			return -1;
		json_array_foreach(value, i, child)
			if ((i && dump_append(",", 1, sink)) ||
			    compact_value(sink, child, flags))
				return -1;
		return dump_append("]", 1, sink);
	case JSON_STRING:
		return json_text_string(dump_append, sink,
					json_string_value(value),
					json_string_length(value));
	case JSON_INTEGER:
		len = snprintf(number, sizeof(number), "%" JSON_INTEGER_FORMAT,
			       json_integer_value(value));
		return dump_append(number, (size_t)len, sink);
	case JSON_TRUE:
		return dump_append("true", 4, sink);
	case JSON_FALSE:
		return dump_append("false", 5, sink);
	case JSON_NULL:
		return dump_append("null", 4, sink);
	default:
		return json_dump_callback(value, dump_append, sink,
					  flags | JSON_ENCODE_ANY);
	}
}

char *json_text_new(const json_t *value, size_t flags)
{
	struct dump_sink sink = { NULL, 0, 0, 0 };

	/* compact output, with any real precision: the fast writer */
	if ((flags & ~(size_t)JSON_REAL_PRECISION(31)) == JSON_COMPACT) {
		if (compact_value(&sink, value, flags) != 0 || sink.failed) {
			free(sink.data);
			return NULL;
		}
	} else if (json_dump_callback(value, dump_append, &sink,
				      flags | JSON_ENCODE_ANY) != 0 ||
		   sink.failed) {
		free(sink.data);
		return NULL;
	}
	if (!sink.data)
		return strdup("");
	return sink.data;
}
