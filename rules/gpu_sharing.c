/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpu_sharing.c - legacy GPU sharing (Alibaba gpushare, Rancher, Volcano)
 * becomes the sharing of today's device plugin: time-slicing or MPS, or
 * HAMi's memory slices.
 *
 * The legacy forks asked for a slice of GPU memory ("aliyun.com/gpu-mem: 4",
 * in GiB) or a number of shared GPUs, steered pods with node selectors and a
 * scheduler of their own, and left their bookkeeping in pod annotations.
 * Time-slicing and MPS share whole GPUs, advertised as nvidia.com/gpu.shared
 * on nodes labelled with their strategy, so a memory slice becomes one
 * shared GPU plus node affinity on that label; HAMi keeps memory slices as
 * nvidia.com/gpumem in MiB. In every strategy the pod is labelled with it,
 * and the original memory requests are recorded in an annotation so that
 * nothing the manifest said is lost.
 *
 * A pod with a value that cannot be translated is reported and left
 * entirely as it is: a half-migrated pod would be worse than either.
 *
 * Memory units. gpushare's device plugin counts in GiB by default
 * (--memory-unit, cmd/nvidia/main.go of gpushare-device-plugin), but its
 * own samples and most real manifests run it with --memory-unit=MiB and
 * ask for 4064, 8138... So a value of a GiB resource larger than any GPU's
 * memory in GiB (cfg->max_gpu_memory_gib) is read as MiB, and a finding
 * says so; a size that is more than that even in MiB is refused.
 *
 * Placement. A legacy sharing selector (gpushare: "true") is never dropped
 * without a replacement: under time-slicing and MPS, required node
 * affinity on the sharing-strategy label keeps the pod on the nodes that
 * share GPUs, as the selector did, also for a pod that requests no GPU
 * (the gpushare device plugin's own DaemonSet); under HAMi, which shares
 * every GPU it manages, affinity on cfg->gpu_present_label.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

/*
 * The name the NVIDIA device plugin gives shared GPUs when it renames them
 * (renameByDefault: true), which gpumend asked for before its default
 * became the plain GPU resource: a count resource by default.
 */
#define RENAMED_SHARED_GPU "nvidia.com/gpu.shared"

/* One resources section (limits or requests) of a container. */
struct section {
	char *pointer;          /* of the map, owned */
	json_t *map;            /* borrowed, NULL when absent */
	long long count;        /* from a count resource; -1 when none */
	long long shared;       /* the shared resource's count; -1 when none */
	long long mib;          /* the first memory resource; -1 when none */
	long long core;         /* the first compute share, percent; -1 */
};

/* What a container asks for through the sharing resources. */
struct share_container {
	struct section lim, req;
	long long count;        /* GPUs after translation; -1 when no legacy */
	long long mib;          /* memory asked, MiB; -1 when none */
	int legacy;             /* a legacy key in limits or requests */
};

/* What the rule learns about one pod before it changes anything. */
struct share_pod {
	int bad;                /* values that cannot be translated */
	int legacy;             /* legacy resources somewhere */
	int shared;             /* the shared resource requested somewhere */
	int shares;             /* the pod uses a shared GPU once migrated */
	char *record;           /* "NAME=NMi,...", NULL when no memory */
	size_t record_len;
	int quiet;              /* count bad values without reporting them */
};

static int is_memory_resource(const struct config *cfg, const char *name,
			      long long *unit_mib)
{
	for (size_t i = 0; i < cfg->n_memory_resources; i++)
		if (strcmp(cfg->memory_resources[i].name, name) == 0) {
			if (unit_mib)
				*unit_mib = cfg->memory_resources[i].unit_mib;
			return 1;
		}
	return 0;
}

/* 1 when `name` is a legacy share of one GPU's compute, in percent. */
static int is_compute_resource(const struct config *cfg, const char *name)
{
	return string_list_has(&cfg->compute_resources, name);
}

/* 1 when the shared resource is a separate name, hence a sharing signal. */
static int shared_is_distinct(const struct config *cfg)
{
	return strcmp(cfg->shared_gpu_resource, cfg->gpu_resource) != 0;
}

/* 1 when resource `name` is replaced under the configured strategy. */
static int is_translated(const struct config *cfg, const char *name)
{
	if (is_memory_resource(cfg, name, NULL) ||
	    is_count_resource(cfg, name) || is_compute_resource(cfg, name))
		return 1;
	return cfg->strategy == SHARING_HAMI && shared_is_distinct(cfg) &&
	       strcmp(name, cfg->shared_gpu_resource) == 0;
}

/*
 * Reads a memory value (an integer, a real such as 1.5, or a quantity
 * string) in units of `unit_mib` MiB as whole MiB. Returns 0, or -1 when it
 * is negative, not a number or not a whole number of MiB.
 */
static int memory_mib(json_t *value, long long unit_mib, long long *mib)
{
	long long milli, total;

	if (json_is_integer(value)) {
		if (__builtin_mul_overflow(json_integer_value(value), 1000LL,
					   &milli))
			return -1;
	} else if (json_is_real(value)) {
		double d = json_real_value(value) * 1000.0, diff;

		if (d < 0 || d > 9e15)
			return -1;
		milli = (long long)(d + 0.5);
		diff = d - (double)milli;
		if (diff > 1e-6 || diff < -1e-6)
			return -1;
	} else if (!json_is_string(value) ||
		   quantity_parse_milli(json_string_value(value), &milli) != 0) {
		return -1;
	}
	if (milli < 0 || __builtin_mul_overflow(milli, unit_mib, &total) ||
	    total % 1000)
		return -1;
	*mib = total / 1000;
	return 0;
}

/* The value as the manifest wrote it, not as a double prints. */
static void value_text(json_t *value, char *text, size_t size)
{
	if (json_is_real(value))
		snprintf(text, size, "%g", json_real_value(value));
	else if (json_is_integer(value))
		snprintf(text, size, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(value));
	else if (json_is_string(value))
		snprintf(text, size, "'%.24s'", json_string_value(value));
	else
		snprintf(text, size, "this value");
}

/* Reports an unusable value of `name` in `sec`. Returns -1 when out of
 * memory, else 0. */
static int report_bad_value(struct rule_ctx *ctx, struct section *sec,
			    const char *name, const char *what)
{
	json_t *value = json_member(sec->map, name);
	char *at = json_pointer_join(sec->pointer, name);
	char text[32];
	int rc = -1;

	value_text(value, text, sizeof(text));
	if (at)
		rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
				 "'%s' must be %s, not %s", name, what, text);
	free(at);
	return rc;
}

