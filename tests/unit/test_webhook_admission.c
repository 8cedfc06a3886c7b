/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_webhook_admission.c - the AdmissionReview handler shared by the
 * webhook and `gpumend review`: answers, patches, warnings, failures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "admission.h"
#include "buf.h"
#include "harness.h"
#include "rules.h"
#include "util.h"

#define LEGACY_POD \
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\"," \
	"\"metadata\":{\"name\":\"p\",\"namespace\":\"ml\"%s}," \
	"\"spec\":{\"containers\":[{\"name\":\"cuda\",\"image\":\"busybox\"," \
	"\"resources\":{\"limits\":{\"alpha.kubernetes.io/nvidia-gpu\":1}}}]}}"

/* A legacy pod whose metadata ends with `metadata_extra`. */
static char *legacy_pod(const char *metadata_extra)
{
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, LEGACY_POD, metadata_extra);
	return buf_detach(&b, NULL);
}

#define run_review(cfg, text, out) test_review(cfg, text, out, failures)
#define review_text test_review_text
#define response_patch test_response_patch

static const char *response_string(json_t *review, const char *key)
{
	return json_string_value(json_object_get(
		json_object_get(review, "response"), key));
}

static int response_allowed(json_t *review)
{
	return json_is_true(json_object_get(json_object_get(review, "response"),
					    "allowed"));
}

TEST(webhook_base64_vectors)
{
	static const char *const cases[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" },
		{ "foo", "Zm9v" }, { "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = admission_base64((const unsigned char *)cases[i][0],
					     strlen(cases[i][0]));

		CHECK_STR(got, cases[i][1]);
		free(got);
	}
}

TEST(webhook_create_patch_and_annotation)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	char *pod = legacy_pod("");
	char *text = review_text("v1beta1", "CREATE", pod, NULL);
	json_t *review = run_review(cfg, text, &out), *patch, *last;

	CHECK(review != NULL);
	CHECK(out.http_status == 200 && out.failure == ADMISSION_OK);
	CHECK(out.body_len > 0 && out.body[out.body_len - 1] == '\n');
	CHECK_STR(json_string_value(json_object_get(review, "apiVersion")),
		  "admission.k8s.io/v1beta1");
	CHECK_STR(response_string(review, "uid"), "u-1");
	CHECK_STR(response_string(review, "patchType"), "JSONPatch");
	CHECK(response_allowed(review));
	CHECK(out.patched && (out.mutated_rules & 1u << RULE_LEGACY_GPU_RESOURCE));
	patch = response_patch(review);
	CHECK(json_is_array(patch) && json_array_size(patch) == 2);
	last = json_array_get(patch, json_array_size(patch) - 1);
	CHECK_STR(json_string_value(json_object_get(last, "op")), "add");
	CHECK_STR(json_string_value(json_object_get(last, "path")),
		  "/metadata/annotations");
	CHECK_STR(json_string_value(json_object_get(json_object_get(last, "value"),
						    "gpumend.io/mutations")),
		  "legacy-gpu-resource");
	CHECK(json_array_size(json_object_get(json_object_get(review, "response"),
					      "warnings")) == 1);
	json_decref(patch);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);
	free(pod);
	config_free(cfg);
}

