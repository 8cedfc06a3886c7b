/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_scan.h - the webhook's prefilter: reading an AdmissionReview
 * without building it.
 *
 * Most objects a cluster creates (Services, ConfigMaps, pods of modern
 * workloads) hold nothing any rule looks at. Building a jansson document
 * of such a request costs far more than everything else the webhook does
 * for it, so the body is first scanned for each rule's trigger strings
 * (rules_rule_triggers()): when it holds none, is valid JSON and nothing
 * in it needs jansson's judgement, the review is answered from a skeleton
 * holding only the members the answer depends on, and the rules are not
 * run: without a trigger they cannot report or change anything. When it
 * holds some, only their rules run until one of them changes the object.
 */
#ifndef GPUMEND_JSON_SCAN_H
#define GPUMEND_JSON_SCAN_H

#include <stddef.h>
#include <jansson.h>

#include "rules.h"

struct json_scan_filter;

/*
 * The trigger strings of the rules enabled in `cfg` that the webhook runs
 * (offline-only rules are left out), or with `offline` that the CLI runs
 * (all of them), compiled for scanning. When the rules have no finite set
 * of triggers the filter passes every body on to the full reader. NULL
 * when out of memory.
 */
struct json_scan_filter *json_scan_filter_new(const struct config *cfg,
					      int offline);
void json_scan_filter_free(struct json_scan_filter *filter);

/*
 * The rules (bits 1 << rule_id) with a trigger in text[0..len), and those
 * that have no finite set of triggers: the rules that may have something
 * to do in an object whose JSON text this is. 0: none has.
 */
unsigned json_scan_filter_rules(const struct json_scan_filter *filter,
				const char *text, size_t len);

/*
 * Makes `opts` search with `filter` (rules_options.triggers_in and
 * triggers_arg: json_scan_filter_rules()); leaves them unset when `filter`
 * is NULL.
 */
void json_scan_filter_gate(const struct json_scan_filter *filter,
			   struct rules_options *opts);

/*
 * Reads the AdmissionReview `body`, in which json_scan_filter_rules()
 * found nothing, into its skeleton: a JSON object that jansson reads
 * (with JSON_REJECT_DUPLICATES), nesting at most `max_depth` levels, in
 * which no escaped string holds a trigger either. The skeleton has the
 * members apiVersion, kind, request.{uid, operation, namespace, name,
 * subResource, dryRun, kind.kind, object.kind, object.metadata.name,
 * object.metadata.generateName}, and each element of
 * object.metadata.ownerReferences with its {apiVersion, kind, name,
 * controller}, where the body has them: strings, booleans and null as
 * they are, numbers as 0, objects and arrays without their other members. Returns NULL when the body must be read in full (a
 * trigger behind an escape, an error, a duplicate key, a number that is
 * not a plain integer, out of memory...): NULL never means the body is
 * wrong, only that this reader does not decide.
 */
json_t *json_scan_skeleton(const struct json_scan_filter *filter,
			   const char *body, size_t len, int max_depth);

/*
 * Reads the JSON object `body` in full, as json_loadb() with
 * JSON_REJECT_DUPLICATES does, in one pass without jansson's per-byte
 * lexer. NULL when jansson must decide: an error (jansson then says
 * where), a real number or an integer of more than 15 digits, nesting
 * beyond 256 levels, \u0000, or out of memory. *depth is how many levels
 * of objects and arrays the value nests (1 for a flat object; 0 with
 * NULL). With a
 * `filter`, the rules with a trigger in a string that has escapes are
 * added to *rules (what json_scan_filter_rules() cannot see in the raw
 * text).
 */
json_t *json_scan_read(const char *body, size_t len,
		       const struct json_scan_filter *filter, int *depth,
		       unsigned *rules);

/*
 * A full read's record of the document it read (json_scan_read_tape()),
 * for json_tape_equal(): the values as they came, in entries no one else
 * holds, pointing into the body (which must outlive it).
 */
struct json_tape;

/*
 * json_scan_read() that also gives, with a document, its record in *tape
 * (NULL when it could not make one: out of memory). json_tape_free() it.
 */
json_t *json_scan_read_tape(const char *body, size_t len,
			    const struct json_scan_filter *filter, int *depth,
			    unsigned *rules, struct json_tape **tape);
void json_tape_free(struct json_tape *tape);

/*
 * json_scan_read_tape() of an AdmissionReview that builds only what the
 * webhook reads: apiVersion, kind, request.{uid, operation, namespace,
 * subResource, name, dryRun, kind.group, kind.kind} as a light read keeps
 * them (json_scan_light()), and request.object and request.oldObject
 * whole; the tape records what it builds. The whole body is checked as
 * json_scan_read() checks it, *depth and *rules as it says.
 */
json_t *json_scan_review(const char *body, size_t len,
			 const struct json_scan_filter *filter, int *depth,
			 unsigned *rules, struct json_tape **tape);

/*
 * json_scan_equal() against a tape instead of the text: 1 when the
 * member at `path` of the document recorded equals `value`, as
 * json_equal() judges, 0 when it differs (a missing member differs), -1
 * without a tape.
 */
int json_tape_equal(const struct json_tape *tape, const char *const *path,
		    const json_t *value);

/*
 * The number of JSON values in the JSON text body[0..len), without
 * reading it (objects, arrays, strings, numbers, literals; not the keys);
 * once past `stop`, some number past it. For a text that is not valid
 * JSON, a number of no meaning. One pass, no allocation: what a reader
 * would build, known before building it.
 */
size_t json_scan_count_values(const char *body, size_t len, size_t stop);

/* rules_options.read_json: json_scan_read() without a filter (NULL where
 * it gives up: jansson reads it then). */
json_t *json_scan_read_value(const char *text, size_t len);

/*
 * A light read of the AdmissionReview `body`, for rules that read only
 * what `reads` names (rules_reads()): the members of the skeleton that
 * review_request() reads, request.kind.group, and request.object as
 * rules_reads() says, its values as they are (numbers too). NULL when
 * the body must be read in full: as for json_scan_skeleton() (a trigger
 * behind an escape excepted: its rules are added to *rules, as
 * json_scan_read() does), and when a member left out of the object holds
 * a "containers" member. *depth as json_scan_read() says, of the whole
 * body.
 */
json_t *json_scan_light(const struct json_scan_filter *filter,
			const char *body, size_t len,
			const struct rules_read *reads, int *depth,
			unsigned *rules);

/*
 * Compares the member at `path` (keys, NULL-terminated; NULL: the whole
 * text) of the JSON text `body` with `value`, as json_equal() compares
 * two documents, reading the text as json_scan_read() does without
 * building it: 1 when they are equal, 0 when they differ (a missing
 * member differs), -1 when this reader cannot tell (the text has what
 * json_scan_read() leaves to jansson, or is not valid JSON, which may
 * also give 0).
 */
int json_scan_equal(const char *body, size_t len, const char *const *path,
		    const json_t *value);

#endif
