/*
 * render.c - a small, helm-free renderer of Helm charts for the tests, and
 * two helpers around it. Not part of gpumend: tests/suites/helm.sh builds
 * it against the build's objects (for the YAML reader and emitter).
 *
 *   render render CHART [VALUES...]  the chart's templates rendered, as
 *                                    `helm template` prints them
 *   render json FILE                 each YAML document of FILE as one line
 *                                    of JSON, keys sorted, null members
 *                                    left out (empty documents too)
 *   render actions FILE              each {{ ... }} action of FILE on a
 *                                    line, in order (newlines as \n)
 *
 * The template language is the subset of Go's text/template and Helm's
 * functions the test charts use: fields (.Values.a.b, .Release.Name,
 * .Chart.Name, ., $, $var), string and number literals, parentheses,
 * pipelines, if / else if / else, with, range (over a list or a map, with
 * $var or $k, $v), define, template, include, $var := ..., and the
 * functions toYaml, nindent, indent, quote, squote, default, eq, ne, not,
 * and, or, printf (%s %d %v), trunc, trimSuffix, upper, lower. Trim
 * markers and comments are honoured. Written from the documentation of
 * text/template and Helm, for the tests only.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "buf.h"
#include "source.h"

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "render: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct buf b;
	char chunk[65536];
	size_t n;

	if (!f)
		die("cannot open '%s'", path);
	buf_init(&b, 0);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (buf_append(&b, chunk, n))
			die("out of memory");
	fclose(f);
	if (buf_putc(&b, '\0'))
		die("out of memory");
	{
		char *text = buf_detach(&b, len);

		(*len)--; /* the NUL is not the file's */
		return text;
	}
}

/* ------------------------------------------------------------------ */
/* Lexing: text and actions                                            */

enum item_kind { ITEM_TEXT, ITEM_ACTION };

struct item {
	enum item_kind kind;
	char *text;           /* text, or the action's inside */
	int line;
};

struct items {
	struct item *v;
	size_t n, cap;
};

static void items_push(struct items *it, enum item_kind kind, const char *s,
		       size_t n, int line)
{
	if (it->n == it->cap) {
		it->cap = it->cap ? it->cap * 2 : 64;
		it->v = realloc(it->v, it->cap * sizeof(*it->v));
		if (!it->v)
			die("out of memory");
	}
	it->v[it->n].kind = kind;
	it->v[it->n].text = strndup(s, n);
	it->v[it->n].line = line;
	if (!it->v[it->n].text)
		die("out of memory");
	it->n++;
}

static int space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The end of the action opened at `s` (just past "}}"). */
static size_t close_of(const char *t, size_t len, size_t s, const char *name)
{
	size_t i = s + 2;

	if (i + 1 < len && t[i] == '-' && space(t[i + 1]))
		i += 2;
	if (i + 1 < len && t[i] == '/' && t[i + 1] == '*') {
		/* a comment: no quotes in it */
		const char *close = strstr(t + i + 2, "*/");

		if (!close)
			die("%s: unclosed comment", name);
		i = (size_t)(close - t) + 2;
	}
	while (i + 1 < len) {
		if (t[i] == '"' || t[i] == '\'') {
			char q = t[i++];

			while (i < len && t[i] != q) {
				if (t[i] == '\\')
					i++;
				i++;
			}
			i++;
		} else if (t[i] == '`') {
			i++;
			while (i < len && t[i] != '`')
				i++;
			i++;
		} else if (t[i] == '}' && t[i + 1] == '}') {
			return i + 2;
		} else {
			i++;
		}
	}
	die("%s: unclosed action", name);
	return 0;
}

