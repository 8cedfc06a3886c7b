/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util.c - helpers for the engine's unit tests.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admission.h"
#include "buf.h"
#include "config_file.h"
#include "harness.h"
#include "json_scan.h"
#include "source.h"
#include "util.h"

/* 1 when some trigger is a substring of a key or string value in `node`. */
static int holds_trigger(const struct string_list *triggers, json_t *node,
			 int depth)
{
	const char *key;
	json_t *child;
	size_t i;

	if (depth > 512)
		return 0;
	if (json_is_string(node)) {
		for (i = 0; i < triggers->n; i++)
			if (strstr(json_string_value(node), triggers->items[i]))
				return 1;
		return 0;
	}
	if (json_is_array(node)) {
		json_array_foreach(node, i, child)
			if (holds_trigger(triggers, child, depth + 1))
				return 1;
		return 0;
	}
	json_object_foreach(node, key, child) {
		for (i = 0; i < triggers->n; i++)
			if (strstr(key, triggers->items[i]))
				return 1;
		if (holds_trigger(triggers, child, depth + 1))
			return 1;
	}
	return 0;
}

int test_triggers_cover(const struct config *cfg, json_t *input)
{
	struct string_list triggers = { 0 };
	int rc = rules_triggers(cfg, &triggers);

	if (rc == 0)
		rc = holds_trigger(&triggers, input, 0);
	else if (rc < 0)
		rc = -1;
	string_list_clear(&triggers);
	return rc;
}

/*
 * The prefilter's promise: when the rules report or change anything on
 * `input`, it holds a trigger. Counts a failure and names what fired when
 * it does not.
 */
static void check_triggers(const struct config *cfg, json_t *input,
			   const struct rules_result *res, const char *when,
			   int *failures)
{
	int covered;

	if (res->n_findings == 0 && res->n_ops == 0)
		return;
	covered = test_triggers_cover(cfg, input);
	if (covered == 1)
		return;
	(*failures)++;
	if (covered < 0) {
		fprintf(stderr, "  rules_triggers failed (out of memory)\n");
		return;
	}
	fprintf(stderr, "  %s: no trigger in an input the rules act on\n",
		when);
	for (size_t i = 0; i < res->n_findings; i++)
		fprintf(stderr, "    %s: %s\n",
			rule_info_get(res->findings[i].rule)->name,
			res->findings[i].message);
	for (size_t i = 0; i < res->n_ops; i++)
		fprintf(stderr, "    %s: op at %s\n",
			rule_info_get(res->ops[i].rule)->name,
			res->ops[i].path);
}

/* 1 when some trigger of `triggers` is a substring of the input, read as
 * JSON (so that escaped strings count as what they decode to). */
static int test_triggers_hold(const struct string_list *triggers,
			      const char *json_text)
{
	json_t *input = json_loads(json_text, 0, NULL);
	int held = !input || holds_trigger(triggers, input, 0);

	json_decref(input);
	return held;
}

/* rules_options.triggers_in for check_gating(): the prefilter's search. */
static unsigned filter_search(const void *filter, const char *text, size_t len)
{
	return json_scan_filter_rules(filter, text, len);
}

/*
 * The webhook's gating: with only the rules whose triggers the input's
 * text holds (json_scan_filter_rules() and the escaped strings that
 * json_scan_read() decodes), running until something changes, and then
 * also (with `added`) those whose triggers came with an operation, the
 * rules must give exactly what all of them gave: `expected` and `res`.
 */
