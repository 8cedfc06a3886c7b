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
 * file name, say) are replaced by '?'. NULL only when out of memory.
 */
json_t *log_string(const char *text);

/*
 * Writes one line whose only extra field is "error": the formatted text.
 * For start-up, reload and shutdown problems.
 */
void log_error_event(enum log_level level, const char *msg,
		     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
