/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * msg.h - every user-facing message goes through here, in git's manner:
 * "gpumend: error: cannot parse 'deploy.yaml' at line 12: ...", lowercase,
 * no final period, the subject quoted.
 */
#ifndef GPUMEND_MSG_H
#define GPUMEND_MSG_H

/* Program name used as the prefix ("gpumend", "gpumend-webhook"). */
void msg_set_program(const char *name);
const char *msg_program(void);

/* "PROGRAM: error: ..." on stderr. */
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PROGRAM: warning: ..." on stderr. */
void msg_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PROGRAM: ..." on stderr, for notes that are neither. */
void msg_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A usage error of `command` ("lint", "certs check"), in one line that
 * says where the help is: "PROGRAM COMMAND: MESSAGE; see 'PROGRAM COMMAND
 * --help'" on stderr.
 */
void msg_usage(const char *command, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A located problem in a file: "FILE:LINE:COL: error: MESSAGE" (line and
 * column 1-based; a column of 0 omits it, a line of 0 omits both).
 */
void msg_at(const char *file, int line, int column, const char *severity,
	    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
