/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_common.c - configurations and property checks shared by the fuzz
 * targets (see fuzz.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "buf.h"
#include "cli.h"
#include "config_file.h"
#include "fuzz.h"
#include "json_scan.h"
#include "nul.h"
#include "report.h"
#include "../patch_faults.h"
#include "text_patch.h"
#include "utf16.h"

/* ------------------------------------------------------------------ */
/* Configurations                                                      */

static const char *const config_texts[FUZZ_CONFIG_COUNT] = {
	[FUZZ_CONFIG_DEFAULT] = "",
	[FUZZ_CONFIG_MUTATE] =
		"rules:\n"
		"  gpu-visibility: mutate\n"
		"sharing:\n"
		"  strategy: hami\n"
		"models:\n"
		"  namespaces:\n"
		"    default: [\"Tesla K80\", \"A100-SXM4-80GB\"]\n"
		"    research: [\"A100 PCIE 40GB\"]\n",
	[FUZZ_CONFIG_DENY] =
		"rules:\n"
		"  deprecated-workload-api: off\n"
		"  legacy-gpu-resource: deny\n"
		"  legacy-gpu-node-label: warn\n"
		"  gpu-visibility: deny\n"
		"  obsolete-cuda-hostpath: deny\n"
		"  removed-gpu-feature-gate: deny\n"
		"sharing:\n"
		"  strategy: keep\n"
		"webhook:\n"
		"  failurePolicy: deny\n",
	[FUZZ_CONFIG_SHARED] =
		"rules:\n"
		"  gpu-visibility: mutate\n"
		"sharing:\n"
		"  strategy: mps\n"
		"resources:\n"
		"  sharedGPU: nvidia.com/gpu\n"
		"models:\n"
		"  namespaces:\n"
		"    default: [\"Tesla V100\"]\n",
};

const struct config *fuzz_config_get(enum fuzz_config which)
{
	static struct config *loaded[FUZZ_CONFIG_COUNT];
	char err[512];

	if ((unsigned)which >= FUZZ_CONFIG_COUNT)
		fuzz_fail("no configuration %d", (int)which);
	if (!loaded[which]) {
		const char *text = config_texts[which];

		loaded[which] = config_text_load("fuzz-config", text,
						 strlen(text), err,
						 sizeof(err));
		if (!loaded[which])
			fuzz_fail("built-in configuration %d: %s", (int)which,
				  err);
	}
	return loaded[which];
}

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: property violated: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	abort();
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

/* Standard base64 with padding, strictly; a new buffer or NULL. */
static unsigned char *base64_decode(const char *text, size_t *out_len)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len = strlen(text), o = 0;
	unsigned char *out;

	if (len % 4)
		return NULL;
	if (!(out = malloc(len / 4 * 3 + 1)))
		return NULL;
	for (size_t i = 0; i < len; i += 4) {
		unsigned long v = 0;
		int pad = 0;

		for (int k = 0; k < 4; k++) {
			const char *hit = text[i + k] ? strchr(alphabet, text[i + k])
						      : NULL;

			if (text[i + k] == '=' && i + 4 == len && k >= 2) {
				pad++;
				v <<= 6;
				continue;
			}
			if (!hit || pad) {
				free(out);
				return NULL;
			}
			v = v << 6 | (unsigned long)(hit - alphabet);
		}
		out[o++] = (unsigned char)(v >> 16);
		if (pad < 2)
			out[o++] = (unsigned char)(v >> 8);
		if (pad < 1)
			out[o++] = (unsigned char)v;
	}
	*out_len = o;
	return out;
}

/* A copy of `len` bytes in a buffer of exactly that size, so that the
 * sanitizer sees any read past the end. */
static char *exact_copy(const char *data, size_t len)
{
	char *copy = malloc(len ? len : 1);

	if (!copy)
		fuzz_fail("out of memory");
	if (len)
		memcpy(copy, data, len);
	return copy;
}

/* The string value of `value`, "" when it is not a string. */
static const char *string_or_empty(json_t *value)
{
	const char *s = json_string_value(value);

	return s ? s : "";
}

static size_t count_char(const char *text, size_t len, char c)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += text[i] == c;
	return n;
}

/* What every finding must look like, whoever reports it. */
static void finding_check(const struct finding *f)
{
	if ((unsigned)f->rule >= RULE_COUNT || (unsigned)f->severity > SEVERITY_ERROR)
		fuzz_fail("finding with rule %d, severity %d", (int)f->rule,
			  (int)f->severity);
	if (!f->pointer || (*f->pointer && *f->pointer != '/'))
		fuzz_fail("finding of '%s' with the pointer '%s'",
			  rule_info_get(f->rule)->name,
			  f->pointer ? f->pointer : "(null)");
	if (!f->message || !*f->message)
		fuzz_fail("finding of '%s' without a message",
			  rule_info_get(f->rule)->name);
	if (strpbrk(f->message, "\r\n"))
		fuzz_fail("finding of '%s' at '%s': the message is not one line: '%s'",
			  rule_info_get(f->rule)->name, f->pointer, f->message);
}

/* ------------------------------------------------------------------ */
/* AdmissionReview                                                     */

/* The request of `review` when admission_review() can read its uid. */
static json_t *readable_request(json_t *review, const char **uid)
{
	const char *version = json_string_value(json_object_get(review,
								"apiVersion"));
	const char *kind = json_string_value(json_object_get(review, "kind"));
	json_t *request = json_object_get(review, "request");

	*uid = NULL;
	if (!version || (strcmp(version, "admission.k8s.io/v1") &&
			 strcmp(version, "admission.k8s.io/v1beta1")))
		return NULL;
	if (!kind || strcmp(kind, "AdmissionReview") || !json_is_object(request))
		return NULL;
	*uid = json_string_value(json_object_get(request, "uid"));
	if (!*uid || !**uid || strlen(*uid) > ADMISSION_UID_MAX) {
		*uid = NULL;
		return NULL;
	}
	return request;
}

