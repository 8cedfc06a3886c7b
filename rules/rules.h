/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rules.h - the gpumend rule engine.
 *
 * The engine is pure C over jansson: it performs no I/O and knows nothing of
 * HTTP, TLS or YAML. Given a Kubernetes object as a json_t and a
 * configuration, it rewrites the object through an ordered list of RFC 6902
 * operations and reports findings. The operations are the only way a rule
 * changes anything: the webhook serialises them as its JSON Patch, the CLI
 * turns them into text edits of the source file.
 */
#ifndef GPUMEND_RULES_H
#define GPUMEND_RULES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <jansson.h>

/*
 * GPUMEND_VERSION (the release, "0.2.0") and GPUMEND_REVISION (the commit,
 * "abc1234", or "unknown") are not defined here: the Makefile passes them
 * (-D), from the VERSION file and git or the REVISION file, so that the
 * version is kept in one place.
 */

/*
 * Rules, in the order the engine runs them. The order matters:
 * deprecated-workload-api derives selectors from the template labels before
 * gpu-sharing adds its own label; the label translation runs before the
 * rules that look for gpu.product constraints; dra-unsupported reads the
 * pods before any rule has changed them.
 */
enum rule_id {
	RULE_DEPRECATED_WORKLOAD_API,
	RULE_DRA_UNSUPPORTED,
	RULE_LEGACY_GPU_RESOURCE,
	RULE_LEGACY_GPU_NODE_LABEL,
	RULE_LEGACY_AFFINITY_ANNOTATION,
	RULE_CRITICAL_POD_ANNOTATION,
	RULE_GPU_MODEL_AFFINITY,
	RULE_GPU_SHARING,
	RULE_OBSOLETE_CUDA_HOSTPATH,
	RULE_GPU_VISIBILITY,
	RULE_REMOVED_GPU_FEATURE_GATE,
	RULE_OBSOLETE_GPU_COMPONENT,
	RULE_LEGACY_SCHEDULER_CONFIG,
	RULE_INVALID_RESOURCE,
	RULE_REMOVED_API,
	RULE_COUNT
};

enum rule_mode { RULE_MODE_OFF, RULE_MODE_WARN, RULE_MODE_DENY, RULE_MODE_MUTATE };

enum severity { SEVERITY_INFO, SEVERITY_WARNING, SEVERITY_ERROR };

enum sharing_strategy {
	SHARING_TIME_SLICING,
	SHARING_MPS,
	SHARING_HAMI,
	SHARING_KEEP
};

/* Static description of a rule, for `gpumend rules` and the config. */
struct rule_info {
	enum rule_id id;
	const char *name;          /* stable id, e.g. "legacy-gpu-resource" */
	enum rule_mode default_mode;
	int can_mutate;            /* 0 for lint-only rules */
	int offline_only;          /* 1 when the webhook never runs it */
	const char *summary;       /* one line for `gpumend rules` */
};

/* The table of all rules, indexed by enum rule_id. */
const struct rule_info *rule_info_get(enum rule_id id);
/* Look a rule up by its id string; returns NULL when unknown. */
const struct rule_info *rule_info_find(const char *name);

/*
 * One example of a rule: a manifest it finds something in (`before`;
 * `options` are what `gpumend lint` needs to see it, such as "--target
 * dra", or NULL) and the same fixed (`after`): what `gpumend migrate`
 * writes when the rule changes it by default, else the fix a person (or
 * the rule in mutate mode) makes. Whole YAML documents.
 */
struct rule_example {
	const char *options;
	const char *before;
	const char *after;
};

/*
 * A rule explained for people: what it finds and why that matters
 * (`description`), what fixes it (`fix`), in sentences; `tags` is a
 * comma-separated list of words for grouping rules; `config` the
 * settings of the config file that shape what it finds and does, its
 * own rules.ID.mode aside: comma-separated dotted paths
 * ("resources.legacyGPU"), "" when none. Static strings.
 */
struct rule_help {
	const char *description;
	const char *fix;
	const char *tags;
	const char *config;
	struct rule_example example;
};
/* The help of rule `id`, or NULL when there is no such rule. */
const struct rule_help *rule_help_get(enum rule_id id);