static void lex(const char *t, size_t len, struct items *it, const char *name)
{
	size_t pos = 0;
	int line = 1, trim_next = 0;

	while (pos < len) {
		const char *open = strstr(t + pos, "{{");
		size_t s = open ? (size_t)(open - t) : len, e, in_s, in_e;
		size_t text_s = pos, text_e = s;
		int trim_left, trim_right;

		if (trim_next)
			while (text_s < text_e && space(t[text_s]))
				text_s++;
		if (!open) {
			items_push(it, ITEM_TEXT, t + text_s, text_e - text_s, line);
			break;
		}
		trim_left = s + 3 < len && t[s + 2] == '-' && space(t[s + 3]);
		if (trim_left)
			while (text_e > text_s && space(t[text_e - 1]))
				text_e--;
		items_push(it, ITEM_TEXT, t + text_s, text_e - text_s, line);
		for (size_t k = pos; k < s; k++)
			line += t[k] == '\n';
		e = close_of(t, len, s, name);
		in_s = s + 2 + (trim_left ? 1 : 0);
		in_e = e - 2;
		trim_right = in_e >= in_s + 2 && t[in_e - 1] == '-' &&
			     space(t[in_e - 2]);
		if (trim_right)
			in_e--;
		items_push(it, ITEM_ACTION, t + in_s, in_e - in_s, line);
		for (size_t k = s; k < e; k++)
			line += t[k] == '\n';
		trim_next = trim_right;
		pos = e;
	}
}

/* ------------------------------------------------------------------ */
/* Parsing into a tree                                                 */

enum node_kind {
	NODE_TEXT, NODE_OUTPUT, NODE_IF, NODE_RANGE, NODE_WITH
};

struct node;

struct list {
	struct node **v;
	size_t n, cap;
};

struct node {
	enum node_kind kind;
	char *text;            /* text, or the pipeline */
	struct list body;      /* if/range/with */
	struct list other;     /* else (an else-if is an if inside it) */
};

struct define {
	char *name;
	struct list body;
};

static struct define defines[256];
static size_t n_defines;

static void list_push(struct list *l, struct node *n)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			die("out of memory");
	}
	l->v[l->n++] = n;
}

static const char *skip_space(const char *p)
{
	while (*p && space(*p))
		p++;
	return p;
}

/* 1 when the action `a` starts with keyword `kw`; *rest after it. */
static int keyword(const char *a, const char *kw, const char **rest)
{
	size_t n = strlen(kw);

	a = skip_space(a);
	if (strncmp(a, kw, n) != 0 || (a[n] && !space(a[n])))
		return 0;
	*rest = skip_space(a + n);
	return 1;
}

static struct node *node_new(enum node_kind kind, const char *text)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n || !(n->text = strdup(text)))
		die("out of memory");
	n->kind = kind;
	return n;
}

/*
 * Parses items from *i into `l` until an else or end (returned: 1 for
 * else, with *else_rest the text after "else"; 2 for end), or the end of
 * the items (0).
 */
