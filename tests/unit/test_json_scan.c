/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_json_scan.c - the webhook's prefilter and one-pass reader: what
 * they read must be what jansson reads, and they must see every trigger.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "json_scan.h"
#include "rules.h"

/*
 * json_scan_read() either leaves `text` to jansson (NULL) or reads the
 * very document jansson reads; it never accepts what jansson refuses.
 * Returns 1 when it read the text itself.
 */
static int read_like_jansson(const char *text, size_t len, int *failures)
{
	json_t *theirs = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	int depth = -1;
	json_t *mine = json_scan_read(text, len, NULL, &depth, NULL);
	int read = mine != NULL;

	if (mine) {
		char *a = json_text_new(mine, JSON_COMPACT);
		char *b = theirs ? json_text_new(theirs, JSON_COMPACT) : NULL;

		if (!b)
			fprintf(stderr, "  accepted what jansson refuses: %.*s\n",
				(int)len, text);
		CHECK(b != NULL);
		if (b)
			CHECK_STR(a, b);
		CHECK(depth >= 1);
		free(a);
		free(b);
	} else {
		CHECK(depth == 0);
	}
	json_decref(mine);
	json_decref(theirs);
	return read;
}

TEST(json_scan_reads_like_jansson)
{
	static const char *const same[] = {
		"{}",
		" \t\r\n{ \"a\" : [ 1 , -2 , 0 , -0 , true , false , null ] }\n",
		"{\"s\":\"caf\\u00e9 \\ud83d\\ude00 \\\" \\\\ \\/ \\b\\f\\n\\r\\t\"}",
		"{\"\\u0061\":1,\"b\":{\"c\":[[[]]],\"d\":{}}}",
		"{\"utf8\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}",
		"{\"n\":123456789012345}",
		/* pretty-printed gaps: a line break and spaces, then more
		 * blanks of other kinds, long and short */
		"{\"a\": 1,\n      \t  \"b\": [\n                    2,\n  3\r\n"
		"   ],\n\n                       \"c\": {}\n}\n                  ",
	};
	static const char *const refused_or_left[] = {
		"", " ", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{,}",
		"{\"a\":1 \"b\":2}", "[1,]", "{\"a\":01}", "{\"a\":1.}",
		"{\"a\":-}", "{\"a\":+1}", "{\"a\":1e5}", "{\"a\":1.5}",
		"{\"a\":1234567890123456}", "{\"a\":99999999999999999999}",
		"{\"a\":tru}", "{\"a\":truex}", "{\"a\":nul}", "{\"a\":1} x",
		"{\"a\":1}{}", "{\"a\":\"\\u0000\"}", "{\"a\":\"\\ud800\"}",
		"{\"a\":\"\\udc00\"}", "{\"a\":\"\\ud800\\u0041\"}",
		"{\"a\":\"\\x41\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\t\"}",
		"{\"a\":\"\xc0\xaf\"}", "{\"a\":\"\xed\xa0\x80\"}",
		"{\"a\":\"\xf4\x90\x80\x80\"}", "{\"a\":\"\xe2\x82\"}",
		"{\"a\":\"\x80\"}", "{\"a\":1,\"a\":2}",
		"{\"a\":1,\"\\u0061\":2}", "\xef\xbb\xbf{}",
		"{\"a\":\"unterminated}", "{\"a\":\"x\\", "[1]",
		/* the text ends where a blank could be (read past its end
		 * once: make check's sanitizer sees it) */
		"{\"a\"", "{\"a\":1", "{\"a\":1,", "{\"a\":[1",
		/* a vertical tab after a line break and spaces */
		"{\"a\":1,\n   \x0b  \"b\":2, \"c\":\"padding padding\"}",
	};
	char deep[2000];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		CHECK(read_like_jansson(same[i], strlen(same[i]), failures));
	for (size_t i = 0; i < sizeof(refused_or_left) / sizeof(refused_or_left[0]); i++)
		CHECK(!read_like_jansson(refused_or_left[i],
					 strlen(refused_or_left[i]), failures));
	/* a NUL inside the text, given by length */
	CHECK(!read_like_jansson("{\"a\":\"\0\"}", 9, failures));
	CHECK(!read_like_jansson("{\"a\":1}\0", 8, failures));
	/* 300 levels: left to jansson, which reads up to 2048 */
	for (int i = 0; i < 300; i++) {
		memcpy(deep + n, "{\"a\":", 5);
		n += 5;
	}
	deep[n++] = '1';
	for (int i = 0; i < 300; i++)
		deep[n++] = '}';
	CHECK(!read_like_jansson(deep, n, failures));
	/* 200 levels: read, and the depth is right */
	{
		int depth = 0;
		size_t skip = 100 * 5;
		json_t *v = json_scan_read(deep + skip, n - skip - 100, NULL,
					   &depth, NULL);

		CHECK(v != NULL && depth == 200);
		json_decref(v);
	}
}

