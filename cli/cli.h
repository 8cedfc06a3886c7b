/*
 * cli.h - what the CLI's subcommands share: reading inputs, walking
 * directories, writing files atomically, running the rules over a stream.
 */
#ifndef GPUMEND_CLI_H
#define GPUMEND_CLI_H

#include <stddef.h>
#include <sys/types.h>

#include "rules.h"
#include "source.h"

/* A file (or standard input) read whole. */
struct input {
	char *name;          /* as given, or "<stdin>"; owned */
	char *path;          /* NULL for stdin; owned */
	char *text;          /* owned; mapped files are not NUL-terminated */
	size_t len;
	mode_t mode;
	int mapped;          /* text is a read-only mapping of the file */
	size_t released;     /* pages before this were given back */
};

/* The most read from standard input, a pipe or a device. */
#define INPUT_STREAM_MAX ((size_t)64 << 20)

/*
 * Reads `path` ("-" for standard input). On failure prints the error and
 * returns -1. Files over `max_bytes` (0: no cap) are refused.
 */
int input_read(const char *path, size_t max_bytes, struct input *in);
void input_free(struct input *in);

/*
 * Says that the bytes before `upto` will not be read again, so that the
 * pages of a mapped file holding them can be given back (they would be
 * read from the file again if they were).
 */
void input_release(struct input *in, size_t upto);

/*
 * Calls `fn` for every file named by `paths` (a file, or a directory
 * searched recursively for *.yaml, *.yml and *.json, and for the other
 * templates of Helm charts (chart_walk_wants()), in sorted order,
 * symlinked directories followed once); "-" or no paths means standard
 * input. Problems (missing files, unreadable directories, loops) are
 * printed and counted in *errors; walking goes on. Returns -1 when `fn`
 * returns -1 (a fatal error), else 0.
 */
typedef int (*path_fn)(void *arg, const char *path);
int paths_walk(char **paths, int n, path_fn fn, void *arg, int *errors);

/*
 * Replaces the file at `path` with `data` atomically: a temporary file in
 * the same directory, written, fsynced, given the original's mode, renamed
 * over it. The original is never lost. Prints the error and returns -1.
 */
int file_write_atomic(const char *path, const char *data, size_t len,
		      mode_t mode);

/*
 * The same in steps, for output written as it is produced: atomic_begin
 * makes the temporary file, atomic_write appends, atomic_commit gives it
 * the mode, fsyncs and renames it over the file, atomic_abort removes it.
 * Each prints its error; a failed write or commit aborts.
 */
struct atomic_file {
	const char *path;    /* as given, for messages */
	char *real;          /* the file replaced (symlinks resolved) */
	char *tmp;
	int fd;
	mode_t mode;
};
int atomic_begin(struct atomic_file *af, const char *path, mode_t mode);
int atomic_write(struct atomic_file *af, const char *data, size_t len);
int atomic_commit(struct atomic_file *af);
void atomic_abort(struct atomic_file *af);

/* One document as the rules saw it. */
struct stream_doc {
	struct source_doc *doc;
	struct rules_result *result; /* empty when the document is no object */
	int ran;                     /* the rules ran on it */
};

/*
 * Parses `text` document by document, runs the rules over each object
 * (rewriting doc->json in place) and calls `fn` with it. Returns 0, or -1
 * on a syntax error or limit (with `err`), or -1 when `fn` does.
 */
typedef int (*stream_fn)(void *arg, struct stream_doc *sd);
int stream_each(const char *text, size_t len, const struct config *cfg,
		const struct rules_options *opts, stream_fn fn, void *arg,
		struct source_error *err);

/* The source limits a configuration asks for. */
struct source_limits cli_limits(const struct config *cfg);

/*
 * Loads the configuration named by -c (NULL: the defaults); prints the
 * error and returns NULL on failure.
 */
struct config *cli_load_config(const char *path);

/*
 * Options anywhere on the command line (git and kubectl style), "--"
 * ending them. After cli_args_init(), call cli_args_next() with a
 * getopt_long() option string (without a leading '+' or '-') until it
 * returns -1; it returns each option as getopt_long() does (optarg set).
 * The operands (paths) are then argv[1 .. 1 + n), in order: they are packed
 * there in place, so keep option values (optarg) by pointer.
 */
struct option;
struct cli_args {
	int argc;
	char **argv;
	int n;               /* operands found */
	int done;
};
void cli_args_init(struct cli_args *args, int argc, char **argv);
int cli_args_next(struct cli_args *args, const char *optstring,
		  const struct option *longopts);
/* 0 when there is no operand; else prints "unexpected argument" and -1. */
int cli_args_none(const struct cli_args *args);

/* Subcommands. Each returns the process exit status. */
int cmd_migrate(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_config(int argc, char **argv);

#endif
