/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * chart.c - Helm charts: telling templates and values apart, and
 * migrating or linting values files (templates: template_migrate.c).
 */
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "files.h"
#include "helm_private.h"
#include "json_scan.h"
#include "text_patch.h"

/* ------------------------------------------------------------------ */
/* Which file is what                                                  */

static int has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && strcmp(name + n - k, suffix) == 0;
}

static int is_manifest_name(const char *name)
{
	return has_suffix(name, ".yaml") || has_suffix(name, ".yml") ||
	       has_suffix(name, ".json");
}

/* values.yaml, values-prod.yml, ... */
static int is_values_name(const char *name)
{
	return strncmp(name, "values", 6) == 0 &&
	       (has_suffix(name, ".yaml") || has_suffix(name, ".yml"));
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The folder above `real` (an absolute path) that holds a Chart.yaml:
 * a new string, or NULL. */
static char *chart_root_of(const char *real)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", real);
	for (int depth = 0; depth < 64; depth++) {
		char probe[PATH_MAX + 16];
		struct stat st;

		slash = strrchr(dir, '/');
		if (!slash)
			return NULL;
		*slash = '\0';
		snprintf(probe, sizeof(probe), "%s/Chart.yaml", dir);
		if (stat(probe, &st) == 0 && S_ISREG(st.st_mode))
			return strdup(*dir ? dir : "/");
		if (!*dir)
			return NULL;
	}
	return NULL;
}

enum chart_kind chart_classify(const char *path, enum chart_mode mode,
			       char **root_new)
{
	char real[PATH_MAX];
	char *root;
	const char *rel, *name = base_name(path);
	enum chart_kind kind = CHART_PLAIN;

	if (root_new)
		*root_new = NULL;
	if (mode == CHART_OFF)
		return CHART_PLAIN;
	if (strcmp(path, "-") == 0)
		return mode == CHART_ON ? CHART_TEMPLATE : CHART_PLAIN;
	if (!realpath(path, real))
		return mode == CHART_ON ? (is_values_name(name) ? CHART_VALUES :
					   CHART_TEMPLATE) : CHART_PLAIN;
	root = chart_root_of(real);
	if (mode == CHART_ON) {
		kind = is_values_name(name) ? CHART_VALUES :
		       is_manifest_name(name) ? CHART_TEMPLATE : CHART_OTHER;
	} else if (root) {
		rel = real + strlen(root);
		if (*rel == '/')
			rel++;
		if (strncmp(rel, "templates/", 10) == 0)
			kind = is_manifest_name(rel) ? CHART_TEMPLATE
						     : CHART_OTHER;
		else if (!strchr(rel, '/') && is_values_name(rel))
			kind = CHART_VALUES;
	}
	if (root_new && kind != CHART_PLAIN)
		*root_new = root;
	else
		free(root);
	return kind;
}

int chart_looks_templated(const char *text, size_t len)
{
	/* the start is enough, and a large file's pages stay unread */
	if (len > (64u << 10))
		len = 64u << 10;
	for (const char *p = memchr(text, '{', len); p && p + 1 < text + len;
	     p = memchr(p + 1, '{', len - (size_t)(p + 1 - text)))
		if (p[1] == '{')
			return 1;
	return 0;
}

static enum chart_mode run_mode = CHART_AUTO;

void chart_set_mode(enum chart_mode mode)
{
	run_mode = mode;
}

int chart_walk_wants(const char *path)
{
	return run_mode != CHART_OFF && !is_manifest_name(path) &&
	       chart_classify(path, CHART_AUTO, NULL) == CHART_OTHER;
}

/* ------------------------------------------------------------------ */
/* What the templates read of the values                               */

/* Dotted paths of .Values the templates name, as "a.b.c" strings. */
struct refs {
	char **paths;
	size_t n, cap;
	int all;                   /* .Values is used whole */
	int known;                 /* the templates were read */
	struct texts {
		char **text;
		size_t *len;
		char **name;       /* under templates/ */
		size_t n, cap;
	} texts;
	char name[256];            /* refs_container_name()'s answer */
};

