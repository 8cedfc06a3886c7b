/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_template.c - Helm templates and values: the template masker
 * (helm/template_mask.c), what an action reads of a chart's values
 * (chart_action_value), the values view of the engine (rules/values.c)
 * and the text patcher's edits (text_patch_edits).
 */
#include <stdlib.h>
#include <string.h>

#include "helm_private.h"
#include "harness.h"
#include "source.h"
#include "template_mask.h"
#include "text_patch.h"

/* The masked text of `text` under variant `v`, valuation `u` (a new
 * NUL-terminated string), or NULL when the template does not scan. */
static char *masked(const char *text, size_t v, int u, struct tpl *t)
{
	struct tpl_error err;
	size_t len = strlen(text);
	char *out;

	if (tpl_scan(text, len, t, &err))
		return NULL;
	out = malloc(len + 1);
	if (!out)
		return NULL;
	tpl_mask(t, v, u, out);
	out[len] = '\0';
	return out;
}

/* The json of a one-document YAML text, or NULL. */
static json_t *read_yaml(const char *text)
{
	struct source_error err;

	return source_parse_one(text, strlen(text), NULL, NULL, &err);
}

TEST(template_places_of_actions)
{
	static const char text[] =
		"metadata:\n"
		"  name: {{ .Release.Name }}\n"               /* value */
		"  labels:\n"
		"    {{- include \"x\" . | nindent 4 }}\n"     /* line */
		"    {{ .Values.key }}: v\n"                  /* key */
		"spec:\n"
		"  image: \"{{ .Values.repo }}:{{ .Values.tag }}\"\n" /* scalar */
		"  count: \"{{ .Values.n }}\"\n";             /* quoted value */
	struct tpl t;
	struct tpl_error err;

	CHECK(tpl_scan(text, strlen(text), &t, &err) == 0);
	CHECK(t.n_actions == 6);
	if (t.n_actions != 6)
		return;
	CHECK(t.actions[0].place == TPL_PLACE_VALUE);
	CHECK(t.actions[1].place == TPL_PLACE_LINE);
	CHECK(t.actions[2].place == TPL_PLACE_KEY);
	CHECK(t.actions[3].place == TPL_PLACE_SCALAR);
	CHECK(t.actions[4].place == TPL_PLACE_SCALAR);
	CHECK(t.actions[5].place == TPL_PLACE_VALUE);
	/* a quoted whole scalar takes its quotes with it */
	CHECK(t.actions[5].mask_start == t.actions[5].start - 1);
	CHECK(t.actions[5].mask_end == t.actions[5].end + 1);
	CHECK(t.actions[1].line == 4 && t.actions[1].column == 5);
	tpl_free(&t);
}

TEST(template_mask_reads_as_yaml)
{
	static const char text[] =
		"{{- /* a comment with a quote: it's fine */ -}}\n"
		"apiVersion: v1\n"
		"kind: Pod\n"
		"metadata:\n"
		"  name: {{ .Release.Name }}-gpu\n"
		"  labels:\n"
		"    {{- include \"x\" . | nindent 4 }}\n"
		"spec:\n"
		"  containers:\n"
		"  - name: c\n"
		"    args:\n"
		"    - |\n"
		"      run\n"
		"      {{- if .Values.x }}\n"
		"      more\n"
		"      {{- end }}\n"
		"    resources:\n"
		"      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: {{ .Values.gpus }}\n";
	struct tpl t;
	char *out = masked(text, 0, 1, &t);
	json_t *doc = out ? read_yaml(out) : NULL;
	char ph[16];

	CHECK(out && strlen(out) == strlen(text));
	CHECK(doc != NULL);
	/* line breaks stay where they were */
	for (size_t i = 0; out && i < strlen(text); i++)
		if (text[i] == '\n')
			CHECK(out[i] == '\n');
	/* a whole-line action is a comment from column 0 */
	CHECK(out && strstr(out, "\n#   ") != NULL);
	if (doc) {
		json_t *count = json_pointer_get(doc,
			"/spec/containers/0/resources/limits/alpha.kubernetes.io~1nvidia-gpu");
		const char *name = json_string_value(json_pointer_get(doc,
			"/metadata/name"));

		/* a whole-scalar action reads as a string s1..., a part of
		 * one as letters, digits and '_' */
		CHECK(json_is_string(count));
		tpl_placeholder(&t, t.n_actions - 1, 1, ph, sizeof(ph));
		CHECK_STR(json_string_value(count), ph);
		CHECK(ph[0] == 's' && ph[1] == '1');
		CHECK(name && name[0] == 'x' && strstr(name, "-gpu"));
		/* inside a block scalar the action lines are blank, the
		 * scalar goes on */
		CHECK(json_is_string(json_pointer_get(doc,
						      "/spec/containers/0/args/0")));
		CHECK(strstr(json_string_value(json_pointer_get(doc,
				"/spec/containers/0/args/0")), "more") != NULL);
		CHECK(json_is_null(json_pointer_get(doc, "/metadata/labels")));
	}
	json_decref(doc);
	free(out);
	tpl_free(&t);
}

