/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_webhook_update.c - the webhook in a cluster with controllers: the
 * ownership policy (a controller's copy of its template is left alone,
 * pods are always migrated) and updates that converge (a re-applied
 * legacy manifest lands on the stored, migrated object; an update is
 * never refused because of gpumend).
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

/* JSON written with ' for ": every ' becomes ". A new string. */
static char *dq(const char *squoted)
{
	char *text = strdup(squoted);

	for (char *p = text; p && *p; p++)
		if (*p == '\'')
			*p = '"';
	return text;
}

/* A legacy pod spec: the alpha resource, the old node label. */
#define LEGACY_SPEC \
	"{'nodeSelector':{'alpha.kubernetes.io/nvidia-gpu-name':'Tesla K80'}," \
	"'containers':[{'name':'cuda','image':'nvidia/cuda:9.0-base'," \
	"'resources':{'limits':{'alpha.kubernetes.io/nvidia-gpu':'1'}}}]}"

#define OWNED_BY(kind, name) \
	",'ownerReferences':[{'apiVersion':'v1','kind':'" kind "','name':'" \
	name "','uid':'0','controller':true}]"

/* The object written in JSON with ' for ", parsed; a new reference. */
static json_t *sq(const char *squoted)
{
	char *text = dq(squoted);
	json_t *value = text ? json_loads(text, 0, NULL) : NULL;

	free(text);
	return value;
}

/*
 * Reviews `object` with `operation` and, when not NULL, `old` as
 * request.oldObject; returns the response (a new reference) with `out`
 * filled. The fast path must answer alike (test_review() checks it).
 */
static json_t *review_objects(const struct config *cfg, const char *operation,
			      json_t *object, json_t *old,
			      struct admission_outcome *out, int *failures)
{
	char *o = json_text_new(object, JSON_COMPACT), *s = NULL, *text;
	json_t *answer;
	struct buf extra;

	buf_init(&extra, 0);
	if (old && (s = json_text_new(old, JSON_COMPACT)))
		buf_printf(&extra, ",\"oldObject\":%s", s);
	text = test_review_text("v1", operation, o ? o : "null", extra.data);
	answer = test_review(cfg, text, out, failures);
	CHECK(answer != NULL && out->http_status == 200);
	CHECK(out->failure == ADMISSION_OK);
	free(text);
	buf_free(&extra);
	free(s);
	free(o);
	return answer;
}

/* review_objects() of squoted texts. */
static json_t *review(const struct config *cfg, const char *operation,
		      const char *object, const char *old,
		      struct admission_outcome *out, int *failures)
{
	json_t *o = sq(object), *s = old ? sq(old) : NULL;
	json_t *answer = review_objects(cfg, operation, o, s, out, failures);

	json_decref(o);
	json_decref(s);
	return answer;
}

/*
 * What the API server stores: `object` with the response's patch
 * applied; a new reference, NULL when the patch does not apply.
 */
static json_t *stored_after(json_t *answer, json_t *object)
{
	json_t *patch = test_response_patch(answer);
	json_t *result = json_deep_copy(object);

	if (patch && test_apply_patch(result, patch) != 0) {
		json_decref(result);
		result = NULL;
	}
	json_decref(patch);
	return result;
}

/* The i-th warning of the response, or "". */
static const char *warning_at(json_t *review_json, size_t i)
{
	const char *w = json_string_value(json_array_get(json_object_get(
		json_object_get(review_json, "response"), "warnings"), i));

	return w ? w : "";
}

/* 1 when some warning of the response holds `text`. */
static int warned(json_t *review_json, const char *text)
{
	json_t *warnings = json_object_get(json_object_get(review_json,
							   "response"),
					   "warnings");

	for (size_t i = 0; i < json_array_size(warnings); i++)
		if (strstr(warning_at(review_json, i), text))
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Ownership                                                           */

TEST(ownership_controller_copies_are_left_alone)
{
	static const char *const cases[][3] = {
		/* kind, apiVersion, the controlling owner's kind */
		{ "ReplicaSet", "apps/v1", "Deployment" },
		{ "Job", "batch/v1", "CronJob" },
		{ "StatefulSet", "apps/v1", "Notebook" },
		{ "ReplicaSet", "apps/v1", "Rollout" },
		{ "Deployment", "apps/v1", "SeldonDeployment" },
		{ "TFJob", "kubeflow.org/v1", "Pipeline" },
	};
	struct config *cfg = config_new_default();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int update = 0; update < 2; update++) {
			struct admission_outcome out;
			struct buf object, want;
			json_t *answer;

			buf_init(&object, 0);
			buf_init(&want, 0);
			buf_printf(&object, "{'apiVersion':'%s','kind':'%s',"
				   "'metadata':{'name':'w-1','ownerReferences':"
				   "[{'apiVersion':'x/v1','kind':'Other','name':'o',"
				   "'uid':'1'},{'apiVersion':'x/v1','kind':'%s',"
				   "'name':'w','uid':'2','controller':true}]},"
				   "'spec':{'template':{'spec':" LEGACY_SPEC "}}}",
				   cases[i][1], cases[i][0], cases[i][2]);
			buf_printf(&want, "%s/w", cases[i][2]);
			answer = review(cfg, update ? "UPDATE" : "CREATE",
					object.data, update ? object.data : NULL,
					&out, failures);
			CHECK(out.allowed && !out.patched && out.n_warnings == 0);
			CHECK(out.mutated_rules == 0);
			CHECK_STR(out.owner, want.data);
			json_decref(answer);
			admission_outcome_clear(&out);
			buf_free(&object);
			buf_free(&want);
		}
	}
	config_free(cfg);
}

