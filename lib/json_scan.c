/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json_scan.c - the webhook's prefilter (see json_scan.h).
 *
 * Two passes over the body, both without allocation in the common case:
 * a search for the trigger strings over the raw bytes (Wu-Manber: a
 * window moves by a table of 2-byte blocks, then a compare), and a validating scan of the JSON
 * grammar that builds only the skeleton. Strings with escapes are decoded
 * and searched again, so an escape cannot hide a trigger. Anything this
 * reader is not sure to judge exactly as jansson does (numbers other than
 * plain integers, objects with many keys, deep nesting, \u0000) sends the
 * body to the full reader instead.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define SCAN_SSE2 1
#endif

#include "json_scan.h"

/* Nesting and key bookkeeping beyond which the full reader decides. */
#define SCAN_DEPTH_MAX 256
#define SCAN_KEYS_MAX 1024     /* keys of the objects open at once */
#define SCAN_OBJECT_KEYS_MAX 64
#define SCAN_READS_MAX 64      /* members a light read looks up */

struct trigger {
	char *text;
	size_t len;
	unsigned tail;                  /* its bytes wm_len - 2 and - 1 */
	int paired;                     /* found by its first two bytes */
	unsigned rules;                 /* whose trigger it is: 1 << rule_id */
};

struct json_scan_filter {
	unsigned enabled;               /* the rules that run */
	unsigned always;                /* those without a finite set */
	/*
	 * Triggers of 4 bytes or more: a Wu-Manber search over windows of
	 * the shortest one's length, by blocks of 2 bytes: how far the window
	 * may move when it ends with a block, 0 when a trigger's first wm_len
	 * bytes end with it.
	 */
	size_t wm_len;
	unsigned char *shift;           /* 65536 blocks */
	/*
	 * The triggers of 4 bytes or more are sorted by their block at the
	 * window's end: those of a block where the shift is 0 start at
	 * triggers[first[block]].
	 */
	uint16_t *first;                /* 65536 blocks */
	/*
	 * Triggers of 4 to 7 bytes with few distinct first two bytes (the
	 * "-gpu" of an image pattern) would make the windows short: they are
	 * found by their first two bytes, 16 positions at a time.
	 */
	unsigned char pairs[4][2];
	unsigned n_pairs;
	size_t paired_from;             /* triggers[] past the sorted ones */
	int has_short;                  /* triggers of 1 to 3 bytes */
	uint64_t bigrams[65536 / 64];   /* first two bytes of those of 2-3 */
	unsigned char firsts[256];      /* first byte of one-byte triggers */
	struct trigger *triggers;
	size_t n_triggers;
};

/* The 2-byte block at p, as one load (the tables are built with it too,
 * so the byte order does not matter). */
static inline unsigned block_at(const unsigned char *p)
{
	uint16_t block;

	memcpy(&block, p, 2);
	return block;
}

static inline int bit_test(const uint64_t *set, unsigned bit)
{
	return set[bit / 64] >> (bit % 64) & 1;
}

void json_scan_filter_free(struct json_scan_filter *filter)
{
	if (!filter)
		return;
	for (size_t i = 0; i < filter->n_triggers; i++)
		free(filter->triggers[i].text);
	free(filter->triggers);
	free(filter->shift);
	free(filter->first);
	free(filter);
}

/* Adds `text` (taken) as a trigger of `rule`, or the rule to its twin. */
static int filter_add(struct json_scan_filter *filter, char *text,
		      enum rule_id rule, size_t *cap)
{
	const unsigned char *t = (const unsigned char *)text;
	size_t len = strlen(text);
	struct trigger *slot;

	for (size_t k = 0; k < filter->n_triggers; k++) {
		if (strcmp(filter->triggers[k].text, text) == 0) {
			filter->triggers[k].rules |= 1u << rule;
			free(text);
			return 0;
		}
	}
	if (filter->n_triggers == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 32;
		struct trigger *grown = realloc(filter->triggers,
						grown_cap * sizeof(*grown));

		if (!grown) {
			free(text);
			return -1;
		}
		filter->triggers = grown;
		*cap = grown_cap;
	}
	slot = &filter->triggers[filter->n_triggers++];
	memset(slot, 0, sizeof(*slot));
	slot->text = text;
	slot->len = len;
	slot->rules = 1u << rule;
	if (len >= 4)
		return 0;
	filter->has_short = 1;
	if (len == 1) {
		filter->firsts[t[0]] = 1;
	} else {
		unsigned bigram = (unsigned)t[0] << 8 | t[1];

		filter->bigrams[bigram / 64] |= (uint64_t)1 << (bigram % 64);
	}
	return 0;
}

/* Triggers by block at the window's end; the short ones last. */
static int trigger_cmp(const void *a, const void *b)
{
	const struct trigger *x = a, *y = b;

	return (x->tail > y->tail) - (x->tail < y->tail);
}

/*
 * Sets the triggers of 4 to 7 bytes apart when their first two bytes are
 * few, and there are longer ones to make the windows long.
 */
static void filter_pairs(struct json_scan_filter *filter)
{
	unsigned char pairs[4][2];
	unsigned n = 0, longer = 0;

	for (size_t k = 0; k < filter->n_triggers; k++) {
		const struct trigger *t = &filter->triggers[k];
		unsigned i;

		if (t->len >= 8)
			longer = 1;
		if (t->len < 4 || t->len >= 8)
			continue;
		for (i = 0; i < n; i++)
			if (!memcmp(pairs[i], t->text, 2))
				break;
		if (i < n)
			continue;
		if (n == 4)
			return;
		memcpy(pairs[n++], t->text, 2);
	}
	if (!n || !longer)
		return;
	memcpy(filter->pairs, pairs, sizeof(pairs));
	filter->n_pairs = n;
	for (size_t k = 0; k < filter->n_triggers; k++)
		filter->triggers[k].paired = filter->triggers[k].len >= 4 &&
					     filter->triggers[k].len < 8;
}

