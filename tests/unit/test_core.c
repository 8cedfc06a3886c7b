/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_core.c - the small pieces: JSON Pointer, quantities, GPU names,
 * YAML scalars, source positions, rendering, the default config file, the
 * encoding of strings holding NUL.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "ascii.h"
#include "buf.h"
#include "harness.h"
#include "nul.h"
#include "rules_private.h"
#include "source.h"

/* ascii_span: the first byte >= 0x80, at every place of texts of 0 to 40
 * bytes, whatever follows it; all of a text without one. */
TEST(core_ascii_span)
{
	char text[48];

	for (size_t len = 0; len <= 40; len++) {
		memset(text, 'a', sizeof(text));
		CHECK(ascii_span(text, len) == len);
		for (size_t at = 0; at < len; at++) {
			memset(text, 0x7f, sizeof(text));
			text[at] = (char)0x80;
			if (at + 1 < len)
				text[len - 1] = (char)0xff;
			CHECK(ascii_span(text, len) == at);
		}
	}
	/* a byte past the length is not read as the text's */
	memset(text, 'a', sizeof(text));
	text[16] = (char)0xc3;
	CHECK(ascii_span(text, 16) == 16);
}

TEST(core_pointer_escaping)
{
	char *p = json_pointer_join("/spec/limits", "nvidia.com/gpu");
	char *q = json_pointer_join("", "a~b/c");
	char *r = json_pointer_join_index("/items", 12);
	const char *walk = "/a~1b/c~0d";
	char token[64];

	CHECK_STR(p, "/spec/limits/nvidia.com~1gpu");
	CHECK_STR(q, "/a~0b~1c");
	CHECK_STR(r, "/items/12");
	CHECK(json_pointer_next(&walk, token, sizeof(token)) == 0);
	CHECK_STR(token, "a/b");
	CHECK(json_pointer_next(&walk, token, sizeof(token)) == 0);
	CHECK_STR(token, "c~d");
	walk = "/bad~2";
	CHECK(json_pointer_next(&walk, token, sizeof(token)) == -1);
	free(p);
	free(q);
	free(r);
}

/*
 * Tokens are searched eight bytes a step: a '/' or '~' at every place in
 * and past the first eight, and a token that ends inside a step.
 */
TEST(core_pointer_long_tokens)
{
	json_t *doc = json_object(), *inner = json_object();
	char key[40], escaped[80], path[128], token[64];

	json_object_set_new(doc, "abcdefghijklmnop", inner);
	for (size_t at = 0; at < 20; at++) {
		const char *walk = path;
		char *joined;

		for (int tilde = 0; tilde < 2; tilde++) {
			memset(key, 'k', 20);
			key[20] = '\0';
			key[at] = tilde ? '~' : '/';
			memcpy(escaped, key, at);
			escaped[at] = '~';
			escaped[at + 1] = tilde ? '0' : '1';
			strcpy(escaped + at + 2, key + at + 1);
			joined = json_pointer_join("/abcdefghijklmnop", key);
			snprintf(path, sizeof(path), "/abcdefghijklmnop/%s",
				 escaped);
			CHECK_STR(joined, path);
			free(joined);
			walk = path;
			CHECK(json_pointer_next(&walk, token, sizeof(token)) == 0);
			CHECK_STR(token, "abcdefghijklmnop");
			CHECK(json_pointer_next(&walk, token, sizeof(token)) == 0);
			CHECK_STR(token, key);
			CHECK(*walk == '\0');
			json_object_set_new(inner, key, json_integer((json_int_t)at));
			CHECK(json_integer_value(json_pointer_get(doc, path)) ==
			      (json_int_t)at);
		}
	}
	/* a '~' ending the pointer inside a step is malformed */
	CHECK(json_pointer_get(doc, "/abcdefghijklmnop/kkkkkkkkk~") == NULL);
	json_decref(doc);
}

/* Moves as RFC 6902 says: the value is removed first, then added at a
 * path read after the removal; each undone gives the document back. */