TEST(ownership_pods_are_always_migrated)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	json_t *answer;

	answer = review(cfg, "CREATE", "{'apiVersion':'v1','kind':'Pod',"
			"'metadata':{'name':'web-1'" OWNED_BY("ReplicaSet", "web")
			"},'spec':" LEGACY_SPEC "}", NULL, &out, failures);
	CHECK(out.patched && !out.owner);
	CHECK(out.mutated_rules & 1u << RULE_LEGACY_GPU_RESOURCE);
	CHECK(out.mutated_rules & 1u << RULE_LEGACY_GPU_NODE_LABEL);
	json_decref(answer);
	admission_outcome_clear(&out);
	config_free(cfg);
}

TEST(ownership_needs_a_controller)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	json_t *answer;

	/* owners, none of them its controller: migrated as any object */
	answer = review(cfg, "CREATE", "{'apiVersion':'apps/v1','kind':"
			"'ReplicaSet','metadata':{'name':'r','ownerReferences':"
			"[{'apiVersion':'v1','kind':'ConfigMap','name':'c','uid':"
			"'1','controller':false},{'apiVersion':'v1','kind':'Secret',"
			"'name':'s','uid':'2'}]},'spec':{'template':{'spec':"
			LEGACY_SPEC "}}}", NULL, &out, failures);
	CHECK(out.patched && !out.owner);
	json_decref(answer);
	admission_outcome_clear(&out);

	/* nothing to migrate: the owner is named all the same, on both
	 * paths (the prefilter's skeleton keeps the owner references) */
	answer = review(cfg, "CREATE", "{'apiVersion':'apps/v1','kind':"
			"'ReplicaSet','metadata':{'name':'r'"
			OWNED_BY("Deployment", "web") "},'spec':{'template':"
			"{'spec':{'containers':[{'name':'c'}]}}}}", NULL, &out,
			failures);
	CHECK(!out.patched && out.n_warnings == 0);
	CHECK_STR(out.owner, "Deployment/web");
	json_decref(answer);
	admission_outcome_clear(&out);
	config_free(cfg);
}

/* ------------------------------------------------------------------ */
/* Updates                                                             */

#define LEGACY_DEPLOYMENT(meta) \
	"{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'web'" \
	meta "},'spec':{'replicas':1,'template':{'metadata':{'labels':" \
	"{'app':'web'}},'spec':" LEGACY_SPEC "}}}"

#define LEGACY_POD(meta) \
	"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'" meta "}," \
	"'spec':" LEGACY_SPEC "}"

#define LEGACY_JOB(meta) \
	"{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'j'" meta \
	"},'spec':{'template':{'spec':" LEGACY_SPEC "}}}"

/*
 * A Deployment created before the webhook (or while it was down): its
 * next update migrates it, that is one rollout; sending the migrated one
 * again changes nothing.
 */
TEST(update_heals_a_workload_created_before_the_webhook)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	json_t *answer, *sent = sq(LEGACY_DEPLOYMENT(",'labels':{'team':'ml'}"));
	json_t *old = sq(LEGACY_DEPLOYMENT("")), *healed;

	answer = review_objects(cfg, "UPDATE", sent, old, &out, failures);
	CHECK(out.allowed && out.patched);
	healed = stored_after(answer, sent);
	CHECK_STR(test_string_at(healed, "/spec/template/spec/containers/0/"
				 "resources/limits/nvidia.com~1gpu"), "1");
	CHECK_STR(test_string_at(healed, "/spec/template/spec/nodeSelector/"
				 "nvidia.com~1gpu.product"), "Tesla-K80");
	CHECK_STR(test_string_at(healed, "/metadata/labels/team"), "ml");
	CHECK_STR(test_string_at(healed, "/metadata/annotations/"
				 "gpumend.io~1mutations"),
		  "legacy-gpu-resource,legacy-gpu-node-label");
	json_decref(answer);
	admission_outcome_clear(&out);

	answer = review_objects(cfg, "UPDATE", healed, healed, &out, failures);
	CHECK(out.allowed && !out.patched && out.n_warnings == 0);
	json_decref(answer);
	admission_outcome_clear(&out);
	json_decref(healed);
	json_decref(sent);
	json_decref(old);
	config_free(cfg);
}