static int refs_add(struct refs *r, const char *s, size_t len)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 32;
		char **grown = realloc(r->paths, cap * sizeof(*grown));

		if (!grown)
			return -1;
		r->paths = grown;
		r->cap = cap;
	}
	if (!(r->paths[r->n] = strndup(s, len)))
		return -1;
	r->n++;
	return 0;
}

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* The next ".Values" in [p, end), or NULL. */
static const char *find_values(const char *p, const char *end)
{
	while (end - p >= 7) {
		const char *dot = memchr(p, '.', (size_t)(end - p - 6));

		if (!dot)
			return NULL;
		if (memcmp(dot, ".Values", 7) == 0)
			return dot;
		p = dot + 1;
	}
	return NULL;
}

static int refs_scan(struct refs *r, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while ((p = find_values(p, end)) != NULL) {
		const char *q = p + 7, *start;

		p += 7;
		if (q < end && is_ident(*q))
			continue; /* .ValuesFoo */
		if (q >= end || *q != '.' || q + 1 >= end || !is_ident(q[1])) {
			r->all = 1; /* .Values whole, or index .Values "..." */
			continue;
		}
		start = q + 1;
		while (q < end && *q == '.' && q + 1 < end && is_ident(q[1])) {
			q++;
			while (q < end && is_ident(*q))
				q++;
		}
		if (refs_add(r, start, (size_t)(q - start)))
			return -1;
	}
	return 0;
}

static int read_dir(const char *dir, chart_file_fn fn, void *arg, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (!d || depth > 16) {
		if (d)
			closedir(d);
		return 0;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char path[PATH_MAX];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			rc = read_dir(path, fn, arg, depth + 1);
		} else if (S_ISREG(st.st_mode) && st.st_size < (16 << 20)) {
			struct input in;

			if (input_read(path, 0, &in) != 0)
				continue;
			rc = fn(arg, path, in.text, in.len);
			input_free(&in);
		}
	}
	closedir(d);
	return rc;
}

int chart_read_templates(const char *root, chart_file_fn fn, void *arg)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/templates", root);
	return read_dir(dir, fn, arg, 0);
}

static int refs_add_file(void *arg, const char *path, const char *text,
			 size_t len)
{
	struct refs *r = arg;
	struct texts *t = &r->texts;
	const char *under = strstr(path, "/templates/");

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		char **grown = realloc(t->text, cap * sizeof(*grown));
		size_t *lens;

		if (!grown)
			return -1;
		t->text = grown;
		if (!(grown = realloc(t->name, cap * sizeof(*grown))))
			return -1;
		t->name = grown;
		if (!(lens = realloc(t->len, cap * sizeof(*lens))))
			return -1;
		t->len = lens;
		t->cap = cap;
	}
	if (!(t->name[t->n] = strdup(under ? under + 11 : path)))
		return -1;
	if (!(t->text[t->n] = malloc(len + 1))) {
		free(t->name[t->n]);
		return -1;
	}
	memcpy(t->text[t->n], text, len);
	t->text[t->n][len] = '\0';
	t->len[t->n++] = len;
	return refs_scan(r, text, len);
}

/* Column of the first non-blank byte of the line at `s`, and where its
 * content starts. */
static size_t line_content(const char *s, const char **content)
{
	const char *p = s;

	while (*p == ' ')
		p++;
	*content = p;
	return (size_t)(p - s);
}

/* The plain name in `value` (up to the line's end) into `out`, or 0. */
static int plain_name(const char *value, char *out, size_t size)
{
	size_t n = 0;

	while (*value == ' ')
		value++;
	if (*value == '"' || *value == '\'')
		value++;
	while (value[n] && value[n] != '\n' && value[n] != '\r' &&
	       value[n] != '"' && value[n] != '\'' && value[n] != ' ' &&
	       value[n] != '#' && n + 1 < size)
		n++;
	if (!n || memchr(value, '{', n))
		return 0;
	memcpy(out, value, n);
	out[n] = '\0';
	return 1;
}

