/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dra.c - the dra target: each container's whole-GPU count becomes a
 * resource claim made from a resource.k8s.io/v1 ResourceClaimTemplate, and
 * the GPU model the pod was pinned to by node affinity becomes that
 * template's CEL selector.
 *
 * It runs after every rule of an object (engine.c), as a step of
 * legacy-gpu-resource, whose mode and opt-outs it follows: by then the
 * legacy resources are nvidia.com/gpu, and every way of naming a model
 * (the legacy gpu-name label, the affinity annotation, gpumend.io/gpu-models,
 * the namespace policy) has become a requirement on nvidia.com/gpu.product,
 * the one place it is read from here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

/* The attribute domain of NVIDIA's DRA driver (its driver name), whatever
 * the DeviceClass is called. */
#define DRA_DRIVER "gpu.nvidia.com"

/* The most templates one object may ask for under one name's suffixes. */
#define DRA_MAX_TEMPLATES 64

/* A CEL string literal in double quotes. */
static void cel_string(struct cel_text *t, const char *s)
{
	cel_add(t, "\"");
	for (; *s; s++) {
		char one[2] = { *s, '\0' };

		if (*s == '"' || *s == '\\')
			cel_add(t, "\\");
		cel_add(t, one);
	}
	cel_add(t, "\"");
}

char *dra_model_selector_new(char *const *models, size_t n,
			     const char *shared_suffix)
{
	struct cel_text t = { 0 };
	size_t suffix_len = shared_suffix ? strlen(shared_suffix) : 0;
	size_t kept = 0;

	if (n == 0)
		return NULL;
	cel_add(&t, "device.attributes[\"" DRA_DRIVER "\"].productName"
		    ".replace(\" \", \"-\")");
	cel_add(&t, n == 1 ? " == " : " in [");
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(models[i]);
		char *model;
		int seen = 0;

		/* GFD's spelling on nodes that share GPUs names the same
		 * model: the suffix is no part of the GPU's name */
		if (suffix_len && len > suffix_len &&
		    strcmp(models[i] + len - suffix_len, shared_suffix) == 0)
			len -= suffix_len;
		for (size_t k = 0; k < i && !seen; k++)
			seen = strlen(models[k]) >= len &&
			       strncmp(models[k], models[i], len) == 0 &&
			       (models[k][len] == '\0' ||
				(suffix_len &&
				 strcmp(models[k] + len, shared_suffix) == 0));
		if (seen)
			continue;
		if (!(model = strndup(models[i], len))) {
			t.failed = 1;
			break;
		}
		if (kept++)
			cel_add(&t, ", ");
		cel_string(&t, model);
		free(model);
	}
	if (n > 1)
		cel_add(&t, "]");
	if (t.failed) {
		cel_text_free(&t);
		return NULL;
	}
	return t.s;
}

/* ------------------------------------------------------------------ */
/* The model a pod is pinned to                                        */

/* Where a pod's GPU model comes from, and what goes once it is a selector. */
struct pod_models {
	struct string_list models; /* GFD label values; empty: any model */
	int kept;                  /* a constraint no selector can say: the
				      node affinity stays as it is */
	char *kept_pointer;        /* where that constraint is */
	char *selector_key;        /* nodeSelector/<label>, to remove */
	char *requirement;         /* the required node selector requirement */
};

static void pod_models_clear(struct pod_models *m)
{
	string_list_clear(&m->models);
	free(m->kept_pointer);
	free(m->selector_key);
	free(m->requirement);
}

static int models_add(struct string_list *list, const char *model)
{
	char **grown = realloc(list->items, (list->n + 1) * sizeof(char *));

	if (!grown)
		return -1;
	list->items = grown;
	if (!(grown[list->n] = strdup(model)))
		return -1;
	list->n++;
	return 0;
}

/* Marks the models as kept in node affinity, at `pointer` (taken). */
static int models_keep(struct pod_models *m, char *pointer)
{
	if (!pointer)
		return -1;
	if (m->kept) {
		free(pointer);
		return 0;
	}
	m->kept = 1;
	m->kept_pointer = pointer;
	return 0;
}

struct requirement_walk {
	struct pod_models *m;
	size_t found;
};

static int requirement_seen(json_t *requirement, const char *pointer,
			    void *arg)
{
	struct requirement_walk *w = arg;

	w->found++;
	if (w->found == 1 && !w->m->requirement)
		return (w->m->requirement = strdup(pointer)) ? 0 : -1;
	(void)requirement;
	return 0;
}

/*
 * Reads the GPU model `pod` is pinned to: a nodeSelector on the product
 * label, or one In requirement on it in the single term of the required
 * node affinity (more terms make the model depend on which term matches,
 * which one selector cannot say). Anything else on the label is kept
 * (m->kept). Preferences stay: they do no harm where no node has labels.
 */