static void check_gating_as(const struct config *cfg,
			    const struct rules_options *opts,
			    const char *json_text, json_t *expected,
			    const struct rules_result *res, int added,
			    int *failures)
{
	struct json_scan_filter *filter = json_scan_filter_new(cfg, 0);
	struct rules_options gated = *opts;
	struct rules_error err = { { 0 }, { 0 }, 0 };
	size_t len = strlen(json_text);
	struct rules_result got;
	json_t *obj = json_loads(json_text, 0, NULL), *read;
	unsigned rules;
	int depth, same;

	if (!filter || !obj) {
		(*failures)++;
		goto out_free;
	}
	rules = json_scan_filter_rules(filter, json_text, len);
	read = json_scan_read(json_text, len, filter, &depth, &rules);
	if (!read)
		rules = ~0u;
	json_decref(read);
	/* the filter leaves out the rules the webhook never runs; offline,
	 * they are gated by their own triggers */
	for (int r = 0; opts->offline && r < RULE_COUNT; r++) {
		struct string_list own = { 0 };
		int rc;

		if (!rule_info_get((enum rule_id)r)->offline_only)
			continue;
		rc = rules_rule_triggers(cfg, (enum rule_id)r, &own);
		if (rc != 0 || test_triggers_hold(&own, json_text))
			rules |= 1u << r;
		string_list_clear(&own);
	}
	gated.skip_rules = ~rules;
	if (added) {
		gated.triggers_in = filter_search;
		gated.triggers_arg = filter;
	}
	rules_result_init(&got);
	same = rules_apply(cfg, &gated, obj, &got, &err) == 0 &&
	       json_equal(obj, expected) && got.n_ops == res->n_ops &&
	       got.n_findings == res->n_findings;
	for (size_t i = 0; same && i < got.n_ops; i++)
		same = got.ops[i].kind == res->ops[i].kind &&
		       strcmp(got.ops[i].path, res->ops[i].path) == 0;
	for (size_t i = 0; same && i < got.n_findings; i++)
		same = got.findings[i].rule == res->findings[i].rule &&
		       strcmp(got.findings[i].pointer,
			      res->findings[i].pointer) == 0 &&
		       strcmp(got.findings[i].message,
			      res->findings[i].message) == 0;
	if (!same) {
		fprintf(stderr, "  gated by triggers (rules 0x%x%s), the rules give %zu findings and %zu ops, not %zu and %zu\n",
			rules, added ? ", and those added" : "",
			got.n_findings, got.n_ops, res->n_findings, res->n_ops);
		(*failures)++;
	}
	rules_result_clear(&got);
out_free:
	json_decref(obj);
	json_scan_filter_free(filter);
}

static void check_gating(const struct config *cfg,
			 const struct rules_options *opts,
			 const char *json_text, json_t *expected,
			 const struct rules_result *res, int *failures)
{
	check_gating_as(cfg, opts, json_text, expected, res, 0, failures);
	check_gating_as(cfg, opts, json_text, expected, res, 1, failures);
}

json_t *test_migrate(const char *json_text, const struct config *cfg,
		     const struct rules_options *opts,
		     struct rules_result *res, int *failures)
{
	static const struct rules_options offline = { .offline = 1 };
	struct config *own = NULL;
	struct rules_error err = { { 0 }, { 0 }, 0 };
	struct rules_result again;
	json_error_t jerr;
	json_t *obj, *replay, *second;
	int rc;

	if (!cfg)
		cfg = own = config_new_default();
	if (!opts)
		opts = &offline;
	obj = json_loads(json_text, 0, &jerr);
	if (!obj) {
		fprintf(stderr, "  test input does not parse: %s\n", jerr.text);
		(*failures)++;
		config_free(own);
		return NULL;
	}
	rules_result_init(res);
	if (rules_apply(cfg, opts, obj, res, &err) != 0) {
		fprintf(stderr, "  rules_apply failed at '%s': %s\n",
			err.pointer, err.message);
		(*failures)++;
		json_decref(obj);
		config_free(own);
		return NULL;
	}
	/* the input as it was, since the rules rewrote `obj` */
	replay = json_loads(json_text, 0, NULL);
	if (replay)
		check_triggers(cfg, replay, res, "first run", failures);
	check_gating(cfg, opts, json_text, obj, res, failures);
	/* the patch replayed on the input gives the same object */
	for (size_t i = 0; replay && i < res->n_ops; i++) {
		if (patch_apply_op(replay, &res->ops[i]) != 0) {
			fprintf(stderr, "  op %zu (%s) does not apply\n", i,
				res->ops[i].path);
			(*failures)++;
			break;
		}
	}
	if (!replay || !json_equal(replay, obj)) {
		fprintf(stderr, "  replayed patch differs from the result\n");
		(*failures)++;
	}
	json_decref(replay);
	/* idempotence */
	second = json_deep_copy(obj);
	rules_result_init(&again);
	rc = rules_apply(cfg, opts, second, &again, &err);
	if (rc == 0)
		/* `obj` is what the second run was given */
		check_triggers(cfg, obj, &again, "second run", failures);
	if (rc != 0 || again.n_ops != 0) {
		char *dump = json_dumps(second, JSON_COMPACT);

		fprintf(stderr, "  second run is not a no-op (%zu ops): %s\n",
			again.n_ops, dump ? dump : "");
		free(dump);
		(*failures)++;
	}
	rules_result_clear(&again);
	json_decref(second);
	config_free(own);
	return obj;
}

