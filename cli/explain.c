/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * explain.c - `gpumend rules`: the rules with their modes and, for each
 * rule named, what it finds and changes, its modes, the settings that
 * shape it and one example (rule_help_get()), as text or as JSON for
 * tools.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "msg.h"
#include "report.h"

/* Text is wrapped at this column, its labels padded to the next. */
#define EXPLAIN_WIDTH 78
#define EXPLAIN_LABEL 10

static const char usage[] =
	"usage: gpumend rules [-c FILE] [--format text|json] [RULE...]\n"
	"\n"
	"Lists the rules with their mode (from -c FILE, else the default), in the\n"
	"order they run. With RULE ids, explains each: what it finds, what it\n"
	"changes, its modes, the settings of the config file that shape it, and\n"
	"one example, before and after.\n"
	"\n"
	"  -c, --config FILE     configuration file\n"
	"  -f, --format FORMAT   text (default) or json, for tools: an array of\n"
	"                        the rules (every rule without RULE)\n"
	"  -h, --help            show this help\n";

/* The modes a rule may be given, in the order of enum rule_mode. */
static int mode_allowed(const struct rule_info *info, enum rule_mode mode)
{
	return mode != RULE_MODE_MUTATE || info->can_mutate;
}

/*
 * Prints `text` after `label` (padded to EXPLAIN_LABEL), wrapped at
 * EXPLAIN_WIDTH, the lines after the first indented as far as the label.
 * A word longer than a line gets a line of its own.
 */
static void print_wrapped(const char *label, const char *text)
{
	int column = printf("%-*s", EXPLAIN_LABEL, label);

	while (*text) {
		size_t word = strcspn(text, " ");

		if (column > EXPLAIN_LABEL &&
		    column + 1 + (int)word > EXPLAIN_WIDTH) {
			printf("\n%*s", EXPLAIN_LABEL, "");
			column = EXPLAIN_LABEL;
		}
		if (column > EXPLAIN_LABEL)
			column += printf(" ");
		column += printf("%.*s", (int)word, text);
		text += word;
		while (*text == ' ')
			text++;
	}
	putchar('\n');
}

/* The settings that shape rule `info`, its mode first, each after
 * `separator`. */
static int config_keys(const struct rule_info *info,
		       const struct rule_help *help, struct buf *out,
		       const char *separator)
{
	const char *key = help->config;

	if (buf_printf(out, "rules.%s.mode", info->name))
		return -1;
	while (*key) {
		size_t n = strcspn(key, ",");

		if (buf_printf(out, "%s%.*s", separator, (int)n, key))
			return -1;
		key += n + (key[n] == ',');
	}
	return 0;
}

/* What runs the rule, in words. */
static const char *runs_in(const struct rule_info *info)
{
	if (!info->can_mutate)
		return info->offline_only ?
		       "the CLI only; it reports and changes nothing" :
		       "the webhook and the CLI; it reports and changes nothing";
	return info->offline_only ?
	       "the CLI only (the webhook is never sent such objects)" :
	       "the webhook and the CLI";
}

/* Prints each line of `text` indented by four blanks. */
static void print_block(const char *text)
{
	while (*text) {
		size_t line = strcspn(text, "\n");

		printf("    %.*s\n", (int)line, text);
		text += line + (text[line] == '\n');
	}
}

static int explain_text(const struct config *cfg,
			const struct rule_info *info)
{
	const struct rule_help *help = rule_help_get(info->id);
	const struct rule_example *ex = &help->example;
	struct buf line;
	int rc;

	buf_init(&line, 0);
	rc = cfg->mode[info->id] == info->default_mode ?
	     buf_printf(&line, "%s (the default); it may be",
			rule_mode_name(info->default_mode)) :
	     buf_printf(&line, "%s (the default is %s); it may be",
			rule_mode_name(cfg->mode[info->id]),
			rule_mode_name(info->default_mode));
	for (int m = RULE_MODE_OFF; rc == 0 && m <= RULE_MODE_MUTATE; m++)
		if (mode_allowed(info, (enum rule_mode)m))
			rc = buf_printf(&line, "%s%s", m ? ", " : " ",
					rule_mode_name((enum rule_mode)m));
	if (rc == 0)
		rc = buf_printf(&line, "; it runs in %s", runs_in(info));
	if (rc) {
		buf_free(&line);
		return -1;
	}
	printf("%s: %s\n\n", info->name, info->summary);
	print_wrapped("Finds:", help->description);
	print_wrapped("Changes:", help->fix);
	print_wrapped("Modes:", line.data);
	buf_reset(&line);
	rc = config_keys(info, help, &line, ", ");
	if (rc == 0) {
		print_wrapped("Config:", line.data);
		buf_reset(&line);
		rc = report_rule_uri(&line, info->name);
	}
	if (rc == 0)
		print_wrapped("Docs:", line.data);
	buf_free(&line);
	if (rc)
		return -1;
	printf("\nBefore (what gpumend lint%s%s reports):\n",
	       ex->options ? " " : "", ex->options ? ex->options : "");
	print_block(ex->before);
	printf("After (%s):\n", info->default_mode == RULE_MODE_MUTATE ?
	       "what gpumend migrate writes" : "fixed");
	print_block(ex->after);
	return 0;
}