/*
 * json_scan_review() accepts what json_scan_read() accepts, builds what
 * the webhook reads (the object and the object stored whole, as jansson
 * reads them), and its tape records what it builds.
 */
TEST(json_scan_review_read)
{
	static const char *const texts[] = {
		"{}", "{\"a\":1,\"a\":2}", "{\"a\":1,\"\\u0061\":2}", "[1]",
		"{\"request\":{\"a\":1.5}}", "{\"request\":{\"object\":{\"x\":1.5}}}",
		"{\"request\":{\"uid\":\"\\u0000\"}}", "{\"request\":[{\"object\":1}]}",
		"{\"request\":{\"object\":{\"a\":1,\"a\":1}}}", "{\"x\":{\"y\":tru}}",
	};
	static const char review[] =
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
		"\"request\":{\"uid\":\"u-1\",\"kind\":{\"group\":\"\",\"version\":\"v1\","
		"\"kind\":\"Pod\"},\"resource\":{\"resource\":\"pods\"},"
		"\"userInfo\":{\"username\":\"alpha.kubernetes.io\\/nvidia-gpu\","
		"\"groups\":[\"a\",\"b\"],\"extra\":{\"n\":[1,2,3]}},"
		"\"operation\":\"UPDATE\",\"namespace\":\"ns\",\"name\":\"p\","
		"\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
		"\"annotations\":{\"k\\u0065y\":\"v\\n\"}},\"spec\":{\"containers\":"
		"[{\"name\":\"c\",\"image\":\"nvidia/cuda:9.0\",\"ports\":[{\"containerPort\":80}]}]}},"
		"\"oldObject\":{\"kind\":\"Pod\",\"spec\":{\"containers\":[]}},"
		"\"dryRun\":false,\"options\":{\"kind\":\"UpdateOptions\"}}}";
	static const char *const object_path[] = { "request", "object", NULL };
	static const char *const old_path[] = { "request", "oldObject", NULL };
	static const char *const user_path[] = { "request", "userInfo", NULL };
	struct config *cfg = config_new_default();
	struct json_scan_filter *filter = json_scan_filter_new(cfg, 0);
	struct json_tape *tape = NULL;
	json_t *theirs, *mine, *request;
	unsigned rules = 0, read_rules = 0;
	int depth = 0, read_depth = 0;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		json_t *read = json_scan_read(texts[i], strlen(texts[i]), NULL,
					      &read_depth, NULL);

		mine = json_scan_review(texts[i], strlen(texts[i]), NULL,
					&depth, NULL, &tape);
		CHECK((mine != NULL) == (read != NULL));
		CHECK((tape != NULL) == (mine != NULL));
		CHECK(depth == read_depth);
		json_tape_free(tape);
		json_decref(read);
		json_decref(mine);
	}

	theirs = json_loads(review, JSON_REJECT_DUPLICATES, NULL);
	mine = json_scan_review(review, strlen(review), filter, &depth,
				&rules, &tape);
	CHECK(theirs && mine && tape);
	json_decref(json_scan_read(review, strlen(review), filter,
				   &read_depth, &read_rules));
	/* the escaped trigger in what is not built is still seen */
	CHECK(rules == read_rules && rules != 0);
	CHECK(depth == read_depth);
	request = json_object_get(mine, "request");
	CHECK(json_equal(json_object_get(request, "object"),
			 json_object_get(json_object_get(theirs, "request"),
					 "object")));
	CHECK(json_equal(json_object_get(request, "oldObject"),
			 json_object_get(json_object_get(theirs, "request"),
					 "oldObject")));
	CHECK_STR(json_string_value(json_object_get(request, "uid")), "u-1");
	CHECK_STR(json_string_value(json_object_get(request, "operation")),
		  "UPDATE");
	CHECK_STR(json_string_value(json_object_get(json_object_get(request,
								    "kind"),
						    "kind")), "Pod");
	CHECK(json_is_false(json_object_get(request, "dryRun")));
	CHECK(!json_object_get(request, "userInfo"));
	CHECK(!json_object_get(request, "options"));
	/* the tape: the object and the object stored as they came; what is
	 * not built is missing */
	CHECK(json_tape_equal(tape, object_path,
			      json_object_get(request, "object")) == 1);
	CHECK(json_tape_equal(tape, old_path,
			      json_object_get(request, "oldObject")) == 1);
	CHECK(json_tape_equal(tape, NULL, mine) == 1);
	CHECK(json_tape_equal(tape, user_path, json_null()) == 0);
	json_object_set_new(json_object_get(json_object_get(request, "object"),
					    "metadata"), "name",
			    json_string("q"));
	CHECK(json_tape_equal(tape, object_path,
			      json_object_get(request, "object")) == 0);
	json_tape_free(tape);
	json_decref(mine);
	json_decref(theirs);
	json_scan_filter_free(filter);
	config_free(cfg);
}

