/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * converge.h - the object an UPDATE is answered with when only what the
 * stored object already holds migrated may be migrated.
 *
 * A Pod's spec cannot change after it is created, nor a Job's template;
 * re-applying the legacy manifest of one that gpumend migrated puts the
 * legacy keys back next to the migrated ones (kubectl's three-way merge,
 * server-side apply), and migrating that in full could change fields the
 * API server then refuses to change. So the answer is a three-way walk
 * over:
 *   sent      the request's object, what the client asks to store;
 *   migrated  the rules' result for `sent`;
 *   stored    request.oldObject.
 * Where `sent` and `migrated` agree, `sent` stays. Mappings are walked
 * member by member, and arrays element by element when all three have the
 * same length (a mapping the rules emptied and removed is walked as an
 * empty one); where they differ, the place is decided whole, and it is
 * held when the stored object holds the migrated value there (absent
 * where the migrated object has none). Where the stored object has no
 * mapping or array holding a place, nothing is known of it: not held.
 *
 * The places are then decided rule by rule, never piece by piece: a
 * place belongs to every rule with an operation at it, above it or
 * inside it, and rules that share a place are decided together. A rule
 * (with those it shares places with) is taken, all its places migrated,
 * when every one of its places is held; otherwise none is, and they all
 * stay as sent. So a key renamed, a volume removed with its mounts, a
 * node selector replaced by an affinity are each one change.
 *
 * Every place where the result differs from `sent` holds what the stored
 * object holds there: the answer never brings in a value that neither
 * the client nor the stored object has, so it cannot be why the API
 * server refuses the update. The cost is linear in the objects and the
 * operations, and n log n in the number of places.
 */
#ifndef GPUMEND_CONVERGE_H
#define GPUMEND_CONVERGE_H

#include <stddef.h>
#include <jansson.h>

#include "rules.h"

/* Rules whose changes an update left as sent, and where. */
struct converge_kept {
	char *pointer;             /* the place holding all their changes */
	unsigned rules;            /* bits 1 << rule_id */
};

struct converge {
	json_t *object;            /* the result, a new object of its own */
	struct patch_op *ops;      /* RFC 6902 operations from `sent` to it */
	size_t n_ops, cap_ops;
	unsigned taken;            /* rules (1 << rule_id) migrated */
	struct converge_kept *kept; /* left as sent although migrated */
	size_t n_kept, cap_kept;
	/* the places of the walk (converge.c) */
	struct converge_place *places;
	size_t n_places, cap_places;
};

void converge_init(struct converge *c);
/* Frees what `c` holds and empties it; accepts NULL. */
void converge_clear(struct converge *c);

/*
 * Fills `c` (initialised) for the objects `sent` and `migrated` and the
 * stored object `stored` (NULL or not an object: nothing is known of it,
 * and everything stays as sent); `rule_ops` are the rules' operations
 * that turned `sent` into `migrated`, which say what belongs to which
 * rule. None of them is changed or kept. The operations of `c` are
 * independent of each other (no two touch the same place, no array
 * changes length above another's path), in the order of `sent`. Each
 * step of the walk spends from `budget` (NULL: none).
 * Returns 0, or -1 when out of memory or over the budget (`c` then holds
 * no object).
 */
int converge_update(json_t *sent, json_t *migrated, json_t *stored,
		    const struct patch_op *rule_ops, size_t n_rule_ops,
		    struct rules_budget *budget, struct converge *c);

#endif
