/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log.c - JSON lines on stderr.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ascii.h"
#include "buf.h"
#include "json_write.h"
#include "log.h"
#include "rules.h"

static atomic_int min_level = LOG_LEVEL_INFO;
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const level_names[] = { "debug", "info", "warn", "error" };

/*
 * A string field longer than LOG_FIELD_MAX bytes is cut there (at a UTF-8
 * character's start) and ends with a marker giving its whole length: a
 * 1 MB object name must not make a 1 MB line on every review.
 */
#define LOG_FIELD_MAX 256
/* The cut text, its marker and the NUL. */
#define LOG_FIELD_ROOM (LOG_FIELD_MAX + 48)

/*
 * The text to log for the `len` bytes of `text`: `text` itself when it is
 * short enough, else its first LOG_FIELD_MAX bytes or fewer (never half a
 * UTF-8 sequence) and "...[cut, N bytes]" in `room`.
 */
static const char *field_cut(const char *text, size_t len,
			     char room[LOG_FIELD_ROOM])
{
	size_t cut = LOG_FIELD_MAX;

	if (len <= LOG_FIELD_MAX)
		return text;
	/* back to the start of the character the cut falls in (at most 3
	 * bytes: invalid UTF-8 is mended after the cut) */
	while (cut > LOG_FIELD_MAX - 3 && ((unsigned char)text[cut] & 0xC0) == 0x80)
		cut--;
	memcpy(room, text, cut);
	snprintf(room + cut, LOG_FIELD_ROOM - cut, "...[cut, %zu bytes]", len);
	return room;
}

int log_level_parse(const char *name, enum log_level *level)
{
	for (int i = 0; i < 4; i++) {
		if (strcmp(name, level_names[i]) == 0) {
			*level = (enum log_level)i;
			return 0;
		}
	}
	if (strcmp(name, "warning") == 0) {
		*level = LOG_LEVEL_WARN;
		return 0;
	}
	return -1;
}

const char *log_level_name(enum log_level level)
{
	return (unsigned)level < 4 ? level_names[level] : "?";
}

void log_set_level(enum log_level level)
{
	atomic_store(&min_level, (int)level);
}

int log_enabled(enum log_level level)
{
	return (int)level >= atomic_load(&min_level);
}