static int parse_list(struct items *it, size_t *i, struct list *l,
		      const char **else_rest, const char *name)
{
	while (*i < it->n) {
		struct item *item = &it->v[(*i)++];
		const char *a = item->text, *rest;
		struct node *n;

		if (item->kind == ITEM_TEXT) {
			if (*a)
				list_push(l, node_new(NODE_TEXT, a));
			continue;
		}
		a = skip_space(a);
		if (strncmp(a, "/*", 2) == 0)
			continue;
		if (keyword(a, "end", &rest))
			return 2;
		if (keyword(a, "else", &rest)) {
			*else_rest = rest;
			return 1;
		}
		if (keyword(a, "define", &rest)) {
			struct define *d = &defines[n_defines];
			const char *q = strchr(rest, '"'), *qe;
			const char *dummy;

			if (n_defines == 256 || !q || !(qe = strchr(q + 1, '"')))
				die("%s:%d: bad define", name, item->line);
			d->name = strndup(q + 1, (size_t)(qe - q - 1));
			memset(&d->body, 0, sizeof(d->body));
			if (parse_list(it, i, &d->body, &dummy, name) != 2)
				die("%s:%d: define without end", name, item->line);
			n_defines++;
			continue;
		}
		if (keyword(a, "if", &rest) || keyword(a, "with", &rest) ||
		    keyword(a, "range", &rest)) {
			enum node_kind kind = keyword(a, "if", &rest) ? NODE_IF :
					      keyword(a, "with", &rest) ? NODE_WITH :
					      NODE_RANGE;
			struct node *top;
			int r;

			keyword(a, kind == NODE_IF ? "if" : kind == NODE_WITH ?
				"with" : "range", &rest);
			top = n = node_new(kind, rest);
			for (;;) {
				const char *er = NULL;

				r = parse_list(it, i, &n->body, &er, name);
				if (r == 0)
					die("%s:%d: no end", name, item->line);
				if (r == 2)
					break;
				/* else: "else if X" chains an if into the else */
				if (keyword(er, "if", &rest) ||
				    keyword(er, "with", &rest)) {
					struct node *chained = node_new(
						keyword(er, "if", &rest) ? NODE_IF
									 : NODE_WITH,
						rest);

					list_push(&n->other, chained);
					n = chained;
					continue;
				}
				r = parse_list(it, i, &n->other, &er, name);
				if (r != 2)
					die("%s:%d: no end after else", name,
					    item->line);
				break;
			}
			list_push(l, top);
			continue;
		}
		list_push(l, node_new(NODE_OUTPUT, a));
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Evaluating                                                          */

struct var {
	char name[64];
	json_t *value;
};

struct scope {
	json_t *root;          /* $ */
	json_t *dot;           /* . */
	struct var vars[64];
	size_t n_vars;
};

static void render_list(struct list *l, struct scope *sc, struct buf *out);

static json_t *var_get(struct scope *sc, const char *name)
{
	for (size_t i = sc->n_vars; i > 0; i--)
		if (strcmp(sc->vars[i - 1].name, name) == 0)
			return sc->vars[i - 1].value;
	die("undefined variable $%s", name);
	return NULL;
}

static void var_set(struct scope *sc, const char *name, json_t *value)
{
	for (size_t i = 0; i < sc->n_vars; i++)
		if (strcmp(sc->vars[i].name, name) == 0) {
			json_decref(sc->vars[i].value);
			sc->vars[i].value = value;
			return;
		}
	if (sc->n_vars == 64)
		die("too many variables");
	snprintf(sc->vars[sc->n_vars].name, sizeof(sc->vars[0].name), "%s",
		 name);
	sc->vars[sc->n_vars++].value = value;
}

static int truthy(json_t *v)
{
	if (!v || json_is_null(v) || json_is_false(v))
		return 0;
	if (json_is_string(v))
		return json_string_length(v) > 0;
	if (json_is_integer(v))
		return json_integer_value(v) != 0;
	if (json_is_real(v))
		return json_real_value(v) != 0;
	if (json_is_array(v))
		return json_array_size(v) > 0;
	if (json_is_object(v))
		return json_object_size(v) > 0;
	return 1;
}

/* The text of a value as the template prints it. */
static char *to_text(json_t *v)
{
	char tmp[64];

	if (!v || json_is_null(v))
		return strdup("");
	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_integer(v)) {
		snprintf(tmp, sizeof(tmp), "%lld",
			 (long long)json_integer_value(v));
		return strdup(tmp);
	}
	if (json_is_real(v)) {
		snprintf(tmp, sizeof(tmp), "%g", json_real_value(v));
		return strdup(tmp);
	}
	if (json_is_boolean(v))
		return strdup(json_is_true(v) ? "true" : "false");
	return json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
}

/* toYaml: block YAML, keys sorted as helm's writer does, no final
 * newline. */
static char *to_yaml(json_t *v)
{
	struct buf b;
	json_t *sorted;
	char *text;

	if (!v || json_is_null(v))
		return strdup("null");
	if (!json_is_object(v) && !json_is_array(v)) {
		buf_init(&b, 0);
		emit_scalar(&b, v, 0, EMIT_BLOCK);
		buf_putc(&b, '\0');
		return buf_detach(&b, NULL);
	}
	if (json_is_object(v) && json_object_size(v) == 0)
		return strdup("{}");
	if (json_is_array(v) && json_array_size(v) == 0)
		return strdup("[]");
	/* sorted keys: a round trip through sorted JSON text */
	text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	sorted = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;
	free(text);
	if (!sorted)
		die("out of memory");
	buf_init(&b, 0);
	if (emit_block(&b, sorted, 0, 0))
		die("cannot write YAML");
	json_decref(sorted);
	while (b.len && b.data[b.len - 1] == '\n')
		b.len--;
	buf_putc(&b, '\0');
	return buf_detach(&b, NULL);
}

static char *indent_text(const char *s, long n, int leading_newline)
{
	struct buf b;

	buf_init(&b, 0);
	if (leading_newline)
		buf_putc(&b, '\n');
	for (long i = 0; i < n; i++)
		buf_putc(&b, ' ');
	for (; *s; s++) {
		buf_putc(&b, *s);
		if (*s == '\n')
			for (long i = 0; i < n; i++)
				buf_putc(&b, ' ');
	}
	buf_putc(&b, '\0');
	return buf_detach(&b, NULL);
}

/* ------------------------------------------------------------------ */
/* Pipelines                                                           */

struct parser {
	const char *p;
	struct scope *sc;
};

static json_t *eval_pipeline(struct parser *ps, int nested);

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Follows .a.b.c from `base` (a new reference taken). */
static json_t *fields(struct parser *ps, json_t *base)
{
	json_t *v = base;

	json_incref(v);
	while (*ps->p == '.' && ident_char(ps->p[1])) {
		char name[256];
		size_t n = 0;
		json_t *next;

		ps->p++;
		while (ident_char(*ps->p) && n < sizeof(name) - 1)
			name[n++] = *ps->p++;
		name[n] = '\0';
		next = json_is_object(v) ? json_object_get(v, name) : NULL;
		json_incref(next);
		json_decref(v);
		v = next;
	}
	return v ? v : json_null();
}

/* An operand: a new reference, or NULL at the end of a command. */
static json_t *operand(struct parser *ps, char *fn, size_t fn_size)
{
	const char *p;

	ps->p = skip_space(ps->p);
	p = ps->p;
	fn[0] = '\0';
	if (!*p || *p == '|' || *p == ')')
		return NULL;
	if (*p == '(') {
		json_t *v;

		ps->p++;
		v = eval_pipeline(ps, 1);
		if (*ps->p != ')')
			die("missing ')'");
		ps->p++;
		return fields(ps, v);
	}
	if (*p == '"' || *p == '`') {
		struct buf b;
		char q = *p;
		json_t *v;

		buf_init(&b, 0);
		for (p++; *p && *p != q; p++) {
			if (q == '"' && *p == '\\' && p[1]) {
				p++;
				buf_putc(&b, *p == 'n' ? '\n' : *p == 't' ? '\t' : *p);
			} else {
				buf_putc(&b, *p);
			}
		}
		ps->p = *p ? p + 1 : p;
		buf_putc(&b, '\0');
		v = json_string(b.data ? b.data : "");
		buf_free(&b);
		return v;
	}
	if (isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1]))) {
		char *end;
		long long n = strtoll(p, &end, 10);

		if (*end == '.') {
			double d = strtod(p, &end);

			ps->p = end;
			return json_real(d);
		}
		ps->p = end;
		return json_integer(n);
	}
	if (*p == '$') {
		char name[64];
		size_t n = 0;

		p++;
		while (ident_char(*p) && n < sizeof(name) - 1)
			name[n++] = *p++;
		name[n] = '\0';
		ps->p = p;
		return fields(ps, n ? var_get(ps->sc, name) : ps->sc->root);
	}
	if (*p == '.') {
		if (!ident_char(p[1])) {
			ps->p = p + 1;
			return fields(ps, ps->sc->dot);
		}
		return fields(ps, ps->sc->dot);
	}
	if (ident_char(*p)) {
		size_t n = 0;

		while (ident_char(*p) && n < fn_size - 1)
			fn[n++] = *p++;
		fn[n] = '\0';
		ps->p = p;
		if (strcmp(fn, "true") == 0 || strcmp(fn, "false") == 0) {
			json_t *v = json_boolean(fn[0] == 't');

			fn[0] = '\0';
			return v;
		}
		if (strcmp(fn, "nil") == 0) {
			fn[0] = '\0';
			return json_null();
		}
		return json_null(); /* a function name; see command() */
	}
	die("cannot read '%s'", p);
	return NULL;
}