/* A review whose object holds `member` (JSON) in its first container. */
static char *review_with(const char *member)
{
	static const char fmt[] =
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
		"\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\",\"object\":"
		"{\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"name\":\"c\",%s}]}}}}";
	size_t len = sizeof(fmt) + strlen(member);
	char *text = malloc(len);

	snprintf(text, len, fmt, member);
	return text;
}

TEST(json_scan_prefilter_sees_escaped_triggers)
{
	struct config *cfg = config_new_default();
	struct json_scan_filter *filter = json_scan_filter_new(cfg, 0);
	static const struct {
		const char *member;
		enum rule_id rule;
	} hidden[] = {
		/* the legacy resource, behind \u and \/ escapes */
		{ "\"resources\":{\"limits\":{\"alpha.kubernetes.io\\/nvidia-gpu\":1}}",
		  RULE_LEGACY_GPU_RESOURCE },
		{ "\"resources\":{\"limits\":{\"alpha.kubernetes.io/nvidia\\u002dgpu\":1}}",
		  RULE_LEGACY_GPU_RESOURCE },
		{ "\"env\":[{\"name\":\"NVIDIA_VISIBLE_\\u0044EVICES\",\"value\":\"all\"}]",
		  RULE_GPU_VISIBILITY },
		{ "\"image\":\"nvidia\\/cuda:11.0\"", RULE_GPU_VISIBILITY },
	};
	static const char *const plain = "\"image\":\"nginx:1.25\"";

	CHECK(filter != NULL);
	for (size_t i = 0; filter && i < sizeof(hidden) / sizeof(hidden[0]); i++) {
		char *text = review_with(hidden[i].member);
		unsigned rules = json_scan_filter_rules(filter, text, strlen(text));
		int depth;
		json_t *read;

		/* the skeleton reader refuses a body with a hidden trigger */
		CHECK(json_scan_skeleton(filter, text, strlen(text), 100) == NULL);
		/* and the full reader reports whose trigger it is */
		read = json_scan_read(text, strlen(text), filter, &depth, &rules);
		CHECK(read != NULL && (rules >> hidden[i].rule & 1));
		json_decref(read);
		free(text);
	}
	if (filter) {
		char *text = review_with(plain);
		json_t *skeleton;

		CHECK(json_scan_filter_rules(filter, text, strlen(text)) == 0);
		skeleton = json_scan_skeleton(filter, text, strlen(text), 100);
		CHECK(skeleton != NULL);
		CHECK_STR(json_string_value(json_object_get(json_object_get(
				  skeleton, "request"), "uid")), "u");
		/* the object keeps its kind only */
		CHECK(json_object_size(json_object_get(json_object_get(
			      skeleton, "request"), "object")) == 1);
		json_decref(skeleton);
		/* nesting beyond the limit: read in full instead */
		CHECK(json_scan_skeleton(filter, text, strlen(text), 5) == NULL);
		free(text);
	}
	json_scan_filter_free(filter);
	config_free(cfg);
}

