/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pod_shapes.c - where the pod specs of each registered kind are, and of
 * what form: for the engine's pod discovery, the webhook's registration
 * and its CEL match conditions.
 *
 * The engine finds a PodSpec in any mapping that holds a containers list;
 * a pod spec of another form (an Argo template, whose one container is
 * `container:` or `script:`) it finds only at the paths of the row of the
 * object's kind. CEL cannot search an object, so the conditions walk the
 * paths of every row, and the registration lists exactly these resources
 * (and those of webhook.customResources, which win over a built-in row
 * for the same resource).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

const struct pod_form pod_form_spec = {
	"PodSpec",
	{ { "initContainers", 0 }, { "containers", 0 },
	  { "ephemeralContainers", 0 } },
	0, 0, NULL, { { NULL, NULL } }, NULL,
};

/*
 * The placement of a run whose task specs are not in it (a TaskRun of a
 * taskRef): a pod of no containers, its nodeSelector, affinity,
 * tolerations and volumes its own.
 */
const struct pod_form pod_form_placement = {
	"pod template", { { NULL, 0 } }, 0, 0, NULL, { { NULL, NULL } }, NULL,
};

/*
 * An Argo Workflows template: the pod of one step. Its container is
 * `container:`, `script:` (a container with a `source`) or the list of
 * `containerSet:`, beside `initContainers` and `sidecars`; the pod-level
 * fields (nodeSelector, affinity, tolerations, volumes, schedulerName,
 * priorityClassName) are the template's own, and so is the pod's
 * `metadata` (annotations, labels). The containerSet itself is listed
 * too: its `volumeMounts` go into each of its containers, so a volume
 * removed goes from there as well (it has no image or resources for
 * another rule to read).
 */
static const struct pod_form argo_template = {
	"Argo template",
	{ { "initContainers", 0 }, { "container", 1 }, { "script", 1 },
	  { "containerSet", 1 }, { "containerSet/containers", 0 },
	  { "sidecars", 0 } },
	1, 0, NULL,
	/* a workflow's templateDefaults (Argo 3.1), merged under each
	 * template of the same type: the template is spec.templates.N */
	{ { "container", "../../templateDefaults/container" },
	  { "script", "../../templateDefaults/script" } },
	/* the pod's name for the template's one container (and, unused, for
	 * the containerSet, which has no image) */
	"main",
};

/*
 * A KServe InferenceService component (predictor, transformer,
 * explainer): a PodSpec inline, whose pod-level fields are its own, and
 * the predictor's one serving container, `model:` or, before KServe 0.8,
 * one member per framework. Its annotations and labels are members of
 * its own, not a metadata mapping: rules that label a pod leave it alone.
 */
static const struct pod_form kserve_component = {
	"KServe component",
	{ { "initContainers", 0 }, { "containers", 0 }, { "model", 1 },
	  { "tensorflow", 1 }, { "pytorch", 1 }, { "sklearn", 1 },
	  { "xgboost", 1 }, { "onnx", 1 }, { "triton", 1 }, { "pmml", 1 },
	  { "lightgbm", 1 }, { "paddle", 1 }, { "huggingface", 1 } },
	0, 0, NULL, { { NULL, NULL } }, "kserve-container",
};

/*
 * A Tekton task spec (a Task's, a ClusterTask's, one embedded in a
 * TaskRun or in a Pipeline's task): its containers are `steps`,
 * `sidecars` and the `stepTemplate` they start from; in tekton.dev/v1 a
 * step's resources are `computeResources` (container_resources_name()).
 * Its `volumes` are its own, but it has no placement: a TaskRun's or a
 * PipelineRun's podTemplate gives the pod its nodeSelector, affinity,
 * tolerations and priorityClassName (the form's `placement`).
 */
#define TEKTON_CONTAINERS \
	{ { "steps", 0 }, { "sidecars", 0 }, { "stepTemplate", 1 } }
/* each step starts from the stepTemplate, sidecars do not; and the one
 * single member, the stepTemplate, is no container of the pod, so it has
 * no name to be given */
#define TEKTON_BASES { { "steps", "stepTemplate" } }, NULL

static const struct pod_form tekton_task = {
	"Tekton task spec", TEKTON_CONTAINERS, 0, 1, NULL, TEKTON_BASES,
};

