/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * values.c - the rules over the values of a Helm chart.
 *
 * A chart's values hold pieces of a pod that its templates put in place:
 * a `resources` mapping a template renders with toYaml, a `nodeSelector`,
 * an `affinity`, `tolerations`, `podAnnotations`, `podLabels`. Every
 * mapping of the values holding one of these (a "site") is read as one
 * pod with one container: a synthetic Pod is built from copies of its
 * members, the rules run over it as over any pod, and their operations
 * and findings are mapped back from the Pod's paths to the site's members
 * (spec/containers/0/resources to resources, metadata/labels to podLabels,
 * and so on). The rules themselves know nothing of values files.
 *
 * An operation the site cannot hold (a change of the pod that no member
 * of the site stands for, or one that depends on the container's name
 * when the templates do not tell it) is not made: it becomes a warning at
 * the site, so that the user changes the chart's templates instead; and
 * the other operations of its rule at that site are not made either,
 * since half a migration would hide what is left to do (a record that
 * only names the container, kept by gpu-sharing, is the exception: it is
 * reported, and the rest is made).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

/* A member of a site and where the synthetic Pod holds it. */
struct site_member {
	const char *key;        /* in the values */
	const char *pod_path;   /* in the synthetic Pod */
	int type;               /* JSON_OBJECT, JSON_ARRAY or JSON_STRING */
};

static const struct site_member site_members[] = {
	{ "resources", "/spec/containers/0/resources", JSON_OBJECT },
	{ "nodeSelector", "/spec/nodeSelector", JSON_OBJECT },
	{ "affinity", "/spec/affinity", JSON_OBJECT },
	{ "tolerations", "/spec/tolerations", JSON_ARRAY },
	{ "schedulerName", "/spec/schedulerName", JSON_STRING },
	{ "podAnnotations", "/metadata/annotations", JSON_OBJECT },
	{ "podLabels", "/metadata/labels", JSON_OBJECT },
	/* read with a site, never one by themselves */
	{ "env", "/spec/containers/0/env", JSON_ARRAY },
	{ "args", "/spec/containers/0/args", JSON_ARRAY },
	{ "command", "/spec/containers/0/command", JSON_ARRAY },
	{ "volumeMounts", "/spec/containers/0/volumeMounts", JSON_ARRAY },
	{ "volumes", "/spec/volumes", JSON_ARRAY },
	{ "image", "/spec/containers/0/image", JSON_STRING },
};

/* The members that make a mapping a site. */
#define SITE_MARKERS 7

static const struct site_member *member_of(const char *key, json_t *value)
{
	if (!value)
		return NULL;
	for (size_t i = 0; i < sizeof(site_members) / sizeof(site_members[0]);
	     i++)
		if (strcmp(site_members[i].key, key) == 0 &&
		    json_typeof(value) == (json_type)site_members[i].type)
			return &site_members[i];
	return NULL;
}

static int is_site(json_t *map)
{
	for (size_t i = 0; i < SITE_MARKERS; i++)
		if (member_of(site_members[i].key,
			      json_member(map, site_members[i].key)))
			return 1;
	return 0;
}

struct site_list {
	char **pointers;
	size_t n, cap;
};

static int collect_sites(json_t *node, const char *pointer,
			 struct site_list *sites, int depth);

/* collect_sites() on `child`, at `pointer_new` (taken, freed). */
static int collect_child(json_t *child, char *pointer_new,
			 struct site_list *sites, int depth)
{
	int rc;

	if (!pointer_new)
		return -1;
	rc = collect_sites(child, pointer_new, sites, depth);
	free(pointer_new);
	return rc;
}

static int collect_sites(json_t *node, const char *pointer,
			 struct site_list *sites, int depth)
{
	const char *key;
	json_t *child;
	size_t i;
	int site, rc = 0;