const char *rule_mode_name(enum rule_mode mode);
const char *severity_name(enum severity severity);
const char *sharing_strategy_name(enum sharing_strategy strategy);

/*
 * What whole-GPU requests are migrated to: the device plugin's extended
 * resource (nvidia.com/gpu), or Dynamic Resource Allocation claims
 * (resource.k8s.io/v1 ResourceClaimTemplates of NVIDIA's DRA driver),
 * which only the offline front ends (`gpumend migrate`, `lint`) take.
 */
enum rules_target { RULES_TARGET_DEVICE_PLUGIN, RULES_TARGET_DRA };

/* "device-plugin", "dra". */
const char *rules_target_name(enum rules_target target);
/* The target of that name; -1 when none. */
int rules_target_find(const char *name);

/* ------------------------------------------------------------------ */
/* Configuration                                                       */

struct string_list {
	char **items;
	size_t n;
	/* NULL, or for each item read as an fnmatch(3) pattern, the byte
	 * pairs every text it matches holds (pattern_pairs()): set by the
	 * config for its pattern lists when it is made; whoever changes
	 * the items after must free them and leave NULL (as
	 * string_list_clear() does) */
	uint64_t *pairs;
};

/* A legacy shared-GPU memory resource and the size of its unit in MiB. */
struct memory_resource {
	char *name;
	long long unit_mib;        /* 1024 for GiB, 1 for MiB, 256 for 256MiB */
};

/* One entry of a mapping of strings in the config. */
struct text_pair {
	char *key;
	char *value;
};

/* A mapping of strings in the config, in file order. */
struct text_map {
	struct text_pair *items;
	size_t n;
	uint64_t *pairs;           /* of the keys, as string_list.pairs */
};

/*
 * A custom resource the webhook is registered for (webhook.customResources),
 * and the paths of its pod specs: dotted member names, "*" standing for
 * every element of a list or every value of a mapping (at most one "*"
 * per path), e.g. "spec.workers.*.template.spec".
 */
struct custom_resource {
	char *group;
	struct string_list resources;   /* plural names, e.g. "trainjobs" */
	struct string_list pod_specs;
};

/* GPU models that pods of one namespace must run on. */
struct namespace_models {
	char *namespace_name;
	struct string_list models;
};

struct config {
	enum rule_mode mode[RULE_COUNT];
	enum rules_target target;       /* device-plugin unless set */
	/* target dra: the DeviceClass of whole GPUs (gpu.nvidia.com) */
	char *dra_device_class;
	/* target dra: sharing pods whose GPU memory is known become claims
	 * with a capacity request (Kubernetes 1.36's consumable capacity) */
	int dra_consumable_capacity;

	/* resource names */
	char *legacy_gpu_resource;    /* alpha.kubernetes.io/nvidia-gpu */
	char *gpu_resource;           /* nvidia.com/gpu */
	char *shared_gpu_resource;    /* nvidia.com/gpu.shared (or nvidia.com/gpu) */
	char *gpu_memory_resource;    /* nvidia.com/gpumem, for hami */
	/* vendor forks' resources that count whole GPUs (aliyun.com/gpu) */
	struct string_list vendor_gpu_resources;

	/* node labels */
	char *legacy_gpu_name_label;  /* alpha.kubernetes.io/nvidia-gpu-name */
	char *gpu_product_label;      /* nvidia.com/gpu.product */
	char *sharing_strategy_label; /* nvidia.com/gpu.sharing-strategy */
	char *gpu_present_label;      /* nvidia.com/gpu.present */
	/* what GPU Feature Discovery appends to gpu.product on nodes that
	 * share GPUs without renaming them ("-SHARED") */
	char *shared_product_suffix;