static int pod_models_read(struct rule_ctx *ctx, struct pod_spec *pod,
			   struct pod_models *m)
{
	const char *label = ctx->cfg->gpu_product_label;
	json_t *selector = json_member(json_member(pod->spec, "nodeSelector"),
				       label);
	json_t *required, *terms, *requirement, *values, *value;
	struct requirement_walk w = { m, 0 };
	char *p_affinity;
	size_t i;
	int rc;

	if (selector) {
		char *p_sel = json_pointer_join(pod->pointer, "nodeSelector");

		m->selector_key = p_sel ? json_pointer_join(p_sel, label) : NULL;
		free(p_sel);
		if (!m->selector_key)
			return -1;
		if (!json_is_string(selector))
			return models_keep(m, strdup(m->selector_key));
		if (models_add(&m->models, json_string_value(selector)))
			return -1;
	}
	required = json_member(json_member(json_member(pod->spec, "affinity"),
					   "nodeAffinity"),
			       "requiredDuringSchedulingIgnoredDuringExecution");
	terms = json_member(required, "nodeSelectorTerms");
	if (!(p_affinity = json_pointer_join(pod->pointer, "affinity")))
		return -1;
	/* only the required terms: a copy without the preferences */
	{
		json_t *only = json_pack("{s:{s:O*}}", "nodeAffinity",
					 "requiredDuringSchedulingIgnoredDuringExecution",
					 required);

		rc = only ? affinity_for_each_node_requirement(only, p_affinity,
							       label,
							       requirement_seen,
							       &w)
			  : -1;
		json_decref(only);
	}
	free(p_affinity);
	if (rc)
		return -1;
	if (w.found == 0)
		return 0;
	requirement = json_pointer_get(ctx->root, m->requirement);
	values = json_member(requirement, "values");
	if (w.found > 1 || json_array_size(terms) != 1 || selector ||
	    !json_is_string(json_member(requirement, "operator")) ||
	    strcmp(json_string_value(json_member(requirement, "operator")),
		   "In") != 0 ||
	    !json_is_array(values) || json_array_size(values) == 0)
		return models_keep(m, strdup(m->requirement));
	json_array_foreach(values, i, value)
		if (!json_is_string(value))
			return models_keep(m, strdup(m->requirement));
	json_array_foreach(values, i, value)
		if (models_add(&m->models, json_string_value(value)))
			return -1;
	return 0;
}

/*
 * Removes the requirement at `requirement` (in the single term of the
 * pod's required node affinity), with whatever of the node affinity it
 * leaves empty. A term with other requirements keeps them.
 */
static int requirement_remove(struct rule_ctx *ctx, struct pod_spec *pod,
			      const char *requirement)
{
	json_t *affinity = json_member(pod->spec, "affinity");
	json_t *node = json_member(affinity, "nodeAffinity");
	json_t *term, *exprs;
	char *p_term, *p_affinity, *p_node, *slash;
	int rc;

	/* the requirement is .../nodeSelectorTerms/0/matchExpressions/N */
	if (!(p_term = strdup(requirement)))
		return -1;
	*strrchr(p_term, '/') = '\0';
	slash = strrchr(p_term, '/');
	*slash = '\0';
	term = json_pointer_get(ctx->root, p_term);
	exprs = json_member(term, "matchExpressions");
	if (json_array_size(exprs) > 1)
		rc = rule_remove(ctx, requirement);
	else if (json_object_size(term) > 1)
		rc = rule_remove_key_pruned(ctx, p_term, "matchExpressions");
	else
		rc = 1;
	free(p_term);
	if (rc <= 0)
		return rc;
	/*
	 * It was all of the required node affinity, which goes with what
	 * it leaves empty: an empty term would match no node.
	 */
	p_affinity = json_pointer_join(pod->pointer, "affinity");
	p_node = p_affinity ? json_pointer_join(p_affinity, "nodeAffinity")
			    : NULL;
	if (!p_node)
		rc = -1;
	else if (json_object_size(node) > 1)
		rc = rule_remove_key_pruned(ctx, p_node,
			"requiredDuringSchedulingIgnoredDuringExecution");
	else if (json_object_size(affinity) > 1)
		rc = rule_remove(ctx, p_node);
	else
		rc = rule_remove(ctx, p_affinity);
	free(p_affinity);
	free(p_node);
	return rc;
}

/*
 * Removes what pinned the pod to its model, now that the claims' selector
 * does: the nodeSelector key, or the requirement with whatever of the
 * node affinity it leaves empty. A term with other requirements keeps
 * them.
 */
static int pod_models_remove(struct rule_ctx *ctx, struct pod_spec *pod,
			     struct pod_models *m)
{
	int rc;

