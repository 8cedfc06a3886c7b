/*
 * log.c - JSON lines on stderr.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "rules.h"

static atomic_int min_level = LOG_LEVEL_INFO;
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const level_names[] = { "debug", "info", "warn", "error" };

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
	struct timespec now;
	struct tm tm;
	size_t len;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	len = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + len, size - len, ".%03ldZ", now.tv_nsec / 1000000);
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

void log_event(enum log_level level, const char *msg, json_t *fields_new)
{
	char stamp[40];
	json_t *line;
	char *text;

	if (!log_enabled(level)) {
		json_decref(fields_new);
		return;
	}
	format_time(stamp, sizeof(stamp));
	line = json_pack("{s:s, s:s, s:s}", "time", stamp,
			 "level", log_level_name(level), "msg", msg);
	if (line && json_is_object(fields_new))
		json_object_update(line, fields_new);
	json_decref(fields_new);
	text = line ? json_text_new(line, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
	json_decref(line);
	if (!text) {
		/* out of memory: still say something */
		static const char fallback[] =
			"{\"level\":\"error\",\"msg\":\"log line lost: out of memory\"}\n";

		write_line(fallback, sizeof(fallback) - 1);
		return;
	}
	{
		size_t len = strlen(text);
		char *with_newline = realloc(text, len + 2);

		if (with_newline) {
			text = with_newline;
			text[len++] = '\n';
			text[len] = '\0';
			write_line(text, len);
		} else {
			write_line(text, len);
			write_line("\n", 1);
		}
	}
	free(text);
}

json_t *log_string(const char *text)
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
