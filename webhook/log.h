/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log.h - the webhook's structured log: one JSON object per line on stderr.
 *
 * Every line has "time" (RFC 3339, UTC, milliseconds), "level" and "msg",
 * then the event's own fields. Lines are written whole, so that lines of
 * concurrent requests never interleave. Messages below the configured level
 * are dropped before anything is formatted.
 */
#ifndef GPUMEND_WEBHOOK_LOG_H
#define GPUMEND_WEBHOOK_LOG_H

#include <jansson.h>

#include "buf.h"

enum log_level {
	LOG_LEVEL_DEBUG,
	LOG_LEVEL_INFO,
	LOG_LEVEL_WARN,
	LOG_LEVEL_ERROR
};

/* Parses "debug", "info", "warn" (or "warning") or "error"; -1 when unknown. */
int log_level_parse(const char *name, enum log_level *level);
const char *log_level_name(enum log_level level);

/* Sets the lowest level written; the default is info. Thread-safe. */
void log_set_level(enum log_level level);
/* 1 when messages of `level` are written. */
int log_enabled(enum log_level level);

/*
 * Writes one line: "msg" is `msg`, the members of `fields_new` (an object,
 * or NULL) follow. Steals `fields_new` whether or not the line is written.
 */
void log_event(enum log_level level, const char *msg, json_t *fields_new);

/*
 * Returns a new JSON string of `text`; bytes that are not valid UTF-8 (a
 * file name, say) are replaced by '?'. A text longer than 256 bytes is cut
 * there, between two UTF-8 characters, and ends with "...[cut, N bytes]"
 * (N its whole length). NULL only when out of memory.
 */
json_t *log_string(const char *text);

/*
 * A log line written member by member, without building a json object
 * (the line of every admission review):
 *
 *	struct log_line line;
 *
 *	if (log_line_begin(&line, LOG_LEVEL_INFO, "admission review") == 0) {
 *		log_line_string(&line, "uid", uid);
 *		...
 *		log_line_end(&line);
 *	}
 *
 * log_line_begin() returns -1 when `level` is not logged (nothing to end).
 * Strings may be NULL (null) and need not be valid UTF-8 (mended and cut
 * as by log_string()); milliseconds are written with 3 decimals. When memory
 * runs out the line ends as a short error line.
 */
struct log_line {
	struct buf text;
	int failed;
};

int log_line_begin(struct log_line *line, enum log_level level,
		   const char *msg);
void log_line_string(struct log_line *line, const char *key,
		     const char *value);
void log_line_int(struct log_line *line, const char *key, long long value);
void log_line_bool(struct log_line *line, const char *key, int value);
void log_line_ms(struct log_line *line, const char *key, double ms);
void log_line_json(struct log_line *line, const char *key,
		   const json_t *value);
void log_line_end(struct log_line *line);

/*
 * Writes one line whose only extra field is "error": the formatted text.
 * For start-up, reload and shutdown problems.
 */
void log_error_event(enum log_level level, const char *msg,
		     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