/* The Wu-Manber tables of the triggers of 4 bytes or more. */
static int filter_shifts(struct json_scan_filter *filter)
{
	size_t m = 0;

	/* the index of a trigger must fit filter->first */
	if (filter->n_triggers >= UINT16_MAX) {
		filter->always = filter->enabled;
		return 0;
	}
	filter_pairs(filter);
	for (size_t k = 0; k < filter->n_triggers; k++) {
		size_t len = filter->triggers[k].len;

		if (len >= 4 && !filter->triggers[k].paired && (!m || len < m))
			m = len;
	}
	if (!m)
		return 0;
	/* windows of at most 255 + 1 bytes keep the shifts in a byte */
	if (m > 256)
		m = 256;
	if (!(filter->shift = malloc(65536)))
		return -1;
	filter->wm_len = m;
	memset(filter->shift, (int)(m - 1), 65536);
	for (size_t k = 0; k < filter->n_triggers; k++) {
		struct trigger *t = &filter->triggers[k];
		const unsigned char *x = (const unsigned char *)t->text;

		if (t->len < 4 || t->paired) {
			t->tail = 1u << 16;
			continue;
		}
		for (size_t j = 1; j < m; j++) {
			unsigned block = block_at(x + j - 1);

			if (filter->shift[block] > m - 1 - j)
				filter->shift[block] = (unsigned char)(m - 1 - j);
		}
		t->tail = block_at(x + m - 2);
	}
	qsort(filter->triggers, filter->n_triggers, sizeof(*filter->triggers),
	      trigger_cmp);
	/* the paired ones (and those of 1 to 3 bytes) come last */
	while (filter->paired_from < filter->n_triggers &&
	       filter->triggers[filter->paired_from].tail < 1u << 16)
		filter->paired_from++;
	if (!(filter->first = malloc(65536 * sizeof(*filter->first))))
		return -1;
	for (size_t k = filter->n_triggers; k-- > 0;)
		if (filter->triggers[k].tail < 1u << 16)
			filter->first[filter->triggers[k].tail] = (uint16_t)k;
	return 0;
}

struct json_scan_filter *json_scan_filter_new(const struct config *cfg,
					      int offline)
{
	struct json_scan_filter *filter = calloc(1, sizeof(*filter));
	size_t cap = 0;

	if (!filter)
		return NULL;
	for (int r = 0; r < RULE_COUNT; r++) {
		struct string_list list = { 0 };
		int rc;

		/* the webhook never runs an offline-only rule: its triggers
		 * (apps/v1, say) would only make bodies be read for nothing */
		if (cfg->mode[r] == RULE_MODE_OFF ||
		    (!offline && rule_info_get((enum rule_id)r)->offline_only))
			continue;
		filter->enabled |= 1u << r;
		rc = rules_rule_triggers(cfg, (enum rule_id)r, &list);
		if (rc < 0)
			goto out_fail;
		if (rc > 0)
			filter->always |= 1u << r;
		for (size_t i = 0; rc == 0 && i < list.n; i++) {
			/* an empty trigger is found in everything */
			if (!list.items[i][0]) {
				filter->always |= 1u << r;
				continue;
			}
			rc = filter_add(filter, list.items[i], (enum rule_id)r,
					&cap);
			list.items[i] = NULL;
			if (rc) {
				string_list_clear(&list);
				goto out_fail;
			}
		}
		string_list_clear(&list);
	}
	if (filter_shifts(filter))
		goto out_fail;
	return filter;
out_fail:
	json_scan_filter_free(filter);
	return NULL;
}

/* The rules of the triggers of 1 to 3 bytes in p[0..len). */
static unsigned short_rules(const struct json_scan_filter *filter,
			    const unsigned char *p, size_t len)
{
	unsigned found = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned bigram = i + 1 < len ? (unsigned)p[i] << 8 | p[i + 1] : 0;
		int candidates = filter->firsts[p[i]] ||
				 (i + 1 < len && bit_test(filter->bigrams, bigram));

		if (!candidates)
			continue;
		for (size_t k = 0; k < filter->n_triggers; k++) {
			const struct trigger *t = &filter->triggers[k];

			if (t->len < 4 && t->len <= len - i &&
			    memcmp(p + i, t->text, t->len) == 0)
				found |= t->rules;
		}
	}
	return found;
}

/* The rules of the triggers whose first bytes fill the window at p[start]
 * that ends with `block`. */
static unsigned window_rules(const struct json_scan_filter *filter,
			     const unsigned char *p, size_t len, size_t start,
			     unsigned block)
{
	unsigned found = 0;

	for (size_t k = filter->first[block];
	     k < filter->n_triggers && filter->triggers[k].tail == block; k++) {
		const struct trigger *t = &filter->triggers[k];

		if (t->len <= len - start &&
		    memcmp(p + start, t->text, t->len) == 0)
			found |= t->rules;
	}
	return found;
}

/* The rules of the paired triggers that start at p[i]. */
static unsigned paired_at(const struct json_scan_filter *filter,
			  const unsigned char *p, size_t len, size_t i)
{
	unsigned found = 0;

	for (size_t k = filter->paired_from; k < filter->n_triggers; k++) {
		const struct trigger *t = &filter->triggers[k];

		if (t->paired && t->len <= len - i &&
		    memcmp(p + i, t->text, t->len) == 0)
			found |= t->rules;
	}
	return found;
}

/* The rules of the paired triggers in p[0..len). */
static unsigned paired_rules(const struct json_scan_filter *filter,
			     const unsigned char *p, size_t len)
{
	unsigned found = 0;
	size_t i = 0;

#if SCAN_SSE2
	/* one pair, the usual case: its bytes kept in registers */
	if (filter->n_pairs == 1) {
		__m128i x = _mm_set1_epi8((char)filter->pairs[0][0]);
		__m128i y = _mm_set1_epi8((char)filter->pairs[0][1]);

		for (; i + 17 <= len; i += 16) {
			unsigned hits = (unsigned)_mm_movemask_epi8(_mm_and_si128(
				_mm_cmpeq_epi8(_mm_loadu_si128(
					(const __m128i *)(p + i)), x),
				_mm_cmpeq_epi8(_mm_loadu_si128(
					(const __m128i *)(p + i + 1)), y)));

			for (; hits; hits &= hits - 1)
				found |= paired_at(filter, p, len,
						   i + (size_t)__builtin_ctz(hits));
		}
	}
	for (; i + 17 <= len; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(p + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(p + i + 1));
		unsigned hits = 0;

		for (unsigned k = 0; k < filter->n_pairs; k++)
			hits |= (unsigned)_mm_movemask_epi8(_mm_and_si128(
				_mm_cmpeq_epi8(a, _mm_set1_epi8(
					(char)filter->pairs[k][0])),
				_mm_cmpeq_epi8(b, _mm_set1_epi8(
					(char)filter->pairs[k][1]))));
		for (; hits; hits &= hits - 1)
			found |= paired_at(filter, p, len,
					   i + (size_t)__builtin_ctz(hits));
	}
#endif
	for (; i + 1 < len; i++)
		for (unsigned k = 0; k < filter->n_pairs; k++)
			if (p[i] == filter->pairs[k][0] &&
			    p[i + 1] == filter->pairs[k][1])
				found |= paired_at(filter, p, len, i);
	return found;
}