/* Rules in mode off have no triggers; the others keep theirs. */
TEST(json_scan_filter_follows_modes)
{
	struct config *cfg = config_new_default();
	struct json_scan_filter *filter;
	static const char text[] = "\"alpha.kubernetes.io/nvidia-gpu\"";
	unsigned rules;

	filter = json_scan_filter_new(cfg, 0);
	rules = filter ? json_scan_filter_rules(filter, text, strlen(text)) : 0;
	CHECK(rules >> RULE_LEGACY_GPU_RESOURCE & 1);
	json_scan_filter_free(filter);
	cfg->mode[RULE_LEGACY_GPU_RESOURCE] = RULE_MODE_OFF;
	filter = json_scan_filter_new(cfg, 0);
	rules = filter ? json_scan_filter_rules(filter, text, strlen(text)) : 1;
	CHECK(!(rules >> RULE_LEGACY_GPU_RESOURCE & 1));
	json_scan_filter_free(filter);
	config_free(cfg);
}

/* An offline-only rule's triggers do not make the webhook read a body: a
 * pod whose owner is an apps/v1 ReplicaSet holds "apps/v1", a trigger of
 * deprecated-workload-api, which the webhook never runs. */
TEST(json_scan_filter_leaves_out_offline_rules)
{
	struct config *cfg = config_new_default();
	struct json_scan_filter *filter = cfg ? json_scan_filter_new(cfg, 0) : NULL;
	static const char text[] =
		"{\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\"}]}";
	struct string_list own = { 0 };

	CHECK(filter != NULL);
	CHECK(cfg && rules_rule_triggers(cfg, RULE_DEPRECATED_WORKLOAD_API, &own) == 0);
	CHECK(own.n > 0 && strcmp(own.items[0], "apps/v1") == 0);
	if (filter)
		CHECK(json_scan_filter_rules(filter, text, strlen(text)) == 0);
	string_list_clear(&own);
	json_scan_filter_free(filter);
	config_free(cfg);
}

/* 1 when `needle` occurs in text[0..len). */
static int occurs(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; n <= len && i <= len - n; i++)
		if (memcmp(text + i, needle, n) == 0)
			return 1;
	return 0;
}

/* The rules whose triggers occur in text[0..len), the naive way: of the
 * rules the webhook runs (offline-only ones are not filtered for). */
static unsigned naive_rules(const struct config *cfg, const char *text,
			    size_t len)
{
	unsigned found = 0;

	for (int r = 0; r < RULE_COUNT; r++) {
		struct string_list list = { 0 };

		if (cfg->mode[r] == RULE_MODE_OFF ||
		    rule_info_get((enum rule_id)r)->offline_only)
			continue;
		if (rules_rule_triggers(cfg, (enum rule_id)r, &list) != 0)
			found |= 1u << r;
		for (size_t i = 0; i < list.n; i++)
			if (occurs(text, len, list.items[i]))
				found |= 1u << r;
		string_list_clear(&list);
	}
	return found;
}

