/*
 * converge.c - the three-way walk of an UPDATE's answer (see converge.h).
 */
#include <stdlib.h>
#include <string.h>

#include "converge.h"

void converge_init(struct converge *c)
{
	memset(c, 0, sizeof(*c));
}

void converge_clear(struct converge *c)
{
	if (!c)
		return;
	json_decref(c->object);
	for (size_t i = 0; i < c->n_ops; i++) {
		free(c->ops[i].path);
		free(c->ops[i].from);
		json_decref(c->ops[i].value);
	}
	free(c->ops);
	string_list_clear(&c->taken);
	string_list_clear(&c->kept);
	converge_init(c);
}

/* Appends a copy of `text` to `list`; 0 or -1. */
static int list_add(struct string_list *list, const char *text)
{
	char **grown = realloc(list->items, (list->n + 1) * sizeof(*grown));

	if (!grown)
		return -1;
	list->items = grown;
	if (!(list->items[list->n] = strdup(text)))
		return -1;
	list->n++;
	return 0;
}

/*
 * `migrated` (NULL: absent) is what the stored value is (NULL: absent):
 * the stored object holds this place migrated.
 */
static int held(json_t *migrated, json_t *stored)
{
	return migrated ? stored && json_equal(migrated, stored) : !stored;
}

/* Records the place `pointer` as migrated: `sent` becomes `migrated`. */
static int take(struct converge *c, const char *pointer, json_t *sent,
		json_t *migrated)
{
	struct patch_op *op;

	if (c->n_ops == c->cap_ops) {
		size_t cap = c->cap_ops ? c->cap_ops * 2 : 8;
		struct patch_op *grown = realloc(c->ops, cap * sizeof(*grown));

		if (!grown)
			return -1;
		c->ops = grown;
		c->cap_ops = cap;
	}
	op = &c->ops[c->n_ops];
	memset(op, 0, sizeof(*op));
	op->kind = !sent ? PATCH_ADD : !migrated ? PATCH_REMOVE : PATCH_REPLACE;
	op->rule = RULE_COUNT;
	if (!(op->path = strdup(pointer)))
		return -1;
	if (migrated && !(op->value = json_deep_copy(migrated))) {
		free(op->path);
		return -1;
	}
	c->n_ops++;
	return list_add(&c->taken, pointer);
}

/*
 * 1 when the place is walked inside rather than decided whole: two
 * mappings, or two arrays of the stored array's length; or a mapping sent
 * that the rules emptied and removed (an annotation moved into the spec
 * takes the mapping along), when its removal cannot be taken whole: its
 * members then decide, as if the migrated side were an empty mapping.
 */
static int descends(json_t *sent, json_t *migrated, json_t *stored,
		    int known)
{
	if (json_is_object(sent) && json_is_object(migrated))
		return 1;
	if (json_is_object(sent) && !migrated)
		return !(known && held(NULL, stored));
	return known && json_is_array(sent) && json_is_array(migrated) &&
	       json_is_array(stored) &&
	       json_array_size(sent) == json_array_size(migrated) &&
	       json_array_size(sent) == json_array_size(stored);
}

static int walk(struct converge *c, json_t *sent, json_t *migrated,
		json_t *stored, int known, const char *pointer,
		json_t **result);

/* Sets member `key` of `object` to `value` (new reference, may be NULL). */
static int set_member(json_t *object, const char *key, json_t *value)
{
	return value ? json_object_set_new(object, key, value) : 0;
}

/*
 * One member of the mapping at `pointer`: walks into it, or takes or
 * keeps it as its mapping's members are (`take_direct`).
 */
static int walk_member(struct converge *c, json_t *sent, json_t *migrated,
		       json_t *stored_map, const char *key,
		       const char *pointer, int take_direct, json_t *result)
{
	json_t *s = json_member(sent, key);
	json_t *m = json_member(migrated, key);
	json_t *st = json_member(stored_map, key);
	json_t *value = NULL;
	char *at;
	int rc = -1;

	if (s && m && json_equal(s, m))
		return json_object_set(result, key, s);
	if (!(at = json_pointer_join(pointer, key)))
		return -1;
	if (descends(s, m, st, stored_map != NULL)) {
		if (walk(c, s, m, st, stored_map != NULL, at, &value) == 0)
			rc = set_member(result, key, value);
	} else if (take_direct) {
		if (take(c, at, s, m) == 0)
			rc = set_member(result, key, json_incref(m));
	} else {
		rc = set_member(result, key, json_incref(s));
	}
	free(at);
	return rc;
}