/*
 * Reads the memory resource `name` of `sec` (unit `unit_mib`) into *mib,
 * reading a GiB value no GPU could hold as MiB (and saying so, unless
 * pod->quiet). Returns 0, 1 when the value is unusable (reported unless
 * pod->quiet), -1 when out of memory.
 */
static int memory_read(struct rule_ctx *ctx, struct section *sec,
		       const char *name, long long unit_mib, long long *mib,
		       struct share_pod *pod)
{
	const struct config *cfg = ctx->cfg;
	json_t *value = json_member(sec->map, name);
	long long max_mib = (long long)cfg->max_gpu_memory_gib * 1024;
	char text[32], *at;
	int rc;

	if (memory_mib(value, unit_mib, mib) != 0) {
		if (pod->quiet)
			return 1;
		return report_bad_value(ctx, sec, name,
					"a whole, non-negative number of MiB") ? -1 : 1;
	}
	if (unit_mib == 1024 && *mib > max_mib &&
	    memory_mib(value, 1, mib) == 0 && *mib <= max_mib) {
		/* no GPU has that many GiB: the device plugin ran in MiB */
		if (pod->quiet)
			return 0;
		/* the number bare: the message quotes the key and value */
		if (json_is_string(value))
			snprintf(text, sizeof(text), "%.24s",
				 json_string_value(value));
		else
			value_text(value, text, sizeof(text));
		if (!(at = json_pointer_join(sec->pointer, name)))
			return -1;
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "read '%s: %s' as MiB: no GPU has %s GiB (at most %d)",
				 name, text, text, cfg->max_gpu_memory_gib);
		free(at);
		return rc ? -1 : 0;
	}
	if (*mib <= max_mib)
		return 0;
	if (pod->quiet)
		return 1;
	value_text(value, text, sizeof(text));
	if (!(at = json_pointer_join(sec->pointer, name)))
		return -1;
	rc = rule_report(ctx, SEVERITY_ERROR, at, 0,
			 "'%s: %s' is more memory than any GPU has (%d GiB)",
			 name, text, cfg->max_gpu_memory_gib);
	free(at);
	return rc ? -1 : 1;
}

/* Reads one section; counts (and unless pod->quiet, reports) unusable
 * values in pod->bad. */
static int section_read(struct rule_ctx *ctx, struct container *c,
			struct section *sec, const char *name,
			struct share_pod *pod)
{
	const struct config *cfg = ctx->cfg;
	char *resources = json_pointer_join(c->pointer, c->resources);
	const char *key;
	json_t *value;

	sec->count = sec->shared = sec->mib = sec->core = -1;
	sec->pointer = resources ? json_pointer_join(resources, name) : NULL;
	free(resources);
	if (!sec->pointer)
		return -1;
	sec->map = json_member(json_member(c->container, c->resources),
			       name);
	if (!json_is_object(sec->map)) {
		sec->map = NULL;
		return 0;
	}
	json_object_foreach(sec->map, key, value) {
		long long unit, n;

		if (is_memory_resource(cfg, key, &unit)) {
			int rc = memory_read(ctx, sec, key, unit, &n, pod);

			if (rc < 0)
				return -1;
			if (rc > 0)
				pod->bad++;
			else if (sec->mib < 0)
				sec->mib = n;
		} else if (is_compute_resource(cfg, key)) {
			if (resource_count(value, &n) != 0) {
				pod->bad++;
				if (!pod->quiet &&
				    report_bad_value(ctx, sec, key,
						     "a whole, non-negative percentage") != 0)
					return -1;
			} else if (sec->core < 0) {
				sec->core = n;
			}
		} else if (is_count_resource(cfg, key) ||
			   (shared_is_distinct(cfg) &&
			    strcmp(key, cfg->shared_gpu_resource) == 0)) {
			int is_count = strcmp(key, cfg->shared_gpu_resource) != 0;

			if (resource_count(value, &n) != 0) {
				pod->bad++;
				if (!pod->quiet &&
				    report_bad_value(ctx, sec, key,
						     "a whole, non-negative number of GPUs") != 0)
					return -1;
			} else if (is_count && sec->count < 0) {
				sec->count = n;
			} else if (!is_count) {
				sec->shared = n;
			}
		}
	}
	return 0;
}