/* A JSON array of the words of `list` (NULL: none), split at each byte
 * of `separators`. */
static json_t *words_new(const char *list, const char *separators)
{
	json_t *array = json_array();

	while (array && list && *list) {
		size_t n = strcspn(list, separators);

		if (json_array_append_new(array, json_stringn(list, n))) {
			json_decref(array);
			return NULL;
		}
		list += n + (list[n] != '\0');
	}
	return array;
}

static json_t *explain_json_new(const struct config *cfg,
				const struct rule_info *info)
{
	const struct rule_help *help = rule_help_get(info->id);
	const struct rule_example *ex = &help->example;
	json_t *modes = json_array(), *rule = NULL;
	struct buf keys, uri;

	buf_init(&keys, 0);
	buf_init(&uri, 0);
	for (int m = RULE_MODE_OFF; modes && m <= RULE_MODE_MUTATE; m++)
		if (mode_allowed(info, (enum rule_mode)m) &&
		    json_array_append_new(modes, json_string(
				rule_mode_name((enum rule_mode)m)))) {
			json_decref(modes);
			modes = NULL;
		}
	if (modes && !config_keys(info, help, &keys, ",") &&
	    !report_rule_uri(&uri, info->name))
		rule = json_pack("{s:s, s:s, s:s, s:s, s:o, s:b, s:b, s:s, s:s, s:o, s:o, s:{s:o, s:s, s:s}, s:s}",
				 "id", info->name,
				 "summary", info->summary,
				 "mode", rule_mode_name(cfg->mode[info->id]),
				 "defaultMode", rule_mode_name(info->default_mode),
				 "modes", modes,
				 "canMutate", info->can_mutate,
				 "cliOnly", info->offline_only,
				 "finds", help->description,
				 "changes", help->fix,
				 "config", words_new(keys.data, ","),
				 "tags", words_new(help->tags, ","),
				 "example", "options", words_new(ex->options, " "),
				 "before", ex->before, "after", ex->after,
				 "helpUri", uri.data);
	else
		json_decref(modes);
	buf_free(&keys);
	buf_free(&uri);
	return rule;
}

/* The list of the rules, as it always was. */
static void list_text(const struct config *cfg)
{
	printf("%-28s %-7s %s\n", "RULE", "MODE", "FINDS");
	for (int r = 0; r < RULE_COUNT; r++) {
		const struct rule_info *info = rule_info_get((enum rule_id)r);

		printf("%-28s %-7s %s%s\n", info->name,
		       rule_mode_name(cfg->mode[r]), info->summary,
		       info->offline_only ? " (CLI only)" :
		       !info->can_mutate ? " (lint only)" : "");
	}
}

/* The rules named (`names`, `n`; every rule when n is 0), explained in
 * the format asked for. 0, or -1 (said). */
static int explain(const struct config *cfg, int json, char **names, int n)
{
	json_t *array = json ? json_array() : NULL;
	int count = n ? n : RULE_COUNT, rc = 0;
	char *text;

	if (json && !array)
		goto out_nomem;
	for (int i = 0; i < count; i++) {
		const struct rule_info *info = n ? rule_info_find(names[i]) :
					       rule_info_get((enum rule_id)i);

		if (!info) {
			msg_error("unknown rule '%s'; 'gpumend rules' lists them",
				  names[i]);
			json_decref(array);
			return -1;
		}
		if (json)
			rc = json_array_append_new(array,
						   explain_json_new(cfg, info));
		else if (i > 0)
			putchar('\n');
		if (!json)
			rc = explain_text(cfg, info);
		if (rc)
			goto out_nomem;
	}
	if (!json)
		return 0;
	text = json_text_new(array, JSON_INDENT(2));
	json_decref(array);
	if (!text)
		goto out_nomem;
	printf("%s\n", text);
	free(text);
	return 0;
out_nomem:
	json_decref(array);
	msg_error("out of memory");
	return -1;
}

int cmd_rules(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config_path = NULL;
	struct cli_args args;
	struct config *cfg;
	int opt, json = 0, rc;

	cli_args_init(&args, argc, argv);
	while ((opt = cli_args_next(&args, "c:f:h", options)) != -1) {
		switch (opt) {
		case 'c':
			config_path = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				msg_error("unknown format '%s' (text, json)",
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
	cfg = cli_load_config(config_path);
	if (!cfg)
		return 2;
	if (!json && args.n == 0) {
		list_text(cfg);
		rc = 0;
	} else {
		rc = explain(cfg, json, argv + 1, args.n) ? 2 : 0;
	}
	config_free(cfg);
	return rc;
}
