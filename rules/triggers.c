/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * triggers.c - the literal strings without which no rule can fire.
 *
 * For every enabled rule this file names strings of which at least one is
 * a substring of some key or string value of any object on which the rule
 * reports a finding or emits an operation. It suffices to reason about
 * each rule alone, on the object as it was given: operations are the only
 * way a rule changes the object, so the first rule that reports or emits
 * anything sees the input untouched, and its trigger is in the input.
 *
 * Every rule compares the names it looks for byte for byte (strcmp,
 * json_object_get, fnmatch(3) with flags 0): none folds case, and none
 * normalises a key or a value before deciding whether it is one it
 * handles (gpu_name_normalize() and quantity parsing only rewrite what was
 * already found), so exact substrings survive.
 *
 * The strings below that are not configuration (API versions, the
 * affinity annotation, NVIDIA_VISIBLE_DEVICES, the gate names) repeat the
 * rule files' own: the unit tests check every object they run the rules on
 * against this set, so a rule that learns a new literal without this file
 * learning it fails them.
 */
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

/* The set being built. */
struct trigger_set {
	struct string_list *out;
	size_t cap;
	int unbounded;          /* some rule fires without any literal */
};

/*
 * Adds a copy of `text`. An empty or missing string cannot be searched
 * for: the rule it stands for may fire on anything, so the set becomes
 * unbounded. Returns 0, or -1 when out of memory.
 */
static int trigger_add(struct trigger_set *set, const char *text)
{
	struct string_list *out = set->out;
	char *copy;

	if (!text || !*text) {
		set->unbounded = 1;
		return 0;
	}
	if (out->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 32;
		char **grown = realloc(out->items, cap * sizeof(*grown));

		if (!grown)
			return -1;
		out->items = grown;
		set->cap = cap;
	}
	if (!(copy = strdup(text)))
		return -1;
	out->items[out->n++] = copy;
	return 0;
}

static int trigger_add_list(struct trigger_set *set,
			    const struct string_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		if (trigger_add(set, list->items[i]))
			return -1;
	return 0;
}

void string_list_clear(struct string_list *list)
{
	if (!list)
		return;
	for (size_t i = 0; i < list->n; i++)
		free(list->items[i]);
	free(list->items);
	free(list->pairs);
	list->items = NULL;
	list->pairs = NULL;
	list->n = 0;
}

/* ------------------------------------------------------------------ */
/* fnmatch(3) patterns                                                 */

/*
 * The index of the ']' that closes the bracket expression opening at
 * pattern[open], or -1 when it is not closed. Errs towards a later end:
 * a backslash escapes the next byte (as fnmatch does without
 * FNM_NOESCAPE), "[:", "[." and "[=" run to their ":]", ".]", "=]", and a
 * ']' right after the opening (or after '!' or '^') belongs to the set.
 * Taking too much of the pattern as a set only loses literal bytes, which
 * is safe; taking too little would not be.
 */
static long bracket_end(const char *pattern, size_t open)
{
	size_t k = open + 1;

	if (pattern[k] == '!' || pattern[k] == '^')
		k++;
	if (pattern[k] == ']')
		k++;
	while (pattern[k]) {
		if (pattern[k] == '\\') {
			if (!pattern[k + 1])
				return -1;
			k += 2;
		} else if (pattern[k] == '[' && (pattern[k + 1] == ':' ||
						 pattern[k + 1] == '.' ||
						 pattern[k + 1] == '=')) {
			char close[3] = { pattern[k + 1], ']', '\0' };
			const char *end = strstr(pattern + k + 2, close);

			if (!end)
				return -1;
			k = (size_t)(end - pattern) + 2;
		} else if (pattern[k] == ']') {
			return (long)k;
		} else {
			k++;
		}
	}
	return -1;
}

/*
 * Calls `each` with every run of bytes that every string the fnmatch(3)
 * pattern matches (flags 0) contains as they are, with its length: '*',
 * '?' and bracket expressions end a run; a backslash makes the next byte
 * literal; an unclosed '[' or a trailing backslash ends the search, as if
 * the rest were wildcards. `stop`, when not NUL, ends a run too and is in
 * none (for '/': runs within one path segment). Returns 0, or -1 when out
 * of memory or when `each` fails.
 */
static int pattern_runs(const char *pattern, char stop,
			int (*each)(const char *run, size_t len, void *arg),
			void *arg)
{
	size_t run = 0, i = 0;
	char *current = malloc(strlen(pattern) + 1);
	int rc = 0;

	if (!current)
		return -1;
	for (;;) {
		char c = pattern[i];
		long end = -1;

		if (c == '\\' && pattern[i + 1] && (!stop ||
						     pattern[i + 1] != stop)) {
			current[run++] = pattern[i + 1];
			i += 2;
			continue;
		}
		if (c && c != '*' && c != '?' && c != '[' && c != '\\' &&
		    (!stop || c != stop)) {
			current[run++] = c;
			i++;
			continue;
		}
		/* the run ends here: at a wildcard, a set or the end */
		if (run && (rc = each(current, run, arg)) != 0)
			break;
		run = 0;
		if (c == '[')
			end = bracket_end(pattern, i);
		if (!c || (c == '\\' && !(stop && pattern[i + 1] == stop)) ||
		    (c == '[' && end < 0))
			break;
		i = c == '[' ? (size_t)end + 1 : c == '\\' ? i + 2 : i + 1;
	}
	free(current);
	return rc ? -1 : 0;
}

/* pattern_runs(): keeps the first longest run in `arg`, a string of the
 * pattern's length. */
static int longest_run(const char *run, size_t len, void *arg)
{
	char *longest = arg;

	if (len > strlen(longest)) {
		memcpy(longest, run, len);
		longest[len] = '\0';
	}
	return 0;
}

/*
 * Returns a new string: the longest run of pattern_runs(), "" when the
 * pattern has none (it is all wildcards and sets), or NULL when out of
 * memory.
 */
static char *pattern_literal_new(const char *pattern, char stop)
{
	char *literal = calloc(strlen(pattern) + 1, 1);

	if (literal && pattern_runs(pattern, stop, longest_run, literal)) {
		free(literal);
		return NULL;
	}
	return literal;
}

/*
 * Returns a new string: the longest run of bytes that every string the
 * fnmatch(3) pattern matches (flags 0) contains as they are, "" when the
 * pattern has none (it is all wildcards and sets), or NULL when out of
 * memory. '*', '?' and bracket expressions end a run; a backslash makes
 * the next byte literal; an unclosed '[' or a trailing backslash ends the
 * search, as if the rest were wildcards.
 *
 * With `path_pieces`, the pattern is matched against a path cleaned as
 * the kubelet cleans it (Go's filepath.Clean), while the object holds it
 * as written: "/usr/local//nvidia", "/usr/local/./nvidia" and
 * "/usr/x/../local/nvidia" are all "/usr/local/nvidia". Cleaning only
 * drops separators and whole elements, so what survives any spelling is
 * an element that is not "." or "..", with the '/' before and after it
 * where the pattern has them: '/' ends a run too.
 */