	/* gpu-sharing */
	enum sharing_strategy strategy;
	struct memory_resource *memory_resources;
	size_t n_memory_resources;
	struct string_list count_resources;     /* volcano.sh/gpu-number */
	/* percent of one GPU's compute, 100 a whole GPU: tencent.com/vcuda-core */
	struct string_list compute_resources;
	/* node selector labels (key: value) that marked legacy sharing
	 * nodes: gpushare: "true", ... */
	struct text_map share_selectors;
	struct string_list share_schedulers;    /* rancher-gpushare-scheduler */
	struct string_list stale_annotation_prefixes; /* ALIYUN_COM_GPU_MEM_ */
	char *sharing_label;                    /* gpumend.io/gpu-sharing */
	char *memory_request_annotation;        /* gpumend.io/gpu-memory-request */
	/* the most memory a GPU has, in GiB: larger values of a GiB resource
	 * are read as MiB, larger sizes are refused */
	int max_gpu_memory_gib;

	/* obsolete-cuda-hostpath: fnmatch(3) patterns on hostPath.path */
	struct string_list obsolete_host_paths;
	/* host paths only warned about when mounted under ambiguous_mount_paths */
	struct string_list ambiguous_host_paths;
	struct string_list ambiguous_mount_paths;
	/* where a platform installs the driver today (GKE's
	 * /home/kubernetes/bin/nvidia): the device plugin mounts it into GPU
	 * containers, so only their hand mounts under ambiguous_mount_paths
	 * are legacy */
	struct string_list vendor_driver_dirs;

	/* gpu-visibility: fnmatch(3) patterns on container images */
	struct string_list gpu_images;
	/* the GPU stack's own components, which need every GPU of the node:
	 * gpu-visibility and obsolete-cuda-hostpath leave them alone */
	struct string_list stack_images;

	/* obsolete-gpu-component: an fnmatch(3) pattern on the image of each
	 * obsolete component (key), and what to do instead (value) */
	struct text_map obsolete_components;

	/* critical-pod-annotation: the PriorityClass of DaemonSet pods, and of
	 * the others */
	char *daemonset_priority_class;         /* system-node-critical */
	char *default_priority_class;           /* system-cluster-critical */

	/* gpu-model-affinity */
	char *models_annotation;                /* gpumend.io/gpu-models */
	struct namespace_models *namespace_models;
	size_t n_namespace_models;

	/* opt-out and bookkeeping annotations */
	char *skip_annotation;                  /* gpumend.io/skip */
	char *skip_rules_annotation;            /* gpumend.io/skip-rules */
	char *mutations_annotation;             /* gpumend.io/mutations (webhook) */
	/* namespaces whose objects may opt out of deny-mode rules */
	struct string_list deny_opt_out_namespaces;

	/* input limits, enforced by the front ends */
	size_t max_document_bytes;
	int max_depth;
	size_t max_alias_nodes;
	/* JSON values a review may hold (webhook, `gpumend review`): past
	 * it, the review is answered as an internal failure */
	size_t max_values;
	/* the most steps (struct rules_budget) one review may take */
	size_t max_review_steps;

	/* webhook: answer to an internal failure on plain /mutate (the entry
	 * paths of gpumend webhook-config answer as their entry's
	 * failurePolicy): 1 allow with a warning, 0 deny */
	int failure_allow;
	/* webhook: the registration's timeoutSeconds, 1 to 30 */
	int timeout_seconds;
	/* webhook: custom resources registered besides the built-in ones */
	struct custom_resource *custom_resources;
	size_t n_custom_resources;
};

/* Error detail: the JSON Pointer of the offending value and a message. */
struct rules_error {
	char pointer[512];
	char message[512];
	/* config_apply(): 1 when the error is the member's key itself (an
	 * unknown key), 0 when it is its value */
	int at_key;
};

/*
 * Returns a new configuration holding every built-in default, or NULL when
 * out of memory. Free it with config_free().
 */
struct config *config_new_default(void);

/*
 * Applies the settings present in `doc` (a parsed config file) on top of
 * `cfg`. Unknown keys and bad values fail with -1, `cfg` left as it was, and
 * `err` naming the JSON Pointer of the offending key or value. Returns 0.
 */
int config_apply(struct config *cfg, json_t *doc, struct rules_error *err);

/* Frees a configuration; accepts NULL. */
void config_free(struct config *cfg);

/*
 * The default configuration as a commented YAML file, exactly what
 * `gpumend config` prints. Loading it gives config_new_default().
 */