static int walk_object(struct converge *c, json_t *sent, json_t *migrated,
		       json_t *stored, int known, const char *pointer,
		       json_t **result)
{
	json_t *stored_map = known && json_is_object(stored) ? stored : NULL;
	json_t *out, *value;
	const char *key;
	int direct = 0, all_held = 1;

	/* the members decided whole: are they all held migrated? */
	for (int side = 0; side < 2; side++) {
		json_object_foreach(side ? migrated : sent, key, value) {
			json_t *s = json_member(sent, key);
			json_t *m = json_member(migrated, key);
			json_t *st = json_member(stored_map, key);

			if ((side && s) || (s && m && json_equal(s, m)) ||
			    descends(s, m, st, stored_map != NULL))
				continue;
			direct = 1;
			if (!stored_map || !held(m, st))
				all_held = 0;
		}
	}
	if (!(out = json_object()))
		return -1;
	json_object_foreach(sent, key, value)
		if (walk_member(c, sent, migrated, stored_map, key, pointer,
				all_held, out))
			goto out_fail;
	json_object_foreach(migrated, key, value)
		if (!json_member(sent, key) &&
		    walk_member(c, sent, migrated, stored_map, key, pointer,
				all_held, out))
			goto out_fail;
	if (direct && !all_held && list_add(&c->kept, pointer))
		goto out_fail;
	*result = out;
	return 0;
out_fail:
	json_decref(out);
	return -1;
}

static int walk_array(struct converge *c, json_t *sent, json_t *migrated,
		      json_t *stored, const char *pointer, json_t **result)
{
	json_t *out = json_array();
	size_t n = json_array_size(sent);

	if (!out)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *value = NULL;
		char *at = json_pointer_join_index(pointer, i);
		int rc = at ? walk(c, json_array_get(sent, i),
				   json_array_get(migrated, i),
				   json_array_get(stored, i), 1, at, &value) : -1;

		free(at);
		/* an element is never absent on both sides */
		if (rc || json_array_append_new(out, value)) {
			json_decref(out);
			return -1;
		}
	}
	*result = out;
	return 0;
}

/*
 * The result at `pointer` (new reference in *result, NULL: absent) for
 * `sent` and `migrated` there (NULL: absent; never both) and the stored
 * value `stored`; `known` is 0 when the stored object has nothing that
 * holds this place (nothing is then held).
 */
static int walk(struct converge *c, json_t *sent, json_t *migrated,
		json_t *stored, int known, const char *pointer,
		json_t **result)
{
	*result = NULL;
	if (sent && migrated && json_equal(sent, migrated)) {
		*result = json_incref(sent);
		return 0;
	}
	if (json_is_object(sent) && descends(sent, migrated, stored, known))
		return walk_object(c, sent, migrated, stored, known, pointer,
				   result);
	if (descends(sent, migrated, stored, known))
		return walk_array(c, sent, migrated, stored, pointer, result);
	/* an array element, or the root: decided whole */
	if (known && held(migrated, stored)) {
		if (take(c, pointer, sent, migrated))
			return -1;
		*result = json_incref(migrated);
		return 0;
	}
	*result = json_incref(sent);
	return list_add(&c->kept, pointer);
}

int converge_update(json_t *sent, json_t *migrated, json_t *stored,
		    struct converge *c)
{
	json_t *built = NULL;

	if (!json_is_object(stored))
		stored = NULL;
	if (walk(c, sent, migrated, stored, stored != NULL, "", &built))
		goto out_fail;
	/* the walk shares values with its inputs: the result has its own */
	c->object = json_deep_copy(built);
	json_decref(built);
	if (!c->object)
		goto out_fail;
	return 0;
out_fail:
	json_decref(built);
	converge_clear(c);
	return -1;
}