static const struct pod_form tekton_taskrun = {
	"Tekton task spec", TEKTON_CONTAINERS, 0, 1, "spec.podTemplate",
	TEKTON_BASES,
};

static const struct pod_form tekton_pipelinerun = {
	"Tekton task spec", TEKTON_CONTAINERS, 0, 1,
	"spec.taskRunTemplate.podTemplate", TEKTON_BASES,
};

/* before tekton.dev/v1, a PipelineRun's podTemplate was spec's own */
static const struct pod_form tekton_pipelinerun_v1beta1 = {
	"Tekton task spec", TEKTON_CONTAINERS, 0, 1, "spec.podTemplate",
	TEKTON_BASES,
};

static const struct pod_shape shapes[] = {
	{ "", "v1", "pods", "Pod", 0, NULL, { "spec" } },
	{ "", "v1", "replicationcontrollers", "ReplicationController", 0, NULL,
	  { "spec.template.spec" } },
	{ "", "v1", "podtemplates", "PodTemplate", 0, NULL,
	  { "template.spec" } },
	{ "apps", "v1", "deployments", "Deployment", 0, NULL,
	  { "spec.template.spec" } },
	{ "apps", "v1", "replicasets", "ReplicaSet", 0, NULL,
	  { "spec.template.spec" } },
	{ "apps", "v1", "statefulsets", "StatefulSet", 0, NULL,
	  { "spec.template.spec" } },
	{ "apps", "v1", "daemonsets", "DaemonSet", 0, NULL,
	  { "spec.template.spec" } },
	/* v1beta1: CronJobs before Kubernetes 1.21 had no v1 to convert to */
	{ "batch", "v1,v1beta1", "jobs", "Job", 0, NULL,
	  { "spec.template.spec" } },
	{ "batch", "v1,v1beta1", "cronjobs", "CronJob", 0, NULL,
	  { "spec.jobTemplate.spec.template.spec" } },
	/* Kubeflow's training operator and notebooks */
	{ "kubeflow.org", "*", "tfjobs", "TFJob", 0, NULL,
	  { "spec.tfReplicaSpecs.*.template.spec" } },
	{ "kubeflow.org", "*", "pytorchjobs", "PyTorchJob", 0, NULL,
	  { "spec.pytorchReplicaSpecs.*.template.spec" } },
	{ "kubeflow.org", "*", "mpijobs", "MPIJob", 0, NULL,
	  { "spec.mpiReplicaSpecs.*.template.spec" } },
	{ "kubeflow.org", "*", "xgboostjobs", "XGBoostJob", 0, NULL,
	  { "spec.xgbReplicaSpecs.*.template.spec" } },
	{ "kubeflow.org", "*", "paddlejobs", "PaddleJob", 0, NULL,
	  { "spec.paddleReplicaSpecs.*.template.spec" } },
	{ "kubeflow.org", "*", "notebooks", "Notebook", 0, NULL,
	  { "spec.template.spec" } },
	/* Volcano's jobs: a list of tasks */
	{ "batch.volcano.sh", "*", "jobs", "Job", 0, NULL,
	  { "spec.tasks.*.template.spec" } },
	/* KubeRay: a head group and a list of worker groups */
	{ "ray.io", "*", "rayclusters", "RayCluster", 0, NULL,
	  { "spec.headGroupSpec.template.spec",
	    "spec.workerGroupSpecs.*.template.spec" } },
	{ "ray.io", "*", "rayjobs", "RayJob", 0, NULL,
	  { "spec.rayClusterSpec.headGroupSpec.template.spec",
	    "spec.rayClusterSpec.workerGroupSpecs.*.template.spec" } },
	{ "ray.io", "*", "rayservices", "RayService", 0, NULL,
	  { "spec.rayClusterConfig.headGroupSpec.template.spec",
	    "spec.rayClusterConfig.workerGroupSpecs.*.template.spec" } },
	/* Argo Rollouts: a Deployment's template */
	{ "argoproj.io", "*", "rollouts", "Rollout", 0, NULL,
	  { "spec.template.spec" } },
	/* Argo Workflows: every template of the workflow's spec, and the
	 * defaults every template starts from (Argo 3.1 and later) */
	{ "argoproj.io", "*", "workflows", "Workflow", 0, &argo_template,
	  { "spec.templates.*", "spec.templateDefaults" } },
	{ "argoproj.io", "*", "workflowtemplates", "WorkflowTemplate", 0,
	  &argo_template, { "spec.templates.*", "spec.templateDefaults" } },
	{ "argoproj.io", "*", "cronworkflows", "CronWorkflow", 0,
	  &argo_template,
	  { "spec.workflowSpec.templates.*",
	    "spec.workflowSpec.templateDefaults" } },
	{ "argoproj.io", "*", "clusterworkflowtemplates",
	  "ClusterWorkflowTemplate", 1, &argo_template,
	  { "spec.templates.*", "spec.templateDefaults" } },
	/* KServe: the components of an InferenceService */
	{ "serving.kserve.io", "*", "inferenceservices", "InferenceService", 0,
	  &kserve_component,
	  { "spec.predictor", "spec.transformer", "spec.explainer" } },
	/* Knative Serving: a pod template, and a revision's own spec */
	{ "serving.knative.dev", "*", "services", "Service", 0, NULL,
	  { "spec.template.spec" } },
	{ "serving.knative.dev", "*", "configurations", "Configuration", 0,
	  NULL, { "spec.template.spec" } },
	{ "serving.knative.dev", "*", "revisions", "Revision", 0, NULL,
	  { "spec" } },
	/* Tekton Pipelines: task specs, placed by a run's podTemplate */
	{ "tekton.dev", "v1,v1beta1", "tasks", "Task", 0, &tekton_task,
	  { "spec" } },
	{ "tekton.dev", "v1,v1beta1", "taskruns", "TaskRun", 0,
	  &tekton_taskrun, { "spec.taskSpec" } },
	{ "tekton.dev", "v1,v1beta1", "pipelines", "Pipeline", 0,
	  &tekton_task, { "spec.tasks.*.taskSpec", "spec.finally.*.taskSpec" } },
	{ "tekton.dev", "v1", "pipelineruns", "PipelineRun", 0,
	  &tekton_pipelinerun,
	  { "spec.pipelineSpec.tasks.*.taskSpec",
	    "spec.pipelineSpec.finally.*.taskSpec" } },
	{ "tekton.dev", "v1beta1", "pipelineruns", "PipelineRun", 0,
	  &tekton_pipelinerun_v1beta1,
	  { "spec.pipelineSpec.tasks.*.taskSpec",
	    "spec.pipelineSpec.finally.*.taskSpec" } },
	{ "tekton.dev", "v1beta1", "clustertasks", "ClusterTask", 1,
	  &tekton_task, { "spec" } },
};

