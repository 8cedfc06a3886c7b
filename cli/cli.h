/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.h - what the CLI's subcommands share: walking directories, running
 * the rules over a stream, counting and summing up a run (reading inputs
 * and writing files atomically: files.h).
 */
#ifndef GPUMEND_CLI_H
#define GPUMEND_CLI_H

#include <stddef.h>

#include "files.h"
#include "helm.h"
#include "rules.h"
#include "source.h"

struct json_scan_filter;

/*
 * Paths left alone, in gitignore syntax: the defaults (node_modules/,
 * vendor/, .git/), then the lines of an ignore file, then --exclude; the
 * last rule that matches a path decides ("!" includes it again).
 * ignore_new() makes the rules of the defaults and `excludes`;
 * ignore_read() adds the lines of the file `path` (none when it does not
 * exist); ignore_add() one line. They return -1 (ignore_new() NULL) when
 * out of memory, which they say; ignore_read() also when the file cannot
 * be read, errno saying why (for the caller to say).
 */
struct ignore;
struct ignore *ignore_new(char **excludes, size_t n_excludes);
int ignore_read(struct ignore *ig, const char *path);
int ignore_add(struct ignore *ig, const char *line);
void ignore_free(struct ignore *ig);
/*
 * 1 when `rel` (a path relative to the root the rules were read for,
 * '/'-separated, without a leading "./") is excluded: ignore_match() the
 * path alone (a directory when `is_dir`), ignore_path() the path of a file
 * and every directory it is in.
 */
int ignore_match(const struct ignore *ig, const char *rel, int is_dir);
int ignore_path(const struct ignore *ig, const char *rel);
/*
 * The same, saying why: the rule that excludes `rel` as written and where
 * it comes from ("'legacy/' (./.gpumendignore:2)", "'vendor/' (a
 * default)", "'*.gen.yaml' (--exclude)"), a string of `ig`'s; NULL when
 * `rel` is not excluded.
 */
const char *ignore_why(const struct ignore *ig, const char *rel, int is_dir);
const char *ignore_path_why(const struct ignore *ig, const char *rel);

/* The name of the ignore file, read from the root a walk starts from. */
#define IGNORE_FILE ".gpumendignore"

/*
 * Calls `calls->file` for every file named by `paths` (a file, or a
 * directory searched recursively for *.yaml, *.yml and *.json, and for
 * the other templates of Helm charts (chart_walk_wants()), in sorted
 * order, symlinked directories followed once, hidden entries left out);
 * "-" or no paths means standard input. `named` tells it whether the path
 * was named (or is standard input) rather than found in a directory. It
 * returns 1 when it read the file as a manifest (standard input: when
 * that held a document), 0 when it did not (skipped: no manifest that
 * parses, or no template), -1 on a fatal error.
 *
 * What the ignore rules exclude is left out: in a directory, the rules
 * of the defaults, its IGNORE_FILE and `excludes`, matched from that
 * directory; a file named, the same rules with the current directory's
 * IGNORE_FILE, matched from the current directory. Standard input is
 * never excluded.
 *
 * A path that cannot be read (a named path that is not there, a
 * directory that cannot be opened, a loop...), a named directory in
 * which no manifest is read (none there, all left out or skipped) and
 * standard input that holds no document are problems, unless
 * wo->allow_empty for the last two: each is said on stderr
 * ("FILE: error: WHY") and given to `calls->problem` (the path and WHY,
 * for a finding); walking goes on. An entry that vanishes before it is
 * looked at is no problem when its name is not one that would be read.
 * With wo->verbose, a note on stderr says each entry left out, and why.
 * Returns -1 when a call returns -1 (a fatal error) or when out of
 * memory, else 0.
 */
struct walk_calls {
	int (*file)(void *arg, const char *path, int named);
	int (*problem)(void *arg, const char *path, const char *why);
	void *arg;
};
struct walk_options {
	char **excludes;     /* --exclude patterns, borrowed */
	size_t n_excludes;
	int allow_empty;     /* --allow-empty */
	int verbose;         /* --verbose */
};
int paths_walk(char **paths, int n, const struct walk_options *wo,
	       const struct walk_calls *calls);

