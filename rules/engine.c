/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine.c - runs the rules over an object, records operations and
 * findings.
 */
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules_private.h"

static const struct rule_info rule_table[RULE_COUNT] = {
	[RULE_DEPRECATED_WORKLOAD_API] = {
		RULE_DEPRECATED_WORKLOAD_API, "deprecated-workload-api",
		RULE_MODE_MUTATE, 1, 1,
		"workloads on removed API versions (extensions/v1beta1, apps/v1beta1/2, batch/v1beta1), apps/v1 without selector" },
	[RULE_DRA_UNSUPPORTED] = {
		RULE_DRA_UNSUPPORTED, "dra-unsupported",
		RULE_MODE_WARN, 0, 1,
		"under --target dra: GPU sharing, Kepler GPUs and MIG devices, which NVIDIA's DRA driver does not serve as it ships" },
	[RULE_LEGACY_GPU_RESOURCE] = {
		RULE_LEGACY_GPU_RESOURCE, "legacy-gpu-resource",
		RULE_MODE_MUTATE, 1, 0,
		"alpha.kubernetes.io/nvidia-gpu and vendor whole-GPU resources (aliyun.com/gpu)" },
	[RULE_LEGACY_GPU_NODE_LABEL] = {
		RULE_LEGACY_GPU_NODE_LABEL, "legacy-gpu-node-label",
		RULE_MODE_MUTATE, 1, 0,
		"alpha.kubernetes.io/nvidia-gpu-name in nodeSelector and node affinity" },
	[RULE_LEGACY_AFFINITY_ANNOTATION] = {
		RULE_LEGACY_AFFINITY_ANNOTATION, "legacy-affinity-annotation",
		RULE_MODE_MUTATE, 1, 0,
		"scheduler.alpha.kubernetes.io/affinity annotation instead of spec.affinity" },
	[RULE_CRITICAL_POD_ANNOTATION] = {
		RULE_CRITICAL_POD_ANNOTATION, "critical-pod-annotation",
		RULE_MODE_MUTATE, 1, 0,
		"scheduler.alpha.kubernetes.io/critical-pod annotation instead of priorityClassName" },
	[RULE_GPU_MODEL_AFFINITY] = {
		RULE_GPU_MODEL_AFFINITY, "gpu-model-affinity",
		RULE_MODE_MUTATE, 1, 0,
		"GPU pods asking for GPU models (annotation or namespace policy) without node affinity" },
	[RULE_GPU_SHARING] = {
		RULE_GPU_SHARING, "gpu-sharing",
		RULE_MODE_MUTATE, 1, 0,
		"legacy shared-GPU requests (aliyun, rancher, volcano) and sharing selectors, replaced by affinity" },
	[RULE_OBSOLETE_CUDA_HOSTPATH] = {
		RULE_OBSOLETE_CUDA_HOSTPATH, "obsolete-cuda-hostpath",
		RULE_MODE_MUTATE, 1, 0,
		"hostPath volumes mounting NVIDIA drivers or CUDA libraries by hand, or mounted at /usr/local/nvidia" },
	[RULE_GPU_VISIBILITY] = {
		RULE_GPU_VISIBILITY, "gpu-visibility",
		RULE_MODE_WARN, 1, 0,
		"containers that request no GPU but could see every GPU of the node" },
	[RULE_REMOVED_GPU_FEATURE_GATE] = {
		RULE_REMOVED_GPU_FEATURE_GATE, "removed-gpu-feature-gate",
		RULE_MODE_WARN, 0, 0,
		"Accelerators or DevicePlugins feature gates, which no longer exist" },
	[RULE_OBSOLETE_GPU_COMPONENT] = {
		RULE_OBSOLETE_GPU_COMPONENT, "obsolete-gpu-component",
		RULE_MODE_WARN, 0, 0,
		"the legacy GPU stacks' own components (1.8/1.9 device plugin, gpushare, nvidia-docker-plugin)" },
	[RULE_LEGACY_SCHEDULER_CONFIG] = {
		RULE_LEGACY_SCHEDULER_CONFIG, "legacy-scheduler-config",
		RULE_MODE_MUTATE, 1, 1,
		"kube-scheduler Policy files and flags, KubeSchedulerConfiguration on removed versions" },
	[RULE_INVALID_RESOURCE] = {
		RULE_INVALID_RESOURCE, "invalid-resource",
		RULE_MODE_WARN, 0, 1,
		"resource names no API server accepts or nothing serves, extended requests without a limit" },
	[RULE_REMOVED_API] = {
		RULE_REMOVED_API, "removed-api",
		RULE_MODE_MUTATE, 1, 1,
		"removed API versions (RBAC, PriorityClass v1beta1...), the master node role, kube-scheduler --address" },
};

static const rule_run_fn rule_runs[RULE_COUNT] = {
	[RULE_DEPRECATED_WORKLOAD_API] = rule_run_deprecated_workload_api,
	[RULE_DRA_UNSUPPORTED] = rule_run_dra_unsupported,
	[RULE_LEGACY_GPU_RESOURCE] = rule_run_legacy_gpu_resource,
	[RULE_LEGACY_GPU_NODE_LABEL] = rule_run_legacy_gpu_node_label,
	[RULE_LEGACY_AFFINITY_ANNOTATION] = rule_run_legacy_affinity_annotation,
	[RULE_CRITICAL_POD_ANNOTATION] = rule_run_critical_pod_annotation,
	[RULE_GPU_MODEL_AFFINITY] = rule_run_gpu_model_affinity,
	[RULE_GPU_SHARING] = rule_run_gpu_sharing,
	[RULE_OBSOLETE_CUDA_HOSTPATH] = rule_run_obsolete_cuda_hostpath,
	[RULE_GPU_VISIBILITY] = rule_run_gpu_visibility,
	[RULE_REMOVED_GPU_FEATURE_GATE] = rule_run_removed_gpu_feature_gate,
	[RULE_OBSOLETE_GPU_COMPONENT] = rule_run_obsolete_gpu_component,
	[RULE_LEGACY_SCHEDULER_CONFIG] = rule_run_legacy_scheduler_config,
	[RULE_INVALID_RESOURCE] = rule_run_invalid_resource,
	[RULE_REMOVED_API] = rule_run_removed_api,
};

const struct rule_info *rule_info_get(enum rule_id id)
{
	if ((unsigned)id >= RULE_COUNT)
		return NULL;
	return &rule_table[id];
}

const struct rule_info *rule_info_find(const char *name)
{
	for (int i = 0; i < RULE_COUNT; i++)
		if (strcmp(rule_table[i].name, name) == 0)
			return &rule_table[i];
	return NULL;
}

const char *rule_mode_name(enum rule_mode mode)
{
	static const char *names[] = { "off", "warn", "deny", "mutate" };

	return (unsigned)mode < 4 ? names[mode] : "?";
}

const char *severity_name(enum severity severity)
{
	static const char *names[] = { "info", "warning", "error" };

	return (unsigned)severity < 3 ? names[severity] : "?";
}

const char *sharing_strategy_name(enum sharing_strategy strategy)
{
	static const char *names[] = { "time-slicing", "mps", "hami", "keep" };

	return (unsigned)strategy < 4 ? names[strategy] : "?";
}

void rules_result_init(struct rules_result *result)
{
	memset(result, 0, sizeof(*result));
}

void rules_result_clear(struct rules_result *result)
{
	if (!result)
		return;
	for (size_t i = 0; i < result->n_ops; i++) {
		free(result->ops[i].path);
		free(result->ops[i].from);
		json_decref(result->ops[i].value);
		json_decref(result->ops[i].undo);
	}
	for (size_t i = 0; i < result->n_findings; i++) {
		free(result->findings[i].pointer);
		free(result->findings[i].message);
	}
	free(result->ops);
	free(result->findings);
	json_decref(result->documents);
	rules_result_init(result);
}

static void fail(struct rule_ctx *ctx, const char *pointer, const char *what)
{
	if (ctx->failed)
		return;
	ctx->failed = 1;
	if (ctx->err) {
		snprintf(ctx->err->pointer, sizeof(ctx->err->pointer), "%s",
			 pointer ? pointer : "");
		snprintf(ctx->err->message, sizeof(ctx->err->message),
			 "rule '%s': %s", rule_table[ctx->rule].name, what);
	}
}

/* The monotonic clock in nanoseconds. */
static int64_t monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

void rules_budget_init(struct rules_budget *b, uint64_t steps,
		       uint64_t millis)
{
	memset(b, 0, sizeof(*b));
	b->steps_left = steps ? steps : UINT64_MAX;
	b->until_clock = RULES_BUDGET_CLOCK_STEPS;
	if (millis)
		b->deadline_ns = monotonic_ns() + (int64_t)millis * 1000000;
}

