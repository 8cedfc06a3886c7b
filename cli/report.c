/*
 * report.c - lint report writers: text, JSON, SARIF 2.1.0, GitHub workflow
 * commands.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"
#include "rules.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define SARIF_VERSION "2.1.0"

int report_format_parse(const char *name, enum report_format *out)
{
	static const struct {
		const char *name;
		enum report_format format;
	} formats[] = {
		{ "text", REPORT_TEXT },
		{ "json", REPORT_JSON },
		{ "sarif", REPORT_SARIF },
		{ "github", REPORT_GITHUB },
	};

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (strcmp(name, formats[i].name) == 0) {
			*out = formats[i].format;
			return 0;
		}
	}
	return -1;
}

static const char *item_file(const struct report_item *item)
{
	return item->file ? item->file : "-";
}

static const char *item_severity(const struct report_item *item)
{
	return item->severity ? item->severity : "warning";
}

static const char *item_message(const struct report_item *item)
{
	return item->message ? item->message : "";
}

/* ------------------------------------------------------------------ */
/* text                                                                */

static int text_write(struct buf *out, const struct report_item *items,
		      size_t n)
{
	struct buf line;
	int rc = 0;

	buf_init(&line, 0);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct report_item *item = &items[i];
		char *text;

		buf_reset(&line);
		if (item->line > 0 && item->column > 0)
			rc = buf_printf(&line, "%s:%d:%d: ", item_file(item),
					item->line, item->column);
		else if (item->line > 0)
			rc = buf_printf(&line, "%s:%d: ", item_file(item),
					item->line);
		else
			rc = buf_printf(&line, "%s: ", item_file(item));
		if (rc != 0 ||
		    buf_printf(&line, "%s: %s", item_severity(item),
			       item_message(item)) != 0 ||
		    (item->rule && buf_printf(&line, " [%s]", item->rule) != 0)) {
			rc = -1;
			break;
		}
		/* one finding, one line: a newline in a file name is shown
		 * as \n, not written */
		text = text_escape_controls(buf_detach(&line, NULL));
		rc = !text || buf_puts(out, text) != 0 ||
		     buf_putc(out, '\n') != 0 ? -1 : 0;
		free(text);
	}
	buf_free(&line);
	return rc;
}

/* ------------------------------------------------------------------ */
/* JSON and SARIF                                                      */

/*
 * Length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms,
 * no surrogates, nothing past U+10FFFF) that starts `s`, or 0.
 */
static size_t utf8_sequence(const unsigned char *s)
{
	unsigned long code;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		code = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		code = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		code = s[0] & 0x07;
	} else {
		return 0;
	}
	/* The NUL terminator fails this test, so no read runs past it. */
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		code = code << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && code < 0x800) ||
	    (len == 4 && (code < 0x10000 || code > 0x10ffff)) ||
	    (code >= 0xd800 && code <= 0xdfff))
		return 0;
	return len;
}

/*
 * A new JSON string of `s`; bytes that are not UTF-8 (a file name can hold
 * anything) become U+FFFD rather than failing the whole report.
 */
static json_t *report_string_new(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	struct buf clean;
	json_t *value;
	size_t len;

	value = json_string(s);
	if (value)
		return value;
	buf_init(&clean, 0);
	while (*p) {
		len = utf8_sequence(p);
		if (len ? buf_append(&clean, p, len)
			: buf_puts(&clean, "\xef\xbf\xbd")) {
			buf_free(&clean);
			return NULL;
		}
		p += len ? len : 1;
	}
	value = json_string(clean.data ? clean.data : "");
	buf_free(&clean);
	return value;
}

static int json_dump_to(struct buf *out, const json_t *root)
{
	char *text;
	int rc;

	text = json_text_new(root, JSON_INDENT(2));
	if (!text)
		return -1;
	rc = buf_puts(out, text) != 0 || buf_putc(out, '\n') != 0 ? -1 : 0;
	free(text);
	return rc;
}

static json_t *json_item_new(const struct report_item *item)
{
	json_t *object = json_object();

	if (!object)
		return NULL;
	if (json_object_set_new(object, "file",
				report_string_new(item_file(item))) != 0 ||
	    json_object_set_new(object, "line",
				json_integer(item->line > 0 ? item->line
							    : 0)) != 0 ||
	    json_object_set_new(object, "column",
				json_integer(item->column > 0 ? item->column
							      : 0)) != 0 ||
	    json_object_set_new(object, "rule",
				item->rule ? report_string_new(item->rule)
					   : json_null()) != 0 ||
	    json_object_set_new(object, "severity",
				report_string_new(item_severity(item))) != 0 ||
	    json_object_set_new(object, "message",
				report_string_new(item_message(item))) != 0 ||
	    (item->pointer &&
	     json_object_set_new(object, "pointer",
				 report_string_new(item->pointer)) != 0)) {
		json_decref(object);
		return NULL;
	}
	return object;
}