TEST(template_valuations_differ)
{
	static const char text[] = "a: {{ .Values.x }}\nb: {{ .Values.x }}\n";
	struct tpl t;
	char *v1 = masked(text, 0, 1, &t), *v2, *v3;
	json_t *d1, *d2, *d3;

	tpl_free(&t);
	v2 = masked(text, 0, 2, &t);
	tpl_free(&t);
	v3 = masked(text, 0, 3, &t);
	d1 = v1 ? read_yaml(v1) : NULL;
	d2 = v2 ? read_yaml(v2) : NULL;
	d3 = v3 ? read_yaml(v3) : NULL;
	CHECK(d1 && d2 && d3);
	if (d1 && d2 && d3) {
		/* the same action, the same value; another valuation, another */
		CHECK(json_equal(json_object_get(d1, "a"),
				 json_object_get(d1, "b")));
		CHECK(!json_equal(json_object_get(d1, "a"),
				  json_object_get(d2, "a")));
		CHECK_STR(json_string_value(json_object_get(d3, "a")), "x y");
	}
	/* read as an integer on request */
	t.actions[0].as_number = t.actions[1].as_number = 1;
	tpl_mask(&t, 0, 1, v1);
	json_decref(d1);
	d1 = read_yaml(v1);
	CHECK(d1 && json_is_integer(json_object_get(d1, "a")));
	json_decref(d1);
	json_decref(d2);
	json_decref(d3);
	free(v1);
	free(v2);
	free(v3);
	tpl_free(&t);
}

TEST(template_variants_take_every_branch)
{
	static const char text[] =
		"kind: Pod\n"
		"{{- if .Values.a }}\n"
		"x: 1\n"
		"{{- else if .Values.b }}\n"
		"x: 2\n"
		"{{- else }}\n"
		"x: 3\n"
		"{{- end }}\n"
		"{{- if .Values.a }}\n"
		"y: 1\n"
		"{{- end }}\n"
		"{{- define \"d\" }}\n"
		"z: 1\n"
		"{{- end }}\n";
	struct tpl t;
	struct tpl_error err;
	int seen[4] = { 0 };

	CHECK(tpl_scan(text, strlen(text), &t, &err) == 0);
	/* if/else if/else, the second if linked to the first, a define */
	CHECK(t.n_chains == 3);
	CHECK(t.n_variants == 3);
	for (size_t v = 0; v < t.n_variants; v++) {
		char *out = malloc(t.len + 1);
		json_t *doc;

		tpl_mask(&t, v, 1, out);
		out[t.len] = '\0';
		doc = read_yaml(out);
		CHECK(doc != NULL);
		if (doc) {
			json_int_t x = json_integer_value(json_object_get(doc, "x"));

			if (x >= 1 && x <= 3)
				seen[x] = 1;
			/* linked: y with x: 1 only; a define is never read */
			CHECK((json_object_get(doc, "y") != NULL) == (x == 1));
			CHECK(json_object_get(doc, "z") == NULL);
		}
		json_decref(doc);
		free(out);
	}
	CHECK(seen[1] && seen[2] && seen[3]);
	tpl_free(&t);
}

