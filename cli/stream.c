/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stream.c - runs the rules over every document of a YAML/JSON stream;
 * shared by migrate and lint; loads configs for the CLI.
 */
#define _GNU_SOURCE     /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cli.h"
#include "config_file.h"
#include "json_scan.h"
#include "msg.h"
#include "nul.h"

void run_summary(const struct run_counts *c, const char *touched,
		 const char *clean)
{
	size_t rest = c->files - c->touched - c->skipped - c->failed;

	if (c->touched + c->skipped + c->failed > c->files)
		rest = 0;
	msg_note("%zu file%s read: %zu %s, %zu %s, %zu skipped, %zu failed; %zu error%s, %zu warning%s, %zu info",
		 c->files, c->files == 1 ? "" : "s", c->touched, touched, rest,
		 clean, c->skipped, c->failed,
		 c->findings[SEVERITY_ERROR],
		 c->findings[SEVERITY_ERROR] == 1 ? "" : "s",
		 c->findings[SEVERITY_WARNING],
		 c->findings[SEVERITY_WARNING] == 1 ? "" : "s",
		 c->findings[SEVERITY_INFO]);
}

struct config *cli_load_config(const char *path)
{
	char err[1024];
	struct config *cfg = config_file_load(path, err, sizeof(err));

	if (!cfg)
		msg_error("%s", err);
	return cfg;
}

/* The canonical text of a spec: equal specs give equal texts. */
static char *spec_text_new(const json_t *spec)
{
	return json_text_new(spec, JSON_COMPACT | JSON_SORT_KEYS);
}

int cli_templates_add(struct cli_templates *list, const json_t *object)
{
	const char *kind = json_string_value(json_member(object, "kind"));
	json_t *meta = json_member(object, "metadata"), *item;
	const char *name = json_string_value(json_member(meta, "name"));
	const char *ns = json_string_value(json_member(meta, "namespace"));
	struct cli_template *t;
	size_t i;

	if (kind && strcmp(kind, "List") == 0) {
		json_array_foreach(json_member(object, "items"), i, item)
			if (cli_templates_add(list, item))
				return -1;
		return 0;
	}
	if (!kind || strcmp(kind, "ResourceClaimTemplate") != 0 || !name)
		return 0;
	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 8;
		struct cli_template *grown = realloc(list->items,
						     cap * sizeof(*grown));

		if (!grown)
			return -1;
		list->items = grown;
		list->cap = cap;
	}
	t = &list->items[list->n];
	t->name = strdup(name);
	t->namespace = ns ? strdup(ns) : NULL;
	t->spec = spec_text_new(json_member(object, "spec"));
	list->n++;
	return t->name && (!ns || t->namespace) && t->spec ? 0 : -1;
}

int cli_templates_find(const void *arg, const char *name,
		       const char *namespace, const json_t *spec)
{
	const struct cli_templates *list = arg;
	char *text = NULL;
	int there = 0;

	for (size_t i = 0; i < list->n && !there; i++) {
		const struct cli_template *t = &list->items[i];

		if (strcmp(t->name, name) != 0 ||
		    (t->namespace ? !namespace || strcmp(t->namespace,
							 namespace) != 0
				  : namespace != NULL))
			continue;
		/* out of memory reads as another spec: a new name */
		if (!text)
			text = spec_text_new(spec);
		there = text && strcmp(text, t->spec) == 0 ? 1 : 2;
	}
	free(text);
	return there;
}

void cli_templates_clear(struct cli_templates *list)
{
	for (size_t i = 0; i < list->n; i++) {
		free(list->items[i].name);
		free(list->items[i].namespace);
		free(list->items[i].spec);
	}
	free(list->items);
	memset(list, 0, sizeof(*list));
}

int cli_templates_read(struct cli_templates *list, const char *text,
		       size_t len, const struct config *cfg)
{
	static const char word[] = "ResourceClaimTemplate";
	struct source_limits limits = source_limits_of(cfg);
	struct source_parser *parser;
	struct source_doc doc;
	struct source_error err;
	int rc = 0;

	if (cfg->target != RULES_TARGET_DRA ||
	    !memmem(text, len, word, sizeof(word) - 1))
		return 0;
	if (!(parser = source_parser_new(text, len, &limits)))
		return -1;
	source_parser_set_tree(parser, 0);
	/* a document that does not parse is the stream's to report */
	while (rc == 0 && source_next_doc(parser, &doc, &err) == 1) {
		rc = doc.json ? cli_templates_add(list, doc.json) : 0;
		if (json_arena_active()) {
			/* as stream_each(): the region frees it at once */
			doc.json = NULL;
			json_arena_reset();
		}
		source_doc_clear(&doc);
	}
	source_parser_free(parser);
	return rc;
}