/* The number of GPUs a section asks for once translated; -1 when none. */
static long long section_count(const struct config *cfg, struct section *sec)
{
	if (sec->count >= 0)
		return sec->count;
	if (cfg->strategy == SHARING_HAMI && sec->shared >= 0)
		return sec->shared;
	if (sec->mib >= 0)
		return sec->mib > 0 ? 1 : 0;
	/* a compute share alone: whole GPUs' worth, rounded up */
	if (sec->core >= 0)
		return (sec->core + 99) / 100;
	return -1;
}

static int section_has_legacy(const struct config *cfg, struct section *sec)
{
	const char *key;
	json_t *value;

	json_object_foreach(sec->map, key, value)
		if (is_memory_resource(cfg, key, NULL) ||
		    is_count_resource(cfg, key) || is_compute_resource(cfg, key))
			return 1;
	return 0;
}

static void container_free(struct share_container *sc)
{
	free(sc->lim.pointer);
	free(sc->req.pointer);
}

/*
 * Reads a container's sharing resources into `sc`; unusable values are
 * reported and counted in pod->bad. Returns 0 or -1 on failure.
 */
static int container_read(struct rule_ctx *ctx, struct container *c,
			   struct share_container *sc, struct share_pod *pod)
{
	const struct config *cfg = ctx->cfg;
	long long lim_count, req_count;

	memset(sc, 0, sizeof(*sc));
	if (section_read(ctx, c, &sc->lim, "limits", pod) != 0 ||
	    section_read(ctx, c, &sc->req, "requests", pod) != 0)
		return -1;
	lim_count = section_count(cfg, &sc->lim);
	req_count = section_count(cfg, &sc->req);
	sc->legacy = section_has_legacy(cfg, &sc->lim) ||
		     section_has_legacy(cfg, &sc->req);
	sc->count = lim_count >= 0 ? lim_count : req_count;
	sc->mib = sc->lim.mib >= 0 ? sc->lim.mib : sc->req.mib;
	if (lim_count >= 0 && req_count >= 0 && lim_count != req_count) {
		pod->bad++;
		if (pod->quiet)
			return 0;
		return rule_report(ctx, SEVERITY_ERROR, sc->req.pointer, 0,
				   "shared GPU request (%lld) differs from the limit (%lld)",
				   req_count, lim_count);
	}
	return 0;
}

/* Appends "NAME=NMi" to the pod's record of memory requests. */
static int record_memory(struct share_pod *pod, struct container *c,
			 long long mib)
{
	const char *name = json_string_value(json_member(c->container,
							      "name"));
	char fallback[64], *grown;
	int len;

	if (!name && c->single) {
		name = c->list;
	} else if (!name) {
		snprintf(fallback, sizeof(fallback), "%s[%zu]", c->list,
			 c->index);
		name = fallback;
	}
	len = snprintf(NULL, 0, "%s%s=%lldMi", pod->record ? "," : "", name,
		       mib);
	if (len < 0 || !(grown = realloc(pod->record,
					 pod->record_len + (size_t)len + 1)))
		return -1;
	pod->record = grown;
	snprintf(pod->record + pod->record_len, (size_t)len + 1, "%s%s=%lldMi",
		 pod->record_len ? "," : "", name, mib);
	pod->record_len += (size_t)len;
	return 0;
}

/* First pass: reads every container, changes nothing. */
static int scan_container(struct rule_ctx *ctx, struct pod_spec *p,
			  struct container *c, void *arg)
{
	struct share_pod *pod = arg;
	struct share_container sc;
	int rc;

	(void)p;
	rc = container_read(ctx, c, &sc, pod);
	if (rc == 0) {
		pod->legacy |= sc.legacy;
		pod->shared |= sc.lim.shared > 0 || sc.req.shared > 0;
		pod->shares |= sc.count > 0 || sc.lim.shared > 0 ||
			       sc.req.shared > 0;
		if (sc.legacy && sc.mib > 0)
			rc = record_memory(pod, c, sc.mib);
	}
	container_free(&sc);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Findings                                                            */

struct report_state {
	int fixing;             /* the rule changes this pod */
	int shared_needs_fix;   /* the shared resource calls for changes */
	/* the node label whose affinity replaces a removed selector, or NULL
	 * when the pod has affinity on it already */
	const char *replacement;
	/* the container of a legacy stack's own component that the pod
	 * runs, or NULL: its placement is kept (see check_pod()) */
	const char *obsolete;
};

static const char *target_resource(const struct config *cfg);

/* Reports the legacy resource `name` of the section `sec`. */
static int report_resource_in(struct rule_ctx *ctx, struct report_state *st,
			      struct share_container *sc, const char *name,
			      struct section *sec)
{
	const struct config *cfg = ctx->cfg;
	int memory = is_memory_resource(cfg, name, NULL);
	char *at;
	int rc;