unsigned json_scan_filter_rules(const struct json_scan_filter *filter,
				const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	unsigned found = filter->always;

	if (filter->has_short)
		found |= short_rules(filter, p, len);
	if (filter->n_pairs)
		found |= paired_rules(filter, p, len);
	/* triggers of 4 bytes or more: p[q] starts the window's last block */
	if (filter->wm_len && len >= filter->wm_len) {
		const unsigned char *shift = filter->shift;
		size_t q = filter->wm_len - 2, last = len - 2;

		while (q <= last) {
			unsigned block = block_at(p + q), step = shift[block];

			if (step) {
				q += step;
				continue;
			}
			found |= window_rules(filter, p, len,
					      q + 2 - filter->wm_len, block);
			if (found == filter->enabled)
				break;
			q++;
		}
	}
	return found;
}

json_t *json_scan_read_value(const char *text, size_t len)
{
	int depth;

	return json_scan_read(text, len, NULL, &depth, NULL);
}

static unsigned triggers_in(const void *filter, const char *text, size_t len)
{
	return json_scan_filter_rules(filter, text, len);
}

void json_scan_filter_gate(const struct json_scan_filter *filter,
			   struct rules_options *opts)
{
	if (filter) {
		opts->triggers_in = triggers_in;
		opts->triggers_arg = filter;
	}
}

/* ------------------------------------------------------------------ */
/* The skeleton: which members are kept                                */

struct capture {
	const char *key;
	const struct capture *children;  /* members kept of an object value */
	const struct capture *elements;  /* how each element of an array
					    value is kept (its children) */
	size_t len;                      /* of key */
	int mode;                        /* how its value is read */
};

/* capture.mode: as the scan goes, as rules_reads() says (a light read's
 * object), or whole, as json_scan_read() reads it */
enum { CAPTURE_SCAN, CAPTURE_LIGHT, CAPTURE_WHOLE };

#define KEEP(key, children) { key, children, NULL, sizeof(key) - 1, 0 }
/* an array whose elements are kept as `element` says */
#define KEEP_EACH(key, element) { key, NULL, element, sizeof(key) - 1, 0 }
#define KEEP_LIGHT(key) { key, NULL, NULL, sizeof(key) - 1, CAPTURE_LIGHT }
#define KEEP_WHOLE(key) { key, NULL, NULL, sizeof(key) - 1, CAPTURE_WHOLE }
#define KEEP_END { NULL, NULL, NULL, 0, 0 }
/* the request's own fields review_request() reads, kept by every read */
#define KEEP_REQUEST_FIELDS \
	KEEP("uid", NULL), KEEP("operation", NULL), KEEP("namespace", NULL), \
	KEEP("subResource", NULL), KEEP("name", NULL), KEEP("dryRun", NULL)

static const struct capture capture_owner_fields[] = {
	KEEP("apiVersion", NULL), KEEP("kind", NULL), KEEP("name", NULL),
	KEEP("controller", NULL), KEEP_END
};

static const struct capture capture_owner_reference = {
	"", capture_owner_fields, NULL, 0, 0
};

static const struct capture capture_metadata[] = {
	KEEP("name", NULL), KEEP("generateName", NULL),
	KEEP_EACH("ownerReferences", &capture_owner_reference), KEEP_END
};

static const struct capture capture_object[] = {
	KEEP("kind", NULL), KEEP("metadata", capture_metadata), KEEP_END
};

static const struct capture capture_kind[] = {
	KEEP("kind", NULL), KEEP_END
};

static const struct capture capture_request[] = {
	KEEP_REQUEST_FIELDS,
	KEEP("kind", capture_kind), KEEP("object", capture_object), KEEP_END
};

static const struct capture capture_review[] = {
	KEEP("apiVersion", NULL), KEEP("kind", NULL),
	KEEP("request", capture_request), KEEP_END
};

static const struct capture capture_root = { "", capture_review, NULL, 0, 0 };

/*
 * A light read: what review_request() reads of the request, and the
 * object as rules_reads() says (the scan's `reads`), which
 * capture_light_value stands for: its objects keep the members `reads`
 * names, its arrays every element.
 */
static const struct capture capture_light_value = {
	"", NULL, &capture_light_value, 0, CAPTURE_SCAN
};

static const struct capture capture_whole = {
	"", NULL, NULL, 0, CAPTURE_WHOLE
};

static const struct capture capture_light_kind[] = {
	KEEP("group", NULL), KEEP("kind", NULL), KEEP_END
};

static const struct capture capture_light_request[] = {
	KEEP_REQUEST_FIELDS,
	KEEP("kind", capture_light_kind), KEEP_LIGHT("object"), KEEP_END
};

static const struct capture capture_light_review[] = {
	KEEP("apiVersion", NULL), KEEP("kind", NULL),
	KEEP("request", capture_light_request), KEEP_END
};

static const struct capture capture_light_root = {
	"", capture_light_review, NULL, 0, 0
};

/*
 * A review read (json_scan_review()): what review_request() reads of the
 * request, as a light read keeps it, with the object and the object
 * stored whole.
 */
static const struct capture capture_review_request[] = {
	KEEP_REQUEST_FIELDS,
	KEEP("kind", capture_light_kind), KEEP_WHOLE("object"),
	KEEP_WHOLE("oldObject"), KEEP_END
};

static const struct capture capture_review_review[] = {
	KEEP("apiVersion", NULL), KEEP("kind", NULL),
	KEEP("request", capture_review_request), KEEP_END
};

static const struct capture capture_review_root = {
	"", capture_review_review, NULL, 0, 0
};