const struct pod_shape *rules_pod_shapes(size_t *n)
{
	*n = sizeof(shapes) / sizeof(shapes[0]);
	return shapes;
}

/* 1 when `versions` ("v1,v1beta1", "*") names `version`. */
static int versions_have(const char *versions, const char *version)
{
	size_t len = strlen(version);

	if (!strcmp(versions, "*"))
		return 1;
	while (*versions) {
		size_t item = strcspn(versions, ",");

		if (item == len && !strncmp(versions, version, len))
			return 1;
		versions += item + (versions[item] == ',');
	}
	return 0;
}

const struct pod_shape *pod_shape_next(const char *group, const char *version,
				       const char *kind, size_t *from)
{
	size_t n = sizeof(shapes) / sizeof(shapes[0]);

	if (!kind)
		return NULL;
	for (; *from < n; (*from)++) {
		const struct pod_shape *s = &shapes[*from];

		if (s->form && !strcmp(s->group, group) &&
		    !strcmp(s->kind, kind) &&
		    versions_have(s->versions, version)) {
			(*from)++;
			return s;
		}
	}
	return NULL;
}

json_t *pod_member_get(json_t *spec, const char *path)
{
	json_t *node = spec;

	while (node && *path) {
		const char *slash = strchr(path, '/');
		size_t len = slash ? (size_t)(slash - path) : strlen(path);

		if (!json_is_object(node))
			return NULL;
		node = json_object_getn(node, path, len);
		path += len + (slash != NULL);
	}
	return node;
}

