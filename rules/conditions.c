/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conditions.c - the two entries of the webhook's registration, which rule
 * belongs to which, and their CEL match conditions.
 *
 * The API server calls an entry only when all its conditions are true, so
 * each entry's conditions must hold on every request on which one of its
 * rules could report or change anything (a superset), and should hold on
 * as few others as they can. Each rule writes its own fragment next to its
 * trigger strings (triggers.c); the pod specs are found by the table of
 * pod_shapes.c. Every optional member is tested with has() before it is
 * read: under failurePolicy Fail, a condition that fails to evaluate
 * rejects the object.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

/* ------------------------------------------------------------------ */
/* CEL text                                                            */

static void cel_reserve(struct cel_text *t, size_t more)
{
	char *grown;
	size_t cap;

	if (t->failed || t->len + more + 1 <= t->cap)
		return;
	cap = t->cap ? t->cap : 256;
	while (cap < t->len + more + 1)
		cap *= 2;
	if (!(grown = realloc(t->s, cap))) {
		t->failed = 1;
		return;
	}
	t->s = grown;
	t->cap = cap;
}

void cel_add(struct cel_text *t, const char *text)
{
	size_t len = strlen(text);

	cel_reserve(t, len);
	if (t->failed)
		return;
	memcpy(t->s + t->len, text, len + 1);
	t->len += len;
}

void cel_addf(struct cel_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->failed = 1;
		return;
	}
	cel_reserve(t, (size_t)n);
	if (t->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

void cel_quote(struct cel_text *t, const char *s)
{
	cel_add(t, "'");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'' || c == '\\')
			cel_addf(t, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			cel_addf(t, "\\x%02x", c);
		else
			cel_addf(t, "%c", c);
	}
	cel_add(t, "'");
}

void cel_quote_list(struct cel_text *t, const struct string_list *list)
{
	cel_add(t, "[");
	for (size_t i = 0; i < list->n; i++) {
		if (i)
			cel_add(t, ", ");
		cel_quote(t, list->items[i]);
	}
	cel_add(t, "]");
}

void cel_or(struct cel_text *t)
{
	if (t->len)
		cel_add(t, " || ");
}

void cel_text_free(struct cel_text *t)
{
	free(t->s);
	*t = (struct cel_text){ 0 };
}

/* ------------------------------------------------------------------ */
/* Entries                                                             */

static const char *const entry_names[RULES_ENTRY_COUNT] = {
	"legacy", "advisory"
};

const char *rules_entry_name(enum rules_entry entry)
{
	return (unsigned)entry < RULES_ENTRY_COUNT ? entry_names[entry] : NULL;
}

int rules_entry_find(const char *name)
{
	for (int e = 0; e < RULES_ENTRY_COUNT; e++)
		if (name && !strcmp(name, entry_names[e]))
			return e;
	return -1;
}

#define L RULES_ENTRY_LEGACY
#define A RULES_ENTRY_ADVISORY

/*
 * The entry of each part of a rule in mutate mode, -1 for none: legacy
 * when the object cannot run right unmigrated (a legacy resource, label
 * or annotation the scheduler no longer knows, driver mounts that break
 * the container, vendor sharing no plugin serves); advisory when it runs
 * anyway (obsolete-cuda-hostpath's ambiguous host paths, which it only
 * warns about, are its extra part). The offline rules have none: the
 * webhook never runs them.
 */
static const signed char mutate_entry[RULE_COUNT][CEL_PART_COUNT] = {
	[RULE_DEPRECATED_WORKLOAD_API] = { -1, -1 },
	[RULE_LEGACY_GPU_RESOURCE] = { L, -1 },
	[RULE_LEGACY_GPU_NODE_LABEL] = { L, -1 },
	[RULE_LEGACY_AFFINITY_ANNOTATION] = { L, -1 },
	[RULE_CRITICAL_POD_ANNOTATION] = { A, -1 },
	[RULE_GPU_MODEL_AFFINITY] = { A, -1 },
	[RULE_GPU_SHARING] = { L, A },
	[RULE_OBSOLETE_CUDA_HOSTPATH] = { L, A },
	[RULE_GPU_VISIBILITY] = { A, -1 },
	[RULE_REMOVED_GPU_FEATURE_GATE] = { A, -1 },
	[RULE_OBSOLETE_GPU_COMPONENT] = { A, -1 },
	[RULE_LEGACY_SCHEDULER_CONFIG] = { -1, -1 },
};