const char *config_default_yaml(void);

/*
 * Returns a new JSON object describing `cfg` in the config file's own
 * schema (so config_apply of it round-trips); for tests and diagnostics.
 */
json_t *config_to_json(const struct config *cfg);

/* ------------------------------------------------------------------ */
/* Findings and operations                                             */

struct finding {
	enum rule_id rule;
	enum severity severity;
	char *pointer;     /* JSON Pointer into the object, owned */
	char *message;     /* lowercase sentence, no final period, owned */
	int fixed;         /* 1 when the result's operations fix it */
};

enum patch_kind { PATCH_ADD, PATCH_REMOVE, PATCH_REPLACE, PATCH_MOVE };

/*
 * One RFC 6902 operation. Rules use PATCH_MOVE only to rename a key within
 * the same mapping, so front ends may treat every move as a rename.
 */
struct patch_op {
	enum patch_kind kind;
	enum rule_id rule; /* the rule that emitted it */
	char *path;        /* owned */
	char *from;        /* PATCH_MOVE only, owned */
	json_t *value;     /* PATCH_ADD and PATCH_REPLACE: owned reference */
	/*
	 * Set by patch_apply_op_undo(), for patch_revert_op(): what the
	 * operation removed or overwrote (owned reference, NULL when
	 * nothing), and the array position an add or a move put its value at.
	 */
	json_t *undo;
	size_t index;
};

struct rules_result {
	struct patch_op *ops;
	size_t n_ops, cap_ops;
	struct finding *findings;
	size_t n_findings, cap_findings;
	int denied;        /* a rule in deny mode found something */
	int errors;        /* findings of severity error that were not fixed */
	/*
	 * Target dra: new objects (ResourceClaimTemplates) for the front end
	 * to write as documents of their own after this one, in order; NULL
	 * when none. A List gets its templates as items instead, through
	 * operations, and a front end that cannot write a document must
	 * refuse the result (a JSON file holds one). Reporting only
	 * (rules_options.report_only) with legacy-gpu-resource in mutate
	 * mode: those that the migration would write, so that lint can say
	 * what migrate would refuse.
	 */
	json_t *documents;
};

/*
 * A review's work budget, so that no input holds a thread for long: a
 * number of steps (a step is a bounded piece of work: a node of the
 * object visited, two values compared, an operation emitted), which gives
 * the same verdict on any machine, and a deadline on CLOCK_MONOTONIC as
 * the backstop, read every RULES_BUDGET_CLOCK_STEPS steps. Once spent it
 * stays spent: every later rules_budget_spend() fails.
 */
struct rules_budget {
	uint64_t steps_left;     /* UINT64_MAX: no cap on steps */
	int64_t deadline_ns;     /* monotonic; 0: no deadline */
	uint64_t until_clock;    /* steps until the clock is read */
	int spent;               /* once spent: RULES_BUDGET_STEPS or
				    RULES_BUDGET_DEADLINE; 0 before */
};

#define RULES_BUDGET_CLOCK_STEPS 65536
#define RULES_BUDGET_STEPS 1
#define RULES_BUDGET_DEADLINE 2

/*
 * Sets `b` to `steps` steps (0: no cap) and a deadline `millis` from now
 * on CLOCK_MONOTONIC (0: none).
 */
void rules_budget_init(struct rules_budget *b, uint64_t steps,
		       uint64_t millis);

/* The slow part of rules_budget_spend(): reads the clock; 0 or -1. */
int rules_budget_check(struct rules_budget *b);

/*
 * Spends `steps` of `b` (NULL: no budget, always 0). 0 while the budget
 * holds, -1 once it is spent (b->spent set).
 */
static inline int rules_budget_spend(struct rules_budget *b, uint64_t steps)
{
	if (!b)
		return 0;
	if (b->spent)
		return -1;
	if (steps > b->steps_left) {
		b->spent = RULES_BUDGET_STEPS;
		return -1;
	}
	b->steps_left -= b->steps_left == UINT64_MAX ? 0 : steps;
	if (steps < b->until_clock) {
		b->until_clock -= steps;
		return 0;
	}
	return rules_budget_check(b);
}

