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
	fputs("\nRun 'gpumend COMMAND --help' for a command's options.\n", out);
}

int main(int argc, char **argv)
{
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
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("gpumend %s\n", GPUMEND_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (strcmp(argv[1], subcommands[i].name) == 0)
			return subcommands[i].run(argc - 1, argv + 1);
	msg_error("'%s' is not a gpumend command; see 'gpumend --help'", argv[1]);
	return 2;
}