TEST(webhook_annotation_merges_existing)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	char *pod, *text;
	json_t *review, *patch, *last;

	/* annotations present: one member added */
	pod = legacy_pod(",\"annotations\":{\"team\":\"ml\"}");
	text = review_text("v1", "CREATE", pod, NULL);
	review = run_review(cfg, text, &out);
	patch = response_patch(review);
	last = json_array_get(patch, json_array_size(patch) - 1);
	CHECK_STR(json_string_value(json_object_get(last, "path")),
		  "/metadata/annotations/gpumend.io~1mutations");
	CHECK_STR(json_string_value(json_object_get(last, "value")),
		  "legacy-gpu-resource");
	json_decref(patch);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);
	free(pod);

	/* a record already there: replaced by the union, old entries first */
	pod = legacy_pod(",\"annotations\":{\"gpumend.io/mutations\":"
			 "\"gpu-sharing, legacy-gpu-resource\"}");
	text = review_text("v1", "CREATE", pod, NULL);
	review = run_review(cfg, text, &out);
	patch = response_patch(review);
	last = json_array_get(patch, json_array_size(patch) - 1);
	CHECK_STR(json_string_value(json_object_get(last, "op")), "replace");
	CHECK_STR(json_string_value(json_object_get(last, "value")),
		  "gpu-sharing,legacy-gpu-resource");
	json_decref(patch);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);
	free(pod);

	/* the record disabled by an empty annotation name */
	free(cfg->mutations_annotation);
	cfg->mutations_annotation = strdup("");
	pod = legacy_pod("");
	text = review_text("v1", "CREATE", pod, NULL);
	review = run_review(cfg, text, &out);
	patch = response_patch(review);
	CHECK(json_array_size(patch) == 1);
	json_decref(patch);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);
	free(pod);
	config_free(cfg);
}

TEST(webhook_object_without_metadata)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	const char *pod =
		"{\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"name\":\"c\","
		"\"resources\":{\"limits\":{\"alpha.kubernetes.io/nvidia-gpu\":\"1\"}}}]}}";
	char *text = review_text("v1", "CREATE", pod, NULL);
	json_t *review = run_review(cfg, text, &out), *patch, *last;

	patch = response_patch(review);
	last = json_array_get(patch, json_array_size(patch) - 1);
	CHECK_STR(json_string_value(json_object_get(last, "path")), "/metadata");
	CHECK(json_is_object(json_object_get(json_object_get(last, "value"),
					     "annotations")));
	json_decref(patch);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);
	config_free(cfg);
}

TEST(webhook_nothing_to_do_and_other_operations)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	const char *pod = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
			  "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}";
	char *text, *legacy = legacy_pod("");
	json_t *review, *response;

	text = review_text("v1", "CREATE", pod, NULL);
	review = run_review(cfg, text, &out);
	response = json_object_get(review, "response");
	CHECK(response_allowed(review) && !out.patched);
	CHECK(json_object_size(response) == 2);   /* uid and allowed */
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);

	/* UPDATE of a pod without an oldObject: nothing is known to be
	 * stored migrated, so nothing changes; one warning says what is
	 * kept as sent and by which rule, and none says it was migrated */
	text = review_text("v1", "UPDATE", legacy, NULL);
	review = run_review(cfg, text, &out);
	CHECK(response_allowed(review) && !out.patched);
	CHECK(!response_string(review, "patchType"));
	CHECK(out.n_warnings == 1);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);

	/* DELETE and subresources: allowed untouched */
	text = review_text("v1", "DELETE", "null", NULL);
	review = run_review(cfg, text, &out);
	CHECK(response_allowed(review) && out.n_warnings == 0);
	CHECK_STR(out.operation, "DELETE");
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);
	text = review_text("v1", "CREATE", legacy, ",\"subResource\":\"binding\"");
	review = run_review(cfg, text, &out);
	CHECK(response_allowed(review) && !out.patched && out.n_warnings == 0);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);

	/* dryRun: mutated as usual */
	text = review_text("v1", "CREATE", legacy, ",\"dryRun\":true");
	review = run_review(cfg, text, &out);
	CHECK(out.dry_run && out.patched);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);
	free(legacy);
	config_free(cfg);
}

TEST(webhook_deny_mode)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	char *pod = legacy_pod(""), *text;
	json_t *review, *status;
	const char *message;

	cfg->mode[RULE_LEGACY_GPU_RESOURCE] = RULE_MODE_DENY;
	text = review_text("v1", "CREATE", pod, NULL);
	review = run_review(cfg, text, &out);
	status = json_object_get(json_object_get(review, "response"), "status");
	message = json_string_value(json_object_get(status, "message"));
	CHECK(!response_allowed(review) && !out.allowed && !out.patched);
	CHECK(json_integer_value(json_object_get(status, "code")) == 403);
	CHECK(message && strstr(message, "rule 'legacy-gpu-resource'"));
	CHECK(message && strstr(message,
		"spec.containers[0].resources.limits[alpha.kubernetes.io/nvidia-gpu]"));
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);

	/* UPDATE is never denied */
	text = review_text("v1", "UPDATE", pod, NULL);
	review = run_review(cfg, text, &out);
	CHECK(response_allowed(review) && out.n_warnings == 1);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);
	free(pod);
	config_free(cfg);
}

