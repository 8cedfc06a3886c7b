/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_report.c - the lint report writers: text, JSON, SARIF, GitHub, Code
 * Quality; and how findings name their object.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "harness.h"
#include "report.h"
#include "rules.h"

/* the members of a report_item after the pointer: no object */
#define NO_OBJECT NULL, NULL, NULL, NULL, 0, 0

static const struct report_item report_items[] = {
	{ "deploy.yaml", 12, 7, "legacy-gpu-resource", "error",
	  "'alpha.kubernetes.io/nvidia-gpu' has a non-integer value",
	  "/spec/template/spec/containers/0/resources/limits/"
	  "alpha.kubernetes.io~1nvidia-gpu", NO_OBJECT },
	{ "k8s/job.yml", 3, 0, "gpu-visibility", "warning",
	  "container 'train' can see every GPU", NULL, NO_OBJECT },
	{ "-", 0, 0, NULL, "info", "nothing to say", NULL, NO_OBJECT },
};

#define N_ITEMS (sizeof(report_items) / sizeof(report_items[0]))

/* Writes `items` in `fmt` and returns the text (free() it), NULL on -1. */
static char *report_text(enum report_format fmt,
			 const struct report_item *items, size_t n)
{
	struct buf out;

	buf_init(&out, 0);
	if (report_write(&out, fmt, items, n, "9.9.9") != 0) {
		buf_free(&out);
		return NULL;
	}
	return buf_detach(&out, NULL);
}

TEST(report_format_parse_names)
{
	enum report_format fmt = REPORT_TEXT;

	CHECK(report_format_parse("json", &fmt) == 0 && fmt == REPORT_JSON);
	CHECK(report_format_parse("sarif", &fmt) == 0 && fmt == REPORT_SARIF);
	CHECK(report_format_parse("github", &fmt) == 0 &&
	      fmt == REPORT_GITHUB);
	CHECK(report_format_parse("codequality", &fmt) == 0 &&
	      fmt == REPORT_CODEQUALITY);
	CHECK(report_format_parse("text", &fmt) == 0 && fmt == REPORT_TEXT);
	CHECK(report_format_parse("JSON", &fmt) == -1 && fmt == REPORT_TEXT);
	CHECK(report_format_parse("xml", &fmt) == -1);
	CHECK(report_format_parse("", &fmt) == -1);
}

TEST(report_write_text)
{
	char *text = report_text(REPORT_TEXT, report_items, N_ITEMS);

	CHECK_STR(text,
		  "deploy.yaml:12:7: error: 'alpha.kubernetes.io/nvidia-gpu' "
		  "has a non-integer value [legacy-gpu-resource]\n"
		  "k8s/job.yml:3: warning: container 'train' can see every "
		  "GPU [gpu-visibility]\n"
		  "-: info: nothing to say\n");
	free(text);
	text = report_text(REPORT_TEXT, NULL, 0);
	CHECK_STR(text, "");
	free(text);
	/* a file name with a newline or an escape: still one line */
	{
		static const struct report_item odd[] = {
			{ "a\nb\x1b.yaml", 2, 3, "gpu-visibility", "warning",
			  "m", NULL, NO_OBJECT },
		};

		text = report_text(REPORT_TEXT, odd, 1);
		CHECK_STR(text, "a\\nb\\x1b.yaml:2:3: warning: m [gpu-visibility]\n");
		free(text);
	}
}