static char *pattern_piece_new(const char *pattern, int path_pieces)
{
	size_t len = strlen(pattern), run = 0, best = 0, i = 0;
	char *current = malloc(len + 3), *literal = calloc(len + 3, 1);
	int lead = 0;               /* the run follows a literal '/' */
	size_t body;                /* the run without its slashes */

	if (!current || !literal)
		goto out_nomem;
	for (;;) {
		char c = pattern[i];
		long end = -1;
		int slash = path_pieces && (c == '/' ||
					    (c == '\\' && pattern[i + 1] == '/'));

		if (!slash && c == '\\' && pattern[i + 1]) {
			current[run++] = pattern[i + 1];
			i += 2;
			continue;
		}
		if (!slash && c && c != '*' && c != '?' && c != '[' &&
		    c != '\\') {
			current[run++] = c;
			i++;
			continue;
		}
		/* the run ends here: at a wildcard, a set, the end (or, for
		 * path pieces, a '/', which it keeps on either side: an
		 * element of the clean path has a '/' wherever it has one
		 * there, in any spelling) */
		body = run - (size_t)lead;
		if (path_pieces && (body == 0 ||
				    (body == 1 && current[lead] == '.') ||
				    (body == 2 && current[lead] == '.' &&
				     current[lead + 1] == '.')))
			run = 0;
		else if (slash)
			current[run++] = '/';
		/* path pieces: the longest element, the last of equals
		 * (the deepest, the most telling) */
		body = path_pieces && run ? run - (size_t)lead - (size_t)slash
					  : run;
		if (body > best || (path_pieces && body && body == best)) {
			memcpy(literal, current, run);
			literal[run] = '\0';
			best = body;
		}
		run = 0;
		lead = 0;
		if (slash) {
			current[run++] = '/';
			lead = 1;
			i += c == '\\' ? 2 : 1;
			continue;
		}
		if (c == '[')
			end = bracket_end(pattern, i);
		if (!c || c == '\\' || (c == '[' && end < 0))
			break;
		i = c == '[' ? (size_t)end + 1 : i + 1;
	}
	free(current);
	return literal;
out_nomem:
	free(current);
	free(literal);
	return NULL;
}

/*
 * Adds the literal of every pattern of `patterns` to `set` (with
 * `path_pieces`, as pattern_piece_new() says). Returns 1, adding
 * nothing, when some pattern has no literal (the patterns may match a
 * string holding no fixed text); 0; -1 when out of memory.
 */
static int trigger_add_patterns(struct trigger_set *set,
				const struct string_list *patterns,
				int path_pieces)
{
	size_t first = set->out->n;

	for (size_t i = 0; i < patterns->n; i++) {
		char *literal = pattern_piece_new(patterns->items[i],
						    path_pieces);
		int rc;

		if (!literal)
			return -1;
		if (!*literal) {
			free(literal);
			goto out_unbounded;
		}
		rc = trigger_add(set, literal);
		free(literal);
		if (rc)
			return -1;
	}
	return 0;
out_unbounded:
	while (set->out->n > first)
		free(set->out->items[--set->out->n]);
	return 1;
}

/* The length of the shortest path piece (pattern_piece_new()) of
 * `patterns`; 0 when one has none, -1 when out of memory. */
static long patterns_shortest_piece(const struct string_list *patterns)
{
	long shortest = -1;

	for (size_t i = 0; i < patterns->n; i++) {
		char *literal = pattern_piece_new(patterns->items[i], 1);
		long len;

		if (!literal)
			return -1;
		len = (long)strlen(literal);
		free(literal);
		if (shortest < 0 || len < shortest)
			shortest = len;
	}
	return shortest < 0 ? 0 : shortest;
}

/* ------------------------------------------------------------------ */
/* CEL fragments: what the match conditions test for each rule         */

/*
 * The names of a growing list, borrowed from the config (only the array
 * is owned): the resource names a fragment looks for.
 */
static void names_add(struct string_list *names, const char *name,
		      struct cel_text *t)
{
	char **grown;

	if (!name || !*name)
		return;
	/* the GPU resource and the shared one may be the same name */
	for (size_t i = 0; i < names->n; i++)
		if (!strcmp(names->items[i], name))
			return;
	if (!(grown = realloc(names->items, (names->n + 1) * sizeof(*grown)))) {
		t->failed = 1;
		return;
	}
	names->items = grown;
	names->items[names->n++] = (char *)name;
}

/*
 * A disjunct of a container fragment: the container `c` has one of
 * `names` as a key of its limits or of its requests, in `resources` or
 * in a Tekton v1 step's `computeResources`. Nothing when `names` is
 * empty. Frees the array of `names`.
 */
static void cel_resources(struct cel_text *t, struct string_list *names)
{
	static const char *const members[] = { "resources",
					       "computeResources" };

	for (size_t i = 0; names->n && i < 2; i++) {
		const char *r = members[i];

		cel_or(t);
		cel_addf(t, "has(c.%s) && ((has(c.%s.limits) && ", r, r);
		cel_quote_list(t, names);
		cel_addf(t, ".exists(k, k in c.%s.limits)) || "
			 "(has(c.%s.requests) && ", r, r);
		cel_quote_list(t, names);
		cel_addf(t, ".exists(k, k in c.%s.requests)))", r);
	}
	free(names->items);
	*names = (struct string_list){ 0 };
}

/* The GPU request names of gpu_request_triggers(), into `names`. */
static void gpu_request_names(const struct config *cfg,
			      struct string_list *names, struct cel_text *t)
{
	names_add(names, cfg->gpu_resource, t);
	names_add(names, cfg->legacy_gpu_resource, t);
	names_add(names, cfg->shared_gpu_resource, t);
	names_add(names, cfg->gpu_memory_resource, t);
	for (size_t i = 0; i < cfg->count_resources.n; i++)
		names_add(names, cfg->count_resources.items[i], t);
	for (size_t i = 0; i < cfg->compute_resources.n; i++)
		names_add(names, cfg->compute_resources.items[i], t);
	for (size_t i = 0; i < cfg->vendor_gpu_resources.n; i++)
		names_add(names, cfg->vendor_gpu_resources.items[i], t);
	for (size_t i = 0; i < cfg->n_memory_resources; i++)
		names_add(names, cfg->memory_resources[i].name, t);
}

/*
 * The CEL test of container_requests_gpu() on container `c`, as a
 * disjunct of `t`: a GPU request name or a MIG device in its limits or
 * requests, or a DRA claim.
 */
static void cel_gpu_requests(const struct config *cfg, struct cel_text *t)
{
	struct string_list names = { 0 };

	gpu_request_names(cfg, &names, t);
	cel_resources(t, &names);
	cel_or(t);
	cel_add(t, "has(c.resources) && (has(c.resources.claims) || "
		"(has(c.resources.limits) && c.resources.limits.exists(k, "
		"k.startsWith('" MIG_RESOURCE_PREFIX "'))) || "
		"(has(c.resources.requests) && c.resources.requests.exists(k, "
		"k.startsWith('" MIG_RESOURCE_PREFIX "'))))");
}

static void triggers_minimize(struct string_list *out);
static int trigger_cmp(const void *a, const void *b);

/* Appends a copy of `text` to `list` (owned); sets t->failed when out of
 * memory. */
static void literal_add(struct string_list *list, const char *text,
			size_t len, struct cel_text *t)
{
	char **grown = realloc(list->items, (list->n + 1) * sizeof(*grown));
	char *copy = grown ? strndup(text, len) : NULL;

	if (grown)
		list->items = grown;
	if (!copy) {
		t->failed = 1;
		return;
	}
	list->items[list->n++] = copy;
}

/* Appends "VALUE.FN('a') || VALUE.FN('b')" for the items of `list`. */
static void cel_string_tests(struct cel_text *t, const char *value,
			     const char *fn, const struct string_list *list)
{
	for (size_t i = 0; i < list->n; i++) {
		cel_or(t);
		cel_addf(t, "%s.%s(", value, fn);
		cel_quote(t, list->items[i]);
		cel_add(t, ")");
	}
}