/* `object` as the API server stores it after a CREATE through gpumend. */
static json_t *created(const struct config *cfg, json_t *object,
		       int *failures)
{
	struct admission_outcome out;
	json_t *answer = review_objects(cfg, "CREATE", object, NULL, &out,
					failures);
	json_t *stored = stored_after(answer, object);

	CHECK(out.patched && stored != NULL);
	json_decref(answer);
	admission_outcome_clear(&out);
	return stored;
}

/* Sets the string at the members `path` (a NULL-ended list) of `root`. */
static void set_at(json_t *root, const char *const *path, const char *value)
{
	for (; path[1]; path++) {
		json_t *next = json_object_get(root, path[0]);

		if (!next) {
			next = json_object();
			json_object_set_new(root, path[0], next);
		}
		root = next;
	}
	json_object_set_new(root, path[0], json_string(value));
}

/* The pod spec of a Pod, a Deployment or a Job. */
static json_t *pod_spec_of(json_t *object)
{
	json_t *spec = json_object_get(object, "spec");
	json_t *template = json_object_get(spec, "template");

	return template ? json_object_get(template, "spec") : spec;
}

/*
 * Re-applying the legacy manifest of an object gpumend migrated: kubectl
 * apply (client side) and server-side apply put the legacy keys back next
 * to the migrated ones. The answer lands on the stored object, for a Pod
 * (whose spec cannot change), a Job (whose template cannot) and a
 * Deployment alike; a mutable change sent along stays; the record
 * annotation is not touched (on a Deployment, a change of annotations
 * bumps the generation).
 */
TEST(update_reapply_lands_on_the_stored_object)
{
	static const char *const legacy[] = {
		LEGACY_POD(""), LEGACY_JOB(""), LEGACY_DEPLOYMENT(""),
	};
	static const char *const label[] = { "metadata", "labels", "rev", NULL };
	static const char *const image[] = { "image", NULL };
	static const char *const alpha[] = {
		"resources", "limits", "alpha.kubernetes.io/nvidia-gpu", NULL
	};
	static const char *const old_label[] = {
		"nodeSelector", "alpha.kubernetes.io/nvidia-gpu-name", NULL
	};
	struct config *cfg = config_new_default();

	for (size_t i = 0; i < 3; i++) {
		for (int style = 0; style < 3; style++) {
			struct admission_outcome out;
			json_t *manifest = sq(legacy[i]);
			json_t *stored = created(cfg, manifest, failures);
			json_t *sent = json_deep_copy(stored), *want, *answer;
			json_t *result, *patch, *op;
			size_t k;

			/* the legacy keys back, next to the migrated ones */
			set_at(json_array_get(json_object_get(pod_spec_of(sent),
							      "containers"), 0),
			       alpha, "1");
			set_at(pod_spec_of(sent), old_label, "Tesla K80");
			/* 1: server-side apply may drop what it does not own */
			if (style == 1)
				json_object_del(json_object_get(json_object_get(
					sent, "metadata"), "annotations"),
					"gpumend.io/mutations");
			want = json_deep_copy(stored);
			/* 2: a change the API server allows, sent along */
			if (style == 2) {
				set_at(sent, label, "2");
				set_at(want, label, "2");
				set_at(json_array_get(json_object_get(
					pod_spec_of(sent), "containers"), 0),
				       image, "nvidia/cuda:12.4.1-base");
				set_at(json_array_get(json_object_get(
					pod_spec_of(want), "containers"), 0),
				       image, "nvidia/cuda:12.4.1-base");
			}
			answer = review_objects(cfg, "UPDATE", sent, stored,
						&out, failures);
			CHECK(out.allowed && out.patched);
			result = stored_after(answer, sent);
			if (!json_equal(result, want)) {
				char *got = json_text_new(result, JSON_COMPACT);

				fprintf(stderr, "  %s, style %d: stored %s\n",
					legacy[i], style, got);
				free(got);
				(*failures)++;
			}
			/* the record annotation: only put back when dropped */
			patch = test_response_patch(answer);
			json_array_foreach(patch, k, op)
				CHECK(style == 1 || !strstr(json_string_value(
					json_object_get(op, "path")), "/annotations"));
			CHECK(warned(answer, "legacy-gpu-resource: "));
			json_decref(patch);
			json_decref(result);
			json_decref(answer);
			admission_outcome_clear(&out);
			json_decref(want);
			json_decref(sent);
			json_decref(stored);
			json_decref(manifest);
		}
	}
	config_free(cfg);
}