TEST(report_write_json)
{
	static const struct report_item odd[] = {
		{ "dir/bad\xff\"name\".yaml", 1, 2, "r", "warning",
		  "line\nbreak \\ and \"quotes\"", "/a~1b", NO_OBJECT },
	};
	char *text = report_text(REPORT_JSON, report_items, 2);

	CHECK_STR(text,
		  "[\n"
		  "  {\n"
		  "    \"file\": \"deploy.yaml\",\n"
		  "    \"line\": 12,\n"
		  "    \"column\": 7,\n"
		  "    \"rule\": \"legacy-gpu-resource\",\n"
		  "    \"severity\": \"error\",\n"
		  "    \"message\": \"'alpha.kubernetes.io/nvidia-gpu' has a "
		  "non-integer value\",\n"
		  "    \"pointer\": \"/spec/template/spec/containers/0/resources/"
		  "limits/alpha.kubernetes.io~1nvidia-gpu\",\n"
		  "    \"kind\": null,\n"
		  "    \"namespace\": null,\n"
		  "    \"name\": null\n"
		  "  },\n"
		  "  {\n"
		  "    \"file\": \"k8s/job.yml\",\n"
		  "    \"line\": 3,\n"
		  "    \"column\": 0,\n"
		  "    \"rule\": \"gpu-visibility\",\n"
		  "    \"severity\": \"warning\",\n"
		  "    \"message\": \"container 'train' can see every GPU\",\n"
		  "    \"kind\": null,\n"
		  "    \"namespace\": null,\n"
		  "    \"name\": null\n"
		  "  }\n"
		  "]\n");
	free(text);

	text = report_text(REPORT_JSON, odd, 1);
	CHECK_STR(text,
		  "[\n"
		  "  {\n"
		  "    \"file\": \"dir/bad\xef\xbf\xbd\\\"name\\\".yaml\",\n"
		  "    \"line\": 1,\n"
		  "    \"column\": 2,\n"
		  "    \"rule\": \"r\",\n"
		  "    \"severity\": \"warning\",\n"
		  "    \"message\": \"line\\nbreak \\\\ and \\\"quotes\\\"\",\n"
		  "    \"pointer\": \"/a~1b\",\n"
		  "    \"kind\": null,\n"
		  "    \"namespace\": null,\n"
		  "    \"name\": null\n"
		  "  }\n"
		  "]\n");
	free(text);

	text = report_text(REPORT_JSON, report_items + 2, 1);
	CHECK(text && strstr(text, "\"rule\": null"));
	CHECK(text && !strstr(text, "pointer"));
	free(text);

	text = report_text(REPORT_JSON, NULL, 0);
	CHECK_STR(text, "[]\n");
	free(text);
}