	if (m->selector_key) {
		char *p_sel = json_pointer_join(pod->pointer, "nodeSelector");

		rc = p_sel ? rule_remove_key_pruned(ctx, p_sel,
						    ctx->cfg->gpu_product_label)
			   : -1;
		free(p_sel);
		return rc;
	}
	return m->requirement ? requirement_remove(ctx, pod, m->requirement)
			      : 0;
}

/*
 * The required node affinity on the sharing-strategy label that
 * gpu-sharing gave a pod that shares a GPU: under consumable capacity the
 * claim shares it, on any node. Removed when it is one requirement of the
 * single node selector term, as gpu-sharing writes it; else kept, with a
 * warning. Reporting only, said.
 */
static int sharing_affinity_remove(struct rule_ctx *ctx, struct pod_spec *pod)
{
	const char *label = ctx->cfg->sharing_strategy_label;
	json_t *required = json_member(json_member(json_member(pod->spec,
			"affinity"), "nodeAffinity"),
		"requiredDuringSchedulingIgnoredDuringExecution");
	struct pod_models m = { 0 };
	struct requirement_walk w = { &m, 0 };
	json_t *only;
	char *p_affinity;
	int rc;

	if (!required || !label)
		return 0;
	if (!(p_affinity = json_pointer_join(pod->pointer, "affinity")))
		return -1;
	only = json_pack("{s:{s:O}}", "nodeAffinity",
			 "requiredDuringSchedulingIgnoredDuringExecution",
			 required);
	rc = only ? affinity_for_each_node_requirement(only, p_affinity, label,
						       requirement_seen, &w)
		  : -1;
	json_decref(only);
	free(p_affinity);
	if (rc || w.found == 0)
		goto out;
	if (w.found > 1 ||
	    json_array_size(json_member(required, "nodeSelectorTerms")) != 1)
		rc = rule_report(ctx, SEVERITY_WARNING, m.requirement, 0,
				 "node affinity on '%s' stays: the GPU is shared by its claim's capacity request, on nodes without that label too",
				 label);
	else if (!rule_mutates(ctx))
		rc = rule_report(ctx, SEVERITY_WARNING, m.requirement, 0,
				 "under target dra, node affinity on '%s' is to go: the claim's capacity request shares the GPU",
				 label);
	else if (!(rc = rule_report(ctx, SEVERITY_WARNING, m.requirement, 1,
				    "removed node affinity on '%s': the claim's capacity request shares the GPU",
				    label)))
		rc = requirement_remove(ctx, pod, m.requirement);
out:
	pod_models_clear(&m);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Claims and their templates                                          */

/* What one object asks of templates. */
struct dra_object {
	char *base;             /* the templates' name before "-gpu" */
	const char *namespace;  /* the object's, or NULL */
	json_t *made;           /* templates written for it so far */
	int nameless;           /* no name to make one from: said once */
};

/* One container's GPU count. */
struct gpu_request {
	const char *name;       /* the resource */
	char *limit, *request;  /* pointers of the keys, NULL when absent */
	long long count;
	char memory[16];        /* consumable capacity: "<N>Mi", or "" */
};

/*
 * The name base of the templates of `object`: its name, or its
 * generateName without the separator it ends with. Short enough for
 * "-gpu-NN" to keep it an object name. NULL when it has neither (or out
 * of memory: *oom).
 */
static char *template_base(json_t *object, int *oom)
{
	json_t *meta = json_member(object, "metadata");
	const char *name = json_string_value(json_member(meta, "name"));
	size_t len;
	char *base;

	*oom = 0;
	if (!name || !*name)
		name = json_string_value(json_member(meta, "generateName"));
	if (!name)
		return NULL;
	len = strlen(name);
	if (len > 240)
		len = 240;
	while (len && (name[len - 1] == '-' || name[len - 1] == '.'))
		len--;
	if (!len)
		return NULL;
	if (!(base = strndup(name, len)))
		*oom = 1;
	return base;
}

/* A new ResourceClaimTemplate `name` asking for `count` GPUs. */
static json_t *template_new(const struct config *cfg, const char *name,
			    const char *namespace, long long count,
			    const char *selector, const char *memory)
{
	json_t *exactly = json_pack("{s:s, s:s, s:I}",
				    "deviceClassName", cfg->dra_device_class,
				    "allocationMode", "ExactCount",
				    "count", (json_int_t)count);
	json_t *meta = json_pack("{s:s}", "name", name);

	if (exactly && selector &&
	    json_object_set_new(exactly, "selectors",
				json_pack("[{s:{s:s}}]", "cel", "expression",
					  selector)))
		goto out_fail;
	/* ExactDeviceRequest.capacity: CapacityRequirements, a map of
	 * quantities by the device's capacity name */
	if (exactly && memory && *memory &&
	    json_object_set_new(exactly, "capacity",
				json_pack("{s:{s:s}}", "requests", "memory",
					  memory)))
		goto out_fail;
	if (meta && namespace &&
	    json_object_set_new(meta, "namespace", json_text(namespace)))
		goto out_fail;
	if (!exactly || !meta)
		goto out_fail;
	return json_pack("{s:s, s:s, s:o, s:{s:{s:{s:[{s:s, s:o}]}}}}",
			 "apiVersion", "resource.k8s.io/v1",
			 "kind", "ResourceClaimTemplate", "metadata", meta,
			 "spec", "spec", "devices", "requests", "name", "gpu",
			 "exactly", exactly);
out_fail:
	json_decref(exactly);
	json_decref(meta);
	return NULL;
}

/* 1 when `object` is a ResourceClaimTemplate named `name` in `namespace`
 * (NULL: none given). */
static int template_named(json_t *object, const char *name,
			  const char *namespace)
{
	json_t *meta = json_member(object, "metadata");
	const char *kind = json_string_value(json_member(object, "kind"));
	const char *n = json_string_value(json_member(meta, "name"));
	const char *ns = json_string_value(json_member(meta, "namespace"));

	return kind && strcmp(kind, "ResourceClaimTemplate") == 0 && n &&
	       strcmp(n, name) == 0 &&
	       ((!ns && !namespace) ||
		(ns && namespace && strcmp(ns, namespace) == 0));
}

/* The template of that name already there: in `list` (an array of
 * objects), or NULL. */
static json_t *template_find(json_t *list, const char *name,
			     const char *namespace)
{
	size_t i;
	json_t *item;

	json_array_foreach(list, i, item)
		if (template_named(item, name, namespace))
			return item;
	return NULL;
}

/* The key of a template in rule_ctx.list_templates. */
static char *template_key(const char *name, const char *namespace)
{
	size_t n = strlen(name), ns = namespace ? strlen(namespace) : 0;
	char *key = malloc(n + ns + 2);

	if (key) {
		/* no name or namespace holds a '/' */
		memcpy(key, namespace ? namespace : "", ns);
		key[ns] = '/';
		memcpy(key + ns + 1, name, n + 1);
	}
	return key;
}

/* Adds `object` to the List's templates when it is one. */
static int list_templates_add(json_t *index, json_t *object)
{
	json_t *meta = json_member(object, "metadata");
	const char *kind = json_string_value(json_member(object, "kind"));
	const char *name = json_string_value(json_member(meta, "name"));
	char *key;
	int rc;

	if (!kind || strcmp(kind, "ResourceClaimTemplate") != 0 || !name)
		return 0;
	if (!(key = template_key(name, json_string_value(
			json_member(meta, "namespace")))))
		return -1;
	/* the first of a name is the one a claim finds */
	rc = json_member(index, key) ? 0 : json_object_set(index, key, object);
	free(key);
	return rc;
}

/*
 * The List's template of that name, or NULL: its items are indexed once,
 * so that a List of many workloads is not searched once for each.
 */
static json_t *list_template_find(struct rule_ctx *ctx, json_t *items,
				  const char *name, const char *namespace,
				  int *oom)
{
	json_t *item, *found;
	char *key;
	size_t i;

	*oom = 0;
	if (!ctx->list_templates) {
		if (!(ctx->list_templates = json_object()))
			goto out_oom;
		json_array_foreach(items, i, item)
			if (list_templates_add(ctx->list_templates, item))
				goto out_oom;
	}
	if (!(key = template_key(name, namespace)))
		goto out_oom;
	found = json_member(ctx->list_templates, key);
	free(key);
	return found;
out_oom:
	*oom = 1;
	return NULL;
}

/*
 * The name of the template that gives `count` GPUs matching `selector`:
 * one the file holds already (rules_options.claim_template_find, the List's
 * items, what this object made), or a new one, written as an item of the
 * List or as a document of its own (result->documents). NULL when out of
 * memory, or with *why set when the names run out.
 */
static char *template_for(struct rule_ctx *ctx, struct dra_object *o,
			  long long count, const char *selector,
			  const char *memory, const char **why)
{
	json_t *items = NULL, *want = NULL, *found;
	const char *kind = json_string_value(json_member(ctx->root, "kind"));
	char name[256];
	int there;

	*why = NULL;
	if (kind && strcmp(kind, "List") == 0)
		items = json_member(ctx->root, "items");
	for (int k = 1; k <= DRA_MAX_TEMPLATES; k++) {
		if (k == 1)
			snprintf(name, sizeof(name), "%s-gpu", o->base);
		else
			snprintf(name, sizeof(name), "%s-gpu-%d", o->base, k);
		json_decref(want);
		if (!(want = template_new(ctx->cfg, name, o->namespace, count,
					  selector, memory)))
			return NULL;
		found = template_find(o->made, name, o->namespace);
		if (!found && items) {
			int oom;

			found = list_template_find(ctx, items, name,
						   o->namespace, &oom);
			if (oom)
				goto out_fail;
		}
		if (found)
			there = json_equal(json_member(found, "spec"),
					   json_member(want, "spec")) ? 1 : 2;
		else if (ctx->opts->claim_template_find)
			there = ctx->opts->claim_template_find(
				ctx->opts->claim_template_arg, name,
				o->namespace, json_member(want, "spec"));
		else
			there = 0;
		/* the same requests: shared, or made before */
		if (there == 1) {
			json_decref(want);
			return strdup(name);
		}
		if (there)
			continue;
		if (json_array_append(o->made, want))
			goto out_fail;
		if (items) {
			if (rule_add(ctx, "/items/-", json_incref(want)) ||
			    list_templates_add(ctx->list_templates, want))
				goto out_fail;
		} else {
			if (!ctx->result->documents &&
			    !(ctx->result->documents = json_array()))
				goto out_fail;
			if (json_array_append(ctx->result->documents, want))
				goto out_fail;
		}
		json_decref(want);
		return strdup(name);
	}
	*why = "no free name";
out_fail:
	json_decref(want);
	return NULL;
}

/*
 * Reads the GPU count of container `c`: 0 with *req set (count 0 when it
 * asks for none), 1 when it was reported as unusable, -1 when out of
 * memory.
 */
static int gpu_request_read(struct rule_ctx *ctx, struct container *c,
			    const char *name, struct gpu_request *req)
{
	json_t *resources = container_resources(c->container);
	json_t *limit = json_member(json_member(resources, "limits"), name);
	json_t *request = json_member(json_member(resources, "requests"), name);
	long long n_limit = -1, n_request = -1;
	char *p_res;
	int rc;

	memset(req, 0, sizeof(*req));
	req->name = name;
	if (!limit && !request)
		return 0;
	if (!(p_res = json_pointer_join(c->pointer,
				container_resources_name(c->container))))
		return -1;
	if (limit) {
		char *p = json_pointer_join(p_res, "limits");

		req->limit = p ? json_pointer_join(p, name) : NULL;
		free(p);
	}
	if (request) {
		char *p = json_pointer_join(p_res, "requests");

		req->request = p ? json_pointer_join(p, name) : NULL;
		free(p);
	}
	free(p_res);
	if ((limit && !req->limit) || (request && !req->request))
		return -1;
	if ((limit && resource_count(limit, &n_limit)) ||
	    (request && resource_count(request, &n_request))) {
		rc = rule_report(ctx, SEVERITY_ERROR,
				 req->limit ? req->limit : req->request, 0,
				 "'%s' must be a whole, non-negative number of GPUs to become a DRA claim",
				 name);
		return rc ? -1 : 1;
	}
	if (n_limit >= 0 && n_request >= 0 && n_limit != n_request) {
		rc = rule_report(ctx, SEVERITY_ERROR, req->limit, 0,
				 "GPU request (%lld) differs from the limit (%lld); a DRA claim has one count",
				 n_request, n_limit);
		return rc ? -1 : 1;
	}
	req->count = n_limit >= 0 ? n_limit : n_request;
	return 0;
}

static void gpu_request_clear(struct gpu_request *req)
{
	free(req->limit);
	free(req->request);
}

/* A claim name of the pod no entry of its resourceClaims has. */
static void claim_name(json_t *spec, char *out, size_t size)
{
	json_t *claims = json_member(spec, "resourceClaims"), *item;
	size_t i;

	for (int k = 1;; k++) {
		int used = 0;

		if (k == 1)
			snprintf(out, size, "gpu");
		else
			snprintf(out, size, "gpu-%d", k);
		json_array_foreach(claims, i, item) {
			const char *n = json_string_value(json_member(item,
								      "name"));

			used |= n && strcmp(n, out) == 0;
		}
		if (!used)
			return;
	}
}

/* Adds `value_new` to the array member `key` of the mapping at `pointer`,
 * making the array when there is none. */
static int array_append(struct rule_ctx *ctx, const char *pointer,
			const char *key, json_t *value_new)
{
	json_t *array = json_member(json_pointer_get(ctx->root, pointer), key);
	char *p = json_pointer_join(pointer, key), *end;
	int rc;

	if (!p || !value_new) {
		free(p);
		json_decref(value_new);
		return -1;
	}
	if (json_is_array(array)) {
		end = json_pointer_join(p, "-");
		rc = end ? rule_add(ctx, end, value_new)
			 : (json_decref(value_new), -1);
		free(end);
	} else {
		json_t *one = json_array();

		if (!one || json_array_append_new(one, value_new)) {
			json_decref(one);
			free(p);
			return -1;
		}
		rc = array ? rule_replace(ctx, p, one) : rule_add(ctx, p, one);
	}
	free(p);
	return rc;
}

/* Turns one container's count into a claim on template `tpl`. */
static int container_claim(struct rule_ctx *ctx, struct pod_spec *pod,
			   struct container *c, struct gpu_request *req,
			   const char *tpl)
{
	const char *name = req->name;
	const char *memory = ctx->cfg->gpu_memory_resource;
	char claim[32], *p_res, *p_lim, *p_req;
	int rc;

	claim_name(pod->spec, claim, sizeof(claim));
	if (*req->memory)
		rc = rule_report(ctx, SEVERITY_WARNING,
				 req->limit ? req->limit : req->request, 1,
				 "'%s: %lld' with %s of its memory became DRA claim '%s' from ResourceClaimTemplate '%s', which asks for that memory as capacity",
				 req->name, req->count, req->memory, claim, tpl);
	else
		rc = rule_report(ctx, SEVERITY_WARNING,
				 req->limit ? req->limit : req->request, 1,
				 "'%s: %lld' became DRA claim '%s' from ResourceClaimTemplate '%s'",
				 req->name, req->count, claim, tpl);
	if (!rc)
		rc = array_append(ctx, pod->pointer, "resourceClaims",
				  json_pack("{s:s, s:s}", "name", claim,
					    "resourceClaimTemplateName", tpl));
	if (rc || !(p_res = json_pointer_join(c->pointer,
				container_resources_name(c->container))))
		return -1;
	rc = array_append(ctx, p_res, "claims",
			  json_pack("{s:s}", "name", claim));
	p_lim = json_pointer_join(p_res, "limits");
	p_req = json_pointer_join(p_res, "requests");
	/* requests first, as legacy-gpu-resource: its key was later in
	 * the pointers than limits' */
	if (!rc && (!p_lim || !p_req))
		rc = -1;
	/* a memory slice of HAMi's goes with it: the claim asks for it */
	if (!rc && *req->memory && memory && json_member(json_member(
			json_member(c->container, "resources"), "requests"),
			memory))
		rc = rule_remove_key_pruned(ctx, p_req, memory);
	if (!rc && *req->memory && memory && json_member(json_member(
			json_member(c->container, "resources"), "limits"),
			memory))
		rc = rule_remove_key_pruned(ctx, p_lim, memory);
	if (!rc && req->request)
		rc = rule_remove_key_pruned(ctx, p_req, name);
	if (!rc && req->limit)
		rc = rule_remove_key_pruned(ctx, p_lim, name);
	free(p_res);
	free(p_lim);
	free(p_req);
	return rc;
}

struct pod_run {
	struct dra_object *o;
	const char *record;     /* consumable capacity: the memory annotation */
	int capacity;           /* consumable capacity: its memory is known */
	struct gpu_request reqs[64];
	struct container where[64];
	size_t n;
	int bad;
};

/* Says what becomes of the first legacy memory slice `c` asks for: 1,
 * or 0 when it asks for none, -1 when out of memory. */
static int memory_slice_report(struct rule_ctx *ctx, struct container *c)
{
	const struct config *cfg = ctx->cfg;
	json_t *resources = json_member(c->container, "resources");
	const char *sections[] = { "limits", "requests" };

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < cfg->n_memory_resources; i++) {
			const char *name = cfg->memory_resources[i].name;
			char *p;
			int rc;

			if (!json_member(json_member(resources, sections[s]),
					 name))
				continue;
			if (!(p = container_resource_pointer_new(c, sections[s],
								 name)))
				return -1;
			rc = rule_report(ctx, SEVERITY_WARNING, p, 0,
					 "under target dra, '%s' is to become a DRA claim on DeviceClass '%s' asking for that GPU memory as capacity",
					 name, cfg->dra_device_class);
			free(p);
			return rc ? -1 : 1;
		}
	return 0;
}