static enum patch_kind patch_kind_parse(const char *name)
{
	static const char *const names[] = { "add", "remove", "replace", "move" };

	for (int k = 0; k < 4; k++)
		if (name && !strcmp(name, names[k]))
			return (enum patch_kind)k;
	fuzz_fail("patch operation '%s'", name ? name : "(none)");
}

/*
 * Applies the JSON Patch `patch` to `object` in place the way the API
 * server would: each operation well formed and its target where RFC 6902
 * wants it, then patch_apply_op.
 */
static void patch_apply_checked(json_t *object, json_t *patch)
{
	size_t i;
	json_t *item;

	if (!json_is_array(patch) || !json_array_size(patch))
		fuzz_fail("the patch is not a non-empty array");
	json_array_foreach(patch, i, item) {
		struct patch_op op = { 0 };
		const char *key;
		json_t *member;
		int rc;

		if (!json_is_object(item))
			fuzz_fail("patch operation %zu is not an object", i);
		json_object_foreach(item, key, member)
			if (strcmp(key, "op") && strcmp(key, "path") &&
			    strcmp(key, "value") && strcmp(key, "from"))
				fuzz_fail("patch operation %zu has '%s'", i, key);
		op.kind = patch_kind_parse(json_string_value(json_object_get(item, "op")));
		op.path = (char *)json_string_value(json_object_get(item, "path"));
		op.from = (char *)json_string_value(json_object_get(item, "from"));
		op.value = json_object_get(item, "value");
		/* a replace of the root is not something the rules do */
		if (!op.path || *op.path != '/')
			fuzz_fail("patch operation %zu: bad path", i);
		if ((op.kind == PATCH_ADD || op.kind == PATCH_REPLACE) != !!op.value)
			fuzz_fail("patch operation %zu: value present: %d", i,
				  !!op.value);
		if ((op.kind == PATCH_MOVE) != !!op.from)
			fuzz_fail("patch operation %zu: from present: %d", i,
				  !!op.from);
		if ((op.kind == PATCH_REMOVE || op.kind == PATCH_REPLACE) &&
		    !json_pointer_get(object, op.path))
			fuzz_fail("patch operation %zu: '%s' does not exist", i,
				  op.path);
		if (op.kind == PATCH_MOVE) {
			size_t flen = strlen(op.from);

			if (!*op.from || !json_pointer_get(object, op.from))
				fuzz_fail("patch operation %zu: from '%s' does not exist",
					  i, op.from);
			if (!strncmp(op.path, op.from, flen) && op.path[flen] == '/')
				fuzz_fail("patch operation %zu: moves '%s' into itself",
					  i, op.from);
		}
		if (op.value && !(op.value = json_value_copy(op.value)))
			fuzz_fail("out of memory");
		rc = patch_apply_op(object, &op);
		json_decref(op.value);
		if (rc != 0)
			fuzz_fail("patch operation %zu (%s) does not apply",
				  i, op.path);
	}
}

/* Reviews the patched object again: the rules must have nothing left. */
static void admission_recheck(const struct config *cfg, json_t *review,
			      json_t *patched)
{
	struct admission_outcome out;
	json_t *again = json_value_copy(review);
	json_t *request = json_object_get(again, "request");
	char *body;

	if (!again || json_object_set(request, "object", patched) ||
	    json_object_set_new(request, "uid", json_string("fuzz-again")))
		fuzz_fail("out of memory");
	body = json_text_new(again, JSON_COMPACT);
	json_decref(again);
	if (!body)
		fuzz_fail("out of memory");
	admission_outcome_init(&out);
	if (admission_review(cfg, body, strlen(body), &out) != 0)
		fuzz_fail("the patched object: admission_review failed");
	if (out.http_status != 200)
		fuzz_fail("the patched object: HTTP %d: %s", out.http_status,
			  out.body);
	if (out.failure == ADMISSION_INTERNAL)
		fuzz_fail("the patched object: internal failure: %s", out.error);
	if (out.patched)
		fuzz_fail("the patched object is patched again: %s", out.body);
	admission_outcome_clear(&out);
	free(body);
}