TEST(webhook_bad_requests_without_uid)
{
	static const char *const bodies[] = {
		"",
		"{\"a\":",
		"[1,2]",
		"\"text\"",
		"{\"a\":1,\"a\":2}",
		"{\"apiVersion\":\"admission.k8s.io/v2\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"x\"}}",
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"Review\",\"request\":{\"uid\":\"x\"}}",
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}",
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":[]}",
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":7}}",
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"\"}}",
	};
	struct config *cfg = config_new_default();

	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		struct admission_outcome out;

		admission_outcome_init(&out);
		CHECK(admission_review(cfg, bodies[i], strlen(bodies[i]), &out) == 0);
		CHECK(out.http_status == 400);
		CHECK(out.failure == ADMISSION_BAD_REQUEST && out.error[0]);
		CHECK(out.body && out.body[0] != '{');
		admission_outcome_clear(&out);
	}
	config_free(cfg);
}

TEST(webhook_bad_requests_with_uid)
{
	static const char *const requests[] = {
		"\"operation\":\"CREATE\",\"object\":null",
		"\"operation\":\"CREATE\"",
		"\"operation\":\"CREATE\",\"object\":[1]",
		"\"operation\":\"PATCH\",\"object\":{}",
		"\"operation\":7,\"object\":{}",
		"\"operation\":\"CREATE\",\"object\":{},\"namespace\":3",
		"\"operation\":\"CREATE\",\"object\":{},\"dryRun\":\"yes\"",
	};
	struct config *cfg = config_new_default();

	for (int allow = 1; allow >= 0; allow--) {
		cfg->failure_allow = allow;
		for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
			struct admission_outcome out;
			struct buf text;
			json_t *review, *status;

			buf_init(&text, 0);
			buf_printf(&text, "{\"apiVersion\":\"admission.k8s.io/v1\","
				   "\"kind\":\"AdmissionReview\",\"request\":"
				   "{\"uid\":\"u-9\",%s}}", requests[i]);
			review = run_review(cfg, text.data, &out);
			CHECK(review != NULL && out.http_status == 200);
			CHECK(out.failure == ADMISSION_BAD_REQUEST);
			CHECK_STR(response_string(review, "uid"), "u-9");
			CHECK(response_allowed(review) == allow);
			CHECK(!response_string(review, "patch"));
			status = json_object_get(json_object_get(review, "response"),
						 "status");
			if (allow)
				CHECK(out.n_warnings == 1 && !status);
			else
				CHECK(json_integer_value(json_object_get(status, "code")) == 400);
			json_decref(review);
			admission_outcome_clear(&out);
			buf_free(&text);
		}
	}
	config_free(cfg);
}

TEST(webhook_too_deep_object)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	struct buf object;
	char *text;
	json_t *review;

	buf_init(&object, 0);
	buf_puts(&object, "{\"kind\":\"Pod\",\"x\":");
	for (int i = 0; i < 300; i++)
		buf_putc(&object, '[');
	for (int i = 0; i < 300; i++)
		buf_putc(&object, ']');
	buf_putc(&object, '}');
	text = review_text("v1", "CREATE", object.data, NULL);
	review = run_review(cfg, text, &out);
	CHECK(out.http_status == 200 && out.failure == ADMISSION_BAD_REQUEST);
	CHECK(strstr(out.error, "deeper") != NULL);
	CHECK(response_allowed(review));
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);
	buf_free(&object);
	config_free(cfg);
}