static int collect_request(struct rule_ctx *ctx, struct pod_spec *pod,
			   struct container *c, void *arg)
{
	const struct config *cfg = ctx->cfg;
	struct pod_run *run = arg;
	struct gpu_request req;
	const char *name = cfg->gpu_resource;
	json_t *resources = container_resources(c->container);
	int rc;

	(void)pod;
	/* an ephemeral container has no resources to ask with */
	if (strcmp(c->list, "ephemeralContainers") == 0)
		return 0;
	/*
	 * Reporting only (lint), legacy-gpu-resource has renamed nothing:
	 * what it would rename is what becomes a claim.
	 */
	for (size_t i = 0; !rule_mutates(ctx) &&
			   i <= cfg->vendor_gpu_resources.n; i++) {
		const char *other = i == 0 ? cfg->legacy_gpu_resource :
				    cfg->vendor_gpu_resources.items[i - 1];

		if (json_member(json_member(resources, "limits"), name) ||
		    json_member(json_member(resources, "requests"), name))
			break;
		name = other;
	}
	/*
	 * Reporting only, a container that asks for a legacy memory slice
	 * asks, once gpu-sharing has run, for one GPU with that memory.
	 */
	if (!rule_mutates(ctx) && run->capacity &&
	    !json_member(json_member(resources, "limits"), name) &&
	    !json_member(json_member(resources, "requests"), name) &&
	    (rc = memory_slice_report(ctx, c)) != 0)
		return rc < 0 ? -1 : 0;
	/* a shared GPU asks with the shared resource, when it has one */
	if (run->record &&
	    !json_member(json_member(resources, "limits"), name) &&
	    !json_member(json_member(resources, "requests"), name) &&
	    (json_member(json_member(resources, "limits"),
			 cfg->shared_gpu_resource) ||
	     json_member(json_member(resources, "requests"),
			 cfg->shared_gpu_resource)))
		name = cfg->shared_gpu_resource;
	rc = gpu_request_read(ctx, c, name, &req);
	if (rc == 0 && run->record)
		memory_record_find(run->record, json_string_value(json_member(
				c->container, "name")), req.memory,
				sizeof(req.memory));
	if (rc < 0) {
		gpu_request_clear(&req);
		return -1;
	}
	if (rc == 0 && req.count > 0 &&
	    run->n == sizeof(run->reqs) / sizeof(run->reqs[0])) {
		rc = rule_report(ctx, SEVERITY_ERROR, c->pointer, 0,
				 "more than %zu containers of the pod ask for GPUs; their claims are not made",
				 run->n) ? -1 : 1;
		if (rc < 0) {
			gpu_request_clear(&req);
			return -1;
		}
	}
	if (rc > 0 || req.count == 0) {
		run->bad |= rc > 0;
		gpu_request_clear(&req);
		return 0;
	}
	run->reqs[run->n] = req;
	run->where[run->n] = *c;
	if (!(run->where[run->n].pointer = strdup(c->pointer))) {
		gpu_request_clear(&req);
		return -1;
	}
	run->n++;
	return 0;
}