int rules_budget_check(struct rules_budget *b)
{
	b->until_clock = RULES_BUDGET_CLOCK_STEPS;
	if (b->deadline_ns && monotonic_ns() >= b->deadline_ns)
		b->spent = RULES_BUDGET_DEADLINE;
	return b->spent ? -1 : 0;
}

int rule_spend(struct rule_ctx *ctx, uint64_t steps)
{
	if (rules_budget_spend(ctx->opts->budget, steps) == 0)
		return 0;
	fail(ctx, ctx->object_pointer, "the review is over its work budget");
	return -1;
}

int rule_mutates(const struct rule_ctx *ctx)
{
	return ctx->cfg->mode[ctx->rule] == RULE_MODE_MUTATE &&
	       rule_table[ctx->rule].can_mutate && !ctx->opts->report_only;
}

json_t *rule_json_read(struct rule_ctx *ctx, const char *text,
		       json_error_t *err)
{
	json_t *value = NULL;

	if (ctx->opts->read_json)
		value = ctx->opts->read_json(text, strlen(text));
	return value ? value : json_loads(text, 0, err);
}

/* 1 when one of the 8 bytes of `word` is below 0x20 or 0x7f. */
static inline int word_has_controls(uint64_t word)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t del = word ^ (ones * 0x7f);

	/* (x - 0x20) borrows into the high bit of bytes below 0x20, and
	 * (del - 1) into those of 0x7f; bytes >= 0x80 are let through */
	return (((word - ones * 0x20) & ~word) |
		((del - ones) & ~del)) & highs ? 1 : 0;
}