	if (!(at = json_pointer_join(sec->pointer, name)))
		return -1;
	if (cfg->strategy == SHARING_KEEP) {
		/* chosen by the cluster's owner: information, not a fault */
		rc = rule_report(ctx, SEVERITY_INFO, at, 0,
				 "legacy shared-GPU resource '%s' is kept (strategy keep)",
				 name);
	} else if (!st->fixing) {
		if (strcmp(name, RENAMED_SHARED_GPU) == 0)
			rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
					 "'%s' is served only by a device plugin that renames shared GPUs; use '%s'",
					 name, target_resource(cfg));
		else if (cfg->strategy == SHARING_HAMI)
			rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
					 "'%s' needs a vendor GPU-sharing scheduler; use '%s'%s%s%s",
					 name, cfg->gpu_resource,
					 memory ? " and '" : "",
					 memory ? cfg->gpu_memory_resource : "",
					 memory ? "'" : "");
		else
			rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
					 "'%s' needs a vendor GPU-sharing scheduler; use '%s'",
					 name, cfg->shared_gpu_resource);
	} else if (sc->count == 0) {
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "dropped '%s' (asks for no GPU)", name);
	} else if (is_compute_resource(cfg, name)) {
		/* neither time-slicing nor MPS (nor gpumend under HAMi)
		 * limits a pod's share of the compute */
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "replaced compute share '%s' with '%s' (%s); compute is no longer limited",
				 name, target_resource(cfg),
				 sharing_strategy_name(cfg->strategy));
	} else if (cfg->strategy == SHARING_HAMI) {
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "replaced '%s' with '%s'%s%s%s (hami)", name,
				 cfg->gpu_resource,
				 memory && sc->mib > 0 ? " and '" : "",
				 memory && sc->mib > 0 ? cfg->gpu_memory_resource : "",
				 memory && sc->mib > 0 ? "'" : "");
	} else {
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "replaced '%s' with '%s' (%s)", name,
				 cfg->shared_gpu_resource,
				 sharing_strategy_name(cfg->strategy));
	}
	free(at);
	return rc;
}

/* Reports every occurrence of the legacy resource `name`: in limits and
 * in requests, each at its own place. */
static int report_resource(struct rule_ctx *ctx, struct report_state *st,
			   struct share_container *sc, const char *name)
{
	struct section *sections[] = { &sc->lim, &sc->req };

	for (size_t i = 0; i < 2; i++)
		if (json_member(sections[i]->map, name) &&
		    report_resource_in(ctx, st, sc, name, sections[i]))
			return -1;
	return 0;
}

static int report_shared(struct rule_ctx *ctx, struct report_state *st,
			 struct share_container *sc)
{
	const struct config *cfg = ctx->cfg;
	const char *name = cfg->shared_gpu_resource;
	struct section *sec = sc->lim.shared > 0 ? &sc->lim : &sc->req;
	char *at;
	int rc;

	if (sec->shared <= 0 || !st->shared_needs_fix)
		return 0;
	if (!(at = json_pointer_join(sec->pointer, name)))
		return -1;
	if (cfg->strategy == SHARING_HAMI)
		rc = st->fixing
			? rule_report(ctx, SEVERITY_WARNING, at, 1,
				      "replaced '%s' with '%s' (hami)", name,
				      cfg->gpu_resource)
			: rule_report(ctx, SEVERITY_WARNING, at, 0,
				      "'%s' is not served by HAMi; use '%s'",
				      name, cfg->gpu_resource);
	else if (!st->fixing)
		rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
				 "pod requests '%s' without its sharing label or node affinity",
				 name);
	else
		rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
				 "labelled pod requesting '%s' for %s sharing", name,
				 sharing_strategy_name(cfg->strategy));
	free(at);
	return rc;
}

static int report_container(struct rule_ctx *ctx, struct pod_spec *p,
			    struct container *c, void *arg)
{
	const struct config *cfg = ctx->cfg;
	struct report_state *st = arg;
	struct share_pod scratch = { .quiet = 1 };
	struct share_container sc;
	int rc;

	(void)p;
	/* values were checked in the first pass: not reported again */
	if (container_read(ctx, c, &sc, &scratch) != 0) {
		container_free(&sc);
		return -1;
	}
	rc = 0;
	for (size_t i = 0; !rc && i < cfg->n_memory_resources; i++)
		rc = report_resource(ctx, st, &sc, cfg->memory_resources[i].name);
	for (size_t i = 0; !rc && i < cfg->count_resources.n; i++)
		if (is_count_resource(cfg, cfg->count_resources.items[i]))
			rc = report_resource(ctx, st, &sc,
					     cfg->count_resources.items[i]);
	for (size_t i = 0; !rc && i < cfg->compute_resources.n; i++)
		rc = report_resource(ctx, st, &sc,
				     cfg->compute_resources.items[i]);
	if (!rc && shared_is_distinct(cfg))
		rc = report_shared(ctx, st, &sc);
	container_free(&sc);
	return rc;
}

