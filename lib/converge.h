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
 * empty one). The other differences of the members of one mapping are
 * decided together, so that a key renamed within a mapping (a resource,
 * a node label) is one change: they take the migrated values when the
 * stored object holds exactly those values (absent where the migrated
 * object has none), and all stay as sent otherwise. That mapping is then
 * listed as kept. Where the stored object has no mapping or array holding
 * a place, nothing is known of it, and it stays as sent.
 *
 * Every place where the result differs from `sent` holds what the stored
 * object holds there: the answer never brings in a value that neither
 * the client nor the stored object has, so it cannot be why the API
 * server refuses the update.
 */
#ifndef GPUMEND_CONVERGE_H
#define GPUMEND_CONVERGE_H

#include <stddef.h>
#include <jansson.h>

#include "rules.h"

struct converge {
	json_t *object;            /* the result, a new object of its own */
	struct patch_op *ops;      /* RFC 6902 operations from `sent` to it */
	size_t n_ops, cap_ops;
	struct string_list taken;  /* JSON Pointers of the places migrated */
	struct string_list kept;   /* of the mappings and values left as sent
				      although the rules migrate them */
};

void converge_init(struct converge *c);
/* Frees what `c` holds and empties it; accepts NULL. */
void converge_clear(struct converge *c);

/*
 * Fills `c` (initialised) for the objects `sent` and `migrated` and the
 * stored object `stored` (NULL or not an object: nothing is known of it,
 * and everything stays as sent). None of them is changed or kept. The
 * operations are independent of each other (no two touch the same place,
 * no array changes length above another's path), in the order of `sent`.
 * Returns 0, or -1 when out of memory (`c` then holds no object).
 */
int converge_update(json_t *sent, json_t *migrated, json_t *stored,
		    struct converge *c);

#endif