TEST(webhook_warnings_capped)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	struct buf pod;
	json_t *review, *warnings, *item;
	size_t i, total = 0;
	char *text;

	/* 200 containers, each with its own finding */
	buf_init(&pod, 0);
	buf_puts(&pod, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
		 "\"spec\":{\"containers\":[");
	for (int c = 0; c < 200; c++)
		buf_printf(&pod, "%s{\"name\":\"gpu-%03d\","
			   "\"resources\":{\"limits\":{\"alpha.kubernetes.io/nvidia-gpu\":1}}}",
			   c ? "," : "", c);
	buf_puts(&pod, "]}}");
	text = review_text("v1", "CREATE", pod.data, NULL);
	review = run_review(cfg, text, &out);
	warnings = json_object_get(json_object_get(review, "response"), "warnings");
	CHECK(json_array_size(warnings) > 10 && json_array_size(warnings) < 200);
	json_array_foreach(warnings, i, item) {
		size_t len = strlen(json_string_value(item));

		CHECK(len <= ADMISSION_WARNING_MAX);
		total += len;
	}
	CHECK(total <= ADMISSION_WARNINGS_TOTAL);
	item = json_array_get(warnings, json_array_size(warnings) - 1);
	CHECK(strstr(json_string_value(item), "more findings not shown") != NULL);
	/* the patch is whole all the same */
	CHECK(out.patched);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);
	buf_free(&pod);
	config_free(cfg);
}

/*
 * Two rules writing into the same new mapping: the first adds the pod's
 * affinity, the second adds a term inside it. The patch must still give
 * the engine's object when applied on its own.
 */
TEST(webhook_patch_replays_on_the_original)
{
	static const char object[] =
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
		"\"annotations\":{\"gpumend.io/gpu-models\":\"Tesla K80\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\","
		"\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":4}}}]}}";
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	char *text = review_text("v1", "CREATE", object, NULL);
	json_t *review = run_review(cfg, text, &out), *patch, *original, *migrated;
	struct rules_options opts = { .offline = 0 };
	struct rules_result res;
	struct rules_error err;

	CHECK(out.failure == ADMISSION_OK);
	patch = response_patch(review);
	CHECK(json_is_array(patch));
	original = json_loads(object, 0, NULL);
	migrated = json_loads(object, 0, NULL);
	rules_result_init(&res);
	CHECK(rules_apply(cfg, &opts, migrated, &res, &err) == 0);
	if (patch) {
		CHECK(test_apply_patch(original, patch) == 0);
		/* the record annotation aside */
		json_object_del(json_object_get(json_object_get(original, "metadata"),
						"annotations"),
				"gpumend.io/mutations");
		CHECK(json_equal(original, migrated));
	}
	rules_result_clear(&res);
	json_decref(original);
	json_decref(migrated);
	json_decref(patch);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);
	config_free(cfg);
}

/*
 * Objects in which only gpu-visibility has a trigger are first read
 * lightly (rules_reads()); the answers are those of the whole object,
 * which run_review() checks against the review without the prefilter.
 */