/*
 * 1 when dra-unsupported reported an error in the pod template whose
 * spec is `pod` (its spec, or its metadata beside it): the pod stays on
 * the device plugin, and what this target would make of it is noise. It
 * ran before (engine.c), in its mode and under the object's opt-outs.
 */
static int pod_unsupported(struct rule_ctx *ctx, struct pod_spec *pod)
{
	const char *slash = strrchr(pod->pointer, '/');
	size_t len = slash ? (size_t)(slash - pod->pointer) : 0;

	for (size_t i = 0; i < ctx->result->n_findings; i++) {
		const struct finding *f = &ctx->result->findings[i];

		if (f->rule == RULE_DRA_UNSUPPORTED &&
		    f->severity == SEVERITY_ERROR && f->pointer &&
		    strncmp(f->pointer, pod->pointer, len) == 0 &&
		    (f->pointer[len] == '\0' || f->pointer[len] == '/'))
			return 1;
	}
	return 0;
}

/*
 * Reporting only, with the rule in mutate mode: the templates migrate
 * would write as documents of their own go to result->documents all the
 * same, so that a front end that cannot write them (a JSON file) says so
 * as migrate would. A List takes them as items: nothing to say.
 */
static int templates_foresee(struct rule_ctx *ctx, struct dra_object *o,
			     struct pod_run *run, const char *selector)
{
	const char *kind = json_string_value(json_member(ctx->root, "kind"));

