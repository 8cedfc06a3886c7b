/*
 * msg.c - user-facing messages.
 */
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"

static const char *program = "gpumend";

void msg_set_program(const char *name)
{
	program = name;
}

const char *msg_program(void)
{
	return program;
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	if (kind)
		fprintf(stderr, "%s: %s: ", program, kind);
	else
		fprintf(stderr, "%s: ", program);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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

void msg_at(const char *file, int line, int column, const char *severity,
	    const char *fmt, ...)
{
	va_list ap;

	if (line > 0 && column > 0)
		fprintf(stderr, "%s:%d:%d: %s: ", file, line, column, severity);
	else if (line > 0)
		fprintf(stderr, "%s:%d: %s: ", file, line, severity);
	else
		fprintf(stderr, "%s: %s: ", file, severity);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
