/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * files.h - reading an input whole (a file mapped, a pipe read, UTF-16
 * turned into UTF-8) and replacing a file atomically: what the CLI and
 * the Helm code read and write files with, and `gpumend certs` too.
 */
#ifndef GPUMEND_FILES_H
#define GPUMEND_FILES_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* How every message names standard input ("-" on the command line). */
#define INPUT_STDIN_NAME "<stdin>"

/* A file (or standard input) read whole. */
struct input {
	char *name;          /* as given, or INPUT_STDIN_NAME; owned */
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
	char why[256];       /* input_read() failed: what it said */
};

/* The most read from standard input, a pipe or a device. */
#define INPUT_STREAM_MAX ((size_t)64 << 20)

/*
 * Reads `path` ("-" for standard input). On failure prints the error,
 * keeps it in in->why (input_free() leaves that) and returns -1. Files
 * over `max_bytes` (0: no cap) are refused.
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
 *
 * `how` says what may be at `path`: ATOMIC_REPLACE a file that exists (as
 * file_write_atomic() does; a missing file is an error), ATOMIC_WRITE a
 * file or nothing (then the file is created, in the folder `path` names),
 * ATOMIC_CREATE nothing: atomic_begin refuses a file that exists, and
 * atomic_commit one that has appeared since (it links the temporary file
 * to the name, which fails when the name is taken, where the others
 * rename it).
 */
enum atomic_how { ATOMIC_REPLACE, ATOMIC_WRITE, ATOMIC_CREATE };
struct atomic_file {
	const char *path;    /* as given, for messages */
	char *real;          /* the file replaced (symlinks resolved) */
	char *tmp;
	int fd;
	mode_t mode;
	enum atomic_how how;
	int keep_owner;      /* the file exists: its owner and group are kept */
	uid_t uid;
	gid_t gid;
};
int atomic_begin(struct atomic_file *af, const char *path, mode_t mode,
		 enum atomic_how how);
int atomic_write(struct atomic_file *af, const char *data, size_t len);
int atomic_commit(struct atomic_file *af);
void atomic_abort(struct atomic_file *af);

#endif
