/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rules_private.h - what the rule files share with the engine core.
 * Not for the front ends: they use rules.h only.
 */
#ifndef GPUMEND_RULES_PRIVATE_H
#define GPUMEND_RULES_PRIVATE_H

#include <string.h>

#include "ascii.h"
#include "rules.h"

/* json_string(s) without jansson's UTF-8 check when `s` is ASCII: the
 * same value (NULL for NULL), for less. */
static inline json_t *json_text(const char *s)
{
	size_t len;

	if (!s)
		return NULL;
	len = strlen(s);
	return ascii_span(s, len) == len ? json_stringn_nocheck(s, len) :
					   json_stringn(s, len);
}

/* What a rule sees while it runs over one object. */
struct rule_ctx {
	const struct config *cfg;
	const struct rules_options *opts;
	struct rules_result *result;
	json_t *root;               /* the whole document, rewritten in place */
	enum rule_id rule;          /* the rule now running */
	json_t *object;             /* the object now examined (root or List item) */
	const char *object_pointer; /* its pointer: "" for the root */
	const char *namespace_name; /* its namespace, or the request's, or NULL */
	int deny_locked;            /* its authors cannot opt out of deny rules */
	struct pod_list *pods;      /* the object's pod specs, found once */
	int pods_known;
	/* the object's metadata pointer, and what its opt-out annotations
	 * say, read once until an operation touches that metadata */
	char object_metadata[64];
	struct opt_out {
		int known;
		int all;                /* skip: "true" */
		const char *rules;      /* skip-rules, borrowed; NULL: none */
	} object_opt;
	int failed;                 /* an internal failure happened */
	unsigned added;             /* rules with a trigger an operation added */
	/*
	 * The keys and strings operations added since `added` was last
	 * brought up to date, each followed by a NUL (which no trigger has),
	 * searched at once when a skipped rule comes.
	 */
	char *added_text;
	size_t added_len, added_cap;
	int added_failed;           /* out of memory: every rule runs */
	struct rules_error *err;
	/* the last images rule_image_is_stack_component() judged */
	struct stack_memo {
		char image[128];
		size_t len;
		int stack;
	} stack_memo[4];
	unsigned n_stack_memo;
	/* target dra, in a List: its ResourceClaimTemplate items by
	 * namespace and name, found once (rules/dra.c); NULL before */
	json_t *list_templates;
};

/*
 * Where the containers of a pod spec are: a member below it, as JSON
 * Pointer tokens joined by '/' (none needs escaping), holding a list of
 * containers or one container.
 */
struct container_member {
	const char *path;           /* "containers", "containerSet/containers" */
	int single;                 /* 1: one container, not a list of them */
};

/*
 * The form of a pod spec: a PodSpec, or a mapping of another API that
 * plays its part (rules/pod_shapes.c). Its volumes are the spec's own
 * members, as in a PodSpec, and so is its placement (nodeSelector,
 * affinity, tolerations, schedulerName, priorityClassName) unless it is
 * `placed_apart` (struct pod_spec's `place`).
 */
struct pod_form {
	const char *name;                   /* "Argo template", for the docs */
	struct container_member members[14]; /* up to a NULL path */
	/*
	 * 0: the pod's metadata is the "metadata" beside a member named
	 * "spec" (a Pod's, a template's); 1: it is the spec's own "metadata"
	 * member (an Argo template's).
	 */
	int own_metadata;
	/*
	 * 0: the pod-level placement (nodeSelector, affinity, tolerations,
	 * schedulerName, priorityClassName) is the spec's own members; 1:
	 * the spec holds none (a Tekton task spec), and `placement` says
	 * where it is, from the object ("spec.podTemplate"; NULL: nowhere).
	 */
	int placed_apart;
	const char *placement;
	/*
	 * The container each container of `member` starts from, its own
	 * fields merged over it (container_base()): `base`, a pointer from
	 * the spec's, each leading "../" one step up from it ("stepTemplate":
	 * a Tekton step's; "../../templateDefaults/container": an Argo
	 * template's, from its workflow's templateDefaults). Up to a NULL
	 * member.
	 */
	struct {
		const char *member, *base;
	} bases[3];
	/*
	 * The name the controller gives the container of a single member
	 * that has none (an Argo template's "main", a KServe component's
	 * "kserve-container"; container_name()), or NULL.
	 */
	const char *single_name;
};

