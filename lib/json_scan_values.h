/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_scan_values.h - the scan of values, included twice by json_scan.c:
 * with SCAN_TAPED 1 it records what it builds on the scan's tape (a full
 * or a review read, for the patch check), with 0 it does not, and costs
 * the skeleton and light reads nothing for the tape.
 *
 * Before each inclusion: SCAN_TAPED (0 or 1) and SCAN_FN(name), the name
 * of this copy's function `name`.
 */

/* the scan's tape in the copy that records, else NULL at compile time */
#undef SCAN_TAPE
#define SCAN_TAPE(s) (SCAN_TAPED ? (s)->tape : NULL)

static int SCAN_FN(scan_other)(struct scan *s, int depth, int want,
			       const struct capture *shape, json_t **made);
static inline int SCAN_FN(scan_value)(struct scan *s, int depth,
				      int want, const struct capture *shape,
				      json_t **made);

/*
 * The members of an object (s->p just past its '{'). `object` is the
 * object being built, NULL when it is not kept; in a skeleton only the
 * `children` members are kept, in a full read all of them.
 */
static int SCAN_FN(scan_members)(struct scan *s, int depth,
				 json_t *object,
				 const struct capture *children)
{
	unsigned first_key = s->n_keys;
	/* this object's keys, and those of all the objects open, bounded */
	unsigned keys_limit = first_key + SCAN_OBJECT_KEYS_MAX < SCAN_KEYS_MAX ?
			      first_key + SCAN_OBJECT_KEYS_MAX : SCAN_KEYS_MAX;
	uint64_t seen = 0;
	char *key_copy = NULL;
	int rc = -1;

	skip_space(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return 0;
	}
	for (;;) {
		const struct capture *kept = NULL;
		const char *key, *name = NULL;
		json_t *value = NULL;
		size_t len, size, name_len = 0;
		uint32_t hash;

		if (s->p >= s->end || *s->p != '"' ||
		    scan_string(s, &key, &len))
			goto out;
		if (s->full) {
			if (SCAN_TAPE(s))
				tape_text(SCAN_TAPE(s), TAPE_KEY, key, len,
					  key == s->scratch);
			/* the value's own escapes may reuse the scratch */
			if (key == s->scratch) {
				free(key_copy);
				if (!(key_copy = malloc(len + 1)))
					goto out;
				memcpy(key_copy, key, len);
				key = key_copy;
			}
		} else {
			/* duplicates: jansson's verdict (or a collision) */
			hash = key_hash(key, len, key == s->scratch ?
					(const unsigned char *)key :
					s->end);
			if (s->n_keys >= keys_limit)
				goto out;
			/* compared only when a 64-bit filter says it may be */
			if (seen >> (hash & 63) & 1)
				for (unsigned k = first_key; k < s->n_keys; k++)
					if (s->keys[k] == hash)
						goto out;
			seen |= (uint64_t)1 << (hash & 63);
			s->keys[s->n_keys++] = hash;
			if (s->light) {
				const struct rules_read *r = NULL;

				/* a pod spec could hide in what is left out */
				if (!object && len == 10 &&
				    memcmp(key, "containers", 10) == 0)
					goto out;
				for (unsigned i = object && len ?
					  s->read_slot[read_hash(key, len)] : 0;
				     i; i = s->read_next[i - 1])
					if (s->reads[i - 1].len == len &&
					    memcmp(s->reads[i - 1].key, key,
						   len) == 0) {
						r = &s->reads[i - 1];
						break;
					}
				if (r) {
					kept = r->whole ? &capture_whole :
							  &capture_light_value;
					name = r->key;
					name_len = r->len;
				}
			} else if (object &&
				   (kept = capture_find(children, key, len))) {
				name = kept->key;
				name_len = kept->len;
				if (SCAN_TAPE(s))
					tape_text(SCAN_TAPE(s), TAPE_KEY, key, len,
						  key == s->scratch);
			}
		}
		/* "key": at once, most of the time */
		if (s->p < s->end && *s->p == ':') {
			s->p++;
		} else {
			skip_space(s);
			if (s->p >= s->end || *s->p != ':')
				goto out;
			s->p++;
		}
		if (SCAN_FN(scan_value)(s, depth, s->full || kept, kept, &value))
			goto out;
		if (s->full) {
			/* a duplicate replaces a member: the size stays */
			size = json_object_size(object);
			if (json_object_setn_new_nocheck(object, key, len, value) ||
			    json_object_size(object) == size)
				goto out;
		} else if (kept && json_object_setn_new_nocheck(object, name,
								name_len,
								value)) {
			goto out;
		}
		if (s->p >= s->end || *s->p != ',')
			skip_space(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			skip_space(s);
			continue;
		}
		if (s->p < s->end && *s->p == '}') {
			s->p++;
			rc = 0;
		}
		goto out;
	}
out:
	free(key_copy);
	s->n_keys = first_key;
	return rc;
}