struct rules_options {
	int offline;            /* 1 in the CLI: offline-only rules run too */
	int report_only;        /* 1 for UPDATE: report, never mutate */
	const char *namespace_name; /* request namespace when the object has none */
	/*
	 * 1 when namespace_name alone says whether the object's authors may
	 * opt out of rules in deny mode (the webhook: the request's
	 * namespace, which the API server sets); 0 when the object's own
	 * metadata.namespace says it, else namespace_name (the CLI). Only
	 * in cfg->deny_opt_out_namespaces do the opt-out annotations leave
	 * a deny-mode rule out.
	 */
	int deny_namespace_from_request;
	int keep_undo;          /* 1: operations keep their undo (patch_op.undo) */
	/*
	 * Rules (bits 1 << rule_id) not to run while no operation has changed
	 * the object: the caller found none of their rules_rule_triggers()
	 * in it. Once something changed, every rule runs, unless the caller
	 * gives triggers_in.
	 */
	unsigned skip_rules;
	/*
	 * With skip_rules: the caller's search, the rules with a trigger in
	 * text[0..len). A skipped rule then runs after a change only when
	 * one of its triggers came with an operation: in the key it set, or
	 * in a key or string of the value it added (what an operation moves
	 * or keeps was in the object already; rules read triggers only in
	 * keys and strings).
	 */
	unsigned (*triggers_in)(const void *arg, const char *text, size_t len);
	const void *triggers_arg;
	/*
	 * A faster reader for the JSON text rules find inside strings (the
	 * legacy affinity annotation), or NULL: it must give what
	 * json_loadb(text, len, 0) gives, or NULL to leave it to jansson.
	 */
	json_t *(*read_json)(const char *text, size_t len);
	/*
	 * NULL, or the work budget the rules spend from: once it is spent,
	 * rules_apply() fails (-1, budget->spent set).
	 */
	struct rules_budget *budget;
	/*
	 * Target dra, or NULL: whether the input holds, besides the object,
	 * a ResourceClaimTemplate `name` in `namespace` (NULL: none given):
	 * 0 none, 1 one whose spec equals `spec`, 2 one with another spec. A
	 * template the object's claims need that is there already is named,
	 * not written again; one of that name with another spec makes the
	 * next name be taken.
	 */
	int (*claim_template_find)(const void *arg, const char *name,
				   const char *namespace, const json_t *spec);
	const void *claim_template_arg;
};

void rules_result_init(struct rules_result *result);
/* Releases everything the result holds and leaves it empty; accepts NULL. */
void rules_result_clear(struct rules_result *result);

/*
 * Runs every enabled rule over `object` (a Kubernetes object, or a List),
 * rewriting it in place: on return `object` is the migrated object and
 * `result` holds the operations that turn the input into it, in order, and
 * the findings. When a rule finds an error it cannot fix, that part of the
 * object is left unchanged and the finding has severity error.
 *
 * Returns 0, or -1 on an internal failure (out of memory, an operation that
 * did not apply), with `err` set and `object` in an unspecified state.
 */
int rules_apply(const struct config *cfg, const struct rules_options *opts,
		json_t *object, struct rules_result *result,
		struct rules_error *err);

/*
 * The object that the finding or operation at `pointer` (a JSON Pointer
 * into `root`, as rules_apply() reports them) is about: the item of a
 * `kind: List` for "/items/N/...", else `root` itself. Borrowed; NULL when
 * `root` is no object.
 */
json_t *rules_object_at(json_t *root, const char *pointer);

/*
 * Runs the rules over the values of a Helm chart (`values`, a parsed
 * values file), rewriting it in place like rules_apply(). Every mapping
 * that holds `resources`, `nodeSelector`, `affinity`, `tolerations`,
 * `schedulerName`, `podAnnotations` or `podLabels` is read as one pod
 * with one container, made of these and of `env`, `args`, `command`,
 * `volumeMounts`, `volumes` and `image` beside them (`env` and `image`
 * only beside `resources`: what a container sees of the GPUs depends on
 * its requests) (rules/values.c):
 * the rules run over that pod, and their operations and findings come
 * back with JSON Pointers into `values`. A change of the pod that no
 * member of the mapping stands for is not made: it is reported as a
 * warning at the mapping, and the rule's other changes to that mapping
 * are not made either.
 *
 * `name_of`, when not NULL, gives the name the chart's templates give the
 * container of the mapping at a pointer (NULL when it does not know); a
 * change that depends on a name nobody knows (the memory record of
 * gpu-sharing names its container) is reported instead of made.
 *
 * Returns 0, or -1 on an internal failure, with `err` set.
 */