static int json_write(struct buf *out, const struct report_item *items,
		      size_t n)
{
	json_t *array = json_array();
	int rc = -1;

	if (!array)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(array, json_item_new(&items[i])) != 0)
			goto out_free_array;
	rc = json_dump_to(out, array);
out_free_array:
	json_decref(array);
	return rc;
}

static const char *sarif_level(const char *severity)
{
	if (strcmp(severity, "error") == 0)
		return "error";
	if (strcmp(severity, "info") == 0)
		return "note";
	return "warning";
}

/*
 * Appends `path` as a URI reference: leading "./" go, an absolute path
 * becomes a file: URI, and every byte outside the unreserved characters,
 * the sub-delimiters, '/' and '@' is percent-encoded (':' too, so that
 * "a:b.yaml" is not read as a scheme; and '\\', which on this system is a
 * character of the name, not a separator: %5C).
 */
static int sarif_uri(struct buf *uri, const char *path)
{
	static const char keep[] = "-._~/!$&'()*+,;=@";
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)path;
	unsigned char c;

	if (*p == '/') {
		if (buf_puts(uri, "file://") != 0)
			return -1;
	} else {
		while (p[0] == '.' && p[1] == '/' && p[2])
			p += 2;
	}
	for (; *p; p++) {
		c = *p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr(keep, c)) {
			if (buf_putc(uri, (char)c) != 0)
				return -1;
		} else if (buf_putc(uri, '%') != 0 ||
			   buf_putc(uri, hex[c >> 4]) != 0 ||
			   buf_putc(uri, hex[c & 0xf]) != 0) {
			return -1;
		}
	}
	return 0;
}

/* Collects the distinct rule ids of `items`, in order of first use. */
static const char **sarif_rule_ids(const struct report_item *items, size_t n,
				   size_t *count)
{
	const char **ids = calloc(n ? n : 1, sizeof(*ids));
	size_t i, k;

	if (!ids)
		return NULL;
	*count = 0;
	for (i = 0; i < n; i++) {
		if (!items[i].rule)
			continue;
		for (k = 0; k < *count; k++)
			if (strcmp(ids[k], items[i].rule) == 0)
				break;
		if (k == *count)
			ids[(*count)++] = items[i].rule;
	}
	return ids;
}

static json_t *sarif_rule_new(const char *id)
{
	const struct rule_info *info = rule_info_find(id);
	json_t *rule = json_object();

	if (!rule)
		return NULL;
	if (json_object_set_new(rule, "id", report_string_new(id)) != 0 ||
	    (info && info->summary &&
	     json_object_set_new(rule, "shortDescription",
				 json_pack("{s:o}", "text",
					   report_string_new(info->summary))) != 0)) {
		json_decref(rule);
		return NULL;
	}
	return rule;
}

static json_t *sarif_location_new(const struct report_item *item)
{
	json_t *physical, *region, *location;
	struct buf uri;

	buf_init(&uri, 0);
	if (sarif_uri(&uri, item_file(item)) != 0) {
		buf_free(&uri);
		return NULL;
	}
	physical = json_pack("{s:{s:o}}", "artifactLocation", "uri",
			     report_string_new(uri.data ? uri.data : ""));
	buf_free(&uri);
	if (!physical)
		return NULL;
	/* SARIF allows no column without a line. */
	if (item->line > 0) {
		region = json_pack("{s:i}", "startLine", item->line);
		if (json_object_set_new(physical, "region", region) != 0 ||
		    (item->column > 0 &&
		     json_object_set_new(region, "startColumn",
					 json_integer(item->column)) != 0)) {
			json_decref(physical);
			return NULL;
		}
	}
	location = json_pack("{s:o}", "physicalLocation", physical);
	return location;
}

static json_t *sarif_result_new(const struct report_item *item,
				const char **ids, size_t count)
{
	json_t *result = json_object();
	size_t k;

	if (!result)
		return NULL;
	if (item->rule) {
		for (k = 0; k < count; k++)
			if (strcmp(ids[k], item->rule) == 0)
				break;
		if (json_object_set_new(result, "ruleId",
					report_string_new(item->rule)) != 0 ||
		    json_object_set_new(result, "ruleIndex",
					json_integer((json_int_t)k)) != 0)
			goto out_free_result;
	}
	if (json_object_set_new(result, "level",
				json_string(sarif_level(
					item_severity(item)))) != 0 ||
	    json_object_set_new(result, "message",
				json_pack("{s:o}", "text",
					  report_string_new(
						  item_message(item)))) != 0 ||
	    json_object_set_new(result, "locations",
				json_pack("[o]",
					  sarif_location_new(item))) != 0)
		goto out_free_result;
	return result;
out_free_result:
	json_decref(result);
	return NULL;
}