/* The pointer of the pod's node selector `key` (owned), or NULL. */
static char *selector_at(struct pod_spec *pod, const char *key)
{
	char *map = json_pointer_join(pod->place_pointer, "nodeSelector");
	char *at = map ? json_pointer_join(map, key) : NULL;

	free(map);
	return at;
}

static int has_prefix(const struct string_list *prefixes, const char *s)
{
	for (size_t i = 0; i < prefixes->n; i++)
		if (strncmp(s, prefixes->items[i], strlen(prefixes->items[i])) == 0)
			return 1;
	return 0;
}

/* Pod-level signals: selectors, scheduler and stale annotations. */
static int report_pod_signals(struct rule_ctx *ctx, struct report_state *st,
			      struct pod_spec *pod)
{
	const struct config *cfg = ctx->cfg;
	json_t *selector = json_member(pod->place, "nodeSelector");
	json_t *scheduler = json_member(pod->place, "schedulerName");
	json_t *annotations = json_member(pod->metadata, "annotations");
	int keep = cfg->strategy == SHARING_KEEP;
	const char *key;
	json_t *value;
	char *at;
	int rc = 0;

	for (size_t i = 0; !rc && i < cfg->share_selectors.n; i++) {
		const struct text_pair *sel = &cfg->share_selectors.items[i];

		if (!selector_value_is(json_member(selector, sel->key),
				       sel->value))
			continue;
		if (!(at = selector_at(pod, sel->key)))
			return -1;
		if (keep)
			rc = rule_report(ctx, SEVERITY_INFO, at, 0,
					 "legacy GPU-sharing node selector '%s: %s' is kept (strategy keep)",
					 sel->key, sel->value);
		else if (st->obsolete)
			rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
					 "kept selector '%s: %s' of obsolete container '%.32s'; remove it",
					 sel->key, sel->value, st->obsolete);
		else if (!st->fixing)
			rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
					 "node selector '%s: %s' targets legacy GPU-sharing nodes",
					 sel->key, sel->value);
		else if (st->replacement)
			rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
					 "replaced selector '%s: %s' by node affinity on '%s'",
					 sel->key, sel->value, st->replacement);
		else
			rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
					 "removed legacy GPU-sharing node selector '%s: %s'",
					 sel->key, sel->value);
		free(at);
	}
	if (!rc && json_is_string(scheduler) &&
	    string_list_has(&cfg->share_schedulers,
			    json_string_value(scheduler))) {
		const char *name = json_string_value(scheduler);

		if (!(at = json_pointer_join(pod->place_pointer, "schedulerName")))
			return -1;
		if (keep)
			rc = rule_report(ctx, SEVERITY_INFO, at, 0,
					 "legacy GPU-sharing scheduler '%s' is kept (strategy keep)",
					 name);
		else if (st->obsolete)
			rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
					 "kept scheduler '%s' of obsolete container '%.32s'; remove it",
					 name, st->obsolete);
		else if (!st->fixing)
			rc = rule_report(ctx, SEVERITY_WARNING, at, 0,
					 "scheduler '%s' is a legacy GPU-sharing scheduler",
					 name);
		else
			rc = rule_report(ctx, SEVERITY_WARNING, at, 1,
					 "removed legacy GPU-sharing scheduler '%s'",
					 name);
		free(at);
	}
	if (!json_is_object(annotations) || st->obsolete)
		return rc;
	json_object_foreach(annotations, key, value) {
		char *map;

		if (rc)
			break;
		if (!has_prefix(&cfg->stale_annotation_prefixes, key))
			continue;
		map = json_pointer_join(pod->metadata_pointer, "annotations");
		at = map ? json_pointer_join(map, key) : NULL;
		free(map);
		if (!at)
			return -1;
		rc = st->fixing
			? rule_report(ctx, SEVERITY_WARNING, at, 1,
				      "removed stale GPU-sharing annotation '%.60s'",
				      key)
			: rule_report(ctx, SEVERITY_WARNING, at, 0,
				      "annotation '%.60s' is stale state of a GPU-sharing scheduler",
				      key);
		free(at);
	}
	return rc;
}

/* The stale variable that `text` names, up to `size` bytes, in `name`;
 * 0 when it names none. */
static int stale_variable_in(const struct config *cfg, const char *text,
			     char *name, size_t size)
{
	const struct string_list *prefixes = &cfg->stale_annotation_prefixes;

	for (size_t p = 0; text && p < prefixes->n; p++) {
		const char *hit = strstr(text, prefixes->items[p]);
		size_t len = 0;

		if (!hit)
			continue;
		while (hit[len] == '_' || (hit[len] >= 'A' && hit[len] <= 'Z') ||
		       (hit[len] >= '0' && hit[len] <= '9'))
			len++;
		snprintf(name, size, "%.*s", (int)len, hit);
		return 1;
	}
	return 0;
}

/*
 * The pointer (owned) of the first string of the container's command, args
 * or env values that names a variable with a stale prefix
 * (ALIYUN_COM_GPU_MEM_CONTAINER, which the gpushare device plugin
 * injected), the variable in `name`. NULL when none; *failed set when out
 * of memory.
 */