	if (depth > 64)
		return 0;
	if (json_is_array(node)) {
		json_array_foreach(node, i, child)
			if (!rc && (json_is_object(child) || json_is_array(child)))
				rc = collect_child(child,
						   json_pointer_join_index(pointer, i),
						   sites, depth + 1);
		return rc;
	}
	if (!json_is_object(node))
		return 0;
	site = is_site(node);
	if (site) {
		if (sites->n == sites->cap) {
			size_t cap = sites->cap ? sites->cap * 2 : 8;
			char **grown = realloc(sites->pointers,
					       cap * sizeof(*grown));

			if (!grown)
				return -1;
			sites->pointers = grown;
			sites->cap = cap;
		}
		if (!(sites->pointers[sites->n] = strdup(pointer)))
			return -1;
		sites->n++;
	}
	json_object_foreach(node, key, child)
		if (!rc && !(site && member_of(key, child)) &&
		    (json_is_object(child) || json_is_array(child)))
			rc = collect_child(child, json_pointer_join(pointer, key),
					   sites, depth + 1);
	return rc;
}

/* ".Values.a.b[0]" for the pointer of a site, in `out`. */
static void site_name(const char *pointer, char *out, size_t size)
{
	const char *p = pointer;
	size_t n = (size_t)snprintf(out, size, ".Values");

	while (*p && n < size) {
		char token[256];
		char *end;

		if (json_pointer_next(&p, token, sizeof(token)))
			break;
		strtoul(token, &end, 10);
		n += (size_t)snprintf(out + n, size - n,
				      *token && !*end ? "[%s]" : ".%s", token);
	}
}

/* The synthetic Pod of the site `map`: copies of its members. */
static json_t *site_pod_new(json_t *map, const char *name)
{
	json_t *pod = json_pack("{s:s,s:s,s:{s:s},s:{s:[{s:s}]}}",
				"apiVersion", "v1", "kind", "Pod",
				"metadata", "name", name,
				"spec", "containers", "name", name);
	json_t *image = json_member(map, "image");
	/* what a container sees of the GPUs is judged from its requests: a
	 * site without its resources (a template holds them) says nothing
	 * of its image or environment */
	int judged = json_is_object(json_member(map, "resources"));
	const char *key;
	json_t *value;

	if (!pod)
		return NULL;
	json_object_foreach(map, key, value) {
		const struct site_member *m = member_of(key, value);
		struct patch_op op = { .kind = PATCH_ADD };

		if (!m || (!judged && (strcmp(key, "image") == 0 ||
				       strcmp(key, "env") == 0)))
			continue;
		op.path = (char *)m->pod_path;
		op.value = json_deep_copy(value);
		if (!op.value || patch_apply_op(pod, &op) != 0) {
			json_decref(op.value);
			json_decref(pod);
			return NULL;
		}
		json_decref(op.value);
	}
	/* image: {repository, tag} as a chart writes it, for the rules that
	 * look at images; no rule changes an image */
	if (judged && json_is_object(image) &&
	    json_is_string(json_member(image, "repository"))) {
		json_t *tag = json_member(image, "tag");
		char *text = NULL;
		const char *repo = json_string_value(json_member(image,
								 "repository"));
		json_t *container = json_array_get(json_member(
			json_member(pod, "spec"), "containers"), 0);
		int len;

		if (json_is_string(tag) || json_is_number(tag)) {
			char *tag_text = json_is_string(tag) ?
				strdup(json_string_value(tag)) :
				json_text_new(tag, 0);

			len = tag_text ? snprintf(NULL, 0, "%s:%s", repo,
						  tag_text) : -1;
			if (len >= 0 && (text = malloc((size_t)len + 1)))
				snprintf(text, (size_t)len + 1, "%s:%s", repo,
					 tag_text);
			free(tag_text);
		} else {
			text = strdup(repo);
		}
		if (!text || json_object_set_new(container, "image",
						 json_text(text))) {
			free(text);
			json_decref(pod);
			return NULL;
		}
		free(text);
	}
	return pod;
}

/*
 * The pointer in the values of `pod_path` in the site at `site`, as a new
 * string; NULL when no member of the site stands for it (*unmapped set)
 * or when out of memory. `strict`: for a change, which the member must
 * hold as it is (an image made up from repository and tag cannot).
 */
static char *map_path(json_t *map, const char *site, const char *pod_path,
		      int strict, int *unmapped)
{
	*unmapped = 1;
	for (size_t i = 0; i < sizeof(site_members) / sizeof(site_members[0]);
	     i++) {
		const struct site_member *m = &site_members[i];
		size_t n = strlen(m->pod_path);
		char *base, *full;

		if (strncmp(pod_path, m->pod_path, n) != 0 ||
		    (pod_path[n] && pod_path[n] != '/'))
			continue;
		/* an image made up from repository and tag is not the site's */
		if (strict && strcmp(m->key, "image") == 0 &&
		    !json_is_string(json_member(map, "image")))
			return NULL;
		*unmapped = 0;
		if (!(base = json_pointer_join(site, m->key)))
			return NULL;
		full = malloc(strlen(base) + strlen(pod_path + n) + 1);
		if (full)
			sprintf(full, "%s%s", base, pod_path + n);
		free(base);
		return full;
	}
	return NULL;
}

