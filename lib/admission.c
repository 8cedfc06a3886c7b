/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admission.c - reviews one AdmissionReview with the rule engine and
 * writes the response (see admission.h for the contract).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "ascii.h"
#include "json_write.h"
#include "arena.h"
#include "buf.h"
#include "converge.h"
#include "nul.h"

static const char *const review_versions[] = {
	"admission.k8s.io/v1",
	"admission.k8s.io/v1beta1",
};

static const char *const operations[] = {
	"CREATE", "UPDATE", "DELETE", "CONNECT"
};

enum operation { OP_CREATE, OP_UPDATE, OP_DELETE, OP_CONNECT };

/* Room kept in the warnings budget for the "N more" note. */
#define WARNINGS_NOTE_RESERVE 100
/* Cap of the denial message. */
#define DENY_MESSAGE_MAX 1024

/* The response being built. */
struct answer {
	int allowed;
	struct buf patch;        /* RFC 6902 array as JSON text; empty: none */
	json_t *warnings;        /* array of strings */
	size_t warnings_bytes;
	size_t warnings_dropped;
	int status_code;         /* 0: no status */
	char *status_message;    /* owned */
};

void admission_outcome_init(struct admission_outcome *out)
{
	memset(out, 0, sizeof(*out));
}

void admission_outcome_clear(struct admission_outcome *out)
{
	if (!out)
		return;
	free(out->body);
	free(out->uid);
	free(out->kind);
	free(out->namespace_name);
	free(out->name);
	free(out->owner);
	admission_outcome_init(out);
}

/* Two strings, either possibly NULL, are the same. */
static int same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

const char *admission_outcome_diff(const struct admission_outcome *a,
				   const struct admission_outcome *b)
{
	if (a->http_status != b->http_status)
		return "http_status";
	if (a->body_len != b->body_len ||
	    (a->body_len && memcmp(a->body, b->body, a->body_len)))
		return "body";
	if (!same_text(a->uid, b->uid) ||
	    !same_text(a->api_version, b->api_version) ||
	    !same_text(a->operation, b->operation) ||
	    !same_text(a->kind, b->kind) ||
	    !same_text(a->namespace_name, b->namespace_name) ||
	    !same_text(a->name, b->name) || !same_text(a->owner, b->owner) ||
	    a->dry_run != b->dry_run)
		return "what the review was about";
	if (a->allowed != b->allowed || a->patched != b->patched ||
	    a->mutated_rules != b->mutated_rules ||
	    a->n_warnings != b->n_warnings)
		return "the answer";
	if (memcmp(a->findings, b->findings, sizeof(a->findings)))
		return "findings";
	if (a->failure != b->failure || strcmp(a->error, b->error))
		return "failure";
	return NULL;
}

char *admission_base64(const unsigned char *data, size_t len)
{
	struct buf text;

	buf_init(&text, 0);
	if (json_write_base64(&text, data, len)) {
		buf_free(&text);
		return NULL;
	}
	return buf_detach(&text, NULL);
}

/* strdup of a possibly NULL string; -1 when out of memory. */
static int dup_field(char **field, const char *value)
{
	if (!value)
		return 0;
	*field = strdup(value);
	return *field ? 0 : -1;
}

/* Sets out->body to `text` and a newline; takes `text` (from malloc). */
static int set_body(struct admission_outcome *out, char *text)
{
	size_t len = strlen(text);
	char *body = realloc(text, len + 2);

	if (!body) {
		free(text);
		return -1;
	}
	body[len++] = '\n';
	body[len] = '\0';
	free(out->body);
	out->body = body;
	out->body_len = len;
	return 0;
}

/* A 400 with a plain-text message: no uid could be read. */
static int answer_plain(struct admission_outcome *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int answer_plain(struct admission_outcome *out, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	vsnprintf(out->error, sizeof(out->error), fmt, ap);
	va_end(ap);
	out->http_status = 400;
	out->failure = ADMISSION_BAD_REQUEST;
	out->allowed = 0;
	/* jansson's errors quote the input: keep the answer one line */
	if (!(text = strdup(out->error)) || !(text = text_escape_controls(text)))
		return -1;
	snprintf(out->error, sizeof(out->error), "%s", text);
	return set_body(out, text);
}

/* ------------------------------------------------------------------ */
/* Warnings                                                            */

/* Length of the longest prefix of `text` of at most `max` bytes that does
 * not split a UTF-8 sequence. */
static size_t utf8_prefix(const char *text, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)text[max] & 0xC0) == 0x80)
		max--;
	return max;
}

/* 1 when text[0..len) is well-formed UTF-8 (as jansson requires). */
static int utf8_valid(const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text, *end = p + len;

	while (p < end) {
		unsigned c, n, cp;

		p += ascii_span((const char *)p, (size_t)(end - p));
		if (p == end)
			break;
		c = *p;
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			return 0;
		if ((size_t)(end - p) <= n)
			return 0;
		for (unsigned i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return 0;
		p += n + 1;
	}
	return 1;
}

/*
 * Adds one warning, shortened to ADMISSION_WARNING_MAX bytes; an exact
 * duplicate is dropped, and so is anything past the total budget (counted
 * for the final note). Returns -1 when out of memory.
 */
static int warning_add(struct answer *a, const char *text)
{
	char line[ADMISSION_WARNING_MAX + 1];
	size_t len = strlen(text), i;
	json_t *item;

	if (len > ADMISSION_WARNING_MAX) {
		len = utf8_prefix(text, len, ADMISSION_WARNING_MAX - 3);
		memcpy(line, text, len);
		memcpy(line + len, "...", 4);
		len += 3;
	} else {
		memcpy(line, text, len + 1);
	}
	json_array_foreach(a->warnings, i, item)
		if (strcmp(json_string_value(item), line) == 0)
			return 0;
	if (a->warnings_bytes + len >
	    ADMISSION_WARNINGS_TOTAL - WARNINGS_NOTE_RESERVE) {
		a->warnings_dropped++;
		return 0;
	}
	item = utf8_valid(line, len) ? json_stringn_nocheck(line, len) : NULL;
	if (!item) {
		/* not UTF-8 (cannot come from a parsed object): leave it out */
		a->warnings_dropped++;
		return 0;
	}
	if (json_array_append_new(a->warnings, item) != 0)
		return -1;
	a->warnings_bytes += len;
	return 0;
}

/*
 * The name of the container a finding's pointer is in, borrowed from
 * `object`; NULL when the pointer is not inside a named container.
 */
static const char *container_name_at(json_t *object, const char *pointer)
{
	static const char *const lists[] = {
		"/containers/", "/initContainers/", "/ephemeralContainers/"
	};
	const char *best = NULL, *name;
	char prefix[512];
	size_t len;

	for (size_t l = 0; l < 3; l++) {
		const char *p = pointer, *hit;

		while ((hit = strstr(p, lists[l]))) {
			const char *digits = hit + strlen(lists[l]);

			if (*digits >= '0' && *digits <= '9' && (!best || hit > best))
				best = hit;
			p = hit + 1;
		}
	}
	if (!best)
		return NULL;
	best = strchr(best + 1, '/') + 1;      /* the index */
	while (*best >= '0' && *best <= '9')
		best++;
	len = (size_t)(best - pointer);
	if (len + sizeof("/name") > sizeof(prefix))
		return NULL;
	memcpy(prefix, pointer, len);
	strcpy(prefix + len, "/name");
	name = json_string_value(json_pointer_get(object, prefix));
	return name && *name ? name : NULL;
}

/* 1 when `message` already names `name` in quotes. */
static int mentions_name(const char *message, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = strchr(message, '\''); p; p = strchr(p + 1, '\''))
		if (!strncmp(p + 1, name, len) && p[1 + len] == '\'')
			return 1;
	return 0;
}