TEST(webhook_light_read_answers_as_whole)
{
	struct config *cfg = config_new_default();
	static const struct {
		const char *object;
		int warnings;
	} cases[] = {
		/* a GPU container: nothing to do */
		{ "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{"
		  "\"tolerations\":[{\"key\":\"nvidia.com/gpu\"}],\"containers\":[{"
		  "\"name\":\"t\",\"image\":\"nvcr.io/nvidia/tritonserver:24.01-py3\","
		  "\"ports\":[{\"containerPort\":8000}],\"livenessProbe\":{\"httpGet\":"
		  "{\"port\":8000}},\"resources\":{\"limits\":{\"nvidia.com/gpu\":1}}}]}}",
		  0 },
		/* a container without GPUs on a GPU image: warned about (the
		 * rule's default mode), read whole */
		{ "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"nvcr.io/nvidia/cuda:12\","
		  "\"ports\":[{\"containerPort\":80}],\"args\":[\"-v\"]}]}}",
		  1 },
		/* the same, opted out of the rule */
		{ "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"annotations\":{"
		  "\"gpumend.io/skip-rules\":\"gpu-visibility\"}},\"spec\":{"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"nvcr.io/nvidia/cuda:12\","
		  "\"ports\":[{\"containerPort\":80}]}]}}",
		  0 },
		/* a pod spec where no light read looks */
		{ "{\"apiVersion\":\"x.io/v1\",\"kind\":\"Trainer\",\"metadata\":{"
		  "\"name\":\"t\"},\"spec\":{\"workers\":{\"template\":{\"spec\":{"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"nvcr.io/nvidia/cuda:12\"}]"
		  "}}}}}",
		  1 },
		/* an Argo template's single container, and its sidecar */
		{ "{\"apiVersion\":\"argoproj.io/v1alpha1\",\"kind\":\"Workflow\","
		  "\"metadata\":{\"name\":\"w\"},\"spec\":{\"templates\":[{"
		  "\"name\":\"t\",\"container\":{\"image\":\"nvcr.io/nvidia/cuda:12\"},"
		  "\"sidecars\":[{\"name\":\"s\",\"image\":\"nvidia/cuda:12\"}]}]}}",
		  2 },
		/* a List */
		{ "{\"kind\":\"List\",\"items\":[{\"kind\":\"Pod\",\"metadata\":{"
		  "\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\","
		  "\"image\":\"nvcr.io/nvidia/cuda:12\",\"env\":[{\"name\":"
		  "\"NVIDIA_VISIBLE_DEVICES\",\"value\":\"all\"}]}]}}]}",
		  0 },
	};

	/* the rule's default mode warns; then it mutates what it warned of */
	for (int mutate = 0; mutate < 2; mutate++) {
		cfg->mode[RULE_GPU_VISIBILITY] = mutate ? RULE_MODE_MUTATE :
							  RULE_MODE_WARN;
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct admission_outcome out;
			char *text = review_text("v1", "CREATE",
						 cases[i].object, NULL);
			json_t *review = run_review(cfg, text, &out);

			CHECK(review != NULL && response_allowed(review));
			CHECK(out.patched == (mutate && cases[i].warnings));
			CHECK((int)out.n_warnings == cases[i].warnings);
			json_decref(review);
			admission_outcome_clear(&out);
			free(text);
		}
	}
	config_free(cfg);
}

TEST(webhook_values_over_the_cap_are_a_failure)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	char *legacy = legacy_pod(""), *text;
	json_t *review;

	/* the legacy pod holds 13 values, its review some more */
	cfg->max_values = 10;
	text = review_text("v1", "CREATE", legacy, NULL);
	review = run_review(cfg, text, &out);
	CHECK(response_allowed(review) && !out.patched);
	CHECK(out.failure == ADMISSION_INTERNAL);
	CHECK(strstr(out.error, "limits.maxValues") != NULL);
	CHECK(out.name && strcmp(out.name, "p") == 0);
	json_decref(review);
	admission_outcome_clear(&out);

	/* per the failure policy */
	cfg->failure_allow = 0;
	review = run_review(cfg, text, &out);
	CHECK(!response_allowed(review));
	CHECK(json_integer_value(json_object_get(json_object_get(
		json_object_get(review, "response"), "status"), "code")) == 500);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);

	/* a DELETE is not reviewed anyway: allowed untouched */
	text = review_text("v1", "DELETE", legacy, NULL);
	review = run_review(cfg, text, &out);
	CHECK(response_allowed(review) && out.failure == ADMISSION_OK);
	json_decref(review);
	admission_outcome_clear(&out);
	free(text);

	/* refused by the server: the same answer; with a real number the
	 * skeleton cannot be read, and the whole request is refused */
	cfg->max_values = 250000;
	text = review_text("v1", "CREATE", legacy, NULL);
	admission_outcome_init(&out);
	CHECK(admission_refuse(cfg, text, strlen(text), "overloaded", &out) == 0);
	CHECK(out.http_status == 200 && !out.allowed &&
	      strcmp(out.error, "overloaded") == 0);
	admission_outcome_clear(&out);
	free(text);
	text = review_text("v1", "CREATE", "{\"x\":1.5}", NULL);
	admission_outcome_init(&out);
	CHECK(admission_refuse(cfg, text, strlen(text), "overloaded", &out) == 0);
	CHECK(out.http_status == 500 && out.failure == ADMISSION_INTERNAL);
	admission_outcome_clear(&out);
	free(text);
	free(legacy);
	config_free(cfg);
}