static inline __attribute__((always_inline)) const struct capture *
capture_find(const struct capture *list, const char *key, size_t len)
{
	/* the first byte first: most keys are not kept */
	for (; list && list->key; list++)
		if (list->len == len && (!len || list->key[0] == key[0]) &&
		    memcmp(list->key, key, len) == 0)
			return list;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The scan                                                            */

struct scan {
	const unsigned char *p, *end;
	const struct json_scan_filter *filter;
	unsigned rules;                 /* rules of triggers in escaped strings */
	int full;                       /* build every value, not a skeleton */
	const struct rules_read *reads; /* a light read: what it keeps */
	unsigned char read_slot[64];    /* by read_hash(): 1 + the index of
					   the first of `reads` there, or 0 */
	unsigned char read_next[SCAN_READS_MAX];  /* 1 + the next one */
	int light;                      /* inside the light read's object */
	int depth_max;
	int deepest;                    /* levels of nesting seen */
	struct json_tape *tape;         /* a record of what is built, or NULL */
	int review;                     /* json_scan_review(): escaped
					   triggers outside the object do
					   not end the read */
	char *scratch;                  /* decoded escaped strings */
	size_t scratch_cap;
	unsigned n_keys;
	uint32_t keys[SCAN_KEYS_MAX];   /* hashes of the open objects' keys;
					 * last, left out of initialisation */
};

/* Sets up a scan (its 4 KiB of key hashes left as they are: unused). */
static void scan_init(struct scan *s, const struct json_scan_filter *filter,
		      int full, int depth_max)
{
	s->p = s->end = NULL;
	s->filter = filter;
	s->rules = 0;
	s->full = full;
	s->reads = NULL;
	s->light = 0;
	s->depth_max = depth_max;
	s->deepest = 0;
	s->tape = NULL;
	s->review = 0;
	s->scratch = NULL;
	s->scratch_cap = 0;
	s->n_keys = 0;
}

/* ------------------------------------------------------------------ */
/* The tape: a full read's record of the document                      */

/*
 * Each value read, in the order of the text, one entry each; an object's
 * members as a key entry followed by their value's entries. Strings point
 * into the body, or into the tape's own text when they had escapes. The
 * webhook's patch check compares the engine's object with it: the rules
 * never see it, so it stays the document as it came, at the cost of a
 * list of entries instead of a second scan of the text.
 */
enum {
	TAPE_OBJECT, TAPE_ARRAY, TAPE_KEY, TAPE_STRING, TAPE_INTEGER,
	TAPE_TRUE, TAPE_FALSE, TAPE_NULL
};

struct tape_entry {
	unsigned char type;
	unsigned char own;      /* KEY, STRING: in tape->text, not the body */
	uint32_t next;          /* OBJECT, ARRAY: the entry after its last */
	size_t count;           /* OBJECT: members; ARRAY: elements;
				   KEY, STRING: bytes */
	union {
		size_t at;      /* KEY, STRING: where its bytes start */
		json_int_t integer;
	} v;
};

struct json_tape {
	const char *body;
	struct tape_entry *entries;
	size_t n, cap;
	char *text;             /* decoded strings that had escapes */
	size_t text_len, text_cap;
	int failed;             /* out of memory: the tape is incomplete */
};

void json_tape_free(struct json_tape *tape)
{
	if (!tape)
		return;
	free(tape->entries);
	free(tape->text);
	free(tape);
}

/*
 * A tape for `body` of `len` bytes, with room for a value in every 16
 * bytes (most documents); NULL when out of memory.
 */
static struct json_tape *tape_new(const char *body, size_t len)
{
	struct json_tape *t = calloc(1, sizeof(*t));
	size_t cap = len / 16 + 64;

	if (!t)
		return NULL;
	t->body = body;
	/* without room yet, the first entry makes some */
	if ((t->entries = malloc(cap * sizeof(*t->entries))))
		t->cap = cap;
	return t;
}

/* Room for twice as many entries; -1 (and the tape failed) when none. */
static int tape_grow(struct json_tape *t)
{
	size_t cap = t->cap ? 2 * t->cap : 256;
	struct tape_entry *e;

	if (t->failed || cap > UINT32_MAX ||
	    !(e = realloc(t->entries, cap * sizeof(*e)))) {
		t->failed = 1;
		return -1;
	}
	t->entries = e;
	t->cap = cap;
	return 0;
}

/* A new entry of `type`; NULL (and the tape failed) when out of memory. */
static inline struct tape_entry *tape_push(struct json_tape *t, int type)
{
	struct tape_entry *e;

	if (t->n == t->cap && tape_grow(t))
		return NULL;
	e = &t->entries[t->n++];
	e->type = (unsigned char)type;
	e->own = 0;
	return e;
}

/* tape_text() of a decoding: copied into the tape's own text. */
static void tape_copy(struct json_tape *t, struct tape_entry *e,
		      const char *text, size_t len)
{
	if (t->text_cap - t->text_len < len) {
		size_t cap = t->text_cap ? t->text_cap : 256;
		char *grown;

		while (cap - t->text_len < len)
			cap *= 2;
		if (!(grown = realloc(t->text, cap))) {
			t->failed = 1;
			return;
		}
		t->text = grown;
		t->text_cap = cap;
	}
	memcpy(t->text + t->text_len, text, len);
	e->own = 1;
	e->v.at = t->text_len;
	t->text_len += len;
}

/* A key or string of `len` bytes at `text`: the body's own bytes, or,
 * with `decoded`, the decoding of its escapes. */
static inline void tape_text(struct json_tape *t, int type, const char *text,
			     size_t len, int decoded)
{
	struct tape_entry *e = tape_push(t, type);

	if (!e)
		return;
	e->count = len;
	if (decoded)
		tape_copy(t, e, text, len);
	else
		e->v.at = (size_t)(text - t->body);
}

/* Opens an object or array: the index of its entry. */
static inline size_t tape_open(struct json_tape *t, int type)
{
	size_t entry = t->n;

	tape_push(t, type);
	return entry;
}

/* Closes the object or array whose entry is `entry`: `count` members or
 * elements, the entries after it its own. */
static inline void tape_close(struct json_tape *t, size_t entry, size_t count)
{
	if (t->failed)
		return;
	t->entries[entry].count = count;
	t->entries[entry].next = (uint32_t)t->n;
}

static inline const char *tape_bytes(const struct json_tape *t,
				     const struct tape_entry *e)
{
	return (e->own ? t->text : t->body) + e->v.at;
}

/* The entry after the value at `at` and all it holds. */
static inline size_t tape_skip(const struct json_tape *t, size_t at)
{
	int type = t->entries[at].type;

	return type == TAPE_OBJECT || type == TAPE_ARRAY ?
	       t->entries[at].next : at + 1;
}

/* 1 when the value at *at equals `v`, as json_equal() judges; 0 when not.
 * *at moves past it when equal. */
static int tape_equal_at(const struct json_tape *t, size_t *at,
			 const json_t *v)
{
	const struct tape_entry *e = &t->entries[(*at)++];

	switch (e->type) {
	case TAPE_OBJECT: {
		void *it;

		if (!json_is_object(v) || json_object_size(v) != e->count)
			return 0;
		it = json_object_iter((json_t *)v);
		for (size_t i = 0; i < e->count; i++) {
			const struct tape_entry *key = &t->entries[(*at)++];
			const char *name = tape_bytes(t, key);
			const json_t *member;

			/* in the order read, unless an operation moved some */
			if (it && json_object_iter_key_len(it) == key->count &&
			    memcmp(json_object_iter_key(it), name,
				   key->count) == 0) {
				member = json_object_iter_value(it);
				it = json_object_iter_next((json_t *)v, it);
			} else {
				it = NULL;
				member = json_object_getn(v, name, key->count);
			}
			/* keys are unique in both: as many, all found, is
			 * the same set */
			if (!member || !tape_equal_at(t, at, member))
				return 0;
		}
		return 1;
	}
	case TAPE_ARRAY:
		if (!json_is_array(v) || json_array_size(v) != e->count)
			return 0;
		for (size_t i = 0; i < e->count; i++)
			if (!tape_equal_at(t, at, json_array_get(v, i)))
				return 0;
		return 1;
	case TAPE_STRING:
		return json_is_string(v) && json_string_length(v) == e->count &&
		       memcmp(json_string_value(v), tape_bytes(t, e),
			      e->count) == 0;
	case TAPE_INTEGER:
		return json_is_integer(v) && json_integer_value(v) ==
					     e->v.integer;
	case TAPE_TRUE:
		return json_is_true(v);
	case TAPE_FALSE:
		return json_is_false(v);
	default:
		return json_is_null(v);
	}
}

int json_tape_equal(const struct json_tape *tape, const char *const *path,
		    const json_t *value)
{
	size_t at = 0;

	if (!tape || tape->failed || !tape->n)
		return -1;
	for (; path && *path; path++) {
		const struct tape_entry *e = &tape->entries[at];
		size_t len = strlen(*path), i;

		if (e->type != TAPE_OBJECT)
			return 0;
		at++;
		for (i = 0; i < e->count; i++) {
			const struct tape_entry *key = &tape->entries[at];

			if (key->count == len &&
			    memcmp(tape_bytes(tape, key), *path, len) == 0)
				break;
			at = tape_skip(tape, at + 1);
		}
		/* a missing member differs */
		if (i == e->count)
			return 0;
		at++;
	}
	return tape_equal_at(tape, &at, value);
}

/* Bytes that end the fast loop inside a string. */
static const unsigned char string_stop[256] = {
	[0x00 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xff] = 1,
};

static const unsigned char is_space[256] = {
	[' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1,
};

#if SCAN_SSE2
/* The bytes of v equal to `c`, as 0xff. */
static inline __m128i bytes_eq(__m128i v, char c)
{
	return _mm_cmpeq_epi8(v, _mm_set1_epi8(c));
}

/* Bits of the bytes of v that end the fast loop inside a string: '"',
 * '\', below 0x20 or 0x80 and above (signed: below 0x20). */
static inline unsigned string_stops(__m128i v)
{
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(
		_mm_or_si128(bytes_eq(v, '"'), bytes_eq(v, '\\')),
		_mm_cmplt_epi8(v, _mm_set1_epi8(0x20))));
}
#endif

static inline void skip_space(struct scan *s)
{
	const unsigned char *p = s->p, *end = s->end;

	/* most values follow at once, or after one space */
	if (p < end && !is_space[*p])
		return;
	if (end - p >= 2 && !is_space[p[1]]) {
		s->p = p + 1;
		return;
	}
#if SCAN_SSE2
	/* a line break and an indentation of spaces, pretty-printed JSON's
	 * usual gap: only spaces to look for after the first byte */
	if (end - p >= 17 && *p == '\n') {
		unsigned spaces = (unsigned)_mm_movemask_epi8(bytes_eq(
			_mm_loadu_si128((const __m128i *)(p + 1)), ' '));

		if (spaces != 0xffff) {
			p += 1 + __builtin_ctz(~spaces);
			if (!is_space[*p]) {
				s->p = p;
				return;
			}
		}
	}
	/* the indentation of pretty-printed JSON, 16 at a time */
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)p);
		unsigned blank = (unsigned)_mm_movemask_epi8(_mm_or_si128(
			_mm_or_si128(bytes_eq(v, ' '), bytes_eq(v, '\n')),
			_mm_or_si128(bytes_eq(v, '\r'), bytes_eq(v, '\t'))));

		if (blank != 0xffff) {
			s->p = p + __builtin_ctz(~blank);
			return;
		}
		p += 16;
	}
