/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - the `gpumend` command: a table of subcommands.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "certs.h"
#include "cli.h"
#include "msg.h"
#include "review.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand subcommands[] = {
	{ "migrate", cmd_migrate, "rewrite legacy GPU manifests (files, directories, stdin)" },
	{ "lint", cmd_lint, "report legacy GPU constructs (text, json, sarif, github, codequality)" },
	{ "review", cmd_review, "answer an AdmissionReview as the webhook would" },
	{ "certs", cmd_certs, "make or check the webhook's TLS certificates" },
	{ "rules", cmd_rules, "list the rules and their modes" },
	{ "config", cmd_config, "print the default (or effective) configuration" },
	{ "webhook-config", cmd_webhook_config, "print the webhook's MutatingWebhookConfiguration" },
	{ "completion", cmd_completion, "print the bash, zsh or fish completion script" },
	{ "help", NULL, "show the help of gpumend or of a command" },
};

static void usage(FILE *out)
{
	fputs("usage: gpumend [--version] [--help] COMMAND [ARGS]\n"
	      "\n"
	      "Migrates Kubernetes GPU workloads written for the legacy GPU stack\n"
	      "(alpha.kubernetes.io/nvidia-gpu, hand-mounted drivers, vendor GPU\n"
	      "sharing) to today's NVIDIA device plugin stack.\n"
	      "\n"
	      "Commands:\n", out);
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "  %-14s %s\n", subcommands[i].name,
			subcommands[i].summary);
	fputs("\nRun 'gpumend help COMMAND' (or 'gpumend COMMAND --help') for a\n"
	      "command's options.\n", out);
}

static const struct subcommand *subcommand_find(const char *name)
{
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (subcommands[i].run && !strcmp(name, subcommands[i].name))
			return &subcommands[i];
	return NULL;
}

/*
 * `gpumend help [COMMAND [SUBCOMMAND]]`: gpumend's usage, or COMMAND's
 * help, which is what `gpumend COMMAND [SUBCOMMAND] --help` prints.
 */
static int cmd_help(int argc, char **argv)
{
	const struct subcommand *cmd;
	char *help_argv[4];
	int n = 0;

	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	cmd = subcommand_find(argv[1]);
	if (!cmd || argc > 3) {
		msg_error("'%s' is not a gpumend command; see 'gpumend --help'",
			  argv[argc > 3 ? 3 : 1]);
		return 2;
	}
	help_argv[n++] = argv[1];
	if (argc == 3)
		help_argv[n++] = argv[2];
	help_argv[n++] = "--help";
	help_argv[n] = NULL;
	return cmd->run(n, help_argv);
}

int main(int argc, char **argv)
{
	const struct subcommand *cmd;

	msg_set_program("gpumend");
	/* past a file size limit (ulimit -f), a write fails with EFBIG and
	 * is reported, the temporary file of -i removed: the signal would
	 * kill the process and leave it behind */
	signal(SIGXFSZ, SIG_IGN);
	/* before any other jansson call (see arena.h) */
	json_arena_enable();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("gpumend %s (%s)\n", GPUMEND_VERSION, GPUMEND_REVISION);
		return 0;
	}
	cmd = subcommand_find(argv[1]);
	if (cmd)
		return cmd->run(argc - 1, argv + 1);
	msg_error("'%s' is not a gpumend command; see 'gpumend --help'", argv[1]);
	return 2;
}