	if (ctx->cfg->mode[ctx->rule] != RULE_MODE_MUTATE || !o->base ||
	    (kind && strcmp(kind, "List") == 0))
		return 0;
	for (size_t i = 0; i < run->n; i++) {
		const char *why;
		char *tpl = template_for(ctx, o, run->reqs[i].count, selector,
					 run->reqs[i].memory, &why);

		if (!tpl && !why)
			return -1;
		free(tpl);
	}
	return 0;
}

static int dra_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	struct dra_object *o = arg;
	struct pod_run run = { .o = o };
	struct pod_models m = { 0 };
	char *selector = NULL;
	int rc;

	if (pod_unsupported(ctx, pod))
		return 0;
	/* opted in, a pod that shares a GPU asks for its memory */
	if (ctx->cfg->dra_consumable_capacity &&
	    pod_shares_gpu(ctx->cfg, pod)) {
		run.record = json_string_value(json_member(
			json_member(pod->metadata, "annotations"),
			ctx->cfg->memory_request_annotation));
		run.capacity = pod_memory_known(ctx->cfg, pod);
	}
	rc = pod_for_each_container(ctx, pod, collect_request, &run);
	if (rc || run.bad || run.n == 0)
		goto out;
	/*
	 * Claims are PodSpec fields (spec.resourceClaims, resources.claims):
	 * a pod of another form (an Argo template, a Tekton step, a KServe
	 * component) has nowhere to hold them.
	 */
	if (pod->form != &pod_form_spec) {
		for (size_t i = 0; !rc && i < run.n; i++)
			rc = rule_report(ctx, SEVERITY_ERROR,
					 run.reqs[i].limit ? run.reqs[i].limit :
					 run.reqs[i].request, 0,
					 "under target dra, this pod is no PodSpec and has no place for DRA claims: keep it on the device-plugin target");
		goto out;
	}
	if (run.record && (rc = sharing_affinity_remove(ctx, pod)) != 0)
		goto out;
	pod->spec = json_pointer_get(ctx->root, pod->pointer);
	if ((rc = pod_models_read(ctx, pod, &m)) != 0)
		goto out;
	if (m.kept)
		rc = rule_report(ctx, SEVERITY_WARNING, m.kept_pointer, 0,
				 "this GPU model constraint cannot become a DRA selector and stays as node affinity, which nodes without GPU Feature Discovery labels do not match");
	if (rc)
		goto out;
	if (!m.kept && m.models.n &&
	    !(selector = dra_model_selector_new(m.models.items, m.models.n,
						ctx->cfg->shared_product_suffix))) {
		rc = -1;
		goto out;
	}
	if (!rule_mutates(ctx)) {
		for (size_t i = 0; !rc && i < run.n; i++)
			rc = rule_report(ctx, SEVERITY_WARNING,
					 run.reqs[i].limit ? run.reqs[i].limit :
					 run.reqs[i].request, 0,
					 "under target dra, '%s: %lld' is to become a DRA claim on DeviceClass '%s'%s%s",
					 run.reqs[i].name, run.reqs[i].count,
					 ctx->cfg->dra_device_class,
					 *run.reqs[i].memory ?
					 " asking for memory capacity " : "",
					 run.reqs[i].memory);
		if (!rc && selector)
			rc = rule_report(ctx, SEVERITY_WARNING,
					 m.selector_key ? m.selector_key :
					 m.requirement, 0,
					 "under target dra, this GPU model constraint is to become the CEL selector of its DRA claims: %s",
					 selector);
		if (!rc)
			rc = templates_foresee(ctx, o, &run, selector);
		goto out;
	}
	if (!o->base) {
		if (!o->nameless) {
			char *at = json_pointer_join(ctx->object_pointer,
						     "metadata");

			o->nameless = 1;
			rc = at ? rule_report(ctx, SEVERITY_ERROR, at, 0,
					      "the ResourceClaimTemplate of its GPU claims needs a name: give the object metadata.name or generateName")
				: -1;
			free(at);
		}
		goto out;
	}
	for (size_t i = 0; !rc && i < run.n; i++) {
		const char *why;
		char *tpl = template_for(ctx, o, run.reqs[i].count, selector,
					 run.reqs[i].memory, &why);

		if (!tpl && why) {
			rc = rule_report(ctx, SEVERITY_ERROR,
					 run.reqs[i].limit ? run.reqs[i].limit :
					 run.reqs[i].request, 0,
					 "no name is left for its ResourceClaimTemplate ('%s-gpu' to '%s-gpu-%d' hold other requests)",
					 o->base, o->base, DRA_MAX_TEMPLATES);
			continue;
		}
		rc = tpl ? container_claim(ctx, pod, &run.where[i],
					   &run.reqs[i], tpl)
			 : -1;
		free(tpl);
	}
	if (!rc && selector) {
		rc = rule_report(ctx, SEVERITY_WARNING,
				 m.selector_key ? m.selector_key : m.requirement,
				 1,
				 "GPU model node constraint became the CEL selector of its DRA claims: %s",
				 selector);
		if (!rc)
			rc = pod_models_remove(ctx, pod, &m);
	}
out:
	for (size_t i = 0; i < run.n; i++) {
		gpu_request_clear(&run.reqs[i]);
		free((char *)run.where[i].pointer);
	}
	pod_models_clear(&m);
	free(selector);
	return rc;
}

int rule_run_dra(struct rule_ctx *ctx)
{
	struct dra_object o = { 0 };
	json_t *meta = json_member(ctx->object, "metadata");
	int oom, rc;

	o.namespace = json_string_value(json_member(meta, "namespace"));
	o.base = template_base(ctx->object, &oom);
	if (oom || !(o.made = json_array())) {
		free(o.base);
		return -1;
	}
	rc = rule_for_each_pod_spec(ctx, dra_pod, &o);
	json_decref(o.made);
	free(o.base);
	return rc;
}