typedef const char *(*values_name_fn)(void *arg, const char *pointer);
int rules_apply_values(const struct config *cfg,
		       const struct rules_options *opts, json_t *values,
		       values_name_fn name_of, void *name_arg,
		       struct rules_result *result, struct rules_error *err);

/*
 * The trigger strings of the rules enabled in `cfg` (mode other than off,
 * offline-only rules included): for every object on which rules_apply()
 * with `cfg` could report a finding or emit an operation, whatever the
 * options, at least one of them is a substring (bytewise, case-sensitive)
 * of some key or string value of the object, as decoded from JSON. An
 * object holding none of them can be let through without running the
 * rules. Strings that contain another trigger are left out.
 *
 * `out` is overwritten; on return 0 it holds new strings, to release with
 * string_list_clear(). Returns 1 with `out` empty when no finite set
 * exists (a rule could fire on an object holding no fixed text, such as a
 * visibility image pattern "*"), or -1 with `out` empty when out of memory.
 */
int rules_triggers(const struct config *cfg, struct string_list *out);

/*
 * rules_triggers() for the one rule `rule`: the strings without which it
 * cannot report or change anything in an object no other rule changed.
 * An empty set (0) when the rule is off.
 */
int rules_rule_triggers(const struct config *cfg, enum rule_id rule,
			struct string_list *out);

/* ------------------------------------------------------------------ */
/* Where the webhook is registered, and its match conditions           */

/*
 * The kinds the webhook is registered for and where their pod specs are,
 * one row per resource (rules/pod_shapes.c). The engine finds PodSpecs
 * anywhere (any mapping holding a containers list), and the pod specs of
 * another form (`form` not NULL: an Argo template, whose container is
 * `container:` or `script:`) at the paths of the row of the object's
 * kind; the registration and its CEL conditions cannot search, so they
 * take the paths from here and from webhook.customResources. Paths as in
 * struct custom_resource.
 */
struct pod_form;

struct pod_shape {
	const char *group;              /* "" for the core group */
	const char *versions;           /* "v1", "v1,v1beta1" or "*" */
	const char *resource;           /* plural, e.g. "deployments" */
	const char *kind;               /* e.g. "Deployment" */
	int cluster;                    /* 1: cluster-scoped */
	const struct pod_form *form;    /* NULL: a PodSpec */
	const char *paths[4];           /* NULL-terminated */
};

/* The built-in rows, `*n` of them. */
const struct pod_shape *rules_pod_shapes(size_t *n);

/*
 * 1 when the registration covers the resource `resource` of `group`: a
 * built-in row (apps' through extensions too, as the API server sends
 * them under matchPolicy Equivalent) or one of webhook.customResources;
 * else 0. The version is not looked at (Equivalent).
 */
int rules_pod_shape_registered(const struct config *cfg, const char *group,
			       const char *resource);

/*
 * 0 when `path` is a pod spec path as struct custom_resource says (member
 * names that are CEL identifiers and no CEL reserved word, at most one
 * "*", not first); else -1 with a message in `why` (`size` bytes).
 */
int rules_pod_path_check(const char *path, char *why, size_t size);

/*
 * The two entries of the registration (`gpumend webhook-config`): legacy
 * objects that cannot run right unmigrated (failurePolicy Fail), and
 * advisory ones that run anyway (Ignore). Which rule, or part of a rule,
 * belongs to which follows its mode: deny is legacy, warn is advisory,
 * mutate as the rule's kind (rules/conditions.c). The UPDATE of a Pod or
 * a Job, whose pod spec cannot change, belongs to the advisory entry
 * alone: gpumend never refuses one.
 */
