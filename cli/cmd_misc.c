/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_misc.c - `gpumend config`.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "msg.h"

static int config_only_usage(const char *name, const char *what, int argc,
			     char **argv, const char **config_path)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_args args;
	int opt;

	cli_args_init(&args, argc, argv);
	while ((opt = cli_args_next(&args, "c:h", options)) != -1) {
		switch (opt) {
		case 'c':
			*config_path = optarg;
			break;
		case 'h':
			printf("usage: gpumend %s [-c FILE]\n\n%s\n\n"
			       "  -c, --config FILE   configuration file\n"
			       "  -h, --help          show this help\n",
			       name, what);
			return 0;
		default:
			return 2;
		}
	}
	if (cli_args_none(&args))
		return 2;
	return -1;
}

int cmd_config(int argc, char **argv)
{
	const char *config_path = NULL;
	struct config *cfg;
	json_t *json;
	struct buf out;
	int rc = config_only_usage("config",
		"Prints the default configuration, a commented YAML file to start\n"
		"from. With -c FILE, checks FILE and prints the configuration in\n"
		"force (the defaults with FILE applied).", argc, argv,
		&config_path);

	if (rc >= 0)
		return rc;
	if (!config_path) {
		fputs(config_default_yaml(), stdout);
		return 0;
	}
	cfg = cli_load_config(config_path);
	if (!cfg)
		return 2;
	json = config_to_json(cfg);
	buf_init(&out, 0);
	rc = !json || emit_document(&out, json, 0, 0) ? 2 : 0;
	if (rc == 0)
		fwrite(out.data, 1, out.len, stdout);
	else
		msg_error("out of memory");
	buf_free(&out);
	json_decref(json);
	config_free(cfg);
	return rc;
}
