/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.c - lint report writers: text, JSON, SARIF 2.1.0, GitHub workflow
 * commands, GitLab Code Quality; and how a finding names its object.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "report.h"
#include "rules.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define SARIF_VERSION "2.1.0"

/* The project's home, and the page that explains each rule at the anchor
 * of its id: the one place these addresses are written. */
#define REPORT_HOME_URI "https://github.com/gpumend/gpumend"
#define REPORT_RULES_URI REPORT_HOME_URI "/blob/main/docs/rules.md"

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
		{ "codequality", REPORT_CODEQUALITY },
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

static int has_object(const struct report_item *item)
{
	return item->kind || item->name || item->generate_name;
}

/* "KIND NAMESPACE/NAME", without the ": " (see report_object_label()). */
static int object_name_put(struct buf *out, const struct report_item *item)
{
	if (buf_puts(out, item->kind ? item->kind : "<no kind>"))
		return -1;
	/* no metadata at all (a configuration file): its kind says it */
	if (!item->name && !item->generate_name && !item->nameless &&
	    !item->namespace)
		return 0;
	if (buf_putc(out, ' ') ||
	    (item->namespace && buf_printf(out, "%s/", item->namespace)))
		return -1;
	if (item->name)
		return buf_puts(out, item->name);
	if (item->generate_name)
		return buf_printf(out, "%s*", item->generate_name);
	return buf_puts(out, "<no name>");
}

int report_object_label(struct buf *out, const struct report_item *item)
{
	if (!has_object(item))
		return 0;
	return object_name_put(out, item) || buf_puts(out, ": ") ? -1 : 0;
}

/* A new string of the object's name as text shows it, or NULL. */
static char *object_name_new(const struct report_item *item)
{
	struct buf name;

	buf_init(&name, 0);
	if (object_name_put(&name, item)) {
		buf_free(&name);
		return NULL;
	}
	return buf_detach(&name, NULL);
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
		    buf_printf(&line, "%s: ", item_severity(item)) != 0 ||
		    report_object_label(&line, item) != 0 ||
		    buf_puts(&line, item_message(item)) != 0 ||
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

static json_t *string_or_null(const char *s)
{
	return s ? report_string_new(s) : json_null();
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
				 report_string_new(item->pointer)) != 0) ||
	    json_object_set_new(object, "kind", string_or_null(item->kind)) ||
	    json_object_set_new(object, "namespace",
				string_or_null(item->namespace)) ||
	    json_object_set_new(object, "name", string_or_null(item->name)) ||
	    (item->generate_name &&
	     json_object_set_new(object, "generateName",
				 report_string_new(item->generate_name)))) {
		json_decref(object);
		return NULL;
	}
	return object;
}

/* A pretty-printed array of what `item_new` makes of each item. */
static int json_array_write(struct buf *out, const struct report_item *items,
			    size_t n,
			    json_t *(*item_new)(const struct report_item *item))
{
	json_t *array = json_array();
	int rc = -1;

	if (!array)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(array, item_new(&items[i])) != 0)
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

/*
 * The CLI's own findings, which belong to no rule of the engine: they are
 * explained as the rules are (rule_help_get()).
 */
static const struct {
	const char *id;
	const char *summary;
	struct rule_help help;
} cli_checks[] = {
	{ "syntax", "files that are not valid YAML or JSON, or that pass the configured limits",
	  { "A file named on the command line, or a Kubernetes manifest found in a directory, that is not valid YAML or JSON, or that passes the limits of the configuration (document size, nesting depth, alias expansion). Nothing in it is checked.",
	    "Fix the file at the line and column given. A Helm template outside a chart is read as one with --chart.",
	    "syntax", "limits.maxDocumentBytes,limits.maxDepth,limits.maxAliasNodes",
	    { NULL, NULL, NULL } } },
	{ "input", "paths that cannot be read or give nothing, files that changed while they were read",
	  { "A path named that is not there or cannot be read, a file that cannot be opened or read, or that another program changed while gpumend read it (what was read may be a mix of old and new), a directory named in which no manifest is read, or standard input without a document. Nothing in it is checked.",
	    "Check the path and that the file can be read, and run again once nothing writes to it. Where an empty directory or input is expected, --allow-empty accepts it.",
	    "input", "", { NULL, NULL, NULL } } },
};

