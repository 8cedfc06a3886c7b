/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * admission.h - one AdmissionReview in, the response out.
 *
 * Shared by gpumend-webhook (POST /mutate) and `gpumend review`, so that
 * both answer a review byte for byte alike. Pure: no I/O, no logging, no
 * metrics; what happened is described in the outcome for the caller to log
 * and count.
 *
 * What the answer holds:
 * - the request's apiVersion (admission.k8s.io/v1 or v1beta1), kind
 *   AdmissionReview, and response.uid, response.allowed;
 * - CREATE: the rules run in mutate mode; when they change the object,
 *   patchType "JSONPatch" and the base64 patch, which is the engine's
 *   operations followed by one operation that records the ids of the rules
 *   that changed the object in the annotation cfg->mutations_annotation
 *   (merged with the rules it lists already; left out when that changes
 *   nothing);
 * - an object other than a Pod with a controlling owner (an
 *   ownerReferences entry with controller: true) is left alone, on CREATE
 *   and UPDATE: no patch, no warning, out->owner names the owner;
 * - UPDATE (never denied; an object being deleted is left alone):
 *   - Deployment, ReplicaSet, StatefulSet, DaemonSet (apps, extensions),
 *     CronJob (batch), ReplicationController, PodTemplate (core): as on
 *     CREATE, the stored object's record annotation listed first;
 *   - any other kind (Pod, Job, custom resources): only what
 *     request.oldObject already holds migrated is migrated (converge.h),
 *     the patch going from the object to that result; a warning names
 *     each place left as sent although the rules would migrate it;
 * - DELETE, CONNECT, and requests for a subresource: allowed untouched;
 * - warnings: one per finding (deduplicated), each at most
 *   ADMISSION_WARNING_MAX bytes, at most ADMISSION_WARNINGS_TOTAL in all;
 * - a rule in deny mode that finds something on CREATE: allowed false,
 *   status code 403 and a message naming the rule and the field;
 * - a review that has a uid but cannot be reviewed (wrong types, object
 *   null, an internal failure): allowed per cfg->failure_allow, with a
 *   warning (allowed) or the status message (denied) saying why.
 * A body with no readable uid gets HTTP 400 and a plain-text message.
 * Strings holding NUL ("\u0000") are reviewed like any other (see nul.h):
 * the patch and response.uid keep the NUL, warnings and messages show it
 * as \u0000.
 */
#ifndef GPUMEND_ADMISSION_H
#define GPUMEND_ADMISSION_H

#include <stddef.h>

#include "json_scan.h"
#include "rules.h"

/* Request body cap of the webhook (and of `gpumend review`) by default. */
#define ADMISSION_MAX_BODY_DEFAULT ((size_t)7 << 20)
/* Limits of the warnings of one response, in bytes. */
#define ADMISSION_WARNING_MAX 120
#define ADMISSION_WARNINGS_TOTAL 4096
/* Longest uid accepted. */
#define ADMISSION_UID_MAX 256

enum admission_failure {
	ADMISSION_OK,
	ADMISSION_BAD_REQUEST,   /* the review could not be read or reviewed */
	ADMISSION_INTERNAL       /* the engine failed */
};

struct admission_outcome {
	/*
	 * 200: `body` is an AdmissionReview (JSON); 400: `body` is a plain
	 * text line saying what is wrong with the request. Either way it ends
	 * with a newline. Owned.
	 */
	int http_status;
	char *body;
	size_t body_len;

	/* What the review was about, NULL when unknown: owned strings, but
	 * for the two static names. */
	char *uid;
	const char *api_version;
	const char *operation;
	char *kind;
	char *namespace_name;
	char *name;
	int dry_run;
	/*
	 * "KIND/NAME" of the controlling owner when the object was left
	 * alone for it (see below); NULL otherwise.
	 */
	char *owner;

	/* What the answer said. */
	int allowed;
	int patched;                     /* a patch was sent */
	unsigned mutated_rules;          /* bit 1 << rule: it changed the object */
	unsigned findings[RULE_COUNT][3];/* by rule and severity */
	size_t n_warnings;
	enum admission_failure failure;
	char error[512];                 /* why it failed, when it did */
	/*
	 * The body had strings holding NUL: they were reviewed encoded
	 * (nul.h), and every text above shows each NUL as \u0000.
	 */
	int nul;
};

/* Prepares an empty outcome. */
void admission_outcome_init(struct admission_outcome *out);
/* Frees what the outcome holds and empties it; accepts NULL. */
void admission_outcome_clear(struct admission_outcome *out);

/*
 * Reviews the AdmissionReview in `body` (`len` bytes, need not be
 * NUL-terminated) with `cfg` and fills `out` (initialised by the caller)
 * with the answer. Every input, however malformed, gets an answer: returns
 * 0, or -1 only when out of memory, with `out` then holding no body.
 * A review holding more JSON values than cfg->max_values
 * (limits.maxValues) is not reviewed: the values are counted before any
 * is built (json_scan_count_values(), for bodies that could hold that
 * many), only what the answer needs is read (json_scan_skeleton()), and a
 * CREATE or UPDATE is answered as an internal failure, per
 * cfg->failure_allow (DELETE, CONNECT and subresources as always); when
 * not even the uid can be read so, HTTP 500 and a plain text line.
 */
int admission_review(const struct config *cfg, const char *body, size_t len,
		     struct admission_outcome *out);

/*
 * admission_review() with the prefilter: a body in which `filter` finds
 * no trigger is answered from a skeleton of it, without the rules (see
 * json_scan.h); the answer is the one admission_review() gives, byte for
 * byte. `filter` NULL: admission_review().
 */
int admission_review_filtered(const struct config *cfg,
			      const struct json_scan_filter *filter,
			      const char *body, size_t len,
			      struct admission_outcome *out);

/*
 * Answers the AdmissionReview in `body` without reviewing its object, as
 * an internal failure saying `why` (per cfg->failure_allow): for a review
 * the webhook cannot afford now. Only what the answer needs is read
 * (json_scan_skeleton()); DELETE, CONNECT and subresources are answered
 * as always. When not even the uid can be read so, HTTP 500 and a plain
 * text line. Returns as admission_review().
 */
int admission_refuse(const struct config *cfg, const char *body, size_t len,
		     const char *why, struct admission_outcome *out);

/*
 * About how many bytes the review of `body` takes at its peak, its
 * values built (json_scan_count_values(): some 250 bytes each, with their
 * copies) and the texts it writes (a few times the body): what a server
 * reserves of its memory before the review. One pass over a body of more
 * than 64 KiB; smaller ones are not read.
 */
size_t admission_memory_estimate(const char *body, size_t len);

/*
 * NULL when two outcomes are the same in every member, else the name of
 * the first that differs: what the prefilter's tests compare.
 */
const char *admission_outcome_diff(const struct admission_outcome *a,
				   const struct admission_outcome *b);

/*
 * Encodes `len` bytes of `data` as standard base64 with padding. Returns a
 * new NUL-terminated string, or NULL when out of memory.
 */
char *admission_base64(const unsigned char *data, size_t len);

#endif
