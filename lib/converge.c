/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * converge.c - the three-way walk of an UPDATE's answer (see converge.h).
 */
#include <stdlib.h>
#include <string.h>

#include "converge.h"

/* A place the walk decides whole. */
struct converge_place {
	char *pointer;
	json_t *sent;              /* borrowed from the inputs; NULL: absent */
	json_t *migrated;
	int held;                  /* the stored object holds `migrated` */
	unsigned rules;            /* of the operations related to it */
};

/* A JSON Pointer of the rules' operations (a path or a from). */
struct op_pointer {
	const char *text;
	size_t len;
	unsigned rules;
};

/* What the walk shares. */
struct walker {
	struct converge *c;
	struct rules_budget *budget;
};

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
	for (size_t i = 0; i < c->n_kept; i++)
		free(c->kept[i].pointer);
	free(c->kept);
	for (size_t i = 0; i < c->n_places; i++)
		free(c->places[i].pointer);
	free(c->places);
	converge_init(c);
}

/*
 * `migrated` (NULL: absent) is what the stored value is (NULL: absent):
 * the stored object holds this place migrated.
 */
static int held(json_t *migrated, json_t *stored)
{
	return migrated ? stored && json_equal(migrated, stored) : !stored;
}

/* Records the place `pointer` (taken over), decided whole. */
static int place_add(struct converge *c, char *pointer, json_t *sent,
		     json_t *migrated, int is_held)
{
	struct converge_place *p;

	if (!pointer)
		return -1;
	if (c->n_places == c->cap_places) {
		size_t cap = c->cap_places ? c->cap_places * 2 : 16;
		struct converge_place *grown = realloc(c->places,
						       cap * sizeof(*grown));

		if (!grown) {
			free(pointer);
			return -1;
		}
		c->places = grown;
		c->cap_places = cap;
	}
	p = &c->places[c->n_places++];
	p->pointer = pointer;
	p->sent = sent;
	p->migrated = migrated;
	p->held = is_held;
	p->rules = 0;
	return 0;
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

static int walk(struct walker *w, json_t *sent, json_t *migrated,
		json_t *stored, int known, const char *pointer);

/* One member `key` of the mapping at `pointer`. */
static int walk_member(struct walker *w, json_t *sent, json_t *migrated,
		       json_t *stored_map, const char *key,
		       const char *pointer)
{
	json_t *s = json_member(sent, key);
	json_t *m = json_member(migrated, key);
	char *at;
	int rc;

	if (s && m && json_equal(s, m))
		return 0;
	if (!(at = json_pointer_join(pointer, key)))
		return -1;
	rc = walk(w, s, m, json_member(stored_map, key), stored_map != NULL,
		  at);
	free(at);
	return rc;
}

static int walk_object(struct walker *w, json_t *sent, json_t *migrated,
		       json_t *stored, int known, const char *pointer)
{
	json_t *stored_map = known && json_is_object(stored) ? stored : NULL;
	json_t *value;
	const char *key;

	json_object_foreach(sent, key, value)
		if (walk_member(w, sent, migrated, stored_map, key, pointer))
			return -1;
	json_object_foreach(migrated, key, value)
		if (!json_member(sent, key) &&
		    walk_member(w, sent, migrated, stored_map, key, pointer))
			return -1;
	return 0;
}

static int walk_array(struct walker *w, json_t *sent, json_t *migrated,
		      json_t *stored, const char *pointer)
{
	size_t n = json_array_size(sent);

	for (size_t i = 0; i < n; i++) {
		json_t *s = json_array_get(sent, i);
		json_t *m = json_array_get(migrated, i);
		char *at;
		int rc;

		if (json_equal(s, m))
			continue;
		if (!(at = json_pointer_join_index(pointer, i)))
			return -1;
		rc = walk(w, s, m, json_array_get(stored, i), 1, at);
		free(at);
		if (rc)
			return -1;
	}
	return 0;
}

/*
 * The places at `pointer` for `sent` and `migrated` there (NULL: absent;
 * never both; never equal) and the stored value `stored`; `known` is 0
 * when the stored object has nothing that holds this place.
 */
static int walk(struct walker *w, json_t *sent, json_t *migrated,
		json_t *stored, int known, const char *pointer)
{
	if (rules_budget_spend(w->budget, 1))
		return -1;
	if (json_is_object(sent) && descends(sent, migrated, stored, known))
		return walk_object(w, sent, migrated, stored, known, pointer);
	if (descends(sent, migrated, stored, known))
		return walk_array(w, sent, migrated, stored, pointer);
	return place_add(w->c, strdup(pointer), sent, migrated,
			 known && held(migrated, stored));
}

/* ------------------------------------------------------------------ */
/* Which rules each place belongs to                                   */

/* strcmp() of two texts with lengths. */
static int text_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int d = memcmp(a, b, alen < blen ? alen : blen);

	return d ? d : alen < blen ? -1 : alen > blen;
}