TEST(report_write_sarif)
{
	static const struct report_item paths[] = {
		{ "./dir\\my file#1.yaml", 0, 0, "legacy-gpu-resource",
		  "warning", "m", NULL, NO_OBJECT },
		{ "/abs/a:b.yaml", 5, 0, "legacy-gpu-resource", "info", "n",
		  NULL, NO_OBJECT },
	};
	const struct rule_info *info = rule_info_find("legacy-gpu-resource");
	char *text = report_text(REPORT_SARIF, report_items, N_ITEMS);
	json_t *log = text ? json_loads(text, 0, NULL) : NULL;
	json_t *run, *driver, *rules, *results, *r, *loc;

	CHECK(text && text[strlen(text) - 1] == '\n');
	CHECK(log != NULL);
	if (!log) {
		free(text);
		return;
	}
	CHECK_STR(json_string_value(json_object_get(log, "$schema")),
		  "https://json.schemastore.org/sarif-2.1.0.json");
	CHECK_STR(json_string_value(json_object_get(log, "version")),
		  "2.1.0");
	CHECK(json_array_size(json_object_get(log, "runs")) == 1);
	run = json_array_get(json_object_get(log, "runs"), 0);
	driver = json_object_get(json_object_get(run, "tool"), "driver");
	CHECK_STR(json_string_value(json_object_get(driver, "name")),
		  "gpumend");
	CHECK_STR(json_string_value(json_object_get(driver, "version")),
		  "9.9.9");
	CHECK_STR(json_string_value(json_object_get(driver, "informationUri")),
		  "https://github.com/gpumend/gpumend");

	/* Rules in order of first use, described when the engine knows them. */
	rules = json_object_get(driver, "rules");
	CHECK(json_array_size(rules) == 2);
	CHECK_STR(json_string_value(json_object_get(json_array_get(rules, 0),
						    "id")),
		  "legacy-gpu-resource");
	CHECK(info != NULL);
	if (info)
		CHECK_STR(json_string_value(json_object_get(json_object_get(
				  json_array_get(rules, 0), "shortDescription"),
				  "text")),
			  info->summary);
	CHECK_STR(json_string_value(json_object_get(json_array_get(rules, 1),
						    "id")),
		  "gpu-visibility");

	results = json_object_get(run, "results");
	CHECK(json_array_size(results) == 3);
	r = json_array_get(results, 0);
	CHECK_STR(json_string_value(json_object_get(r, "ruleId")),
		  "legacy-gpu-resource");
	CHECK(json_integer_value(json_object_get(r, "ruleIndex")) == 0);
	CHECK_STR(json_string_value(json_object_get(r, "level")), "error");
	CHECK_STR(json_string_value(json_object_get(
			  json_object_get(r, "message"), "text")),
		  report_items[0].message);
	loc = json_object_get(json_array_get(json_object_get(r, "locations"),
					     0), "physicalLocation");
	CHECK_STR(json_string_value(json_object_get(
			  json_object_get(loc, "artifactLocation"), "uri")),
		  "deploy.yaml");
	CHECK(json_integer_value(json_object_get(
		      json_object_get(loc, "region"), "startLine")) == 12);
	CHECK(json_integer_value(json_object_get(
		      json_object_get(loc, "region"), "startColumn")) == 7);

	/* An unknown column is left out, not written as 0. */
	r = json_array_get(results, 1);
	CHECK(json_integer_value(json_object_get(r, "ruleIndex")) == 1);
	CHECK_STR(json_string_value(json_object_get(r, "level")), "warning");
	loc = json_object_get(json_array_get(json_object_get(r, "locations"),
					     0), "physicalLocation");
	CHECK(json_integer_value(json_object_get(
		      json_object_get(loc, "region"), "startLine")) == 3);
	CHECK(!json_object_get(json_object_get(loc, "region"),
			       "startColumn"));

	/* No rule, no location within the file: info is a note. */
	r = json_array_get(results, 2);
	CHECK(!json_object_get(r, "ruleId"));
	CHECK(!json_object_get(r, "ruleIndex"));
	CHECK_STR(json_string_value(json_object_get(r, "level")), "note");
	loc = json_object_get(json_array_get(json_object_get(r, "locations"),
					     0), "physicalLocation");
	CHECK(!json_object_get(loc, "region"));
	json_decref(log);
	free(text);

	/* Paths become URI references. */
	text = report_text(REPORT_SARIF, paths, 2);
	log = text ? json_loads(text, 0, NULL) : NULL;
	results = json_object_get(json_array_get(json_object_get(log, "runs"),
						 0), "results");
	CHECK(json_array_size(results) == 2);
	CHECK(json_array_size(json_object_get(json_object_get(json_object_get(
		      json_array_get(json_object_get(log, "runs"), 0), "tool"),
		      "driver"), "rules")) == 1);
	for (size_t i = 0; i < json_array_size(results); i++) {
		static const char *const uris[] = {
			/* a backslash is part of a name here, not a
			 * separator: encoded, not made a slash */
			"dir%5Cmy%20file%231.yaml", "file:///abs/a%3Ab.yaml"
		};

		loc = json_object_get(json_array_get(json_object_get(
				json_array_get(results, i), "locations"), 0),
				"physicalLocation");
		CHECK_STR(json_string_value(json_object_get(
				  json_object_get(loc, "artifactLocation"),
				  "uri")),
			  uris[i]);
	}
	json_decref(log);
	free(text);

	/* Empty: still one run, with no rules and no results. */
	text = report_text(REPORT_SARIF, NULL, 0);
	log = text ? json_loads(text, 0, NULL) : NULL;
	run = json_array_get(json_object_get(log, "runs"), 0);
	CHECK(json_is_array(json_object_get(run, "results")) &&
	      json_array_size(json_object_get(run, "results")) == 0);
	CHECK(json_array_size(json_object_get(json_object_get(
		      json_object_get(run, "tool"), "driver"), "rules")) == 0);
	json_decref(log);
	free(text);
}