static int result_push_finding(struct rules_result *res,
			       const struct finding *f, char *pointer_new)
{
	struct finding *copy;

	if (!pointer_new)
		return -1;
	if (res->n_findings == res->cap_findings) {
		size_t cap = res->cap_findings ? res->cap_findings * 2 : 8;
		struct finding *grown = realloc(res->findings,
						cap * sizeof(*grown));

		if (!grown) {
			free(pointer_new);
			return -1;
		}
		res->findings = grown;
		res->cap_findings = cap;
	}
	copy = &res->findings[res->n_findings];
	*copy = *f;
	copy->pointer = pointer_new;
	if (!(copy->message = strdup(f->message))) {
		free(pointer_new);
		return -1;
	}
	if (!copy->fixed && copy->severity == SEVERITY_ERROR)
		res->errors++;
	res->n_findings++;
	return 0;
}

/* A warning that the change `op` of the pod cannot be made in the values;
 * `named`: because it depends on the container's name. */
static int report_unmapped(struct rules_result *res, const char *site,
			   const struct patch_op *op, int named)
{
	static const char *verbs[] = { "add", "remove", "replace", "move" };
	struct finding f = { .rule = op->rule, .severity = SEVERITY_WARNING };
	char *value = op->value ? json_text_new(op->value, JSON_COMPACT) : NULL;
	const char *path = op->kind == PATCH_MOVE ? op->from : op->path;
	char *message;
	int len, rc;

	const char *why = named ?
		"which depends on the name the templates give the container" :
		"which no key here holds";
	const char *rest = named ? "" :
		" (the rule's other changes here are left as well)";

	len = snprintf(NULL, 0,
		       "not changed in the values: the rendered pod needs '%s %s%s%.80s%s', %s; change the chart's templates%s",
		       verbs[op->kind], path, value ? " " : "",
		       value ? value : "",
		       value && strlen(value) > 80 ? "..." : "", why, rest);
	message = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (!message) {
		free(value);
		return -1;
	}
	snprintf(message, (size_t)len + 1,
		 "not changed in the values: the rendered pod needs '%s %s%s%.80s%s', %s; change the chart's templates%s",
		 verbs[op->kind], path, value ? " " : "", value ? value : "",
		 value && strlen(value) > 80 ? "..." : "", why, rest);
	free(value);
	if (!(f.message = text_escape_controls(message)))
		return -1;
	rc = result_push_finding(res, &f, strdup(site));
	free(f.message);
	return rc;
}

/* 1 when `res` holds `op`. */
static int result_has(const struct rules_result *res, const struct patch_op *op)
{
	for (size_t i = 0; i < res->n_ops; i++)
		if (patch_op_equal(&res->ops[i], op))
			return 1;
	return 0;
}

static int run_site(const struct config *cfg, const struct rules_options *opts,
		    json_t *values, const char *site, values_name_fn name_of,
		    void *name_arg, struct rules_result *result,
		    struct rules_error *err)
{
	json_t *map = json_pointer_get(values, site), *pod, *other = NULL;
	struct rules_result sub, renamed;
	const char *known = name_of ? name_of(name_arg, site) : NULL;
	unsigned banned = 0;
	char name[512];
	int rc = -1;

