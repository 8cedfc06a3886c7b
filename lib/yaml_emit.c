/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * yaml_emit.c - renders json values as YAML (block or flow) or JSON text,
 * for the parts of a document that the text patcher writes anew.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "ascii.h"
#include "source.h"

/* Characters that may not start a plain scalar. */
static const char *const leading_indicators = "-?:,[]{}#&*!|>'\"%@`";

/* 1 when `s` can be written as a plain scalar and reads back as the same
 * string (not as null, a bool or a number). */
static int plain_safe(const char *s, size_t n, enum emit_context context)
{
	json_t *resolved;
	int is_string;

	if (n == 0 || s[0] == ' ' || s[n - 1] == ' ' || s[n - 1] == ':')
		return 0;
	if (strchr(leading_indicators, s[0])) {
		/* "-x", "?x", ":x" are plain when not followed by a space */
		if (!(s[0] == '-' || s[0] == '?' || s[0] == ':') || n < 2 ||
		    s[1] == ' ')
			return 0;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			return 0;
		if (c == ':' && i + 1 < n && s[i + 1] == ' ')
			return 0;
		if (c == '#' && i > 0 && s[i - 1] == ' ')
			return 0;
		if (context != EMIT_BLOCK && strchr(",[]{}", c))
			return 0;
		if (c >= 0x80 && c < 0xC0 && i == 0)
			return 0;
	}
	if (n >= 3 && (!strncmp(s, "---", 3) || !strncmp(s, "...", 3)))
		return 0;
	/* a plain << is a merge key, not a string */
	if (n == 2 && s[0] == '<' && s[1] == '<')
		return 0;
	/* line and paragraph separators and NEL break lines; a BOM too */
	for (size_t i = 0; i + 1 < n; i++) {
		const unsigned char *u = (const unsigned char *)s + i;

		if ((u[0] == 0xC2 && u[1] == 0x85) ||
		    (i + 2 < n && u[0] == 0xE2 && u[1] == 0x80 &&
		     (u[2] == 0xA8 || u[2] == 0xA9)) ||
		    (i + 2 < n && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF))
			return 0;
	}
	/* .inf and .nan read as floats elsewhere (Kubernetes refuses them),
	 * though gpumend keeps them as the strings JSON needs */
	if (s[0] == '.' || ((s[0] == '+' || s[0] == '-') && n > 1 && s[1] == '.')) {
		const char *t = s[0] == '.' ? s : s + 1;
		size_t m = s[0] == '.' ? n : n - 1;

		if (m == 4 && (!strncasecmp(t, ".inf", 4) ||
			       !strncasecmp(t, ".nan", 4)))
			return 0;
	}
	resolved = yaml_resolve_plain(s, n);
	is_string = json_is_string(resolved);
	json_decref(resolved);
	return is_string;
}

/* The length of the NEL, U+2028 or U+2029 at u (what YAML reads as a line
 * break, also inside quotes, where JSON keeps it as it is), or 0. */
static size_t break_char(const unsigned char *u, size_t n)
{
	return n && u[0] >= 0x80 ? yaml_break_len(u, n) : 0;
}

/* JSON's string text, but for NEL, U+2028 and U+2029 written as \u
 * escapes (JSON and YAML both read them so). */
static int emit_double_quoted(struct buf *out, const char *s, size_t n)
{
	json_t *str = json_stringn(s, n);
	char *text = str ? json_text_new(str, JSON_ENCODE_ANY) : NULL;
	size_t len = text ? strlen(text) : 0, from = 0;
	int rc = text ? 0 : -1;

	for (size_t i = 0; !rc && i < len; i++) {
		const unsigned char *u = (const unsigned char *)text + i;
		size_t k = break_char(u, len - i);

		if (!k)
			continue;
		rc = buf_append(out, text + from, i - from) ||
		     buf_puts(out, k == 2 ? "\\u0085" :
				   u[2] == 0xA8 ? "\\u2028" : "\\u2029");
		i += k - 1;
		from = i + 1;
	}
	if (!rc)
		rc = buf_append(out, text + from, len - from);
	free(text);
	json_decref(str);
	return rc;
}