TEST(report_write_github)
{
	static const struct report_item odd[] = {
		{ "dir/a,b:c%.yaml", 4, 9, "rule:x,y", "warning",
		  "50% of it: a, b\r\nnext", NULL, NO_OBJECT },
	};
	char *text = report_text(REPORT_GITHUB, report_items, N_ITEMS);

	CHECK_STR(text,
		  "::error file=deploy.yaml,line=12,col=7,"
		  "title=legacy-gpu-resource::'alpha.kubernetes.io/nvidia-gpu' "
		  "has a non-integer value\n"
		  "::warning file=k8s/job.yml,line=3,title=gpu-visibility::"
		  "container 'train' can see every GPU\n"
		  "::notice file=-::nothing to say\n");
	free(text);

	text = report_text(REPORT_GITHUB, odd, 1);
	CHECK_STR(text,
		  "::warning file=dir/a%2Cb%3Ac%25.yaml,line=4,col=9,"
		  "title=rule%3Ax%2Cy::50%25 of it: a, b%0D%0Anext\n");
	free(text);

	text = report_text(REPORT_GITHUB, NULL, 0);
	CHECK_STR(text, "");
	free(text);
}

TEST(report_write_cap_leaves_buffer_alone)
{
	enum report_format formats[] = { REPORT_TEXT, REPORT_JSON,
					 REPORT_SARIF, REPORT_GITHUB,
					 REPORT_CODEQUALITY };

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct buf out;

		buf_init(&out, 40);
		CHECK(buf_puts(&out, "kept") == 0);
		CHECK(report_write(&out, formats[i], report_items, N_ITEMS,
				   NULL) == -1);
		CHECK_STR(out.data, "kept");
		CHECK(out.len == 4);
		buf_free(&out);
	}
}

/* The object of a finding in a document, as report_item_object() finds it,
 * in `label` (report_object_label()); 0 or -1. */
static int object_label_of(const char *doc, const char *pointer,
			   char *label, size_t size)
{
	json_t *root = json_loads(doc, 0, NULL);
	struct report_item item = { .pointer = pointer };
	struct buf out;
	int rc;

	report_item_object(&item, root);
	buf_init(&out, 0);
	rc = report_object_label(&out, &item);
	snprintf(label, size, "%s", out.data ? out.data : "");
	buf_free(&out);
	json_decref(root);
	return rc;
}

