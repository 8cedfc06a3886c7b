/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * msg.c - user-facing messages.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "rules.h"

static const char *program = "gpumend";

void msg_set_program(const char *name)
{
	program = name;
}

const char *msg_program(void)
{
	return program;
}

/*
 * Writes the formatted message on stderr, one line whatever it quotes: a
 * newline or another control byte (in a file name, say) is shown as an
 * escape, \n or \x1b, not written.
 */
static void put_text(const char *fmt, va_list ap)
{
	va_list copy;
	int len;
	char *text;

	va_copy(copy, ap);
	len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (len < 0 || !(text = malloc((size_t)len + 1))) {
		vfprintf(stderr, fmt, ap);
	} else {
		vsnprintf(text, (size_t)len + 1, fmt, ap);
		text = text_escape_controls(text);
		if (text)
			fputs(text, stderr);
		free(text);
	}
}

static void put_line(const char *fmt, va_list ap)
{
	put_text(fmt, ap);
	fputc('\n', stderr);
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	if (kind)
		fprintf(stderr, "%s: %s: ", program, kind);
	else
		fprintf(stderr, "%s: ", program);
	put_line(fmt, ap);
}

/* The file name of msg_at() with its control bytes shown as escapes. */
static void put_name(const char *file)
{
	char *copy = strdup(file);
	char *shown = copy ? text_escape_controls(copy) : NULL;

	fputs(shown ? shown : file, stderr);
	free(shown);
}

void msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
}

void msg_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", fmt, ap);
	va_end(ap);
}

void msg_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
}

void msg_usage(const char *command, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", program, command);
	va_start(ap, fmt);
	put_text(fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see '%s %s --help'\n", program, command);
}

void msg_at(const char *file, int line, int column, const char *severity,
	    const char *fmt, ...)
{
	va_list ap;

	put_name(file);
	if (line > 0 && column > 0)
		fprintf(stderr, ":%d:%d: %s: ", line, column, severity);
	else if (line > 0)
		fprintf(stderr, ":%d: %s: ", line, severity);
	else
		fprintf(stderr, ": %s: ", severity);
	va_start(ap, fmt);
	put_line(fmt, ap);
	va_end(ap);
}