static int sarif_write(struct buf *out, const struct report_item *items,
		       size_t n, const char *tool_version)
{
	json_t *log, *rules, *results;
	const char **ids;
	size_t count, i;
	int rc = -1;

	ids = sarif_rule_ids(items, n, &count);
	if (!ids)
		return -1;
	rules = json_array();
	results = json_array();
	/* no informationUri: the project publishes no home page to name */
	log = json_pack("{s:s, s:s, s:[{s:{s:{s:s, s:s, s:O}}, "
			"s:s, s:O}]}",
			"$schema", SARIF_SCHEMA,
			"version", SARIF_VERSION,
			"runs",
			"tool", "driver",
			"name", "gpumend",
			"version", tool_version ? tool_version
						: GPUMEND_VERSION,
			"rules", rules,
			"columnKind", "unicodeCodePoints",
			"results", results);
	if (!log)
		goto out_free_arrays;
	for (i = 0; i < count; i++)
		if (json_array_append_new(rules, sarif_rule_new(ids[i])) != 0)
			goto out_free_log;
	for (i = 0; i < n; i++)
		if (json_array_append_new(results,
					  sarif_result_new(&items[i], ids,
							   count)) != 0)
			goto out_free_log;
	rc = json_dump_to(out, log);
out_free_log:
	json_decref(log);
out_free_arrays:
	json_decref(rules);
	json_decref(results);
	free(ids);
	return rc;
}

/* ------------------------------------------------------------------ */
/* GitHub workflow commands                                            */

/*
 * The runner decodes %25, %0D and %0A in a command's message, and %3A and
 * %2C as well in its properties, where ':' and ',' are delimiters.
 */
static int github_escape(struct buf *out, const char *s, int property)
{
	const char *escaped;
	int rc;

	for (; *s; s++) {
		switch (*s) {
		case '%':
			escaped = "%25";
			break;
		case '\r':
			escaped = "%0D";
			break;
		case '\n':
			escaped = "%0A";
			break;
		case ':':
			escaped = property ? "%3A" : NULL;
			break;
		case ',':
			escaped = property ? "%2C" : NULL;
			break;
		default:
			escaped = NULL;
			break;
		}
		rc = escaped ? buf_puts(out, escaped) : buf_putc(out, *s);
		if (rc != 0)
			return -1;
	}
	return 0;
}

static const char *github_command(const char *severity)
{
	if (strcmp(severity, "error") == 0)
		return "error";
	if (strcmp(severity, "info") == 0)
		return "notice";
	return "warning";
}

static int github_write(struct buf *out, const struct report_item *items,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct report_item *item = &items[i];

		if (buf_printf(out, "::%s file=",
			       github_command(item_severity(item))) != 0 ||
		    github_escape(out, item_file(item), 1) != 0)
			return -1;
		if (item->line > 0 &&
		    buf_printf(out, ",line=%d", item->line) != 0)
			return -1;
		if (item->line > 0 && item->column > 0 &&
		    buf_printf(out, ",col=%d", item->column) != 0)
			return -1;
		if (item->rule && (buf_puts(out, ",title=") != 0 ||
				   github_escape(out, item->rule, 1) != 0))
			return -1;
		if (buf_puts(out, "::") != 0 ||
		    github_escape(out, item_message(item), 0) != 0 ||
		    buf_putc(out, '\n') != 0)
			return -1;
	}
	return 0;
}

int report_write(struct buf *out, enum report_format fmt,
		 const struct report_item *items, size_t n,
		 const char *tool_version)
{
	size_t mark = out->len;
	int rc;

	switch (fmt) {
	case REPORT_TEXT:
		rc = text_write(out, items, n);
		break;
	case REPORT_JSON:
		rc = json_write(out, items, n);
		break;
	case REPORT_SARIF:
		rc = sarif_write(out, items, n, tool_version);
		break;
	case REPORT_GITHUB:
		rc = github_write(out, items, n);
		break;
	default:
		rc = -1;
		break;
	}
	if (rc != 0 && out->len != mark) {
		out->len = mark;
		out->data[mark] = '\0';
	}
	return rc;
}