static char *stale_variable_read(const struct config *cfg,
				 struct container *c, char *name, size_t size,
				 int *failed)
{
	static const char *const lists[] = { "command", "args", "env" };

	for (size_t l = 0; l < 3; l++) {
		json_t *list = json_member(c->container, lists[l]), *item;
		char *base, *entry, *at;
		size_t i;

		json_array_foreach(list, i, item) {
			json_t *value = l == 2 ? json_member(item, "value")
					       : item;

			if (!stale_variable_in(cfg, json_string_value(value),
					       name, size))
				continue;
			base = json_pointer_join(c->pointer, lists[l]);
			entry = base ? json_pointer_join_index(base, i) : NULL;
			at = entry && l == 2 ? json_pointer_join(entry, "value")
					     : entry;
			if (at != entry)
				free(entry);
			free(base);
			*failed = !at;
			return at;
		}
	}
	return NULL;
}

/* Reports a container that reads a variable only the legacy device plugin
 * set: nothing sets it once the pod is migrated. */
static int report_stale_variable(struct rule_ctx *ctx, struct pod_spec *pod,
				 struct container *c, void *arg)
{
	char name[64], *at;
	int failed = 0;

	(void)pod;
	(void)arg;
	at = stale_variable_read(ctx->cfg, c, name, sizeof(name), &failed);
	if (!at)
		return failed ? -1 : 0;
	if (rule_report(ctx, SEVERITY_WARNING, at, 0,
			"reads '%s', which only the gpushare device plugin set; nothing sets it now",
			name)) {
		free(at);
		return -1;
	}
	free(at);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Changes                                                             */

/* The resource that replaces the legacy ones. */
static const char *target_resource(const struct config *cfg)
{
	return cfg->strategy == SHARING_HAMI ? cfg->gpu_resource
					     : cfg->shared_gpu_resource;
}

/* Adds `name: value` to the map at `pointer` unless it is there. */
static int add_member(struct rule_ctx *ctx, const char *pointer,
		      const char *name, long long value)
{
	json_t *map = json_pointer_get(ctx->root, pointer);
	char *at;
	int rc;

	if (json_member(map, name))
		return 0;
	if (!json_is_object(map)) {
		json_t *fresh = json_pack("{s:I}", name, (json_int_t)value);

		return map ? rule_replace(ctx, pointer, fresh)
			   : rule_add(ctx, pointer, fresh);
	}
	if (!(at = json_pointer_join(pointer, name)))
		return -1;
	rc = rule_add(ctx, at, json_integer(value));
	free(at);
	return rc;
}

/* The configuration's copy of a sharing resource name, or NULL. */
static const char *config_copy_of(const struct config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_memory_resources; i++)
		if (strcmp(cfg->memory_resources[i].name, name) == 0)
			return cfg->memory_resources[i].name;
	for (size_t i = 0; i < cfg->count_resources.n; i++)
		if (strcmp(cfg->count_resources.items[i], name) == 0)
			return cfg->count_resources.items[i];
	for (size_t i = 0; i < cfg->compute_resources.n; i++)
		if (strcmp(cfg->compute_resources.items[i], name) == 0)
			return cfg->compute_resources.items[i];
	if (strcmp(cfg->shared_gpu_resource, name) == 0)
		return cfg->shared_gpu_resource;
	return NULL;
}

/*
 * Translates the legacy keys of one section: the first becomes the target
 * resource (keeping its place), the others go. Nothing replaces them when
 * the count is 0 or the target is already there.
 */
static int section_fix(struct rule_ctx *ctx, struct section *sec,
		       long long count, long long mib)
{
	const struct config *cfg = ctx->cfg;
	const char *target = target_resource(cfg);
	const char *keys[16], *key;
	size_t n = 0;
	json_t *value, *map = json_pointer_get(ctx->root, sec->pointer);
	int rc = 0, has_target;

	if (!json_is_object(map))
		return 0;
	has_target = json_member(map, target) != NULL;
	json_object_foreach(map, key, value) {
		const char *name = config_copy_of(cfg, key);

		/* the config's copy: the map's keys go away with the ops */
		if (name && is_translated(cfg, name) &&
		    n < sizeof(keys) / sizeof(keys[0]))
			keys[n++] = name;
	}
	if (n == 0)
		return 0;
	for (size_t i = 0; !rc && i < n; i++) {
		long long have;
		char *at;

		if (i > 0 || count <= 0 || has_target) {
			rc = rule_remove_key_pruned(ctx, sec->pointer, keys[i]);
			continue;
		}
		value = json_member(map, keys[i]);
		if (resource_count(value, &have) == 0 && have == count &&
		    !is_memory_resource(cfg, keys[i], NULL)) {
			rc = rule_rename(ctx, sec->pointer, keys[i], target);
			continue;
		}
		rc = rule_rename(ctx, sec->pointer, keys[i], target);
		at = rc ? NULL : json_pointer_join(sec->pointer, target);
		if (!rc)
			rc = at ? rule_replace(ctx, at, json_integer(count)) : -1;
		free(at);
	}
	if (!rc && cfg->strategy == SHARING_HAMI && count > 0 && mib > 0)
		rc = add_member(ctx, sec->pointer, cfg->gpu_memory_resource, mib);
	return rc;
}