/* The search finds every trigger wherever it is, as a naive one does. */
TEST(json_scan_filter_matches_naive_search)
{
	struct config *cfg = config_new_default();
	struct json_scan_filter *filter = json_scan_filter_new(cfg, 0);
	struct string_list all = { 0 };
	static const char alphabet[] = "abcdeio-_/.:\"{}gpunvcr";
	char text[300];
	unsigned seed = 12345;

	CHECK(filter != NULL && rules_triggers(cfg, &all) == 0 && all.n > 0);
	for (int round = 0; filter && all.n && round < 20000; round++) {
		size_t len = (seed = seed * 1103515245u + 12345u) % 200;

		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			text[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		/* most rounds plant a trigger (or its prefix) somewhere */
		seed = seed * 1103515245u + 12345u;
		if ((seed >> 16) % 4) {
			const char *t = all.items[(seed >> 8) % all.n];
			size_t tlen = strlen(t), at;

			if ((seed >> 20) % 5 == 0)
				tlen--;         /* all but its last byte */
			if (tlen <= len) {
				at = len == tlen ? 0 : (seed >> 4) % (len - tlen + 1);
				memcpy(text + at, t, tlen);
			}
		}
		if (json_scan_filter_rules(filter, text, len) !=
		    naive_rules(cfg, text, len)) {
			fprintf(stderr, "  filter and naive search differ on '%.*s'\n",
				(int)len, text);
			(*failures)++;
			break;
		}
	}
	string_list_clear(&all);
	json_scan_filter_free(filter);
	config_free(cfg);
}

/* A light read keeps what rules_reads() names and gives up where a pod
 * spec could hide in what it leaves out. */
TEST(json_scan_light_read)
{
	struct config *cfg = config_new_default();
	struct json_scan_filter *filter = json_scan_filter_new(cfg, 0);
	const struct rules_read *reads = rules_reads(1u << RULE_GPU_VISIBILITY);
	static const char pod[] =
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
		"\"request\":{\"uid\":\"u\",\"kind\":{\"group\":\"\",\"kind\":\"Pod\"},"
		"\"userInfo\":{\"username\":\"x\"},\"operation\":\"CREATE\","
		"\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
		"\"labels\":{\"a\":\"b\"}},\"spec\":{\"priority\":7,"
		"\"tolerations\":[{\"key\":\"k\"}],\"containers\":[{\"name\":\"c\","
		"\"image\":\"nvcr.io/x\",\"ports\":[{\"containerPort\":80}],"
		"\"resources\":{\"limits\":{\"cpu\":2}}}]}}}}";
	static const char hidden[] =
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
		"\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\","
		"\"object\":{\"kind\":\"Job\",\"spec\":{\"workers\":{\"template\":"
		"{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nvcr.io/x\"}]}}}}}}}";
	static const char twice[] =
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
		"\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\","
		"\"object\":{\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"name\":\"c\","
		"\"ports\":[],\"image\":\"nvcr.io/x\",\"ports\":[]}]}}}}";
	/* an Argo template: its one container is no "containers" member */
	static const char argo[] =
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
		"\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\","
		"\"object\":{\"apiVersion\":\"argoproj.io/v1alpha1\","
		"\"kind\":\"CronWorkflow\",\"spec\":{\"workflowSpec\":{"
		"\"templates\":[{\"name\":\"t\",\"container\":{\"image\":"
		"\"nvcr.io/x\"},\"script\":{\"image\":\"nvcr.io/y\"},"
		"\"sidecars\":[{\"image\":\"nvcr.io/z\"}],\"containerSet\":{"
		"\"containers\":[{\"image\":\"nvcr.io/w\"}]}}]}}}}}";
	unsigned rules = 1u << RULE_GPU_VISIBILITY;
	json_t *read, *request, *object, *spec, *container;
	int depth = 0;

	CHECK(filter != NULL && reads != NULL);
	CHECK(rules_reads(1u << RULE_LEGACY_GPU_RESOURCE |
			  1u << RULE_GPU_VISIBILITY) == NULL);
	if (!filter || !reads)
		goto out;
	read = json_scan_light(filter, pod, strlen(pod), reads, &depth, &rules);
	CHECK(read != NULL && depth == 8);
	request = json_object_get(read, "request");
	object = json_object_get(request, "object");
	spec = json_object_get(object, "spec");
	container = json_array_get(json_object_get(spec, "containers"), 0);
	CHECK(!json_object_get(request, "userInfo"));
	CHECK_STR(json_string_value(json_object_get(json_object_get(request,
						"kind"), "kind")), "Pod");
	CHECK(!json_object_get(json_object_get(object, "metadata"), "labels"));
	CHECK_STR(json_string_value(json_object_get(json_object_get(object,
						"metadata"), "name")), "p");
	CHECK(!json_object_get(spec, "priority") &&
	      !json_object_get(spec, "tolerations"));
	CHECK(!json_object_get(container, "ports"));
	CHECK_STR(json_string_value(json_object_get(container, "image")),
		  "nvcr.io/x");
	CHECK(json_integer_value(json_pointer_get(container,
						  "/resources/limits/cpu")) == 2);
	json_decref(read);
	/* the members that lead to an Argo template's containers are kept */
	read = json_scan_light(filter, argo, strlen(argo), reads, &depth,
			       &rules);
	CHECK(read != NULL);
	spec = json_pointer_get(read,
				"/request/object/spec/workflowSpec/templates/0");
	CHECK_STR(json_string_value(json_pointer_get(spec, "/container/image")),
		  "nvcr.io/x");
	CHECK_STR(json_string_value(json_pointer_get(spec, "/script/image")),
		  "nvcr.io/y");
	CHECK_STR(json_string_value(json_pointer_get(spec,
						     "/sidecars/0/image")),
		  "nvcr.io/z");
	CHECK_STR(json_string_value(json_pointer_get(spec,
				"/containerSet/containers/0/image")),
		  "nvcr.io/w");
	json_decref(read);
	/* "containers" in a member left out, and a duplicate key in one */
	CHECK(json_scan_light(filter, hidden, strlen(hidden), reads, &depth,
			      &rules) == NULL);
	CHECK(json_scan_light(filter, twice, strlen(twice), reads, &depth,
			      &rules) == NULL);
out:
	json_scan_filter_free(filter);
	config_free(cfg);
}

/* The values of a jansson document: itself and all it holds. */
static size_t values_in(const json_t *value)
{
	size_t n = 1, i;
	const char *key;
	json_t *member;

	if (json_is_object(value))
		json_object_foreach((json_t *)value, key, member)
			n += values_in(member);
	else if (json_is_array(value))
		json_array_foreach(value, i, member)
			n += values_in(member);
	return n;
}

TEST(json_scan_count_values_counts_what_jansson_builds)
{
	static const char *const texts[] = {
		"{}", "[]", "0", "\"s\"", "[1,2,3]", "[[],{},[[]]]",
		"{\"a\":[{},{}],\"b\":\"x,y[{\"}",
		"[\"a\\\"b,c\", 1]", "[\"\\\\\\\\\", 2, \"\\\\\"]",
		" { \"k\" : [ ] , \"l\" : { } , \"m\" : [ 1 , { \"n\" : null } ] } ",
		"{\"\\u0022,\":[true,false,null,-1.5e3]}",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		json_t *doc = json_loads(texts[i], JSON_DECODE_ANY, NULL);
		size_t got = json_scan_count_values(texts[i], strlen(texts[i]),
						    1000);

		CHECK(doc != NULL);
		if (doc && got != values_in(doc))
			fprintf(stderr, "  %s: counted %zu, jansson built %zu\n",
				texts[i], got, values_in(doc));
		CHECK(doc && got == values_in(doc));
		json_decref(doc);
	}
	/* past `stop`, the count ends there */
	CHECK(json_scan_count_values("[1,2,3,4,5,6]", 13, 3) == 4);
}