int report_rule_uri(struct buf *out, const char *id)
{
	return buf_printf(out, "%s#%s", REPORT_RULES_URI, id);
}

/* The summary and help of rule or check `id`; 0, or -1 when unknown. */
static int rule_text(const char *id, const char **summary,
		     const struct rule_help **help)
{
	const struct rule_info *info = rule_info_find(id);

	if (info) {
		*summary = info->summary;
		*help = rule_help_get(info->id);
		return *summary && *help ? 0 : -1;
	}
	for (size_t i = 0; i < sizeof(cli_checks) / sizeof(cli_checks[0]); i++) {
		if (strcmp(cli_checks[i].id, id) == 0) {
			*summary = cli_checks[i].summary;
			*help = &cli_checks[i].help;
			return 0;
		}
	}
	return -1;
}

/* The tags of a rule, from its comma-separated list. */
static json_t *tags_new(const char *tags)
{
	json_t *array = json_array();
	const char *comma;

	while (array && *tags) {
		comma = strchr(tags, ',');
		if (json_array_append_new(array, json_stringn(tags,
			comma ? (size_t)(comma - tags) : strlen(tags)))) {
			json_decref(array);
			return NULL;
		}
		tags = comma ? comma + 1 : tags + strlen(tags);
	}
	return array;
}

