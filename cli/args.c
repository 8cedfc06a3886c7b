/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * args.c - options anywhere on the command line, as git and kubectl take
 * them: `gpumend lint deploy/ --format json` reads `--format json` as an
 * option, and "--" ends the options (`gpumend lint -- -odd-name.yaml`);
 * and the options lint and migrate share.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_scan.h"
#include "msg.h"

void cli_args_init(struct cli_args *args, int argc, char **argv)
{
	args->argc = argc;
	args->argv = argv;
	args->command = argc > 0 ? argv[0] : "";
	args->n = 0;
	args->done = 0;
	/* 0, not 1: glibc starts over, also after a call in another mode */
	optind = 0;
	/* the errors are said here, in gpumend's words */
	opterr = 0;
}

/*
 * Says what getopt_long() found wrong with the option it returned `opt`
 * for ('?' or ':'): the option as written is argv[optind - 1] for a long
 * one, optopt for a short one.
 */
static void option_error(const struct cli_args *args, int opt)
{
	const char *arg = optind > 0 && optind <= args->argc ?
			  args->argv[optind - 1] : NULL;
	int is_long = arg && arg[0] == '-' && arg[1] == '-';
	size_t len = is_long ? strcspn(arg, "=") : 0;

	if (opt == ':' && is_long)
		msg_usage(args->command, "option '%.*s' needs a value",
			  (int)len, arg);
	else if (opt == ':')
		msg_usage(args->command, "option '-%c' needs a value", optopt);
	else if (is_long && optopt)
		msg_usage(args->command, "option '%.*s' takes no value",
			  (int)len, arg);
	else if (is_long)
		msg_usage(args->command, "unknown option '%.*s'", (int)len, arg);
	else
		msg_usage(args->command, "unknown option '-%c'", optopt);
}

int cli_args_next(struct cli_args *args, const char *optstring,
		  const struct option *longopts)
{
	char spec[64];
	int opt;

	if (args->done)
		return -1;
	/* '-' first: operands come back in order as option 1, so nothing
	 * depends on the environment's POSIXLY_CORRECT; ':' then: a missing
	 * value is told from an unknown option */
	if (snprintf(spec, sizeof(spec), "-:%s", optstring) >= (int)sizeof(spec))
		return '?';
	while ((opt = getopt_long(args->argc, args->argv, spec, longopts,
				  NULL)) == 1) {
		/*
		 * Operands are packed at the front of argv, in order. The
		 * slot written has been read already (getopt in this mode
		 * never moves argv), and option values are kept by pointer,
		 * not by slot, so nothing still needed is overwritten.
		 */
		args->argv[1 + args->n++] = optarg;
	}
	if (opt == '?' || opt == ':') {
		option_error(args, opt);
		return '?';
	}
	if (opt != -1)
		return opt;
	/* the end, or "--": what follows is operands */
	for (int i = optind; i < args->argc; i++)
		args->argv[1 + args->n++] = args->argv[i];
	args->done = 1;
	return -1;
}

int cli_args_none(const struct cli_args *args)
{
	if (args->n == 0)
		return 0;
	msg_usage(args->command, "unexpected argument '%s'", args->argv[1]);
	return -1;
}

int cli_run_init(struct cli_run *run, int argc)
{
	*run = (struct cli_run){ .target = -1 };
	/* the --exclude patterns, by pointer: no more than the arguments */
	run->walk.excludes = calloc((size_t)argc, sizeof(char *));
	if (!run->walk.excludes) {
		msg_error("out of memory");
		return -1;
	}
	return 0;
}

int cli_run_option(struct cli_run *run, int opt, const char *arg)
{
	switch (opt) {
	case 'H': run->chart = CHART_ON; return 1;
	case 'N': run->chart = CHART_OFF; return 1;
	case 'E': run->walk.excludes[run->walk.n_excludes++] = (char *)arg; return 1;
	case 'q': run->quiet = 1; return 1;
	case 'U': run->skip_named = 1; return 1;
	case 'A': run->walk.allow_empty = 1; return 1;
	case 'v': run->walk.verbose = 1; return 1;
	case 'c': run->config_path = arg; return 1;
	case 'T':
		run->target = rules_target_find(arg);
		if (run->target >= 0)
			return 1;
		msg_error("--target must be device-plugin or dra, not '%s'", arg);
		return -1;
	}
	return 0;
}

int cli_run_setup(struct cli_run *run)
{
	chart_set_mode(run->chart);
	run->cfg = cli_load_config(run->config_path);
	if (!run->cfg)
		return -1;
	if (run->target >= 0)
		run->cfg->target = (enum rules_target)run->target;
	run->filter = cli_filter_new(run->cfg);
	return 0;
}

void cli_run_free(struct cli_run *run)
{
	free(run->walk.excludes);
	run->walk.excludes = NULL;
	json_scan_filter_free(run->filter);
	run->filter = NULL;
	config_free(run->cfg);
	run->cfg = NULL;
}