/*
 * A Pod or a Job stored legacy (created before the webhook): nothing of
 * its spec changes on update, whatever else the update does; a warning
 * says what stays, and which rule's change it is.
 */
TEST(update_pod_stored_legacy_is_left_as_sent)
{
	static const char *const stored_legacy[][2] = {
		{ LEGACY_POD(""), LEGACY_POD(",'labels':{'rev':'2'}") },
		{ LEGACY_JOB(""), LEGACY_JOB(",'labels':{'rev':'2'}") },
	};
	struct config *cfg = config_new_default();

	for (size_t i = 0; i < 2; i++) {
		struct admission_outcome out;
		json_t *answer = review(cfg, "UPDATE", stored_legacy[i][1],
					stored_legacy[i][0], &out, failures);

		CHECK(out.allowed && !out.patched && out.mutated_rules == 0);
		/* no warning says it was migrated: one says it was not */
		CHECK(!warned(answer, "legacy-gpu-resource: "));
		CHECK(warned(answer, "gpumend: kept spec."));
		CHECK(warned(answer, " as sent (legacy-gpu-resource); recreate "));
		json_decref(answer);
		admission_outcome_clear(&out);
	}
	config_free(cfg);
}

/*
 * The key and its migrated form decided together: a Pod stored with
 * neither (the limits mapping there, without a GPU) keeps what the
 * update sends, rather than losing the legacy key without gaining the new
 * one.
 */
TEST(update_rename_is_one_change)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	json_t *answer = review(cfg, "UPDATE",
		"{'kind':'Pod','metadata':{'name':'p'},'spec':{'containers':"
		"[{'name':'c','resources':{'limits':{'cpu':'1',"
		"'alpha.kubernetes.io/nvidia-gpu':'1'}}}]}}",
		"{'kind':'Pod','metadata':{'name':'p'},'spec':{'containers':"
		"[{'name':'c','resources':{'limits':{'cpu':'1'}}}]}}",
		&out, failures);

	CHECK(out.allowed && !out.patched);
	CHECK(warned(answer, "gpumend: kept spec.containers[0].resources.limits as sent"));
	json_decref(answer);
	admission_outcome_clear(&out);
	config_free(cfg);
}

/* Never a denial on UPDATE: deny mode only warns there. */
TEST(update_is_never_denied)
{
	static const char *const objects[] = {
		LEGACY_POD(""), LEGACY_JOB(""), LEGACY_DEPLOYMENT(""),
	};
	struct config *cfg = config_new_default();

	cfg->mode[RULE_LEGACY_GPU_RESOURCE] = RULE_MODE_DENY;
	for (size_t i = 0; i < 3; i++) {
		struct admission_outcome out;
		json_t *answer = review(cfg, "CREATE", objects[i], NULL, &out,
					failures);

		CHECK(!out.allowed);
		json_decref(answer);
		admission_outcome_clear(&out);
		answer = review(cfg, "UPDATE", objects[i], objects[i], &out,
				failures);
		CHECK(out.allowed);
		CHECK(warned(answer, "legacy-gpu-resource: "));
		/* the other rules still migrate a workload */
		CHECK(!!out.patched == (i == 2));
		json_decref(answer);
		admission_outcome_clear(&out);
	}
	config_free(cfg);
}

/* An object being deleted is left alone: only its finalizers change. */
TEST(update_of_an_object_being_deleted)
{
	struct config *cfg = config_new_default();
	struct admission_outcome out;
	json_t *answer = review(cfg, "UPDATE", LEGACY_DEPLOYMENT(
		",'deletionTimestamp':'2024-01-01T00:00:00Z'"),
		LEGACY_DEPLOYMENT(",'finalizers':['foregroundDeletion'],"
				  "'deletionTimestamp':'2024-01-01T00:00:00Z'"),
		&out, failures);

	CHECK(out.allowed && !out.patched && out.n_warnings == 0);
	json_decref(answer);
	admission_outcome_clear(&out);
	config_free(cfg);
}

/* ------------------------------------------------------------------ */
/* Re-applying every golden input                                      */