char *text_escape_controls(char *message)
{
	size_t extra = 0, o = 0, len = strlen(message), i = 0;
	char *out;

	for (; i + 8 <= len; i += 8) {
		uint64_t word;

		memcpy(&word, message + i, 8);
		if (word_has_controls(word))
			break;
	}
	for (const unsigned char *c = (unsigned char *)message + i; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			extra += 3;
	if (!extra)
		return message;
	out = malloc(strlen(message) + extra + 1);
	if (out) {
		for (const unsigned char *c = (unsigned char *)message; *c; c++) {
			const char *named = *c == '\n' ? "\\n" :
					    *c == '\t' ? "\\t" :
					    *c == '\r' ? "\\r" : NULL;

			if (*c >= 0x20 && *c != 0x7f)
				out[o++] = (char)*c;
			else if (named)
				o += (size_t)sprintf(out + o, "%s", named);
			else
				o += (size_t)sprintf(out + o, "\\x%02x", *c);
		}
		out[o] = '\0';
	}
	free(message);
	return out;
}

/*
 * vsnprintf(out, size, fmt, ap) for the conversions messages use (%s,
 * %.Ns, %d, %u, %lld, %zu, %%), without stdio's machinery; -1 (nothing
 * consumed from `ap`) when `fmt` has another one.
 */
static int message_format(char *out, size_t size, const char *fmt,
			  va_list ap)
{
	size_t o = 0;
	const char *f;

	for (f = fmt; *f; f++) {
		if (*f != '%')
			continue;
		f++;
		if (*f == '.')
			for (f++; *f >= '0' && *f <= '9'; f++)
				;
		if (!strncmp(f, "ll", 2) && f[2] == 'd')
			f += 2;
		else if (*f == 'z' && f[1] == 'u')
			f++;
		if (*f != 's' && *f != 'd' && *f != 'u' && *f != '%')
			return -1;
	}
	for (f = fmt; *f; f++) {
		char digits[24], *d = digits + sizeof(digits);
		const char *piece = d;
		size_t n, max = (size_t)-1;
		unsigned long long v = 0;
		int negative = 0;

		if (*f != '%') {
			if (o + 1 < size)
				out[o] = *f;
			o++;
			continue;
		}
		f++;
		if (*f == '.') {
			for (max = 0, f++; *f >= '0' && *f <= '9'; f++)
				max = max * 10 + (size_t)(*f - '0');
		}
		if (*f == 's') {
			piece = va_arg(ap, const char *);
			if (!piece)
				piece = "(null)";
		} else if (*f == '%') {
			piece = "%";
		} else {
			if (!strncmp(f, "lld", 3)) {
				long long x = va_arg(ap, long long);

				negative = x < 0;
				v = negative ? 0 - (unsigned long long)x
					     : (unsigned long long)x;
				f += 2;
			} else if (!strncmp(f, "zu", 2)) {
				v = va_arg(ap, size_t);
				f++;
			} else if (*f == 'd') {
				int x = va_arg(ap, int);

				negative = x < 0;
				v = negative ? 0 - (unsigned long long)x
					     : (unsigned long long)x;
			} else {
				v = va_arg(ap, unsigned);
			}
			do
				*--d = (char)('0' + v % 10);
			while (v /= 10);
			if (negative)
				*--d = '-';
			piece = d;
		}
		n = piece == d ? (size_t)(digits + sizeof(digits) - d)
			       : strnlen(piece, max);
		if (o < size)
			memcpy(out + o, piece, o + n < size ? n : size - 1 - o);
		o += n;
	}
	if (size)
		out[o < size ? o : size - 1] = '\0';
	return o > INT_MAX ? -1 : (int)o;
}

int rule_report(struct rule_ctx *ctx, enum severity severity,
		const char *pointer, int fixed, const char *fmt, ...)
{
	struct rules_result *res = ctx->result;
	struct finding *f;
	va_list ap;
	char *message, line[256];
	int len;

	if (res->n_findings == res->cap_findings) {
		size_t cap = res->cap_findings ? res->cap_findings * 2 : 8;
		struct finding *grown = realloc(res->findings,
						cap * sizeof(*grown));

		if (!grown)
			goto out_nomem;
		res->findings = grown;
		res->cap_findings = cap;
	}
	/* one pass for most messages: they are short */
	va_start(ap, fmt);
	len = message_format(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (len < 0) {
		va_start(ap, fmt);
		len = vsnprintf(line, sizeof(line), fmt, ap);
		va_end(ap);
	}
	if (len < 0 || !(message = malloc((size_t)len + 1)))
		goto out_nomem;
	if ((size_t)len < sizeof(line)) {
		memcpy(message, line, (size_t)len + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(message, (size_t)len + 1, fmt, ap);
		va_end(ap);
	}
	/* a value quoted in a message must not break it over lines */
	if (!(message = text_escape_controls(message)))
		goto out_nomem;

	f = &res->findings[res->n_findings];
	f->rule = ctx->rule;
	f->message = message;
	f->pointer = strdup(pointer ? pointer : "");
	if (!f->pointer) {
		free(message);
		goto out_nomem;
	}
	f->fixed = fixed && rule_mutates(ctx);
	f->severity = severity;
	if (!f->fixed && ctx->cfg->mode[ctx->rule] == RULE_MODE_DENY) {
		f->severity = SEVERITY_ERROR;
		res->denied = 1;
	}
	if (!f->fixed && f->severity == SEVERITY_ERROR)
		res->errors++;
	res->n_findings++;
	return 0;
out_nomem:
	fail(ctx, pointer, "out of memory");
	return -1;
}

/* Adds text[0..len) and a NUL to ctx->added_text. */
static void added_put(struct rule_ctx *ctx, const char *text, size_t len)
{
	if (ctx->added_failed)
		return;
	if (ctx->added_cap - ctx->added_len < len + 1) {
		size_t cap = ctx->added_cap ? ctx->added_cap : 256;
		char *grown;

		while (cap - ctx->added_len < len + 1 && cap < SIZE_MAX / 2)
			cap *= 2;
		if (cap - ctx->added_len < len + 1 ||
		    !(grown = realloc(ctx->added_text, cap))) {
			ctx->added_failed = 1;
			return;
		}
		ctx->added_text = grown;
		ctx->added_cap = cap;
	}
	memcpy(ctx->added_text + ctx->added_len, text, len);
	ctx->added_text[ctx->added_len + len] = '\0';
	ctx->added_len += len + 1;
}

/* json_text_seen_fn for emit(): the strings an operation adds. */
static void added_seen(void *ctx, const char *text, size_t len)
{
	added_put(ctx, text, len);
}

/* Adds the last token of `path`, unescaped, to ctx->added_text. */
static void added_key(struct rule_ctx *ctx, const char *path)
{
	const char *last = strrchr(path, '/');
	char token[1024];

	if (!last || json_pointer_next(&last, token, sizeof(token)) != 0)
		ctx->added_failed = 1;
	else
		added_put(ctx, token, strlen(token));
}

/* The rules with a trigger in what operations added. */
static unsigned added_rules(struct rule_ctx *ctx)
{
	if (ctx->added_failed)
		return ~0u;
	if (ctx->added_len) {
		ctx->added |= ctx->opts->triggers_in(ctx->opts->triggers_arg,
						     ctx->added_text,
						     ctx->added_len);
		ctx->added_len = 0;
	}
	return ctx->added;
}

static void opt_out_forget(struct rule_ctx *ctx, const char *path);
static size_t pods_found(const struct rule_ctx *ctx);

/* Records and applies one operation; steals value_new and the strings. */
static int emit(struct rule_ctx *ctx, enum patch_kind kind, char *path,
		char *from, json_t *value_new)
{
	struct rules_result *res = ctx->result;
	struct patch_op *op;
	json_t *recorded = NULL;
	int rc;

	if (!path || (kind == PATCH_MOVE && !from))
		goto out_fail;
	/* the operation, and the pods whose opt-out it may make stale */
	if (rule_spend(ctx, 1 + pods_found(ctx))) {
		free(path);
		free(from);
		json_decref(value_new);
		return -1;
	}
	if (res->n_ops == res->cap_ops) {
		size_t cap = res->cap_ops ? res->cap_ops * 2 : 8;
		struct patch_op *grown = realloc(res->ops, cap * sizeof(*grown));

		if (!grown)
			goto out_fail;
		res->ops = grown;
		res->cap_ops = cap;
	}
	/*
	 * The document gets the value and the operation a copy of its own:
	 * later operations write into the document, and must not change what
	 * this one recorded (nor may a rule that kept a pointer to it).
	 */
	if (value_new &&
	    !(recorded = json_value_copy_seen(value_new,
					      ctx->opts->triggers_in ? added_seen
								     : NULL,
					      ctx)))
		goto out_fail;
	op = &res->ops[res->n_ops];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->rule = ctx->rule;
	op->path = path;
	op->from = from;
	op->value = value_new;
	rc = ctx->opts->keep_undo ? patch_apply_op_undo(ctx->root, op)
				  : patch_apply_op(ctx->root, op);
	op->value = recorded;
	if (rc == 0 && ctx->opts->triggers_in)
		added_key(ctx, path);
	/* a failed operation may have changed half of what it would */
	opt_out_forget(ctx, path);
	if (from)
		opt_out_forget(ctx, from);
	json_decref(value_new);
	if (rc != 0) {
		fail(ctx, path, "operation does not apply");
		json_decref(op->undo);
		json_decref(recorded);
		free(path);
		free(from);
		return -1;
	}
	res->n_ops++;
	return 0;
out_fail:
	fail(ctx, path, "out of memory");
	free(path);
	free(from);
	json_decref(value_new);
	return -1;
}

int rule_add(struct rule_ctx *ctx, const char *path, json_t *value_new)
{
	if (!value_new)
		return emit(ctx, PATCH_ADD, NULL, NULL, NULL);
	return emit(ctx, PATCH_ADD, strdup(path), NULL, value_new);
}

int rule_replace(struct rule_ctx *ctx, const char *path, json_t *value_new)
{
	if (!value_new)
		return emit(ctx, PATCH_REPLACE, NULL, NULL, NULL);
	return emit(ctx, PATCH_REPLACE, strdup(path), NULL, value_new);
}

int rule_remove(struct rule_ctx *ctx, const char *path)
{
	return emit(ctx, PATCH_REMOVE, strdup(path), NULL, NULL);
}

int rule_rename(struct rule_ctx *ctx, const char *map_pointer,
		const char *old_key, const char *new_key)
{
	return emit(ctx, PATCH_MOVE, json_pointer_join(map_pointer, new_key),
		    json_pointer_join(map_pointer, old_key), NULL);
}

/*
 * When the mapping at `map_pointer` goes and it is the only member of a
 * pod template's metadata (not the object's own), the metadata goes too:
 * a CronJob whose template only held the affinity annotation keeps no
 * `metadata: {}`. Returns the pointer to remove (owned), NULL when out of
 * memory.
 */
static char *pruned_pointer(struct rule_ctx *ctx, const char *map_pointer)
{
	const char *slash = strrchr(map_pointer, '/');
	size_t len = slash ? (size_t)(slash - map_pointer) : 0;
	static const char tail[] = "/metadata";
	size_t tail_len = sizeof(tail) - 1;
	char *parent;
	json_t *meta;

	if (!slash || len <= tail_len ||
	    memcmp(map_pointer + len - tail_len, tail, tail_len) != 0)
		return strdup(map_pointer);
	if (!(parent = strndup(map_pointer, len)))
		return NULL;
	meta = json_pointer_get(ctx->root, parent);
	if (strcmp(parent, ctx->object_metadata) == 0 ||
	    !json_is_object(meta) || json_object_size(meta) != 1) {
		free(parent);
		return strdup(map_pointer);
	}
	return parent;
}

int rule_remove_key_pruned(struct rule_ctx *ctx, const char *map_pointer,
			   const char *key)
{
	json_t *map = json_pointer_get(ctx->root, map_pointer);

	if (json_is_object(map) && json_object_size(map) == 1 &&
	    json_member(map, key) && *map_pointer)
		return emit(ctx, PATCH_REMOVE, pruned_pointer(ctx, map_pointer),
			    NULL, NULL);
	return emit(ctx, PATCH_REMOVE, json_pointer_join(map_pointer, key),
		    NULL, NULL);
}

int rule_set_string(struct rule_ctx *ctx, const char *map_pointer,
		    const char *key, const char *value)
{
	json_t *map = json_pointer_get(ctx->root, map_pointer);
	json_t *current, *fresh;

	if (!json_is_object(map)) {
		fresh = json_object();
		if (!fresh || json_object_set_new(fresh, key,
						  json_text(value)) != 0) {
			json_decref(fresh);
			fail(ctx, map_pointer, "out of memory");
			return -1;
		}
		if (map)
			return rule_replace(ctx, map_pointer, fresh);
		return rule_add(ctx, map_pointer, fresh);
	}
	current = json_member(map, key);
	if (json_is_string(current) &&
	    strcmp(json_string_value(current), value) == 0)
		return 0;
	return emit(ctx, current ? PATCH_REPLACE : PATCH_ADD,
		    json_pointer_join(map_pointer, key), NULL,
		    json_text(value));
}

/* ------------------------------------------------------------------ */
/* Objects, opt-out, and the driver                                    */

static json_t *annotations_of(json_t *holder)
{
	return json_member(json_member(holder, "metadata"),
			   "annotations");
}

/* 1 when the comma-separated list `names` holds `name`. */
static int csv_has(const char *names, const char *name)
{
	size_t len = strlen(name);
	const char *p = names;

	while (*p) {
		const char *start, *end;

		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		start = p;
		while (*p && *p != ',')
			p++;
		end = p;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if ((size_t)(end - start) == len && !strncmp(start, name, len))
			return 1;
	}
	return 0;
}

/*
 * 1 when the opt-out annotations of `holder`'s metadata leave the rule
 * `rule` out: of the whole object, or of that rule. They are read into
 * `opt` once, until it is forgotten (opt_out_forget()). A rule in deny
 * mode is never left out while `deny_locked`: the author of an object
 * may opt out of a deny rule only in the namespaces the config names.
 */
static int opted_out(const struct config *cfg, struct opt_out *opt,
		     json_t *holder, enum rule_id rule, int deny_locked)
{
	if (deny_locked && cfg->mode[rule] == RULE_MODE_DENY)
		return 0;
	if (!opt->known) {
		json_t *annotations = annotations_of(holder);
		const char *skip = NULL;

		opt->rules = NULL;
		if (json_is_object(annotations)) {
			skip = json_string_value(json_member(
				annotations, cfg->skip_annotation));
			opt->rules = json_string_value(json_member(
				annotations, cfg->skip_rules_annotation));
		}
		opt->all = skip && strcmp(skip, "true") == 0;
		opt->known = 1;
	}
	return opt->all ||
	       (opt->rules && csv_has(opt->rules, rule_table[rule].name));
}

/* 1 when one of two JSON Pointers is the other or holds it. */
static int pointers_related(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (!*a && (!*b || *b == '/')) || (!*b && *a == '/');
}

/*
 * A pod spec found in the object. The spec and the mapping holding it are
 * kept as json too: rules change what is inside them, never replace them,
 * so they need not be looked up by pointer for every rule.
 */
struct pod_entry {
	char *pointer;
	char *metadata_pointer;   /* NULL: the pod has no metadata of its own */
	json_t *spec;             /* borrowed */
	json_t *holder;           /* the mapping holding the pod's metadata */
	const struct pod_form *form;
	/* where its placement is when its form has none (NULL: nowhere) */
	char *place_pointer;
	struct opt_out opt;       /* its metadata's opt-out annotations */
};

struct pod_list {
	struct pod_entry *pods;
	size_t n, cap;
	size_t n_shaped;          /* of them, found at a row's paths */
	json_t **shaped;          /* their specs, sorted by address */
};

/* The pod specs found in the current object so far (opt_out_forget()
 * reads each of them for every operation). */
static size_t pods_found(const struct rule_ctx *ctx)
{
	return ctx->pods_known ? ctx->pods->n : 0;
}

/*
 * Adds the pod spec `spec` of form `form` at `pointer`; `holder` is the
 * mapping that holds it (NULL: a list, or the root). The pod's metadata
 * is the spec's own "metadata" when its form says so, else the sibling of
 * a member named "spec".
 */
static int pod_list_add(struct pod_list *list, const char *pointer,
			json_t *spec, json_t *holder,
			const struct pod_form *form, const char *place_pointer)
{
	struct pod_entry *e;
	const char *slash = strrchr(pointer, '/');

	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 4;
		struct pod_entry *grown = realloc(list->pods,
						  cap * sizeof(*grown));

		if (!grown)
			return -1;
		list->pods = grown;
		list->cap = cap;
	}
	e = &list->pods[list->n];
	memset(e, 0, sizeof(*e));
	e->spec = spec;
	e->holder = holder;
	e->form = form;
	if (!(e->pointer = strdup(pointer)))
		return -1;
	if (place_pointer && !(e->place_pointer = strdup(place_pointer))) {
		free(e->pointer);
		return -1;
	}
	if (form->own_metadata) {
		e->holder = spec;
		if (!(e->metadata_pointer = json_pointer_join(pointer,
							      "metadata"))) {
			free(e->pointer);
			free(e->place_pointer);
			return -1;
		}
	} else if (holder && slash && strcmp(slash, "/spec") == 0) {
		size_t plen = (size_t)(slash - pointer);

		e->metadata_pointer = malloc(plen + sizeof("/metadata"));
		if (!e->metadata_pointer) {
			free(e->pointer);
			free(e->place_pointer);
			return -1;
		}
		memcpy(e->metadata_pointer, pointer, plen);
		strcpy(e->metadata_pointer + plen, "/metadata");
	}
	list->n++;
	return 0;
}

static void pod_list_clear(struct pod_list *list)
{
	for (size_t i = 0; i < list->n; i++) {
		free(list->pods[i].pointer);
		free(list->pods[i].metadata_pointer);
		free(list->pods[i].place_pointer);
	}
	free(list->pods);
	free(list->shaped);
	memset(list, 0, sizeof(*list));
}

/*
 * An operation changed what is at `path`: the opt-out annotations read
 * from a metadata it may have changed are read again when next needed.
 */
static void opt_out_forget(struct rule_ctx *ctx, const char *path)
{
	if (pointers_related(path, ctx->object_metadata))
		ctx->object_opt.known = 0;
	if (!ctx->pods_known)
		return;
	for (size_t i = 0; i < ctx->pods->n; i++) {
		struct pod_entry *e = &ctx->pods->pods[i];

		if (e->metadata_pointer &&
		    pointers_related(path, e->metadata_pointer))
			e->opt.known = 0;
	}
}

/* 1 when objects of the namespace `ns` (NULL: none) may opt out of
 * rules in deny mode. */
static int namespace_may_opt_out(const struct config *cfg, const char *ns)
{
	for (size_t i = 0; ns && i < cfg->deny_opt_out_namespaces.n; i++)
		if (strcmp(cfg->deny_opt_out_namespaces.items[i], ns) == 0)
			return 1;
	return 0;
}

/*
 * Target dra: once every rule has run, the whole-GPU counts they left
 * become claims, as a step of legacy-gpu-resource (its mode and
 * opt-outs), whose triggers then hold the GPU resource.
 */
static int run_dra(struct rule_ctx *ctx, const char *pointer)
{
	enum rule_id r = RULE_LEGACY_GPU_RESOURCE;

	if (ctx->cfg->target != RULES_TARGET_DRA ||
	    ctx->cfg->mode[r] == RULE_MODE_OFF)
		return 0;
	if ((ctx->opts->skip_rules >> r & 1) &&
	    (ctx->result->n_ops == 0 ||
	     (ctx->opts->triggers_in && !(added_rules(ctx) >> r & 1))))
		return 0;
	ctx->object = json_pointer_get(ctx->root, pointer);
	if (!json_is_object(ctx->object) ||
	    opted_out(ctx->cfg, &ctx->object_opt, ctx->object, r,
		      ctx->deny_locked))
		return 0;
	ctx->rule = r;
	if (rule_run_dra(ctx) != 0 || ctx->failed) {
		fail(ctx, pointer, "failed");
		return -1;
	}
	return 0;
}

static int run_object(struct rule_ctx *ctx, json_t *object,
		      const char *pointer)
{
	json_t *meta = json_member(object, "metadata");
	const char *ns = json_string_value(json_member(meta, "namespace"));
	size_t plen;

	ctx->object = object;
	ctx->object_pointer = pointer;
	ctx->pods_known = 0;
	ctx->object_opt.known = 0;
	/* the object pointers run_all() gives are short */
	plen = strlen(pointer);
	if (plen + sizeof("/metadata") > sizeof(ctx->object_metadata)) {
		fail(ctx, pointer, "pointer too long");
		return -1;
	}
	memcpy(ctx->object_metadata, pointer, plen);
	memcpy(ctx->object_metadata + plen, "/metadata", sizeof("/metadata"));
	ctx->namespace_name = ns ? ns : ctx->opts->namespace_name;
	ctx->deny_locked = !namespace_may_opt_out(ctx->cfg,
		ctx->opts->deny_namespace_from_request ?
		ctx->opts->namespace_name : ctx->namespace_name);
	for (int r = 0; r < RULE_COUNT; r++) {
		const struct rule_info *info = &rule_table[r];

		if (ctx->cfg->mode[r] == RULE_MODE_OFF ||
		    (info->offline_only && !ctx->opts->offline))
			continue;
		/* none of its triggers in the object as it came, nor in
		 * what operations added to it */
		if ((ctx->opts->skip_rules >> r & 1) &&
		    (ctx->result->n_ops == 0 ||
		     (ctx->opts->triggers_in && !(added_rules(ctx) >> r & 1))))
			continue;
		/* the object may have been changed by the previous rule */
		ctx->object = json_pointer_get(ctx->root, pointer);
		if (!json_is_object(ctx->object))
			return 0;
		if (opted_out(ctx->cfg, &ctx->object_opt, ctx->object, r,
			      ctx->deny_locked))
			continue;
		ctx->rule = (enum rule_id)r;
		if (rule_runs[r](ctx) != 0 || ctx->failed) {
			fail(ctx, pointer, "failed");
			return -1;
		}
	}
	return run_dra(ctx, pointer);
}

/* The items of `object` when it is a `kind: List`, else NULL. */
static json_t *list_items(const json_t *object)
{
	const char *kind = json_string_value(json_member(object, "kind"));
	json_t *items = json_member(object, "items");

	return kind && strcmp(kind, "List") == 0 && json_is_array(items) ?
	       items : NULL;
}

json_t *rules_object_at(json_t *root, const char *pointer)
{
	json_t *items = json_is_object(root) ? list_items(root) : NULL;
	json_t *item;
	char *end;
	unsigned long index;

	if (!json_is_object(root))
		return NULL;
	/* "/items/N" and what is under it: the N-th item, as run_all()
	 * reads it */
	if (!items || !pointer || strncmp(pointer, "/items/", 7) != 0 ||
	    pointer[7] < '0' || pointer[7] > '9')
		return root;
	index = strtoul(pointer + 7, &end, 10);
	if ((*end != '\0' && *end != '/') ||
	    !json_is_object(item = json_array_get(items, index)))
		return root;
	return item;
}

static int run_all(struct rule_ctx *ctx, json_t *object)
{
	json_t *items = list_items(object);

	if (items) {
		size_t n = json_array_size(items);

		for (size_t i = 0; i < n; i++) {
			char pointer[48];

			if (!json_is_object(json_array_get(items, i)))
				continue;
			snprintf(pointer, sizeof(pointer), "/items/%zu", i);
			if (run_object(ctx, json_array_get(items, i),
				       pointer) != 0)
				return -1;
		}
		return 0;
	}
	return run_object(ctx, object, "");
}

int rules_apply(const struct config *cfg, const struct rules_options *opts,
		json_t *object, struct rules_result *result,
		struct rules_error *err)
{
	static const struct rules_options defaults;
	struct pod_list pods = { 0 };
	struct rule_ctx ctx = {
		.cfg = cfg,
		.opts = opts ? opts : &defaults,
		.result = result,
		.root = object,
		.err = err,
		.pods = &pods,
	};
	int rc;

	if (!json_is_object(object))
		return 0;
	rc = run_all(&ctx, object);
	pod_list_clear(&pods);
	json_decref(ctx.list_templates);
	free(ctx.added_text);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Pod specs and containers                                            */

static int is_pod_spec(json_t *node)
{
	json_t *containers = json_member(node, "containers"), *item;
	size_t i;

	if (!json_is_array(containers) || json_array_size(containers) == 0)
		return 0;
	json_array_foreach(containers, i, item)
		if (!json_is_object(item))
			return 0;
	return 1;
}

/* The pointer being walked, built in place: no allocation per node. */
struct walk_path {
	char text[2048];
	size_t len;
};

/* Appends an escaped token; 0, or -1 when the path would not fit (the
 * subtree is then not searched: no pod spec lies that deep). */
static int walk_push(struct walk_path *w, const char *token)
{
	size_t len = w->len;

	if (len + 1 >= sizeof(w->text))
		return -1;
	w->text[len++] = '/';
	for (; *token; token++) {
		if (len + 3 >= sizeof(w->text))
			return -1;
		if (*token == '~' || *token == '/') {
			w->text[len++] = '~';
			w->text[len++] = *token == '~' ? '0' : '1';
		} else {
			w->text[len++] = *token;
		}
	}
	w->text[len] = '\0';
	w->len = len;
	return 0;
}

static int address_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(json_t *const *)a;
	uintptr_t y = (uintptr_t)*(json_t *const *)b;

	return x < y ? -1 : x > y;
}

/*
 * Sorts the specs of the pod specs of other forms found so far (all of
 * the list), for pod_list_has_shaped(): an object may hold thousands of
 * Argo templates, and the search for PodSpecs asks of each of its nodes.
 * 0, or -1 when out of memory.
 */
static int pod_list_sort_shaped(struct pod_list *list)
{
	list->n_shaped = list->n;
	if (!list->n)
		return 0;
	if (!(list->shaped = malloc(list->n * sizeof(*list->shaped))))
		return -1;
	for (size_t i = 0; i < list->n; i++)
		list->shaped[i] = list->pods[i].spec;
	qsort(list->shaped, list->n, sizeof(*list->shaped), address_cmp);
	return 0;
}

/* 1 when `node` is a pod spec of another form already found: its
 * containers are found through it, not again as a PodSpec. */
static int pod_list_has_shaped(const struct pod_list *list, json_t *node)
{
	return list->n_shaped &&
	       bsearch(&node, list->shaped, list->n_shaped,
		       sizeof(*list->shaped), address_cmp) != NULL;
}

/* 1 when `spec` holds a container of form `form`. */
static int form_has_container(const struct pod_form *form, json_t *spec)
{
	struct container_cursor cur = { 0, 0 };

	return pod_next_container(form, spec, &cur) != NULL;
}

/* A search of a row's path: where it is, what it finds, its form, and
 * the pointer of the placement of what it finds (NULL: none). */
struct shape_walk {
	struct walk_path *w;
	struct pod_list *list;
	const struct pod_form *form;
	struct rules_budget *budget;
	const char *place_pointer;
};

static int collect_shape_path(struct shape_walk *sw, json_t *node,
			      json_t *holder, const char *path);

/* collect_shape_path() of `child`, the member `token` of `holder` (NULL:
 * an element of a list), with its token on the pointer meanwhile. */
static int collect_shape_child(struct shape_walk *sw, json_t *child,
			       json_t *holder, const char *token,
			       const char *path)
{
	size_t saved = sw->w->len;
	int rc = 0;

	if (walk_push(sw->w, token) == 0)
		rc = collect_shape_path(sw, child, holder, path);
	sw->w->len = saved;
	sw->w->text[saved] = '\0';
	return rc;
}

/*
 * Adds the pod specs of form sw->form at `path` (the rest of a row's
 * path, "a.b.*.c") below `node`, whose pointer is in sw->w: the mappings
 * there that hold a container of that form.
 */
static int collect_shape_path(struct shape_walk *sw, json_t *node,
			      json_t *holder, const char *path)
{
	const char *dot = strchr(path, '.'), *rest, *key;
	size_t len = dot ? (size_t)(dot - path) : strlen(path);
	char token[64];
	json_t *child;
	size_t i;
	int rc = 0;

	if (rules_budget_spend(sw->budget, 1))
		return -1;
	if (!*path)
		return json_is_object(node) &&
		       form_has_container(sw->form, node) ?
		       pod_list_add(sw->list, sw->w->text, node, holder,
				    sw->form, sw->place_pointer) : 0;
	rest = dot ? dot + 1 : path + len;
	if (len == 1 && *path == '*') {
		/* the elements of a list, or the values of a mapping */
		json_array_foreach(node, i, child) {
			snprintf(token, sizeof(token), "%zu", i);
			if ((rc = collect_shape_child(sw, child, NULL, token,
						      rest)))
				return rc;
		}
		json_object_foreach(node, key, child)
			if ((rc = collect_shape_child(sw, child, node, key,
						      rest)))
				return rc;
		return 0;
	}
	if (len >= sizeof(token) || !json_is_object(node))
		return 0;
	memcpy(token, path, len);
	token[len] = '\0';
	child = json_object_get(node, token);
	return child ? collect_shape_child(sw, child, node, token, rest) : 0;
}

/* The API group of an apiVersion ("" for the core group's "v1"), in
 * out[0..size), and *version its version; -1 when there is none or it
 * does not fit. */
static int api_group(const char *api_version, char *out, size_t size,
		     const char **version)
{
	const char *slash = api_version ? strchr(api_version, '/') : NULL;
	size_t len = slash ? (size_t)(slash - api_version) : 0;

	if (!api_version || len >= size)
		return -1;
	memcpy(out, api_version, len);
	out[len] = '\0';
	*version = slash ? slash + 1 : api_version;
	return 0;
}

/*
 * The pointer of the row's placement path `path` ("a.b") in the object
 * at `object_pointer`, into out[0..size); "" when the row has none.
 */
static void place_pointer_of(char *out, size_t size,
			     const char *object_pointer, const char *path)
{
	int len;

	*out = '\0';
	if (!path)
		return;
	len = snprintf(out, size, "%s/%s", object_pointer, path);
	if (len < 0 || (size_t)len >= size) {
		*out = '\0';
		return;
	}
	for (char *c = out + strlen(object_pointer); *c; c++)
		if (*c == '.')
			*c = '/';
}

/* Adds the pod specs of other forms that the rows of the object's kind
 * place in it (rules/pod_shapes.c), to an empty list. */
static int collect_shaped_pod_specs(json_t *object, struct walk_path *w,
				    struct pod_list *list,
				    struct rules_budget *budget)
{
	const char *kind = json_string_value(json_member(object, "kind"));
	const struct pod_shape *shape;
	const char *version;
	char group[256], place[sizeof(w->text)];
	size_t from = 0;

	if (api_group(json_string_value(json_member(object, "apiVersion")),
		      group, sizeof(group), &version))
		return 0;
	while ((shape = pod_shape_next(group, version, kind, &from)) != NULL) {
		struct shape_walk sw = { w, list, shape->form, budget, NULL };

		size_t before = list->n;
		json_t *alone;

		place_pointer_of(place, sizeof(place), w->text,
				 shape->form->placement);
		if (*place)
			sw.place_pointer = place;

		for (size_t i = 0; i < sizeof(shape->paths) /
				       sizeof(*shape->paths) &&
				   shape->paths[i]; i++)
			if (collect_shape_path(&sw, object, NULL,
					       shape->paths[i]))
				return -1;
		/* a run of a task by reference: its placement alone */
		alone = *place && list->n == before ?
			json_pointer_get(object, place + strlen(w->text)) : NULL;
		if (json_is_object(alone) &&
		    pod_list_add(list, place, alone, NULL, &pod_form_placement,
				 NULL))
			return -1;
	}
	return pod_list_sort_shaped(list);
}

static int collect_pod_specs(json_t *node, json_t *holder,
			     struct walk_path *w, struct pod_list *list,
			     int depth, struct rules_budget *budget)
{
	size_t saved = w->len;
	const char *key;
	json_t *child;
	size_t i;
	int rc = 0;

	if (depth > 64)
		return 0;
	if (rules_budget_spend(budget, 1))
		return -1;
	if (json_is_object(node)) {
		if (pod_list_has_shaped(list, node))
			return 0;
		if (is_pod_spec(node))
			return pod_list_add(list, w->text, node, holder,
					    &pod_form_spec, NULL);
		json_object_foreach(node, key, child) {
			if (!json_is_object(child) && !json_is_array(child))
				continue;
			if (walk_push(w, key) == 0)
				rc = collect_pod_specs(child, node, w, list,
						       depth + 1, budget);
			w->len = saved;
			w->text[saved] = '\0';
			if (rc)
				return rc;
		}
	} else if (json_is_array(node)) {
		json_array_foreach(node, i, child) {
			char index[24], *d = index + sizeof(index);
			size_t n = i;

			if (!json_is_object(child) && !json_is_array(child))
				continue;
			/* the decimal index, without snprintf() */
			*--d = '\0';
			do
				*--d = (char)('0' + n % 10);
			while (n /= 10);
			if (walk_push(w, d) == 0)
				rc = collect_pod_specs(child, NULL, w, list,
						       depth + 1, budget);
			w->len = saved;
			w->text[saved] = '\0';
			if (rc)
				return rc;
		}
	}
	return 0;
}

/*
 * The pod specs of the current object, found once per object: rules add
 * and remove members inside pod specs and metadata, never move a pod spec,
 * so the pointers hold for every rule.
 */
static struct pod_list *object_pod_specs(struct rule_ctx *ctx)
{
	struct pod_list *list = ctx->pods;
	struct walk_path w;

	if (ctx->pods_known)
		return list;
	pod_list_clear(list);
	if (strlen(ctx->object_pointer) >= sizeof(w.text))
		return list;
	strcpy(w.text, ctx->object_pointer);
	w.len = strlen(w.text);
	/* the other forms first: the search for PodSpecs passes them over */
	if (collect_shaped_pod_specs(ctx->object, &w, list,
				     ctx->opts->budget) ||
	    collect_pod_specs(ctx->object, NULL, &w, list, 0,
			      ctx->opts->budget)) {
		pod_list_clear(list);
		return NULL;
	}
	ctx->pods_known = 1;
	return list;
}

int rule_for_each_pod_spec(struct rule_ctx *ctx, pod_spec_fn fn, void *arg)
{
	struct pod_list *list = object_pod_specs(ctx);

	if (!list) {
		if (rule_spend(ctx, 0) == 0)
			fail(ctx, ctx->object_pointer, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < list->n; i++) {
		struct pod_entry *e = &list->pods[i];
		struct pod_spec pod = { 0 };

		pod.spec = e->spec;
		pod.pointer = e->pointer;
		pod.metadata_pointer = e->metadata_pointer;
		pod.form = e->form;
		pod.place = pod.spec;
		pod.place_pointer = pod.pointer;
		if (e->form->placed_apart) {
			pod.place_pointer = e->place_pointer;
			pod.place = e->place_pointer ?
				    json_pointer_get(ctx->root,
						     e->place_pointer) : NULL;
			if (!json_is_object(pod.place))
				pod.place = NULL;
		}
		if (e->metadata_pointer) {
			/* a rule may have added the metadata since */
			pod.metadata = json_member(e->holder, "metadata");
			if (!json_is_object(pod.metadata))
				pod.metadata = NULL;
		}
		if (pod.metadata &&
		    opted_out(ctx->cfg, &e->opt, e->holder, ctx->rule,
			      ctx->deny_locked))
			continue;
		if (fn(ctx, &pod, arg))
			return -1;
	}
	return 0;
}

/* BASE/MEMBER, and /INDEX unless the member holds one container, into
 * out[0..size); -1 when it does not fit. */
static int pointer_of(char *out, size_t size, const char *base,
		      const struct container_member *m, size_t index)
{
	int len = m->single ?
		  snprintf(out, size, "%s/%s", base, m->path) :
		  snprintf(out, size, "%s/%s/%zu", base, m->path, index);

	return len < 0 || (size_t)len >= size ? -1 : 0;
}

char *container_pointer_new(const struct pod_spec *pod,
			    const struct container_member *m, size_t index)
{
	char pointer[2100];

	if (pointer_of(pointer, sizeof(pointer), pod->pointer, m, index))
		return NULL;
	return strdup(pointer);
}

int pod_for_each_container(struct rule_ctx *ctx, struct pod_spec *pod,
			   container_fn fn, void *arg)
{
	struct container_cursor cur = { 0, 0 };
	char pointer[2100];
	json_t *found;

	/* rules change what is inside a pod spec, never the spec itself, so
	 * its members are looked up in it afresh, not from the root */
	while ((found = pod_next_container(pod->form, pod->spec, &cur))) {
		const struct container_member *m =
			&pod->form->members[cur.member];
		struct container c;

		c.container = found;
		c.index = cur.index - 1;
		if (pointer_of(pointer, sizeof(pointer), pod->pointer, m,
			       c.index)) {
			fail(ctx, pod->pointer, "pointer too long");
			return -1;
		}
		c.pointer = pointer;
		c.list = m->path;
		c.single = m->single;
		c.resources = container_resources_name(found);
		if (rule_spend(ctx, 1) || fn(ctx, pod, &c, arg))
			return -1;
	}
	return 0;
}

int container_for_each_resource(struct rule_ctx *ctx, struct container *c,
				resource_fn fn, void *arg)
{
	json_t *resources = json_member(c->container, c->resources);
	const char *sections[] = { "limits", "requests" };

	for (int s = 0; s < 2; s++) {
		json_t *map = json_member(resources, sections[s]), *value;
		const char *name;
		int rc;

		json_object_foreach(map, name, value)
			if ((rc = fn(ctx, c, sections[s], name, value, arg)))
				return rc;
	}
	return 0;
}

char *container_resource_pointer_new(const struct container *c,
				     const char *section, const char *name)
{
	/* a container a rule made up may leave its member unset */
	char *resources = json_pointer_join(c->pointer, c->resources ?
					    c->resources : "resources");
	char *map = resources ? json_pointer_join(resources, section) : NULL;
	char *at = map ? json_pointer_join(map, name) : NULL;

	free(resources);
	free(map);
	return at;
}

const char *pod_annotation(struct rule_ctx *ctx, struct pod_spec *pod,
			   const char *key)
{
	json_t *value = NULL;

	if (pod->metadata)
		value = json_member(json_member(pod->metadata,
						"annotations"), key);
	if (!value)
		value = json_member(annotations_of(ctx->object), key);
	return json_string_value(value);
}

int pod_annotation_find(struct rule_ctx *ctx, struct pod_spec *pod,
			const char *key, json_t **value, char **pointer)
{
	json_t *annotations;
	char *p_meta = NULL, *p_annotations;

	*pointer = NULL;
	annotations = json_member(pod->metadata, "annotations");
	*value = json_member(annotations, key);
	if (*value) {
		p_annotations = json_pointer_join(pod->metadata_pointer,
						  "annotations");
	} else {
		*value = json_member(annotations_of(ctx->object), key);
		if (!*value)
			return 0;
		if (!(p_meta = json_pointer_join(ctx->object_pointer,
						 "metadata")))
			return -1;
		p_annotations = json_pointer_join(p_meta, "annotations");
		free(p_meta);
	}
	if (!p_annotations)
		return -1;
	*pointer = json_pointer_join(p_annotations, key);
	free(p_annotations);
	return *pointer ? 0 : -1;
}

/* 1 when `value` (of a resource in limits or requests) is not 0. */
static int asks_for(json_t *value)
{
	long long count;

	if (resource_count(value, &count) == 0)
		return count != 0;
	return 1; /* malformed counts still say the container wants a GPU */
}

static int same_name(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

int is_mig_resource(const char *name)
{
	size_t len = sizeof(MIG_RESOURCE_PREFIX) - 1;

	return name && strncmp(name, MIG_RESOURCE_PREFIX, len) == 0 &&
	       name[len];
}

/* 1 when `name` is a resource that asks for GPUs or GPU memory. */
static int is_gpu_resource(const struct config *cfg, const char *name)
{
	if (same_name(name, cfg->gpu_resource) ||
	    same_name(name, cfg->legacy_gpu_resource) ||
	    same_name(name, cfg->shared_gpu_resource) ||
	    same_name(name, cfg->gpu_memory_resource))
		return 1;
	for (size_t i = 0; i < cfg->n_memory_resources; i++)
		if (same_name(name, cfg->memory_resources[i].name))
			return 1;
	for (size_t i = 0; i < cfg->count_resources.n; i++)
		if (same_name(name, cfg->count_resources.items[i]))
			return 1;
	if (name && string_list_has(&cfg->compute_resources, name))
		return 1;
	for (size_t i = 0; i < cfg->vendor_gpu_resources.n; i++)
		if (same_name(name, cfg->vendor_gpu_resources.items[i]))
			return 1;
	return is_mig_resource(name);
}

const char *container_name(const struct pod_spec *pod,
			   const struct container *c)
{
	const char *name = json_string_value(json_member(c->container,
							"name"));

	return name || !c->single ? name : pod->form->single_name;
}

json_t *container_base(const struct rule_ctx *ctx, const struct pod_spec *pod,
		       const struct container *c)
{
	const char *base = NULL, *end;
	char *pointer;
	json_t *found;
	size_t len;

	for (size_t i = 0; i < sizeof(pod->form->bases) /
			       sizeof(pod->form->bases[0]) &&
			   pod->form->bases[i].member; i++)
		if (strcmp(pod->form->bases[i].member, c->list) == 0)
			base = pod->form->bases[i].base;
	if (!base || !pod->pointer)
		return NULL;
	/* "../" steps up from the spec: its pointer loses a token each */
	len = strlen(pod->pointer);
	for (; strncmp(base, "../", 3) == 0; base += 3) {
		end = pod->pointer + len;
		while (end > pod->pointer && end[-1] != '/')
			end--;
		if (end == pod->pointer)
			return NULL;
		len = (size_t)(end - 1 - pod->pointer);
	}
	pointer = malloc(len + strlen(base) + 2);
	if (!pointer)
		return NULL;
	memcpy(pointer, pod->pointer, len);
	pointer[len] = '/';
	strcpy(pointer + len + 1, base);
	found = json_pointer_get(ctx->root, pointer);
	free(pointer);
	return json_is_object(found) ? found : NULL;
}

const char *container_resources_name(json_t *container)
{
	if (!json_member(container, "resources") &&
	    json_member(container, "computeResources"))
		return "computeResources";
	return "resources";
}

json_t *container_resources(json_t *container)
{
	return json_member(container, container_resources_name(container));
}

int pod_place_make(struct rule_ctx *ctx, struct pod_spec *pod)
{
	char *at, *slash;
	json_t *value;

	if (!pod->place_pointer)
		return 1;
	pod->place = json_pointer_get(ctx->root, pod->place_pointer);
	if (json_is_object(pod->place))
		return 0;
	if (pod->place)
		return 1; /* a null or a scalar: nothing to write into */
	if (!(at = strdup(pod->place_pointer)))
		return -1;
	/* the first member on the way that is missing, with what it holds */
	value = json_object();
	while (value && (slash = strrchr(at, '/')) != NULL &&
	       slash > at + strlen(ctx->object_pointer) &&
	       (*slash = '\0', !json_is_object(json_pointer_get(ctx->root,
								at)))) {
		json_t *outer = json_object();

		if (!outer || json_object_set_new(outer, slash + 1, value)) {
			json_decref(outer);
			value = NULL;
			break;
		}
		value = outer;
	}
	if (!value || !slash) {
		json_decref(value);
		free(at);
		return -1;
	}
	*slash = '/';
	if (rule_add(ctx, at, value)) {
		free(at);
		return -1;
	}
	free(at);
	pod->place = json_pointer_get(ctx->root, pod->place_pointer);
	return json_is_object(pod->place) ? 0 : -1;
}

enum gpu_request_kind container_gpu_request_kind(const struct config *cfg,
						json_t *container)
{
	json_t *resources = container_resources(container);
	const char *sections[] = { "limits", "requests" };

	for (int s = 0; s < 2; s++) {
		json_t *map = json_member(resources, sections[s]), *value;
		const char *name;
		size_t len;

		/* by the map's few names, not a lookup of each GPU resource;
		 * a name holding NUL is none of them */
		json_object_keylen_foreach(map, name, len, value)
			if (strlen(name) == len && is_gpu_resource(cfg, name) &&
			    asks_for(value))
				return GPU_REQUEST_RESOURCE;
	}
	/*
	 * A DRA claim (resources.claims, naming one of the pod's
	 * resourceClaims) may hold a GPU: its device class is in a
	 * ResourceClaimTemplate or ResourceClaim, which neither a file nor
	 * an admission review carries, so every claim counts as one.
	 */
	if (json_array_size(json_member(resources, "claims")) > 0)
		return GPU_REQUEST_CLAIM;
	return GPU_REQUEST_NONE;
}

int rules_resources_request_gpu(const struct config *cfg, json_t *resources)
{
	json_t *container = json_pack("{s:O}", "resources", resources);
	int requests = container && container_requests_gpu(cfg, container);

	json_decref(container);
	return requests;
}

int container_requests_gpu(const struct config *cfg, json_t *container)
{
	return container_gpu_request_kind(cfg, container) != GPU_REQUEST_NONE;
}

enum gpu_request_kind pod_gpu_request_kind(const struct config *cfg,
					  const struct pod_spec *pod)
{
	enum gpu_request_kind most = GPU_REQUEST_NONE;
	struct container_cursor cur = { 0, 0 };
	json_t *c;

	while ((c = pod_next_container(pod->form, pod->spec, &cur))) {
		enum gpu_request_kind r = container_gpu_request_kind(cfg, c);

		if (r == GPU_REQUEST_RESOURCE)
			return r;
		if (r > most)
			most = r;
	}
	return most;
}

int pod_requests_gpu(const struct config *cfg, const struct pod_spec *pod)
{
	return pod_gpu_request_kind(cfg, pod) != GPU_REQUEST_NONE;
}

/* 1 when `name` is a legacy sharing resource: memory, count or compute. */
static int is_legacy_sharing_resource(const struct config *cfg,
				      const char *name)
{
	for (size_t i = 0; i < cfg->n_memory_resources; i++)
		if (same_name(name, cfg->memory_resources[i].name))
			return 1;
	return is_count_resource(cfg, name) ||
	       string_list_has(&cfg->compute_resources, name);
}

/* 1 when `name` is a resource that only a pod sharing a GPU asks for. */
static int is_sharing_resource(const struct config *cfg, const char *name)
{
	if (!same_name(cfg->shared_gpu_resource, cfg->gpu_resource) &&
	    same_name(name, cfg->shared_gpu_resource))
		return 1;
	return is_legacy_sharing_resource(cfg, name);
}

int selector_value_is(json_t *value, const char *want)
{
	if (json_is_boolean(value))
		return strcmp(json_is_true(value) ? "true" : "false", want) == 0;
	return same_name(json_string_value(value), want);
}

int pod_sharing_source(const struct config *cfg, struct pod_spec *pod,
		       struct sharing_source *src)
{
	json_t *labels = json_member(pod->metadata, "labels");
	json_t *selector = json_member(pod->place, "nodeSelector"), *c;
	struct container_cursor cur = { 0, 0 };

	*src = (struct sharing_source){ 0 };
	if (json_member(labels, cfg->sharing_label)) {
		src->label = cfg->sharing_label;
		return 1;
	}
	for (size_t i = 0; i < cfg->share_selectors.n; i++)
		if (selector_value_is(json_member(selector,
						  cfg->share_selectors.items[i].key),
				      cfg->share_selectors.items[i].value)) {
			src->selector = cfg->share_selectors.items[i].key;
			return 1;
		}
	while ((c = pod_next_container(pod->form, pod->spec, &cur))) {
		json_t *resources = container_resources(c);
		const char *sections[] = { "limits", "requests" };

		for (int s = 0; s < 2; s++) {
			json_t *map = json_member(resources, sections[s]);
			const char *name;
			json_t *value;

			json_object_foreach(map, name, value)
				if (is_sharing_resource(cfg, name) &&
				    asks_for(value)) {
					src->member =
						&pod->form->members[cur.member];
					src->index = cur.index - 1;
					src->section = sections[s];
					src->resource = name;
					return 1;
				}
		}
	}
	return 0;
}

int memory_record_find(const char *record, const char *name, char *out,
		       size_t size)
{
	size_t name_len = name ? strlen(name) : 0;
	const char *p = record;

	while (p && *p) {
		size_t len = strcspn(p, ",");
		const char *eq = memchr(p, '=', len), *v;
		size_t digits;

		if (eq && (size_t)(eq - p) == name_len && name_len &&
		    strncmp(p, name, name_len) == 0) {
			v = eq + 1;
			digits = strspn(v, "0123456789");
			/* "<N>Mi", N a whole number of MiB above 0 */
			if (digits == 0 || digits > 12 || v[0] == '0' ||
			    (size_t)(v - p) + digits + 2 != len ||
			    strncmp(v + digits, "Mi", 2) != 0 ||
			    digits + 3 > size)
				return 0;
			memcpy(out, v, digits + 2);
			out[digits + 2] = '\0';
			return 1;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* 1 when container `c` asks for a legacy GPU memory resource. */
static int container_asks_memory(const struct config *cfg, json_t *c)
{
	json_t *resources = json_member(c, "resources");
	const char *sections[] = { "limits", "requests" };

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < cfg->n_memory_resources; i++) {
			json_t *value = json_member(
				json_member(resources, sections[s]),
				cfg->memory_resources[i].name);

			if (value && asks_for(value))
				return 1;
		}
	return 0;
}

int pod_memory_known(const struct config *cfg, struct pod_spec *pod)
{
	const char *record = json_string_value(json_member(
		json_member(pod->metadata, "annotations"),
		cfg->memory_request_annotation));
	struct container_cursor cur = { 0, 0 };
	size_t asking = 0;
	json_t *c;

	if (cfg->strategy == SHARING_KEEP)
		return 0;
	while ((c = pod_next_container(pod->form, pod->spec, &cur))) {
		char mib[16];

		if (container_gpu_request_kind(cfg, c) != GPU_REQUEST_RESOURCE)
			continue;
		asking++;
		if (!container_asks_memory(cfg, c) &&
		    !memory_record_find(record, json_string_value(
				json_member(c, "name")), mib, sizeof(mib)))
			return 0;
	}
	return asking > 0 || (record && *record);
}

int pod_shares_gpu(const struct config *cfg, struct pod_spec *pod)
{
	struct sharing_source src;

	return pod_sharing_source(cfg, pod, &src);
}

int resource_is_migrated(const struct config *cfg, const char *name)
{
	return same_name(name, cfg->legacy_gpu_resource) ||
	       string_list_has(&cfg->vendor_gpu_resources, name) ||
	       is_legacy_sharing_resource(cfg, name);
}

int is_count_resource(const struct config *cfg, const char *name)
{
	return string_list_has(&cfg->count_resources, name) &&
	       !same_name(name, cfg->shared_gpu_resource);
}

const struct text_pair *pod_obsolete_component(const struct config *cfg,
					       const struct pod_spec *pod,
					       json_t **container)
{
	struct container_cursor cur = { 0, 0 };
	json_t *c;

	while ((c = pod_next_container(pod->form, pod->spec, &cur))) {
		const struct text_pair *component = text_map_match(
			&cfg->obsolete_components,
			json_string_value(json_member(c, "image")));

		if (component) {
			if (container)
				*container = c;
			return component;
		}
	}
	return NULL;
}

/* 1 when s[0..len) matches seg[0..len), where '?' is any byte. */
static int segment_at(const char *seg, size_t len, const char *s)
{
	for (size_t i = 0; i < len; i++)
		if (seg[i] != s[i] && seg[i] != '?')
			return 0;
	return 1;
}

/* The leftmost place in s[0..n) where seg[0..len) matches, or NULL. */
static const char *segment_find(const char *seg, size_t len, const char *s,
				size_t n)
{
	const char *end = s + n;

	if (!len || len > n)
		return len ? NULL : s;
	end -= len;     /* the last place it may start */
	while (s <= end) {
		if (*seg != '?' &&
		    !(s = memchr(s, *seg, (size_t)(end - s) + 1)))
			return NULL;
		if (segment_at(seg, len, s))
			return s;
		s++;
	}
	return NULL;
}

/* Brackets or escapes: what only fnmatch() itself reads. */
static inline int pattern_has_classes(const char *pattern)
{
	return strpbrk(pattern, "[\\") != NULL;
}

int pattern_match(const char *pattern, const char *s)
{
	const char *last = strrchr(pattern, '*'), *p;
	size_t n, len, tail;

	/* brackets and escapes: fnmatch() itself */
	if (pattern_has_classes(pattern))
		return fnmatch(pattern, s, 0) == 0;
	/*
	 * '*' and '?' on bytes, as fnmatch() in the C locale: the part
	 * before the first '*' starts the text, the part after the last
	 * one ends it, and each part between them is taken where it first
	 * matches in what is left, which leaves the most to the others.
	 */
	n = strlen(s);
	len = strcspn(pattern, "*");
	if (!last)
		return len == n && segment_at(pattern, len, s);
	tail = strlen(last + 1);
	if (len + tail > n || !segment_at(pattern, len, s) ||
	    !segment_at(last + 1, tail, s + n - tail))
		return 0;
	s += len;
	n -= len + tail;
	for (p = pattern + len + 1; p < last; p += len + 1) {
		const char *at;

		len = strcspn(p, "*");
		if (!(at = segment_find(p, len, s, n)))
			return 0;
		n -= (size_t)(at - s) + len;
		s = at + len;
	}
	return 1;
}

/* The class of the byte pair a, b: one of 64. */
static inline unsigned pair_class(unsigned char a, unsigned char b)
{
	return ((unsigned)a << 8 | b) * 0x9e3779b1u >> 26;
}

uint64_t pattern_pairs(const char *pattern)
{
	uint64_t set = 0;

	if (pattern_has_classes(pattern))
		return 0;
	for (const char *p = pattern; p[0] && p[1]; p++)
		if (p[0] != '*' && p[0] != '?' && p[1] != '*' && p[1] != '?')
			set |= (uint64_t)1 << pair_class((unsigned char)p[0],
							 (unsigned char)p[1]);
	return set;
}

uint64_t text_pairs(const char *s)
{
	uint64_t set = 0;

	for (; s[0] && s[1]; s++)
		set |= (uint64_t)1 << pair_class((unsigned char)s[0],
						 (unsigned char)s[1]);
	return set;
}

/*
 * The patterns[0..n) (their pairs in `pairs`, or NULL) that `s` matches:
 * the index of the first, or n. The text's pairs are counted once, when a
 * pattern has some.
 */
static size_t patterns_first_match(char *const *patterns, size_t stride,
				   const uint64_t *pairs, size_t n,
				   const char *s)
{
	uint64_t have = 0;
	int counted = 0;

	for (size_t i = 0; i < n; i++) {
		if (pairs && pairs[i]) {
			if (!counted) {
				have = text_pairs(s);
				counted = 1;
			}
			if (pairs[i] & ~have)
				continue;
		}
		if (pattern_match(*(char *const *)((const char *)patterns +
						   i * stride), s))
			return i;
	}
	return n;
}

int string_list_match(const struct string_list *patterns, const char *s)
{
	return s && patterns_first_match(patterns->items, sizeof(char *),
					 patterns->pairs, patterns->n, s) <
		    patterns->n;
}

const struct text_pair *text_map_match(const struct text_map *map,
				       const char *s)
{
	size_t i;

	if (!s || !map->n)
		return NULL;
	i = patterns_first_match(&map->items[0].key, sizeof(map->items[0]),
				 map->pairs, map->n, s);
	return i < map->n ? &map->items[i] : NULL;
}

int rule_image_is_stack_component(struct rule_ctx *ctx, const char *image)
{
	size_t len, n = ctx->n_stack_memo;
	struct stack_memo *m;
	int stack;

	if (!image)
		return 0;
	len = strlen(image);
	if (n > sizeof(ctx->stack_memo) / sizeof(ctx->stack_memo[0]))
		n = sizeof(ctx->stack_memo) / sizeof(ctx->stack_memo[0]);
	for (size_t i = 0; i < n; i++)
		if (ctx->stack_memo[i].len == len &&
		    memcmp(ctx->stack_memo[i].image, image, len) == 0)
			return ctx->stack_memo[i].stack;
	stack = image_is_stack_component(ctx->cfg, image);
	if (len < sizeof(m->image)) {
		m = &ctx->stack_memo[ctx->n_stack_memo++ %
				     (sizeof(ctx->stack_memo) /
				      sizeof(ctx->stack_memo[0]))];
		memcpy(m->image, image, len + 1);
		m->len = len;
		m->stack = stack;
	}
	return stack;
}

int image_is_stack_component(const struct config *cfg, const char *image)
{
	if (!image)
		return 0;
	return string_list_match(&cfg->stack_images, image) ||
	       text_map_match(&cfg->obsolete_components, image);
}