/*
 * For each of the n fnmatch(3) patterns at `patterns`, one every `stride`
 * bytes (a string_list's items, or a text_map's keys): its fixed prefix
 * into `prefixes`, when it has one and `prefixes` is not NULL; else its
 * longest fixed run (pattern_literal_new() with `stop`) into `runs`.
 * Returns 1 when some pattern has neither: it may match anything.
 */
static int pattern_fixed_text(char *const *patterns, size_t stride, size_t n,
			      char stop, struct string_list *prefixes,
			      struct string_list *runs, struct cel_text *t)
{
	for (size_t i = 0; i < n && !t->failed; i++) {
		const char *pattern = *(char *const *)(const void *)
			((const char *)patterns + i * stride);
		size_t fixed = strcspn(pattern, "*?[\\");
		char *literal;
		int none;

		if (prefixes && fixed) {
			literal_add(prefixes, pattern, fixed, t);
			continue;
		}
		if (!(literal = pattern_literal_new(pattern, stop))) {
			t->failed = 1;
			break;
		}
		none = !*literal;
		if (!none)
			literal_add(runs, literal, strlen(literal), t);
		free(literal);
		if (none)
			return 1;
	}
	return 0;
}

/*
 * Appends the tests of the strings `value` (a CEL expression) against the
 * prefixes and runs (string_list_clear()ed after): "true" when `any`.
 * Tests another one implies are left out: a run that holds another run,
 * a prefix that holds a run or starts with another prefix.
 */
static void cel_fixed_text(struct cel_text *t, const char *value, int any,
			   struct string_list *prefixes,
			   struct string_list *runs)
{
	struct cel_text tests = { 0 };
	size_t kept = 0;

	triggers_minimize(runs);
	if (prefixes->n > 1)
		qsort(prefixes->items, prefixes->n, sizeof(*prefixes->items),
		      trigger_cmp);
	for (size_t i = 0; i < prefixes->n; i++) {
		char *p = prefixes->items[i];
		int implied = 0;

		for (size_t k = 0; k < runs->n && !implied; k++)
			implied = strstr(p, runs->items[k]) != NULL;
		for (size_t k = 0; k < kept && !implied; k++)
			implied = !strncmp(p, prefixes->items[k],
					   strlen(prefixes->items[k]));
		if (implied)
			free(p);
		else
			prefixes->items[kept++] = p;
	}
	prefixes->n = kept;
	cel_string_tests(&tests, value, "startsWith", prefixes);
	cel_string_tests(&tests, value, "contains", runs);
	if (tests.failed)
		t->failed = 1;
	cel_add(t, any ? "true" : tests.s ? tests.s : "false");
	cel_text_free(&tests);
	string_list_clear(prefixes);
	string_list_clear(runs);
}

/*
 * Appends a test that the string `value` may match one of the n fnmatch(3)
 * patterns at `patterns` (as pattern_fixed_text() reads them): one with
 * a fixed prefix needs the value to start with it, one without needs its
 * longest fixed run in the value, one with neither matches anything.
 */
static void cel_patterns(struct cel_text *t, const char *value,
			 char *const *patterns, size_t stride, size_t n)
{
	struct string_list prefixes = { 0 }, runs = { 0 };
	int any = pattern_fixed_text(patterns, stride, n, '\0', &prefixes,
				     &runs, t);

	cel_fixed_text(t, value, any, &prefixes, &runs);
}

/* The longest host path or mount path a path condition reads: PATH_MAX.
 * A longer one is taken to match, without reading it. */
#define CEL_PATH_MAX 4096

/* pattern_runs(): appends a copy of each run to the string_list `arg`. */
static int run_add(const char *run, size_t len, void *arg)
{
	struct string_list *runs = arg;
	char **grown = realloc(runs->items, (runs->n + 1) * sizeof(*grown));
	char *copy = grown ? strndup(run, len) : NULL;

	if (grown)
		runs->items = grown;
	if (!copy)
		return -1;
	runs->items[runs->n++] = copy;
	return 0;
}

/* Whether every run of `weak` is within a run of `strong`: wherever all of
 * strong's are, all of weak's are too. */
static int runs_imply(const struct string_list *strong,
		      const struct string_list *weak)
{
	for (size_t i = 0; i < weak->n; i++) {
		int within = 0;

		for (size_t k = 0; k < strong->n && !within; k++)
			within = strstr(strong->items[k], weak->items[i]) != NULL;
		if (!within)
			return 0;
	}
	return 1;
}

/* Longest first, then bytewise. */
static int run_cmp(const void *a, const void *b)
{
	return -trigger_cmp(a, b);
}

/*
 * Cheapest first: s.contains(t) costs len(s) / 10 for each started ten
 * bytes of t, and a path that holds no run fails at the first. Then the
 * longest (the rarest) first.
 */
static int run_cost_cmp(const void *a, const void *b)
{
	size_t x = strlen(*(const char *const *)a);
	size_t y = strlen(*(const char *const *)b);

	if ((x + 9) / 10 != (y + 9) / 10)
		return (x + 9) / 10 < (y + 9) / 10 ? -1 : 1;
	return run_cmp(a, b);
}

/*
 * Appends a test that the string `value` may match one of the fnmatch(3)
 * patterns of the n_lists lists at `lists` once normalised as the kubelet
 * does ("//", "/./", "..", a trailing '/'): for some pattern, each of its
 * '/'-free runs (pattern_runs()) is in the value. Normalising only drops
 * separators and whole segments, so every segment of the normalised path
 * is one of the value's, with the runs in it as written. "true" when a
 * pattern has no run; a value longer than CEL_PATH_MAX matches unread.
 */
static void cel_path_patterns(struct cel_text *t, const char *value,
			      const struct string_list *const *lists,
			      size_t n_lists)
{
	struct string_list *pats = NULL;
	size_t n = 0, total = 0;
	int any = 0;

	for (size_t l = 0; l < n_lists; l++)
		total += lists[l]->n;
	if (total && !(pats = calloc(total, sizeof(*pats)))) {
		t->failed = 1;
		return;
	}
	for (size_t l = 0; l < n_lists; l++)
		for (size_t i = 0; i < lists[l]->n; i++, n++) {
			struct string_list *runs = &pats[n];
			size_t kept = 0;

			if (pattern_runs(lists[l]->items[i], '/', run_add, runs))
				t->failed = 1;
			any |= runs->n == 0;
			/* a run within a longer one of the same pattern is
			 * implied by it */
			if (runs->n > 1)
				qsort(runs->items, runs->n, sizeof(char *),
				      run_cmp);
			for (size_t r = 0; r < runs->n; r++) {
				int within = 0;

				for (size_t k = 0; k < kept && !within; k++)
					within = strstr(runs->items[k],
							runs->items[r]) != NULL;
				if (within)
					free(runs->items[r]);
				else
					runs->items[kept++] = runs->items[r];
			}
			runs->n = kept;
			if (runs->n > 1)
				qsort(runs->items, runs->n, sizeof(char *),
				      run_cost_cmp);
		}
	cel_add(t, any ? "true" : "");
	if (!any)
		cel_addf(t, "size(%s) > %d", value, CEL_PATH_MAX);
	for (size_t i = 0; i < n && !any; i++) {
		int implied = 0;

		/* a pattern whose runs hold another's adds nothing to it */
		for (size_t j = 0; j < n && !implied; j++)
			implied = j != i && runs_imply(&pats[i], &pats[j]) &&
				  (j < i || !runs_imply(&pats[j], &pats[i]));
		if (implied)
			continue;
		cel_add(t, " || ");
		for (size_t r = 0; r < pats[i].n; r++) {
			cel_addf(t, "%s%s.contains(", r ? " && " : "", value);
			cel_quote(t, pats[i].items[r]);
			cel_add(t, ")");
		}
	}
	for (size_t i = 0; i < n; i++)
		string_list_clear(&pats[i]);
	free(pats);
}

