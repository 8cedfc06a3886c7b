/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * args.c - options anywhere on the command line, as git and kubectl take
 * them: `gpumend lint deploy/ --format json` reads `--format json` as an
 * option, and "--" ends the options (`gpumend lint -- -odd-name.yaml`).
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "msg.h"

void cli_args_init(struct cli_args *args, int argc, char **argv)
{
	args->argc = argc;
	args->argv = argv;
	args->n = 0;
	args->done = 0;
	/* 0, not 1: glibc starts over, also after a call in another mode */
	optind = 0;
}

int cli_args_next(struct cli_args *args, const char *optstring,
		  const struct option *longopts)
{
	char spec[64];
	int opt;

	if (args->done)
		return -1;
	/* '-' first: operands come back in order as option 1, so nothing
	 * depends on the environment's POSIXLY_CORRECT */
	if (snprintf(spec, sizeof(spec), "-%s", optstring) >= (int)sizeof(spec))
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
	msg_error("unexpected argument '%s'", args->argv[1]);
	return -1;
}