#undef L
#undef A

/*
 * The entry of `part` of `rule` under `cfg`, -1 when none: a rule in deny
 * mode is legacy (its answer is the admission), one in warn mode advisory
 * (a warning changes nothing: failing closed for it would only block).
 */
static int part_entry(const struct config *cfg, int rule, int part)
{
	int entry = mutate_entry[rule][part];

	if (entry < 0 || cfg->mode[rule] == RULE_MODE_OFF ||
	    rule_info_get((enum rule_id)rule)->offline_only)
		return -1;
	if (cfg->mode[rule] == RULE_MODE_DENY)
		return RULES_ENTRY_LEGACY;
	if (cfg->mode[rule] == RULE_MODE_WARN)
		return RULES_ENTRY_ADVISORY;
	return entry;
}

/* The rules (bits 1 << rule) with a part in `entry`. */
static unsigned entry_rules(const struct config *cfg, int entry)
{
	unsigned rules = 0;

	for (int r = 0; r < RULE_COUNT; r++)
		for (int part = 0; part < CEL_PART_COUNT; part++)
			if (part_entry(cfg, r, part) == entry)
				rules |= 1u << r;
	return rules;
}

/* ------------------------------------------------------------------ */
/* Conditions                                                          */

/* An UPDATE of an object whose pod spec cannot change (a Pod, a Job): the
 * API server refuses the legacy keys of a re-applied manifest there
 * whether gpumend answers or not, so gpumend never refuses one. */
#define FIXED_UPDATE \
	"(request.operation == 'UPDATE' && " \
	"((request.resource.group == '' && request.resource.resource == 'pods') || " \
	"(request.resource.group == 'batch' && request.resource.resource == 'jobs')))"

/* The longest gpumend.io/skip-rules value the conditions read (4 KiB): a
 * longer one is taken to skip nothing, without reading it. */
#define CEL_SKIP_RULES_MAX "4096"

/* The object's annotations hold `annotation`, short enough to be read. */
static void cel_skips_readable(struct cel_text *t, const char *annotation)
{
	cel_quote(t, annotation);
	cel_add(t, " in object.metadata.annotations && "
		"size(object.metadata.annotations[");
	cel_quote(t, annotation);
	cel_add(t, "]) <= " CEL_SKIP_RULES_MAX);
}

/* The object's `annotation` names the rule, as csv_has() reads it (items
 * between commas, blanks and tabs around them dropped). */
static void cel_skips(struct cel_text *t, const char *annotation,
		      enum rule_id rule)
{
	cel_add(t, "object.metadata.annotations[");
	cel_quote(t, annotation);
	cel_addf(t, "].matches('(^|,)[ \\\\t]*%s[ \\\\t]*(,|$)')",
		 rule_info_get(rule)->name);
}

/*
 * The fragments of the parts in `entry`: for each rule, its pod and
 * container disjuncts, unless the object's skip-rules annotation names
 * the rule (the engine runs no rule it names; one rule left out must not
 * send the object for another rule's sake, to an entry that fails closed).
 */
static void entry_fragments(const struct config *cfg, int entry,
			    struct cel_text *pod)
{
	struct cel_text all = { 0 };

	for (int r = 0; r < RULE_COUNT; r++) {
		struct cel_frag frag = { { 0 }, { 0 } };

		for (int part = 0; part < CEL_PART_COUNT; part++)
			if (part_entry(cfg, r, part) == entry)
				rules_rule_cel(cfg, (enum rule_id)r,
					       (enum cel_part)part, &frag);
		if (frag.container.len) {
			cel_or(&frag.pod);
			cel_addf(&frag.pod, CEL_CONTAINERS
				 ".exists(c, type(c) == map && (%s))",
				 frag.container.s);
		}
		if (frag.pod.failed || frag.container.failed)
			all.failed = 1;
		if (frag.pod.len) {
			cel_or(&all);
			cel_add(&all, "(!(has(object.metadata) && "
				"has(object.metadata.annotations) && ");
			cel_skips_readable(&all, cfg->skip_rules_annotation);
			cel_add(&all, " && ");
			cel_skips(&all, cfg->skip_rules_annotation,
				  (enum rule_id)r);
			cel_addf(&all, ") && (%s))", frag.pod.s);
		}
		cel_text_free(&frag.pod);
		cel_text_free(&frag.container);
	}
	if (all.failed)
		pod->failed = 1;
	cel_add(pod, all.len ? all.s : "false");
	cel_text_free(&all);
}