/* A PodSpec: containers, initContainers, ephemeralContainers. */
extern const struct pod_form pod_form_spec;
/* A run's placement alone (a TaskRun's podTemplate, with a taskRef). */
extern const struct pod_form pod_form_placement;

/*
 * The container member `path` of `spec` (a mapping), or NULL: the value
 * at the member's tokens, borrowed.
 */
json_t *pod_member_get(json_t *spec, const char *path);

/*
 * The next row of rules/pod_shapes.c, from row *from on, that places pod
 * specs of a form other than a PodSpec in objects of `group` (the API
 * group of their apiVersion, "" for the core group), `version` (its
 * version) and `kind`; *from is then past it. NULL when there is none
 * left.
 */
const struct pod_shape *pod_shape_next(const char *group, const char *version,
				       const char *kind, size_t *from);

/* Where pod_next_container() is: zero it to start. */
struct container_cursor {
	size_t member;
	size_t index;
};

/*
 * The next container (a mapping) of the pod spec `spec` of form `form`,
 * borrowed; the member and the index in it of the container returned are
 * cur->member and cur->index - 1. NULL after the last. Items that are no
 * mapping are passed over.
 */
json_t *pod_next_container(const struct pod_form *form, json_t *spec,
			   struct container_cursor *cur);

/*
 * A pod spec found in the object. Pointers are absolute (from the document
 * root). `metadata` is the pod's own metadata mapping (as `form` says: the
 * sibling "metadata" of a PodSpec, the Pod's or the template's), NULL when
 * absent; `metadata_pointer` is where it is or would be added.
 */
struct pod_spec {
	json_t *spec;
	const char *pointer;
	json_t *metadata;
	const char *metadata_pointer;
	const struct pod_form *form;
	/*
	 * The mapping of its pod-level placement (nodeSelector, affinity,
	 * tolerations, schedulerName, priorityClassName) and its pointer:
	 * the spec itself, or a mapping apart (a Tekton TaskRun's
	 * podTemplate; `place` NULL while it is not there). `place_pointer`
	 * is NULL when the pod has no placement it could be given: a change
	 * that needs one is then reported, never made.
	 */
	json_t *place;
	const char *place_pointer;
};

/* A container of a pod spec, from one of its form's members. */
struct container {
	json_t *container;
	const char *pointer;
	const char *list;           /* the member: "containers", "script", ... */
	size_t index;               /* 0 in a single-container member */
	int single;                 /* the member holds this one container */
	const char *resources;      /* container_resources_name(); NULL:
				       "resources" */
};

/*
 * The member of `container` holding its limits and requests:
 * "computeResources" when it has that and no "resources" (a Tekton v1
 * step or sidecar), else "resources".
 */
const char *container_resources_name(json_t *container);

/* The limits and requests of `container` (container_resources_name()),
 * borrowed, or NULL. */
json_t *container_resources(json_t *container);

/*
 * Makes sure `pod` has a placement mapping to write into: 0 when
 * pod->place is there or was added (and pod->place then points to it),
 * 1 when the pod has no placement it could be given (nothing is done:
 * the caller reports what it would have changed), -1 on failure.
 */
int pod_place_make(struct rule_ctx *ctx, struct pod_spec *pod);

typedef int (*rule_run_fn)(struct rule_ctx *ctx);
typedef int (*pod_spec_fn)(struct rule_ctx *ctx, struct pod_spec *pod, void *arg);
typedef int (*container_fn)(struct rule_ctx *ctx, struct pod_spec *pod,
			    struct container *c, void *arg);