static int fix_container(struct rule_ctx *ctx, struct pod_spec *p,
			 struct container *c, void *arg)
{
	const struct config *cfg = ctx->cfg;
	struct share_pod scratch = { .quiet = 1 };
	struct share_container sc;
	int rc = -1, lim_had;

	(void)p;
	(void)arg;
	if (container_read(ctx, c, &sc, &scratch) != 0)
		goto out;
	lim_had = json_member(sc.lim.map, target_resource(cfg)) != NULL;
	if (section_fix(ctx, &sc.lim, sc.count, sc.mib) != 0 ||
	    section_fix(ctx, &sc.req, sc.count, sc.mib) != 0)
		goto out;
	rc = 0;
	if (sc.count <= 0 || lim_had)
		goto out;
	/* only requested: an extended resource needs its limit too */
	rc = add_member(ctx, sc.lim.pointer, target_resource(cfg), sc.count);
	if (!rc && cfg->strategy == SHARING_HAMI && sc.mib > 0)
		rc = add_member(ctx, sc.lim.pointer, cfg->gpu_memory_resource,
				sc.mib);
out:
	container_free(&sc);
	return rc;
}

/* Removes the legacy selectors and scheduler. */
static int fix_placement(struct rule_ctx *ctx, struct pod_spec *pod)
{
	const struct config *cfg = ctx->cfg;
	char *map;
	json_t *scheduler;
	int rc = 0;

	if (!pod->place)
		return 0; /* no placement: no legacy selector in it */
	if (!(map = json_pointer_join(pod->place_pointer, "nodeSelector")))
		return -1;
	for (size_t i = 0; !rc && i < cfg->share_selectors.n; i++) {
		const struct text_pair *sel = &cfg->share_selectors.items[i];
		json_t *selector = json_pointer_get(ctx->root, map);

		if (selector_value_is(json_member(selector, sel->key),
				      sel->value))
			rc = rule_remove_key_pruned(ctx, map, sel->key);
	}
	free(map);
	pod->place = json_pointer_get(ctx->root, pod->place_pointer);
	scheduler = json_member(pod->place, "schedulerName");
	if (!rc && json_is_string(scheduler) &&
	    string_list_has(&cfg->share_schedulers,
			    json_string_value(scheduler))) {
		char *at = json_pointer_join(pod->place_pointer, "schedulerName");

		rc = at ? rule_remove(ctx, at) : -1;
		free(at);
	}
	return rc;
}

/* Sets the sharing label and the memory record on the pod's metadata. */
static int fix_metadata(struct rule_ctx *ctx, struct pod_spec *pod,
			struct share_pod *sp)
{
	const struct config *cfg = ctx->cfg;
	const char *strategy = sharing_strategy_name(cfg->strategy);
	json_t *meta = json_pointer_get(ctx->root, pod->metadata_pointer);
	char *p_labels = NULL, *p_annotations = NULL;
	int rc = -1;

	if (!json_is_object(meta)) {
		/* rule_set_string creates one level only: add it whole */
		json_t *fresh = json_pack("{s:{s:s}}", "labels",
					  cfg->sharing_label, strategy);

		if (fresh && sp->record &&
		    json_object_set_new(fresh, "annotations",
					json_pack("{s:s}",
						  cfg->memory_request_annotation,
						  sp->record)) != 0) {
			json_decref(fresh);
			fresh = NULL;
		}
		if (!fresh)
			return -1;
		return meta ? rule_replace(ctx, pod->metadata_pointer, fresh)
			    : rule_add(ctx, pod->metadata_pointer, fresh);
	}
	if (!(p_labels = json_pointer_join(pod->metadata_pointer, "labels")) ||
	    !(p_annotations = json_pointer_join(pod->metadata_pointer,
						"annotations")))
		goto out;
	rc = rule_set_string(ctx, p_labels, cfg->sharing_label, strategy);
	if (!rc && sp->record)
		rc = rule_set_string(ctx, p_annotations,
				     cfg->memory_request_annotation, sp->record);
out:
	free(p_labels);
	free(p_annotations);
	return rc;
}