enum rules_entry { RULES_ENTRY_LEGACY, RULES_ENTRY_ADVISORY, RULES_ENTRY_COUNT };

/* "legacy", "advisory". */
const char *rules_entry_name(enum rules_entry entry);
/* The entry of that name; -1 when none. */
int rules_entry_find(const char *name);

/*
 * Returns a new JSON array of {"name", "expression"} objects: the CEL
 * matchConditions of `entry` under `cfg`, all of which are true for every
 * request on which that entry's rules (rules_entry_config_new()) could
 * report or change anything. NULL when out of memory.
 */
json_t *rules_conditions_new(const struct config *cfg, enum rules_entry entry);

/* What rules_entry_config_new() is told of the request, or-ed. */
enum {
	RULES_REQUEST_FIXED_UPDATE = 1, /* a Pod or Job UPDATE */
	RULES_REQUEST_UNREGISTERED = 2, /* of a resource not registered */
};

/*
 * Returns a new configuration: `cfg` with only what `entry` is
 * responsible for (the other rules off, or the other part of a rule
 * cleared), for a request as `request` says (RULES_REQUEST_*): no entry
 * is responsible for a resource the registration does not cover. NULL
 * when out of memory, with `err` set.
 */
struct config *rules_entry_config_new(const struct config *cfg,
				      enum rules_entry entry, int request,
				      struct rules_error *err);

/* A member of an object that rules read (rules_reads()). */
struct rules_read {
	const char *key;
	size_t len;             /* of key */
	int whole;              /* 1: its value is read whole; 0: only the
				   members of its objects (and of those of
				   its arrays) that the list names */
};

/*
 * What the rules `rules` (bits 1 << rule_id; the webhook's, with
 * rules_options.skip_rules leaving out the others) and the engine read of
 * an object to find that they have nothing to report or change in it:
 * the members, at any depth, the list names, read as it says. On an
 * object that has only those members (read from the root as the list
 * says), and no other member holding a "containers" member at any depth,
 * rules_apply() reports and emits nothing exactly when it reports and
 * emits nothing on the whole object; when it does report or emit
 * something, it must run again on the whole object. NULL-terminated;
 * NULL when some rule of `rules` does not say: it needs the whole object.
 */
const struct rules_read *rules_reads(unsigned rules);

/* A list rules_reads() can give that names nothing (the root mapping and
 * none of its members), for documents no rule acts on. */
extern const struct rules_read rules_reads_nothing[];

/* Frees the strings of `list` and its array, leaving it empty. */
void string_list_clear(struct string_list *list);

/*
 * Returns a new JSON array: the result's operations as an RFC 6902 patch.
 */
json_t *rules_patch_json(const struct rules_result *result);

/* ------------------------------------------------------------------ */
/* Small pieces, exported for the front ends and the unit tests        */

/*
 * Appends the escaped form of `token` (~ as ~0, / as ~1) to the pointer
 * `base` and returns a new string; NULL when out of memory.
 */
char *json_pointer_join(const char *base, const char *token);
/* Appends an array index to `base`; returns a new string or NULL. */
char *json_pointer_join_index(const char *base, size_t index);
/*
 * Unescapes the next token of `*pointer` (which starts at a '/') into
 * `out` (a buffer of `size` bytes) and advances `*pointer` past it.
 * Returns 0, or -1 when the pointer is malformed or the token too long.
 */
int json_pointer_next(const char **pointer, char *out, size_t size);
/* The value at `pointer` in `root`, borrowed; NULL when absent. */
json_t *json_pointer_get(json_t *root, const char *pointer);

/*
 * json_object_get(), inline: the member `key` of `object` (borrowed),
 * NULL when there is none or `object` is no object. The length of a
 * literal key is known at compile time, and no call is made for it.
 */
static inline json_t *json_member(const json_t *object, const char *key)
{
	return key ? json_object_getn(object, key, strlen(key)) : NULL;
}

/*
 * patch_apply_op() with a copy of the operation's value, so that later
 * operations writing into what it added do not change the operation.
 */
int patch_apply_op_copy(json_t *root, const struct patch_op *op);