static json_t *sarif_rule_new(const char *id)
{
	const char *summary;
	const struct rule_help *help;
	json_t *rule = json_object();
	struct buf uri, text, markdown;
	int rc;

	if (!rule)
		return NULL;
	if (json_object_set_new(rule, "id", report_string_new(id)) != 0)
		goto out_free_rule;
	if (rule_text(id, &summary, &help) != 0)
		return rule;
	buf_init(&uri, 0);
	buf_init(&text, 0);
	buf_init(&markdown, 0);
	rc = report_rule_uri(&uri, id) ||
	     buf_printf(&text, "%s\n\n%s\n\nSee %s", help->description,
			help->fix, uri.data) ||
	     buf_printf(&markdown, "**%s**\n\n%s\n\n%s\n\nSee [%s](%s).",
			id, help->description, help->fix, id, uri.data) ||
	     json_object_set_new(rule, "shortDescription",
				 json_pack("{s:o}", "text",
					   report_string_new(summary))) ||
	     json_object_set_new(rule, "fullDescription",
				 json_pack("{s:o}", "text",
					   report_string_new(help->description))) ||
	     json_object_set_new(rule, "help",
				 json_pack("{s:o, s:o}",
					   "text", report_string_new(text.data),
					   "markdown",
					   report_string_new(markdown.data))) ||
	     json_object_set_new(rule, "helpUri", report_string_new(uri.data)) ||
	     json_object_set_new(rule, "properties",
				 json_pack("{s:o}", "tags",
					   tags_new(help->tags)));
	buf_free(&uri);
	buf_free(&text);
	buf_free(&markdown);
	if (rc == 0)
		return rule;
out_free_rule:
	json_decref(rule);
	return NULL;
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
	if (location && has_object(item)) {
		char *label = object_name_new(item);
		json_t *logical = label ?
			json_pack("{s:s, s:o}", "kind", "resource",
				  "fullyQualifiedName",
				  report_string_new(label)) : NULL;

		free(label);
		if (!logical ||
		    (item->name && json_object_set_new(logical, "name",
				report_string_new(item->name))) ||
		    json_object_set_new(location, "logicalLocations",
					json_pack("[o]", logical))) {
			json_decref(location);
			return NULL;
		}
	}
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
	log = json_pack("{s:s, s:s, s:[{s:{s:{s:s, s:s, s:s, s:O}}, "
			"s:s, s:O}]}",
			"$schema", SARIF_SCHEMA,
			"version", SARIF_VERSION,
			"runs",
			"tool", "driver",
			"name", "gpumend",
			"informationUri", REPORT_HOME_URI,
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

/* ",title=RULE (KIND NAMESPACE/NAME)", or what of it is known. */
static int github_title(struct buf *out, const struct report_item *item)
{
	char *label = NULL;
	int rc = 0;

	if (!item->rule && !has_object(item))
		return 0;
	if (has_object(item) && !(label = object_name_new(item)))
		return -1;
	if (buf_puts(out, ",title=") ||
	    (item->rule && github_escape(out, item->rule, 1)) ||
	    (label && item->rule && buf_puts(out, " (")) ||
	    (label && github_escape(out, label, 1)) ||
	    (label && item->rule && buf_putc(out, ')')))
		rc = -1;
	free(label);
	return rc;
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
		if (github_title(out, item) != 0)
			return -1;
		if (buf_puts(out, "::") != 0 ||
		    github_escape(out, item_message(item), 0) != 0 ||
		    buf_putc(out, '\n') != 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* GitLab Code Quality                                                 */

/* GitLab's severities: info, minor, major, critical, blocker. */
static const char *codequality_severity(const char *severity)
{
	if (strcmp(severity, "error") == 0)
		return "critical";
	if (strcmp(severity, "info") == 0)
		return "info";
	return "major";
}

/*
 * The issue's fingerprint: what it is about, not where its line is, so
 * that it stays the same when lines move. SHA-256 (in hex) of the rule,
 * the file, the object, the place in the object and the message.
 */
static json_t *codequality_fingerprint_new(const struct report_item *item)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int size = 0;
	char text[2 * EVP_MAX_MD_SIZE + 1];
	struct buf key;
	const char *place = item->pointer ? item->pointer + item->object_at : "";
	int rc;

	buf_init(&key, 0);
	/* each part ends with a NUL: no two keys run together alike */
	rc = buf_printf(&key, "%s%c%s%c%s%c%s%c%s%c%s%c%s%c%s",
			item->rule ? item->rule : "", 0, item_file(item), 0,
			item->kind ? item->kind : "", 0,
			item->namespace ? item->namespace : "", 0,
			item->name ? item->name : "", 0,
			item->generate_name ? item->generate_name : "", 0,
			place, 0, item_message(item));
	if (rc == 0)
		rc = EVP_Digest(key.data, key.len, digest, &size, EVP_sha256(),
				NULL) == 1 ? 0 : -1;
	buf_free(&key);
	if (rc != 0)
		return NULL;
	for (unsigned int i = 0; i < size; i++) {
		text[2 * i] = hex[digest[i] >> 4];
		text[2 * i + 1] = hex[digest[i] & 0xf];
	}
	text[2 * size] = '\0';
	return json_string(text);
}

static json_t *codequality_issue_new(const struct report_item *item)
{
	const char *path = item_file(item);
	struct buf description;
	json_t *issue;

	/* the repository's relative path, as GitLab matches it */
	while (path[0] == '.' && path[1] == '/' && path[2])
		path += 2;
	buf_init(&description, 0);
	if (report_object_label(&description, item) ||
	    buf_puts(&description, item_message(item))) {
		buf_free(&description);
		return NULL;
	}
	issue = json_pack("{s:o, s:o, s:o, s:s, s:{s:o, s:{s:i}}}",
			  "description", report_string_new(description.data),
			  "check_name",
			  report_string_new(item->rule ? item->rule : "gpumend"),
			  "fingerprint", codequality_fingerprint_new(item),
			  "severity",
			  codequality_severity(item_severity(item)),
			  "location", "path", report_string_new(path),
			  "lines", "begin", item->line > 0 ? item->line : 1);
	buf_free(&description);
	return issue;
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
		rc = json_array_write(out, items, n, json_item_new);
		break;
	case REPORT_SARIF:
		rc = sarif_write(out, items, n, tool_version);
		break;
	case REPORT_GITHUB:
		rc = github_write(out, items, n);
		break;
	case REPORT_CODEQUALITY:
		rc = json_array_write(out, items, n, codequality_issue_new);
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