/* Removes the annotations the legacy schedulers left behind. */
static int fix_stale_annotations(struct rule_ctx *ctx, struct pod_spec *pod)
{
	const struct config *cfg = ctx->cfg;
	char *map = json_pointer_join(pod->metadata_pointer, "annotations");
	int rc = 0;

	if (!map)
		return -1;
	for (;;) {
		json_t *annotations = json_pointer_get(ctx->root, map), *value;
		const char *key, *stale = NULL;

		json_object_foreach(annotations, key, value)
			if (has_prefix(&cfg->stale_annotation_prefixes, key)) {
				stale = key;
				break;
			}
		if (!stale)
			break;
		/* copy: the key is freed with its member */
		{
			char *name = strdup(stale);

			rc = name ? rule_remove_key_pruned(ctx, map, name) : -1;
			free(name);
		}
		if (rc)
			break;
	}
	free(map);
	return rc;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	const struct config *cfg = ctx->cfg;
	const char *strategy = sharing_strategy_name(cfg->strategy);
	struct share_pod sp = { 0 };
	struct report_state st = { 0 };
	json_t *selector, *scheduler, *annotations, *key_value, *component;
	int placement = 0, stale = 0, need_label = 0, need_record = 0;
	int need_affinity = 0, need_present = 0, selected = 0, placed, rc = -1;
	const char *key;

	(void)arg;
	if (pod_for_each_container(ctx, pod, scan_container, &sp) != 0)
		goto out;
	/* under keep, the gpushare device plugin still sets them */
	if (cfg->strategy != SHARING_KEEP &&
	    pod_for_each_container(ctx, pod, report_stale_variable, NULL) != 0)
		goto out;

	selector = json_member(pod->place, "nodeSelector");
	for (size_t i = 0; i < cfg->share_selectors.n; i++)
		if (selector_value_is(json_member(selector,
						  cfg->share_selectors.items[i].key),
				      cfg->share_selectors.items[i].value))
			placement = selected = 1;
	scheduler = json_member(pod->place, "schedulerName");
	if (json_is_string(scheduler) &&
	    string_list_has(&cfg->share_schedulers,
			    json_string_value(scheduler)))
		placement = 1;
	annotations = json_member(pod->metadata, "annotations");
	json_object_foreach(annotations, key, key_value)
		if (has_prefix(&cfg->stale_annotation_prefixes, key))
			stale = 1;
	/*
	 * A pod of a legacy stack's own component (the gpushare device
	 * plugin, its evictor...) is not migrated: affinity on the sharing
	 * label would run it exactly where today's device plugin shares
	 * GPUs, next to it. Its legacy selector and scheduler are kept, so
	 * that it schedules nowhere once the nodes are relabelled, and
	 * reported for the component's removal.
	 */
	if (placement && cfg->strategy != SHARING_KEEP &&
	    pod_obsolete_component(cfg, pod, &component)) {
		const char *name = json_string_value(json_member(component,
								 "name"));

		st.obsolete = name ? name : "";
		rc = report_pod_signals(ctx, &st, pod);
		goto out;
	}

	if (sp.shares && pod->metadata_pointer) {
		const char *label = json_string_value(json_member(
			json_member(pod->metadata, "labels"),
			cfg->sharing_label));
		const char *record = json_string_value(json_member(
			annotations, cfg->memory_request_annotation));

		need_label = !label || strcmp(label, strategy) != 0;
		need_record = sp.record &&
			      (!record || strcmp(record, sp.record) != 0);
	}
	placed = pod_constrains_node_label(pod, cfg->sharing_strategy_label);
	/* a removed selector is replaced, whatever the pod asks for */
	need_affinity = (sp.shares || selected) && !placed &&
			(cfg->strategy == SHARING_TIME_SLICING ||
			 cfg->strategy == SHARING_MPS);
	need_present = selected && cfg->strategy == SHARING_HAMI &&
		       !pod_constrains_node_label(pod, cfg->gpu_present_label);
	st.replacement = need_affinity ? cfg->sharing_strategy_label :
			 need_present ? cfg->gpu_present_label : NULL;
	st.shared_needs_fix = need_label || need_affinity ||
			      cfg->strategy == SHARING_HAMI;
	rc = 0;
	if (!sp.legacy && !placement && !stale &&
	    !(sp.shared && st.shared_needs_fix))
		goto out;

	/* findings first: they name the nodes as they are in the input */
	st.fixing = rule_mutates(ctx) && !sp.bad;
	if (pod_for_each_container(ctx, pod, report_container, &st) != 0 ||
	    report_pod_signals(ctx, &st, pod) != 0) {
		rc = -1;
		goto out;
	}
	if (!st.fixing)
		goto out;

	if (cfg->strategy != SHARING_KEEP) {
		if (pod_for_each_container(ctx, pod, fix_container, NULL) != 0 ||
		    fix_placement(ctx, pod) != 0) {
			rc = -1;
			goto out;
		}
	}
	if (pod->metadata_pointer && (need_label || need_record) &&
	    fix_metadata(ctx, pod, &sp) != 0) {
		rc = -1;
		goto out;
	}
	if (pod->metadata_pointer && stale &&
	    fix_stale_annotations(ctx, pod) != 0) {
		rc = -1;
		goto out;
	}
	/* a model that a sharing pod asked for is spelt otherwise on
	 * shared nodes */
	if (cfg->strategy != SHARING_KEEP && (sp.shares || selected) &&
	    pod_product_add_shared(ctx, pod)) {
		rc = -1;
		goto out;
	}
	if (need_affinity)
		rc = pod_require_node_label(ctx, pod,
					    cfg->sharing_strategy_label,
					    json_pack("[s]", strategy));
	else if (need_present)
		rc = pod_require_node_label(ctx, pod, cfg->gpu_present_label,
					    json_pack("[s]", "true"));
out:
	free(sp.record);
	return rc;
}

int rule_run_gpu_sharing(struct rule_ctx *ctx)
{
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