struct config *test_config_only(enum rule_id rule, enum rule_mode mode)
{
	struct config *cfg = config_new_default();

	if (!cfg)
		return NULL;
	for (int r = 0; r < RULE_COUNT; r++)
		cfg->mode[r] = RULE_MODE_OFF;
	cfg->mode[rule] = mode;
	return cfg;
}

static json_t *run_squoted(const char *squoted, const struct config *cfg,
			   const struct rules_options *opts,
			   struct rules_result *res, int cap_messages,
			   int *failures)
{
	char *text;
	json_t *out;

	/* test_migrate() leaves `res` untouched when the input does not parse */
	rules_result_init(res);
	text = strdup(squoted);
	if (!text) {
		(*failures)++;
		return NULL;
	}
	for (char *p = text; *p; p++)
		if (*p == '\'')
			*p = '"';
	out = test_migrate(text, cfg, opts, res, failures);
	free(text);
	for (size_t i = 0; out && i < res->n_findings; i++) {
		const char *message = res->findings[i].message;

		CHECK(message[0] != '\0');
		if (!cap_messages)
			continue;
		CHECK(strlen(message) <= 100);
		if (strlen(message) > 100)
			fprintf(stderr, "  too long: %s\n", message);
	}
	return out;
}

json_t *test_run_squoted(const char *squoted, const struct config *cfg,
			 const struct rules_options *opts,
			 struct rules_result *res, int *failures)
{
	return run_squoted(squoted, cfg, opts, res, 1, failures);
}

json_t *test_run_squoted_any_length(const char *squoted,
				    const struct config *cfg,
				    const struct rules_options *opts,
				    struct rules_result *res, int *failures)
{
	return run_squoted(squoted, cfg, opts, res, 0, failures);
}

const struct finding *test_finding_at(const struct rules_result *res,
				      enum rule_id rule, const char *pointer)
{
	for (size_t i = 0; i < res->n_findings; i++)
		if (res->findings[i].rule == rule &&
		    strcmp(res->findings[i].pointer, pointer) == 0)
			return &res->findings[i];
	return NULL;
}

size_t test_ops_of(const struct rules_result *res, enum rule_id rule)
{
	size_t n = 0;

	for (size_t i = 0; i < res->n_ops; i++)
		n += res->ops[i].rule == rule;
	return n;
}

int test_count_findings(const struct rules_result *res, enum rule_id rule,
			const char *pointer)
{
	int n = 0;

	for (size_t i = 0; i < res->n_findings; i++)
		if (res->findings[i].rule == rule &&
		    (!pointer || strcmp(res->findings[i].pointer, pointer) == 0))
			n++;
	return n;
}

const char *test_string_at(json_t *root, const char *pointer)
{
	return json_string_value(json_pointer_get(root, pointer));
}

/* ------------------------------------------------------------------ */
/* AdmissionReviews                                                    */

char *test_review_text(const char *version, const char *operation,
		       const char *object, const char *extra)
{
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, "{\"apiVersion\":\"admission.k8s.io/%s\","
		   "\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u-1\","
		   "\"operation\":\"%s\",\"namespace\":\"ml\",\"object\":%s%s}}",
		   version, operation, object, extra ? extra : "");
	return buf_detach(&b, NULL);
}

json_t *test_review(const struct config *cfg, const char *text,
		    struct admission_outcome *out, int *failures)
{
	struct json_scan_filter *filter = json_scan_filter_new(cfg, 0);
	struct admission_outcome fast;
	const char *diff;

	admission_outcome_init(out);
	admission_outcome_init(&fast);
	CHECK(filter != NULL);
	if (admission_review(cfg, text, strlen(text), out) != 0 ||
	    admission_review_filtered(cfg, filter, text, strlen(text),
				      &fast) != 0) {
		json_scan_filter_free(filter);
		admission_outcome_clear(&fast);
		return NULL;
	}
	diff = admission_outcome_diff(out, &fast);
	if (diff)
		fprintf(stderr, "  the prefilter changed %s: %.*s\n", diff,
			(int)fast.body_len, fast.body);
	CHECK(diff == NULL);
	json_scan_filter_free(filter);
	admission_outcome_clear(&fast);
	return json_loadb(out->body, out->body_len, 0, NULL);
}

static int b64_value(char c)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(alphabet, c) : NULL;

	return p ? (int)(p - alphabet) : -1;
}