/*
 * The `name` of the container whose `resources:` renders `.Values.PATH.
 * resources` at offset `at` of `text`: a member `name:` of the same
 * mapping, written plainly. 1 with `out` set, else 0.
 */
static int container_name_at(const char *text, size_t at, char *out,
			     size_t size)
{
	const char *ls = text + at, *content, *p;
	size_t col;

	while (ls > text && ls[-1] != '\n')
		ls--;
	col = line_content(ls, &content);
	p = strstr(content, "resources:");
	if (!p || p > text + at) {
		/* `resources:` alone on the line above */
		const char *prev = ls;

		if (prev == text)
			return 0;
		prev--;
		while (prev > text && prev[-1] != '\n')
			prev--;
		col = line_content(prev, &content);
		if (strncmp(content, "resources:", 10) != 0)
			return 0;
		ls = prev;
	} else if (p != content) {
		if (strncmp(content, "- ", 2) != 0)
			return 0;
		col += 2;
	}
	/* up, then down, through the members of the same mapping */
	for (int dir = -1; dir <= 1; dir += 2) {
		const char *l = ls;

		for (int guard = 0; guard < 200; guard++) {
			size_t c;

			if (dir < 0) {
				if (l == text)
					break;
				l--;
				while (l > text && l[-1] != '\n')
					l--;
			} else {
				l = strchr(l, '\n');
				if (!l++)
					break;
			}
			c = line_content(l, &content);
			if (*content == '\n' || *content == '#' || *content == '{')
				continue;
			if (c == col && strncmp(content, "name:", 5) == 0)
				return plain_name(content + 5, out, size);
			if (c + 2 == col && strncmp(content, "- name:", 7) == 0)
				return plain_name(content + 7, out, size);
			if (c < col)
				break;
		}
	}
	return 0;
}

/* values_name_fn: the container name the templates give the site. */
static const char *refs_container_name(void *arg, const char *pointer)
{
	struct refs *r = arg;
	char needle[600], token[256];
	const char *p = pointer;
	size_t n = (size_t)snprintf(needle, sizeof(needle), ".Values");
	int found = 0;

	while (*p) {
		if (json_pointer_next(&p, token, sizeof(token)) ||
		    n + strlen(token) + 2 >= sizeof(needle))
			return NULL;
		n += (size_t)snprintf(needle + n, sizeof(needle) - n, ".%s",
				      token);
	}
	snprintf(needle + n, sizeof(needle) - n, ".resources");
	n = strlen(needle);
	for (size_t i = 0; i < r->texts.n; i++) {
		const char *text = r->texts.text[i], *hit = text;

		while ((hit = strstr(hit, needle)) != NULL) {
			char name[sizeof(r->name)];

			hit += n;
			if (is_ident(*hit) || *hit == '.')
				continue;
			if (!container_name_at(text, (size_t)(hit - text), name,
					       sizeof(name)))
				return NULL;
			if (found && strcmp(name, r->name) != 0)
				return NULL; /* two containers, two names */
			memcpy(r->name, name, sizeof(name));
			found = 1;
		}
	}
	return found ? r->name : NULL;
}

static void refs_free(struct refs *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->paths[i]);
	free(r->paths);
	for (size_t i = 0; i < r->texts.n; i++) {
		free(r->texts.text[i]);
		free(r->texts.name[i]);
	}
	free(r->texts.text);
	free(r->texts.name);
	free(r->texts.len);
	memset(r, 0, sizeof(*r));
}

/*
 * 1 when a template reads the value at `pointer` (or something around or
 * inside it); list indexes match any name (range). Without templates
 * read, everything counts as read.
 */