TEST(template_errors_name_the_place)
{
	static const struct {
		const char *text;
		int line, column;
	} cases[] = {
		{ "a: 1\nb: {{ .Values.x\n", 2, 4 },
		{ "a: {{ \"}}\n", 1, 7 },
		{ "{{ else }}\n", 1, 1 },
		{ "{{ end }}\n", 1, 1 },
		{ "a: 1\n{{ if .x }}\nb: 2\n", 2, 1 },
		{ "{{/* open\n", 1, 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tpl t;
		struct tpl_error err;

		CHECK(tpl_scan(cases[i].text, strlen(cases[i].text), &t, &err) != 0);
		CHECK(err.line == cases[i].line);
		CHECK(err.column == cases[i].column);
		CHECK(err.message[0] != '\0');
	}
}

TEST(template_context_and_action_at)
{
	static const char text[] =
		"a: 1\n"
		"{{- if .Values.x }}\n"
		"b: 2\n"
		"{{- end }}\n"
		"c: {{ .Values.c }}\n";
	struct tpl t;
	struct tpl_error err;
	const char *b = strstr(text, "b: 2"), *c = strstr(text, "c:");

	CHECK(tpl_scan(text, strlen(text), &t, &err) == 0);
	CHECK(tpl_context(&t, 0, 0) == -1);
	CHECK(tpl_context(&t, (size_t)(b - text), 0) == 0);
	/* at the start of the end line: still inside, for an insertion */
	CHECK(tpl_context(&t, (size_t)(b - text) + 5, 1) == 0);
	CHECK(tpl_context(&t, (size_t)(c - text), 1) == -1);
	CHECK(tpl_visible(&t, 0, 0) == 1);
	CHECK(tpl_visible(&t, 1, 0) == 0);
	/* the action's bytes are held, the line around the value is not */
	CHECK(tpl_action_at(&t, (size_t)(c - text) + 4,
			    (size_t)(c - text) + 6) == 2);
	CHECK(tpl_action_at(&t, (size_t)(c - text), (size_t)(c - text) + 2) == -1);
	/* a whole action line, from its first byte */
	CHECK(tpl_action_at(&t, 5, 6) == 0);
	tpl_free(&t);
}

static int known_define(void *arg, const char *name, size_t len)
{
	(void)arg;
	return len == 1 && name[0] == 'x';
}

TEST(template_include_as_member)
{
	static const char text[] =
		"labels:\n"
		"  {{- include \"x\" . | nindent 2 }}\n"
		"other:\n"
		"  {{- include \"y\" . | nindent 2 }}\n"
		"third:\n"
		"    {{- include \"x\" . | nindent 2 }}\n";
	struct tpl t;
	struct tpl_error err;
	char *out, line[128];
	json_t *doc;

	CHECK(tpl_scan(text, strlen(text), &t, &err) == 0);
	/* a known define, at its nindent: a member; the others stay lines */
	CHECK(tpl_mark_members(&t, known_define, NULL) == 1);
	CHECK(t.actions[0].place == TPL_PLACE_MEMBER);
	CHECK(t.actions[1].place == TPL_PLACE_LINE);
	CHECK(t.actions[2].place == TPL_PLACE_LINE);
	out = malloc(t.len + 1);
	tpl_mask(&t, 0, 1, out);
	out[t.len] = '\0';
	doc = read_yaml(out);
	CHECK(doc && json_object_size(json_object_get(doc, "labels")) == 1);
	CHECK(doc && json_is_null(json_object_get(doc, "other")));
	/* moved elsewhere, its nindent follows */
	CHECK(tpl_member_text(&t, 0, 6, line, sizeof(line)) > 0);
	CHECK_STR(line, "{{- include \"x\" . | nindent 6 }}");
	json_decref(doc);
	free(out);
	tpl_unmark_members(&t);
	CHECK(t.actions[0].place == TPL_PLACE_LINE);
	tpl_free(&t);
}

static const char *name_notebook(void *arg, const char *pointer)
{
	(void)arg;
	return *pointer ? NULL : "notebook";
}

TEST(values_sites_get_real_pointers)
{
	static const char text[] =
		"resources:\n"
		"  limits:\n"
		"    alpha.kubernetes.io/nvidia-gpu: 1\n"
		"worker:\n"
		"  nodeSelector:\n"
		"    alpha.kubernetes.io/nvidia-gpu-name: Tesla K80\n"
		"other:\n"
		"  limits:\n"
		"    alpha.kubernetes.io/nvidia-gpu: 1\n";
	struct config *cfg = config_new_default();
	struct rules_options opts = { .offline = 1 };
	struct rules_result res;
	struct rules_error err;
	json_t *values = read_yaml(text);
	int renamed = 0, labelled = 0;

	rules_result_init(&res);
	CHECK(cfg && values);
	CHECK(rules_apply_values(cfg, &opts, values, NULL, NULL, &res,
				 &err) == 0);
	for (size_t i = 0; i < res.n_ops; i++) {
		if (res.ops[i].kind == PATCH_MOVE &&
		    strcmp(res.ops[i].path,
			   "/resources/limits/nvidia.com~1gpu") == 0)
			renamed = 1;
		if (strcmp(res.ops[i].path,
			   "/worker/nodeSelector/nvidia.com~1gpu.product") == 0)
			labelled = 1;
		/* `other` holds limits, but no `resources`: not a site */
		CHECK(strncmp(res.ops[i].path, "/other", 6) != 0);
	}
	CHECK(renamed && labelled);
	CHECK_STR(json_string_value(json_pointer_get(values,
			"/worker/nodeSelector/nvidia.com~1gpu.product")),
		  "Tesla-K80");
	rules_result_clear(&res);
	json_decref(values);
	config_free(cfg);
}

TEST(values_name_dependent_changes_are_reported)
{
	static const char text[] =
		"podLabels: {}\n"
		"podAnnotations: {}\n"
		"affinity: {}\n"
		"resources:\n"
		"  limits:\n"
		"    aliyun.com/gpu-mem: 4\n";
	struct config *cfg = config_new_default();
	struct rules_options opts = { .offline = 1 };
	struct rules_result res;
	struct rules_error err;
	json_t *values = read_yaml(text), *named = read_yaml(text);
	int reported = 0;

	rules_result_init(&res);
	CHECK(rules_apply_values(cfg, &opts, values, NULL, NULL, &res,
				 &err) == 0);
	/* the memory record names the container: unknown, so reported */
	CHECK(json_object_size(json_object_get(values, "podAnnotations")) == 0);
	CHECK_STR(json_string_value(json_pointer_get(values,
			"/podLabels/gpumend.io~1gpu-sharing")), "time-slicing");
	CHECK(json_integer_value(json_pointer_get(values,
			"/resources/limits/nvidia.com~1gpu")) == 1);
	for (size_t i = 0; i < res.n_findings; i++)
		if (strstr(res.findings[i].message, "name the templates give"))
			reported = 1;
	CHECK(reported);
	rules_result_clear(&res);
	/* known, it is written */
	CHECK(rules_apply_values(cfg, &opts, named, name_notebook, NULL, &res,
				 &err) == 0);
	CHECK_STR(json_string_value(json_pointer_get(named,
			"/podAnnotations/gpumend.io~1gpu-memory-request")),
		  "notebook=4096Mi");
	rules_result_clear(&res);
	json_decref(values);
	json_decref(named);
	config_free(cfg);
}

TEST(text_patch_edits_are_the_edits)
{
	static const char text[] =
		"kind: Pod\n"
		"spec:\n"
		"  containers:\n"
		"  - name: c\n"
		"    resources:\n"
		"      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: 1  # one\n";
	struct config *cfg = config_new_default();
	struct rules_options opts = { .offline = 1 };
	struct source_parser *p = source_parser_new(text, strlen(text), NULL);
	struct source_doc doc;
	struct source_error err;
	struct rules_result res;
	struct rules_error rerr;
	struct text_edits edits;
	char why[200];

	rules_result_init(&res);
	CHECK(source_next_doc(p, &doc, &err) == 1);
	CHECK(rules_apply(cfg, &opts, doc.json, &res, &rerr) == 0);
	CHECK(text_patch_edits(text, strlen(text), &doc, &res, doc.json, NULL,
			       &edits, why, sizeof(why)) == 0);
	/* one edit: the key, where it stands */
	CHECK(edits.n == 1);
	if (edits.n == 1) {
		CHECK(edits.items[0].kind == TEXT_EDIT_RENAME);
		CHECK(edits.items[0].start ==
		      (size_t)(strstr(text, "alpha") - text));
		CHECK(edits.items[0].len == strlen("nvidia.com/gpu") &&
		      memcmp(edits.items[0].text, "nvidia.com/gpu", 14) == 0);
	}
	text_edits_clear(&edits);
	rules_result_clear(&res);
	source_doc_clear(&doc);
	source_parser_free(p);
	config_free(cfg);
}

TEST(chart_action_value_reads_only_plain_values)
{
	json_t *values = read_yaml(
		"image: {repository: nvidia/cuda, tag: \"12.2\"}\n"
		"resources: {limits: {nvidia.com/gpu: 1}}\n"
		"empty: \"\"\n");
	static const struct {
		const char *action;
		const char *want;       /* the value as compact JSON; NULL: none */
	} cases[] = {
		{ "{{ .Values.image.repository }}", "\"nvidia/cuda\"" },
		{ "{{- .Values.image.tag | quote -}}", "\"12.2\"" },
		{ "{{- toYaml .Values.resources | nindent 12 }}",
		  "{\"limits\":{\"nvidia.com/gpu\":1}}" },
		{ "{{ .Values.image.tag | default .Chart.AppVersion }}", "\"12.2\"" },
		/* what the values do not settle */
		{ "{{ .Values.empty | default \"x\" }}", NULL },
		{ "{{ .Values.missing }}", NULL },
		{ "{{ toYaml . | nindent 6 }}", NULL },
		{ "{{ .Values.image.tag | upper }}", NULL },
		{ "{{ include \"x\" . }}", NULL },
		{ "{{ .Values.image.tag", NULL },
	};

	CHECK(values != NULL);
	for (size_t i = 0; values && i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *got = chart_action_value(values, cases[i].action,
						 strlen(cases[i].action));
		char *text = got ? json_dumps(got, JSON_COMPACT |
					      JSON_ENCODE_ANY) : NULL;

		if (cases[i].want)
			CHECK(text && strcmp(text, cases[i].want) == 0);
		else
			CHECK(got == NULL);
		free(text);
	}
	json_decref(values);
}