json_t *test_response_patch(json_t *review)
{
	const char *text = json_string_value(json_object_get(
		json_object_get(review, "response"), "patch"));
	struct buf raw;
	json_t *patch;
	unsigned long bits = 0;
	int n = 0;

	if (!text)
		return NULL;
	buf_init(&raw, 0);
	for (; *text && *text != '='; text++) {
		int v = b64_value(*text);

		if (v < 0)
			break;
		bits = bits << 6 | (unsigned long)v;
		if (++n == 4) {
			buf_putc(&raw, (char)(bits >> 16));
			buf_putc(&raw, (char)(bits >> 8 & 255));
			buf_putc(&raw, (char)(bits & 255));
			bits = 0;
			n = 0;
		}
	}
	if (n == 2) {
		buf_putc(&raw, (char)(bits >> 4));
	} else if (n == 3) {
		buf_putc(&raw, (char)(bits >> 10));
		buf_putc(&raw, (char)(bits >> 2 & 255));
	}
	patch = json_loadb(raw.data ? raw.data : "", raw.len, 0, NULL);
	buf_free(&raw);
	return patch;
}

int test_apply_patch(json_t *root, json_t *patch)
{
	static const char *const kinds[] = { "add", "remove", "replace", "move" };
	json_t *item;
	size_t i;

	json_array_foreach(patch, i, item) {
		const char *name = json_string_value(json_object_get(item, "op"));
		struct patch_op op = { 0 };
		int k = 0;

		while (k < 4 && (!name || strcmp(name, kinds[k])))
			k++;
		if (k == 4)
			return -1;
		op.kind = (enum patch_kind)k;
		op.path = (char *)json_string_value(json_object_get(item, "path"));
		op.from = (char *)json_string_value(json_object_get(item, "from"));
		op.value = json_object_get(item, "value");
		if (!op.path || patch_apply_op(root, &op) != 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The golden inputs and the examples                                  */

/* `fn` on each document of the file at `path`; 1 when it was read. */
static int each_document_of(const struct config *cfg, const char *path,
			    test_document_fn fn, void *arg)
{
	FILE *f = fopen(path, "rb");
	struct source_parser *parser;
	struct source_limits limits;
	struct source_error serr;
	struct source_doc doc;
	char *text;
	size_t len;

	if (!f)
		return 0;
	text = malloc(1 << 20);
	len = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
	fclose(f);
	if (!text)
		return 0;
	text[len] = '\0';
	limits.max_document_bytes = cfg->max_document_bytes;
	limits.max_depth = cfg->max_depth;
	limits.max_alias_nodes = cfg->max_alias_nodes;
	parser = source_parser_new(text, len, &limits);
	if (!parser) {
		free(text);
		return 0;
	}
	source_parser_set_tree(parser, 0);
	memset(&doc, 0, sizeof(doc));
	while (source_next_doc(parser, &doc, &serr) == 1) {
		if (doc.json)
			fn(cfg, doc.json, path, arg);
		source_doc_clear(&doc);
	}
	source_parser_free(parser);
	free(text);
	return 1;
}

int test_each_document(const char *examples, test_document_fn fn, void *arg,
		       int *failures)
{
	static const char *const inputs[] = {
		"input.yaml", "input.yml", "input.json"
	};
	DIR *dir = opendir("tests/golden");
	struct dirent *entry;
	int files = 0;

	CHECK(dir != NULL);
	while (dir && (entry = readdir(dir)) != NULL) {
		char path[512], errbuf[256];
		struct config *cfg;

		if (entry->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "tests/golden/%s/config.yaml",
			 entry->d_name);
		if (access(path, F_OK) != 0)
			cfg = config_file_load(NULL, errbuf, sizeof(errbuf));
		else if (!(cfg = config_file_load(path, errbuf, sizeof(errbuf))))
			continue;   /* a case about a bad config: nothing runs */
		if (!cfg) {
			(*failures)++;
			continue;
		}
		for (size_t i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "tests/golden/%s/%s",
				 entry->d_name, inputs[i]);
			files += each_document_of(cfg, path, fn, arg);
		}
		config_free(cfg);
	}
	if (dir)
		closedir(dir);
	dir = examples ? opendir(examples) : NULL;
	while (dir && (entry = readdir(dir)) != NULL) {
		char path[512], errbuf[256];
		struct config *cfg;

		if (entry->d_name[0] == '.')
			continue;
		if (!(cfg = config_file_load(NULL, errbuf, sizeof(errbuf)))) {
			(*failures)++;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", examples, entry->d_name);
		files += each_document_of(cfg, path, fn, arg);
		config_free(cfg);
	}
	if (dir)
		closedir(dir);
	return files;
}
