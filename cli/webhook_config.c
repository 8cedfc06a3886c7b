/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * webhook_config.c - `gpumend webhook-config`: the webhook's
 * MutatingWebhookConfiguration for a config.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "config_file.h"
#include "msg.h"
#include "registration.h"

/* cel-go's default parser limit, which the API server keeps: longer
 * expressions are refused when the registration is applied. */
#define EXPRESSION_MAX 100000

/* The oldest Kubernetes with matchConditions on by default (beta). */
#define CONDITIONS_MINOR 28
#define DEFAULT_KUBE_VERSION "1.30"

static const char usage[] =
	"usage: gpumend webhook-config [-c FILE] [--failure-policy fail|ignore]\n"
	"                              [--namespace NS] [--service NAME]\n"
	"                              [--kube-version X.Y] [-o yaml|json]\n"
	"\n"
	"Prints the MutatingWebhookConfiguration of gpumend-webhook for the config\n"
	"(-c FILE, else the default): from Kubernetes 1.28, two entries whose CEL\n"
	"matchConditions send only the objects a rule could act on:\n"
	"legacy.gpumend.io (failurePolicy Fail) and advisory.gpumend.io (Ignore).\n"
	"Before 1.28, one entry with failurePolicy Ignore that every object goes to.\n"
	"\n"
	"  -c, --config FILE          the rules configuration\n"
	"      --failure-policy P     fail (default) or ignore: the failurePolicy of\n"
	"                             the legacy entry (the advisory one's is Ignore)\n"
	"      --namespace NS         the webhook's namespace (gpumend-system)\n"
	"      --service NAME         its Service (gpumend-webhook)\n"
	"      --kube-version X.Y     the cluster's Kubernetes version (" DEFAULT_KUBE_VERSION ")\n"
	"  -o, --output yaml|json     the format (yaml)\n"
	"  -h, --help                 show this help\n";

/* 1 when `s` is a DNS label (a namespace or Service name). */
static int dns_label(const char *s)
{
	size_t len = strlen(s);

	if (!len || len > 63 || s[0] == '-' || s[len - 1] == '-')
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

/* Reads "[v]1.MINOR[.PATCH]" into *minor; -1 when it is not that. */
static int kube_minor(const char *text, long *minor)
{
	const char *p = text + (text[0] == 'v');
	char *end;

	if (strncmp(p, "1.", 2) != 0 || p[2] < '0' || p[2] > '9')
		return -1;
	errno = 0;
	*minor = strtol(p + 2, &end, 10);
	if (errno || *minor > 999)
		return -1;
	if (*end == '.') {
		end++;
		if (*end < '0' || *end > '9')
			return -1;
		while (*end >= '0' && *end <= '9')
			end++;
	}
	return *end ? -1 : 0;
}

/* 1, saying so, when a condition is longer than the API server parses. */
static int too_long(json_t *doc)
{
	json_t *webhook, *condition;
	size_t i, j;

	json_array_foreach(json_object_get(doc, "webhooks"), i, webhook)
		json_array_foreach(json_object_get(webhook, "matchConditions"),
				   j, condition) {
			size_t len = json_string_length(
				json_object_get(condition, "expression"));

			if (len > EXPRESSION_MAX) {
				msg_error("the condition '%s' of %s is %zu characters, more than the %d the API server parses: fewer custom resources or patterns",
					  json_string_value(json_object_get(condition, "name")),
					  json_string_value(json_object_get(webhook, "name")),
					  len, EXPRESSION_MAX);
				return 1;
			}
		}
	return 0;
}

int cmd_webhook_config(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "failure-policy", required_argument, NULL, 'f' },
		{ "namespace", required_argument, NULL, 'n' },
		{ "service", required_argument, NULL, 's' },
		{ "kube-version", required_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct registration_options ropts = {
		.service = "gpumend-webhook",
		.namespace_name = "gpumend-system",
		.legacy_fail = 1,
		.conditions = 1,
	};
	const char *config_path = NULL, *version = DEFAULT_KUBE_VERSION;
	const char *policy = NULL;
	char errbuf[1024];
	struct cli_args args;
	struct config *cfg;
	struct buf out;
	json_t *doc;
	int opt, json = 0, rc = 2;
	long minor;

	cli_args_init(&args, argc, argv);
	while ((opt = cli_args_next(&args, "c:o:h", options)) != -1) {
		switch (opt) {
		case 'c':
			config_path = optarg;
			break;
		case 'f':
			policy = optarg;
			break;
		case 'n':
			ropts.namespace_name = optarg;
			break;
		case 's':
			ropts.service = optarg;
			break;
		case 'k':
			version = optarg;
			break;
		case 'o':
			if (strcmp(optarg, "yaml") && strcmp(optarg, "json")) {
				msg_error("--output must be yaml or json, not '%s'",
					  optarg);
				return 2;
			}
			json = !strcmp(optarg, "json");
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (cli_args_none(&args))
		return 2;
	if (policy && strcmp(policy, "fail") && strcmp(policy, "ignore")) {
		msg_error("--failure-policy must be fail or ignore, not '%s'",
			  policy);
		return 2;
	}
	ropts.legacy_fail = !policy || !strcmp(policy, "fail");
	if (!dns_label(ropts.namespace_name) || !dns_label(ropts.service)) {
		msg_error("'%s' is not a valid %s name",
			  dns_label(ropts.namespace_name) ? ropts.service :
			  ropts.namespace_name,
			  dns_label(ropts.namespace_name) ? "Service" :
			  "namespace");
		return 2;
	}
	if (kube_minor(version, &minor)) {
		msg_error("--kube-version must be 1.MINOR (such as %s), not '%s'",
			  DEFAULT_KUBE_VERSION, version);
		return 2;
	}
	if (minor < CONDITIONS_MINOR) {
		if (policy && ropts.legacy_fail) {
			msg_error("--failure-policy fail needs matchConditions, which Kubernetes %s lacks (1.%d or later): without them every object would depend on gpumend",
				  version, CONDITIONS_MINOR);
			return 2;
		}
		msg_warning("Kubernetes %s has no matchConditions (1.%d or later): one entry, failurePolicy Ignore, is sent every object; legacy objects are admitted unmigrated while gpumend is down",
			 version, CONDITIONS_MINOR);
		ropts.conditions = 0;
		ropts.legacy_fail = 0;
	}
	/* the registration is the webhook's: its config, refused as the
	 * webhook refuses it */
	if (!(cfg = config_file_load_admission(config_path, errbuf,
					       sizeof(errbuf)))) {
		msg_error("%s", errbuf);
		return 2;
	}
	doc = registration_new(cfg, &ropts);
	if (doc && too_long(doc)) {
		json_decref(doc);
		config_free(cfg);
		return 2;
	}
	buf_init(&out, 0);
	if (!doc || (!json && buf_append(&out,
		"# Generated by `gpumend webhook-config`: regenerate it, do not edit.\n",
		strlen("# Generated by `gpumend webhook-config`: regenerate it, do not edit.\n"))) ||
	    emit_document(&out, doc, json, 0)) {
		msg_error("out of memory");
	} else {
		fwrite(out.data, 1, out.len, stdout);
		rc = fflush(stdout) ? 2 : 0;
		if (rc)
			msg_error("cannot write the configuration: %s",
				  strerror(errno));
	}
	buf_free(&out);
	json_decref(doc);
	config_free(cfg);
	return rc;
}