TEST(report_object_names)
{
	static const char list[] =
		"{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": ["
		"{\"kind\": \"Pod\", \"metadata\": {\"name\": \"a\", "
		"\"namespace\": \"ns\"}},"
		"{\"kind\": \"Job\", \"metadata\": {\"generateName\": \"train-\"}},"
		"{\"kind\": \"Deployment\", \"metadata\": {\"name\": \"\"}},"
		"{\"metadata\": {\"name\": \"x\"}}, 7]}";
	char label[128];

	CHECK(object_label_of(list, "/items/0/spec/containers/0", label,
			      sizeof(label)) == 0);
	CHECK_STR(label, "Pod ns/a: ");
	object_label_of(list, "/items/0", label, sizeof(label));
	CHECK_STR(label, "Pod ns/a: ");
	object_label_of(list, "/items/1/spec", label, sizeof(label));
	CHECK_STR(label, "Job train-*: ");
	object_label_of(list, "/items/2/spec", label, sizeof(label));
	CHECK_STR(label, "Deployment <no name>: ");
	object_label_of(list, "/items/3/spec", label, sizeof(label));
	CHECK_STR(label, "<no kind> x: ");
	/* not an item that is an object: the List itself, which has no
	 * metadata */
	object_label_of(list, "/items/4", label, sizeof(label));
	CHECK_STR(label, "List: ");
	object_label_of(list, "/items/9/spec", label, sizeof(label));
	CHECK_STR(label, "List: ");
	object_label_of(list, "/kind", label, sizeof(label));
	CHECK_STR(label, "List: ");
	object_label_of("{\"kind\": \"KubeletConfiguration\"}", "/featureGates",
			label, sizeof(label));
	CHECK_STR(label, "KubeletConfiguration: ");
	object_label_of("{\"kind\": \"Pod\", \"metadata\": {\"namespace\": \"n\"}}",
			"/spec", label, sizeof(label));
	CHECK_STR(label, "Pod n/<no name>: ");
	/* a plain object, cluster-scoped; and no object at all */
	object_label_of("{\"kind\": \"Node\", \"metadata\": {\"name\": \"n1\"}}",
			"/spec", label, sizeof(label));
	CHECK_STR(label, "Node n1: ");
	object_label_of("{\"a\": 1}", "/a", label, sizeof(label));
	CHECK_STR(label, "");
	object_label_of("[1]", "/0", label, sizeof(label));
	CHECK_STR(label, "");
}

static const struct report_item object_items[] = {
	{ "./k8s/list.yaml", 9, 5, "legacy-gpu-resource", "warning", "m",
	  "/items/2/spec/containers/0", "Pod", "ns", "a", NULL, 0, 8 },
	{ "k8s/list.yaml", 20, 3, "gpu-visibility", "error", "n",
	  "/spec", "Job", NULL, NULL, "train-", 0, 0 },
	{ "k8s/list.yaml", 1, 1, "syntax", "info", "o", NULL, NO_OBJECT },
};

TEST(report_objects_in_every_format)
{
	char *text = report_text(REPORT_TEXT, object_items, 3);
	json_t *log;

	CHECK_STR(text,
		  "./k8s/list.yaml:9:5: warning: Pod ns/a: m [legacy-gpu-resource]\n"
		  "k8s/list.yaml:20:3: error: Job train-*: n [gpu-visibility]\n"
		  "k8s/list.yaml:1:1: info: o [syntax]\n");
	free(text);

	text = report_text(REPORT_JSON, object_items, 3);
	log = text ? json_loads(text, 0, NULL) : NULL;
	CHECK_STR(json_string_value(json_object_get(json_array_get(log, 0),
						    "kind")), "Pod");
	CHECK_STR(json_string_value(json_object_get(json_array_get(log, 0),
						    "namespace")), "ns");
	CHECK_STR(json_string_value(json_object_get(json_array_get(log, 0),
						    "name")), "a");
	CHECK(json_is_null(json_object_get(json_array_get(log, 1), "name")));
	CHECK_STR(json_string_value(json_object_get(json_array_get(log, 1),
						    "generateName")), "train-");
	CHECK(json_is_null(json_object_get(json_array_get(log, 2), "kind")));
	json_decref(log);
	free(text);

	text = report_text(REPORT_GITHUB, object_items, 3);
	CHECK_STR(text,
		  "::warning file=./k8s/list.yaml,line=9,col=5,"
		  "title=legacy-gpu-resource (Pod ns/a)::m\n"
		  "::error file=k8s/list.yaml,line=20,col=3,"
		  "title=gpu-visibility (Job train-*)::n\n"
		  "::notice file=k8s/list.yaml,line=1,col=1,title=syntax::o\n");
	free(text);

	text = report_text(REPORT_SARIF, object_items, 3);
	log = text ? json_loads(text, 0, NULL) : NULL;
	{
		json_t *results = json_object_get(json_array_get(
			json_object_get(log, "runs"), 0), "results");
		json_t *logical = json_array_get(json_object_get(json_array_get(
			json_object_get(json_array_get(results, 0), "locations"),
			0), "logicalLocations"), 0);

		CHECK_STR(json_string_value(json_object_get(logical,
				"fullyQualifiedName")), "Pod ns/a");
		CHECK_STR(json_string_value(json_object_get(logical, "name")),
			  "a");
		CHECK_STR(json_string_value(json_object_get(logical, "kind")),
			  "resource");
		logical = json_object_get(json_array_get(json_object_get(
			json_array_get(results, 2), "locations"), 0),
			"logicalLocations");
		CHECK(logical == NULL);
	}
	json_decref(log);
	free(text);
}

TEST(report_sarif_rule_metadata)
{
	char *text = report_text(REPORT_SARIF, object_items, 3);
	json_t *log = text ? json_loads(text, 0, NULL) : NULL;
	json_t *rules = json_object_get(json_object_get(json_object_get(
		json_array_get(json_object_get(log, "runs"), 0), "tool"),
		"driver"), "rules");

	CHECK(json_array_size(rules) == 3);
	for (size_t i = 0; i < json_array_size(rules); i++) {
		json_t *rule = json_array_get(rules, i);
		const char *id = json_string_value(json_object_get(rule, "id"));
		const char *uri = json_string_value(json_object_get(rule,
								    "helpUri"));
		json_t *help = json_object_get(rule, "help");
		json_t *tags = json_object_get(json_object_get(rule,
						"properties"), "tags");
		char want[256];

		snprintf(want, sizeof(want),
			 "https://github.com/gpumend/gpumend/blob/main/docs/rules.md#%s",
			 id ? id : "");
		CHECK_STR(uri, want);
		CHECK(json_string_length(json_object_get(json_object_get(rule,
				"shortDescription"), "text")) > 10);
		CHECK(json_string_length(json_object_get(json_object_get(rule,
				"fullDescription"), "text")) > 20);
		CHECK(json_string_length(json_object_get(help, "text")) > 20);
		CHECK(json_string_value(json_object_get(help, "markdown")) &&
		      strstr(json_string_value(json_object_get(help,
				"markdown")), want) != NULL);
		CHECK(json_array_size(tags) > 0);
	}
	json_decref(log);
	free(text);
	/* every rule of the engine has its help */
	for (int r = 0; r < RULE_COUNT; r++) {
		const struct rule_help *help = rule_help_get((enum rule_id)r);

		CHECK(help && help->description && help->fix && help->tags);
		/* and its settings and example (explain.c, docs/rules.md) */
		CHECK(help && help->config && help->example.before &&
		      help->example.after);
	}
	CHECK(rule_help_get(RULE_COUNT) == NULL);
}

/* The fingerprint of the Code Quality issue of `item`. */
static char *fingerprint_of(const struct report_item *item)
{
	char *text = report_text(REPORT_CODEQUALITY, item, 1);
	json_t *issues = text ? json_loads(text, 0, NULL) : NULL;
	const char *fp = json_string_value(json_object_get(
		json_array_get(issues, 0), "fingerprint"));
	char *copy = fp ? strdup(fp) : NULL;

	json_decref(issues);
	free(text);
	return copy;
}

TEST(report_write_codequality)
{
	char *text = report_text(REPORT_CODEQUALITY, object_items, 3);
	json_t *issues = text ? json_loads(text, 0, NULL) : NULL;
	json_t *first = json_array_get(issues, 0);
	struct report_item moved = object_items[0], other = object_items[0];
	char *a, *b, *c, *d;

	CHECK(json_array_size(issues) == 3);
	CHECK_STR(json_string_value(json_object_get(first, "description")),
		  "Pod ns/a: m");
	CHECK_STR(json_string_value(json_object_get(first, "check_name")),
		  "legacy-gpu-resource");
	CHECK_STR(json_string_value(json_object_get(first, "severity")),
		  "major");
	CHECK_STR(json_string_value(json_object_get(json_array_get(issues, 1),
						    "severity")), "critical");
	CHECK_STR(json_string_value(json_object_get(json_array_get(issues, 2),
						    "severity")), "info");
	CHECK_STR(json_string_value(json_object_get(json_object_get(first,
				"location"), "path")), "k8s/list.yaml");
	CHECK(json_integer_value(json_object_get(json_object_get(
		json_object_get(first, "location"), "lines"), "begin")) == 9);
	CHECK(json_string_length(json_object_get(first, "fingerprint")) == 64);
	json_decref(issues);
	free(text);

	/* lines move, and the item moves in its List: the same issue */
	moved.line = 40;
	moved.column = 1;
	moved.pointer = "/items/17/spec/containers/0";
	moved.object_at = 9;
	/* another object: another issue */
	other.name = "b";
	a = fingerprint_of(&object_items[0]);
	b = fingerprint_of(&moved);
	c = fingerprint_of(&other);
	d = fingerprint_of(&object_items[1]);
	CHECK(a && b && c && d);
	CHECK_STR(a, b);
	CHECK(a && c && strcmp(a, c) != 0);
	CHECK(a && d && strcmp(a, d) != 0);
	free(a);
	free(b);
	free(c);
	free(d);
}
