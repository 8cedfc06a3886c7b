/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * chart.c - Helm charts: telling templates and values apart, and
 * migrating or linting values files (templates: template_migrate.c).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "chart.h"
#include "cli.h"
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

	(void)path;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		char **grown = realloc(t->text, cap * sizeof(*grown));
		size_t *lens;

		if (!grown)
			return -1;
		t->text = grown;
		if (!(lens = realloc(t->len, cap * sizeof(*lens))))
			return -1;
		t->len = lens;
		t->cap = cap;
	}
	if (!(t->text[t->n] = malloc(len + 1)))
		return -1;
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
	for (size_t i = 0; i < r->texts.n; i++)
		free(r->texts.text[i]);
	free(r->texts.text);
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
		if (unread)
			banned |= 1u << res->ops[i].rule;
	}
	for (size_t i = 0; i < res->n_ops; i++) {
		struct patch_op *op = &res->ops[i];
		char message[600], where[300];
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
		if (unread)
			snprintf(message, sizeof(message),
				 "not changed in the values: adding '%.200s' would not reach the pod, as no template of the chart reads '.Values.%.200s'; change the chart's templates (the rule's other changes here are left as well)",
				 where, where);
		else if (!(banned >> op->rule & 1))
			snprintf(message, sizeof(message),
				 "not changed in the values: '%.200s' depends on a change that is not made",
				 where);
		f.message = message;
		if ((unread || !(banned >> op->rule & 1)) &&
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

static int values_run(struct chart_job *job, const char *text, size_t len,
		      struct buf *out, struct source_error *err)
{
	struct source_limits limits = cli_limits(job->cfg);
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