#endif
	while (p < end && is_space[*p])
		p++;
	s->p = p;
}

#if !SCAN_SSE2
/* 1 when one of the 8 bytes of `word` ends the fast loop in a string. */
static inline int word_stops(uint64_t word)
{
	static const uint64_t ones = 0x0101010101010101u;
	static const uint64_t highs = 0x8080808080808080u;
	uint64_t quote = word ^ (ones * '"'), backslash = word ^ (ones * '\\');

	/* a zero byte in quote or backslash, a byte below 0x20, or >= 0x80 */
	return (((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) |
		(word - ones * 0x20) | word) & highs ? 1 : 0;
}
#endif

/*
 * Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), 0 when there is none.
 */
static size_t utf8_sequence(const unsigned char *p, const unsigned char *end)
{
	size_t n;
	uint32_t c;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, c = p[0] & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return n;
}

static int hex4(const unsigned char *p, uint32_t *value)
{
	*value = 0;
	for (int i = 0; i < 4; i++) {
		unsigned char c = p[i];

		*value <<= 4;
		if (c >= '0' && c <= '9')
			*value |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*value |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*value |= c - 'A' + 10;
		else
			return -1;
	}
	return 0;
}

/*
 * Decodes the escapes of raw[0..len) (a string's contents, already known
 * to hold only well-formed UTF-8 and no control bytes) into s->scratch.
 * -1 on a bad escape, a lone surrogate, \u0000, or out of memory.
 */
static int decode_escapes(struct scan *s, const unsigned char *raw,
			  size_t len, size_t *out_len)
{
	const unsigned char *p = raw, *end = raw + len;
	size_t o = 0;

	/* decoding never lengthens: \uXXXX (6 bytes) gives at most 3 bytes */
	if (len + 1 > s->scratch_cap) {
		char *grown = realloc(s->scratch, len + 1);

		if (!grown)
			return -1;
		s->scratch = grown;
		s->scratch_cap = len + 1;
	}
	while (p < end) {
		uint32_t c, low;

		if (*p != '\\') {
			s->scratch[o++] = (char)*p++;
			continue;
		}
		if (end - p < 2)
			return -1;
		switch (p[1]) {
		case '"': case '\\': case '/':
			s->scratch[o++] = (char)p[1];
			p += 2;
			continue;
		case 'b': s->scratch[o++] = '\b'; p += 2; continue;
		case 'f': s->scratch[o++] = '\f'; p += 2; continue;
		case 'n': s->scratch[o++] = '\n'; p += 2; continue;
		case 'r': s->scratch[o++] = '\r'; p += 2; continue;
		case 't': s->scratch[o++] = '\t'; p += 2; continue;
		case 'u':
			break;
		default:
			return -1;
		}
		if (end - p < 6 || hex4(p + 2, &c))
			return -1;
		p += 6;
		if (c == 0 || (c >= 0xdc00 && c <= 0xdfff))
			return -1;
		if (c >= 0xd800 && c <= 0xdbff) {
			if (end - p < 6 || p[0] != '\\' || p[1] != 'u' ||
			    hex4(p + 2, &low) || low < 0xdc00 || low > 0xdfff)
				return -1;
			p += 6;
			c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
		}
		if (c < 0x80) {
			s->scratch[o++] = (char)c;
		} else if (c < 0x800) {
			s->scratch[o++] = (char)(0xc0 | c >> 6);
			s->scratch[o++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			s->scratch[o++] = (char)(0xe0 | c >> 12);
			s->scratch[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			s->scratch[o++] = (char)(0x80 | (c & 0x3f));
		} else {
			s->scratch[o++] = (char)(0xf0 | c >> 18);
			s->scratch[o++] = (char)(0x80 | (c >> 12 & 0x3f));
			s->scratch[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			s->scratch[o++] = (char)(0x80 | (c & 0x3f));
		}
	}
	*out_len = o;
	return 0;
}

/*
 * scan_string() from p on, in a string that started at `start`: the
 * bytes before p hold nothing but plain ASCII.
 */
static int scan_string_slow(struct scan *s, const unsigned char *p,
			    const unsigned char *start, const char **text,
			    size_t *len)
{
	const unsigned char *end = s->end;
	int escaped = 0;

	for (;;) {
#if SCAN_SSE2
		while (end - p >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)p);
			unsigned stop = string_stops(v);

			if (stop) {
				p += __builtin_ctz(stop);
				break;
			}
			p += 16;
		}
#else
		uint64_t word;

		while (end - p >= 8 && (memcpy(&word, p, 8), !word_stops(word)))
			p += 8;
#endif
		while (p < end && !string_stop[*p])
			p++;
		if (p >= end || *p < 0x20)
			return -1;
		if (*p == '"')
			break;
		if (*p == '\\') {
			if (end - p < 2)
				return -1;
			escaped = 1;
			p += 2;
			continue;
		}
		size_t n = utf8_sequence(p, end);

		if (!n)
			return -1;
		p += n;
	}
	s->p = p + 1;
	if (!escaped) {
		*text = (const char *)start;
		*len = (size_t)(p - start);
		return 0;
	}
	if (decode_escapes(s, start, (size_t)(p - start), len))
		return -1;
	/* an escape must not hide a trigger from the raw search */
	if (s->filter) {
		s->rules |= json_scan_filter_rules(s->filter, s->scratch, *len);
		/* a skeleton is only for bodies without any */
		if (!s->full && !s->reads && !s->review && s->rules)
			return -1;
	}
	*text = s->scratch;
	return 0;
}

/*
 * Reads the string at s->p (on its opening quote). *text and *len give
 * its contents: the body's own bytes, or, when it has escapes, their
 * decoding in s->scratch (valid until the next escaped string). -1 when
 * the full reader must decide.
 */
static inline __attribute__((always_inline)) int
scan_string(struct scan *s, const char **text, size_t *len)
{
	const unsigned char *p = s->p + 1, *start = p;

#if SCAN_SSE2
	/* most strings end within 16 bytes, in plain ASCII */
	while (s->end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)p);
		unsigned stop = string_stops(v);

		if (stop) {
			p += __builtin_ctz(stop);
			if (*p != '"')
				break;
			s->p = p + 1;
			*text = (const char *)start;
			*len = (size_t)(p - start);
			return 0;
		}
		p += 16;
	}
#endif
	return scan_string_slow(s, p, start, text, len);
}

