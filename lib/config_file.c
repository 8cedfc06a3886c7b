/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config_file.c - loads a YAML config file on top of the defaults, naming
 * the line and column of anything wrong in it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_file.h"
#include "source.h"

/* Config files are small; anything larger is a mistake. */
#define CONFIG_MAX_BYTES (4u << 20)

/*
 * Loads `text`; with `admission`, a config whose target the admission front
 * ends cannot serve is refused at its `target` key.
 */
static struct config *text_load(const char *name, const char *text,
				size_t len, int admission, char *errbuf,
				size_t errlen)
{
	static const struct source_limits limits = {
		.max_document_bytes = CONFIG_MAX_BYTES,
		.max_depth = 32,
		.max_alias_nodes = 10000,
	};
	struct source_error serr;
	struct source_node *root = NULL;
	struct rules_error rerr;
	struct config *cfg = config_new_default();
	json_t *doc;
	int line, column;

	if (!cfg) {
		snprintf(errbuf, errlen, "%s: out of memory", name);
		return NULL;
	}
	doc = source_parse_one(text, len, &limits, &root, &serr);
	if (!doc) {
		snprintf(errbuf, errlen, "%s:%d:%d: %s", name, serr.line,
			 serr.column, serr.message);
		goto out_fail;
	}
	if (json_is_null(doc)) {
		/* an empty file: the defaults */
		json_decref(doc);
		source_node_free(root);
		return cfg;
	}
	if (config_apply(cfg, doc, &rerr) != 0) {
		/* an unknown key is its key; anything else, its value */
		if (rerr.at_key)
			source_locate(root, rerr.pointer, &line, &column);
		else
			source_locate_value(root, rerr.pointer, &line, &column);
		snprintf(errbuf, errlen, "%s:%d:%d: %s", name, line, column,
			 rerr.message);
		json_decref(doc);
		goto out_fail;
	}
	json_decref(doc);
	if (admission && cfg->target == RULES_TARGET_DRA) {
		/* a mutating webhook cannot create the ResourceClaimTemplates
		 * that the pods it changed would name */
		source_locate_value(root, "/target", &line, &column);
		snprintf(errbuf, errlen,
			 "%s:%d:%d: target 'dra' is for gpumend migrate and lint only: an admission webhook cannot create the ResourceClaimTemplates pods would name; use target device-plugin here (see docs/dra.md)",
			 name, line, column);
		goto out_fail;
	}
	source_node_free(root);
	return cfg;
out_fail:
	source_node_free(root);
	config_free(cfg);
	return NULL;
}

struct config *config_text_load(const char *name, const char *text,
				size_t len, char *errbuf, size_t errlen)
{
	return text_load(name, text, len, 0, errbuf, errlen);
}

struct config *config_text_load_admission(const char *name, const char *text,
					  size_t len, char *errbuf,
					  size_t errlen)
{
	return text_load(name, text, len, 1, errbuf, errlen);
}

static struct config *file_load(const char *path, int admission,
				char *errbuf, size_t errlen)
{
	FILE *f;
	char *text;
	size_t len;
	long size;
	struct config *cfg;

	if (!path)
		return text_load("(defaults)", "", 0, admission, errbuf, errlen);
	f = fopen(path, "rb");
	if (!f) {
		snprintf(errbuf, errlen, "cannot open config '%s': %s", path,
			 strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		snprintf(errbuf, errlen, "cannot read config '%s': %s", path,
			 strerror(errno));
		fclose(f);
		return NULL;
	}
	if ((unsigned long)size > CONFIG_MAX_BYTES) {
		snprintf(errbuf, errlen, "config '%s' is larger than %u bytes",
			 path, CONFIG_MAX_BYTES);
		fclose(f);
		return NULL;
	}
	text = malloc((size_t)size + 1);
	if (!text) {
		snprintf(errbuf, errlen, "config '%s': out of memory", path);
		fclose(f);
		return NULL;
	}
	len = fread(text, 1, (size_t)size, f);
	if (ferror(f)) {
		snprintf(errbuf, errlen, "cannot read config '%s': %s", path,
			 strerror(errno));
		free(text);
		fclose(f);
		return NULL;
	}
	fclose(f);
	text[len] = '\0';
	cfg = text_load(path, text, len, admission, errbuf, errlen);
	free(text);
	return cfg;
}

struct config *config_file_load(const char *path, char *errbuf, size_t errlen)
{
	return file_load(path, 0, errbuf, errlen);
}

struct config *config_file_load_admission(const char *path, char *errbuf,
					  size_t errlen)
{
	return file_load(path, 1, errbuf, errlen);
}