static struct define *define_get(const char *name)
{
	for (size_t i = 0; i < n_defines; i++)
		if (strcmp(defines[i].name, name) == 0)
			return &defines[i];
	die("no define '%s'", name);
	return NULL;
}

static json_t *include(const char *name, json_t *dot, json_t *root)
{
	struct scope sc = { .root = root, .dot = dot };
	struct buf b;
	json_t *v;

	buf_init(&b, 0);
	render_list(&define_get(name)->body, &sc, &b);
	buf_putc(&b, '\0');
	v = json_string(b.data);
	buf_free(&b);
	for (size_t i = 0; i < sc.n_vars; i++)
		json_decref(sc.vars[i].value);
	return v;
}

static json_t *string_new(char *s)
{
	json_t *v;

	if (!s)
		die("out of memory");
	v = json_string(s);
	free(s);
	return v;
}

/* Calls function `fn` on args[0..n). */
static json_t *call(struct scope *sc, const char *fn, json_t **args, size_t n)
{
#define NEED(k) do { if (n != (k)) die("%s takes %d arguments", fn, (k)); } while (0)
	if (strcmp(fn, "include") == 0 || strcmp(fn, "template") == 0) {
		NEED(2);
		return include(json_string_value(args[0]), args[1], sc->root);
	}
	if (strcmp(fn, "toYaml") == 0) {
		NEED(1);
		return string_new(to_yaml(args[0]));
	}
	if (strcmp(fn, "nindent") == 0 || strcmp(fn, "indent") == 0) {
		char *text;
		json_t *v;

		NEED(2);
		text = to_text(args[1]);
		v = string_new(indent_text(text, (long)json_integer_value(args[0]),
					   fn[0] == 'n'));
		free(text);
		return v;
	}
	if (strcmp(fn, "quote") == 0 || strcmp(fn, "squote") == 0) {
		char *text, *q;
		json_t *v;

		NEED(1);
		text = to_text(args[0]);
		q = malloc(strlen(text) + 3);
		if (!q)
			die("out of memory");
		sprintf(q, fn[0] == 'q' ? "\"%s\"" : "'%s'", text);
		v = string_new(q);
		free(text);
		return v;
	}
	if (strcmp(fn, "default") == 0) {
		NEED(2);
		return json_incref(truthy(args[1]) ? args[1] : args[0]);
	}
	if (strcmp(fn, "eq") == 0 || strcmp(fn, "ne") == 0) {
		NEED(2);
		return json_boolean(json_equal(args[0], args[1]) == (fn[0] == 'e'));
	}
	if (strcmp(fn, "not") == 0) {
		NEED(1);
		return json_boolean(!truthy(args[0]));
	}
	if (strcmp(fn, "and") == 0 || strcmp(fn, "or") == 0) {
		int want = fn[0] == 'o';

		for (size_t i = 0; i + 1 < n; i++)
			if (truthy(args[i]) == want)
				return json_incref(args[i]);
		return n ? json_incref(args[n - 1]) : json_null();
	}
	if (strcmp(fn, "upper") == 0 || strcmp(fn, "lower") == 0) {
		char *text;

		NEED(1);
		text = to_text(args[0]);
		for (char *c = text; *c; c++)
			*c = (char)(fn[0] == 'u' ? toupper((unsigned char)*c)
						 : tolower((unsigned char)*c));
		return string_new(text);
	}
	if (strcmp(fn, "trunc") == 0) {
		char *text;
		long k;

		NEED(2);
		text = to_text(args[1]);
		k = (long)json_integer_value(args[0]);
		if (k >= 0 && (size_t)k < strlen(text))
			text[k] = '\0';
		return string_new(text);
	}
	if (strcmp(fn, "trimSuffix") == 0) {
		char *text, *suffix;
		size_t tl, sl;

		NEED(2);
		suffix = to_text(args[0]);
		text = to_text(args[1]);
		tl = strlen(text);
		sl = strlen(suffix);
		if (sl <= tl && strcmp(text + tl - sl, suffix) == 0)
			text[tl - sl] = '\0';
		free(suffix);
		return string_new(text);
	}
	if (strcmp(fn, "printf") == 0) {
		struct buf b;
		const char *f;
		size_t a = 1;
		json_t *v;

		if (n < 1)
			die("printf needs a format");
		buf_init(&b, 0);
		for (f = json_string_value(args[0]); f && *f; f++) {
			if (*f == '%' && f[1] && strchr("sdv", f[1]) && a < n) {
				char *text = to_text(args[a++]);

				buf_puts(&b, text);
				free(text);
				f++;
			} else {
				buf_putc(&b, *f);
			}
		}
		buf_putc(&b, '\0');
		v = json_string(b.data);
		buf_free(&b);
		return v;
	}
	die("unknown function '%s'", fn);
	return NULL;
#undef NEED
}