/*
 * "RULE: MESSAGE", followed by the container it is about when the message
 * does not name it and that still fits in one warning.
 */
static int warning_add_finding(struct answer *a, json_t *object,
			       const struct finding *f)
{
	const char *rule = rule_info_get(f->rule)->name;
	const char *container = container_name_at(object, f->pointer);
	struct buf text;
	int rc;

	buf_init(&text, 0);
	rc = buf_puts(&text, rule) || buf_puts(&text, ": ") ||
	     buf_puts(&text, f->message) ? -1 : 0;
	if (!rc && container &&
	    text.len + strlen(container) + sizeof(" (container '')") - 1 <=
	    ADMISSION_WARNING_MAX &&
	    !mentions_name(f->message, container))
		rc = buf_puts(&text, " (container '") ||
		     buf_puts(&text, container) || buf_puts(&text, "')") ? -1 : 0;
	if (!rc) {
		/* the container's name comes from the object as it is */
		char *line = text_escape_controls(buf_detach(&text, NULL));

		rc = line ? warning_add(a, line) : -1;
		free(line);
	}
	buf_free(&text);
	return rc;
}

/* Adds the note about warnings left out, if any. */
static int warnings_finish(struct answer *a)
{
	char note[ADMISSION_WARNING_MAX + 1];
	json_t *item;

	if (!a->warnings_dropped)
		return 0;
	snprintf(note, sizeof(note),
		 "gpumend: %zu more finding%s not shown; run 'gpumend lint' on the object",
		 a->warnings_dropped, a->warnings_dropped == 1 ? "" : "s");
	item = json_string(note);
	if (!item || json_array_append_new(a->warnings, item) != 0)
		return -1;
	a->warnings_bytes += strlen(note);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Answers                                                             */

static void answer_clear(struct answer *a)
{
	buf_free(&a->patch);
	json_decref(a->warnings);
	free(a->status_message);
}

/* Sets a status with a formatted message (replacing any earlier one). */
static int answer_status(struct answer *a, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int answer_status(struct answer *a, int code, const char *fmt, ...)
{
	struct buf text;
	va_list ap;
	int rc;

	buf_init(&text, 0);
	va_start(ap, fmt);
	rc = buf_vprintf(&text, fmt, ap);
	va_end(ap);
	if (rc) {
		buf_free(&text);
		return -1;
	}
	free(a->status_message);
	a->status_message = buf_detach(&text, NULL);
	a->status_code = code;
	return a->status_message ? 0 : -1;
}

/*
 * The review could not be done although the request has a uid: answer
 * per cfg->failure_allow, saying why, without a patch or other warnings.
 */
static int answer_failure(const struct config *cfg, struct answer *a,
			  struct admission_outcome *out,
			  enum admission_failure kind, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int answer_failure(const struct config *cfg, struct answer *a,
			  struct admission_outcome *out,
			  enum admission_failure kind, const char *fmt, ...)
{
	char text[sizeof(out->error) + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->error, sizeof(out->error), fmt, ap);
	va_end(ap);
	out->failure = kind;
	buf_free(&a->patch);
	json_array_clear(a->warnings);
	a->warnings_bytes = 0;
	a->warnings_dropped = 0;
	a->allowed = cfg->failure_allow;
	if (a->allowed) {
		snprintf(text, sizeof(text),
			 "gpumend: object admitted unchanged: %s", out->error);
		return warning_add(a, text);
	}
	return answer_status(a, kind == ADMISSION_INTERNAL ? 500 : 400,
			     "gpumend: cannot review the object: %s",
			     out->error);
}

/*
 * Strings holding NUL were reviewed encoded (nul.h): the patch gets its
 * NUL back, the texts for people show \u0000. 0 or -1.
 */
static int answer_nul_decode(struct answer *a)
{
	size_t i;
	json_t *item;

	if (a->patch.len) {
		nul_text_decode(a->patch.data);
		a->patch.len = strlen(a->patch.data);
	}
	if (a->status_message)
		nul_text_decode(a->status_message);
	json_array_foreach(a->warnings, i, item) {
		char *line = strdup(json_string_value(item));
		int rc;

		if (!line)
			return -1;
		nul_text_decode(line);
		rc = json_string_set(item, line);
		free(line);
		if (rc)
			return -1;
	}
	return 0;
}

/* Appends `uid` as a JSON string; with `nul`, as it came (NUL and all). */
static int write_uid(struct buf *text, const char *uid, int nul)
{
	size_t start = text->len;

	if (json_write_string(text, uid, strlen(uid)))
		return -1;
	if (nul) {
		nul_text_decode(text->data + start);
		text->len = start + strlen(text->data + start);
	}
	return 0;
}

/* Serialises the answer into out->body. */
static int answer_write(struct admission_outcome *out, const char *api_version,
			const char *uid, struct answer *a)
{
	struct buf text;
	int rc = -1;

	if ((out->nul && answer_nul_decode(a)) || warnings_finish(a))
		return -1;
	/* what jansson would refuse to write */
	if (a->status_code &&
	    !utf8_valid(a->status_message, strlen(a->status_message)))
		return -1;
	buf_init(&text, 0);
	if (buf_grow(&text, 160 + a->patch.len / 3 * 4 + a->warnings_bytes) ||
	    buf_puts(&text, "{\"apiVersion\":") ||
	    json_write_string(&text, api_version, strlen(api_version)) ||
	    buf_puts(&text, ",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":") ||
	    write_uid(&text, uid, out->nul) ||
	    buf_puts(&text, a->allowed ? ",\"allowed\":true" : ",\"allowed\":false"))
		goto out_free;
	if (a->status_code &&
	    (buf_puts(&text, ",\"status\":{\"code\":") ||
	     json_write_int(&text, a->status_code) ||
	     buf_puts(&text, ",\"message\":") ||
	     json_write_string(&text, a->status_message,
			       strlen(a->status_message)) ||
	     buf_putc(&text, '}')))
		goto out_free;
	if (a->patch.len &&
	    (buf_puts(&text, ",\"patchType\":\"JSONPatch\",\"patch\":\"") ||
	     json_write_base64(&text, (const unsigned char *)a->patch.data,
			       a->patch.len) ||
	     buf_putc(&text, '"')))
		goto out_free;
	if (json_array_size(a->warnings) &&
	    (buf_puts(&text, ",\"warnings\":") ||
	     json_write_value(&text, a->warnings)))
		goto out_free;
	if (buf_puts(&text, "}}\n"))
		goto out_free;
	out->http_status = 200;
	out->allowed = a->allowed;
	out->patched = a->patch.len != 0;
	out->n_warnings = json_array_size(a->warnings);
	free(out->body);
	out->body = buf_detach(&text, &out->body_len);
	rc = 0;
out_free:
	buf_free(&text);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The review                                                          */

/* 1 when `value` nests deeper than `limit` levels of arrays and objects. */
static int too_deep(json_t *value, int limit)
{
	const char *key;
	json_t *child;
	size_t i;

	if (!json_is_object(value) && !json_is_array(value))
		return 0;
	if (limit <= 0)
		return 1;
	if (json_is_object(value)) {
		json_object_foreach(value, key, child)
			if (too_deep(child, limit - 1))
				return 1;
	} else {
		json_array_foreach(value, i, child)
			if (too_deep(child, limit - 1))
				return 1;
	}
	return 0;
}

/* Appends the comma-separated `names` that `list` lacks; 0 or -1. */
static int csv_merge(struct buf *list, const char *names)
{
	const char *p = names;

	while (*p) {
		const char *start, *end;
		size_t len;
		int present = 0;

		while (*p == ',' || *p == ' ')
			p++;
		start = p;
		while (*p && *p != ',')
			p++;
		end = p;
		while (end > start && end[-1] == ' ')
			end--;
		len = (size_t)(end - start);
		if (!len)
			continue;
		for (const char *q = list->data; q && *q;) {
			const char *comma = strchr(q, ',');
			size_t qlen = comma ? (size_t)(comma - q) : strlen(q);

			if (qlen == len && !strncmp(q, start, len)) {
				present = 1;
				break;
			}
			q += qlen + (comma ? 1 : 0);
		}
		if (present)
			continue;
		if ((list->len && buf_putc(list, ',')) ||
		    buf_append(list, start, len))
			return -1;
	}
	return 0;
}

/* The mutations annotation of `object`, borrowed; NULL when it has none. */
static const char *mutations_of(const struct config *cfg, json_t *object)
{
	return json_string_value(json_member(json_member(
		json_member(object, "metadata"), "annotations"),
		cfg->mutations_annotation));
}

/*
 * Builds the operation that records `mutated` (a rule bit set) in the
 * mutations annotation of `object` (the answer's object): the rules the
 * stored object `stored` (NULL on CREATE) lists come first, then those
 * `object` lists, so that an update that changes nothing new leaves the
 * value as stored. Returns 0 with op->path set, 0 with op->path NULL when
 * there is nowhere to put it (metadata not a mapping) or nothing to record
 * or the value would not change, or -1 when out of memory.
 */
static int annotation_op(const struct config *cfg, json_t *object,
			 json_t *stored, unsigned mutated, struct patch_op *op)
{
	const char *key = cfg->mutations_annotation;
	json_t *meta = json_member(object, "metadata");
	json_t *annotations = json_member(meta, "annotations");
	const char *existing = NULL, *before = NULL;
	struct buf value;
	json_t *holder = NULL;
	int rc = -1;

	memset(op, 0, sizeof(*op));
	if (!key || !*key || (meta && !json_is_object(meta)) ||
	    (annotations && !json_is_object(annotations) &&
	     !json_is_null(annotations)))
		return 0;
	if (json_is_object(annotations))
		existing = json_string_value(json_member(annotations, key));
	if (stored)
		before = mutations_of(cfg, stored);
	buf_init(&value, 0);
	if ((before && csv_merge(&value, before)) ||
	    (existing && csv_merge(&value, existing)))
		goto out_free;
	for (int r = 0; r < RULE_COUNT; r++)
		if ((mutated & 1u << r) &&
		    csv_merge(&value, rule_info_get((enum rule_id)r)->name))
			goto out_free;
	/* nothing to record, or nothing new */
	if (!value.len ||
	    (existing && strcmp(existing, value.data) == 0)) {
		rc = 0;
		goto out_free;
	}
	op->rule = RULE_COUNT;
	if (!(op->value = json_string(value.data ? value.data : "")))
		goto out_free;
	if (json_is_object(annotations)) {
		op->kind = json_member(annotations, key) ? PATCH_REPLACE
							     : PATCH_ADD;
		op->path = json_pointer_join("/metadata/annotations", key);
	} else {
		/* create the mapping(s): annotations, or metadata itself */
		if (!(holder = json_object()) ||
		    json_object_set(holder, key, op->value))
			goto out_free;
		json_decref(op->value);
		op->value = holder;
		holder = NULL;
		if (!meta) {
			if (!(holder = json_object()) ||
			    json_object_set(holder, "annotations", op->value))
				goto out_free;
			json_decref(op->value);
			op->value = holder;
			holder = NULL;
		}
		op->kind = PATCH_ADD;
		op->path = strdup(meta ? "/metadata/annotations" : "/metadata");
	}
	if (op->path)
		rc = 0;
out_free:
	json_decref(holder);
	buf_free(&value);
	if (rc) {
		json_decref(op->value);
		free(op->path);
		memset(op, 0, sizeof(*op));
	}
	return rc;
}

/*
 * The mutations annotation's operation (annotation_op) in *extra, applied
 * to `object` (its undo recorded when `undo` is set). Returns 0 when made
 * (or nothing to record); -1 when out of memory, or with *rc set to the
 * internal error's answer when it does not apply.
 */
static int record_mutations(const struct config *cfg, json_t *object,
			    json_t *stored, unsigned mutated, int undo,
			    struct patch_op *extra, struct answer *a,
			    struct admission_outcome *out, int *rc)
{
	if (annotation_op(cfg, object, stored, mutated, extra))
		return -1;
	if (extra->path && (undo ? patch_apply_op_undo(object, extra)
				 : patch_apply_op(object, extra)) != 0) {
		*rc = answer_failure(cfg, a, out, ADMISSION_INTERNAL,
				     "internal error: cannot record '%s'",
				     cfg->mutations_annotation);
		return -1;
	}
	return 0;
}

/* Appends `op` as an RFC 6902 operation to the JSON text `patch`. */
static int patch_write_op(struct buf *patch, const struct patch_op *op)
{
	static const char *const names[] = {
		"{\"op\":\"add\"", "{\"op\":\"remove\"",
		"{\"op\":\"replace\"", "{\"op\":\"move\""
	};

	return buf_putc(patch, patch->len ? ',' : '[') ||
	       buf_puts(patch, names[op->kind]) ||
	       (op->from &&
		(buf_puts(patch, ",\"from\":") ||
		 json_write_string(patch, op->from, strlen(op->from)))) ||
	       buf_puts(patch, ",\"path\":") ||
	       json_write_string(patch, op->path, strlen(op->path)) ||
	       (op->value &&
		(buf_puts(patch, ",\"value\":") ||
		 json_write_value(patch, op->value))) ||
	       buf_putc(patch, '}') ? -1 : 0;
}

/* What a review was read from, for the patch check. */
struct review_source {
	const char *body;
	size_t len;
	json_t *review;          /* the document read from it */
	const struct json_scan_filter *filter;  /* its prefilter, or NULL */
	const struct json_tape *tape;  /* a full read's record, or NULL */
	int light;               /* the document is a light read */
};

/* review_request(): the light read is not enough, read the body whole */
#define REVIEW_READ_WHOLE 1

/*
 * The guarantee that the patch sent applies to the object as it came and
 * gives what the engine computed (`object`, with `extra` applied last):
 * every operation, undone last first in `object`, must find what it made
 * (patch_revert_op()), and `object` must then be the body's
 * request.object again. It is, afterwards: `object` no longer holds the
 * engine's result. 0 when
 * the guarantee holds; -1 when it does not (or cannot be told, out of
 * memory).
 */
static int patch_check(const struct rules_result *result,
		       const struct patch_op *extra,
		       const struct review_source *src, json_t *object)
{
	static const char *const object_path[] = { "request", "object", NULL };
	json_error_t jerr;
	json_t *fresh;
	int same;

	if (extra->path && patch_revert_op(object, extra) != 0)
		return -1;
	for (size_t i = result->n_ops; i-- > 0;)
		if (patch_revert_op(object, &result->ops[i]) != 0)
			return -1;
	same = src->tape ? json_tape_equal(src->tape, object_path, object) :
			   json_scan_equal(src->body, src->len, object_path,
					   object);
	if (same < 0) {
		/* what only jansson reads (real numbers...): read it again */
		fresh = json_loadb(src->body, src->len, JSON_REJECT_DUPLICATES,
				   &jerr);
		same = fresh && json_equal(json_member(json_member(
						   fresh, "request"), "object"),
					   object);
		json_decref(fresh);
	}
	return same == 1 ? 0 : -1;
}

/*
 * Writes a JSON Pointer the way Kubernetes names fields:
 * /spec/containers/0/resources/limits/nvidia.com~1gpu becomes
 * spec.containers[0].resources.limits[nvidia.com/gpu].
 */
static int field_path(struct buf *out, const char *pointer)
{
	char token[512];
	int first = 1;

	while (*pointer) {
		const char *p = token;
		int index = 1;

		if (json_pointer_next(&pointer, token, sizeof(token)) != 0)
			return buf_puts(out, pointer);
		for (; *p; p++)
			if (*p < '0' || *p > '9')
				index = 0;
		if ((index && *token) || strpbrk(token, "./[]") || !*token) {
			if (buf_printf(out, "[%s]", token))
				return -1;
		} else if (buf_printf(out, "%s%s", first ? "" : ".", token)) {
			return -1;
		}
		first = 0;
	}
	return 0;
}

/* The denial message: every deny-mode finding with its rule and field. */
static int deny_message(const struct config *cfg,
			const struct rules_result *res, struct answer *a)
{
	struct buf text;
	size_t shown = 0, more = 0;
	int rc = 0;

	buf_init(&text, 0);
	rc = buf_puts(&text, "gpumend denied the object: ");
	for (size_t i = 0; !rc && i < res->n_findings; i++) {
		const struct finding *f = &res->findings[i];
		size_t before = text.len;

		if (f->fixed || cfg->mode[f->rule] != RULE_MODE_DENY)
			continue;
		if (text.len > DENY_MESSAGE_MAX) {
			more++;
			continue;
		}
		rc = buf_printf(&text, "%srule '%s'%s", shown ? "; " : "",
				rule_info_get(f->rule)->name,
				*f->pointer ? " at " : "");
		if (!rc)
			rc = field_path(&text, f->pointer);
		if (!rc)
			rc = buf_printf(&text, ": %s", f->message);
		if (!rc && text.len > DENY_MESSAGE_MAX && shown) {
			/* keep whole entries only */
			text.len = before;
			text.data[before] = '\0';
			more++;
			continue;
		}
		shown++;
	}
	if (!rc && more)
		rc = buf_printf(&text, "; and %zu more", more);
	if (!rc)
		rc = answer_status(a, 403, "%s", text.data);
	buf_free(&text);
	return rc;
}

/* What a review does with the request's object. */
enum review_mode {
	REVIEW_CREATE,   /* migrate; a rule in deny mode denies */
	REVIEW_HEAL,     /* UPDATE of a workload whose pod template may
			    change: migrate as on CREATE, never deny */
	REVIEW_CONVERGE  /* any other UPDATE: migrate only what the stored
			    object holds migrated (converge.h) */
};

/*
 * One warning per change an update left unmigrated (the stored object
 * does not hold it migrated): where, and the rules whose change it is.
 */
static int warn_kept(struct answer *a, const struct converge *cv)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < cv->n_kept; i++) {
		const struct converge_kept *k = &cv->kept[i];
		const char *sep = " (";
		struct buf text;

		buf_init(&text, 0);
		rc = buf_puts(&text, "gpumend: kept ");
		if (!rc)
			rc = *k->pointer ? field_path(&text, k->pointer)
					 : buf_puts(&text, "the object");
		if (!rc)
			rc = buf_puts(&text, " as sent");
		for (int r = 0; !rc && r < RULE_COUNT; r++)
			if (k->rules >> r & 1) {
				rc = buf_printf(&text, "%s%s", sep,
						rule_info_get((enum rule_id)r)->name);
				sep = ", ";
			}
		if (!rc)
			rc = buf_puts(&text, k->rules ? ")" :
				      " (not migrated where stored)");
		if (!rc)
			rc = buf_puts(&text, "; recreate the object to migrate it");
		if (!rc) {
			char *line = text_escape_controls(buf_detach(&text,
								     NULL));

			rc = line ? warning_add(a, line) : -1;
			free(line);
		}
		buf_free(&text);
	}
	return rc;
}

/* The patch does not give what it must: an internal failure. */
static int answer_unreproduced(const struct config *cfg, struct answer *a,
			       struct admission_outcome *out)
{
	return answer_failure(cfg, a, out, ADMISSION_INTERNAL,
			      "internal error: the patch does not reproduce the migrated object");
}

/*
 * The review went over its work budget (rules_budget): answered as an
 * internal failure is, so that no request holds a thread past the
 * registration's timeout.
 */
static int answer_over_budget(const struct config *cfg,
			      const struct rules_budget *budget,
			      struct answer *a, struct admission_outcome *out)
{
	if (budget->spent == RULES_BUDGET_DEADLINE)
		return answer_failure(cfg, a, out, ADMISSION_INTERNAL,
				      "internal error: the review is over its work budget (webhook.timeoutSeconds %d)",
				      cfg->timeout_seconds);
	return answer_failure(cfg, a, out, ADMISSION_INTERNAL,
			      "internal error: the review is over its work budget (limits.maxReviewSteps %zu)",
			      cfg->max_review_steps);
}

/*
 * A warning per finding of `res` whose rule (1 << rule_id) is in `fixed`
 * when the finding is fixed, in `unfixed` when it is not: an update that
 * converges shows a rule's fixes only when its answer takes that rule's
 * change.
 */
static int warn_findings(struct answer *a, json_t *object,
			 const struct rules_result *res, unsigned unfixed,
			 unsigned fixed)
{
	for (size_t i = 0; i < res->n_findings; i++) {
		const struct finding *f = &res->findings[i];
		unsigned rules = f->fixed ? fixed : unfixed;

		if ((unsigned)f->rule < RULE_COUNT && !(rules >> f->rule & 1))
			continue;
		if (warning_add_finding(a, object, f))
			return -1;
	}
	return 0;
}

/* Appends `ops` and `extra` (when it has a path) to the answer's patch. */
static int answer_patch(struct answer *a, const struct patch_op *ops,
			size_t n_ops, const struct patch_op *extra)
{
	for (size_t i = 0; i < n_ops; i++)
		if (patch_write_op(&a->patch, &ops[i]))
			return -1;
	return (extra->path && patch_write_op(&a->patch, extra)) ||
	       buf_putc(&a->patch, ']') ? -1 : 0;
}

/*
 * `stored` (borrowed) as the rules would have left it: without the
 * annotation that records what gpumend changed, which only the answer
 * adds (the annotations mapping stays, empty or not: the rules leave a
 * mapping they did not empty). A new reference; NULL when out of memory.
 */
static json_t *stored_unrecorded(const struct config *cfg, json_t *stored)
{
	json_t *annotations = json_member(json_member(stored, "metadata"),
					  "annotations");
	json_t *copy, *meta;

	if (!cfg->mutations_annotation ||
	    !json_member(annotations, cfg->mutations_annotation))
		return json_incref(stored);
	if (!(copy = json_value_copy(stored)))
		return NULL;
	meta = json_member(copy, "metadata");
	json_object_del(json_member(meta, "annotations"),
			cfg->mutations_annotation);
	return copy;
}

/*
 * An UPDATE that converges (converge.h): `object` holds the rules' result
 * `res` (with the undo of each operation), `stored` the stored object.
 * The answer's patch goes from the object as sent to the three-way walk's
 * result, and is checked like any other: undoing the rules' operations
 * must give the body's request.object (patch_check()), and the patch
 * replayed on that must give the walk's result, recorded annotation
 * included. The warnings say which rules' changes the answer takes (their
 * fixed findings) and which it leaves as sent. The walk spends from
 * `budget`.
 */
static int review_converge(const struct config *cfg,
			   const struct rules_result *res, json_t *object,
			   json_t *stored, const struct review_source *src,
			   struct rules_budget *budget, struct answer *a,
			   struct admission_outcome *out)
{
	struct patch_op extra = { 0 };
	struct converge cv;
	json_t *migrated = json_value_copy(object);
	json_t *held = stored ? stored_unrecorded(cfg, stored) : NULL;
	unsigned mutated;
	int rc = -1;

	converge_init(&cv);
	if (!migrated || (stored && !held))
		goto out_clear;
	/* `object` becomes the object as sent */
	if (patch_check(res, &extra, src, object) != 0) {
		rc = answer_unreproduced(cfg, a, out);
		goto out_clear;
	}
	if (converge_update(object, migrated, held, res->ops, res->n_ops,
			    budget, &cv)) {
		if (budget->spent)
			rc = answer_over_budget(cfg, budget, a, out);
		goto out_clear;
	}
	/* what the answer migrates is said by those rules' findings, what
	 * it leaves as sent by a warning of its own */
	mutated = cv.taken;
	if (warn_findings(a, object, res, 0, mutated) || warn_kept(a, &cv))
		goto out_clear;
	rc = 0;
	if (!cv.n_ops)
		goto out_clear;
	rc = -1;
	if (record_mutations(cfg, cv.object, stored, mutated, 0, &extra, a,
			     out, &rc))
		goto out_clear;
	/* the replay, on copies of the values: they are written below */
	for (size_t i = 0; i < cv.n_ops; i++)
		if (patch_apply_op_copy(object, &cv.ops[i]) != 0) {
			rc = answer_unreproduced(cfg, a, out);
			goto out_clear;
		}
	if ((extra.path && patch_apply_op_copy(object, &extra) != 0) ||
	    !json_equal(object, cv.object)) {
		rc = answer_unreproduced(cfg, a, out);
		goto out_clear;
	}
	if (answer_patch(a, cv.ops, cv.n_ops, &extra))
		goto out_clear;
	out->mutated_rules = mutated;
	rc = 0;
out_clear:
	free(extra.path);
	json_decref(extra.value);
	json_decref(migrated);
	json_decref(held);
	converge_clear(&cv);
	return rc;
}

/*
 * Runs the rules over the request's object and fills the answer as `mode`
 * says; `stored` is request.oldObject (NULL on CREATE). `object` is
 * rewritten in place.
 */
static int review_object(const struct config *cfg, enum review_mode mode,
			 const char *ns, unsigned skip, json_t *object,
			 json_t *stored, const struct review_source *src,
			 struct answer *a, struct admission_outcome *out)
{
	struct rules_options opts = {
		.offline = 0,
		.namespace_name = ns,
		/* the API server sets the request's namespace: the
		 * object's own could be anything */
		.deny_namespace_from_request = 1,
		.keep_undo = 1,
		.read_json = json_scan_read_value,
		.skip_rules = skip,
	};
	struct rules_result res;
	struct rules_error err;
	struct rules_budget budget;
	struct patch_op extra = { 0 };
	unsigned mutated = 0;
	int rc = -1;

	json_scan_filter_gate(src->filter, &opts);
	memset(&err, 0, sizeof(err));
	rules_result_init(&res);
	/* the steps decide the same on any machine; the deadline, most of
	 * the registration's timeout, is the backstop */
	rules_budget_init(&budget, cfg->max_review_steps,
			  (uint64_t)cfg->timeout_seconds * 750);
	opts.budget = &budget;
	if (rules_apply(cfg, &opts, object, &res, &err) != 0) {
		if (budget.spent) {
			rc = answer_over_budget(cfg, &budget, a, out);
			goto out_clear;
		}
		if (src->light) {
			rc = REVIEW_READ_WHOLE;
			goto out_clear;
		}
		rc = answer_failure(cfg, a, out, ADMISSION_INTERNAL,
				    "internal error%s%s: %s",
				    *err.pointer ? " at " : "", err.pointer,
				    err.message);
		goto out_clear;
	}
	/* the rules found something in a light read: the whole object
	 * decides what (rules_reads()) */
	if (src->light && (res.n_ops || res.n_findings || res.denied)) {
		rc = REVIEW_READ_WHOLE;
		goto out_clear;
	}
	for (size_t i = 0; i < res.n_findings; i++) {
		const struct finding *f = &res.findings[i];

		if ((unsigned)f->rule < RULE_COUNT &&
		    (unsigned)f->severity < 3)
			out->findings[f->rule][f->severity]++;
	}
	/* an update that converges says what it fixed once it knows */
	if (warn_findings(a, object, &res, ~0u,
			  mode == REVIEW_CONVERGE ? 0 : ~0u))
		goto out_clear;
	rc = 0;
	/* an update is never denied: objects that predate gpumend must
	 * stay updatable and deletable */
	if (mode == REVIEW_CREATE && res.denied) {
		a->allowed = 0;
		rc = deny_message(cfg, &res, a);
		goto out_clear;
	}
	if (!res.n_ops)
		goto out_clear;
	if (mode == REVIEW_CONVERGE) {
		rc = review_converge(cfg, &res, object, stored, src, &budget,
				     a, out);
		goto out_clear;
	}

	for (size_t i = 0; i < res.n_ops; i++)
		if ((unsigned)res.ops[i].rule < RULE_COUNT)
			mutated |= 1u << res.ops[i].rule;
	rc = -1;
	if (record_mutations(cfg, object, stored, mutated, 1, &extra, a, out,
			     &rc))
		goto out_clear;
	if (patch_check(&res, &extra, src, object) != 0) {
		rc = answer_unreproduced(cfg, a, out);
		goto out_clear;
	}
	if (answer_patch(a, res.ops, res.n_ops, &extra))
		goto out_clear;
	out->mutated_rules = mutated;
	rc = 0;
out_clear:
	free(extra.path);
	json_decref(extra.value);
	json_decref(extra.undo);
	rules_result_clear(&res);
	return rc;
}

/*
 * Kinds whose pod template Kubernetes lets an update change (group, kind):
 * an UPDATE migrates them as a CREATE does, so that one created before
 * gpumend, or while it was down, is migrated on its next update (one
 * rollout). A Pod's spec and a Job's template cannot change; a custom
 * resource's controller owns what its spec means: those converge.
 */
static const char *const healed_kinds[][2] = {
	{ "apps", "Deployment" }, { "apps", "ReplicaSet" },
	{ "apps", "StatefulSet" }, { "apps", "DaemonSet" },
	{ "extensions", "Deployment" }, { "extensions", "ReplicaSet" },
	{ "extensions", "DaemonSet" },
	{ "batch", "CronJob" },
	{ "", "ReplicationController" }, { "", "PodTemplate" },
};

/* The API group of the request's kind ("" for the core group). */
static const char *request_group(json_t *request, json_t *object)
{
	const char *group = json_string_value(json_member(
		json_member(request, "kind"), "group"));
	const char *api_version;

	if (group)
		return group;
	api_version = json_string_value(json_member(object, "apiVersion"));
	if (!api_version || !strchr(api_version, '/'))
		return "";
	return api_version;   /* compared up to its '/' */
}

static enum review_mode update_mode(json_t *request, json_t *object,
				    const char *kind)
{
	const char *group = request_group(request, object);
	size_t len = strcspn(group, "/");

	for (size_t i = 0; kind && i < sizeof(healed_kinds) /
					  sizeof(healed_kinds[0]); i++)
		if (strlen(healed_kinds[i][0]) == len &&
		    !strncmp(group, healed_kinds[i][0], len) &&
		    !strcmp(kind, healed_kinds[i][1]))
			return REVIEW_HEAL;
	return REVIEW_CONVERGE;
}

/*
 * The controlling owner of `object` (the ownerReferences entry with
 * controller: true), borrowed; NULL when it has none.
 */
static json_t *controller_of(json_t *object)
{
	json_t *refs = json_member(json_member(object, "metadata"),
				   "ownerReferences");
	json_t *ref;
	size_t i;

	json_array_foreach(refs, i, ref)
		if (json_is_true(json_member(ref, "controller")))
			return ref;
	return NULL;
}

/* out->owner: "KIND/NAME" of the owner reference `ref`; 0 or -1. */
static int set_owner(struct admission_outcome *out, json_t *ref)
{
	const char *kind = json_string_value(json_member(ref, "kind"));
	const char *name = json_string_value(json_member(ref, "name"));
	struct buf text;

	buf_init(&text, 0);
	if (buf_printf(&text, "%s/%s", kind ? kind : "", name ? name : "")) {
		buf_free(&text);
		return -1;
	}
	out->owner = buf_detach(&text, NULL);
	return out->owner ? 0 : -1;
}

/* A member that must be a string when present; -1 when it is something else. */
static int optional_string(json_t *parent, const char *key, const char **value)
{
	json_t *member = json_member(parent, key);

	*value = NULL;
	if (!member || json_is_null(member))
		return 0;
	if (!json_is_string(member))
		return -1;
	*value = json_string_value(member);
	return 0;
}

/*
 * The part after the uid was read: every problem from here on is answered
 * with a well-formed AdmissionReview. `skeleton`: the request is the
 * prefilter's skeleton and no rule has anything to do; `shallow`: the
 * object is known to nest within cfg->max_depth; `skip`: the rules the
 * prefilter found nothing for; `src`: the body and the document read.
 * REVIEW_READ_WHOLE when `src` is a light read that is not enough, with
 * nothing written to `out` but its texts.
 */
static int review_request(const struct config *cfg, json_t *request,
			  const char *api_version, const char *uid,
			  int skeleton, int shallow, unsigned skip,
			  const struct review_source *src,
			  struct admission_outcome *out)
{
	struct answer a = { .allowed = 1 };
	json_t *object = json_member(request, "object");
	json_t *dry_run = json_member(request, "dryRun");
	const char *operation = json_string_value(json_member(request,
							      "operation"));
	const char *ns = NULL, *sub_resource = NULL, *name = NULL;
	const char *kind;
	json_t *owner, *stored;
	int op = -1, rc = -1;

	buf_init(&a.patch, 0);
	if (!(a.warnings = json_array()))
		return -1;
	for (int i = 0; operation && i < 4; i++)
		if (strcmp(operation, operations[i]) == 0)
			op = i;
	kind = json_string_value(json_member(json_member(request, "kind"),
					     "kind"));
	if (!kind)
		kind = json_string_value(json_member(object, "kind"));
	if (dup_field(&out->kind, kind))
		goto out_clear;
	if (op < 0) {
		rc = answer_failure(cfg, &a, out, ADMISSION_BAD_REQUEST,
				    "'request.operation' must be CREATE, UPDATE, DELETE or CONNECT");
		goto out_write;
	}
	out->operation = operations[op];
	if (optional_string(request, "namespace", &ns) ||
	    optional_string(request, "subResource", &sub_resource) ||
	    optional_string(request, "name", &name)) {
		rc = answer_failure(cfg, &a, out, ADMISSION_BAD_REQUEST,
				    "'request.namespace', 'request.name' and 'request.subResource' must be strings");
		goto out_write;
	}
	if (!name)
		name = json_string_value(json_member(
			json_member(object, "metadata"), "name"));
	if (!name)
		name = json_string_value(json_member(
			json_member(object, "metadata"), "generateName"));
	if (dup_field(&out->namespace_name, ns) || dup_field(&out->name, name))
		goto out_clear;
	if (dry_run && !json_is_boolean(dry_run) && !json_is_null(dry_run)) {
		rc = answer_failure(cfg, &a, out, ADMISSION_BAD_REQUEST,
				    "'request.dryRun' must be a boolean");
		goto out_write;
	}
	out->dry_run = json_is_true(dry_run);

	/* nothing to review: deletions, connections, subresources */
	if (op == OP_DELETE || op == OP_CONNECT ||
	    (sub_resource && *sub_resource)) {
		rc = 0;
		goto out_write;
	}
	if (!json_is_object(object)) {
		rc = answer_failure(cfg, &a, out, ADMISSION_BAD_REQUEST,
				    "'request.object' is %s",
				    !object ? "missing" :
				    json_is_null(object) ? "null" :
				    "not an object");
		goto out_write;
	}
	if (!shallow && too_deep(object, cfg->max_depth)) {
		rc = answer_failure(cfg, &a, out, ADMISSION_BAD_REQUEST,
				    "'request.object' nests deeper than %d levels",
				    cfg->max_depth);
		goto out_write;
	}
	/*
	 * A controller's copy of its template (a Deployment's ReplicaSet, a
	 * CronJob's Job, an operator's StatefulSet) is left as its owner
	 * made it: a change would make it differ from what the owner
	 * expects, and the owner would make another. Its pods are migrated
	 * as they are created: a Pod is what the scheduler sees.
	 */
	if (!(kind && strcmp(kind, "Pod") == 0) &&
	    (owner = controller_of(object))) {
		rc = set_owner(out, owner);
		goto out_write;
	}
	/* the prefilter found no trigger: no rule has anything to do */
	if (skeleton) {
		rc = 0;
		goto out_write;
	}
	/* an object being deleted: only its finalizers still change */
	if (op == OP_UPDATE &&
	    json_member(json_member(object, "metadata"),
			"deletionTimestamp")) {
		rc = 0;
		goto out_write;
	}
	stored = op == OP_CREATE ? NULL : json_member(request, "oldObject");
	rc = review_object(cfg, op == OP_CREATE ? REVIEW_CREATE :
			   update_mode(request, object, kind), ns, skip,
			   object, stored, src, &a, out);
out_write:
	if (rc == 0)
		rc = answer_write(out, api_version, uid, &a);
out_clear:
	answer_clear(&a);
	return rc;
}

/*
 * A CREATE or UPDATE that is not reviewed, for the reason `why` (read
 * from the prefilter's skeleton of the body, `request`): answered as an
 * internal failure, per cfg->failure_allow. 1 when the request is not one
 * to review anyway (DELETE, CONNECT, a subresource, a bad operation):
 * review_request() answers it from the skeleton as it always does.
 */
static int review_refused(const struct config *cfg, json_t *request,
			  const char *api_version, const char *uid,
			  const char *why, struct admission_outcome *out)
{
	const char *operation = json_string_value(json_member(request,
							      "operation"));
	const char *sub_resource = json_string_value(json_member(request,
								 "subResource"));
	json_t *metadata = json_member(json_member(request, "object"),
				       "metadata");
	const char *name = json_string_value(json_member(request, "name"));
	struct answer a = { .allowed = 1 };
	int op = -1, rc = -1;

	for (int i = 0; operation && i < 2; i++)
		if (strcmp(operation, operations[i]) == 0)
			op = i;
	if (op < 0 || (sub_resource && *sub_resource))
		return 1;
	out->operation = operations[op];
	if (!name)
		name = json_string_value(json_member(metadata, "name"));
	if (dup_field(&out->kind, json_string_value(json_member(
			json_member(request, "kind"), "kind"))) ||
	    dup_field(&out->namespace_name, json_string_value(
			json_member(request, "namespace"))) ||
	    dup_field(&out->name, name))
		return -1;
	out->dry_run = json_is_true(json_member(request, "dryRun"));
	buf_init(&a.patch, 0);
	if (!(a.warnings = json_array()))
		return -1;
	rc = answer_failure(cfg, &a, out, ADMISSION_INTERNAL, "%s", why);
	if (rc == 0)
		rc = answer_write(out, api_version, uid, &a);
	answer_clear(&a);
	return rc;
}

/* The texts of an outcome for a body with NUL: each NUL shows as \u0000. */
static void nul_outcome_show(struct admission_outcome *out)
{
	/* the operation and the API version are static names */
	char *fields[] = { out->uid, out->kind, out->namespace_name,
			   out->name, out->owner };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i])
			nul_text_decode(fields[i]);
	nul_text_decode(out->error);
	if (out->body && out->http_status != 200) {
		nul_text_decode(out->body);
		out->body_len = strlen(out->body);
	}
}

/*
 * A light read of `body` (json_scan_light()) for the rules `*rules`, whose
 * reads are `reads`; NULL when the body must be read whole: the read gave
 * up, the object nests too deep to be judged without too_deep(), or an
 * escaped string holds another rule's trigger.
 */
static json_t *read_light(const struct config *cfg,
			  const struct json_scan_filter *filter,
			  const char *body, size_t len,
			  const struct rules_read *reads, int *depth,
			  unsigned *rules)
{
	unsigned found = *rules;
	json_t *review = json_scan_light(filter, body, len, reads, depth,
					 &found);

	if (review && *depth - 2 <= cfg->max_depth &&
	    rules_reads(found) == reads) {
		*rules = found;
		return review;
	}
	json_arena_drop(review);
	*depth = 0;
	return NULL;
}

/* Forgets the texts review_request() set in `out` from a light read. */
static void outcome_texts_clear(struct admission_outcome *out)
{
	char **fields[] = { &out->uid, &out->kind, &out->namespace_name,
			    &out->name };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		free(*fields[i]);
		*fields[i] = NULL;
	}
	out->api_version = NULL;
	out->operation = NULL;
	out->dry_run = 0;
}