/* One function per rule file, run once per object (see engine.c). */
int rule_run_deprecated_workload_api(struct rule_ctx *ctx);
int rule_run_dra_unsupported(struct rule_ctx *ctx);
int rule_run_legacy_gpu_resource(struct rule_ctx *ctx);
int rule_run_legacy_gpu_node_label(struct rule_ctx *ctx);
int rule_run_legacy_affinity_annotation(struct rule_ctx *ctx);
int rule_run_critical_pod_annotation(struct rule_ctx *ctx);
int rule_run_gpu_model_affinity(struct rule_ctx *ctx);
int rule_run_gpu_sharing(struct rule_ctx *ctx);
int rule_run_obsolete_cuda_hostpath(struct rule_ctx *ctx);
int rule_run_gpu_visibility(struct rule_ctx *ctx);
int rule_run_removed_gpu_feature_gate(struct rule_ctx *ctx);
int rule_run_obsolete_gpu_component(struct rule_ctx *ctx);
int rule_run_legacy_scheduler_config(struct rule_ctx *ctx);
int rule_run_invalid_resource(struct rule_ctx *ctx);
int rule_run_removed_api(struct rule_ctx *ctx);
/* Target dra, after every rule of an object, as legacy-gpu-resource:
 * whole-GPU counts become claims (rules/dra.c). */
int rule_run_dra(struct rule_ctx *ctx);

/*
 * Calls `fn` for every pod spec of the current object (any mapping holding
 * a "containers" sequence of mappings, and the pod specs of other forms
 * at the paths rules/pod_shapes.c gives for its kind), skipping pods
 * whose own metadata opts out of the running rule. The pod's json is looked up afresh before each
 * call, so `fn` may emit operations. Stops at the first -1 and returns it.
 */
int rule_for_each_pod_spec(struct rule_ctx *ctx, pod_spec_fn fn, void *arg);

/*
 * The pointer of the container at `index` of member `m` of `pod` (the
 * member's own pointer when it holds one container), new; NULL when out
 * of memory or too long.
 */
char *container_pointer_new(const struct pod_spec *pod,
			    const struct container_member *m, size_t index);

/* Calls `fn` for every container of every kind in `pod`. */
int pod_for_each_container(struct rule_ctx *ctx, struct pod_spec *pod,
			   container_fn fn, void *arg);

/*
 * One resource of container `c`: the member `name` (with `value`) of its
 * resources' `section`, "limits" or "requests".
 */
typedef int (*resource_fn)(struct rule_ctx *ctx, struct container *c,
			   const char *section, const char *name,
			   json_t *value, void *arg);

/* Calls `fn` for every resource of `c`, its limits first. Stops at the
 * first nonzero return of `fn` and returns it. */
int container_for_each_resource(struct rule_ctx *ctx, struct container *c,
				resource_fn fn, void *arg);

/* The pointer of the resource `name` of `c`'s `section`, new, or NULL
 * when out of memory. */
char *container_resource_pointer_new(const struct container *c,
				     const char *section, const char *name);

/*
 * Spends `steps` of the review's work budget (rules_options.budget);
 * 0, or -1 with the failure recorded once it is spent. Every loop whose
 * length the input decides spends from it.
 */
int rule_spend(struct rule_ctx *ctx, uint64_t steps);

/* 1 when the running rule may change the object (mode mutate, not
 * report-only). */
int rule_mutates(const struct rule_ctx *ctx);
/*
 * The JSON text `text` (NUL-terminated) read as json_loads(text, 0, err)
 * reads it, through rules_options.read_json when there is one. New
 * reference, or NULL with *err set.
 */
json_t *rule_json_read(struct rule_ctx *ctx, const char *text,
		       json_error_t *err);

/*
 * Records a finding of the running rule at `pointer`. The engine raises the
 * severity to error (and denies) when the rule is in deny mode. Returns 0 or
 * -1 when out of memory.
 */