/*
 * A hash of a key from its length and at most 24 of its bytes (the first,
 * middle and last 8): equal hashes only send the body to the full reader.
 */
static inline __attribute__((always_inline)) uint32_t
key_hash(const char *key, size_t len, const unsigned char *end)
{
	uint64_t a = 0, b = 0, c = 0, h;

	if (len >= 8) {
		memcpy(&a, key, 8);
		memcpy(&b, key + len - 8, 8);
		if (len > 16)
			memcpy(&c, key + len / 2 - 4, 8);
	} else if ((const unsigned char *)key + 8 <= end &&
		   (const unsigned char *)key < end) {
		/* a short key in the body: 8 bytes read, those past it
		 * masked off */
		memcpy(&a, key, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		a &= len ? ~(uint64_t)0 >> (64 - 8 * len) : 0;
#else
		a &= len ? ~(uint64_t)0 << (64 - 8 * len) : 0;
#endif
	} else {
		memcpy(&a, key, len);
	}
	h = (a * 0x9e3779b97f4a7c15u) ^ (b * 0xc2b2ae3d27d4eb4fu) ^
	    (c * 0x165667b19e3779f9u) ^ len;
	return (uint32_t)(h ^ h >> 32);
}

/* The slot of a key (len > 0) in scan.read_slot. */
static inline unsigned read_hash(const char *key, size_t len)
{
	return ((unsigned)len * 13 + (unsigned char)key[0] * 7 +
		(unsigned char)key[len - 1]) & 63;
}

/*
 * A plain integer: -?(0|[1-9][0-9]*), at most 15 digits, so that it
 * cannot overflow; its value in *value.
 */
static int scan_integer(struct scan *s, json_int_t *value)
{
	const unsigned char *p = s->p, *digits;
	json_int_t v = 0;

	if (p < s->end && *p == '-')
		p++;
	digits = p;
	if (p < s->end && *p == '0') {
		p++;
	} else {
		while (p < s->end && *p >= '0' && *p <= '9') {
			/* longer ones go to the full reader, before overflow */
			if (p - digits == 15)
				return -1;
			v = v * 10 + (*p++ - '0');
		}
	}
	if (p == digits)
		return -1;
	/* fractions and exponents go to the full reader */
	if (p < s->end && (*p == '.' || *p == 'e' || *p == 'E'))
		return -1;
	*value = *s->p == '-' ? -v : v;
	s->p = p;
	return 0;
}

/* The literals, in the order scan_other() numbers them. */
static const struct {
	const char *word;
	size_t len;
	int tape_type;
} literals[] = {
	{ "true", 4, TAPE_TRUE }, { "false", 5, TAPE_FALSE },
	{ "null", 4, TAPE_NULL },
};

static int scan_literal(struct scan *s, const char *word, size_t len)
{
	if ((size_t)(s->end - s->p) < len || memcmp(s->p, word, len))
		return -1;
	s->p += len;
	return 0;
}

/*
 * Enters an object or array at `depth` (s->p on its opening bracket):
 * -1 when that is nested too deep.
 */
static inline __attribute__((always_inline)) int
container_open(struct scan *s, int depth)
{
	if (depth >= s->depth_max)
		return -1;
	if (depth >= s->deepest)
		s->deepest = depth + 1;
	s->p++;
	return 0;
}

/*
 * Two copies of the scan of values (json_scan_values.h): scan_value_taped()
 * and the others of that copy record on s->tape, scan_value_plain() and
 * its copy never look at it.
 */
#define SCAN_TAPED 1
#define SCAN_FN(name) name##_taped
#include "json_scan_values.h"
#undef SCAN_TAPED
#undef SCAN_FN

#define SCAN_TAPED 0
#define SCAN_FN(name) name##_plain
#include "json_scan_values.h"
#undef SCAN_TAPED
#undef SCAN_FN

/* The one value of body[0..len), NULL when the full reader must decide. */
static json_t *scan_document(struct scan *s, const char *body, size_t len)
{
	const struct capture *shape;
	json_t *value = NULL;

	s->p = (const unsigned char *)body;
	s->end = s->p + len;
	skip_space(s);
	shape = s->reads ? &capture_light_root :
		s->review ? &capture_review_root : &capture_root;
	if (s->p >= s->end || *s->p != '{' ||
	    (s->tape ? scan_value_taped(s, 0, 1, shape, &value) :
		       scan_value_plain(s, 0, 1, shape, &value)))
		goto out_fail;
	skip_space(s);
	if (s->p != s->end)
		goto out_fail;
	free(s->scratch);
	return value;
out_fail:
	free(s->scratch);
	json_decref(value);
	return NULL;
}

/* json_scan_read_tape(), or with `review` json_scan_review(). */
static json_t *read_taped(const char *body, size_t len,
			  const struct json_scan_filter *filter, int review,
			  int *depth, unsigned *rules, struct json_tape **tape)
{
	struct scan s;
	json_t *value;

	scan_init(&s, filter, !review, SCAN_DEPTH_MAX);
	s.review = review;
	if (tape) {
		*tape = NULL;
		s.tape = tape_new(body, len);
	}
	value = scan_document(&s, body, len);

	/* both only mean something for a value read whole */
	*depth = value ? s.deepest : 0;
	if (rules && value)
		*rules |= s.rules;
	if (tape && value && s.tape && !s.tape->failed)
		*tape = s.tape;
	else
		json_tape_free(s.tape);
	return value;
}

json_t *json_scan_read(const char *body, size_t len,
		       const struct json_scan_filter *filter, int *depth,
		       unsigned *rules)
{
	return read_taped(body, len, filter, 0, depth, rules, NULL);
}

json_t *json_scan_read_tape(const char *body, size_t len,
			    const struct json_scan_filter *filter, int *depth,
			    unsigned *rules, struct json_tape **tape)
{
	return read_taped(body, len, filter, 0, depth, rules, tape);
}

json_t *json_scan_review(const char *body, size_t len,
			 const struct json_scan_filter *filter, int *depth,
			 unsigned *rules, struct json_tape **tape)
{
	return read_taped(body, len, filter, 1, depth, rules, tape);
}

json_t *json_scan_skeleton(const struct json_scan_filter *filter,
			   const char *body, size_t len, int max_depth)
{
	struct scan s;

	scan_init(&s, filter, 0,
		  max_depth < SCAN_DEPTH_MAX ? max_depth : SCAN_DEPTH_MAX);
	return scan_document(&s, body, len);
}

json_t *json_scan_light(const struct json_scan_filter *filter,
			const char *body, size_t len,
			const struct rules_read *reads, int *depth,
			unsigned *rules)
{
	struct scan s;
	json_t *value;
	size_t n = 0;

	*depth = 0;
	scan_init(&s, filter, 0, SCAN_DEPTH_MAX);
	s.reads = reads;
	memset(s.read_slot, 0, sizeof(s.read_slot));
	while (reads[n].key)
		if (!reads[n++].len || n > SCAN_READS_MAX)
			return NULL;
	/* backwards: the first of equal keys ends up first */
	while (n--) {
		unsigned h = read_hash(reads[n].key, reads[n].len);

		s.read_next[n] = s.read_slot[h];
		s.read_slot[h] = (unsigned char)(n + 1);
	}
	value = scan_document(&s, body, len);
	*depth = value ? s.deepest : 0;
	if (value)
		*rules |= s.rules;
	return value;
}

/* ------------------------------------------------------------------ */
/* Counting values                                                     */

/* 1 when the container opened just before `p` has a member or element. */
static int container_filled(const unsigned char *p, const unsigned char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p < end && *p != '}' && *p != ']';
}

size_t json_scan_count_values(const char *body, size_t len, size_t stop)
{
	const unsigned char *p = (const unsigned char *)body, *end = p + len;
	size_t n = 1;

	/*
	 * In JSON, every value but the document itself is the first of a
	 * container that is not empty, or comes after a comma: 1, one per
	 * comma, one per container with something in it.
	 */
	while (p < end && n <= stop) {
		unsigned char c = *p++;

		if (c == '"') {
			/* to the quote that ends the string: one not escaped,
			 * after an even number of backslashes */
			for (;;) {
				const unsigned char *q = memchr(p, '"',
								(size_t)(end - p));
				size_t slashes = 0;

				if (!q)
					return n;
				while (q - slashes > p && q[-1 - (long)slashes] == '\\')
					slashes++;
				p = q + 1;
				if (!(slashes & 1))
					break;
			}
		} else if (c == ',') {
			n++;
		} else if ((c == '{' || c == '[') && container_filled(p, end)) {
			n++;
		}
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Comparing a body with a document                                    */

/*
 * 1 when the value at s->p equals `v`, 0 when it differs, -1 when this
 * reader cannot tell (a real number, a long integer, \u0000...).
 */
static int equal_value(struct scan *s, int depth, const json_t *v);
static int equal_path(struct scan *s, int depth, const char *const *path,
		      const json_t *v);

/*
 * The members of the object at s->p (just past its '{') against `v`:
 * without `path`, equal_value() of the whole object; with it, of the
 * member path[0] (further down the rest of `path`), the others skipped.
 */
static int equal_members(struct scan *s, int depth, const json_t *v,
			 const char *const *path)
{
	void *it = path ? NULL : json_object_iter((json_t *)v);
	size_t n = 0;
	int found = 0;

	skip_space(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return !path && json_object_size(v) == 0;
	}
	for (;;) {
		const json_t *member = NULL;
		const char *key;
		size_t len;
		int rc = 1;

		if (s->p >= s->end || *s->p != '"' ||
		    scan_string(s, &key, &len))
			return -1;
		skip_space(s);
		if (s->p >= s->end || *s->p != ':')
			return -1;
		s->p++;
		if (path) {
			if (strlen(*path) == len && !memcmp(*path, key, len)) {
				rc = equal_path(s, depth, path + 1, v);
				found = 1;
			} else if (scan_value_plain(s, depth, 0, NULL, NULL)) {
				rc = -1;
			}
		} else {
			/* in the order read, unless an operation moved some */
			if (it && json_object_iter_key_len(it) == len &&
			    memcmp(json_object_iter_key(it), key, len) == 0) {
				member = json_object_iter_value(it);
				it = json_object_iter_next((json_t *)v, it);
			} else {
				it = NULL;
				member = json_object_getn(v, key, len);
			}
			if (!member)
				return 0;
			n++;
			rc = equal_value(s, depth, member);
		}
		if (rc != 1)
			return rc;
		skip_space(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			skip_space(s);
			continue;
		}
		if (s->p >= s->end || *s->p != '}')
			return -1;
		s->p++;
		/* keys are unique in both: as many means the same */
		return path ? found : n == json_object_size(v);
	}
}

static int equal_elements(struct scan *s, int depth, const json_t *array)
{
	size_t n = 0, size = json_array_size(array);

	skip_space(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return size == 0;
	}
	for (;;) {
		int rc;

		if (n >= size)
			return 0;
		if ((rc = equal_value(s, depth, json_array_get(array, n++))) != 1)
			return rc;
		skip_space(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p >= s->end || *s->p != ']')
			return -1;
		s->p++;
		return n == size;
	}
}

static int equal_value(struct scan *s, int depth, const json_t *v)
{
	json_int_t number;
	const char *text;
	size_t len;

	skip_space(s);
	if (s->p >= s->end || depth >= s->depth_max)
		return -1;
	switch (*s->p) {
	case '{':
		if (!json_is_object(v))
			return 0;
		s->p++;
		return equal_members(s, depth + 1, v, NULL);
	case '[':
		if (!json_is_array(v))
			return 0;
		s->p++;
		return equal_elements(s, depth + 1, v);
	case '"':
		if (scan_string(s, &text, &len))
			return -1;
		return json_is_string(v) && json_string_length(v) == len &&
		       memcmp(json_string_value(v), text, len) == 0;
	case 't':
		return scan_literal(s, "true", 4) ? -1 : json_is_true(v);
	case 'f':
		return scan_literal(s, "false", 5) ? -1 : json_is_false(v);
	case 'n':
		return scan_literal(s, "null", 4) ? -1 : json_is_null(v);
	default:
		if (scan_integer(s, &number))
			return -1;
		return json_is_integer(v) && json_integer_value(v) == number;
	}
}

/* equal_value() of the member at `path` of the value at s->p. */
static int equal_path(struct scan *s, int depth, const char *const *path,
		      const json_t *v)
{
	if (!path || !*path)
		return equal_value(s, depth, v);
	skip_space(s);
	if (s->p >= s->end || *s->p != '{' || depth >= s->depth_max)
		return -1;
	s->p++;
	return equal_members(s, depth + 1, v, path);
}

int json_scan_equal(const char *body, size_t len, const char *const *path,
		    const json_t *value)
{
	struct scan s;
	int rc;

	scan_init(&s, NULL, 0, SCAN_DEPTH_MAX);
	s.p = (const unsigned char *)body;
	s.end = s.p + len;
	rc = equal_path(&s, 0, path, value);
	if (rc == 1) {
		skip_space(&s);
		if (s.p != s.end)
			rc = -1;
	}
	free(s.scratch);
	return rc;
}