static int refs_reach(const struct refs *r, const char *pointer)
{
	if (!r->known || r->all)
		return 1;
	for (size_t i = 0; i < r->n; i++) {
		const char *ref = r->paths[i], *p = pointer;
		int match = 1;

		while (match && *p && *ref) {
			char token[256];
			const char *dot = strchr(ref, '.');
			size_t n = dot ? (size_t)(dot - ref) : strlen(ref);
			char *end;

			if (json_pointer_next(&p, token, sizeof(token)))
				return 1;
			strtoul(token, &end, 10);
			if (!(*token && !*end) &&
			    (strlen(token) != n || strncmp(token, ref, n) != 0))
				match = 0;
			ref += n + (dot ? 1 : 0);
			if (!dot)
				break;
		}
		if (match)
			return 1;
	}
	return 0;
}

/* Every template, as refs_readers() answers it. */
#define READERS_ALL (~(uint64_t)0)

/*
 * Which templates read member `key` of the values mapping at `site` (a
 * JSON Pointer): bit i for the template texts[i], set when it names
 * `.Values.SITE.KEY` or the mapping whole (`.Values.SITE`, as `with`
 * and `toYaml` do). READERS_ALL when that cannot be told (a site in a
 * list, which `range` reads; more than 64 templates).
 */
static uint64_t refs_readers(const struct refs *r, const char *site,
			     const char *key)
{
	char needle[600], token[256];
	const char *p = site;
	size_t n = (size_t)snprintf(needle, sizeof(needle), ".Values");
	uint64_t readers = 0;

	if (r->texts.n > 64)
		return READERS_ALL;
	while (*p) {
		char *end;

		if (json_pointer_next(&p, token, sizeof(token)) ||
		    n + strlen(token) + 2 >= sizeof(needle))
			return READERS_ALL;
		strtoul(token, &end, 10);
		if (*token && !*end)
			return READERS_ALL;
		n += (size_t)snprintf(needle + n, sizeof(needle) - n, ".%s",
				      token);
	}
	for (size_t i = 0; i < r->texts.n; i++) {
		const char *hit = r->texts.text[i];

		while ((hit = strstr(hit, needle)) != NULL) {
			const char *k = hit += n;

			if (is_ident(*k))
				continue; /* .Values.siteFoo */
			if (*k != '.') {
				readers |= (uint64_t)1 << i;
				break;
			}
			k++;
			if (strncmp(k, key, strlen(key)) == 0 &&
			    !is_ident(k[strlen(key)])) {
				readers |= (uint64_t)1 << i;
				break;
			}
		}
	}
	return readers;
}

/* The names of the templates in `readers`, comma-separated, in `out`. */
static void readers_names(const struct refs *r, uint64_t readers, char *out,
			  size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < r->texts.n && i < 64 && n < size; i++)
		if (readers >> i & 1)
			n += (size_t)snprintf(out + n, size - n, "%s'%s'",
					      n ? ", " : "", r->texts.name[i]);
}

static const char *const site_keys[] = {
	/* the members that make a mapping a pod of its own (rules/values.c),
	 * the container's requests first: they tell the pod best */
	"resources", "nodeSelector", "podAnnotations", "podLabels",
	"schedulerName", "tolerations", "affinity",
	/* read beside them */
	"env", "args", "command", "volumeMounts", "volumes", "image",
};
#define SITE_MARKERS 7

/*
 * For the change `op` of the values `orig`: 1 when the member it edits
 * is read by other templates than the pod's own (those that read the
 * site's `resources`, or else its first member among site_keys), with
 * why in `why`; else 0. The affinity of a GPU worker written into a key
 * that only a CPU frontend reads would pin the frontend and miss the
 * worker.
 */