/*
 * The longest image reference an image condition reads (256 bytes: a
 * repository name has at most 255). A longer one is taken to match,
 * without reading it: the tests of every pattern on a few hundred such
 * images would overrun the API server's budget.
 */
#define CEL_IMAGE_MAX "256"

/* The longest string of a command, args or env value a condition reads
 * (4 KiB); a longer one is taken to match, without reading it. */
#define CEL_ARG_MAX "4096"

/*
 * Appends a test that `value`, an item of a container's command or args
 * (or, when `env` is 1, the value of an env entry, which may be missing)
 * holds one of the strings of `list`. Any other type holds none (the
 * rules read strings only); a string longer than CEL_ARG_MAX matches.
 */
static void cel_string_holds(struct cel_text *t, const char *value, int env,
			     const struct string_list *list)
{
	struct cel_text tests = { 0 };

	cel_string_tests(&tests, value, "contains", list);
	if (tests.failed)
		t->failed = 1;
	if (env)
		cel_add(t, "type(a) == map && has(a.value) && ");
	cel_addf(t, "type(%s) == string && (size(%s) > " CEL_ARG_MAX " || %s)",
		 value, value, tests.s ? tests.s : "false");
	cel_text_free(&tests);
}

/* A pod fragment: the pod's metadata has the annotation `key`. */
static void cel_annotation(struct cel_text *t, const char *key)
{
	cel_or(t);
	cel_add(t, "has(p.m.annotations) && ");
	cel_quote(t, key);
	cel_add(t, " in p.m.annotations");
}

/* ------------------------------------------------------------------ */
/* One function per rule                                               */

/*
 * The names container_requests_gpu() looks for: no rule that needs a GPU
 * request can fire on a pod without one of them (or a MIG device's
 * prefix) as a key of its limits or requests, or the key "claims" of its
 * resources.
 */
static int gpu_request_triggers(const struct config *cfg,
				struct trigger_set *set)
{
	if (trigger_add(set, "claims") ||
	    trigger_add(set, MIG_RESOURCE_PREFIX) ||
	    trigger_add(set, cfg->gpu_resource) ||
	    trigger_add(set, cfg->legacy_gpu_resource) ||
	    trigger_add(set, cfg->shared_gpu_resource) ||
	    trigger_add(set, cfg->gpu_memory_resource) ||
	    trigger_add_list(set, &cfg->count_resources) ||
	    trigger_add_list(set, &cfg->compute_resources) ||
	    trigger_add_list(set, &cfg->vendor_gpu_resources))
		return -1;
	for (size_t i = 0; i < cfg->n_memory_resources; i++)
		if (trigger_add(set, cfg->memory_resources[i].name))
			return -1;
	return 0;
}

/*
 * deprecated-workload-api acts only when find_move() matches the object's
 * apiVersion exactly against its table of removed versions, which are
 * these, or on an "apps/v1" workload without a selector. The rule is
 * offline only (the webhook never runs it, and its prefilter leaves it
 * out); it is covered anyway, so that the set holds for the CLI's options
 * too.
 */
static int triggers_deprecated_workload_api(const struct config *cfg,
					    struct trigger_set *set)
{
	static const char *const versions[] = {
		"extensions/v1beta1", "apps/v1beta1", "apps/v1beta2",
		"batch/v1beta1", "batch/v2alpha1", "apps/v1",
	};

	(void)cfg;
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if (trigger_add(set, versions[i]))
			return -1;
	return 0;
}

/*
 * dra-unsupported acts only under the dra target, on: a pod that shares a
 * GPU (pod_sharing_source(): gpumend's sharing label, the key of a legacy
 * sharing selector, or a sharing resource, which is a GPU request name);
 * a pod pinned to a Kepler model, which must request a GPU; a resource
 * whose name starts with "nvidia.com/mig-". Under any other target it
 * acts on nothing.
 */
static int triggers_dra_unsupported(const struct config *cfg,
				    struct trigger_set *set)
{
	if (cfg->target != RULES_TARGET_DRA)
		return 0;
	if (gpu_request_triggers(cfg, set) ||
	    trigger_add(set, cfg->sharing_label) ||
	    trigger_add(set, MIG_RESOURCE_PREFIX))
		return -1;
	for (size_t i = 0; i < cfg->share_selectors.n; i++)
		if (trigger_add(set, cfg->share_selectors.items[i].key))
			return -1;
	return 0;
}

/*
 * legacy-gpu-resource reports and rewrites only a container whose limits
 * or requests hold the key cfg->legacy_gpu_resource or one of
 * cfg->vendor_gpu_resources (section_read() finds no legacy value
 * otherwise, and check_name() stops).
 */
static int triggers_legacy_gpu_resource(const struct config *cfg,
					struct trigger_set *set)
{
	if (trigger_add(set, cfg->legacy_gpu_resource))
		return -1;
	/* target dra: every whole-GPU count becomes a claim */
	if (cfg->target == RULES_TARGET_DRA &&
	    trigger_add(set, cfg->gpu_resource))
		return -1;
	return trigger_add_list(set, &cfg->vendor_gpu_resources);
}

static int cel_legacy_gpu_resource(const struct config *cfg,
				   enum cel_part part, struct cel_frag *out)
{
	struct string_list names = { 0 };

	if (part != CEL_PART_CORE)
		return 1;
	names_add(&names, cfg->legacy_gpu_resource, &out->container);
	for (size_t i = 0; i < cfg->vendor_gpu_resources.n; i++)
		names_add(&names, cfg->vendor_gpu_resources.items[i],
			  &out->container);
	cel_resources(&out->container, &names);
	return 0;
}

/*
 * legacy-gpu-node-label acts on a nodeSelector key equal to
 * cfg->legacy_gpu_name_label, or on a node selector requirement whose
 * "key" value equals it (affinity_for_each_node_requirement() compares
 * with strcmp).
 */
static int triggers_legacy_gpu_node_label(const struct config *cfg,
					  struct trigger_set *set)
{
	return trigger_add(set, cfg->legacy_gpu_name_label);
}

/* The node affinity terms of the pod, required and preferred, hold a
 * matchExpressions requirement on the label. */
static int cel_legacy_gpu_node_label(const struct config *cfg,
				     enum cel_part part, struct cel_frag *out)
{
	struct cel_text *t = &out->pod;
	const char *label = cfg->legacy_gpu_name_label;

	if (part != CEL_PART_CORE)
		return 1;
	cel_or(t);
	cel_add(t, "has(p.s.nodeSelector) && ");
	cel_quote(t, label);
	cel_add(t, " in p.s.nodeSelector");
	cel_or(t);
	cel_add(t, "has(p.s.affinity) && has(p.s.affinity.nodeAffinity) && "
		"((has(p.s.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution) && "
		"has(p.s.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms) && "
		"p.s.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
		".exists(r, has(r.matchExpressions) && r.matchExpressions.exists(e, has(e.key) && e.key == ");
	cel_quote(t, label);
	cel_add(t, "))) || "
		"(has(p.s.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution) && "
		"p.s.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
		".exists(w, has(w.preference) && has(w.preference.matchExpressions) && "
		"w.preference.matchExpressions.exists(e, has(e.key) && e.key == ");
	cel_quote(t, label);
	cel_add(t, "))))");
	return 0;
}