json_t *pod_next_container(const struct pod_form *form, json_t *spec,
			   struct container_cursor *cur)
{
	for (; cur->member < sizeof(form->members) / sizeof(*form->members) &&
	       form->members[cur->member].path;
	     cur->member++, cur->index = 0) {
		const struct container_member *m = &form->members[cur->member];
		json_t *value = pod_member_get(spec, m->path), *c;

		if (m->single) {
			if (cur->index++ == 0 && json_is_object(value))
				return value;
			continue;
		}
		while ((c = json_array_get(value, cur->index)) != NULL) {
			cur->index++;
			if (json_is_object(c))
				return c;
		}
	}
	return NULL;
}

int rules_pod_shape_registered(const struct config *cfg, const char *group,
			       const char *resource)
{
	size_t n = sizeof(shapes) / sizeof(shapes[0]);

	if (!group || !resource)
		return 0;
	for (size_t i = 0; i < cfg->n_custom_resources; i++)
		if (!strcmp(cfg->custom_resources[i].group, group) &&
		    string_list_has(&cfg->custom_resources[i].resources,
				    resource))
			return 1;
	if (!strcmp(group, "extensions"))
		group = "apps";
	for (size_t i = 0; i < n; i++)
		if (!strcmp(shapes[i].group, group) &&
		    !strcmp(shapes[i].resource, resource))
			return 1;
	return 0;
}

/* CEL's reserved words, which cannot follow a '.'. */
static const char *const cel_reserved[] = {
	"as", "break", "const", "continue", "else", "false", "for",
	"function", "if", "import", "in", "let", "loop", "package",
	"namespace", "null", "return", "true", "var", "void", "while",
};

/* 1 for [A-Za-z_], and digits too when `digits` is 1. */
static int ident_char(char c, int digits)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (digits && c >= '0' && c <= '9');
}

static int member_valid(const char *name, size_t len)
{
	if (!len || !ident_char(name[0], 0))
		return 0;
	for (size_t i = 1; i < len; i++)
		if (!ident_char(name[i], 1))
			return 0;
	for (size_t i = 0; i < sizeof(cel_reserved) / sizeof(*cel_reserved); i++)
		if (strlen(cel_reserved[i]) == len &&
		    !strncmp(name, cel_reserved[i], len))
			return 0;
	return 1;
}

int rules_pod_path_check(const char *path, char *why, size_t size)
{
	const char *p = path;
	int stars = 0, first = 1;

	for (;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);

		if (len == 1 && *p == '*') {
			if (first) {
				snprintf(why, size, "'*' cannot be the first member");
				return -1;
			}
			if (++stars > 1) {
				snprintf(why, size, "at most one '*' per path");
				return -1;
			}
		} else if (!member_valid(p, len)) {
			snprintf(why, size,
				 "'%.*s' is not a member name the conditions can read (letters, digits, '_', no CEL reserved word)",
				 (int)(len > 40 ? 40 : len), p);
			return -1;
		}
		first = 0;
		if (!dot)
			return 0;
		p = dot + 1;
	}
}

/*
 * Appends the tests that base.path[0..len) ("a.b") is there and can be
 * read on: "has(base.a) && type(base.a) == map && has(base.a.b) && ...",
 * the last member's type tested only when `last_map` is 1. A custom
 * resource's schema may let a member be null (nullable, or unknown fields
 * preserved), and reading on from a null would be an error: under
 * failurePolicy Fail, a refused object.
 */
static void cel_guards(struct cel_text *t, const char *base, const char *path,
		       size_t len, int last_map)
{
	size_t end = 0;
	int any = 0;

	while (end < len) {
		const char *dot = memchr(path + end, '.', len - end);

		end = dot ? (size_t)(dot - path) : len;
		if (any)
			cel_add(t, " && ");
		cel_addf(t, "has(%s.%.*s)", base, (int)end, path);
		if (end < len || last_map)
			cel_addf(t, " && type(%s.%.*s) == map", base, (int)end,
				 path);
		any = 1;
		end++;
	}
	if (!any)
		cel_add(t, "true");
}

/* Appends base.path[0..len) ("base" alone when len is 0). */
static void cel_at(struct cel_text *t, const char *base, const char *path,
		   size_t len)
{
	cel_addf(t, len ? "%s.%.*s" : "%s", base, (int)len, path);
}

/*
 * Appends the CEL list of the containers of the pod spec at
 * base.path[0..len), of form `form`: each member of a list that is there,
 * or the one container of a member that holds one.
 */