static int read_elsewhere(const struct refs *r, json_t *orig,
			  const struct patch_op *op, char *why, size_t size)
{
	char site[512] = "", token[256], member[256] = "";
	const char *p = op->path;
	json_t *map = orig;
	size_t n = 0;
	uint64_t pod = 0, readers;

	if (!r->known || r->all)
		return 0;
	while (*p && !member[0]) {
		int marker = 0;

		if (json_pointer_next(&p, token, sizeof(token)))
			return 0;
		for (size_t i = 0; json_is_object(map) && i < SITE_MARKERS; i++)
			marker |= json_member(map, site_keys[i]) != NULL;
		for (size_t i = 0; marker && i < sizeof(site_keys) /
						 sizeof(site_keys[0]); i++)
			if (strcmp(token, site_keys[i]) == 0)
				snprintf(member, sizeof(member), "%s", token);
		if (member[0])
			break;
		map = json_is_object(map) ? json_member(map, token) :
		      json_array_get(map, strtoul(token, NULL, 10));
		n += (size_t)snprintf(site + n, n < sizeof(site) ?
				      sizeof(site) - n : 0, "/%s", token);
		if (n >= sizeof(site) || !map)
			return 0;
	}
	if (!member[0])
		return 0;
	for (size_t i = 0; i < SITE_MARKERS && !pod; i++)
		if (json_member(map, site_keys[i]))
			pod = refs_readers(r, site, site_keys[i]);
	readers = refs_readers(r, site, member);
	if (!pod || pod == READERS_ALL || readers == READERS_ALL ||
	    !readers || readers == pod)
		return 0;
	if (why) {
		char those[256], ours[256];

		readers_names(r, readers, those, sizeof(those));
		readers_names(r, pod, ours, sizeof(ours));
		snprintf(why, size,
			 "'%.100s' is read by %.200s, not by the pod's own template%s %.200s",
			 member, those, (pod & (pod - 1)) ? "s" : "",
			 pod ? ours : "(none)");
	}
	return 1;
}

/* ------------------------------------------------------------------ */
/* What an action reads of the values                                  */