/* One document as the rules saw it. */
struct stream_doc {
	struct source_doc *doc;
	struct rules_result *result; /* empty when the document is no object */
	int ran;                     /* the rules ran on it */
};

/*
 * Parses `text` (UTF-8: files.c turns UTF-16 into it) document by
 * document, runs the rules over each object
 * (rewriting doc->json in place) and calls `fn` with it. With
 * opts->triggers_in, the rules without a trigger in a document's text are
 * skipped there (cli_filter_new() says when that is sound). Returns 0, or -1
 * on a syntax error or limit (with `err`), or -1 when `fn` does.
 */
typedef int (*stream_fn)(void *arg, struct stream_doc *sd);
int stream_each(const char *text, size_t len, const struct config *cfg,
		const struct rules_options *opts, stream_fn fn, void *arg,
		struct source_error *err);

/*
 * The CLI's trigger search, for rules_options.triggers_in
 * and triggers_arg (json_scan_filter_gate()), or NULL to run every rule on
 * every document (also when out of memory); json_scan_filter_free()
 * releases it. stream_each() searches a document's text when it has no
 * backslash: its keys and strings are then that text, but for the quotes
 * of single-quoted scalars and line breaks folded into blanks, so a
 * trigger without a blank, line break or quote that is in one of them is
 * in the text. NULL when some trigger has one.
 */
struct json_scan_filter *cli_filter_new(const struct config *cfg);


/*
 * What a run of lint or migrate did. Files read are `touched` (lint: with
 * findings; migrate: changed or would be), skipped (found in a directory,
 * not a manifest, not parsed), failed (unreadable, malformed, or left as
 * they were because of an error), or else clean; findings are counted by
 * severity.
 */
struct run_counts {
	size_t files, touched, skipped, failed;
	size_t findings[SEVERITY_ERROR + 1];
};

/*
 * Prints the summary line of a run on stderr:
 * "gpumend: N files read: N TOUCHED, N CLEAN, N skipped, N failed;
 * N errors, N warnings, N info", TOUCHED and CLEAN the words for them
 * ("with findings", "clean"; "changed", "unchanged").
 */
void run_summary(const struct run_counts *c, const char *touched,
		 const char *clean);

/*
 * 1 when the file `in` that did not parse (`err` says where) is skipped
 * rather than an error: `may_skip` (it was found in a directory, or
 * --skip-unparsable) and it holds neither an "apiVersion" nor a "kind"
 * key, so it is no manifest, not even a broken one (a tsconfig.json with
 * comments). Then it is counted in c->skipped and, unless `quiet`, a
 * note says where it does not parse. Else 0.
 */
int cli_skip_unparsed(const struct input *in, const struct source_error *err,
		      int may_skip, int quiet, struct run_counts *c);

/* What lint's and migrate's help say of the paths they leave out. */
#define CLI_WALK_HELP \
	"Paths matched by --exclude, by the .gpumendignore of the directory\n" \
	"walked (of the current directory for files named) or by the defaults\n" \
	"(node_modules/, vendor/, .git/) are left out; gitignore syntax.\n" \
	"A file found in a directory that is neither a manifest nor parses is\n" \
	"skipped; one named is an error, unless --skip-unparsable. A path that\n" \
	"cannot be read is an error (an input finding), and so is a directory\n" \
	"named in which no manifest is read, or standard input without a\n" \
	"document, unless --allow-empty. A summary line ends the run on stderr.\n"


/*
 * Loads the configuration named by -c (NULL: the defaults); prints the
 * error and returns NULL on failure.
 */
struct config *cli_load_config(const char *path);

/*
 * What lint and migrate share: the options that choose the files and how
 * they are read (--chart, --no-chart, --exclude, --quiet,
 * --skip-unparsable, --target, --allow-empty, --verbose, --config), the
 * configuration and the trigger search. CLI_RUN_LONG are the options' getopt_long() entries and
 * CLI_RUN_SHORT their short letters.
 *
 * cli_run_init() readies `run` for a command line of `argc` arguments
 * (-1 when out of memory). cli_run_option() takes an option
 * cli_args_next() returned: 1 when it is one of them, 0 when it is not,
 * -1 when its value is wrong. cli_run_setup() sets the chart mode, loads
 * the configuration with --target applied, and makes the trigger search;
 * -1 on failure. cli_run_free() releases it all. Errors are printed.
 */