/* Checks the AdmissionReview answer to the readable `review`. */
static void admission_answer_check(const struct config *cfg, json_t *review,
				   json_t *request,
				   const struct admission_outcome *out)
{
	json_error_t jerr;
	json_t *answer, *response, *member, *warnings, *status;
	const char *key, *operation, *patch_text;
	size_t total = 0, i;
	int allowed;

	/* the uid and the patch keep a NUL the request had */
	answer = json_loadb(out->body, out->body_len,
			    JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	if (!json_is_object(answer))
		fuzz_fail("the answer is not a JSON object: %s", jerr.text);
	json_object_foreach(answer, key, member)
		if (strcmp(key, "apiVersion") && strcmp(key, "kind") &&
		    strcmp(key, "response"))
			fuzz_fail("the answer has '%s'", key);
	if (!json_equal(json_object_get(answer, "apiVersion"),
			json_object_get(review, "apiVersion")))
		fuzz_fail("the answer's apiVersion is not the request's");
	if (strcmp(string_or_empty(json_object_get(answer, "kind")),
		   "AdmissionReview"))
		fuzz_fail("the answer's kind is not AdmissionReview");
	response = json_object_get(answer, "response");
	if (!json_is_object(response))
		fuzz_fail("the answer has no response object");
	json_object_foreach(response, key, member)
		if (strcmp(key, "uid") && strcmp(key, "allowed") &&
		    strcmp(key, "status") && strcmp(key, "patchType") &&
		    strcmp(key, "patch") && strcmp(key, "warnings"))
			fuzz_fail("the response has '%s'", key);
	/* as it came, NUL and all */
	if (!json_equal(json_object_get(response, "uid"),
			json_object_get(request, "uid")))
		fuzz_fail("the response's uid is not the request's");
	if (!json_is_boolean(json_object_get(response, "allowed")))
		fuzz_fail("response.allowed is not a boolean");
	allowed = json_is_true(json_object_get(response, "allowed"));
	if (allowed != !!out->allowed)
		fuzz_fail("outcome.allowed %d, response.allowed %d",
			  out->allowed, allowed);

	status = json_object_get(response, "status");
	if (status && (!json_is_integer(json_object_get(status, "code")) ||
		       !json_is_string(json_object_get(status, "message"))))
		fuzz_fail("response.status is malformed");
	if (!allowed) {
		json_int_t code = json_integer_value(json_object_get(status,
								     "code"));

		if (!status || code < 400 || code > 599)
			fuzz_fail("a denial without a 4xx or 5xx status");
	}

	warnings = json_object_get(response, "warnings");
	if (warnings && (!json_is_array(warnings) || !json_array_size(warnings)))
		fuzz_fail("response.warnings is not a non-empty array");
	json_array_foreach(warnings, i, member) {
		size_t len = json_string_length(member);

		if (!json_is_string(member) || !len ||
		    len > ADMISSION_WARNING_MAX)
			fuzz_fail("warning %zu is empty, not a string or too long (%zu)",
				  i, len);
		/* warnings travel as HTTP Warning headers: no control bytes */
		for (const char *c = json_string_value(member); *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				fuzz_fail("warning %zu holds the control byte 0x%02x: '%s'",
					  i, (unsigned char)*c,
					  json_string_value(member));
		for (size_t k = 0; k < i; k++)
			if (json_equal(json_array_get(warnings, k), member))
				fuzz_fail("warning %zu is given twice", i);
		total += len;
	}
	if (total > ADMISSION_WARNINGS_TOTAL)
		fuzz_fail("%zu bytes of warnings", total);
	if (json_array_size(warnings) != out->n_warnings)
		fuzz_fail("outcome.n_warnings %zu, %zu warnings", out->n_warnings,
			  json_array_size(warnings));

	operation = json_string_value(json_object_get(request, "operation"));
	patch_text = json_string_value(json_object_get(response, "patch"));
	if (!!json_object_get(response, "patchType") !=
	    !!json_object_get(response, "patch") ||
	    !!patch_text != !!out->patched)
		fuzz_fail("patch and patchType do not go together");
	if (patch_text) {
		unsigned char *decoded;
		size_t decoded_len = 0;
		json_t *patch, *object;

		if (strcmp(string_or_empty(json_object_get(response, "patchType")),
			   "JSONPatch"))
			fuzz_fail("patchType is not JSONPatch");
		if (!allowed || !operation ||
		    (strcmp(operation, "CREATE") && strcmp(operation, "UPDATE")))
			fuzz_fail("a patch for a denial or a %s",
				  operation ? operation : "(no operation)");
		if (!(decoded = base64_decode(patch_text, &decoded_len)))
			fuzz_fail("the patch is not base64");
		patch = json_loadb((const char *)decoded, decoded_len,
				   JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
				   &jerr);
		free(decoded);
		if (!patch)
			fuzz_fail("the patch is not JSON: %s", jerr.text);
		object = json_value_copy(json_object_get(request, "object"));
		if (!json_is_object(object))
			fuzz_fail("a patch for a request without an object");
		patch_apply_checked(object, patch);
		if (!json_is_object(object))
			fuzz_fail("the patched object is not an object");
		admission_recheck(cfg, review, object);
		json_decref(object);
		json_decref(patch);
	}
	json_decref(answer);
}

/*
 * The webhook's prefilter must give the outcome of the full review, byte
 * for byte: when it answers from a skeleton, the rules had nothing to say.
 */
static void prefilter_check(const struct config *cfg, const char *body,
			    size_t len, const struct admission_outcome *full)
{
	struct json_scan_filter *filter = json_scan_filter_new(cfg, 0);
	struct admission_outcome fast;
	const char *diff;

	if (!filter)
		fuzz_fail("out of memory");
	admission_outcome_init(&fast);
	if (admission_review_filtered(cfg, filter, body, len, &fast) != 0)
		fuzz_fail("admission_review_filtered failed (out of memory?)");
	diff = admission_outcome_diff(full, &fast);
	if (diff)
		fuzz_fail("the prefilter changed the outcome's %s: '%.*s' instead of '%.*s'",
			  diff, (int)fast.body_len, fast.body,
			  (int)full->body_len, full->body);
	admission_outcome_clear(&fast);
	json_scan_filter_free(filter);
}

/*
 * The webhook's one-pass reader reads what jansson reads, member order
 * included, or leaves the body to jansson.
 */
static void reader_check(const char *body, size_t len, json_t *jansson)
{
	int depth = 0;
	struct json_tape *tape = NULL;
	json_t *mine = json_scan_read_tape(body, len, NULL, &depth, NULL,
					   &tape);
	char *a, *b;

	if (!mine)
		return;
	if (!tape)
		fuzz_fail("json_scan_read_tape read a document without its tape");
	if (!jansson)
		fuzz_fail("json_scan_read accepts what jansson refuses");
	a = json_text_new(mine, JSON_COMPACT);
	b = json_text_new(jansson, JSON_COMPACT);
	if (!a || !b)
		fuzz_fail("out of memory");
	if (strcmp(a, b))
		fuzz_fail("json_scan_read read '%s' where jansson read '%s'", a, b);
	if (depth < 1 || depth > 256)
		fuzz_fail("json_scan_read gives a depth of %d", depth);
	/* the patch check's comparison judges as json_equal() */
	if (json_scan_equal(body, len, NULL, jansson) == 0)
		fuzz_fail("json_scan_equal finds the body differs from itself");
	if (json_tape_equal(tape, NULL, jansson) != 1)
		fuzz_fail("json_tape_equal finds the body differs from itself");
	if (json_is_object(jansson)) {
		json_object_set_new(mine, "gpumend-fuzz", json_true());
		if (json_scan_equal(body, len, NULL, mine) == 1)
			fuzz_fail("json_scan_equal misses a member added");
		if (json_tape_equal(tape, NULL, mine) != 0)
			fuzz_fail("json_tape_equal misses a member added");
	}
	json_tape_free(tape);
	free(a);
	free(b);
	json_decref(mine);
}

/*
 * The webhook compares the object, its operations undone, with the tape
 * of the body it read (json_tape_equal()): that judges as json_equal()
 * judges against the object as it came, whatever the undo left.
 */
static void tape_judges_as_json_equal(json_t *original, json_t *undone)
{
	char *text = json_dumps(original, JSON_COMPACT | JSON_ENCODE_ANY);
	struct json_tape *tape = NULL;
	json_t *read;
	int depth;

	if (!text)
		fuzz_fail("out of memory");
	read = json_scan_read_tape(text, strlen(text), NULL, &depth, NULL,
				   &tape);
	/* what only jansson reads (reals...) the webhook compares as text */
	if (read && json_tape_equal(tape, NULL, undone) !=
		    json_equal(original, undone))
		fuzz_fail("json_tape_equal and json_equal disagree on the undone object");
	json_tape_free(tape);
	json_decref(read);
	free(text);
}

/*
 * The webhook's patch check (undo the operations last first in the
 * engine's object, compare with the object as it came) against the one it
 * replaced (replay them on a copy, compare with the engine's object): on
 * `original` both pass; with the engine's object or a recorded value
 * changed behind the engine's back (where `salt` says), the new one fails
 * whenever the old one does, and when it passes the patch as recorded
 * gives the engine's object.
 */
static void patch_check_compare(const struct config *cfg, json_t *original,
				size_t salt)
{
	for (int faulty = 0; faulty < 2; faulty++) {
		struct rules_options opts = { .keep_undo = 1 };
		struct rules_result res;
		struct rules_error err;
		json_t *object = json_value_copy(original), *engine;
		int old_ok, new_ok, changed = 0;

		if (!object)
			fuzz_fail("out of memory");
		rules_result_init(&res);
		if (rules_apply(cfg, &opts, object, &res, &err) != 0 ||
		    !res.n_ops) {
			rules_result_clear(&res);
			json_decref(object);
			return;
		}
		if (faulty) {
			size_t k = salt % (faults_count(object) + res.n_ops);

			changed = faults_change_at(object, &k, (unsigned)(salt >> 8));
			for (size_t i = 0; !changed && i < res.n_ops; i++)
				if (res.ops[i].value && k-- == 0) {
					size_t first = 0;

					changed = faults_change_at(res.ops[i].value,
							    &first, 0);
				}
		}
		engine = json_value_copy(object);
		old_ok = faults_replay_gives(original, &res, engine);
		new_ok = faults_revert_gives(object, &res, original);
		tape_judges_as_json_equal(original, object);
		if (!faulty && !(old_ok && new_ok))
			fuzz_fail("patch check: the engine's own patch fails (replay %d, undo %d)",
				  old_ok, new_ok);
		if (faulty && changed && !old_ok && new_ok)
			fuzz_fail("patch check: a change behind the engine's back caught by the replay, not by the undo");
		if (new_ok && !faults_replay_gives(original, &res, engine))
			fuzz_fail("patch check: the undo passes, yet the patch does not give the engine's object");
		json_decref(engine);
		json_decref(object);
		rules_result_clear(&res);
	}
}

void fuzz_check_admission(const struct config *cfg, const char *body,
			  size_t len)
{
	struct admission_outcome out;
	json_t *raw = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
	/* strings holding NUL are read encoded (nul.h): what decides */
	size_t seen_len = len;
	char *encoded = nul_text_has(body, len) ?
			nul_text_encode(body, len, &seen_len) : NULL;
	json_t *seen = encoded ? json_loadb(encoded, seen_len,
					    JSON_REJECT_DUPLICATES, NULL)
			       : json_incref(raw);
	json_t *review = seen, *request;
	const char *uid;
	char *uid_shown = NULL;

	/* the review as sent: decoded, NUL and all */
	if (encoded && seen &&
	    (!(review = json_value_copy(seen)) || nul_json_decode(review)))
		fuzz_fail("out of memory");
	request = readable_request(seen, &uid) ?
		  json_object_get(review, "request") : NULL;
	if (request && !(uid_shown = strdup(uid)))
		fuzz_fail("out of memory");
	/* only an encoded uid is decoded: a body without NUL may hold the
	 * noncharacters of the encoding themselves, answered as they came */
	if (uid_shown && encoded)
		nul_text_decode(uid_shown);

	reader_check(body, len, raw);
	/* the object as the engine sees it: encoded */
	if (request &&
	    json_is_object(json_object_get(json_object_get(seen, "request"),
					   "object")))
		patch_check_compare(cfg, json_object_get(json_object_get(seen,
									 "request"),
							 "object"),
				    len * 2654435761u + (len ? (unsigned char)body[len / 2] : 0));
	admission_outcome_init(&out);
	if (admission_review(cfg, body, len, &out) != 0)
		fuzz_fail("admission_review failed (out of memory?)");
	prefilter_check(cfg, body, len, &out);
	if (!out.body || !out.body_len || strlen(out.body) != out.body_len ||
	    out.body[out.body_len - 1] != '\n')
		fuzz_fail("the body is empty or does not end with a newline");
	if (!request) {
		if (out.http_status != 400)
			fuzz_fail("HTTP %d for a review without a readable uid",
				  out.http_status);
		if (memchr(out.body, '\n', out.body_len) !=
		    out.body + out.body_len - 1)
			fuzz_fail("the 400 body is not one line: %s", out.body);
	} else {
		if (out.http_status != 200)
			fuzz_fail("HTTP %d for a review with uid '%s': %s",
				  out.http_status, uid_shown, out.body);
		if (!out.uid || strcmp(out.uid, uid_shown))
			fuzz_fail("outcome.uid is not the request's");
		admission_answer_check(cfg, review, request, &out);
	}
	admission_outcome_clear(&out);
	free(uid_shown);
	free(encoded);
	if (review != seen)
		json_decref(review);
	json_decref(seen);
	json_decref(raw);
}

/* ------------------------------------------------------------------ */
/* migrate                                                             */

struct migrate_run {
	const struct config *cfg;
	const char *text;
	size_t len;
	struct buf out;
	size_t pos;            /* input copied up to here */
	int errors;            /* reported errors: the file stays as it is */
	size_t n_ops;          /* operations over every document */
	json_t *docs;          /* each document as the rules left it */
};

/*
 * Locates a finding in its document (of `len` bytes) as the CLI does, and
 * checks it and its place.
 */
static void finding_locate(size_t len, struct source_doc *doc,
			   const struct finding *f, int *line_out,
			   int *column_out)
{
	int line, column;

	finding_check(f);
	if (!doc->root)
		fuzz_fail("a finding in a document without a source tree");
	source_locate(doc->root, f->pointer, &line, &column);
	if (line < 1 || column < 1 || (size_t)line > len + 1 ||
	    (size_t)column > len + 1)
		fuzz_fail("finding at '%s' located at %d:%d in %zu bytes",
			  f->pointer, line, column, len);
	*line_out = line;
	*column_out = column;
}

static void doc_span_check(const struct migrate_run *run,
			   const struct source_doc *doc)
{
	if (doc->start < run->pos || doc->end < doc->start ||
	    doc->end > run->len)
		fuzz_fail("document %d spans [%zu, %zu) after %zu of %zu bytes",
			  doc->index + 1, doc->start, doc->end, run->pos,
			  run->len);
}

static int migrate_doc(void *arg, struct stream_doc *sd)
{
	struct migrate_run *run = arg;
	struct source_doc *doc = sd->doc;
	const struct rules_result *res = sd->result;
	struct source_limits limits = source_limits_of(run->cfg);
	struct source_error err;
	char why[256];
	int reemitted = 0;
	json_t *copy;

	doc_span_check(run, doc);
	for (size_t i = 0; i < res->n_findings; i++) {
		const struct finding *f = &res->findings[i];
		int line, column;

		if (f->fixed)
			continue;
		finding_locate(run->len, doc, f, &line, &column);
		if (f->severity == SEVERITY_ERROR)
			run->errors++;
	}
	/* a sparse document (no rule's trigger in it) is read in full here:
	 * its value is what the migrated text must read back */
	if (doc->sparse && source_doc_full(run->text, run->len, doc, &limits,
					   &err))
		fuzz_fail("a sparse document does not read in full: %d:%d: %s",
			  err.line, err.column, err.message);
	copy = doc->json ? json_value_copy(doc->json) : json_null();
	if (!copy || json_array_append_new(run->docs, copy))
		fuzz_fail("out of memory");
	run->n_ops += res->n_ops;
	if (buf_append(&run->out, run->text + run->pos, doc->start - run->pos))
		fuzz_fail("out of memory");
	if (res->n_ops == 0) {
		if (buf_append(&run->out, run->text + doc->start,
			       doc->end - doc->start))
			fuzz_fail("out of memory");
	} else if (!run->errors) {
		why[0] = '\0';
		if (text_patch_document(&run->out, run->text, run->len, doc,
					res, doc->json, &limits, &reemitted,
					why, sizeof(why))) {
			if (!why[0])
				fuzz_fail("text_patch_document failed without a reason");
			run->errors++;
		}
	}
	run->pos = doc->end;
	return 0;
}

/* Migrates `text`, with the CLI's trigger search `filter` (NULL: every
 * rule on every document); 0, or -1 when the CLI would report an error. */
static int migrate_run(struct migrate_run *run, const struct config *cfg,
		       const struct json_scan_filter *filter,
		       const char *text, size_t len, struct source_error *err)
{
	struct rules_options opts = {
		.offline = 1, .read_json = json_scan_read_value,
	};

	json_scan_filter_gate(filter, &opts);
	memset(run, 0, sizeof(*run));
	run->cfg = cfg;
	run->text = text;
	run->len = len;
	buf_init(&run->out, 0);
	if (!(run->docs = json_array()))
		fuzz_fail("out of memory");
	if (stream_each(text, len, cfg, &opts, migrate_doc, run, err) != 0)
		return -1;
	if (run->errors)
		return -1;
	if (buf_append(&run->out, text + run->pos, len - run->pos))
		fuzz_fail("out of memory");
	return 0;
}

static void migrate_run_free(struct migrate_run *run)
{
	buf_free(&run->out);
	json_decref(run->docs);
}

/* A JSON file stays a JSON file. */
static void json_text_check(const char *text, size_t len, const char *output,
			    size_t output_len)
{
	json_error_t jerr;
	json_t *in = json_loadb(text, len, JSON_DECODE_ANY, NULL), *out;

	if (!in)
		return;
	json_decref(in);
	out = json_loadb(output, output_len, JSON_DECODE_ANY, &jerr);
	if (!out)
		fuzz_fail("JSON in, not JSON out: %d:%d: %s", jerr.line,
			  jerr.column, jerr.text);
	json_decref(out);
}

/*
 * The text the CLI gives stream_each(): a UTF-16 file with its byte order
 * mark turned into UTF-8, as files.c reads it (`utf8` holds it). NULL when
 * it does not decode (the CLI reports the file and leaves it).
 */
static const char *cli_text(const char *text, size_t *len, struct buf *utf8)
{
	enum utf16_order order = utf16_detect(text, *len);
	size_t bad_at;

	buf_init(utf8, 0);
	if (order == UTF16_NONE)
		return text;
	if (utf16_to_utf8(text, *len, order, utf8, &bad_at) != 0) {
		if (bad_at == (size_t)-1)
			fuzz_fail("out of memory");
		return NULL;
	}
	*len = utf8->len;
	return utf8->data ? utf8->data : "";
}

static void check_migrate(const struct config *cfg, const char *text,
			  size_t len);

void fuzz_check_migrate(const struct config *cfg, const char *text,
			size_t len)
{
	struct buf utf8;
	const char *t = cli_text(text, &len, &utf8);

	if (t)
		check_migrate(cfg, t, len);
	buf_free(&utf8);
}

static void check_migrate(const struct config *cfg, const char *text,
			  size_t len)
{
	struct migrate_run first, second, all;
	struct source_error err;
	struct json_scan_filter *filter = cli_filter_new(cfg);
	char *output;
	size_t i;
	json_t *doc;
	int rc = migrate_run(&first, cfg, filter, text, len, &err);

	/* the trigger search leaves out only rules with nothing to do */
	if ((migrate_run(&all, cfg, NULL, text, len, &err) != 0) != (rc != 0))
		fuzz_fail("the trigger search changes whether the text migrates");
	if (rc == 0 && (all.out.len != first.out.len ||
			memcmp(all.out.data ? all.out.data : "",
			       first.out.data ? first.out.data : "",
			       first.out.len) ||
			!json_equal(all.docs, first.docs)))
		fuzz_fail("the trigger search changes the migrated text");
	migrate_run_free(&all);
	if (rc != 0) {
		migrate_run_free(&first);
		json_scan_filter_free(filter);
		return;
	}
	output = exact_copy(first.out.data ? first.out.data : "",
			    first.out.len);
	if (migrate_run(&second, cfg, filter, output, first.out.len, &err) != 0)
		fuzz_fail("the migrated text %s: %d:%d: %s",
			  second.errors ? "has errors" : "does not parse",
			  err.line, err.column, err.message);
	if (second.n_ops)
		fuzz_fail("migrating the migrated text has %zu more operations",
			  second.n_ops);
	if (second.out.len != first.out.len ||
	    memcmp(second.out.data ? second.out.data : "", output,
		   first.out.len))
		fuzz_fail("migrating the migrated text changes it");
	if (json_array_size(second.docs) != json_array_size(first.docs))
		fuzz_fail("%zu documents in, %zu in the migrated text",
			  json_array_size(first.docs),
			  json_array_size(second.docs));
	json_array_foreach(first.docs, i, doc)
		if (!json_equal(doc, json_array_get(second.docs, i)))
			fuzz_fail("document %zu of the migrated text is not what the rules made",
				  i + 1);
	json_text_check(text, len, output, first.out.len);
	migrate_run_free(&second);
	migrate_run_free(&first);
	json_scan_filter_free(filter);
	free(output);
}

/* ------------------------------------------------------------------ */
/* lint                                                                */

struct lint_run {
	size_t len;            /* of the input */
	struct report_item *items;
	size_t n, cap;
};

static void lint_add(struct lint_run *run, int line, int column,
		     const char *rule, const char *severity,
		     const char *message, const char *pointer)
{
	struct report_item *item;

	if (run->n == run->cap) {
		size_t cap = run->cap ? run->cap * 2 : 16;
		struct report_item *grown = realloc(run->items,
						    cap * sizeof(*grown));

		if (!grown)
			fuzz_fail("out of memory");
		run->items = grown;
		run->cap = cap;
	}
	item = &run->items[run->n++];
	memset(item, 0, sizeof(*item));
	item->file = "fuzz/input.yaml";
	item->line = line;
	item->column = column;
	item->rule = rule;
	item->severity = severity;
	item->message = strdup(message);
	item->pointer = pointer ? strdup(pointer) : NULL;
	if (!item->message || (pointer && !item->pointer))
		fuzz_fail("out of memory");
}

/* The object `item` is about, its names copied (the document goes):
 * the item owns them, lint_run_free() frees them. */
static void lint_add_object(struct report_item *item, json_t *root)
{
	struct report_item found = { .pointer = item->pointer };
	struct report_object obj;

	report_item_object(&found, root);
	if (report_object_copy(&obj, &found, NULL, NULL))
		fuzz_fail("out of memory");
	if (item->pointer && found.object_at > strlen(item->pointer))
		fuzz_fail("the object of '%s' is past its end", item->pointer);
	report_object_lend(item, &obj);
	item->object_at = found.object_at;
}

static int lint_doc(void *arg, struct stream_doc *sd)
{
	struct lint_run *run = arg;

	if (sd->result->n_ops)
		fuzz_fail("report-only rules emitted %zu operations",
			  sd->result->n_ops);
	for (size_t i = 0; i < sd->result->n_findings; i++) {
		const struct finding *f = &sd->result->findings[i];
		int line, column;

		finding_locate(run->len, sd->doc, f, &line, &column);
		if (!json_pointer_get(sd->doc->json, f->pointer))
			fuzz_fail("finding of '%s' at '%s': no such node in the input",
				  rule_info_get(f->rule)->name, f->pointer);
		lint_add(run, line, column, rule_info_get(f->rule)->name,
			 severity_name(f->severity), f->message, f->pointer);
		lint_add_object(&run->items[run->n - 1], sd->doc->json);
	}
	return 0;
}

static void report_check(const struct lint_run *run, enum report_format fmt)
{
	static const char *const names[] = {
		"text", "json", "sarif", "github", "codequality",
	};
	struct buf out;
	json_error_t jerr;
	json_t *root, *results;

	buf_init(&out, 0);
	if (report_write(&out, fmt, run->items, run->n, NULL) != 0)
		fuzz_fail("report_write %s failed", names[fmt]);
	switch (fmt) {
	case REPORT_TEXT:
	case REPORT_GITHUB:
		if (count_char(out.data ? out.data : "", out.len, '\n') != run->n)
			fuzz_fail("the %s report of %zu findings has %zu lines",
				  names[fmt], run->n,
				  count_char(out.data ? out.data : "", out.len,
					     '\n'));
		break;
	case REPORT_JSON:
	case REPORT_CODEQUALITY:
	case REPORT_SARIF:
		root = json_loadb(out.data, out.len, JSON_REJECT_DUPLICATES,
				  &jerr);
		if (!root)
			fuzz_fail("the %s report does not parse: %s",
				  names[fmt], jerr.text);
		results = fmt != REPORT_SARIF ? root :
			json_object_get(json_array_get(json_object_get(root,
								       "runs"),
						       0),
					"results");
		if (json_array_size(results) != run->n)
			fuzz_fail("the %s report holds %zu of %zu findings",
				  names[fmt], json_array_size(results), run->n);
		json_decref(root);
		break;
	}
	buf_free(&out);
}

/* Lints `text` into `run`, with the CLI's trigger search `filter` (NULL:
 * every rule on every document). */
static void lint_once(const struct config *cfg,
		      const struct json_scan_filter *filter, const char *text,
		      size_t len, struct lint_run *run)
{
	struct rules_options opts = {
		.offline = 1, .report_only = 1,
		.read_json = json_scan_read_value,
	};
	struct source_error err;

	json_scan_filter_gate(filter, &opts);
	memset(run, 0, sizeof(*run));
	run->len = len;
	if (stream_each(text, len, cfg, &opts, lint_doc, run, &err) != 0) {
		if (!err.message[0])
			fuzz_fail("stream_each failed without a message");
		if (err.line < 0 || err.column < 0 ||
		    (size_t)err.line > len + 1)
			fuzz_fail("syntax error at %d:%d in %zu bytes",
				  err.line, err.column, len);
		lint_add(run, err.line, err.column, "syntax", "error",
			 err.message, NULL);
	}
}

static void lint_run_free(struct lint_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		free((char *)run->items[i].message);
		free((char *)run->items[i].pointer);
		free((char *)run->items[i].kind);
		free((char *)run->items[i].namespace);
		free((char *)run->items[i].name);
		free((char *)run->items[i].generate_name);
	}
	free(run->items);
}

static void check_lint(const struct config *cfg, const char *text,
		       size_t len);

void fuzz_check_lint(const struct config *cfg, const char *text, size_t len)
{
	struct buf utf8;
	const char *t = cli_text(text, &len, &utf8);

	if (t)
		check_lint(cfg, t, len);
	buf_free(&utf8);
}

static void check_lint(const struct config *cfg, const char *text,
		       size_t len)
{
	struct json_scan_filter *filter = cli_filter_new(cfg);
	struct lint_run run, all;

	lint_once(cfg, filter, text, len, &run);
	/* the trigger search leaves out only rules with nothing to find */
	lint_once(cfg, NULL, text, len, &all);
	if (all.n != run.n)
		fuzz_fail("the trigger search changes the findings: %zu, %zu without",
			  run.n, all.n);
	for (size_t i = 0; i < run.n; i++)
		if (run.items[i].line != all.items[i].line ||
		    run.items[i].column != all.items[i].column ||
		    strcmp(run.items[i].rule, all.items[i].rule) ||
		    strcmp(run.items[i].message, all.items[i].message))
			fuzz_fail("the trigger search changes finding %zu", i);
	for (int fmt = REPORT_TEXT; fmt <= REPORT_CODEQUALITY; fmt++)
		report_check(&run, (enum report_format)fmt);
	lint_run_free(&all);
	lint_run_free(&run);
	json_scan_filter_free(filter);
}

/* ------------------------------------------------------------------ */
/* The rules under a configuration                                     */

/* Objects that give every rule something to do. */
static const char *const rule_objects[] = {
	"{\"apiVersion\":\"extensions/v1beta1\",\"kind\":\"Deployment\","
	"\"metadata\":{\"name\":\"train\",\"namespace\":\"default\","
	"\"annotations\":{\"ALIYUN_COM_GPU_MEM_IDX\":\"0\"}},"
	"\"spec\":{\"template\":{\"metadata\":{\"labels\":{\"app\":\"train\"},"
	"\"annotations\":{\"scheduler.alpha.kubernetes.io/affinity\":"
	"\"{\\\"nodeAffinity\\\":{\\\"requiredDuringSchedulingIgnoredDuringExecution\\\":"
	"{\\\"nodeSelectorTerms\\\":[{\\\"matchExpressions\\\":[{\\\"key\\\":"
	"\\\"alpha.kubernetes.io/nvidia-gpu-name\\\",\\\"operator\\\":\\\"In\\\","
	"\\\"values\\\":[\\\"Tesla K80\\\"]}]}]}}}\","
	"\"gpumend.io/gpu-models\":\"Tesla V100, A100\"}},"
	"\"spec\":{\"schedulerName\":\"rancher-gpushare-scheduler\","
	"\"nodeSelector\":{\"alpha.kubernetes.io/nvidia-gpu-name\":\"Tesla  K80\","
	"\"gpushare\":\"true\"},"
	"\"containers\":[{\"name\":\"cuda\",\"image\":\"nvidia/cuda:9.0-devel\","
	"\"args\":[\"--feature-gates=Accelerators=true\"],"
	"\"resources\":{\"limits\":{\"alpha.kubernetes.io/nvidia-gpu\":2,"
	"\"aliyun.com/gpu-mem\":\"3\"},\"requests\":{\"alpha.kubernetes.io/nvidia-gpu\":\"2\"}},"
	"\"volumeMounts\":[{\"name\":\"nvidia\",\"mountPath\":\"/usr/local/nvidia\"},"
	"{\"name\":\"bin\",\"mountPath\":\"/usr/local/nvidia/bin\"}]},"
	"{\"name\":\"side\",\"image\":\"tensorflow/tensorflow:1.5-gpu\","
	"\"env\":[{\"name\":\"NVIDIA_VISIBLE_DEVICES\",\"value\":\"all\"}],"
	"\"resources\":{\"limits\":{\"volcano.sh/gpu-memory\":1024,"
	"\"volcano.sh/gpu-number\":1}}}],"
	"\"volumes\":[{\"name\":\"nvidia\",\"hostPath\":{\"path\":\"/usr/lib/nvidia-384\"}},"
	"{\"name\":\"bin\",\"hostPath\":{\"path\":\"/usr/bin\"}}]}}}}",
	"{\"apiVersion\":\"batch/v1beta1\",\"kind\":\"CronJob\","
	"\"metadata\":{\"name\":\"nightly\",\"namespace\":\"research\"},"
	"\"spec\":{\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":{"
	"\"affinity\":{\"nodeAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":"
	"[{\"weight\":1,\"preference\":{\"matchExpressions\":[{\"key\":"
	"\"alpha.kubernetes.io/nvidia-gpu-name\",\"operator\":\"In\","
	"\"values\":[\"Tesla P100\"]}]}}]}},"
	"\"containers\":[{\"name\":\"job\",\"image\":\"nvcr.io/nvidia/pytorch:19.01\","
	"\"resources\":{\"limits\":{\"rancher.io/gpu-mem\":2,"
	"\"nvidia.com/gpu.shared\":1}}}]}}}}}}",
	("{\"apiVersion\":\"kubelet.config.k8s.io/v1beta1\",\"kind\":\"KubeletConfiguration\","
	 "\"featureGates\":{\"DevicePlugins\":true,\"Accelerators\":true}}"),
};

/* The admission handler on a CREATE review of `object_text`. */
static void review_check(const struct config *cfg, const char *object_text)
{
	json_t *review = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:o}}",
				   "apiVersion", "admission.k8s.io/v1",
				   "kind", "AdmissionReview", "request",
				   "uid", "fuzz-config", "operation", "CREATE",
				   "namespace", "default", "object",
				   json_loads(object_text, 0, NULL));
	char *body = review ? json_text_new(review, JSON_COMPACT) : NULL;

	if (!body)
		fuzz_fail("out of memory");
	fuzz_check_admission(cfg, body, strlen(body));
	free(body);
	json_decref(review);
}