/*
 * legacy-affinity-annotation returns at once when the pod's annotations
 * have no member named scheduler.alpha.kubernetes.io/affinity.
 */
static int triggers_legacy_affinity_annotation(const struct config *cfg,
					       struct trigger_set *set)
{
	(void)cfg;
	return trigger_add(set, "scheduler.alpha.kubernetes.io/affinity");
}

static int cel_legacy_affinity_annotation(const struct config *cfg,
					  enum cel_part part,
					  struct cel_frag *out)
{
	(void)cfg;
	if (part != CEL_PART_CORE)
		return 1;
	cel_annotation(&out->pod, "scheduler.alpha.kubernetes.io/affinity");
	return 0;
}

/*
 * gpu-model-affinity needs a pod that requests a GPU (pod_requests_gpu())
 * and either the annotation cfg->models_annotation (a key, looked up
 * exactly) or a namespace policy. A policy depends on the request's
 * namespace, which is not in the object, so with any policy configured
 * the GPU request names are the triggers; without one the annotation,
 * which is rarer, is as necessary.
 */
static int triggers_gpu_model_affinity(const struct config *cfg,
				       struct trigger_set *set)
{
	if (cfg->n_namespace_models > 0)
		return gpu_request_triggers(cfg, set);
	return trigger_add(set, cfg->models_annotation);
}

/* A pod that requests a GPU, and names models or is in a namespace with
 * a policy (the request's, or the one the object names). */
static int cel_gpu_model_affinity(const struct config *cfg,
				  enum cel_part part, struct cel_frag *out)
{
	struct cel_text *t = &out->pod, requests = { 0 };
	struct string_list namespaces = { 0 };

	if (part != CEL_PART_CORE)
		return 1;
	cel_gpu_requests(cfg, &requests);
	for (size_t i = 0; i < cfg->n_namespace_models; i++)
		names_add(&namespaces, cfg->namespace_models[i].namespace_name,
			  t);
	/* the annotation and the namespace first: they cost a lookup, the
	 * requests a lookup per container and name */
	cel_or(t);
	cel_add(t, "((has(p.m.annotations) && ");
	cel_quote(t, cfg->models_annotation);
	cel_add(t, " in p.m.annotations)");
	if (namespaces.n) {
		cel_add(t, " || request.namespace in ");
		cel_quote_list(t, &namespaces);
		cel_add(t, " || ('namespace' in object.metadata && "
			"object.metadata['namespace'] in ");
		cel_quote_list(t, &namespaces);
		cel_add(t, ")");
	}
	cel_addf(t, ") && " CEL_CONTAINERS ".exists(c, type(c) == map && (%s))",
		 requests.s ? requests.s : "false");
	if (requests.failed)
		t->failed = 1;
	cel_text_free(&requests);
	free(namespaces.items);
	return 0;
}

/*
 * gpu-sharing reports or changes a pod only when one of these holds, all
 * compared exactly: a limits or requests key that is a memory resource or
 * a count resource (bad values are reported while reading them, legacy
 * keys make sp.legacy); the shared GPU resource as a key, when it is not
 * the plain GPU resource (section_read() reads it only then, and only then
 * does sp.shared count); a nodeSelector key of a legacy sharing selector
 * (its value may be a YAML boolean, so the key is the trigger); a
 * schedulerName equal to a legacy scheduler; an annotation key that starts
 * with a stale prefix, or a command, args or env value that holds one (the
 * prefix is then a substring of the key or the value). The
 * sharing label and memory annotation only matter past those tests.
 */
static int triggers_gpu_sharing(const struct config *cfg,
				struct trigger_set *set)
{
	for (size_t i = 0; i < cfg->n_memory_resources; i++)
		if (trigger_add(set, cfg->memory_resources[i].name))
			return -1;
	if (trigger_add_list(set, &cfg->count_resources) ||
	    trigger_add_list(set, &cfg->compute_resources))
		return -1;
	if (!cfg->shared_gpu_resource || !cfg->gpu_resource ||
	    strcmp(cfg->shared_gpu_resource, cfg->gpu_resource) != 0) {
		if (trigger_add(set, cfg->shared_gpu_resource))
			return -1;
	}
	for (size_t i = 0; i < cfg->share_selectors.n; i++)
		if (trigger_add(set, cfg->share_selectors.items[i].key))
			return -1;
	if (trigger_add_list(set, &cfg->share_schedulers) ||
	    trigger_add_list(set, &cfg->stale_annotation_prefixes))
		return -1;
	return 0;
}

/* CEL_PART_CORE: the resources, node selectors and schedulers;
 * CEL_PART_EXTRA: the stale annotations. */
static int cel_gpu_sharing(const struct config *cfg, enum cel_part part,
			   struct cel_frag *out)
{
	static const char *const stale_lists[] = { "command", "args", "env" };
	struct string_list names = { 0 };
	struct cel_text *t = &out->pod;

	if (part == CEL_PART_EXTRA) {
		if (!cfg->stale_annotation_prefixes.n)
			return 0;
		cel_or(t);
		cel_add(t, "has(p.m.annotations) && p.m.annotations.exists(a, ");
		cel_quote_list(t, &cfg->stale_annotation_prefixes);
		cel_add(t, ".exists(x, a.startsWith(x)))");
		/* a container that reads a variable of a stale prefix */
		for (size_t i = 0; i < 3; i++) {
			cel_or(&out->container);
			cel_addf(&out->container, "has(c.%s) && c.%s.exists(a, ",
				 stale_lists[i], stale_lists[i]);
			cel_string_holds(&out->container, i == 2 ? "a.value" : "a",
					 i == 2, &cfg->stale_annotation_prefixes);
			cel_add(&out->container, ")");
		}
		return 0;
	}
	for (size_t i = 0; i < cfg->n_memory_resources; i++)
		names_add(&names, cfg->memory_resources[i].name,
			  &out->container);
	for (size_t i = 0; i < cfg->count_resources.n; i++)
		names_add(&names, cfg->count_resources.items[i],
			  &out->container);
	for (size_t i = 0; i < cfg->compute_resources.n; i++)
		names_add(&names, cfg->compute_resources.items[i],
			  &out->container);
	if (!cfg->shared_gpu_resource || !cfg->gpu_resource ||
	    strcmp(cfg->shared_gpu_resource, cfg->gpu_resource) != 0)
		names_add(&names, cfg->shared_gpu_resource, &out->container);
	cel_resources(&out->container, &names);
	/* a selector counts with its value (selector_value_is(): a YAML
	 * boolean is its word) */
	if (cfg->share_selectors.n) {
		cel_or(t);
		cel_add(t, "has(p.s.nodeSelector) && type(p.s.nodeSelector) == map && (");
		for (size_t i = 0; i < cfg->share_selectors.n; i++) {
			const struct text_pair *sel = &cfg->share_selectors.items[i];

			cel_add(t, i ? " || (" : "(");
			cel_quote(t, sel->key);
			cel_add(t, " in p.s.nodeSelector && (p.s.nodeSelector[");
			cel_quote(t, sel->key);
			cel_add(t, "] == ");
			cel_quote(t, sel->value);
			if (!strcmp(sel->value, "true") ||
			    !strcmp(sel->value, "false")) {
				cel_add(t, " || p.s.nodeSelector[");
				cel_quote(t, sel->key);
				cel_addf(t, "] == %s", sel->value);
			}
			cel_add(t, "))");
		}
		cel_add(t, ")");
	}
	if (cfg->share_schedulers.n) {
		cel_or(t);
		cel_add(t, "has(p.s.schedulerName) && p.s.schedulerName in ");
		cel_quote_list(t, &cfg->share_schedulers);
	}
	return 0;
}