TEST(core_patch_move_order)
{
	static const struct {
		const char *doc, *from, *path, *want;
	} cases[] = {
		/* in one array: the index is taken after the removal */
		{ "{\"a\":[1,2,3]}", "/a/0", "/a/2", "{\"a\":[2,3,1]}" },
		{ "{\"a\":[1,2,3]}", "/a/2", "/a/0", "{\"a\":[3,1,2]}" },
		/* the removal shifts the array the path walks through */
		{ "{\"a\":[1,{\"k\":2},{\"k\":3}]}", "/a/0", "/a/1/x",
		  "{\"a\":[{\"k\":2},{\"k\":3,\"x\":1}]}" },
		/* a key renamed in its map, and one moved to another map */
		{ "{\"m\":{\"a~b\":1,\"c\":2}}", "/m/a~0b", "/m/d~1e",
		  "{\"m\":{\"c\":2,\"d/e\":1}}" },
		{ "{\"m\":{\"a\":1},\"n\":{}}", "/m/a", "/n/a",
		  "{\"m\":{},\"n\":{\"a\":1}}" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *doc = json_loads(cases[i].doc, 0, NULL);
		json_t *want = json_loads(cases[i].want, 0, NULL);
		json_t *before = json_deep_copy(doc);
		struct patch_op op = { PATCH_MOVE, RULE_LEGACY_GPU_RESOURCE,
				       (char *)cases[i].path,
				       (char *)cases[i].from, NULL, NULL, 0 };

		CHECK(patch_apply_op_undo(doc, &op) == 0);
		CHECK(json_equal(doc, want));
		CHECK(patch_revert_op(doc, &op) == 0);
		CHECK(json_equal(doc, before));
		json_decref(op.undo);
		json_decref(doc);
		json_decref(want);
		json_decref(before);
	}
	/* a value moved into itself is refused, even where removing it
	 * would shift an array so that the path resolves */
	{
		json_t *doc = json_loads("{\"a\":[[1],[2]]}", 0, NULL);
		json_t *before = json_deep_copy(doc);
		struct patch_op into = { PATCH_MOVE, RULE_LEGACY_GPU_RESOURCE,
					 "/a/0/0", "/a/0", NULL, NULL, 0 };

		CHECK(patch_apply_op_undo(doc, &into) == -1);
		CHECK(json_equal(doc, before));
		json_decref(into.undo);
		json_decref(doc);
		json_decref(before);
	}
}

TEST(core_pointer_get_and_patch)
{
	json_t *doc = json_loads("{\"a\":{\"x/y\":[1,2,3]}}", 0, NULL);
	struct patch_op op = { PATCH_MOVE, RULE_LEGACY_GPU_RESOURCE,
			       "/a/z", "/a/x~1y", NULL, NULL, 0 };
	struct patch_op rm = { PATCH_REMOVE, RULE_LEGACY_GPU_RESOURCE,
			       "/a/z/1", NULL, NULL, NULL, 0 };
	struct patch_op bad = { PATCH_REMOVE, RULE_LEGACY_GPU_RESOURCE,
				"/a/nope", NULL, NULL, NULL, 0 };

	CHECK(json_integer_value(json_pointer_get(doc, "/a/x~1y/2")) == 3);
	CHECK(json_pointer_get(doc, "/a/x~1y/01") == NULL);
	CHECK(patch_apply_op(doc, &op) == 0);
	CHECK(json_pointer_get(doc, "/a/x~1y") == NULL);
	CHECK(patch_apply_op(doc, &rm) == 0);
	CHECK(json_array_size(json_pointer_get(doc, "/a/z")) == 2);
	CHECK(patch_apply_op(doc, &bad) == -1);
	json_decref(doc);
}

TEST(core_quantities)
{
	long long m;

	CHECK(quantity_parse_milli("2", &m) == 0 && m == 2000);
	CHECK(quantity_parse_milli("1.5", &m) == 0 && m == 1500);
	CHECK(quantity_parse_milli("500m", &m) == 0 && m == 500);
	CHECK(quantity_parse_milli("2Ki", &m) == 0 && m == 2048000);
	CHECK(quantity_parse_milli("1Gi", &m) == 0 && m == 1073741824000LL);
	CHECK(quantity_parse_milli("1e3", &m) == 0 && m == 1000000);
	CHECK(quantity_parse_milli("-1", &m) == 0 && m == -1000);
	CHECK(quantity_parse_milli("1k", &m) == 0 && m == 1000000);
	CHECK(quantity_parse_milli("0.0001", &m) == -1);
	CHECK(quantity_parse_milli("abc", &m) == -1);
	CHECK(quantity_parse_milli("", &m) == -1);
	CHECK(quantity_parse_milli("1Zi", &m) == -1);
	CHECK(quantity_parse_milli("99999999999999999999", &m) == -1);
	CHECK(quantity_parse_milli("8Ei", &m) == -1);
}

TEST(core_resource_count)
{
	long long n;
	json_t *v;

	v = json_integer(2);
	CHECK(resource_count(v, &n) == 0 && n == 2);
	json_decref(v);
	v = json_string("3");
	CHECK(resource_count(v, &n) == 0 && n == 3);
	json_decref(v);
	v = json_string("2000m");
	CHECK(resource_count(v, &n) == 0 && n == 2);
	json_decref(v);
	v = json_string("1.5");
	CHECK(resource_count(v, &n) == -1);
	json_decref(v);
	v = json_integer(-1);
	CHECK(resource_count(v, &n) == -1);
	json_decref(v);
	v = json_real(1.5);
	CHECK(resource_count(v, &n) == -1);
	json_decref(v);
	v = json_true();
	CHECK(resource_count(v, &n) == -1);
}

TEST(core_gpu_name_normalize)
{
	const char *cases[][2] = {
		{ "Tesla K80", "Tesla-K80" },
		{ "  Tesla   P100  ", "Tesla-P100" },
		{ "A100-SXM4-80GB", "A100-SXM4-80GB" },
		{ "GeForce GTX 1080 (Ti)", "GeForce-GTX-1080-Ti" },
		{ "NVIDIA A100 80GB PCIe", "NVIDIA-A100-80GB-PCIe" },
		{ "", "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = gpu_name_normalize(cases[i][0]);

		CHECK_STR(got, cases[i][1]);
		free(got);
	}
}

static int resolves_to(const char *text, json_type type)
{
	json_t *v = yaml_resolve_plain(text, strlen(text));
	int ok = v && json_typeof(v) == type;

	json_decref(v);
	return ok;
}

TEST(core_yaml_scalars)
{
	json_t *v;

	CHECK(resolves_to("", JSON_NULL));
	CHECK(resolves_to("~", JSON_NULL));
	CHECK(resolves_to("null", JSON_NULL));
	CHECK(resolves_to("true", JSON_TRUE));
	CHECK(resolves_to("yes", JSON_TRUE));
	CHECK(resolves_to("Off", JSON_FALSE));
	CHECK(resolves_to("12", JSON_INTEGER));
	CHECK(resolves_to("-3", JSON_INTEGER));
	CHECK(resolves_to("1.5", JSON_REAL));
	CHECK(resolves_to("1e3", JSON_REAL));
	CHECK(resolves_to("Tesla K80", JSON_STRING));
	CHECK(resolves_to("1.2.3", JSON_STRING));
	CHECK(resolves_to("500m", JSON_STRING));
	CHECK(resolves_to(".inf", JSON_STRING));
	v = yaml_resolve_plain("0x1F", 4);
	CHECK(json_integer_value(v) == 31);
	json_decref(v);
	v = yaml_resolve_plain("0755", 4);
	CHECK(json_integer_value(v) == 493);
	json_decref(v);
	v = yaml_resolve_plain("1_000", 5);
	CHECK(json_integer_value(v) == 1000);
	json_decref(v);
}

static json_t *parse(const char *text, struct source_node **root)
{
	struct source_error err;

	return source_parse_one(text, strlen(text), NULL, root, &err);
}

TEST(core_source_positions)
{
	/* a BOM, UTF-8 before a key, CRLF: columns count characters */
	const char *text = "\xEF\xBB\xBF" "a: \xC3\xA9t\xC3\xA9\r\n"
			   "b:\r\n  - x\r\n  - {c: \"d\"}\r\n";
	struct source_node *root;
	json_t *doc = parse(text, &root);
	int line, column;

	CHECK(doc != NULL);
	source_locate(root, "/b/1/c", &line, &column);
	CHECK(line == 4 && column == 6);
	source_locate(root, "/b/0", &line, &column);
	CHECK(line == 3 && column == 5);
	/* a missing path names its deepest existing ancestor */
	source_locate(root, "/b/1/nope", &line, &column);
	CHECK(line == 4);
	CHECK(root->children[0].node->start == 6);
	CHECK(memcmp(text + root->children[0].node->start, "\xC3\xA9t\xC3\xA9", 5) == 0);
	CHECK(root->children[0].node->end == 11);
	CHECK(memcmp(text + root->children[1].node->children[1].node->children[0].node->start,
		     "\"d\"", 3) == 0);
	json_decref(doc);
	source_node_free(root);
}

TEST(core_source_errors)
{
	struct source_error err;
	json_t *doc;

	doc = source_parse_one("a: 1\na: 2\n", 10, NULL, NULL, &err);
	CHECK(doc == NULL && err.line == 2 && strstr(err.message, "duplicate"));
	doc = source_parse_one("a: [1, 2\n", 9, NULL, NULL, &err);
	CHECK(doc == NULL && err.line > 0);
	{
		struct source_limits lim = { .max_depth = 3 };

		doc = source_parse_one("a: {b: {c: {d: 1}}}", 19, &lim, NULL, &err);
		CHECK(doc == NULL && strstr(err.message, "nesting"));
	}
	{
		struct source_limits lim = { .max_alias_nodes = 10 };
		const char *t = "a: &a [1,2,3,4,5]\nb: [*a, *a, *a]\n";

		doc = source_parse_one(t, strlen(t), &lim, NULL, &err);
		CHECK(doc == NULL && strstr(err.message, "alias"));
	}
	doc = source_parse_one("a: \xff\n", 5, NULL, NULL, &err);
	CHECK(doc == NULL);
	doc = source_parse_one("base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n",
			       41, NULL, NULL, &err);
	CHECK(doc && json_integer_value(json_pointer_get(doc, "/m/x")) == 1 &&
	      json_integer_value(json_pointer_get(doc, "/m/y")) == 3);
	json_decref(doc);
}

/* source_parser_set_need(): every document sparse, keeping what
 * sparse_list names (a pod's kind, and its containers' images) */
static const struct rules_read sparse_list[] = {
	{ "kind", 4, 1 }, { "spec", 4, 0 }, { "containers", 10, 0 },
	{ "image", 5, 1 }, { NULL, 0, 0 }
};

static int sparse_need(void *arg, const char *text, size_t len,
		       const struct rules_read **keep)
{
	(void)text;
	(void)len;
	*keep = sparse_list;
	return *(int *)arg;
}

/* The first document of `text` read with `need` answering `answer`; its
 * json as compact text in `out` (or the error's line and message). */
static int read_first(const char *text, int answer, char *out, size_t cap,
		      int *sparse)
{
	struct source_parser *p = source_parser_new(text, strlen(text), NULL);
	struct source_error err;
	struct source_doc doc;
	int rc;

	source_parser_set_tree(p, 0);
	source_parser_set_need(p, sparse_need, &answer);
	rc = source_next_doc(p, &doc, &err);
	if (rc > 0) {
		char *t = json_dumps(doc.json, JSON_COMPACT | JSON_SORT_KEYS |
						 JSON_ENCODE_ANY);

		snprintf(out, cap, "%s", t ? t : "?");
		free(t);
		*sparse = doc.sparse;
		source_doc_clear(&doc);
	} else {
		snprintf(out, cap, "%d: %s", err.line, err.message);
	}
	source_parser_free(p);
	return rc;
}

TEST(core_source_sparse)
{
	char out[512];
	int sparse = -1;

	/* only the members the list names, from the root down */
	CHECK(read_first("kind: Pod\nspec:\n  containers:\n"
			 "  - {name: c, image: x, env: [{name: a}]}\n"
			 "metadata: {labels: {a: b}}\n", 0, out, sizeof(out),
			 &sparse) == 1);
	CHECK_STR(out, "{\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"image\":\"x\"}]}}");
	CHECK(sparse == 1);
	/* read in full when need() wants it */
	CHECK(read_first("kind: Pod\nx: 1\n", 1, out, sizeof(out),
			 &sparse) == 1);
	CHECK_STR(out, "{\"kind\":\"Pod\",\"x\":1}");
	CHECK(sparse == 0);
	/* a containers member left out: the document is read in full */
	CHECK(read_first("kind: Pod\nother:\n  containers: [{image: z}]\n",
			 0, out, sizeof(out), &sparse) == 1);
	CHECK_STR(out, "{\"kind\":\"Pod\",\"other\":{\"containers\":[{\"image\":\"z\"}]}}");
	CHECK(sparse == 0);
	/* an anchor or alias: read in full at once, when its text shows one,
	 * or (a directive before the --- line hid it) from its start when it
	 * comes, with the errors of that second reading in their places */
	CHECK(read_first("kind: &k Pod\nx: *k\n", 0, out, sizeof(out),
			 &sparse) == 1);
	CHECK_STR(out, "{\"kind\":\"Pod\",\"x\":\"Pod\"}");
	CHECK(sparse == 0);
	CHECK(read_first("%YAML 1.1\n---\nkind: &k Pod\nx: *k\n", 0, out,
			 sizeof(out), &sparse) == 1);
	CHECK_STR(out, "{\"kind\":\"Pod\",\"x\":\"Pod\"}");
	CHECK(sparse == 0);
	CHECK(read_first("%YAML 1.1\n---\nkind: &k Pod\nx: *j\n", 0, out,
			 sizeof(out), &sparse) < 0);
	CHECK_STR(out, "4: unknown alias 'j'");
	/* what is left out is checked all the same: a duplicate key in a
	 * mapping nothing is kept of, in the parser's own records (past 16
	 * keys, a table) */
	CHECK(read_first("kind: Pod\nlabels: {a: 1, b: 2, a: 3}\n", 0, out,
			 sizeof(out), &sparse) < 0);
	CHECK_STR(out, "2: duplicate key 'a'");
	{
		char big[1024];
		size_t n = (size_t)snprintf(big, sizeof(big), "kind: Pod\nl:\n");

		for (int i = 0; i < 40; i++)
			n += (size_t)snprintf(big + n, sizeof(big) - n,
					      "  k%d: v\n", i);
		snprintf(big + n, sizeof(big) - n, "  k33: again\n");
		CHECK(read_first(big, 0, out, sizeof(out), &sparse) < 0);
		CHECK_STR(out, "43: duplicate key 'k33'");
		big[n] = '\0';
		CHECK(read_first(big, 0, out, sizeof(out), &sparse) == 1);
		CHECK_STR(out, "{\"kind\":\"Pod\"}");
	}
}

/* source_reads_as() against source_parse_one(): `text` read as the json
 * of `as` (NULL: as itself) */
static int reads_as(const char *text, const char *as)
{
	struct source_error err;
	json_t *want = source_parse_one(as ? as : text,
					strlen(as ? as : text), NULL, NULL,
					&err);
	int same = want && source_reads_as(text, strlen(text), NULL, want);

	json_decref(want);
	return same;
}

TEST(core_source_reads_as)
{
	/* what reads the same: any order of keys, tags, styles, anchors */
	CHECK(reads_as("a: 1\nb: [x, {c: true}]\n", NULL));
	CHECK(reads_as("b: [x, {c: true}]\na: 1\n", "a: 1\nb: [x, {c: true}]"));
	CHECK(reads_as("a: !!str 1\nb: 'x'\nc: |\n  t\n", "{a: '1', b: x, c: \"t\\n\"}"));
	CHECK(reads_as("a: &x {b: 1}\nc: *x\nd:\n  <<: *x\n", "{a: {b: 1}, c: {b: 1}, d: {b: 1}}"));
	CHECK(reads_as("a: \"x\"\nb: yes\nc: !!int '7'\nd: .5\n", "{a: x, b: true, c: 7, d: 0.5}"));
	CHECK(reads_as("", "null"));
	CHECK(reads_as("---\n", "~"));
	CHECK(reads_as("[]", NULL));
	CHECK(reads_as("{}", NULL));
	/* what does not: a value, a type, a key more or less, a longer or
	 * shorter list, a nested difference, a second document */
	CHECK(!reads_as("a: 2\n", "a: 1"));
	CHECK(!reads_as("a: '1'\n", "a: 1"));
	CHECK(!reads_as("a: xy\n", "a: x"));
	CHECK(!reads_as("a: x\n", "a: [x]"));
	CHECK(!reads_as("a: 'no'\n", "a: false"));
	CHECK(!reads_as("a: 1\nb: 2\n", "a: 1"));
	CHECK(!reads_as("a: 1\n", "{a: 1, b: 2}"));
	CHECK(!reads_as("a: [1, 2]\n", "a: [1]"));
	CHECK(!reads_as("a: [1]\n", "a: [1, 2]"));
	CHECK(!reads_as("a: {b: [x, {c: 1}]}\n", "a: {b: [x, {c: 2}]}"));
	CHECK(!reads_as("a: {b: 1}\n", "a: [b]"));
	CHECK(!reads_as("a: [b]\n", "a: {b: 1}"));
	CHECK(!reads_as("a: 1\n---\na: 1\n", "a: 1"));
	CHECK(!reads_as("", "a: 1"));
	CHECK(!reads_as("a: 1\n", "null"));
	/* a duplicate key, though each value is what is wanted */
	CHECK(!reads_as("a: 1\nb: 1\na: 1\n", "{a: 1, b: 1}"));
	CHECK(!reads_as("a: 1\na: 1\n", "{a: 1, b: 1}"));
	/* text that does not parse */
	CHECK(!reads_as("a: [1\n", "a: [1]"));
	/* anchors that differ, read in full */
	CHECK(!reads_as("a: &x {b: 1}\nc: *x\n", "{a: {b: 1}, c: {b: 2}}"));
}

static char *render(json_t *v, int style, enum emit_context ctx)
{
	struct buf b;

	buf_init(&b, 0);
	emit_scalar(&b, v, style, ctx);
	json_decref(v);
	return buf_detach(&b, NULL);
}

TEST(core_emit_quoting)
{
	const char *cases[][2] = {
		{ "Tesla-K80", "Tesla-K80" },
		{ "true", "\"true\"" },
		{ "1", "\"1\"" },
		{ "a: b", "\"a: b\"" },
		{ "# x", "\"# x\"" },
		{ "", "\"\"" },
		{ "yes", "\"yes\"" },
		{ "nvidia.com/gpu", "nvidia.com/gpu" },
		{ "line\nbreak", "\"line\\nbreak\"" },
		{ "-x", "-x" },
		{ "- x", "\"- x\"" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = render(json_string(cases[i][0]),
				   YAML_ANY_SCALAR_STYLE, EMIT_BLOCK);

		CHECK_STR(got, cases[i][1]);
		free(got);
	}
	{
		char *got = render(json_string("it's"),
				   YAML_SINGLE_QUOTED_SCALAR_STYLE, EMIT_BLOCK);

		CHECK_STR(got, "'it''s'");
		free(got);
		got = render(json_string("a,b"), YAML_ANY_SCALAR_STYLE, EMIT_FLOW);
		CHECK_STR(got, "\"a,b\"");
		free(got);
		got = render(json_string("x"), YAML_ANY_SCALAR_STYLE, EMIT_JSON);
		CHECK_STR(got, "\"x\"");
		free(got);
	}
	/* NEL, U+2028 and U+2029 break lines in YAML, inside quotes too:
	 * escaped, whatever style was asked, and read back as they were */
	{
		const char *breaks[] = { "a \xc2\x85", "\xe2\x80\xa8" "b",
					 "c\xe2\x80\xa9" "d" };
		const char *want[] = { "\"a \\u0085\"", "\"\\u2028b\"",
				       "\"c\\u2029d\"" };
		int styles[] = { YAML_ANY_SCALAR_STYLE,
				 YAML_SINGLE_QUOTED_SCALAR_STYLE,
				 YAML_DOUBLE_QUOTED_SCALAR_STYLE };

		for (size_t i = 0; i < 3; i++)
			for (size_t k = 0; k < 3; k++) {
				struct source_error err;
				char *got = render(json_string(breaks[i]),
						   styles[k], EMIT_BLOCK);
				json_t *back = got ?
					source_parse_one(got, strlen(got), NULL,
							 NULL, &err) : NULL;

				CHECK_STR(got, want[i]);
				CHECK(back && !strcmp(json_string_value(back),
						      breaks[i]));
				json_decref(back);
				free(got);
			}
	}
}

TEST(core_emit_block)
{
	json_t *v = json_loads("{\"a\":{\"b\":[{\"c\":1,\"d\":[]},\"e\"]},\"f\":{}}",
			       0, NULL);
	struct buf b;
	json_t *back;
	struct source_error err;

	buf_init(&b, 0);
	CHECK(emit_document(&b, v, 0, 0) == 0);
	CHECK_STR(b.data, "a:\n  b:\n    - c: 1\n      d: []\n    - e\nf: {}\n");
	back = source_parse_one(b.data, b.len, NULL, NULL, &err);
	CHECK(back && json_equal(back, v));
	json_decref(back);
	buf_reset(&b);
	CHECK(emit_document(&b, v, 0, 1) == 0);
	CHECK_STR(b.data, "a:\n  b:\n  - c: 1\n    d: []\n  - e\nf: {}\n");
	buf_free(&b);
	json_decref(v);
}

TEST(core_default_config_file_loads_to_defaults)
{
	const char *text = config_default_yaml();
	struct source_error err;
	struct rules_error rerr;
	json_t *doc = source_parse_one(text, strlen(text), NULL, NULL, &err);
	struct config *loaded = config_new_default(), *defaults = config_new_default();
	json_t *a, *b;

	CHECK(doc != NULL);
	/* start from a changed config: the file must set everything back */
	loaded->strategy = SHARING_HAMI;
	loaded->mode[RULE_GPU_VISIBILITY] = RULE_MODE_MUTATE;
	CHECK(config_apply(loaded, doc, &rerr) == 0);
	a = config_to_json(loaded);
	b = config_to_json(defaults);
	CHECK(a && b && json_equal(a, b));
	json_decref(a);
	json_decref(b);
	json_decref(doc);
	config_free(loaded);
	config_free(defaults);
}

TEST(core_config_rule_mode_short_form)
{
	struct config *cfg = config_new_default();
	struct rules_error err;
	json_t *doc = json_loads("{\"rules\": {\"gpu-visibility\": \"mutate\","
				 " \"obsolete-cuda-hostpath\": false}}", 0, NULL);

	CHECK(config_apply(cfg, doc, &err) == 0);
	CHECK(cfg->mode[RULE_GPU_VISIBILITY] == RULE_MODE_MUTATE);
	CHECK(cfg->mode[RULE_OBSOLETE_CUDA_HOSTPATH] == RULE_MODE_OFF);
	json_decref(doc);
	doc = json_loads("{\"rules\": {\"removed-gpu-feature-gate\": \"mutate\"}}",
			 0, NULL);
	CHECK(config_apply(cfg, doc, &err) == -1);
	CHECK_STR(err.pointer, "/rules/removed-gpu-feature-gate");
	json_decref(doc);
	config_free(cfg);
}

/* json_text_new's compact writer gives jansson's own output, byte for byte. */
TEST(core_compact_text_is_janssons)
{
	char all_controls[0x21];
	json_t *values[8];
	size_t n = 0;

	for (int c = 1; c <= 0x20; c++)
		all_controls[c - 1] = (char)c;
	all_controls[0x20] = '\0';
	values[n++] = json_pack("{s:s, s:s, s:s, s:[i, I, I, f, b, b, n], s:{}, s:[]}",
				"controls", all_controls,
				"quotes", "a\"b\\c/d\x7f",
				"utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
				"numbers", 0, (json_int_t)-9223372036854775807LL - 1,
				(json_int_t)9223372036854775807LL, 0.1, 1, 0,
				"empty-object", "empty-array");
	values[n++] = json_stringn("nul\0inside", 10);
	values[n++] = json_string("");
	values[n++] = json_real(1e300);
	values[n++] = json_pack("[[[{s:[{}]}]]]", "\t");
	/* a key holding a NUL is written whole (fuzz: "resources\u0000") */
	values[n] = json_object();
	if (json_object_setn_new(values[n], "resources\0", 10, json_true())) {
		json_decref(values[n]);
		values[n] = NULL;
	}
	n++;
	for (size_t i = 0; i < n; i++) {
		char *mine, *theirs;

		CHECK(values[i] != NULL);
		if (!values[i])
			continue;
		mine = json_text_new(values[i], JSON_COMPACT);
		theirs = json_dumps(values[i], JSON_COMPACT | JSON_ENCODE_ANY);
		CHECK_STR(mine, theirs);
		free(mine);
		free(theirs);
		mine = json_text_new(values[i], JSON_COMPACT | JSON_REAL_PRECISION(6));
		theirs = json_dumps(values[i], JSON_COMPACT | JSON_ENCODE_ANY |
						       JSON_REAL_PRECISION(6));
		CHECK_STR(mine, theirs);
		free(mine);
		free(theirs);
		json_decref(values[i]);
	}
}

/* A word of 0 to size - 1 bytes of `alphabet`, from the generator *seed. */
static void random_word(char *out, size_t size, const char *alphabet,
			unsigned *seed)
{
	size_t len, n = strlen(alphabet);

	*seed = *seed * 1103515245 + 12345;
	len = (*seed >> 16) % size;
	for (size_t k = 0; k < len; k++) {
		*seed = *seed * 1103515245 + 12345;
		out[k] = alphabet[(*seed >> 16) % n];
	}
	out[len] = '\0';
}

/* pattern_match() answers as fnmatch(3) with flags 0 does */
TEST(core_pattern_match)
{
	static const char *const patterns[] = {
		"", "*", "**", "?", "a", "a*", "*a", "*a*", "a*b", "a?b",
		"*nvidia/k8s-device-plugin*", "nvidia/k8s-device-plugin:1.*",
		"*/nvidia/cuda:*", "*:*-gpu", "*:*-gpu-*", "nvcr.io/*",
		"a**b*", "*?", "?*?", "*ab*ab", "a*?b*?", "*b*?*a", "**a**",
		"[ab]*", "a\\*", "/usr/*/lib",
	};
	static const char *const texts[] = {
		"", "a", "b", "ab", "aab", "abab", "aXb", "a*", "a/b",
		"nvidia/k8s-device-plugin:1.0.0-beta4",
		"docker.io/nvidia/k8s-device-plugin:v0.14.1",
		"nvidia/k8s-device-plugin:1.11", "reg/nvidia/cuda:11.0-base",
		"img:1.2-gpu", "img:1.2-gpu-py3", "nvcr.io/nvidia/pytorch:24.01",
		"xabyab", "abb", "/usr/local/lib", "/usr/lib", "\xc3\xa9-a",
	};

	for (size_t p = 0; p < sizeof(patterns) / sizeof(*patterns); p++)
		for (size_t t = 0; t < sizeof(texts) / sizeof(*texts); t++)
			CHECK(pattern_match(patterns[p], texts[t]) ==
			      (fnmatch(patterns[p], texts[t], 0) == 0));
	/* and short random ones over a small alphabet */
	for (unsigned i = 0, seed = 17; i < 20000; i++) {
		char pattern[8], text[8];

		random_word(pattern, sizeof(pattern), "ab*?/", &seed);
		random_word(text, sizeof(text), "ab/", &seed);
		CHECK(pattern_match(pattern, text) ==
		      (fnmatch(pattern, text, 0) == 0));
	}
}

/*
 * The byte-pair filter never rules out a text a pattern matches: with a
 * list's pairs, string_list_match() and text_map_match() answer as
 * pattern_match() does alone.
 */
TEST(core_pattern_pairs)
{
	static const char *const patterns[] = {
		"*nvidia/k8s-device-plugin*", "nvidia/k8s-device-plugin:1.*",
		"*/nvidia/cuda:*", "*:*-gpu", "*:*-gpu-*", "nvcr.io/*", "a?b",
		"[ab]*", "a\\*", "*", "", "ab", "?a?b*c",
	};
	char *items[sizeof(patterns) / sizeof(*patterns)];
	uint64_t pairs[sizeof(patterns) / sizeof(*patterns)];
	struct text_pair map_items[sizeof(patterns) / sizeof(*patterns)];
	size_t n = sizeof(patterns) / sizeof(*patterns);
	unsigned ruled_out = 0;

	for (size_t p = 0; p < n; p++) {
		items[p] = (char *)patterns[p];
		map_items[p].key = (char *)patterns[p];
		map_items[p].value = (char *)"v";
		pairs[p] = pattern_pairs(patterns[p]);
	}
	/* brackets and escapes are not filtered; literal parts are */
	CHECK(pattern_pairs("[ab]*") == 0 && pattern_pairs("a\\*") == 0);
	CHECK(pattern_pairs("*") == 0 && pattern_pairs("a?b") == 0);
	CHECK(pattern_pairs("ab") != 0);
	CHECK(pattern_pairs("*nvidia*") == text_pairs("nvidia"));
	for (unsigned i = 0, seed = 29; i < 40000; i++) {
		char text[12];
		struct string_list one = { &items[i % n], 1, &pairs[i % n] };
		struct string_list plain = { &items[i % n], 1, NULL };
		struct text_map map = { map_items, n, pairs };
		const struct text_pair *first = NULL;
		int match;

		random_word(text, sizeof(text), i % 2 ? "ab?/:-gpu" :
				  "nvidia/k8s-device-plugin:1.", &seed);
		match = pattern_match(patterns[i % n], text);
		if (match)
			CHECK((pairs[i % n] & ~text_pairs(text)) == 0);
		else if (pairs[i % n] & ~text_pairs(text))
			ruled_out++;
		CHECK(string_list_match(&one, text) == match);
		CHECK(string_list_match(&plain, text) == match);
		for (size_t p = 0; p < n && !first; p++)
			if (pattern_match(patterns[p], text))
				first = &map_items[p];
		CHECK(text_map_match(&map, text) == first);
	}
	/* and it does rule out most texts */
	CHECK(ruled_out > 10000);
}

TEST(core_nul_encoding)
{
	static const char text[] =
		"{\"a\\u0000\":\"x\\u0000y\\ufdd0\\uFDD0z\xef\xb7\x90\","
		"\"b\":\"\\\\u0000\"}";
	json_t *sent, *seen;
	size_t len;
	char *encoded, *shown, *dumped;

	/* a real escape, not an escaped backslash before "u0000" */
	CHECK(nul_text_has("\"\\u0000\"", 8));
	CHECK(!nul_text_has("\"\\\\u0000\"", 9));
	CHECK(nul_text_has("\"\\\\\\u0000\"", 10));
	CHECK(!nul_text_has("\"u0000\"", 7));
	CHECK(nul_text_has("\\n\\\\\\u0000", 10));
	CHECK(!nul_text_has("\\u0000", 5));
	CHECK(!nul_text_has("\\u0001\\\\", 8));
	CHECK(nul_text_has("\\\\\\\\\\u0000", 10));

	encoded = nul_text_encode(text, strlen(text), &len);
	CHECK(encoded && strlen(encoded) == len);
	/* what is read encoded holds no NUL, and decodes to what was sent */
	sent = json_loadb(text, strlen(text), JSON_ALLOW_NUL, NULL);
	seen = encoded ? json_loadb(encoded, len, 0, NULL) : NULL;
	CHECK(sent == NULL); /* jansson refuses the NUL in a key */
	CHECK(seen != NULL);
	if (seen) {
		const char *x = json_string_value(json_object_get(seen,
			"a\xef\xb7\x90\xef\xb7\x91"));

		CHECK(x && !strcmp(x, "x\xef\xb7\x90\xef\xb7\x91y"
				       "\xef\xb7\x90\xef\xb7\x90"
				       "\xef\xb7\x90\xef\xb7\x90z"
				       "\xef\xb7\x90\xef\xb7\x90"));
		CHECK(nul_json_decode(seen) == 0);
		CHECK(json_string_length(json_object_getn(seen, "a\0", 2)) ==
		      4 + 3 * 3);
		dumped = json_dumps(seen, JSON_COMPACT | JSON_ENSURE_ASCII);
		CHECK_STR(dumped, "{\"a\\u0000\":\"x\\u0000y\\uFDD0\\uFDD0z\\uFDD0\","
				  "\"b\":\"\\\\u0000\"}");
		free(dumped);
		/* and again: encode the decoded value, decode the text */
		CHECK(nul_json_encode(seen) == 1);
		dumped = json_dumps(seen, JSON_COMPACT);
		if (dumped)
			nul_text_decode(dumped);
		shown = dumped;
		CHECK(shown && strstr(shown, "x\\u0000y\xef\xb7\x90\xef\xb7\x90z"));
		free(dumped);
	}
	json_decref(seen);
	free(encoded);
}

/* The string at `key` of the one document in `yaml`, as read. */
static char *read_string(const char *yaml, const char *key)
{
	struct source_error err;
	json_t *doc = source_parse_one(yaml, strlen(yaml), NULL, NULL, &err);
	const char *value = json_string_value(json_object_get(doc, key));
	char *copy = value ? strdup(value) : NULL;

	json_decref(doc);
	return copy;
}

TEST(core_surrogate_pairs)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
		/* JSON's escapes of a character past U+FFFF, as kubectl reads */
		{ "{\"a\": \"x\\ud83d\\ude00y\"}", "x\xf0\x9f\x98\x80y" },
		{ "{\"a\": \"\\uD83D\\uDE00\\udbff\\udfff\"}",
		  "\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf" },
		{ "a: \"\\\\\\ud83d\\ude00\"\n", "\\\xf0\x9f\x98\x80" },
		/* elsewhere the escape is text, and stays as written */
		{ "a: x\\ud83d\\uDe00\n", "x\\ud83d\\uDe00" },
		{ "a: 'q\\uD83D\\udE00'\n", "q\\uD83D\\udE00" },
		{ "a: |\n  echo \"\\ud83d\\ude00\"\n", "echo \"\\ud83d\\ude00\"\n" },
		/* the characters the digits are changed to, written as such */
		{ "{\"a\": \"\\ue800 \\uf000\"}", "\xee\xa0\x80 \xef\x80\x80" },
		/* ... and the text of their escapes, outside double quotes */
		{ "a: x\\ue800\\uf000\n", "x\\ue800\\uf000" },
		{ "a: \xee\xa0\x80\xef\x80\x80\n", "\xee\xa0\x80\xef\x80\x80" },
		/* an escaped backslash's text in double quotes, by a pair */
		{ "{\"b\": \"\\ud83d\\ude00\", \"a\": \"\\\\ue800\\\\uf000\"}",
		  "\\ue800\\uf000" },
		/* a plain scalar's escape text, after a pair was read */
		{ "{\"b\": \"\\ud83d\\ude00\", \"a\": x\\ud83d\\ude00}",
		  "x\\ud83d\\ude00" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = read_string(cases[i].yaml, "a");

		CHECK_STR(got, cases[i].want);
		free(got);
	}
	/* half a pair is still refused */
	CHECK(read_string("{\"a\": \"\\ud83d\"}", "a") == NULL);
	CHECK(read_string("{\"a\": \"\\\\\\\\ud83d\\ude00\"}", "a") == NULL);
}

/* 1 when the light reads `reads` name `token[0..len)`, not whole. */
static int reads_name(const struct rules_read *reads, const char *token,
		      size_t len)
{
	for (; reads->key; reads++)
		if (reads->len == len && !memcmp(reads->key, token, len) &&
		    !reads->whole)
			return 1;
	return 0;
}

/* Each member of `text` split at `sep` ("*" aside) is one that the light
 * reads name. */
static int reads_name_all(const struct rules_read *reads, const char *text,
			  char sep)
{
	while (*text) {
		size_t len = strcspn(text, sep == '.' ? "." : "/");

		if (!(len == 1 && *text == '*') &&
		    !reads_name(reads, text, len))
			return 0;
		text += len + (text[len] != '\0');
	}
	return 1;
}

/* A light read (rules_reads()) keeps every member on the way to the pod
 * specs of other forms that pod_shapes.c places, to their containers and
 * to the containers those start from: it gives up only on a
 * "containers" member it leaves out. */
TEST(core_light_reads_lead_to_every_pod_shape)
{
	const struct rules_read *reads = rules_reads(1u << RULE_GPU_VISIBILITY);
	const struct pod_shape *shapes;
	size_t n, forms = 0, bases = 0;

	shapes = rules_pod_shapes(&n);
	CHECK(reads != NULL);
	for (size_t i = 0; reads && i < n; i++) {
		const struct pod_form *form = shapes[i].form;

		if (!form)
			continue;
		forms++;
		for (size_t p = 0; p < 4 && shapes[i].paths[p]; p++)
			CHECK(reads_name_all(reads, shapes[i].paths[p], '.'));
		for (size_t m = 0; m < sizeof(form->members) /
				   sizeof(*form->members) &&
		     form->members[m].path; m++)
			CHECK(reads_name_all(reads, form->members[m].path, '/'));
		/* and to the containers theirs start from, "../" aside */
		for (size_t b = 0; b < sizeof(form->bases) /
				   sizeof(*form->bases) &&
		     form->bases[b].member; b++) {
			const char *base = form->bases[b].base;

			while (strncmp(base, "../", 3) == 0)
				base += 3;
			CHECK(reads_name_all(reads, base, '/'));
			bases++;
		}
	}
	CHECK(forms >= 4);
	CHECK(bases >= 2);
}