struct cli_run {
	struct walk_options walk;  /* --exclude, --allow-empty, --verbose */
	enum chart_mode chart;
	int quiet;             /* --quiet: no summary, no notes on skips */
	int skip_named;        /* --skip-unparsable: named files too */
	int target;            /* --target's enum rules_target, or -1 */
	const char *config_path;
	struct config *cfg;                /* cli_run_setup()'s */
	struct json_scan_filter *filter;   /* cli_filter_new() */
};
#define CLI_RUN_LONG \
	{ "chart", no_argument, NULL, 'H' }, \
	{ "no-chart", no_argument, NULL, 'N' }, \
	{ "exclude", required_argument, NULL, 'E' }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "skip-unparsable", no_argument, NULL, 'U' }, \
	{ "target", required_argument, NULL, 'T' }, \
	{ "allow-empty", no_argument, NULL, 'A' }, \
	{ "verbose", no_argument, NULL, 'v' }, \
	{ "config", required_argument, NULL, 'c' }
#define CLI_RUN_SHORT "c:qv"
int cli_run_init(struct cli_run *run, int argc);
int cli_run_option(struct cli_run *run, int opt, const char *arg);
int cli_run_setup(struct cli_run *run);
void cli_run_free(struct cli_run *run);

/*
 * Target dra: 1 when `doc` is JSON and `documents` (rules_result.documents)
 * holds templates to write after it, which a JSON file cannot hold; then
 * `message` says so (what migrate refuses and lint reports). Else 0.
 */
int cli_json_documents_refused(const struct source_doc *doc,
			       json_t *documents, char *message, size_t size);

/*
 * Target dra: the ResourceClaimTemplates a file holds, and those written
 * into it, kept as text: the CLI's json lives one document long
 * (arena.h). cli_templates_read() adds those of the documents of `text`
 * (List items too; none under another target), cli_templates_add() one
 * object when it is a template; both -1 when out of memory.
 * cli_templates_find() is a rules_options.claim_template_find over
 * them.
 */
struct cli_template {
	char *name, *namespace, *spec;  /* spec: canonical JSON text */
};
struct cli_templates {
	struct cli_template *items;
	size_t n, cap;
};
int cli_templates_read(struct cli_templates *list, const char *text,
		       size_t len, const struct config *cfg);
int cli_templates_add(struct cli_templates *list, const json_t *object);
int cli_templates_find(const void *arg, const char *name,
		       const char *namespace, const json_t *spec);
void cli_templates_clear(struct cli_templates *list);

/*
 * Options anywhere on the command line (git and kubectl style), "--"
 * ending them. After cli_args_init(), call cli_args_next() with a
 * getopt_long() option string (without a leading '+', '-' or ':') until
 * it returns -1; it returns each option as getopt_long() does (optarg
 * set), and '?' for an unknown option or a missing or unwanted value,
 * which it has said (msg_usage(): "gpumend lint: unknown option
 * '--bogus'; see 'gpumend lint --help'"): the command then exits 2.
 * The operands (paths) are then argv[1 .. 1 + n), in order: they are packed
 * there in place, so keep option values (optarg) by pointer. argv[0] is
 * the command's name.
 */
struct option;
struct cli_args {
	int argc;
	char **argv;
	const char *command;  /* argv[0], for messages */
	int n;               /* operands found */
	int done;
};
void cli_args_init(struct cli_args *args, int argc, char **argv);
int cli_args_next(struct cli_args *args, const char *optstring,
		  const struct option *longopts);
/* 0 when there is no operand; else says "unexpected argument" and -1. */
int cli_args_none(const struct cli_args *args);

/* Subcommands. Each returns the process exit status. */
int cmd_migrate(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_webhook_config(int argc, char **argv);
int cmd_completion(int argc, char **argv);

#endif