/*
 * obsolete-cuda-hostpath looks only at volumes with a string
 * hostPath.path. It acts on one whose path, cleaned as the kubelet cleans
 * it, matches an obsolete pattern, so each path piece of the pattern's
 * literals (pattern_piece_new()) is in the path as written; or,
 * warning only, on one whose path
 * matches an ambiguous host pattern and that is mounted at a path matching
 * an ambiguous mount pattern: both are needed, so the literals of either
 * side will do, and the side whose shortest literal is longer is taken. A
 * vendor's driver directory (vendor_driver_dirs) is acted on only when a
 * GPU container mounts it at an ambiguous mount path: it is on the host
 * side with the ambiguous host patterns.
 * When patterns have no literal, the key "hostPath" itself, which every
 * finding of the rule needs, stands for them: coarse, but finite.
 */
static int triggers_obsolete_cuda_hostpath(const struct config *cfg,
					   struct trigger_set *set)
{
	size_t first = set->out->n;
	int rc;

	rc = trigger_add_patterns(set, &cfg->obsolete_host_paths, 1);
	if (rc < 0)
		return -1;
	if (rc == 0 && (cfg->ambiguous_host_paths.n ||
			cfg->vendor_driver_dirs.n) &&
	    cfg->ambiguous_mount_paths.n) {
		const struct string_list *hosts[] = {
			&cfg->ambiguous_host_paths, &cfg->vendor_driver_dirs,
		};
		long host = -1;
		long mount = patterns_shortest_piece(&cfg->ambiguous_mount_paths);

		for (size_t h = 0; h < 2; h++) {
			long len;

			if (!hosts[h]->n)
				continue;
			if ((len = patterns_shortest_piece(hosts[h])) < 0)
				return -1;
			if (host < 0 || len < host)
				host = len;
		}
		if (mount < 0)
			return -1;
		if (host == 0 && mount == 0)
			rc = 1;
		else if (mount >= host)
			rc = trigger_add_patterns(set, &cfg->ambiguous_mount_paths, 1);
		else
			for (size_t h = 0; h < 2 && rc == 0; h++)
				rc = trigger_add_patterns(set, hosts[h], 1);
		if (rc < 0)
			return -1;
	}
	if (rc == 0)
		return 0;
	while (set->out->n > first)
		free(set->out->items[--set->out->n]);
	return trigger_add(set, "hostPath");
}

/*
 * CEL_PART_CORE: a hostPath volume whose path may match an obsolete
 * pattern; or one whose path may match a platform's driver directory,
 * when a container that requests a GPU mounts a volume at a path that may
 * match an ambiguous mount pattern (check_vendor_dir() acts only then).
 * CEL_PART_EXTRA, only ever warned about: a hostPath volume whose path may
 * match an ambiguous host pattern, when a container mounts a volume at
 * such a path. "May match" survives the kubelet's path normalisation
 * (cel_path_patterns()).
 */
static int cel_obsolete_cuda_hostpath(const struct config *cfg,
				      enum cel_part part, struct cel_frag *out)
{
	const struct string_list *obsolete[] = { &cfg->obsolete_host_paths };
	const struct string_list *vendor[] = { &cfg->vendor_driver_dirs };
	const struct string_list *ambiguous[] = { &cfg->ambiguous_host_paths };
	const struct string_list *mounts[] = { &cfg->ambiguous_mount_paths };
	struct cel_text *t = &out->pod;
	int core = part == CEL_PART_CORE;

	if (core && cfg->obsolete_host_paths.n) {
		cel_or(t);
		cel_add(t, "has(p.s.volumes) && p.s.volumes.exists(v, "
			"type(v) == map && has(v.hostPath) && "
			"type(v.hostPath) == map && has(v.hostPath.path) && "
			"type(v.hostPath.path) == string && (");
		cel_path_patterns(t, "v.hostPath.path", obsolete, 1);
		cel_add(t, "))");
	}
	if ((core ? cfg->vendor_driver_dirs.n : cfg->ambiguous_host_paths.n) &&
	    cfg->ambiguous_mount_paths.n) {
		struct cel_text requests = { 0 };

		if (core)
			cel_gpu_requests(cfg, &requests);
		cel_or(t);
		cel_add(t, "has(p.s.volumes) && p.s.volumes.exists(v, "
			"type(v) == map && has(v.hostPath) && "
			"type(v.hostPath) == map && has(v.hostPath.path) && "
			"type(v.hostPath.path) == string && (");
		cel_path_patterns(t, "v.hostPath.path", core ? vendor : ambiguous,
				  1);
		cel_add(t, ")) && " CEL_CONTAINERS ".exists(c, type(c) == map && ");
		if (core)
			cel_addf(t, "(%s) && ", requests.s ? requests.s : "false");
		cel_add(t, "has(c.volumeMounts) && c.volumeMounts.exists(m, "
			"type(m) == map && has(m.mountPath) && "
			"type(m.mountPath) == string && (");
		cel_path_patterns(t, "m.mountPath", mounts, 1);
		cel_add(t, ")))");
		if (requests.failed)
			t->failed = 1;
		cel_text_free(&requests);
	}
	return 0;
}

/*
 * gpu-visibility acts on a container that requests no GPU and either has
 * an env entry whose name is exactly NVIDIA_VISIBLE_DEVICES, or an image
 * matching a pattern of cfg->gpu_images. A pattern without a literal
 * could match any image: then there is no useful set (every pod has an
 * image), and it is left unbounded.
 */
static int triggers_gpu_visibility(const struct config *cfg,
				   struct trigger_set *set)
{
	int rc;

	if (trigger_add(set, "NVIDIA_VISIBLE_DEVICES"))
		return -1;
	rc = trigger_add_patterns(set, &cfg->gpu_images, 0);
	if (rc > 0)
		set->unbounded = 1;
	return rc < 0 ? -1 : 0;
}

static int cel_gpu_visibility(const struct config *cfg, enum cel_part part,
			      struct cel_frag *out)
{
	struct cel_text *t = &out->container;

	if (part != CEL_PART_CORE)
		return 1;
	cel_or(t);
	cel_add(t, "has(c.env) && c.env.exists(e, type(e) == map && "
		"has(e.name) && e.name == 'NVIDIA_VISIBLE_DEVICES')");
	if (cfg->gpu_images.n) {
		cel_or(t);
		cel_add(t, "has(c.image) && (size(c.image) > " CEL_IMAGE_MAX " || ");
		cel_patterns(t, "c.image", cfg->gpu_images.items,
			     sizeof(char *), cfg->gpu_images.n);
		cel_add(t, ")");
	}
	return 0;
}

/*
 * removed-gpu-feature-gate reports a gate only when a name in a gate list
 * (a string of the container's command or args) or a key of a
 * KubeletConfiguration's featureGates equals one of its removed gates.
 */
static int triggers_removed_gpu_feature_gate(const struct config *cfg,
					     struct trigger_set *set)
{
	(void)cfg;
	if (trigger_add(set, "Accelerators") ||
	    trigger_add(set, "DevicePlugins"))
		return -1;
	return 0;
}