/* A command; `piped` (stolen, may be NULL) is appended as last argument. */
static json_t *command(struct parser *ps, json_t *piped)
{
	json_t *args[16];
	size_t n = 0;
	char fn[64], first_fn[64] = "";
	json_t *v;

	while ((v = operand(ps, fn, sizeof(fn))) != NULL) {
		if (fn[0] && n == 0 && !first_fn[0]) {
			snprintf(first_fn, sizeof(first_fn), "%s", fn);
			json_decref(v);
			continue;
		}
		if (fn[0])
			die("a function '%s' as an argument", fn);
		if (n == 15)
			die("too many arguments");
		args[n++] = v;
	}
	if (piped) {
		if (n == 15)
			die("too many arguments");
		args[n++] = piped;
	}
	if (first_fn[0])
		v = call(ps->sc, first_fn, args, n);
	else if (n == 1)
		v = json_incref(args[0]);
	else
		die("a command of %zu values", n);
	for (size_t i = 0; i < n; i++)
		json_decref(args[i]);
	return v;
}

static json_t *eval_pipeline(struct parser *ps, int nested)
{
	json_t *v = NULL;

	for (;;) {
		v = command(ps, v);
		ps->p = skip_space(ps->p);
		if (*ps->p == '|') {
			ps->p++;
			continue;
		}
		if (!*ps->p || (nested && *ps->p == ')'))
			return v;
		die("unexpected '%s'", ps->p);
	}
}