/* 1 when `a` and `b` are the same operation (kind, rule, paths, value). */
int patch_op_equal(const struct patch_op *a, const struct patch_op *b);

/*
 * Applies one operation to `root` in place. Returns 0, or -1 when the
 * operation does not apply (missing parent, bad index, ...). `value` is not
 * stolen. A replace of the root itself is not supported.
 */
int patch_apply_op(json_t *root, const struct patch_op *op);
/* patch_apply_op() that also sets op->undo and op->index. */
int patch_apply_op_undo(json_t *root, struct patch_op *op);
/*
 * Undoes `op`, applied by patch_apply_op_undo() to what `root` was, in
 * `root` as it is now, and checks that the value the operation added is
 * still there as op->value records it. 0, or -1 when the operation cannot
 * be undone so or that value differs: then `root` is not what the
 * operation made (something else changed it), and it is left in some
 * intermediate state. Undoing the operations of a patch last first, each
 * with success, proves that the patch applies to what this gives and
 * gives `root` as it was: each operation applies to what its undo gives,
 * and gives back the value it was undone from.
 */
int patch_revert_op(json_t *root, const struct patch_op *op);
/*
 * A deep copy of `value` (without jansson's check for cycles, which a
 * parsed document cannot have); NULL when out of memory.
 */
json_t *json_value_copy(const json_t *value);
/* json_value_copy() that also passes each key and string to `seen`. */
typedef void (*json_text_seen_fn)(void *arg, const char *text, size_t len);
json_t *json_value_copy_seen(const json_t *value, json_text_seen_fn seen,
			     void *arg);

/*
 * Returns `value` as JSON text (json_dumps flags; JSON_ENCODE_ANY always
 * on) in a new string to release with free(), whatever allocator jansson
 * was given; NULL when out of memory. Use it instead of json_dumps.
 */
char *json_text_new(const json_t *value, size_t flags);

/*
 * Messages quote values from their input: a newline or other control byte
 * in them would break one-message-per-line reports, HTTP Warning headers
 * and plain-text answers, so they are written as \n, \t, \r or \xNN.
 * Takes `text` (from malloc); returns it or a new string, NULL when out
 * of memory (`text` then freed).
 */
char *text_escape_controls(char *text);

/*
 * Writes text[0..len) through `append` as a JSON string, as jansson does
 * without JSON_ENSURE_ASCII or JSON_ESCAPE_SLASH: '"', '\\' and control
 * bytes escaped, the rest as it is (the caller sees to valid UTF-8).
 * 0, or -1 when `append` fails.
 */
int json_text_string(json_dump_callback_t append, void *data,
		     const char *text, size_t len);

/*
 * Parses a Kubernetes resource quantity ("2", "1.5", "500m", "4Gi", "1e3")
 * into thousandths of its unit. Returns 0, or -1 when the text is not a
 * quantity or the value does not fit.
 */
int quantity_parse_milli(const char *text, long long *milli);

/*
 * Returns a new CEL device selector (resource.k8s.io/v1, NVIDIA's DRA
 * driver) that accepts a GPU whose productName, the NVML name
 * ("NVIDIA A100-SXM4-80GB"), is one of the `n` GPU Feature Discovery
 * model label values `models` ("NVIDIA-A100-SXM4-80GB"): spaces become
 * '-' as GFD writes them (the strings extension's replace()), and a value
 * ending with `shared_suffix` (NULL: none) names the model without it.
 * NULL when n is 0 or out of memory.
 */
char *dra_model_selector_new(char *const *models, size_t n,
			     const char *shared_suffix);

/*
 * Normalises a GPU model name the way GPU Feature Discovery builds the
 * nvidia.com/gpu.product label: keeps [A-Za-z0-9_.-] and spaces, trims,
 * and turns each run of spaces into one '-'. Returns a new string or NULL.
 */
char *gpu_name_normalize(const char *name);

/*
 * 1 when a container with `resources` (a container's `resources` mapping)
 * requests a GPU, as the rules judge it (a GPU resource of the config,
 * legacy, shared or modern, asked for in limits or requests); else 0.
 */
int rules_resources_request_gpu(const struct config *cfg, json_t *resources);

#endif