/*
 * The elements of an array (s->p just past its '['); `array` as above. In
 * a skeleton, each element is kept as `element` says, when not NULL.
 */
static int SCAN_FN(scan_elements)(struct scan *s, int depth,
				  json_t *array,
				  const struct capture *element)
{
	int want = s->full || (array && element);

	skip_space(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return 0;
	}
	for (;;) {
		json_t *value = NULL;

		if (SCAN_FN(scan_value)(s, depth, want, element, &value) ||
		    (want && json_array_append_new(array, value)))
			return -1;
		if (s->p >= s->end || *s->p != ',')
			skip_space(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == ']') {
			s->p++;
			return 0;
		}
		return -1;
	}
}

/* scan_value() of an object or an array, or of a literal or a number. */
static int SCAN_FN(scan_other)(struct scan *s, int depth, int want,
			       const struct capture *shape, json_t **made)
{
	json_t *value = NULL;
	json_int_t number;
	int rc, full = s->full, light = s->light;
	/* the record of what is built, and the entry this value makes */
	struct json_tape *tape = want ? SCAN_TAPE(s) : NULL;
	size_t entry = 0;

	if (shape && shape->mode == CAPTURE_WHOLE)
		s->full = 1;
	else if (shape && shape->mode == CAPTURE_LIGHT)
		s->light = 1;
	switch (*s->p) {
	case '{':
	case '[': {
		int object = *s->p == '{';

		if (container_open(s, depth) ||
		    (want && !(value = object ? json_object()
					      : json_array()))) {
			rc = -1;
			break;
		}
		if (tape)
			entry = tape_open(tape, object ? TAPE_OBJECT
						       : TAPE_ARRAY);
		rc = object ?
		     SCAN_FN(scan_members)(s, depth + 1, value,
					   shape ? shape->children : NULL) :
		     SCAN_FN(scan_elements)(s, depth + 1, value,
					    shape ? shape->elements : NULL);
		if (!rc && tape)
			tape_close(tape, entry,
				   object ? json_object_size(value)
					  : json_array_size(value));
		break;
	}
	case 't':
	case 'f':
	case 'n': {
		/* true, false, null: by their first letter */
		int k = *s->p == 't' ? 0 : *s->p == 'f' ? 1 : 2;

		rc = scan_literal(s, literals[k].word, literals[k].len);
		if (!rc && tape)
			tape_push(tape, literals[k].tape_type);
		if (!rc && want)
			value = k == 0 ? json_true() :
				k == 1 ? json_false() : json_null();
		break;
	}
	default:
		rc = scan_integer(s, &number);
		if (rc || !want)
			break;
		/* a skeleton keeps the type, not the value */
		if (!s->full && !s->light)
			number = 0;
		if (tape) {
			struct tape_entry *e = tape_push(tape, TAPE_INTEGER);

			if (e)
				e->v.integer = number;
		}
		if (!(value = json_integer(number)))
			rc = -1;
		break;
	}
	s->full = full;
	s->light = light;
	if (rc) {
		json_decref(value);
		return -1;
	}
	if (want)
		*made = value;
	return 0;
}

/*
 * Reads one value at `depth` levels of nesting. With `want`, *made is the
 * value (in a full read) or its skeleton, kept as `shape` says (the
 * members of an object, the elements of an array; NULL: none).
 */
static inline __attribute__((always_inline)) int
SCAN_FN(scan_value)(struct scan *s, int depth, int want,
		    const struct capture *shape, json_t **made)
{
	const char *text;
	size_t len;

	skip_space(s);
	if (s->p >= s->end)
		return -1;
	if (*s->p != '"')
		return SCAN_FN(scan_other)(s, depth, want, shape, made);
	if (scan_string(s, &text, &len))
		return -1;
	if (want && !(*made = json_stringn_nocheck(text, len)))
		return -1;
	if (want && SCAN_TAPE(s))
		tape_text(SCAN_TAPE(s), TAPE_STRING, text, len,
			  text == s->scratch);
	return 0;
}