int cli_json_documents_refused(const struct source_doc *doc,
			       json_t *documents, char *message, size_t size)
{
	const char *name;

	if (!documents || json_array_size(documents) == 0 || !doc->root ||
	    !doc->root->flow)
		return 0;
	name = json_string_value(json_member(json_member(
		json_array_get(documents, 0), "metadata"), "name"));
	snprintf(message, size,
		 "document %d: ResourceClaimTemplate '%s' cannot be written next to it: a JSON file holds one document (write it as YAML, or as a kind: List, whose items take it)",
		 doc->index + 1, name ? name : "");
	return 1;
}

/* 1 when `key` stands in `text` as a key: quoted or not, then ':'. */
static int text_has_key(const char *text, size_t len, const char *key)
{
	size_t n = strlen(key);
	const char *end = text + len, *at = text, *p;

	while ((p = memmem(at, (size_t)(end - at), key, n)) != NULL) {
		at = p + n;
		if (at < end && (*at == '"' || *at == '\''))
			at++;
		while (at < end && (*at == ' ' || *at == '\t'))
			at++;
		if (at < end && *at == ':')
			return 1;
	}
	return 0;
}

int cli_skip_unparsed(const struct input *in, const struct source_error *err,
		      int may_skip, int quiet, struct run_counts *c)
{
	if (!may_skip || text_has_key(in->text, in->len, "apiVersion") ||
	    text_has_key(in->text, in->len, "kind"))
		return 0;
	c->skipped++;
	if (!quiet)
		msg_note("'%s' skipped: not a Kubernetes manifest, and cannot parse it (%d:%d: %s)",
			 in->name, err->line, err->column, err->message);
	return 1;
}

/* 1 when `text` holds what YAML may write otherwise than as it is read
 * without a backslash: a blank or line break (folded, or indentation; NEL,
 * U+2028 and U+2029 are line breaks too), or a single quote (doubled in
 * single-quoted scalars). */
static int has_folded_byte(const char *text)
{
	return strpbrk(text, " \t\r\n'") != NULL ||
	       strstr(text, "\xc2\x85") || strstr(text, "\xe2\x80\xa8") ||
	       strstr(text, "\xe2\x80\xa9");
}

struct json_scan_filter *cli_filter_new(const struct config *cfg)
{
	struct json_scan_filter *filter = NULL;
	int sound = 1;

	for (int r = 0; sound && r < RULE_COUNT; r++) {
		struct string_list list = { 0 };

		if (rules_rule_triggers(cfg, (enum rule_id)r, &list) < 0)
			return NULL;
		for (size_t i = 0; i < list.n; i++)
			if (has_folded_byte(list.items[i]))
				sound = 0;
		string_list_clear(&list);
	}
	if (sound)
		filter = json_scan_filter_new(cfg, 1);
	return filter;
}

/*
 * After the rules ran on a document whose strings stood encoded (nul.h):
 * values hold their NUL again, texts for people show \u0000. 0 or -1.
 */
static int nul_decode(json_t *json, struct rules_result *result)
{
	for (size_t i = 0; i < result->n_ops; i++) {
		struct patch_op *op = &result->ops[i];

		nul_text_decode(op->path);
		if (op->from)
			nul_text_decode(op->from);
		if (op->value && nul_json_decode(op->value))
			return -1;
	}
	for (size_t i = 0; i < result->n_findings; i++) {
		nul_text_decode(result->findings[i].pointer);
		nul_text_decode(result->findings[i].message);
	}
	return nul_json_decode(json);
}

/* What the search found in the text source_parser_set_need() showed: a
 * part that holds a document, from its start */
struct doc_search {
	const struct rules_options *opts;
	const char *text;
	size_t from, to;    /* the part searched; to == 0 when none */
	int escapes;        /* nul_source_may_hold() there */
	unsigned found;     /* the rules with a trigger there (no escapes) */
};

/*
 * source_parser_set_need(): a document is read sparse when its text as
 * written (no escape: cli_filter_new() says why that tells) holds no
 * trigger, or triggers only of rules that say what they read of an object
 * (rules_reads()), but for gpu-visibility: it reads most of a modern GPU
 * manifest (its containers' images, env and resources), which then costs
 * more sparse than whole. Else it is read in full, with its tree at once
 * unless its only other trigger is gpu-visibility's: that is the GPU
 * resource name of every modern manifest, and it seldom finds something.
 */
