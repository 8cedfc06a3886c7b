/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * patch_faults.h - what the unit tests (tests/unit/test_patch_check.c) and
 * the admission fuzz target (tests/fuzz/fuzz_common.c) share to test the
 * webhook's patch check: the check it replaced, and changes made behind
 * the engine's back. Included by each, once (static functions).
 */
#ifndef GPUMEND_TESTS_PATCH_FAULTS_H
#define GPUMEND_TESTS_PATCH_FAULTS_H

#include <jansson.h>

#include "rules.h"

/* Number of values in `v`, itself included. */
static size_t faults_count(json_t *v)
{
	size_t n = 1, i;
	const char *key;
	json_t *child;

	if (json_is_object(v))
		json_object_foreach(v, key, child)
			n += faults_count(child);
	else if (json_is_array(v))
		json_array_foreach(v, i, child)
			n += faults_count(child);
	return n;
}

/*
 * Changes the k-th value of `v` (in document order), `how` choosing among
 * the changes its type allows; *k counts down. 1 when a change was made
 * (true, false and null are shared by jansson: never changed in place).
 */
static int faults_change_at(json_t *v, size_t *k, unsigned how)
{
	const char *key;
	json_t *child;
	size_t i;

	if ((*k)-- == 0) {
		switch (json_typeof(v)) {
		case JSON_OBJECT:
			if (how % 2 && json_object_size(v))
				return json_object_del(v, json_object_iter_key(
						json_object_iter(v))) == 0;
			return json_object_set_new(v, "behind-its-back",
						   json_integer(how)) == 0;
		case JSON_ARRAY:
			if (how % 2 && json_array_size(v))
				return json_array_remove(v, 0) == 0;
			return json_array_append_new(v, json_string("x")) == 0;
		case JSON_STRING:
			return json_string_set(v, how % 2 ? "" : "changed") == 0;
		case JSON_INTEGER:
			return json_integer_set(v, json_integer_value(v) + 1) == 0;
		default:
			return 0;
		}
	}
	if (json_is_object(v)) {
		json_object_foreach(v, key, child)
			if (faults_change_at(child, k, how))
				return 1;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child)
			if (faults_change_at(child, k, how))
				return 1;
	}
	return 0;
}

/*
 * The check the webhook had: `res`'s operations replayed on a copy of
 * `original` give `expected`. 0 also when out of memory.
 */
static int faults_replay_gives(json_t *original, const struct rules_result *res,
			       json_t *expected)
{
	json_t *replay = json_deep_copy(original);
	int same = replay != NULL;

	for (size_t i = 0; same && i < res->n_ops; i++) {
		struct patch_op op = res->ops[i];

		if (op.value && !(op.value = json_deep_copy(op.value)))
			same = 0;
		else if (patch_apply_op(replay, &op) != 0)
			same = 0;
		json_decref(op.value);
	}
	same = same && json_equal(replay, expected);
	json_decref(replay);
	return same;
}

/*
 * The webhook's check, with the object as it came in hand: `res`'s
 * operations undone last first in `object` (patch_revert_op()) give
 * `original`. `object` is left as the undo leaves it.
 */
static int faults_revert_gives(json_t *object, const struct rules_result *res,
			       json_t *original)
{
	for (size_t i = res->n_ops; i-- > 0;)
		if (patch_revert_op(object, &res->ops[i]) != 0)
			return 0;
	return json_equal(object, original);
}

#endif