int admission_review(const struct config *cfg, const char *body, size_t len,
		     struct admission_outcome *out)
{
	return admission_review_filtered(cfg, NULL, body, len, out);
}

/*
 * admission_review_filtered(), or with `refuse` admission_refuse(): the
 * request is then read as a skeleton (json_scan_skeleton()) and refused
 * for that reason.
 */
static int review_body(const struct config *cfg,
		       const struct json_scan_filter *filter,
		       const char *body, size_t len, const char *refuse,
		       struct admission_outcome *out)
{
	char over_cap[128];
	struct review_source src;
	struct json_tape *tape = NULL;
	json_error_t jerr;
	json_t *review, *request;
	const char *api_version, *kind, *uid;
	const struct rules_read *reads = NULL;
	char *encoded = NULL;
	int rc = -1, skeleton = 0, depth = 0, shallow, light = 0;
	unsigned skip, rules;

	/* strings holding NUL are reviewed encoded (nul.h), on either path */
	if (nul_text_has(body, len)) {
		if (!(encoded = nul_text_encode(body, len, &len)))
			return -1;
		body = encoded;
		out->nul = 1;
	}
	/*
	 * The cap on the values built for a review (limits.maxValues): they
	 * are counted only where the body could pass it (a value takes two
	 * bytes at least, with its comma), so small reviews cost nothing
	 */
	if (!refuse && cfg->max_values && len / 2 + 1 > cfg->max_values &&
	    json_scan_count_values(body, len, cfg->max_values) >
	    cfg->max_values) {
		snprintf(over_cap, sizeof(over_cap),
			 "the review holds more than %zu JSON values (limits.maxValues)",
			 cfg->max_values);
		refuse = over_cap;
	}
	rules = filter && !refuse ? json_scan_filter_rules(filter, body, len)
				  : 0;
	/* rules that say what they read: first a light read */
	if (filter && rules)
		reads = rules_reads(rules);
read:
	/* a review refused: what the answer needs, and nothing more */
	if (refuse) {
		review = json_scan_skeleton(NULL, body, len, cfg->max_depth);
		skeleton = 1;
		if (!review) {
			/* not even its uid can be read cheaply: refused as
			 * a whole (the registration's failurePolicy decides) */
			rc = answer_plain(out, "internal error: %s", refuse);
			out->http_status = 500;
			out->failure = ADMISSION_INTERNAL;
			goto out_free;
		}
	}
	/* nothing for any rule: the skeleton is enough */
	else if (filter && !rules &&
	    (review = json_scan_skeleton(filter, body, len, cfg->max_depth)))
		skeleton = 1;
	else if (reads && (review = read_light(cfg, filter, body, len, reads,
					       &depth, &rules)))
		light = 1;
	/* with a filter, what is read is what the webhook reads; without,
	 * the reference read: everything (the fuzz target compares them) */
	else if (!(review = filter ? json_scan_review(body, len, filter, &depth,
						      &rules, &tape) :
			    json_scan_read_tape(body, len, filter, &depth,
						&rules, &tape)))
		review = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	/* the rules to skip: those without a trigger, when all was read */
	skip = filter && depth > 0 ? ~rules : 0;
	/* the object is two levels down: within the limit when all is */
	shallow = skeleton || (depth > 0 && depth - 2 <= cfg->max_depth);
	if (!review) {
		rc = answer_plain(out, "malformed JSON at line %d, column %d: %s",
				  jerr.line, jerr.column, jerr.text);
		goto out_free;
	}
	if (!json_is_object(review)) {
		rc = answer_plain(out, "the body is not a JSON object");
		goto out_free;
	}
	api_version = json_string_value(json_member(review, "apiVersion"));
	kind = json_string_value(json_member(review, "kind"));
	if (!api_version || (strcmp(api_version, review_versions[0]) &&
			     strcmp(api_version, review_versions[1]))) {
		rc = answer_plain(out,
				  "not an AdmissionReview: 'apiVersion' must be %s or %s",
				  review_versions[0], review_versions[1]);
		goto out_free;
	}
	if (!kind || strcmp(kind, "AdmissionReview") != 0) {
		rc = answer_plain(out,
				  "not an AdmissionReview: 'kind' must be AdmissionReview");
		goto out_free;
	}
	/* one of the two names, the static one kept */
	out->api_version = strcmp(api_version, review_versions[0]) == 0 ?
			   review_versions[0] : review_versions[1];
	request = json_member(review, "request");
	if (!json_is_object(request)) {
		rc = answer_plain(out, "'request' is missing or not an object");
		goto out_free;
	}
	uid = json_string_value(json_member(request, "uid"));
	if (!uid || !*uid || strlen(uid) > ADMISSION_UID_MAX) {
		rc = answer_plain(out,
				  "'request.uid' must be a string of 1 to %d bytes",
				  ADMISSION_UID_MAX);
		goto out_free;
	}
	if (dup_field(&out->uid, uid))
		goto out_free;
	src.body = body;
	src.len = len;
	src.review = review;
	src.filter = filter;
	src.tape = tape;
	src.light = light;
	rc = refuse ? review_refused(cfg, request, api_version, uid, refuse,
				     out) : 1;
	if (rc == 1)
		rc = review_request(cfg, request, api_version, uid, skeleton,
				    shallow, skip, &src, out);
	if (rc == REVIEW_READ_WHOLE) {
		json_arena_drop(review);
		json_tape_free(tape);
		tape = NULL;
		outcome_texts_clear(out);
		reads = NULL;
		light = 0;
		depth = 0;
		goto read;
	}
out_free:
	/* the request's values, made in the review's scope when there is one */
	json_arena_drop(review);
	json_tape_free(tape);
	free(encoded);
	if (!rc && out->nul)
		nul_outcome_show(out);
	if (rc) {
		free(out->body);
		out->body = NULL;
		out->body_len = 0;
	}
	return rc;
}

int admission_review_filtered(const struct config *cfg,
			      const struct json_scan_filter *filter,
			      const char *body, size_t len,
			      struct admission_outcome *out)
{
	return review_body(cfg, filter, body, len, NULL, out);
}

/* Bytes a review takes for each value it builds, and for each of its body. */
#define ESTIMATE_VALUE_BYTES 256
#define ESTIMATE_BODY_FACTOR 4
/* Bodies up to this size are estimated from their size alone. */
#define ESTIMATE_COUNTED ((size_t)64 << 10)

size_t admission_memory_estimate(const char *body, size_t len)
{
	/* a value takes two bytes at least, with its comma */
	size_t values = len / 2 + 1;

	if (len > ESTIMATE_COUNTED)
		values = json_scan_count_values(body, len, values);
	return values * ESTIMATE_VALUE_BYTES + len * ESTIMATE_BODY_FACTOR;
}

int admission_refuse(const struct config *cfg, const char *body, size_t len,
		     const char *why, struct admission_outcome *out)
{
	return review_body(cfg, NULL, body, len, why, out);
}