static void cel_containers(struct cel_text *t, const char *base,
			   const char *path, size_t len,
			   const struct pod_form *form)
{
	cel_add(t, "(");
	for (size_t i = 0; i < sizeof(form->members) / sizeof(*form->members) &&
			   form->members[i].path; i++) {
		const struct container_member *m = &form->members[i];
		struct cel_text spec = { 0 }, member = { 0 };

		cel_at(&spec, base, path, len);
		cel_add(&member, m->path);
		for (char *c = member.s; c && *c; c++)
			if (*c == '/')
				*c = '.';
		if (spec.failed || member.failed)
			t->failed = 1;
		if (i)
			cel_add(t, " + ");
		cel_add(t, "(");
		cel_guards(t, spec.s ? spec.s : "", member.s ? member.s : "",
			   member.len, 0);
		cel_addf(t, " && type(%s.%s) == %s ? ", spec.s, member.s,
			 m->single ? "map" : "list");
		cel_addf(t, m->single ? "[%s.%s]" : "%s.%s", spec.s, member.s);
		cel_add(t, " : [])");
		cel_text_free(&spec);
		cel_text_free(&member);
	}
	cel_add(t, ")");
}

/*
 * One {'m', 's'} map for the pod spec at base.path[0..len), and 'c', the
 * list of its containers, when its form is not a PodSpec (CEL_CONTAINERS
 * reads a PodSpec's lists itself). Its metadata is its own "metadata"
 * when its form says so, else the "metadata" beside it when the path ends
 * in "spec" (and a mapping), else the object's for a Tekton task spec,
 * else {}.
 */
static void cel_pod_map(struct cel_text *t, const char *base, const char *path,
			size_t len, const struct pod_form *form)
{
	const char *last = path;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '.')
			last = path + i + 1;
	cel_add(t, "{'m': ");
	if (form && form->own_metadata) {
		cel_add(t, "has(");
		cel_at(t, base, path, len);
		cel_add(t, ".metadata) && type(");
		cel_at(t, base, path, len);
		cel_add(t, ".metadata) == map ? ");
		cel_at(t, base, path, len);
		cel_add(t, ".metadata : {}");
	} else if ((size_t)(path + len - last) == 4 &&
		   !strncmp(last, "spec", 4)) {
		int parent = (int)(last - path);

		cel_addf(t, "has(%s.%.*smetadata) && type(%s.%.*smetadata) == map"
			 " ? %s.%.*smetadata : {}", base, parent, path, base,
			 parent, path, base, parent, path);
	} else if (form && form->placed_apart) {
		/* a Tekton task spec: the rules read the annotations of the
		 * object (pod_annotation()), a run's, which Tekton copies
		 * onto the pod */
		cel_add(t, "has(object.metadata) && type(object.metadata) == map"
			" ? object.metadata : {}");
	} else {
		/* dyn(): {} alone would give the map literal a map type */
		cel_add(t, "dyn({})");
	}
	cel_add(t, ", 's': ");
	cel_at(t, base, path, len);
	if (form && form != &pod_form_spec) {
		/* dyn(): the values of the map literal are of one type */
		cel_add(t, ", 'c': dyn");
		cel_containers(t, base, path, len, form);
	}
	cel_add(t, "}");
}

/* The list of pods at one path of the request's object, of form `form`
 * (NULL: a PodSpec). */
static void cel_path(struct cel_text *t, const char *path,
		     const struct pod_form *form)
{
	const char *star = strstr(path, ".*");

	if (!star || (star[2] && star[2] != '.')) {
		cel_add(t, "(");
		cel_guards(t, "object", path, strlen(path), 1);
		cel_add(t, " ? [");
		cel_pod_map(t, "object", path, strlen(path), form);
		cel_add(t, "] : [])");
		return;
	}
	/* prefix.*.suffix: the elements of a list, or the values of a map */
	{
		int prefix = (int)(star - path);
		const char *suffix = star[2] ? star + 3 : "";

		cel_add(t, "(");
		cel_guards(t, "object", path, (size_t)prefix, 0);
		cel_addf(t, " ? (type(object.%.*s) == list ? object.%.*s : "
			 "type(object.%.*s) == map ? "
			 "object.%.*s.map(k, object.%.*s[k]) : []) : [])",
			 prefix, path, prefix, path, prefix, path, prefix, path,
			 prefix, path);
		cel_add(t, ".filter(x, type(x) == map");
		if (*suffix) {
			cel_add(t, " && ");
			cel_guards(t, "x", suffix, strlen(suffix), 1);
		}
		cel_add(t, ").map(x, ");
		cel_pod_map(t, "x", suffix, strlen(suffix), form);
		cel_add(t, ")");
	}
}