/* RFC 3339 in UTC with milliseconds: 2024-05-01T12:00:00.123Z */
static void format_time(char *out, size_t size)
{
	/* the part down to the second changes once a second: kept */
	static _Thread_local time_t cached_sec = -1;
	static _Thread_local char cached[32];
	struct timespec now;
	size_t len;
	long ms;

	clock_gettime(CLOCK_REALTIME, &now);
	if (now.tv_sec != cached_sec) {
		struct tm tm;

		gmtime_r(&now.tv_sec, &tm);
		if (!strftime(cached, sizeof(cached), "%Y-%m-%dT%H:%M:%S", &tm))
			cached[0] = '\0';
		cached_sec = now.tv_sec;
	}
	ms = now.tv_nsec / 1000000;
	len = strlen(cached);
	if (len + 6 > size) {
		*out = '\0';
		return;
	}
	memcpy(out, cached, len);
	out[len++] = '.';
	out[len++] = (char)('0' + ms / 100);
	out[len++] = (char)('0' + ms / 10 % 10);
	out[len++] = (char)('0' + ms % 10);
	out[len++] = 'Z';
	out[len] = '\0';
}
/* One write(2) per line where the pipe allows, under a lock otherwise. */
static void write_line(const char *line, size_t len)
{
	pthread_mutex_lock(&write_lock);
	while (len > 0) {
		ssize_t n = write(STDERR_FILENO, line, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		line += n;
		len -= (size_t)n;
	}
	pthread_mutex_unlock(&write_lock);
}

/* ,"key": */
static void line_key(struct log_line *line, const char *key)
{
	if (line->failed)
		return;
	size_t len = strlen(key);

	/* keys are this program's own names: nothing in them to escape */
	if (buf_grow(&line->text, len + 4)) {
		line->failed = 1;
		return;
	}
	memcpy(line->text.data + line->text.len, ",\"", 2);
	memcpy(line->text.data + line->text.len + 2, key, len);
	memcpy(line->text.data + line->text.len + 2 + len, "\":", 3);
	line->text.len += len + 4;
}

int log_line_begin(struct log_line *line, enum log_level level,
		   const char *msg)
{
	char stamp[40];

	if (!log_enabled(level))
		return -1;
	buf_init(&line->text, 0);
	/* one allocation for most lines */
	line->failed = buf_grow(&line->text, 1024) != 0;
	format_time(stamp, sizeof(stamp));
	if (buf_puts(&line->text, "{\"time\":\"") ||
	    buf_puts(&line->text, stamp) ||
	    buf_puts(&line->text, "\",\"level\":\"") ||
	    buf_puts(&line->text, log_level_name(level)) ||
	    buf_putc(&line->text, '"'))
		line->failed = 1;
	log_line_string(line, "msg", msg);
	return 0;
}

static json_t *string_mended(const char *text);

void log_line_string(struct log_line *line, const char *key,
		     const char *value)
{
	char room[LOG_FIELD_ROOM];
	json_t *clean = NULL;
	size_t len;

	line_key(line, key);
	if (line->failed)
		return;
	if (!value) {
		line->failed = buf_puts(&line->text, "null") != 0;
		return;
	}
	len = strlen(value);
	if (len > LOG_FIELD_MAX) {
		value = field_cut(value, len, room);
		len = strlen(value);
	}
	if (ascii_span(value, len) < len) {
		/* not ASCII: jansson checks the UTF-8, log_string mends it */
		if (!(clean = string_mended(value))) {
			line->failed = 1;
			return;
		}
		value = json_string_value(clean);
		len = strlen(value);
	}
	if (json_write_string(&line->text, value, len))
		line->failed = 1;
	json_decref(clean);
}

/* Appends the decimal digits of `value`, then `decimals` more of `frac`. */
static void line_number(struct log_line *line, long long value,
			unsigned long frac, int decimals)
{
	char digits[48], *p = digits + sizeof(digits);
	unsigned long long v = value < 0 ? 0 - (unsigned long long)value :
					   (unsigned long long)value;

	for (int i = 0; i < decimals; i++, frac /= 10)
		*--p = (char)('0' + frac % 10);
	if (decimals)
		*--p = '.';
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	if (value < 0)
		*--p = '-';
	if (buf_append(&line->text, p, (size_t)(digits + sizeof(digits) - p)))
		line->failed = 1;
}

void log_line_int(struct log_line *line, const char *key, long long value)
{
	line_key(line, key);
	if (!line->failed)
		line_number(line, value, 0, 0);
}

void log_line_bool(struct log_line *line, const char *key, int value)
{
	line_key(line, key);
	if (!line->failed && buf_puts(&line->text, value ? "true" : "false"))
		line->failed = 1;
}

void log_line_ms(struct log_line *line, const char *key, double ms)
{
	/* microseconds, then written as milliseconds with 3 decimals */
	long long us = ms > 0 && ms < 9e15 ? (long long)(ms * 1000 + 0.5) : 0;

	line_key(line, key);
	if (!line->failed)
		line_number(line, us / 1000, (unsigned long)(us % 1000), 3);
}

void log_line_json(struct log_line *line, const char *key,
		   const json_t *value)
{
	char *text;

	line_key(line, key);
	if (line->failed)
		return;
	text = json_text_new(value, JSON_COMPACT | JSON_REAL_PRECISION(6));
	if (!text || buf_puts(&line->text, text))
		line->failed = 1;
	free(text);
}

void log_line_end(struct log_line *line)
{
	if (!line->failed && !buf_puts(&line->text, "}\n")) {
		write_line(line->text.data, line->text.len);
	} else {
		/* out of memory: still say something */
		static const char fallback[] =
			"{\"level\":\"error\",\"msg\":\"log line lost: out of memory\"}\n";

		write_line(fallback, sizeof(fallback) - 1);
	}
	buf_free(&line->text);
}

/* `fields_new` NULL: no fields (json_pack's NULL on failure included). */
void log_event(enum log_level level, const char *msg, json_t *fields_new)
{
	struct log_line line;
	const char *key;
	json_t *value;

	if (log_line_begin(&line, level, msg) == 0) {
		json_object_foreach(fields_new, key, value)
			log_line_json(&line, key, value);
		log_line_end(&line);
	}
	json_decref(fields_new);
}

/* A new JSON string of `text`, bytes of invalid UTF-8 replaced by '?'. */
static json_t *string_mended(const char *text)
{
	json_t *value = json_string(text);
	char *copy;

	if (value || !text)
		return value;
	if (!(copy = strdup(text)))
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	value = json_string(copy);
	free(copy);
	return value;
}

json_t *log_string(const char *text)
{
	char room[LOG_FIELD_ROOM];

	if (text)
		text = field_cut(text, strlen(text), room);
	return string_mended(text);
}

void log_error_event(enum log_level level, const char *msg,
		     const char *fmt, ...)
{
	char error[1024];
	va_list ap;

	if (!log_enabled(level))
		return;
	va_start(ap, fmt);
	vsnprintf(error, sizeof(error), fmt, ap);
	va_end(ap);
	log_event(level, msg, json_pack("{s:o*}", "error", log_string(error)));
}
