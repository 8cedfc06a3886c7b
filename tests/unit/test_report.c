/*
 * test_report.c - the lint report writers: text, JSON, SARIF, GitHub.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "harness.h"
#include "report.h"
#include "rules.h"

static const struct report_item report_items[] = {
	{ "deploy.yaml", 12, 7, "legacy-gpu-resource", "error",
	  "'alpha.kubernetes.io/nvidia-gpu' has a non-integer value",
	  "/spec/template/spec/containers/0/resources/limits/"
	  "alpha.kubernetes.io~1nvidia-gpu" },
	{ "k8s/job.yml", 3, 0, "gpu-visibility", "warning",
	  "container 'train' can see every GPU", NULL },
	{ "-", 0, 0, NULL, "info", "nothing to say", NULL },
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
			  "m", NULL },
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
		  "line\nbreak \\ and \"quotes\"", "/a~1b" },
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
		  "limits/alpha.kubernetes.io~1nvidia-gpu\"\n"
		  "  },\n"
		  "  {\n"
		  "    \"file\": \"k8s/job.yml\",\n"
		  "    \"line\": 3,\n"
		  "    \"column\": 0,\n"
		  "    \"rule\": \"gpu-visibility\",\n"
		  "    \"severity\": \"warning\",\n"
		  "    \"message\": \"container 'train' can see every GPU\"\n"
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
		  "    \"pointer\": \"/a~1b\"\n"
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
		  "warning", "m", NULL },
		{ "/abs/a:b.yaml", 5, 0, "legacy-gpu-resource", "info", "n",
		  NULL },
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
	CHECK(json_object_get(driver, "informationUri") == NULL);

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
		  "50% of it: a, b\r\nnext", NULL },
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
					 REPORT_SARIF, REPORT_GITHUB };

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