static int emit_single_quoted(struct buf *out, const char *s, size_t n)
{
	if (buf_putc(out, '\''))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'' && buf_putc(out, '\''))
			return -1;
		if (buf_putc(out, s[i]))
			return -1;
	}
	return buf_putc(out, '\'');
}

static int emit_string(struct buf *out, const char *s, size_t n, int style,
		       enum emit_context context)
{
	int single_ok = 1;

	if (context == EMIT_JSON)
		return emit_double_quoted(out, s, n);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f ||
		    break_char((const unsigned char *)s + i, n - i))
			single_ok = 0;
	if (style == YAML_DOUBLE_QUOTED_SCALAR_STYLE || !single_ok)
		return emit_double_quoted(out, s, n);
	if (style == YAML_SINGLE_QUOTED_SCALAR_STYLE)
		return emit_single_quoted(out, s, n);
	if (plain_safe(s, n, context))
		return buf_append(out, s, n);
	return emit_double_quoted(out, s, n);
}

int emit_scalar(struct buf *out, json_t *value, int style,
		enum emit_context context)
{
	char *text;
	int rc;

	switch (json_typeof(value)) {
	case JSON_STRING:
		return emit_string(out, json_string_value(value),
				   json_string_length(value), style, context);
	case JSON_INTEGER:
		return buf_printf(out, "%" JSON_INTEGER_FORMAT,
				  json_integer_value(value));
	case JSON_TRUE:
		return buf_puts(out, "true");
	case JSON_FALSE:
		return buf_puts(out, "false");
	case JSON_NULL:
		return buf_puts(out, "null");
	case JSON_REAL:
		text = json_text_new(value, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
		rc = text ? buf_puts(out, text) : -1;
		free(text);
		return rc;
	default:
		return emit_flow(out, value, context);
	}
}

int emit_key(struct buf *out, const char *key, int style,
	     enum emit_context context)
{
	return emit_string(out, key, strlen(key), style, context);
}

static int indent_to(struct buf *out, int indent)
{
	for (int i = 0; i < indent; i++)
		if (buf_putc(out, ' '))
			return -1;
	return 0;
}

static int is_empty_collection(json_t *v)
{
	return (json_is_object(v) && json_object_size(v) == 0) ||
	       (json_is_array(v) && json_array_size(v) == 0);
}

/* The value of a mapping member, after "key:". */
static int emit_member_value(struct buf *out, json_t *value, int indent,
			     int indentless)
{
	if (json_is_object(value) && json_object_size(value)) {
		if (buf_putc(out, '\n') || indent_to(out, indent + 2))
			return -1;
		return emit_block(out, value, indent + 2, indentless);
	}
	if (json_is_array(value) && json_array_size(value)) {
		int at = indentless ? indent : indent + 2;

		if (buf_putc(out, '\n') || indent_to(out, at))
			return -1;
		return emit_block(out, value, at, indentless);
	}
	if (buf_putc(out, ' '))
		return -1;
	if (is_empty_collection(value))
		return emit_flow(out, value, EMIT_BLOCK);
	return emit_scalar(out, value, YAML_ANY_SCALAR_STYLE, EMIT_BLOCK);
}

int emit_block(struct buf *out, json_t *value, int indent, int indentless)
{
	const char *key;
	json_t *child;
	size_t i;
	int first = 1;

	if (json_is_object(value) && json_object_size(value)) {
		json_object_foreach(value, key, child) {
			if (!first && (buf_putc(out, '\n') ||
				       indent_to(out, indent)))
				return -1;
			first = 0;
			if (emit_key(out, key, YAML_ANY_SCALAR_STYLE, EMIT_BLOCK) ||
			    buf_putc(out, ':') ||
			    emit_member_value(out, child, indent, indentless))
				return -1;
		}
		return 0;
	}
	if (json_is_array(value) && json_array_size(value)) {
		json_array_foreach(value, i, child) {
			if (!first && (buf_putc(out, '\n') ||
				       indent_to(out, indent)))
				return -1;
			first = 0;
			if (buf_puts(out, "- "))
				return -1;
			if ((json_is_object(child) || json_is_array(child)) &&
			    !is_empty_collection(child)) {
				if (emit_block(out, child, indent + 2, indentless))
					return -1;
			} else if (is_empty_collection(child)) {
				if (emit_flow(out, child, EMIT_BLOCK))
					return -1;
			} else if (emit_scalar(out, child, YAML_ANY_SCALAR_STYLE,
					       EMIT_BLOCK)) {
				return -1;
			}
		}
		return 0;
	}
	if (is_empty_collection(value))
		return emit_flow(out, value, EMIT_BLOCK);
	return emit_scalar(out, value, YAML_ANY_SCALAR_STYLE, EMIT_BLOCK);
}

int emit_flow(struct buf *out, json_t *value, enum emit_context context)
{
	enum emit_context inner = context == EMIT_JSON ? EMIT_JSON : EMIT_FLOW;
	const char *key;
	json_t *child;
	size_t i;
	int first = 1;

	if (json_is_object(value)) {
		if (buf_putc(out, '{'))
			return -1;
		json_object_foreach(value, key, child) {
			/* YAML flow keys are plain when they can be, like the
			 * values next to them; JSON quotes them all */
			if ((!first && buf_puts(out, ", ")) ||
			    emit_key(out, key, inner == EMIT_JSON ?
				     YAML_DOUBLE_QUOTED_SCALAR_STYLE :
				     YAML_ANY_SCALAR_STYLE, inner) ||
			    buf_puts(out, ": ") || emit_flow(out, child, inner))
				return -1;
			first = 0;
		}
		return buf_putc(out, '}');
	}
	if (json_is_array(value)) {
		if (buf_putc(out, '['))
			return -1;
		json_array_foreach(value, i, child) {
			if ((!first && buf_puts(out, ", ")) ||
			    emit_flow(out, child, inner))
				return -1;
			first = 0;
		}
		return buf_putc(out, ']');
	}
	return emit_scalar(out, value, context == EMIT_JSON ?
			   YAML_DOUBLE_QUOTED_SCALAR_STYLE :
			   YAML_ANY_SCALAR_STYLE, inner);
}

int emit_json_pretty(struct buf *out, json_t *value, int indent, int step)
{
	const char *key;
	json_t *child;
	size_t i;
	int first = 1;

	if (is_empty_collection(value) ||
	    (!json_is_object(value) && !json_is_array(value)))
		return emit_flow(out, value, EMIT_JSON);
	if (buf_putc(out, json_is_object(value) ? '{' : '['))
		return -1;
	if (json_is_object(value)) {
		json_object_foreach(value, key, child) {
			if ((!first && buf_putc(out, ',')) ||
			    buf_putc(out, '\n') ||
			    indent_to(out, indent + step) ||
			    emit_key(out, key, YAML_DOUBLE_QUOTED_SCALAR_STYLE,
				     EMIT_JSON) ||
			    buf_puts(out, ": ") ||
			    emit_json_pretty(out, child, indent + step, step))
				return -1;
			first = 0;
		}
	} else {
		json_array_foreach(value, i, child) {
			if ((!first && buf_putc(out, ',')) ||
			    buf_putc(out, '\n') ||
			    indent_to(out, indent + step) ||
			    emit_json_pretty(out, child, indent + step, step))
				return -1;
			first = 0;
		}
	}
	if (buf_putc(out, '\n') || indent_to(out, indent))
		return -1;
	return buf_putc(out, json_is_object(value) ? '}' : ']');
}

int emit_document(struct buf *out, json_t *value, int json, int indentless)
{
	if (json) {
		if (emit_json_pretty(out, value, 0, 2))
			return -1;
	} else if (emit_block(out, value, 0, indentless)) {
		return -1;
	}
	return buf_putc(out, '\n');
}