/* Evaluates `text`, a pipeline perhaps declaring variables. */
static json_t *evaluate(struct scope *sc, const char *text, char *var1,
			char *var2)
{
	struct parser ps = { .p = skip_space(text), .sc = sc };
	const char *assign = strstr(text, ":=");

	var1[0] = var2[0] = '\0';
	if (*ps.p == '$' && assign) {
		/* "$x := p" or "$k, $v := p" */
		const char *p = ps.p + 1;
		size_t n = 0;

		while (ident_char(*p) && n < 63)
			var1[n++] = *p++;
		var1[n] = '\0';
		p = skip_space(p);
		if (*p == ',') {
			p = skip_space(p + 1);
			if (*p == '$')
				p++;
			n = 0;
			while (ident_char(*p) && n < 63)
				var2[n++] = *p++;
			var2[n] = '\0';
		}
		ps.p = assign + 2;
	}
	return eval_pipeline(&ps, 0);
}

static void render_node(struct node *n, struct scope *sc, struct buf *out)
{
	char v1[64], v2[64];
	json_t *v;

	switch (n->kind) {
	case NODE_TEXT:
		buf_puts(out, n->text);
		return;
	case NODE_OUTPUT:
		v = evaluate(sc, n->text, v1, v2);
		if (v1[0]) {
			var_set(sc, v1, v);
			return;
		}
		{
			char *text = to_text(v);

			buf_puts(out, text);
			free(text);
		}
		json_decref(v);
		return;
	case NODE_IF:
		v = evaluate(sc, n->text, v1, v2);
		render_list(truthy(v) ? &n->body : &n->other, sc, out);
		json_decref(v);
		return;
	case NODE_WITH:
		v = evaluate(sc, n->text, v1, v2);
		if (truthy(v)) {
			json_t *saved = sc->dot;

			sc->dot = v;
			render_list(&n->body, sc, out);
			sc->dot = saved;
		} else {
			render_list(&n->other, sc, out);
		}
		json_decref(v);
		return;
	case NODE_RANGE: {
		json_t *saved = sc->dot, *item;
		const char *key;
		size_t i;

		v = evaluate(sc, n->text, v1, v2);
		if (!truthy(v)) {
			render_list(&n->other, sc, out);
			json_decref(v);
			return;
		}
		if (json_is_array(v)) {
			json_array_foreach(v, i, item) {
				sc->dot = item;
				if (v2[0]) {
					var_set(sc, v1, json_integer((json_int_t)i));
					var_set(sc, v2, json_incref(item));
				} else if (v1[0]) {
					var_set(sc, v1, json_incref(item));
				}
				render_list(&n->body, sc, out);
			}
		} else if (json_is_object(v)) {
			json_t *sorted = json_loads(json_dumps(v, JSON_SORT_KEYS),
						    0, NULL);

			json_object_foreach(sorted, key, item) {
				sc->dot = item;
				if (v2[0]) {
					var_set(sc, v1, json_string(key));
					var_set(sc, v2, json_incref(item));
				} else if (v1[0]) {
					var_set(sc, v1, json_incref(item));
				}
				render_list(&n->body, sc, out);
			}
		}
		sc->dot = saved;
		json_decref(v);
		return;
	}
	}
}