json_t *chart_values_new(const char *root, const struct config *cfg)
{
	struct source_limits limits = source_limits_of(cfg);
	struct source_parser *parser;
	struct source_error err;
	struct source_doc doc;
	struct input in;
	char path[PATH_MAX];
	json_t *values = NULL;

	if (!root)
		return NULL;
	snprintf(path, sizeof(path), "%s/values.yaml", root);
	if (input_read(path, limits.max_document_bytes, &in) != 0)
		return NULL;
	parser = source_parser_new(in.text, in.len, &limits);
	if (parser) {
		source_parser_set_tree(parser, 0);
		if (source_next_doc(parser, &doc, &err) > 0) {
			if (json_is_object(doc.json))
				values = json_incref(doc.json);
			source_doc_clear(&doc);
		}
		source_parser_free(parser);
	}
	input_free(&in);
	return values;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* The word at p (letters, digits, '_'), its end returned. */
static const char *word_end(const char *p, const char *end)
{
	while (p < end && is_ident(*p))
		p++;
	return p;
}

static int word_is(const char *p, const char *e, const char *word)
{
	return (size_t)(e - p) == strlen(word) &&
	       memcmp(p, word, (size_t)(e - p)) == 0;
}

/* 1 when `value` counts as set for sprig's `default`. */
static int value_set(json_t *value)
{
	if (!value || json_is_null(value) || json_is_false(value))
		return 0;
	if (json_is_string(value))
		return json_string_length(value) > 0;
	if (json_is_object(value))
		return json_object_size(value) > 0;
	if (json_is_array(value))
		return json_array_size(value) > 0;
	if (json_is_integer(value))
		return json_integer_value(value) != 0;
	return 1;
}

json_t *chart_action_value(json_t *values, const char *action, size_t len)
{
	const char *p = action, *end = action + len, *e;
	json_t *value = values;

	if (!values || len < 4 || memcmp(p, "{{", 2) != 0 ||
	    memcmp(end - 2, "}}", 2) != 0)
		return NULL;
	p += 2;
	end -= 2;
	if (p < end && *p == '-')
		p++;
	if (end > p && end[-1] == '-' && end - 1 > p && end[-2] == ' ')
		end--;
	p = skip_blanks(p, end);
	e = word_end(p, end);
	if (word_is(p, e, "toYaml"))
		p = skip_blanks(e, end);
	if (end - p < 8 || memcmp(p, ".Values.", 8) != 0)
		return NULL;
	p += 7;
	while (p < end && *p == '.') {
		char key[256];

		e = word_end(p + 1, end);
		if (e == p + 1 || (size_t)(e - p) > sizeof(key))
			return NULL;
		memcpy(key, p + 1, (size_t)(e - p - 1));
		key[e - p - 1] = '\0';
		value = json_member(value, key);
		p = e;
	}
	/* the pipeline: only what prints the value as it is */
	for (p = skip_blanks(p, end); p < end; p = skip_blanks(p, end)) {
		if (*p != '|')
			return NULL;
		p = skip_blanks(p + 1, end);
		e = word_end(p, end);
		if (word_is(p, e, "nindent") || word_is(p, e, "indent")) {
			p = skip_blanks(e, end);
			while (p < end && *p >= '0' && *p <= '9')
				p++;
		} else if (word_is(p, e, "default")) {
			/* its argument: one word, a value or a string */
			if (!value_set(value))
				return NULL;
			p = skip_blanks(e, end);
			if (p < end && *p == '"') {
				for (p++; p < end && *p != '"'; p++)
					if (*p == '\\')
						p++;
				p++;
			} else {
				while (p < end && *p != ' ' && *p != '|')
					p++;
			}
		} else if (word_is(p, e, "quote") || word_is(p, e, "squote") ||
			   word_is(p, e, "toString") || word_is(p, e, "trim")) {
			p = e;
		} else {
			return NULL;
		}
	}
	return value && !json_is_null(value) ? value : NULL;
}

/* ------------------------------------------------------------------ */
/* Values files                                                        */

static int report_at(struct chart_job *job, struct source_node *root,
		     const struct finding *f, const char *message)
{
	struct chart_finding cf = {
		.rule = rule_info_get(f->rule)->name,
		.severity = f->severity,
		.message = message ? message : f->message,
		.pointer = f->pointer,
	};

	source_locate(root, f->pointer, &cf.line, &cf.column);
	if (f->severity == SEVERITY_ERROR)
		job->errors++;
	return job->report(job->arg, &cf);
}

/* 1 when `op` adds a key the values do not have, which no template
 * reads; -1 when out of memory. */
static int adds_unread(const struct refs *refs, json_t *orig,
		       const struct patch_op *op)
{
	char *slash = strrchr(op->path, '/'), *parent;
	int unread;

	if (op->kind != PATCH_ADD || !slash || json_pointer_get(orig, op->path))
		return 0;
	if (!(parent = strndup(op->path, (size_t)(slash - op->path))))
		return -1;
	unread = json_pointer_get(orig, parent) && !refs_reach(refs, op->path);
	free(parent);
	return unread;
}

/*
 * Drops the additions of new keys that no template reads, and with them
 * the other operations of their rule (half a migration would hide what is
 * left to do); the operations kept are applied to a copy of `orig` into
 * *migrated_new. Returns the number dropped, or -1 when out of memory.
 */
static int values_keep_read(struct chart_job *job, const struct refs *refs,
			    json_t *orig, struct rules_result *res,
			    struct source_node *root, json_t **migrated_new)
{
	json_t *migrated = json_deep_copy(orig);
	unsigned banned = 0;
	size_t kept = 0;
	int dropped = 0;

	if (!migrated)
		return -1;
	for (size_t i = 0; i < res->n_ops; i++) {
		int unread = adds_unread(refs, orig, &res->ops[i]);

		if (unread < 0) {
			json_decref(migrated);
			return -1;
		}
		if (unread || read_elsewhere(refs, orig, &res->ops[i], NULL, 0))
			banned |= 1u << res->ops[i].rule;
	}
	for (size_t i = 0; i < res->n_ops; i++) {
		struct patch_op *op = &res->ops[i];
		char message[1000], where[300], elsewhere[600];
		struct finding f = { .rule = op->rule,
				     .severity = SEVERITY_WARNING,
				     .pointer = op->path };
		int unread = 0;

		if (!(banned >> op->rule & 1) &&
		    patch_apply_op_copy(migrated, op) == 0) {
			res->ops[kept++] = *op;
			continue;
		}
		unread = adds_unread(refs, orig, op) == 1;
		{
			const char *p = op->path;
			size_t n = 0;
			char token[256];

			where[0] = '\0';
			while (*p && !json_pointer_next(&p, token, sizeof(token)))
				n += (size_t)snprintf(where + n,
						      n < sizeof(where) ? sizeof(where) - n : 0,
						      "%s%s", n ? "." : "", token);
		}
		if (read_elsewhere(refs, orig, op, elsewhere,
				   sizeof(elsewhere)))
			snprintf(message, sizeof(message),
				 "not changed in the values: '%.200s': %.500s; change the chart's templates (the rule's other changes here are left as well)",
				 where, elsewhere);
		else if (unread)
			snprintf(message, sizeof(message),
				 "not changed in the values: adding '%.200s' would not reach the pod, as no template of the chart reads '.Values.%.200s'; change the chart's templates (the rule's other changes here are left as well)",
				 where, where);
		else if (!(banned >> op->rule & 1))
			snprintf(message, sizeof(message),
				 "not changed in the values: '%.200s' depends on a change that is not made",
				 where);
		f.message = message;
		if ((unread || !(banned >> op->rule & 1) ||
		     read_elsewhere(refs, orig, op, NULL, 0)) &&
		    report_at(job, root, &f, NULL)) {
			json_decref(migrated);
			return -1;
		}
		dropped++;
		free(op->path);
		free(op->from);
		json_decref(op->value);
	}
	res->n_ops = kept;
	*migrated_new = migrated;
	return dropped;
}

/*
 * Drops the findings and operations of the rules that judge a container
 * by its image (obsolete-gpu-component, gpu-visibility): the templates,
 * which build the images, judge them there, with these values read into
 * the actions (template_migrate.c), at the image's own line and under the
 * container's own name.
 */
static void drop_image_rules(struct rules_result *res)
{
	size_t kept = 0;

	for (size_t i = 0; i < res->n_findings; i++) {
		struct finding *f = &res->findings[i];

		if (f->rule == RULE_OBSOLETE_GPU_COMPONENT ||
		    f->rule == RULE_GPU_VISIBILITY) {
			if (!f->fixed && f->severity == SEVERITY_ERROR)
				res->errors--;
			free(f->pointer);
			free(f->message);
			continue;
		}
		res->findings[kept++] = *f;
	}
	res->n_findings = kept;
	kept = 0;
	for (size_t i = 0; i < res->n_ops; i++) {
		struct patch_op *op = &res->ops[i];

		if (op->rule == RULE_OBSOLETE_GPU_COMPONENT ||
		    op->rule == RULE_GPU_VISIBILITY) {
			free(op->path);
			free(op->from);
			json_decref(op->value);
			json_decref(op->undo);
			continue;
		}
		res->ops[kept++] = *op;
	}
	res->n_ops = kept;
}

static int values_run(struct chart_job *job, const char *text, size_t len,
		      struct buf *out, struct source_error *err)
{
	struct source_limits limits = source_limits_of(job->cfg);
	struct source_parser *parser = source_parser_new(text, len, &limits);
	struct rules_options opts = {
		.offline = 1, .report_only = job->lint,
		.read_json = json_scan_read_value,
	};
	struct refs refs = { 0 };
	struct source_doc doc;
	size_t pos = 0;
	int got, rc = -1;

	memset(err, 0, sizeof(*err));
	job->errors = 0;
	if (!parser)
		goto out_nomem;
	source_parser_set_tree(parser, 0);
	if (job->root) {
		char dir[PATH_MAX];
		struct stat st;

		snprintf(dir, sizeof(dir), "%s/templates", job->root);
		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
			refs.known = 1;
			if (chart_read_templates(job->root, refs_add_file,
						 &refs))
				goto out_nomem;
		}
	}
	while ((got = source_next_doc(parser, &doc, err)) > 0) {
		struct rules_result res;
		struct rules_error rerr;
		json_t *orig = NULL, *migrated = NULL;
		int failed = 0;

		rules_result_init(&res);
		if (json_is_object(doc.json)) {
			if (!(orig = json_deep_copy(doc.json)))
				failed = -1;
			else if (rules_apply_values(job->cfg, &opts, doc.json,
						    refs.known ? refs_container_name : NULL,
						    &refs, &res, &rerr)) {
				err->line = doc.line;
				snprintf(err->message, sizeof(err->message),
					 "internal error at '%.80s': %.120s",
					 rerr.pointer, rerr.message);
				failed = 1;
			} else if (refs.known) {
				drop_image_rules(&res);
			}
		}
		if (!failed && (res.n_ops || res.n_findings) &&
		    source_doc_tree(text, len, &doc, &limits, err))
			failed = 1;
		for (size_t i = 0; !failed && i < res.n_findings; i++)
			if ((job->lint || !res.findings[i].fixed) &&
			    report_at(job, doc.root, &res.findings[i], NULL))
				failed = -1;
		if (!failed && out) {
			if (buf_append(out, text + pos, doc.start - pos))
				failed = -1;
			else if (res.n_ops && values_keep_read(job, &refs, orig, &res,
							  doc.root, &migrated) < 0)
				failed = -1;
		}
		if (!failed && out && res.n_ops && !job->errors) {
			char why[256] = "";
			int reemitted = 0;

			if (text_patch_document(out, text, len, &doc, &res,
						migrated, &limits, &reemitted,
						why, sizeof(why))) {
				err->line = doc.line;
				snprintf(err->message, sizeof(err->message),
					 "document %d: %.200s", doc.index + 1,
					 why[0] ? why : "out of memory");
				failed = 1;
			} else if (reemitted) {
				struct chart_finding cf = {
					.line = doc.line, .rule = "syntax",
					.severity = SEVERITY_INFO,
				};
				char message[400];

				snprintf(message, sizeof(message),
					 "document %d written anew (its comments and layout are not kept): %.200s",
					 doc.index + 1, why);
				cf.message = message;
				if (job->report(job->arg, &cf))
					failed = -1;
			}
		} else if (!failed && out) {
			if (buf_append(out, text + doc.start, doc.end - doc.start))
				failed = -1;
		}
		pos = doc.end;
		json_decref(orig);
		json_decref(migrated);
		rules_result_clear(&res);
		source_doc_clear(&doc);
		if (failed < 0)
			goto out_nomem;
		if (failed)
			goto out_free;
	}
	if (got < 0)
		goto out_free;
	if (out && buf_append(out, text + pos, len - pos))
		goto out_nomem;
	rc = 0;
	goto out_free;
out_nomem:
	snprintf(err->message, sizeof(err->message), "out of memory");
out_free:
	refs_free(&refs);
	source_parser_free(parser);
	if (json_arena_active())
		json_arena_reset();
	return rc;
}

int chart_run(struct chart_job *job, enum chart_kind kind, const char *text,
	      size_t len, struct buf *out, struct source_error *err)
{
	if (job->cfg->target == RULES_TARGET_DRA) {
		/* a template's claims would need templates of their own,
		 * written with the chart's actions: refused, not half done */
		struct chart_finding f = {
			.line = 1, .column = 1, .rule = "legacy-gpu-resource",
			.severity = SEVERITY_ERROR,
			.message = "target dra is not supported in charts: the chart is left as it is; migrate what it renders (helm template ... | gpumend migrate --target dra)",
		};

		memset(err, 0, sizeof(*err));
		job->errors = 1;
		return job->report(job->arg, &f) ||
		       (out && buf_append(out, text, len)) ?
		       -1 : 0;
	}
	if (kind == CHART_VALUES)
		return values_run(job, text, len, out, err);
	return template_run(job, text, len, out, err);
}