static int op_pointer_cmp(const void *a, const void *b)
{
	const struct op_pointer *x = a, *y = b;

	return text_cmp(x->text, x->len, y->text, y->len);
}

/* The first entry of the sorted `table` not below text[0..len). */
static size_t lower_bound(const struct op_pointer *table, size_t n,
			  const char *text, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (text_cmp(table[mid].text, table[mid].len, text, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The rules of the operations at `pointer`, above it (a prefix ending
 * before a '/') or inside it (`pointer` and a '/' before the rest);
 * `inside` is a buffer of strlen(pointer) + 2 bytes. The places are
 * disjoint, so the entries inside them are seen once over all places:
 * with the searches, n log n in all.
 */
static unsigned place_rules(const struct op_pointer *table, size_t n,
			    const char *pointer, char *inside)
{
	size_t len = strlen(pointer), k;
	unsigned rules = 0;

	/* at it or above it: each prefix ending at a '/' or the end */
	for (size_t end = 0; end <= len; end++) {
		if (end < len && pointer[end] != '/')
			continue;
		k = lower_bound(table, n, pointer, end);
		if (k < n && table[k].len == end &&
		    !memcmp(table[k].text, pointer, end))
			rules |= table[k].rules;
	}
	/* inside it: the entries that start with POINTER/ */
	memcpy(inside, pointer, len);
	inside[len] = '/';
	for (k = lower_bound(table, n, inside, len + 1);
	     k < n && table[k].len > len && !memcmp(table[k].text, inside,
						      len + 1); k++)
		rules |= table[k].rules;
	return rules;
}

/*
 * Sets the rules of every place from the rules' operations: the paths and
 * froms sorted, equal ones merged into one entry. 0 or -1.
 */
static int places_relate(struct converge *c, const struct patch_op *ops,
			 size_t n_ops, struct rules_budget *budget)
{
	struct op_pointer *table = malloc((2 * n_ops + 1) * sizeof(*table));
	size_t n = 0, merged = 0, inside_size = 0;
	char *inside = NULL;

	if (!table)
		return -1;
	for (size_t i = 0; i < n_ops; i++) {
		if ((unsigned)ops[i].rule >= RULE_COUNT)
			continue;
		for (int side = 0; side < 2; side++) {
			const char *text = side ? ops[i].from : ops[i].path;

			if (!text)
				continue;
			table[n].text = text;
			table[n].len = strlen(text);
			table[n].rules = 1u << ops[i].rule;
			n++;
		}
	}
	qsort(table, n, sizeof(*table), op_pointer_cmp);
	for (size_t i = 0; i < n; i++) {
		if (merged && op_pointer_cmp(&table[merged - 1], &table[i]) == 0)
			table[merged - 1].rules |= table[i].rules;
		else
			table[merged++] = table[i];
	}
	for (size_t i = 0; i < c->n_places; i++) {
		size_t len = strlen(c->places[i].pointer);

		if (len + 2 > inside_size) {
			char *grown = realloc(inside, len + 2);

			if (!grown)
				goto out_fail;
			inside = grown;
			inside_size = len + 2;
		}
		if (rules_budget_spend(budget, 1))
			goto out_fail;
		c->places[i].rules = place_rules(table, merged,
						 c->places[i].pointer, inside);
	}
	free(inside);
	free(table);
	return 0;
out_fail:
	free(inside);
	free(table);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Deciding                                                            */

/* The representative of rule `r` in the union of rules `group`. */
static int group_find(int *group, int r)
{
	while (group[r] != r)
		r = group[r] = group[group[r]];
	return r;
}

/* The lowest rule of `rules`, RULE_COUNT when none. */
static int first_rule(unsigned rules)
{
	for (int r = 0; r < RULE_COUNT; r++)
		if (rules >> r & 1)
			return r;
	return RULE_COUNT;
}

/* The group of a place: its rules' representative, or RULE_COUNT. */
static int place_group(int *group, const struct converge_place *p)
{
	int r = first_rule(p->rules);

	return r == RULE_COUNT ? RULE_COUNT : group_find(group, r);
}

/* Shortens the pointer `common` to the longest one that is `pointer`
 * or above it: their common tokens. */
static void common_prefix(char *common, const char *pointer)
{
	size_t end = 0;

	for (size_t i = 0;; i++) {
		if ((common[i] == '/' || !common[i]) &&
		    (pointer[i] == '/' || !pointer[i]))
			end = i;
		if (!common[i] || common[i] != pointer[i])
			break;
	}
	common[end] = '\0';
}

/* Appends the kept entry of `pointer` (taken over) and `rules`; 0 or -1. */
static int kept_push(struct converge *c, char *pointer, unsigned rules)
{
	if (c->n_kept == c->cap_kept) {
		size_t cap = c->cap_kept ? c->cap_kept * 2 : 4;
		struct converge_kept *grown = realloc(c->kept,
						      cap * sizeof(*grown));

		if (!grown) {
			free(pointer);
			return -1;
		}
		c->kept = grown;
		c->cap_kept = cap;
	}
	c->kept[c->n_kept].pointer = pointer;
	c->kept[c->n_kept++].rules = rules;
	return 0;
}

/*
 * Records the places of group `g` (rules `rules`) left as sent: one entry
 * at the place that holds them all, or, for places of no rule
 * (RULE_COUNT), one entry for each that is not held.
 */
static int kept_add(struct converge *c, int *group, int g, unsigned rules)
{
	char *common = NULL;

	for (size_t i = 0; i < c->n_places; i++) {
		const struct converge_place *p = &c->places[i];

		if (place_group(group, p) != g ||
		    (g == RULE_COUNT && p->held))
			continue;
		if (g == RULE_COUNT) {
			if (kept_push(c, strdup(p->pointer), 0) ||
			    !c->kept[c->n_kept - 1].pointer)
				return -1;
		} else if (!common) {
			if (!(common = strdup(p->pointer)))
				return -1;
		} else {
			common_prefix(common, p->pointer);
		}
	}
	return common ? kept_push(c, common, rules) : 0;
}

/* Appends the operation that takes the place `p`; 0 or -1. */
static int op_add(struct converge *c, const struct converge_place *p)
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
	op->kind = !p->sent ? PATCH_ADD : !p->migrated ? PATCH_REMOVE
						       : PATCH_REPLACE;
	op->rule = RULE_COUNT;
	if (!(op->path = strdup(p->pointer)))
		return -1;
	if (p->migrated && !(op->value = json_deep_copy(p->migrated))) {
		free(op->path);
		return -1;
	}
	c->n_ops++;
	return 0;
}

/*
 * Decides the places rule by rule (converge.h), appends the operations
 * of the places taken and the kept entries of the others.
 */
static int places_decide(struct converge *c)
{
	int group[RULE_COUNT + 1], all_held[RULE_COUNT + 1];
	unsigned members[RULE_COUNT + 1] = { 0 };

	for (int r = 0; r <= RULE_COUNT; r++) {
		group[r] = r;
		all_held[r] = 1;
	}
	/* the rules of one place go together */
	for (size_t i = 0; i < c->n_places; i++) {
		unsigned rules = c->places[i].rules;
		int first = first_rule(rules);

		for (int r = first + 1; r < RULE_COUNT; r++)
			if (rules >> r & 1)
				group[group_find(group, r)] =
					group_find(group, first);
	}
	for (size_t i = 0; i < c->n_places; i++) {
		const struct converge_place *p = &c->places[i];
		int g = place_group(group, p);

		members[g] |= p->rules;
		if (!p->held && g != RULE_COUNT)
			all_held[g] = 0;
	}
	for (size_t i = 0; i < c->n_places; i++) {
		const struct converge_place *p = &c->places[i];
		int g = place_group(group, p);

		if ((g == RULE_COUNT ? p->held : all_held[g]) && op_add(c, p))
			return -1;
	}
	for (int g = 0; g <= RULE_COUNT; g++) {
		if (g < RULE_COUNT && all_held[g]) {
			c->taken |= members[g];
			continue;
		}
		if (g < RULE_COUNT && group_find(group, g) != g)
			continue;
		if (kept_add(c, group, g, members[g]))
			return -1;
	}
	return 0;
}

int converge_update(json_t *sent, json_t *migrated, json_t *stored,
		    const struct patch_op *rule_ops, size_t n_rule_ops,
		    struct rules_budget *budget, struct converge *c)
{
	struct walker w = { c, budget };

	if (!json_is_object(stored))
		stored = NULL;
	if ((!json_equal(sent, migrated) &&
	     walk(&w, sent, migrated, stored, stored != NULL, "")) ||
	    places_relate(c, rule_ops, n_rule_ops, budget) ||
	    places_decide(c))
		goto out_fail;
	/* the result: what was sent, the places taken migrated */
	if (!(c->object = json_deep_copy(sent)))
		goto out_fail;
	for (size_t i = 0; i < c->n_ops; i++)
		if (rules_budget_spend(budget, 1) ||
		    patch_apply_op_copy(c->object, &c->ops[i]) != 0)
			goto out_fail;
	return 0;
out_fail:
	converge_clear(c);
	return -1;
}