/* The key kubectl's strategic merge matches the elements of `list` by. */
static const char *merge_key(json_t *list)
{
	static const char *const keys[] = { "name", "mountPath", "containerPort" };
	json_t *item;
	size_t i;

	for (size_t k = 0; k < 3; k++) {
		int all = json_array_size(list) > 0;

		json_array_foreach(list, i, item)
			if (!json_is_object(item) ||
			    !json_object_get(item, keys[k]))
				all = 0;
		if (all)
			return keys[k];
	}
	return NULL;
}

/*
 * What kubectl apply makes of the live object `live` and the manifest
 * `applied` when the manifest is unchanged since the last apply: every
 * field of the manifest set over the live object, mappings merged, lists
 * of named things merged by name, other lists replaced. A new reference.
 */
static json_t *reapplied(json_t *live, json_t *applied)
{
	const char *key, *mkey;
	json_t *out, *value, *item;
	size_t i, j;

	if (json_is_object(live) && json_is_object(applied)) {
		out = json_deep_copy(live);
		json_object_foreach(applied, key, value) {
			json_t *there = json_object_get(live, key);

			json_object_set_new(out, key, there ?
					    reapplied(there, value) :
					    json_deep_copy(value));
		}
		return out;
	}
	mkey = json_is_array(live) && json_is_array(applied) ?
	       merge_key(applied) : NULL;
	if (!mkey || merge_key(live) != mkey)
		return json_deep_copy(applied);
	out = json_deep_copy(live);
	json_array_foreach(applied, i, item) {
		json_t *id = json_object_get(item, mkey), *mine;
		int found = 0;

		json_array_foreach(out, j, mine) {
			if (json_equal(json_object_get(mine, mkey), id)) {
				json_array_set_new(out, j, reapplied(mine, item));
				found = 1;
				break;
			}
		}
		if (!found)
			json_array_append_new(out, json_deep_copy(item));
	}
	return out;
}

/*
 * One document: created through gpumend (when it migrates it), then
 * re-applied client-side and server-side (the record annotation dropped):
 * the update must land on the stored object. Returns 1 when checked.
 */
static int check_reapply(const struct config *cfg, json_t *doc,
			 const char *name, int *failures)
{
	struct admission_outcome out;
	json_t *answer, *stored;
	const char *kind = json_string_value(json_object_get(doc, "kind"));
	int checked = 0;

	if (!kind || !strcmp(kind, "List"))
		return 0;
	answer = review_objects(cfg, "CREATE", doc, NULL, &out, failures);
	stored = out.allowed && out.patched ? stored_after(answer, doc) : NULL;
	json_decref(answer);
	admission_outcome_clear(&out);
	for (int style = 0; stored && style < 2; style++) {
		json_t *sent = reapplied(stored, doc), *result;

		/* nothing re-added: the record's removal is the client's */
		if (style == 1 && json_equal(sent, stored)) {
			json_decref(sent);
			break;
		}
		if (style == 1)
			json_object_del(json_object_get(json_object_get(
				sent, "metadata"), "annotations"),
				"gpumend.io/mutations");
		answer = review_objects(cfg, "UPDATE", sent, stored, &out,
					failures);
		result = stored_after(answer, sent);
		CHECK(out.allowed);
		if (!json_equal(result, stored)) {
			char *want = json_text_new(stored, JSON_COMPACT);
			char *got = json_text_new(result, JSON_COMPACT);

			fprintf(stderr, "  %s (%s, %s apply): the update does not land on the stored object\n"
				"    stored: %s\n    after:  %s\n", name, kind,
				style ? "server-side" : "client-side", want, got);
			free(want);
			free(got);
			(*failures)++;
		}
		checked = 1;
		json_decref(result);
		json_decref(answer);
		admission_outcome_clear(&out);
		json_decref(sent);
	}
	json_decref(stored);
	return checked;
}

struct reapply_count {
	int checked;
	int *failures;
};

static void reapply_each(const struct config *cfg, json_t *doc,
			 const char *path, void *arg)
{
	struct reapply_count *count = arg;

	/* the webhook refuses target dra: its cases are the CLI's alone */
	if (cfg->target == RULES_TARGET_DRA)
		return;
	if (json_is_object(doc))
		count->checked += check_reapply(cfg, doc, path,
						count->failures);
}

/*
 * Every golden input and example that gpumend migrates, re-applied: the
 * property GitOps tools and CI pipelines rely on. Run from the top of the
 * tree, as `make test` does.
 */
TEST(update_reapply_of_every_golden_input)
{
	struct reapply_count count = { 0, failures };

	test_each_document("examples", reapply_each, &count, failures);
	CHECK(count.checked >= 40);
}