	if (!json_is_object(map))
		return 0;
	site_name(site, name, sizeof(name));
	if (!(pod = site_pod_new(map, known ? known : name)))
		goto out_nomem;
	rules_result_init(&sub);
	rules_result_init(&renamed);
	if (rules_apply(cfg, opts, pod, &sub, err) != 0)
		goto out_free;
	if (!known) {
		/* what depends on the container's name differs under another */
		strncat(name, "~", sizeof(name) - strlen(name) - 1);
		if (!(other = site_pod_new(map, name)))
			goto out_nomem_sub;
		if (rules_apply(cfg, opts, other, &renamed, err) != 0)
			goto out_free;
		name[strlen(name) - 1] = '\0';
	}
	for (size_t i = 0; i < sub.n_findings; i++) {
		const struct finding *f = &sub.findings[i];
		int unmapped;
		char *at = map_path(map, site, f->pointer, 0, &unmapped);

		if (unmapped)
			at = strdup(site);
		if (result_push_finding(result, f, at))
			goto out_nomem_sub;
	}
	result->denied |= sub.denied;
	/* a rule with a change the values cannot hold makes none of its
	 * changes here: half a migration would hide what is left to do */
	for (size_t i = 0; i < sub.n_ops; i++) {
		struct patch_op *op = &sub.ops[i];
		int unmapped = 0, unmapped_from = 0;
		char *path, *from = NULL;

		/* what names a container the templates name (a record of
		 * gpu-sharing) is reported, and the rest is made */
		if (!known && !result_has(&renamed, op))
			continue;
		path = map_path(map, site, op->path, 1, &unmapped);
		if (op->from)
			from = map_path(map, site, op->from, 1, &unmapped_from);
		free(path);
		free(from);
		if (unmapped || unmapped_from)
			banned |= 1u << op->rule;
	}
	for (size_t i = 0; i < sub.n_ops; i++) {
		struct patch_op *op = &sub.ops[i], mapped = *op;
		int unmapped = 0, unmapped_from = 0, named;

		named = !known && !result_has(&renamed, op);
		if (named) {
			if (report_unmapped(result, site, op, 1))
				goto out_nomem_sub;
			continue;
		}
		if (banned >> op->rule & 1) {
			/* the changes that cannot be made say so */
			free(map_path(map, site, op->path, 1, &unmapped));
			if (op->from)
				free(map_path(map, site, op->from, 1,
					      &unmapped_from));
			if (!named && (unmapped || unmapped_from) &&
			    report_unmapped(result, site, op, 0))
				goto out_nomem_sub;
			continue;
		}
		mapped.path = map_path(map, site, op->path, 1, &unmapped);
		mapped.from = op->from ? map_path(map, site, op->from, 1,
						  &unmapped_from) : NULL;
		if (!mapped.path || (op->from && !mapped.from) ||
		    patch_apply_op_copy(values, &mapped) != 0) {
			int nomem = !mapped.path || (op->from && !mapped.from);

			free(mapped.path);
			free(mapped.from);
			if (nomem || report_unmapped(result, site, op, 0))
				goto out_nomem_sub;
			continue;
		}
		if (result->n_ops == result->cap_ops) {
			size_t cap = result->cap_ops ? result->cap_ops * 2 : 8;
			struct patch_op *grown = realloc(result->ops,
							 cap * sizeof(*grown));

			if (!grown) {
				free(mapped.path);
				free(mapped.from);
				goto out_nomem_sub;
			}
			result->ops = grown;
			result->cap_ops = cap;
		}
		op->value = NULL; /* the mapped copy owns it now */
		result->ops[result->n_ops++] = mapped;
	}
	rc = 0;
	goto out_free;
out_nomem_sub:
	snprintf(err->pointer, sizeof(err->pointer), "%s", site);
	snprintf(err->message, sizeof(err->message), "out of memory");
out_free:
	rules_result_clear(&sub);
	rules_result_clear(&renamed);
	json_decref(pod);
	json_decref(other);
	return rc;
out_nomem:
	snprintf(err->pointer, sizeof(err->pointer), "%s", site);
	snprintf(err->message, sizeof(err->message), "out of memory");
	return -1;
}

int rules_apply_values(const struct config *cfg,
		       const struct rules_options *opts, json_t *values,
		       values_name_fn name_of, void *name_arg,
		       struct rules_result *result, struct rules_error *err)
{
	struct site_list sites = { 0 };
	struct rules_error scratch;
	int rc = 0;

	if (!err)
		err = &scratch;
	if (!json_is_object(values))
		return 0;
	if (collect_sites(values, "", &sites, 0)) {
		snprintf(err->pointer, sizeof(err->pointer), "%s", "");
		snprintf(err->message, sizeof(err->message), "out of memory");
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && i < sites.n; i++)
		rc = run_site(cfg, opts, values, sites.pointers[i], name_of,
			      name_arg, result, err);
	for (size_t i = 0; i < sites.n; i++)
		free(sites.pointers[i]);
	free(sites.pointers);
	return rc;
}