static int doc_needed(void *arg, const char *text, size_t len,
		      const struct rules_read **keep)
{
	struct doc_search *s = arg;

	s->from = (size_t)(text - s->text);
	s->to = s->from + len;
	s->escapes = nul_source_may_hold(text, len);
	s->found = s->escapes ? 0 : s->opts->triggers_in(s->opts->triggers_arg,
							 text, len);
	if (s->escapes)
		return 2;
	*keep = !s->found ? rules_reads_nothing :
		s->found & (1u << RULE_GPU_VISIBILITY) ? NULL :
		rules_reads(s->found);
	if (*keep)
		return 0;
	return s->found & ~(1u << RULE_GPU_VISIBILITY) ? 2 : 1;
}

/*
 * Runs the rules found in a sparse document's text on what it kept of it:
 * 0 when they find nothing there (nor would they in the whole document,
 * rules_reads() says), 1 when they do or fail (it is to be read in full).
 */
static int sparse_finds(const struct config *cfg,
			const struct rules_options *opts, unsigned found,
			json_t *json)
{
	struct rules_options sparse_opts = *opts;
	struct rules_result result;
	struct rules_error rerr;
	int finds;

	if (!found || !json_is_object(json))
		return 0;
	sparse_opts.skip_rules |= ~found;
	rules_result_init(&result);
	finds = rules_apply(cfg, &sparse_opts, json, &result, &rerr) ||
		result.n_ops || result.n_findings;
	rules_result_clear(&result);
	return finds;
}

int stream_each(const char *text, size_t len, const struct config *cfg,
		const struct rules_options *opts, stream_fn fn, void *arg,
		struct source_error *err)
{
	struct source_limits limits = source_limits_of(cfg);
	struct source_parser *parser = source_parser_new(text, len, &limits);
	struct source_doc doc;
	struct rules_result result;
	struct rules_error rerr;
	struct rules_options doc_opts;
	struct doc_search search = { opts, text, 0, 0, 0, 0 };
	int rc = 0, got, encoded;

	memset(err, 0, sizeof(*err));
	if (!parser) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return -1;
	}
	/* most documents have nothing to change. With the trigger search,
	 * those without a trigger are read sparse and without a source tree,
	 * the others with their tree at once (most of them have something to
	 * change); without it, the tree is built only when the rules found
	 * something (source_doc_tree() below) */
	source_parser_set_tree(parser, opts->triggers_in != NULL);
	if (opts->triggers_in)
		source_parser_set_need(parser, doc_needed, &search);
	while ((got = source_next_doc(parser, &doc, err)) > 0) {
		struct stream_doc sd = { &doc, &result, 0 };

		rules_result_init(&result);
		/* sparse: the need() search saw the document */
		if (doc.sparse &&
		    sparse_finds(cfg, opts, search.found, doc.json) &&
		    source_doc_full(text, len, &doc, &limits, err)) {
			rc = -1;
		} else if (doc.sparse) {
			/* no rule runs: nothing to change or report */
			sd.ran = json_is_object(doc.json);
		} else if (json_is_object(doc.json)) {
			const char *span = text + doc.start;
			size_t n = doc.end - doc.start;
			/* the search of a part that holds it may serve */
			int searched = search.to && search.from == doc.start &&
				       search.to >= doc.end;
			/* no escape, NUL or U+FDD0: keys and strings are
			 * the text as written (cli_filter_new() says how) */
			int as_written = searched ? !search.escapes :
					 !nul_source_may_hold(span, n);

			sd.ran = 1;
			/* strings holding NUL: encoded while the rules run */
			encoded = as_written ? 0 : nul_json_encode(doc.json);
			/* rules without a trigger in the text: not run */
			doc_opts = *opts;
			if (opts->triggers_in && as_written)
				doc_opts.skip_rules |= ~(searched ? search.found :
					opts->triggers_in(opts->triggers_arg,
							  span, n));
			if (encoded < 0 ||
			    rules_apply(cfg, &doc_opts, doc.json, &result,
					&rerr) ||
			    (encoded && nul_decode(doc.json, &result))) {
				err->line = doc.line;
				err->column = 0;
				if (encoded < 0)
					snprintf(rerr.pointer, sizeof(rerr.pointer),
						 "%s", "");
				snprintf(err->message, sizeof(err->message),
					 "internal error at '%.80s': %.120s",
					 rerr.pointer,
					 encoded < 0 ? "out of memory" : rerr.message);
				rc = -1;
			}
		}
		if (rc == 0 && (result.n_ops || result.n_findings) &&
		    !doc.root && source_doc_tree(text, len, &doc, &limits, err))
			rc = -1;
		if (rc == 0)
			rc = fn(arg, &sd);
		rules_result_clear(&result);
		if (json_arena_active()) {
			/* the region frees the document's json at once */
			doc.json = NULL;
			json_arena_reset();
		}
		source_doc_clear(&doc);
		search.to = 0;
		if (rc)
			break;
	}
	if (got < 0)
		rc = -1;
	source_parser_free(parser);
	return rc;
}
