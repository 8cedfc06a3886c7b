/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * removed_gpu_feature_gate.c - the Accelerators and DevicePlugins feature
 * gates, which no longer exist.
 *
 * Kubernetes components refuse to start when --feature-gates names a gate
 * they do not know, so a static pod manifest (kube-apiserver, kubelet run
 * in a pod) or a KubeletConfiguration that still sets one of these breaks
 * the node on upgrade. Lint only: whether to drop the gate or pin the
 * component is the operator's call.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rules_private.h"

#define FLAG "--feature-gates"

static const struct removed_gate {
	const char *name;
	const char *removed_in;
} removed_gates[] = {
	{ "Accelerators", "1.12" },
	{ "DevicePlugins", "1.28" },
};

#define N_REMOVED_GATES (sizeof(removed_gates) / sizeof(removed_gates[0]))

static int report_gate(struct rule_ctx *ctx, const char *pointer,
		       const struct removed_gate *gate)
{
	return rule_report(ctx, SEVERITY_ERROR, pointer, 0,
			   "feature gate '%s' was removed in Kubernetes %s; the component will not start with it",
			   gate->name, gate->removed_in);
}

/*
 * Reports every removed gate in the gate list `list` (`len` bytes,
 * "Name=bool,Name=bool"), found in the string at `pointer`.
 */
static int check_gate_list(struct rule_ctx *ctx, const char *pointer,
			   const char *list, size_t len)
{
	const char *p = list, *end = list + len;

	while (p < end) {
		const char *start, *stop;

		while (p < end && (*p == ',' || isspace((unsigned char)*p)))
			p++;
		start = p;
		while (p < end && *p != ',')
			p++;
		stop = memchr(start, '=', (size_t)(p - start));
		if (!stop)
			stop = p;
		while (stop > start && isspace((unsigned char)stop[-1]))
			stop--;
		for (size_t g = 0; g < N_REMOVED_GATES; g++) {
			const char *name = removed_gates[g].name;

			if ((size_t)(stop - start) == strlen(name) &&
			    strncmp(start, name, (size_t)(stop - start)) == 0 &&
			    report_gate(ctx, pointer, &removed_gates[g]))
				return -1;
		}
	}
	return 0;
}

/* Reports the gate list that starts at `p` in a string, up to the end of
 * its shell word (quotes stripped). */
static int check_word(struct rule_ctx *ctx, const char *pointer,
		      const char *p)
{
	const char *end;

	if (*p == '"' || *p == '\'') {
		end = strchr(p + 1, *p);
		p++;
		if (!end)
			end = p + strlen(p);
	} else {
		end = p;
		while (*end && !isspace((unsigned char)*end) && *end != ';' &&
		       *end != '"' && *end != '\'')
			end++;
	}
	return check_gate_list(ctx, pointer, p, (size_t)(end - p));
}

/* One argument of a command line: its string and pointer. */
struct argument {
	const char *text;
	char *pointer;
};

/*
 * Looks for --feature-gates in argument `i` of `argv`: "--feature-gates=L",
 * "--feature-gates" followed by the argument L, or either form inside a
 * shell string ("kubelet --feature-gates=L ...").
 */
static int check_argument(struct rule_ctx *ctx, struct argument *argv,
			  size_t argc, size_t i)
{
	const char *text = argv[i].text, *p = text;

	while ((p = strstr(p, FLAG)) != NULL) {
		const char *after = p + strlen(FLAG);
		int whole = p == text;
		int word_start = whole || isspace((unsigned char)p[-1]) ||
				 p[-1] == '"' || p[-1] == '\'';

		p = after;
		if (!word_start)
			continue;
		if (*after == '=' && whole) {
			/* an argument of its own: the rest is the list */
			if (check_gate_list(ctx, argv[i].pointer, after + 1,
					    strlen(after + 1)))
				return -1;
		} else if (*after == '=') {
			if (check_word(ctx, argv[i].pointer, after + 1))
				return -1;
		} else if (*after == '\0') {
			/* the list is the next argument */
			if (i + 1 < argc &&
			    check_gate_list(ctx, argv[i + 1].pointer,
					    argv[i + 1].text,
					    strlen(argv[i + 1].text)))
				return -1;
		} else if (isspace((unsigned char)*after)) {
			/* "--feature-gates L" inside a shell string */
			while (isspace((unsigned char)*after))
				after++;
			if (*after != '-' && check_word(ctx, argv[i].pointer,
							after))
				return -1;
		}
	}
	return 0;
}