static int cel_removed_gpu_feature_gate(const struct config *cfg,
					enum cel_part part,
					struct cel_frag *out)
{
	static const char *const lists[] = { "command", "args" };
	static char *gate_names[] = { "Accelerators", "DevicePlugins" };
	const struct string_list gates = { gate_names, 2, NULL };
	struct cel_text *t = &out->container;

	(void)cfg;
	if (part != CEL_PART_CORE)
		return 1;
	for (size_t i = 0; i < 2; i++) {
		cel_or(t);
		cel_addf(t, "has(c.%s) && c.%s.exists(a, ", lists[i], lists[i]);
		cel_string_holds(t, "a", 0, &gates);
		cel_add(t, ")");
	}
	return 0;
}

/*
 * critical-pod-annotation returns at once when the pod's annotations have
 * no member named scheduler.alpha.kubernetes.io/critical-pod.
 */
static int triggers_critical_pod_annotation(const struct config *cfg,
					    struct trigger_set *set)
{
	(void)cfg;
	return trigger_add(set, "scheduler.alpha.kubernetes.io/critical-pod");
}

static int cel_critical_pod_annotation(const struct config *cfg,
				       enum cel_part part,
				       struct cel_frag *out)
{
	(void)cfg;
	if (part != CEL_PART_CORE)
		return 1;
	cel_annotation(&out->pod, "scheduler.alpha.kubernetes.io/critical-pod");
	return 0;
}

/*
 * obsolete-gpu-component reports a container only when its image matches
 * the pattern of an obsolete component (fnmatch(3), flags 0): the
 * pattern's literal is then in the image. A pattern without a literal
 * could match any image: no useful set then.
 */
static int triggers_obsolete_gpu_component(const struct config *cfg,
					   struct trigger_set *set)
{
	struct string_list patterns = { 0 };
	int rc;

	if (cfg->obsolete_components.n == 0)
		return 0;
	patterns.items = calloc(cfg->obsolete_components.n,
				sizeof(*patterns.items));
	if (!patterns.items)
		return -1;
	/* borrowed: only read */
	for (size_t i = 0; i < cfg->obsolete_components.n; i++)
		patterns.items[patterns.n++] = cfg->obsolete_components.items[i].key;
	rc = trigger_add_patterns(set, &patterns, 0);
	free(patterns.items);
	if (rc > 0)
		set->unbounded = 1;
	return rc < 0 ? -1 : 0;
}

static int cel_obsolete_gpu_component(const struct config *cfg,
				      enum cel_part part, struct cel_frag *out)
{
	struct cel_text *t = &out->container;

	if (part != CEL_PART_CORE)
		return 1;
	if (cfg->obsolete_components.n) {
		cel_or(t);
		cel_add(t, "has(c.image) && (size(c.image) > " CEL_IMAGE_MAX " || ");
		cel_patterns(t, "c.image", &cfg->obsolete_components.items[0].key,
			     sizeof(struct text_pair),
			     cfg->obsolete_components.n);
		cel_add(t, ")");
	}
	return 0;
}

/*
 * legacy-scheduler-config acts on: a string of a container's command or
 * args holding "policy-config" (every removed flag does); a document or
 * ConfigMap value of kind Policy holding one of the Policy members, all
 * listed (a member name is a key of the document or a substring of the
 * value's text); a KubeSchedulerConfiguration, or text, on a removed
 * version, each of which starts with "kubescheduler.config.k8s.io/v1beta";
 * an extender entry, under the key "extenders".
 */
static int triggers_legacy_scheduler_config(const struct config *cfg,
					    struct trigger_set *set)
{
	static const char *const literals[] = {
		"policy-config", "kubescheduler.config.k8s.io/v1beta",
		"predicates", "priorities", "extenders",
		"hardPodAffinitySymmetricWeight", "alwaysCheckAllPredicates",
	};

	(void)cfg;
	for (size_t i = 0; i < sizeof(literals) / sizeof(literals[0]); i++)
		if (trigger_add(set, literals[i]))
			return -1;
	return 0;
}

/*
 * invalid-resource reports only a key of a container's "limits" or
 * "requests" mapping: one of those keys is in the object. Coarse, but the
 * rule is offline only.
 */
static int triggers_invalid_resource(const struct config *cfg,
				     struct trigger_set *set)
{
	(void)cfg;
	if (trigger_add(set, "limits") || trigger_add(set, "requests"))
		return -1;
	return 0;
}

/*
 * removed-api acts on an apiVersion equal to one of its removed versions
 * (each is its own trigger), on the key or value
 * node-role.kubernetes.io/master (selectors, requirements, tolerations),
 * and on the flag --address of a kube-scheduler container.
 */
static int triggers_removed_api(const struct config *cfg,
				struct trigger_set *set)
{
	static const char *const literals[] = {
		"rbac.authorization.k8s.io/v1", "scheduling.k8s.io/v1",
		"node.k8s.io/v1beta1", "storage.k8s.io/v1beta1",
		"coordination.k8s.io/v1beta1", "apiregistration.k8s.io/v1beta1",
		"autoscaling/v2beta", "extensions/v1beta1",
		"networking.k8s.io/v1beta1", "policy/v1beta1",
		"apiextensions.k8s.io/v1beta1",
		"admissionregistration.k8s.io/v1beta1",
		"certificates.k8s.io/v1beta1", "discovery.k8s.io/v1beta1",
		"events.k8s.io/v1beta1", "mlkube.io/v1beta1",
		"tensorflow.org/v1alpha1", "kubeflow.org/v1alpha",
		"node-role.kubernetes.io/master", "--address",
	};

	(void)cfg;
	for (size_t i = 0; i < sizeof(literals) / sizeof(literals[0]); i++)
		if (trigger_add(set, literals[i]))
			return -1;
	return 0;
}

typedef int (*trigger_fn)(const struct config *cfg, struct trigger_set *set);
typedef int (*cel_fn)(const struct config *cfg, enum cel_part part,
		      struct cel_frag *out);

/* The webhook never runs the offline rules: they have no fragment. */
static const cel_fn rule_cel[RULE_COUNT] = {
	[RULE_LEGACY_GPU_RESOURCE] = cel_legacy_gpu_resource,
	[RULE_LEGACY_GPU_NODE_LABEL] = cel_legacy_gpu_node_label,
	[RULE_LEGACY_AFFINITY_ANNOTATION] = cel_legacy_affinity_annotation,
	[RULE_CRITICAL_POD_ANNOTATION] = cel_critical_pod_annotation,
	[RULE_GPU_MODEL_AFFINITY] = cel_gpu_model_affinity,
	[RULE_GPU_SHARING] = cel_gpu_sharing,
	[RULE_OBSOLETE_CUDA_HOSTPATH] = cel_obsolete_cuda_hostpath,
	[RULE_GPU_VISIBILITY] = cel_gpu_visibility,
	[RULE_REMOVED_GPU_FEATURE_GATE] = cel_removed_gpu_feature_gate,
	[RULE_OBSOLETE_GPU_COMPONENT] = cel_obsolete_gpu_component,
};

int rules_rule_cel(const struct config *cfg, enum rule_id rule,
		   enum cel_part part, struct cel_frag *out)
{
	if ((unsigned)rule >= RULE_COUNT || !rule_cel[rule])
		return 1;
	return rule_cel[rule](cfg, part, out);
}