int rule_report(struct rule_ctx *ctx, enum severity severity,
		const char *pointer, int fixed, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * Operations: each is recorded in the result and applied to the document at
 * once, so later rules (and later steps of the same rule) see the change.
 * Paths are absolute pointers. `value_new` is stolen, also on failure.
 * Return 0, or -1 when the operation does not apply (an internal error).
 */
int rule_add(struct rule_ctx *ctx, const char *path, json_t *value_new);
int rule_replace(struct rule_ctx *ctx, const char *path, json_t *value_new);
int rule_remove(struct rule_ctx *ctx, const char *path);
/* Renames key `old_key` of the mapping at `map_pointer` to `new_key`
 * (a move op); the value and its position are kept. */
int rule_rename(struct rule_ctx *ctx, const char *map_pointer,
		const char *old_key, const char *new_key);
/*
 * Removes the member `key` of the mapping at `map_pointer`; when that leaves
 * the mapping empty, removes the mapping itself from its parent instead, and
 * when that mapping was all of a pod template's metadata, the metadata.
 */
int rule_remove_key_pruned(struct rule_ctx *ctx, const char *map_pointer,
			   const char *key);

/*
 * Sets string `value` at mapping `map_pointer` member `key`, creating the
 * mapping (one level) when it does not exist. Used for labels and
 * annotations. No operation when it already holds that value.
 */
int rule_set_string(struct rule_ctx *ctx, const char *map_pointer,
		    const char *key, const char *value);

/*
 * Requires the node label `key` to be one of `values_new` (a JSON array of
 * strings, stolen) for `pod`: ANDs a matchExpression into every required
 * node selector term, creating affinity / nodeAffinity / the required
 * section / a term as needed.
 */
int pod_require_node_label(struct rule_ctx *ctx, struct pod_spec *pod,
			   const char *key, json_t *values_new);

/*
 * Node affinity: finding and translating requirements on a node label.
 * `affinity` is a value shaped like a PodSpec's "affinity" (the document's,
 * or a detached one such as a parsed annotation).
 */
typedef int (*node_requirement_fn)(json_t *requirement, const char *pointer,
				   void *arg);

/*
 * Calls `fn` for every node selector requirement on node label `label` in
 * the node affinity of `affinity`: the matchExpressions of each required
 * nodeSelectorTerm and of each preferred term's preference (never the pod
 * (anti-)affinity, whose expressions select pod labels). `pointer` is where
 * `affinity` is; `fn` gets the requirement (borrowed; it may change its
 * members but not the arrays that hold it) and the requirement's pointer.
 * Stops at the first nonzero return of `fn` and returns it; -1 when out of
 * memory.
 */
int affinity_for_each_node_requirement(json_t *affinity, const char *pointer,
				       const char *label,
				       node_requirement_fn fn, void *arg);

/*
 * Returns a new copy of `requirement` (a matchExpression on the legacy GPU
 * name label) translated for GPU Feature Discovery: key
 * cfg->gpu_product_label, each value gpu_name_normalize()d, followed by
 * their shared spellings (product_values_add_shared()). Returns NULL
 * with *bad set to 1 when `values` is not an array of strings (nothing to
 * translate safely), or with *bad 0 when out of memory.
 */
json_t *node_requirement_translate_new(const struct config *cfg, int shares,
				       json_t *requirement, int *bad);

/*
 * 1 when a pod that shares GPUs (`shares`, pod_shares_gpu()) runs on nodes
 * whose model GPU Feature Discovery labels with cfg->shared_product_suffix
 * ("Tesla-T4-SHARED"): time-slicing or MPS without renaming the shared
 * resource (sharedGPU is the plain GPU resource; internal/lm/resource.go
 * of NVIDIA/k8s-device-plugin). A pod that does not share keeps the plain
 * spelling: it had a GPU of its own, and so it stays off shared nodes.
 */
int product_label_drifts(const struct config *cfg, int shares);

/*
 * When product_label_drifts(cfg, shares), appends to `values` (an array of model
 * label values) each value with the suffix, unless it is there, already
 * ends with it, or would be too long a label value; so that a requirement
 * on the model matches both spellings. 0, or -1 when out of memory.
 */
int product_values_add_shared(const struct config *cfg, int shares,
			      json_t *values);

/*
 * For a pod that shares GPUs, when product_label_drifts(): adds the shared
 * spellings to every In or NotIn requirement on cfg->gpu_product_label in
 * its node affinity, and moves a nodeSelector on that label to required
 * node affinity naming both spellings; each change is reported. Used on
 * pods that gpumend migrated when it asked for a renamed shared resource.
 * 0, or -1 when out of memory.
 */
int pod_product_add_shared(struct rule_ctx *ctx, struct pod_spec *pod);

/* What affinity_translate_gpu_name() did. */
struct affinity_translation {
	const struct config *cfg;   /* set by the caller */
	int shares;                 /* set by the caller: pod_shares_gpu() */
	int translated;             /* requirements translated */
	int bad;                    /* requirements left as they were */
};

/*
 * Translates, in place, every requirement on cfg->legacy_gpu_name_label in
 * the node affinity of the detached value `affinity` (see
 * node_requirement_translate_new()); requirements with bad values are left
 * as they are and counted in t->bad. Returns 0, or -1 when out of memory.
 */
int affinity_translate_gpu_name(json_t *affinity,
				struct affinity_translation *t);

/* 1 when `pod` already constrains node label `key`: in nodeSelector or in a
 * matchExpression of a required node selector term. */
int pod_constrains_node_label(struct pod_spec *pod, const char *key);

/* The annotation `key` of `pod` (its own metadata, else the object's), as a
 * borrowed string, or NULL. */
const char *pod_annotation(struct rule_ctx *ctx, struct pod_spec *pod,
			   const char *key);

/*
 * Finds the annotation `key` as pod_annotation() does (the pod's own
 * metadata, else the object's): its value, borrowed, in *value (NULL when
 * absent), and its pointer, new, in *pointer (NULL when absent). 0, or -1
 * when out of memory.
 */
int pod_annotation_find(struct rule_ctx *ctx, struct pod_spec *pod,
			const char *key, json_t **value, char **pointer);

/*
 * The device plugin's MIG devices under its mixed strategy:
 * nvidia.com/mig-1g.5gb and the like.
 */
#define MIG_RESOURCE_PREFIX "nvidia.com/mig-"

/* 1 when `name` is a MIG device resource: MIG_RESOURCE_PREFIX and a
 * profile. */
int is_mig_resource(const char *name);

/*
 * The name of container `c` of `pod`: its `name`, else, for the one
 * container of a single member, the form's `single_name`, else NULL.
 */
const char *container_name(const struct pod_spec *pod,
			   const struct container *c);

/*
 * The container `c` of `pod` starts from (struct pod_form's `bases`), or
 * NULL: a Tekton step's stepTemplate, an Argo template's defaults.
 */
json_t *container_base(const struct rule_ctx *ctx, const struct pod_spec *pod,
		       const struct container *c);

/*
 * 1 when the container asks for a GPU: the GPU resource, the legacy one,
 * the shared one, a legacy sharing resource, a vendor whole-GPU resource,
 * a MIG device or the hami memory resource, in limits or requests, with a
 * value other than 0; or any DRA claim in resources.claims, whose device
 * class cannot be seen from the pod.
 */
int container_requests_gpu(const struct config *cfg, json_t *container);

/* How a container asks for its GPU: a resource wins over a claim. */
enum gpu_request_kind {
	GPU_REQUEST_NONE,
	GPU_REQUEST_CLAIM,      /* a DRA claim, and no GPU resource */
	GPU_REQUEST_RESOURCE,   /* a GPU resource, as container_requests_gpu() */
};

/* container_requests_gpu(), saying through what. */
enum gpu_request_kind container_gpu_request_kind(const struct config *cfg,
						json_t *container);

/* The most of container_gpu_request_kind() over the containers of `pod`. */
enum gpu_request_kind pod_gpu_request_kind(const struct config *cfg,
					  const struct pod_spec *pod);

/*
 * 1 when `name` is a resource that legacy-gpu-resource or gpu-sharing
 * migrates away: the legacy GPU resource, a vendor's whole-GPU resource,
 * a legacy memory, count or compute sharing resource.
 */
int resource_is_migrated(const struct config *cfg, const char *name);

/* 1 when any container of the pod asks for a GPU. */
int pod_requests_gpu(const struct config *cfg, const struct pod_spec *pod);

/* 1 when the node selector value `value` is the text `want`; a YAML
 * boolean reads as "true" or "false". */
int selector_value_is(json_t *value, const char *want);

/*
 * 1 when `pod` shares a GPU, before or after gpu-sharing migrates it: a
 * container asks for a legacy sharing resource (memory or count) or for a
 * shared GPU resource other than the plain one, the pod has a legacy
 * sharing node selector, or it carries gpumend's sharing label.
 */
int pod_shares_gpu(const struct config *cfg, struct pod_spec *pod);

/* What makes a pod share a GPU: one of the three, the others NULL. */
struct sharing_source {
	const char *label;      /* gpumend's sharing label, its key */
	const char *selector;   /* a legacy sharing node selector, its key */
	const char *resource;   /* a sharing resource, its name, ... */
	const struct container_member *member; /* ... in this member, */
	size_t index;           /* at this index (0 in a single one), */
	const char *section;    /* in "limits" or "requests" */
};

/*
 * pod_shares_gpu(), saying why in *src (borrowed strings, valid while
 * the pod and cfg are): the label first, then the selectors, then the
 * first sharing resource. 1 when the pod shares a GPU, else 0.
 */
int pod_sharing_source(const struct config *cfg, struct pod_spec *pod,
		       struct sharing_source *src);

/*
 * The memory that gpu-sharing recorded for container `name` in `record`
 * (the value of cfg->memory_request_annotation, "NAME=<N>Mi,..."), as
 * the quantity "<N>Mi" in `out`: 1, or 0 when it holds none for it (or
 * `record` is NULL, or the entry is not whole MiB).
 */
int memory_record_find(const char *record, const char *name, char *out,
		       size_t size);

/*
 * 1 when the GPU memory of every container of `pod` that asks for a GPU
 * is known: from a legacy memory resource, or from the pod's memory
 * annotation; a pod whose GPUs are all claims already counts when it
 * carries the annotation. 0 under sharing strategy keep (nothing is
 * translated). Target dra with dra.consumableCapacity: what becomes a
 * capacity request.
 */
int pod_memory_known(const struct config *cfg, struct pod_spec *pod);

/*
 * The entry of cfg->obsolete_components whose pattern the image of a
 * container of `pod` matches (the first such container, set in
 * *container when `container` is not NULL), or NULL when no container is
 * a legacy stack's own component. Such a pod is to be removed, never
 * placed on the new stack's nodes.
 */
const struct text_pair *pod_obsolete_component(const struct config *cfg,
					       const struct pod_spec *pod,
					       json_t **container);

/*
 * 1 when `image` is one of the GPU stack's own components, which need every
 * GPU of the node and the driver: today's (cfg->stack_images) or a legacy
 * one (cfg->obsolete_components). NULL matches nothing.
 */
int image_is_stack_component(const struct config *cfg, const char *image);

/* image_is_stack_component() with ctx->cfg, remembered for the last few
 * images of the run: rules ask it again of the same containers. */
int rule_image_is_stack_component(struct rule_ctx *ctx, const char *image);

/*
 * 1 when `name` is a legacy count of shared GPUs (cfg->count_resources)
 * that is not the configured shared GPU resource: the list's default
 * holds nvidia.com/gpu.shared, gpumend's own old target, which is the
 * target again where the device plugin renames shared GPUs.
 */
int is_count_resource(const struct config *cfg, const char *name);

/* 1 when `list` holds the string `s`. */
int string_list_has(const struct string_list *list, const char *s);

/*
 * 1 when `s` matches the fnmatch(3) pattern `pattern` with flags 0, as
 * fnmatch() does in the C locale the programs run in ('*' and '?' also
 * match '/'), without fnmatch() when the pattern has no '[' or '\\'.
 */
int pattern_match(const char *pattern, const char *s);

/*
 * The byte pairs that every text the fnmatch(3) pattern matches holds, as
 * a set of 64 classes (text_pairs()): those inside its literal parts. 0
 * (no filter) for a pattern with '[' or '\\'. A text whose set lacks one
 * of them cannot match: most patterns are ruled out by an AND.
 */
uint64_t pattern_pairs(const char *pattern);
/* The classes of the byte pairs of `s`, as pattern_pairs() counts them. */
uint64_t text_pairs(const char *s);

/*
 * 1 when `s` matches one of the fnmatch(3) patterns of `patterns` (flags 0:
 * '*' also matches '/'). NULL `s` matches nothing.
 */
int string_list_match(const struct string_list *patterns, const char *s);

/* The first item of `map` whose key, an fnmatch(3) pattern as
 * string_list_match() reads it, `s` matches; NULL when none does. */
const struct text_pair *text_map_match(const struct text_map *map,
				       const char *s);

/*
 * Reads a resource value (a JSON integer, or a string quantity) as an
 * integer count. Returns 0 and sets *count, or -1 when it is not a whole,
 * non-negative number.
 */
int resource_count(json_t *value, long long *count);

/* ------------------------------------------------------------------ */
/* CEL text, for the webhook's match conditions (rules/conditions.c)   */

/*
 * A CEL expression being written. Out of memory sets `failed` and drops
 * what follows; the writer checks it once, at the end.
 */
struct cel_text {
	char *s;
	size_t len, cap;
	int failed;
};

void cel_add(struct cel_text *t, const char *text);
void cel_addf(struct cel_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* `s` as a CEL string literal in single quotes. */
void cel_quote(struct cel_text *t, const char *s);
/* The items of `list` as a CEL list of string literals. */
void cel_quote_list(struct cel_text *t, const struct string_list *list);
/* " || " unless `t` is empty: before the next disjunct. */
void cel_or(struct cel_text *t);
void cel_text_free(struct cel_text *t);

/*
 * What a rule's CEL fragment may read: `p.m` (the pod's metadata, {} when
 * the pod spec has none), `p.s` (the pod spec), `request`, and in
 * container fragments `c` (one container, a map: entry_fragments() tests
 * it). CEL_CONTAINERS is the list of every container of `p.s` (a member
 * that is no list holds none): `p.c` when the pod spec is of another form
 * than a PodSpec (pod_shapes_cel()), else its three lists.
 */
#define CEL_CONTAINERS \
	"(has(p.c) ? p.c : " \
	"(has(p.s.containers) && type(p.s.containers) == list ? " \
	"p.s.containers : []) + " \
	"(has(p.s.initContainers) && type(p.s.initContainers) == list ? " \
	"p.s.initContainers : []) + " \
	"(has(p.s.ephemeralContainers) && " \
	"type(p.s.ephemeralContainers) == list ? p.s.ephemeralContainers : []))"

/*
 * A rule's fragment: disjuncts over one pod (`pod`) and over one of its
 * containers (`container`). A rule has up to two parts that the entries
 * may split: CEL_PART_CORE, and CEL_PART_EXTRA (gpu-sharing's stale
 * annotations and variables, obsolete-cuda-hostpath's ambiguous host
 * paths: they run anyway).
 */
enum cel_part { CEL_PART_CORE, CEL_PART_EXTRA, CEL_PART_COUNT };

struct cel_frag {
	struct cel_text pod;
	struct cel_text container;
};

/*
 * Appends to `out` the disjuncts of `rule`'s `part` under `cfg`: at least
 * one is true on every pod on which that part could report or change
 * anything (rules/triggers.c, next to each rule's triggers). Returns 1
 * when the rule has no such part, else 0.
 */
int rules_rule_cel(const struct config *cfg, enum rule_id rule,
		   enum cel_part part, struct cel_frag *out);

/*
 * Appends to `t` a CEL list of {'m': metadata, 's': pod spec} maps, one
 * per pod spec of the request's object, by the request's resource
 * (rules/pod_shapes.c).
 */
void pod_shapes_cel(const struct config *cfg, struct cel_text *t);

#endif