/* `annotation` holds every rule of `rules` by name, as csv_has() reads it
 * (items between commas, blanks and tabs around them dropped). */
static void cel_skips_all(struct cel_text *t, const char *annotation,
			  unsigned rules)
{
	int any = 0;

	for (int r = 0; r < RULE_COUNT; r++) {
		if (!(rules >> r & 1))
			continue;
		if (any)
			cel_add(t, " && ");
		cel_skips(t, annotation, (enum rule_id)r);
		any = 1;
	}
	if (!any)
		cel_add(t, "true");
}

/* Appends {name, expression} to `conditions`; -1 when out of memory. */
static int condition_add(json_t *conditions, const char *name,
			 struct cel_text *t)
{
	json_t *expression;

	if (t->failed || !t->s)
		return -1;
	if (!(expression = json_string(t->s)))
		return -1;
	return json_array_append_new(conditions,
				     json_pack("{s:s,s:o}", "name", name,
					       "expression", expression));
}

json_t *rules_conditions_new(const struct config *cfg, enum rules_entry entry)
{
	json_t *conditions = json_array();
	struct cel_text t = { 0 };
	unsigned mine = entry_rules(cfg, entry), legacy;
	int deny = 0, rc = 0;

	if (!conditions || (unsigned)entry >= RULES_ENTRY_COUNT)
		goto out_free;
	legacy = entry_rules(cfg, RULES_ENTRY_LEGACY);
	for (int r = 0; r < RULE_COUNT; r++)
		if (cfg->mode[r] == RULE_MODE_DENY &&
		    !rule_info_get((enum rule_id)r)->offline_only)
			deny = 1;

	cel_add(&t, "!has(object.metadata) || "
		"!has(object.metadata.deletionTimestamp)");
	rc |= condition_add(conditions, "not-deleted", &t);
	cel_text_free(&t);

	/* a controller's copy: its owner is migrated, and so are its pods */
	cel_add(&t, "(request.resource.group == '' && "
		"request.resource.resource == 'pods') || "
		"!has(object.metadata) || !has(object.metadata.ownerReferences) || "
		"!object.metadata.ownerReferences.exists(o, has(o.controller) && "
		"o.controller == true)");
	rc |= condition_add(conditions, "not-controlled", &t);
	cel_text_free(&t);

	if (entry == RULES_ENTRY_LEGACY) {
		/* gpumend never refuses a pod or job update: the advisory
		 * entry's */
		cel_add(&t, "!" FIXED_UPDATE);
		rc |= condition_add(conditions, "not-pod-or-job-update", &t);
		cel_text_free(&t);
	}

	/*
	 * Opted out: skip "true", or skip-rules naming every rule that could
	 * act through this entry. With a rule in deny mode, only objects of
	 * annotations.denyOptOutNamespaces may opt out of the legacy entry.
	 */
	if (entry != RULES_ENTRY_LEGACY || !deny ||
	    cfg->deny_opt_out_namespaces.n) {
		cel_add(&t, "!(has(object.metadata) && "
			"has(object.metadata.annotations) && ((");
		cel_quote(&t, cfg->skip_annotation);
		cel_add(&t, " in object.metadata.annotations && "
			"object.metadata.annotations[");
		cel_quote(&t, cfg->skip_annotation);
		cel_add(&t, "] == 'true') || (");
		cel_skips_readable(&t, cfg->skip_rules_annotation);
		cel_add(&t, " && ");
		cel_skips_all(&t, cfg->skip_rules_annotation, mine);
		if (entry == RULES_ENTRY_ADVISORY && (legacy & ~mine)) {
			cel_add(&t, " && (!" FIXED_UPDATE " || ");
			cel_skips_all(&t, cfg->skip_rules_annotation,
				      legacy & ~mine);
			cel_add(&t, ")");
		}
		cel_add(&t, "))");
		if (entry == RULES_ENTRY_LEGACY && deny) {
			cel_add(&t, " && request.namespace in ");
			cel_quote_list(&t, &cfg->deny_opt_out_namespaces);
		}
		cel_add(&t, ")");
		rc |= condition_add(conditions, "not-opted-out", &t);
		cel_text_free(&t);
	}

	/* a pod spec on which a rule of the entry could act */
	cel_add(&t, "(");
	pod_shapes_cel(cfg, &t);
	cel_add(&t, ").exists(p, ");
	entry_fragments(cfg, entry, &t);
	if (entry == RULES_ENTRY_ADVISORY && legacy) {
		cel_add(&t, " || (" FIXED_UPDATE " && (");
		entry_fragments(cfg, RULES_ENTRY_LEGACY, &t);
		cel_add(&t, "))");
	}
	cel_add(&t, ")");
	rc |= condition_add(conditions, "may-act", &t);
	cel_text_free(&t);
	if (rc)
		goto out_free;
	return conditions;
out_free:
	cel_text_free(&t);
	json_decref(conditions);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* What one entry is responsible for                                   */

/* Sets doc[section][key] to `value_new` (stolen); -1 when out of memory. */
static int doc_set(json_t *doc, const char *section, const char *key,
		   json_t *value_new)
{
	json_t *body = json_member(doc, section);

	if (!json_is_object(body)) {
		json_decref(value_new);
		return -1;
	}
	return json_object_set_new(body, key, value_new);
}

struct config *rules_entry_config_new(const struct config *cfg,
				      enum rules_entry entry, int request,
				      struct rules_error *err)
{
	int fixed_update = request & RULES_REQUEST_FIXED_UPDATE;
	int unregistered = request & RULES_REQUEST_UNREGISTERED;
	json_t *doc = config_to_json(cfg), *rules;
	struct config *out = NULL;
	int part_in[CEL_PART_COUNT], rc = 0;

	if (!doc || !(rules = json_member(doc, "rules")))
		goto out_oom;
	for (int r = 0; r < RULE_COUNT; r++) {
		int keep = 0;

		for (int part = 0; part < CEL_PART_COUNT; part++) {
			int e = part_entry(cfg, r, part);

			/* a pod or job update is the advisory entry's, all
			 * of it */
			if (fixed_update && e >= 0)
				e = RULES_ENTRY_ADVISORY;
			/* the API server sends it to no entry */
			if (unregistered)
				e = -1;
			part_in[part] = e < 0 ? -1 : e == (int)entry;
			keep |= part_in[part] == 1;
		}
		if (!keep && cfg->mode[r] != RULE_MODE_OFF)
			rc |= doc_set(rules, rule_info_get((enum rule_id)r)->name,
				      "mode", json_string("off"));
		if (r == RULE_OBSOLETE_CUDA_HOSTPATH && keep) {
			if (part_in[CEL_PART_EXTRA] == 0)
				rc |= doc_set(doc, "hostPaths", "ambiguous",
					      json_array());
			if (part_in[CEL_PART_CORE] == 0) {
				rc |= doc_set(doc, "hostPaths", "obsolete",
					      json_array());
				rc |= doc_set(doc, "hostPaths",
					      "vendorDriverDirs", json_array());
			}
		}
		if (r != RULE_GPU_SHARING || !keep)
			continue;
		if (part_in[CEL_PART_EXTRA] == 0)
			rc |= doc_set(doc, "sharing", "staleAnnotationPrefixes",
				      json_array());
		if (part_in[CEL_PART_CORE] == 0) {
			rc |= doc_set(doc, "sharing", "memoryResources",
				      json_object());
			rc |= doc_set(doc, "sharing", "countResources",
				      json_array());
			rc |= doc_set(doc, "sharing", "computeResources",
				      json_array());
			rc |= doc_set(doc, "sharing", "nodeSelectors",
				      json_object());
			rc |= doc_set(doc, "sharing", "schedulerNames",
				      json_array());
			rc |= doc_set(doc, "resources", "sharedGPU",
				      json_string(cfg->gpu_resource));
		}
	}
	if (rc || !(out = config_new_default()))
		goto out_oom;
	if (config_apply(out, doc, err) != 0) {
		config_free(out);
		out = NULL;
	}
	json_decref(doc);
	return out;
out_oom:
	json_decref(doc);
	if (err)
		snprintf(err->message, sizeof(err->message), "out of memory");
	return NULL;
}