/*
 * The placement of a form that has it apart (a TaskRun's podTemplate),
 * as one more pod of no containers: the conditions of what a rule reads
 * there (a legacy node selector) hold on it as on a pod spec's own.
 */
static void cel_placement(struct cel_text *t, const struct pod_form *form)
{
	const char *path = form->placement;

	cel_add(t, " + (");
	cel_guards(t, "object", path, strlen(path), 1);
	cel_add(t, " ? [{'m': dyn({}), 's': ");
	cel_at(t, "object", path, strlen(path));
	cel_add(t, ", 'c': dyn([])}] : [])");
}

/* 1 when rows `a` and `b` are of one resource (of versions apart). */
static int same_resource(const struct pod_shape *a, const struct pod_shape *b)
{
	return !strcmp(a->group, b->group) && !strcmp(a->resource, b->resource);
}

/* The pods of every path of a NULL-terminated (or n-long) list. */
static void cel_paths(struct cel_text *t, const char *const *paths, size_t n,
		      const struct pod_form *form)
{
	for (size_t i = 0; i < n && paths[i]; i++) {
		if (i)
			cel_add(t, " + ");
		cel_path(t, paths[i], form);
	}
}

/*
 * Appends the test of the request's group for a row of `group`. Under
 * matchPolicy Equivalent the API server sends a Deployment made through
 * extensions/v1beta1 to a rule for apps, and the conditions may see the
 * request's resource as it was made (kube-apiserver builds their `request`
 * from the request's attributes): so a row of apps takes extensions too.
 */
static void cel_group(struct cel_text *t, const char *group)
{
	if (!strcmp(group, "apps")) {
		cel_add(t, "request.resource.group in ['apps', 'extensions']");
		return;
	}
	cel_add(t, "request.resource.group == ");
	cel_quote(t, group);
}

/* 1 when rows `a` and `b` look for pods alike: the same group, one and
 * the same path, the same form. */
static int same_test(const struct pod_shape *a, const struct pod_shape *b)
{
	return !strcmp(a->group, b->group) && !a->paths[1] && !b->paths[1] &&
	       !strcmp(a->paths[0], b->paths[0]) && a->form == b->form;
}

void pod_shapes_cel(const struct config *cfg, struct cel_text *t)
{
	size_t n = sizeof(shapes) / sizeof(shapes[0]);

	/* a chain of ?: by resource; the config's own rows first */
	for (size_t i = 0; i < cfg->n_custom_resources; i++) {
		const struct custom_resource *cr = &cfg->custom_resources[i];

		cel_add(t, "(");
		cel_group(t, cr->group);
		cel_add(t, " && request.resource.resource in ");
		cel_quote_list(t, &cr->resources);
		cel_add(t, ") ? ");
		cel_paths(t, (const char *const *)cr->pod_specs.items,
			  cr->pod_specs.n, NULL);
		cel_add(t, " : ");
	}
	for (size_t i = 0; i < n; i++) {
		const struct pod_shape *s = &shapes[i];
		size_t j;

		/* rows of a group with the same paths and form are one test,
		 * and so are the rows of a resource's versions */
		if (i > 0 && (same_test(&shapes[i - 1], s) ||
			      same_resource(&shapes[i - 1], s)))
			continue;
		cel_add(t, "(");
		cel_group(t, s->group);
		cel_add(t, " && request.resource.resource in [");
		for (j = i; j < n && (j == i || same_test(&shapes[j], s)); j++) {
			if (j > i)
				cel_add(t, ", ");
			cel_quote(t, shapes[j].resource);
		}
		cel_add(t, "]) ? ");
		cel_paths(t, s->paths, 4, s->form);
		/* a resource's versions differ in the placement alone */
		for (j = i; j < n && same_resource(&shapes[j], s); j++)
			if (shapes[j].form && shapes[j].form->placement)
				cel_placement(t, shapes[j].form);
		cel_add(t, " : ");
	}
	cel_add(t, "[]");
}