static void render_list(struct list *l, struct scope *sc, struct buf *out)
{
	for (size_t i = 0; i < l->n; i++)
		render_node(l->v[i], sc, out);
}

/* ------------------------------------------------------------------ */
/* Charts                                                              */

static json_t *yaml_file(const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	struct source_error err;
	json_t *v = source_parse_one(text, len, NULL, NULL, &err);

	if (!v)
		die("%s:%d:%d: %s", path, err.line, err.column, err.message);
	free(text);
	return v;
}

/* Values merged: `over` into `base`, maps deeply. */
static void merge(json_t *base, json_t *over)
{
	const char *key;
	json_t *v;

	json_object_foreach(over, key, v) {
		json_t *old = json_object_get(base, key);

		if (json_is_object(old) && json_is_object(v))
			merge(old, v);
		else
			json_object_set(base, key, v);
	}
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files under `dir`, recursively, sorted. */
static void list_files(const char *dir, char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char *path;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		path = malloc(strlen(dir) + strlen(de->d_name) + 2);
		if (!path)
			die("out of memory");
		sprintf(path, "%s/%s", dir, de->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			list_files(path, names, n);
			free(path);
			continue;
		}
		*names = realloc(*names, (*n + 1) * sizeof(**names));
		if (!*names)
			die("out of memory");
		(*names)[(*n)++] = path;
	}
	closedir(d);
	qsort(*names, *n, sizeof(**names), name_cmp);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int cmd_render(int argc, char **argv)
{
	char path[4096], **files = NULL;
	size_t n_files = 0;
	struct list *bodies;
	json_t *chart, *values, *root;
	struct buf out;

	if (argc < 1)
		die("usage: render render CHART [VALUES...]");
	snprintf(path, sizeof(path), "%s/Chart.yaml", argv[0]);
	chart = yaml_file(path);
	snprintf(path, sizeof(path), "%s/values.yaml", argv[0]);
	values = yaml_file(path);
	if (json_is_null(values)) {
		json_decref(values);
		values = json_object();
	}
	for (int i = 1; i < argc; i++) {
		json_t *over = yaml_file(argv[i]);

		merge(values, over);
		json_decref(over);
	}
	root = json_pack("{s:o,s:{s:s,s:s,s:s},s:o}", "Values", values,
			 "Release", "Name", "release-name", "Namespace",
			 "default", "Service", "Helm", "Chart", chart);
	json_object_set_new(json_object_get(root, "Chart"), "Name",
			    json_incref(json_object_get(chart, "name")));
	snprintf(path, sizeof(path), "%s/templates", argv[0]);
	list_files(path, &files, &n_files);
	bodies = calloc(n_files + 1, sizeof(*bodies));
	if (!bodies)
		die("out of memory");
	/* every file first, for its defines */
	for (size_t i = 0; i < n_files; i++) {
		struct items it = { 0 };
		size_t len, at = 0;
		const char *er;
		char *text = read_file(files[i], &len);

		lex(text, len, &it, files[i]);
		if (parse_list(&it, &at, &bodies[i], &er, files[i]) != 0)
			die("%s: an else or end too many", files[i]);
		free(text);
	}
	buf_init(&out, 0);
	for (size_t i = 0; i < n_files; i++) {
		const char *base = strrchr(files[i], '/');
		struct scope sc = { .root = root, .dot = root };
		struct buf doc;
		size_t k;

		base = base ? base + 1 : files[i];
		if (base[0] == '_' || !(ends_with(base, ".yaml") ||
					ends_with(base, ".yml")))
			continue;
		buf_init(&doc, 0);
		render_list(&bodies[i], &sc, &doc);
		for (k = 0; k < doc.len && space(doc.data[k]); k++)
			;
		if (k < doc.len) {
			buf_printf(&out, "---\n# Source: %s\n", files[i] +
				   strlen(argv[0]) + (argv[0][strlen(argv[0]) - 1] == '/' ? 0 : 1));
			buf_append(&out, doc.data, doc.len);
			if (doc.data[doc.len - 1] != '\n')
				buf_putc(&out, '\n');
		}
		buf_free(&doc);
		for (size_t v = 0; v < sc.n_vars; v++)
			json_decref(sc.vars[v].value);
	}
	fwrite(out.data ? out.data : "", 1, out.len, stdout);
	buf_free(&out);
	return 0;
}

/* Members whose value is null go: Kubernetes reads them as absent (an
 * `annotations:` left empty by a template). */
static void drop_nulls(json_t *v)
{
	const char *key;
	json_t *item;
	void *tmp;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach_safe(v, tmp, key, item) {
			if (json_is_null(item))
				json_object_del(v, key);
			else
				drop_nulls(item);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			drop_nulls(item);
	}
}

static int cmd_json(int argc, char **argv)
{
	size_t len;
	char *text;
	struct source_parser *p;
	struct source_doc doc;
	struct source_error err;
	int got;

	if (argc != 1)
		die("usage: render json FILE");
	text = read_file(argv[0], &len);
	p = source_parser_new(text, len, NULL);
	source_parser_set_tree(p, 0);
	while ((got = source_next_doc(p, &doc, &err)) > 0) {
		if (doc.json && !json_is_null(doc.json)) {
			char *s;

			drop_nulls(doc.json);
			s = json_dumps(doc.json, JSON_COMPACT |
					     JSON_SORT_KEYS | JSON_ENCODE_ANY);

			printf("%s\n", s);
			free(s);
		}
		source_doc_clear(&doc);
	}
	if (got < 0)
		die("%s:%d:%d: %s", argv[0], err.line, err.column, err.message);
	source_parser_free(p);
	free(text);
	return 0;
}

static int cmd_actions(int argc, char **argv)
{
	size_t len, pos = 0;
	char *text;

	if (argc != 1)
		die("usage: render actions FILE");
	text = read_file(argv[0], &len);
	while (pos < len) {
		const char *open = strstr(text + pos, "{{");
		size_t s, e;

		if (!open)
			break;
		s = (size_t)(open - text);
		e = close_of(text, len, s, argv[0]);
		for (size_t k = s; k < e; k++) {
			if (text[k] == '\n')
				fputs("\\n", stdout);
			else
				putchar(text[k]);
		}
		putchar('\n');
		pos = e;
	}
	free(text);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "render") == 0)
		return cmd_render(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "json") == 0)
		return cmd_json(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "actions") == 0)
		return cmd_actions(argc - 2, argv + 2);
	die("usage: render render|json|actions ...");
	return 2;
}
