/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seed_tool.c - helps tests/fuzz/seeds.sh build the seed corpora with the
 * project's own YAML reader, so that no YAML tool has to be installed:
 *
 *   seed_tool json FILE...  one line per FILE: the JSON array of its
 *                           documents that are mappings ([] for a file that
 *                           does not parse)
 *   seed_tool config        the default configuration file (`gpumend config`)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "source.h"

/* Reads a whole file into a new NUL-terminated buffer. */
static char *seed_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL, *grown;
	size_t alloc = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	do {
		if (*len + 1 >= alloc) {
			alloc = alloc ? alloc * 2 : 65536;
			if (!(grown = realloc(data, alloc))) {
				free(data);
				fclose(f);
				return NULL;
			}
			data = grown;
		}
		n = fread(data + *len, 1, alloc - *len - 1, f);
		*len += n;
	} while (n > 0);
	fclose(f);
	data[*len] = '\0';
	return data;
}

/* Prints the array of the mapping documents of `path` on one line. */
static int seed_json(const char *path, const struct source_limits *limits)
{
	struct source_parser *parser;
	struct source_doc doc;
	struct source_error err;
	json_t *docs = json_array();
	char *text, *line;
	size_t len;
	int got;

	if (!docs)
		return -1;
	text = seed_read(path, &len);
	parser = text ? source_parser_new(text, len, limits) : NULL;
	if (parser) {
		source_parser_set_tree(parser, 0);
		while ((got = source_next_doc(parser, &doc, &err)) > 0) {
			if (json_is_object(doc.json))
				json_array_append(docs, doc.json);
			source_doc_clear(&doc);
		}
		/* a file that does not parse (an error golden case) gives no
		 * seed */
		if (got < 0)
			json_array_clear(docs);
		source_parser_free(parser);
	}
	free(text);
	line = json_text_new(docs, JSON_COMPACT);
	json_decref(docs);
	if (!line)
		return -1;
	puts(line);
	free(line);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "json")) {
		/* the CLI's limits: the billion laughs case stays cheap */
		struct config *cfg = config_new_default();
		struct source_limits limits;
		int rc = 0;

		if (!cfg)
			return 2;
		limits = source_limits_of(cfg);
		config_free(cfg);
		for (int i = 2; i < argc && rc == 0; i++)
			rc = seed_json(argv[i], &limits) ? 2 : 0;
		return rc;
	}
	if (argc == 2 && !strcmp(argv[1], "config")) {
		fputs(config_default_yaml(), stdout);
		return 0;
	}
	fputs("usage: seed_tool json FILE... | seed_tool config\n", stderr);
	return 2;
}