/* Appends the strings of `c`'s `field` (command or args) to `argv`. */
static int collect_arguments(struct container *c, const char *field,
			     struct argument *argv, size_t *argc)
{
	json_t *list = json_member(c->container, field), *item;
	char *list_pointer;
	size_t i;

	if (!json_is_array(list) || json_array_size(list) == 0)
		return 0;
	list_pointer = json_pointer_join(c->pointer, field);
	if (!list_pointer)
		return -1;
	json_array_foreach(list, i, item) {
		/* a non-string argument cannot carry the flag: keep the slot
		 * empty so that "--feature-gates" X pairs stay adjacent */
		argv[*argc].text = json_is_string(item) ?
			json_string_value(item) : "";
		argv[*argc].pointer = json_pointer_join_index(list_pointer, i);
		if (!argv[*argc].pointer) {
			free(list_pointer);
			return -1;
		}
		(*argc)++;
	}
	free(list_pointer);
	return 0;
}

/* command and args together are the container's argv. */
static int check_container(struct rule_ctx *ctx, struct pod_spec *pod,
			   struct container *c, void *arg)
{
	size_t n = json_array_size(json_member(c->container, "command")) +
		   json_array_size(json_member(c->container, "args"));
	struct argument *argv;
	size_t argc = 0;
	int rc = -1;

	(void)pod;
	(void)arg;
	if (n == 0)
		return 0;
	argv = calloc(n, sizeof(*argv));
	if (!argv)
		return -1;
	if (collect_arguments(c, "command", argv, &argc) ||
	    collect_arguments(c, "args", argv, &argc))
		goto out_free;
	rc = 0;
	for (size_t i = 0; rc == 0 && i < argc; i++)
		rc = check_argument(ctx, argv, argc, i);
out_free:
	for (size_t i = 0; i < argc; i++)
		free(argv[i].pointer);
	free(argv);
	return rc;
}

static int check_pod(struct rule_ctx *ctx, struct pod_spec *pod, void *arg)
{
	return pod_for_each_container(ctx, pod, check_container, arg);
}

/* featureGates of a KubeletConfiguration file. */
static int check_kubelet_config(struct rule_ctx *ctx)
{
	json_t *gates = json_member(ctx->object, "featureGates");
	char *gates_pointer;
	int rc = 0;

	if (!json_is_object(gates))
		return 0;
	gates_pointer = json_pointer_join(ctx->object_pointer, "featureGates");
	if (!gates_pointer)
		return -1;
	for (size_t g = 0; rc == 0 && g < N_REMOVED_GATES; g++) {
		char *p;

		if (!json_member(gates, removed_gates[g].name))
			continue;
		p = json_pointer_join(gates_pointer, removed_gates[g].name);
		rc = p ? report_gate(ctx, p, &removed_gates[g]) : -1;
		free(p);
	}
	free(gates_pointer);
	return rc;
}

int rule_run_removed_gpu_feature_gate(struct rule_ctx *ctx)
{
	const char *kind = json_string_value(json_member(ctx->object,
							 "kind"));

	if (kind && strcmp(kind, "KubeletConfiguration") == 0 &&
	    check_kubelet_config(ctx))
		return -1;
	return rule_for_each_pod_spec(ctx, check_pod, NULL);
}