static const trigger_fn rule_triggers[RULE_COUNT] = {
	[RULE_DEPRECATED_WORKLOAD_API] = triggers_deprecated_workload_api,
	[RULE_DRA_UNSUPPORTED] = triggers_dra_unsupported,
	[RULE_LEGACY_GPU_RESOURCE] = triggers_legacy_gpu_resource,
	[RULE_LEGACY_GPU_NODE_LABEL] = triggers_legacy_gpu_node_label,
	[RULE_LEGACY_AFFINITY_ANNOTATION] = triggers_legacy_affinity_annotation,
	[RULE_CRITICAL_POD_ANNOTATION] = triggers_critical_pod_annotation,
	[RULE_GPU_MODEL_AFFINITY] = triggers_gpu_model_affinity,
	[RULE_GPU_SHARING] = triggers_gpu_sharing,
	[RULE_OBSOLETE_CUDA_HOSTPATH] = triggers_obsolete_cuda_hostpath,
	[RULE_GPU_VISIBILITY] = triggers_gpu_visibility,
	[RULE_REMOVED_GPU_FEATURE_GATE] = triggers_removed_gpu_feature_gate,
	[RULE_OBSOLETE_GPU_COMPONENT] = triggers_obsolete_gpu_component,
	[RULE_LEGACY_SCHEDULER_CONFIG] = triggers_legacy_scheduler_config,
	[RULE_INVALID_RESOURCE] = triggers_invalid_resource,
	[RULE_REMOVED_API] = triggers_removed_api,
};

/* Shortest first, then bytewise: a trigger is only ever dropped for one
 * sorted before it. */
static int trigger_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strlen(x), ly = strlen(y);

	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x, y);
}

/* Drops duplicates and triggers that contain another one: wherever they
 * occur, the shorter one does too. */
static void triggers_minimize(struct string_list *out)
{
	size_t kept = 0;

	if (out->n > 1)
		qsort(out->items, out->n, sizeof(*out->items), trigger_cmp);
	for (size_t i = 0; i < out->n; i++) {
		char *t = out->items[i];
		int covered = 0;

		for (size_t k = 0; k < kept && !covered; k++)
			covered = strstr(t, out->items[k]) != NULL;
		if (covered)
			free(t);
		else
			out->items[kept++] = t;
	}
	out->n = kept;
}

/* The triggers of the rules in `rules` (a mask of 1 << rule_id). */
static int triggers_of(const struct config *cfg, unsigned rules,
		       struct string_list *out)
{
	struct trigger_set set = { .out = out };

	*out = (struct string_list){ 0 };
	for (int r = 0; r < RULE_COUNT; r++) {
		if (cfg->mode[r] == RULE_MODE_OFF || !(rules >> r & 1))
			continue;
		if (rule_triggers[r](cfg, &set) != 0) {
			string_list_clear(out);
			return -1;
		}
	}
	if (set.unbounded) {
		string_list_clear(out);
		return 1;
	}
	triggers_minimize(out);
	return 0;
}

int rules_triggers(const struct config *cfg, struct string_list *out)
{
	return triggers_of(cfg, ~0u, out);
}

int rules_rule_triggers(const struct config *cfg, enum rule_id rule,
			struct string_list *out)
{
	if ((unsigned)rule >= RULE_COUNT) {
		*out = (struct string_list){ 0 };
		return 0;
	}
	return triggers_of(cfg, 1u << rule, out);
}

/* ------------------------------------------------------------------ */
/* What the rules read of an object that gives them nothing to do      */

/*
 * The engine reads, of every object: apiVersion, kind and, of its
 * metadata, the namespace and the opt-out annotations (the answer reads
 * the name, generateName, deletionTimestamp and, of each ownerReferences
 * entry, its kind, name and controller), the items of a List, and, to
 * find pod specs, the members holding objects and arrays down to each pod
 * spec: at the places Kubernetes puts them (spec, template, jobTemplate),
 * or anywhere a "containers" member is (json_scan.h sends those to the
 * full reader), and the container lists of each spec; and the members on
 * the way to the pod specs of other forms, and their containers
 * (rules/pod_shapes.c: an Argo template's, a KServe component's, a
 * Tekton task spec's), and the containers theirs start from (a Tekton
 * stepTemplate, an Argo workflow's templateDefaults).
 */
#define ENGINE_READS \
	{ "apiVersion", 10, 1 }, { "kind", 4, 1 }, { "metadata", 8, 0 }, \
	{ "name", 4, 1 }, { "namespace", 9, 1 }, { "annotations", 11, 1 }, \
	{ "generateName", 12, 1 }, { "ownerReferences", 15, 0 }, \
	{ "controller", 10, 1 }, { "deletionTimestamp", 17, 1 }, \
	{ "items", 5, 0 }, { "spec", 4, 0 }, { "template", 8, 0 }, \
	{ "jobTemplate", 11, 0 }, { "containers", 10, 0 }, \
	{ "initContainers", 14, 0 }, { "ephemeralContainers", 19, 0 }, \
	{ "templates", 9, 0 }, { "workflowSpec", 12, 0 }, \
	{ "container", 9, 0 }, { "script", 6, 0 }, { "sidecars", 8, 0 }, \
	{ "containerSet", 12, 0 }, { "predictor", 9, 0 }, \
	{ "transformer", 11, 0 }, { "explainer", 9, 0 }, { "model", 5, 0 }, \
	{ "tensorflow", 10, 0 }, { "pytorch", 7, 0 }, { "sklearn", 7, 0 }, \
	{ "xgboost", 7, 0 }, { "onnx", 4, 0 }, { "triton", 6, 0 }, \
	{ "pmml", 4, 0 }, { "lightgbm", 8, 0 }, { "paddle", 6, 0 }, \
	{ "huggingface", 11, 0 }, { "taskSpec", 8, 0 }, { "tasks", 5, 0 }, \
	{ "finally", 7, 0 }, { "pipelineSpec", 12, 0 }, { "steps", 5, 0 }, \
	{ "stepTemplate", 12, 0 }, { "templateDefaults", 16, 0 }

/*
 * gpu-visibility reads, of each container, its name, image, env (the
 * NVIDIA_VISIBLE_DEVICES entry) and resources or computeResources
 * (container_requests_gpu()),
 * and image_is_stack_component() and string_list_match() the image.
 */
static const struct rules_read reads_gpu_visibility[] = {
	ENGINE_READS,
	{ "image", 5, 1 }, { "env", 3, 1 }, { "resources", 9, 1 },
	{ "computeResources", 16, 1 },
	{ NULL, 0, 0 }
};

/*
 * deprecated-workload-api looks for no pod spec: of the engine's reads it
 * needs apiVersion, kind, the namespace and annotations of metadata and
 * the items of a List; and of an apps/v1 workload whether spec holds a
 * selector that is no null (the whole selector kept, for that). Where it
 * does find something, the template labels it then reads are missing, so
 * it finds something too.
 */
static const struct rules_read reads_deprecated_workload_api[] = {
	{ "apiVersion", 10, 1 }, { "kind", 4, 1 }, { "metadata", 8, 0 },
	{ "namespace", 9, 1 }, { "annotations", 11, 1 }, { "items", 5, 0 },
	{ "spec", 4, 0 }, { "selector", 8, 1 },
	{ NULL, 0, 0 }
};

const struct rules_read rules_reads_nothing[] = { { NULL, 0, 0 } };

const struct rules_read *rules_reads(unsigned rules)
{
	switch (rules) {
	case 1u << RULE_GPU_VISIBILITY:
		return reads_gpu_visibility;
	case 1u << RULE_DEPRECATED_WORKLOAD_API:
		return reads_deprecated_workload_api;
	default:
		return NULL;
	}
}
