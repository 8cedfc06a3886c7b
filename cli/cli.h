/*
 * cli.h - what the CLI's subcommands share: reading inputs, walking
 * directories, writing files atomically, running the rules over a stream.
 */
#ifndef GPUMEND_CLI_H
#define GPUMEND_CLI_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "rules.h"
#include "source.h"

struct json_scan_filter;

/* A file (or standard input) read whole. */
struct input {
	char *name;          /* as given, or "<stdin>"; owned */
	char *path;          /* NULL for stdin; owned */
	char *text;          /* owned; mapped files are not NUL-terminated */
	size_t len;
	mode_t mode;
	int mapped;          /* text is a read-only mapping of the file */
	size_t released;     /* pages before this were given back */
	int fd;              /* a regular file, kept open to watch it; else -1 */
	struct stat st;      /* the file when it was opened */
	int guard;           /* its slot in the SIGBUS guard; -1: none */
	int changed;         /* input_changed() found it so (and said so) */
	/* enum utf16_order: the file was UTF-16 with a byte order mark, and
	 * `text` is its UTF-8 (utf16.h); what is written of it goes back */
	int utf16;
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
 * 1 when the file changed since input_read() opened it (truncated,
 * rewritten, even in place at the same size: its size, modification or
 * change time differ), so that what was read of it may be a mix of old and
 * new; then the file's text may hold zeros where it was cut (a mapped file
 * read past its new end would otherwise kill the process with SIGBUS).
 * Call it after the text was last read, and before anything is written
 * from it; it says why in an error naming the file, once. 0 for standard
 * input and devices.
 */
int input_changed(struct input *in);

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
 * the same directory, written, fsynced, given the original's mode, owner
 * and group, renamed over it. The original is never lost. A file with
 * other hard links is refused (a new file would part it from them), and so
 * is one whose owner and group cannot be kept. SIGTERM, SIGINT or SIGHUP
 * meanwhile removes the temporary file (and then does what it does).
 * Prints the error and returns -1.
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
	int keep_owner;      /* the file exists: its owner and group are kept */
	uid_t uid;
	gid_t gid;
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
int cmd_webhook_config(int argc, char **argv);

#endif