void fuzz_check_rules(const struct config *cfg)
{
	for (size_t k = 0; k < sizeof(rule_objects) / sizeof(rule_objects[0]); k++) {
		struct rules_options opts = {
			.offline = 1, .read_json = json_scan_read_value,
		};
		struct rules_result result;
		struct rules_error err;
		json_error_t jerr;
		json_t *object = json_loads(rule_objects[k], 0, &jerr);
		json_t *original = json_value_copy(object);

		if (!object || !original)
			fuzz_fail("built-in object %zu: %s", k, jerr.text);
		rules_result_init(&result);
		if (rules_apply(cfg, &opts, object, &result, &err) != 0)
			fuzz_fail("object %zu: rules_apply failed at '%s': %s",
				  k, err.pointer, err.message);
		for (size_t i = 0; i < result.n_findings; i++)
			finding_check(&result.findings[i]);
		for (size_t i = 0; i < result.n_ops; i++) {
			struct patch_op op = result.ops[i];

			if (op.value && !(op.value = json_value_copy(op.value)))
				fuzz_fail("out of memory");
			if (patch_apply_op(original, &op) != 0)
				fuzz_fail("object %zu: operation %zu (%s) does not replay",
					  k, i, op.path);
			json_decref(op.value);
		}
		if (!json_equal(original, object))
			fuzz_fail("object %zu: the operations do not give the result",
				  k);
		rules_result_clear(&result);
		/* the rules are idempotent: nothing left to do on their output */
		rules_result_init(&result);
		if (rules_apply(cfg, &opts, original, &result, &err) != 0)
			fuzz_fail("object %zu: rules_apply on its result failed at '%s': %s",
				  k, err.pointer, err.message);
		if (result.n_ops)
			fuzz_fail("object %zu: the rules change their own result ('%s')",
				  k, result.ops[0].path);
		rules_result_clear(&result);
		json_decref(original);
		json_decref(object);
		review_check(cfg, rule_objects[k]);
	}
}
