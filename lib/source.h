/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * source.h - YAML/JSON source files: the parsed document (a json_t for the
 * engine) and its source map (a tree of nodes with the byte spans of keys
 * and values in the file), and the YAML/JSON emitter. The text patcher
 * (text_patch.h) edits files through these trees.
 */
#ifndef GPUMEND_SOURCE_H
#define GPUMEND_SOURCE_H

#include <stddef.h>
#include <jansson.h>

#include "buf.h"
#include "rules.h"

enum source_kind { SOURCE_SCALAR, SOURCE_MAPPING, SOURCE_SEQUENCE };

struct source_node;

/* A member of a mapping (key set) or an item of a sequence (key NULL). */
struct source_child {
	char *key;                 /* owned; current name (renames change it) */
	size_t key_start, key_end; /* span of the key's text (with quotes) */
	int key_line, key_column;  /* 1-based */
	int key_style;             /* yaml_scalar_style_t of the key */
	int renamed;               /* key text must be rewritten */
	struct source_node *node;
};

struct source_node {
	enum source_kind kind;
	int flow;                  /* a flow collection: {...} or [...] */
	int style;                 /* scalars: yaml_scalar_style_t */
	int alias;                 /* written as *alias: no children here */
	int merged;                /* mapping uses a << merge key */
	int anchored;              /* carries an &anchor */
	size_t start, end;         /* span of the node's text */
	int line, column;          /* 1-based position of start */
	struct source_child *children;
	size_t n_children, cap_children;

	/* text patcher state (text_patch.c); the reader leaves it zero
	 * and source_node_free frees `removed` */
	int added;                 /* new node: rendered from the result */
	int replaced;              /* rendered from the result */
	struct source_child *removed; /* original children removed */
	size_t n_removed, cap_removed;
	size_t n_original;         /* children that came from the source */
};

/* One document of a stream. */
struct source_doc {
	json_t *json;              /* the document's value; NULL if empty */
	struct source_node *root;  /* NULL for an empty document */
	size_t start, end;         /* span of the document (markers included) */
	int index;                 /* 0-based position in the stream */
	int line;                  /* 1-based line of the document start */
	int sparse;                /* json holds only some members
				      (source_parser_set_need()) */
};

struct source_error {
	int line, column;          /* 1-based; 0 when unknown */
	char message[256];
};

struct source_limits {
	size_t max_document_bytes;
	int max_depth;
	size_t max_alias_nodes;
};

/* The source limits a configuration asks for. */
struct source_limits source_limits_of(const struct config *cfg);

struct source_parser;

/*
 * Starts parsing `text` (borrowed: it must outlive the parser). `limits`
 * may be NULL for no limits beyond built-in safety caps. Returns NULL when
 * out of memory.
 */
struct source_parser *source_parser_new(const char *text, size_t len,
					const struct source_limits *limits);
void source_parser_free(struct source_parser *parser);

/*
 * With 0, the parser builds only the json of each document (doc->root stays
 * NULL), which is much cheaper; source_doc_tree() adds the tree to the
 * documents that need it. The default is 1 (a document read sparse, see
 * source_parser_set_need(), gets none).
 */
void source_parser_set_tree(struct source_parser *parser, int want_tree);

/*
 * Lets `need` say, at each document's start, how it is to be read: it gets
 * a part of the text that holds the document (to the end of the next line
 * that starts with a document marker, or of the text) and returns
 *   0 to read it sparse (doc->sparse), keeping what *keep names (a
 *     rules_reads() list, whose members it keeps as that says: from the
 *     root mapping down, the members it names, whole or with only the
 *     members it names of their mappings and of the mappings of their
 *     sequences); every check is made as ever (syntax, keys, limits), and
 *     what is not kept is not made, which is much cheaper;
 *   1 to read it in full;
 *   2 to read it in full with its source tree at once (when the parser
 *     builds trees, source_parser_set_tree()).
 * A document whose part holds a & or * (an anchor or alias may be there)
 * or << (a merge key) is read in full without asking `need`. A sparse
 * document with an anchor, alias or merge key after that part, or (when
 * *keep names containers) a containers member it leaves out, is read in
 * full from its start when one comes. A document that ran on past that part is
 * asked about again with its whole text, and read in full unless `need`
 * keeps the same then. NULL (the default) reads every document in full.
 */
typedef int (*source_need_fn)(void *arg, const char *text, size_t len,
			      const struct rules_read **keep);
void source_parser_set_need(struct source_parser *parser, source_need_fn need,
			    void *arg);

/* Reads a sparse `doc` again in full (doc->json replaced). 0, or -1 with
 * `err`. */
int source_doc_full(const char *text, size_t len, struct source_doc *doc,
		    const struct source_limits *limits,
		    struct source_error *err);

/*
 * Reads the span of `doc` (from a tree-less pass over `text`) again and
 * sets doc->root to its source tree, with positions in `text`. Returns 0,
 * or -1 with `err` set.
 */
int source_doc_tree(const char *text, size_t len, struct source_doc *doc,
		    const struct source_limits *limits,
		    struct source_error *err);

/*
 * Parses the next document into `doc` (freed with source_doc_clear).
 * Returns 1 for a document, 0 at the end of the stream, -1 on a syntax
 * error or a limit, with `err` saying where.
 */
int source_next_doc(struct source_parser *parser, struct source_doc *doc,
		    struct source_error *err);
void source_doc_clear(struct source_doc *doc);

/*
 * Parses a whole stream that must hold exactly one document (config files,
 * test input). Returns the new json value or NULL with `err` set; `root`,
 * when not NULL, receives the source tree (free with source_node_free).
 */
json_t *source_parse_one(const char *text, size_t len,
			 const struct source_limits *limits,
			 struct source_node **root, struct source_error *err);

/*
 * 1 when `text` holds exactly one document and it reads as `expected` (as
 * source_parse_one() would read it: every check made, keys distinct);
 * 0 otherwise. Compared as it is read, without building the value.
 */
int source_reads_as(const char *text, size_t len,
		    const struct source_limits *limits, json_t *expected);

void source_node_free(struct source_node *node);

/*
 * The node at `pointer` in the tree, or the deepest existing ancestor when
 * the path does not exist (aliases and merged mappings end the walk there).
 * Sets *line, *column to the position a finding should name: the key of a
 * mapping member, the start of a sequence item or value.
 */
void source_locate(struct source_node *root, const char *pointer, int *line,
		   int *column);
/*
 * The same, but a node the pointer reaches whole is named at its value
 * (a scalar, the first line of a mapping or sequence) rather than at its
 * key: where a wrong value is.
 */
void source_locate_value(struct source_node *root, const char *pointer,
			 int *line, int *column);

/* ------------------------------------------------------------------ */
/* Rendering values as YAML or JSON text (yaml_emit.c)                  */

enum emit_context { EMIT_BLOCK, EMIT_FLOW, EMIT_JSON };

/*
 * Appends `value` as a scalar. `style` is the preferred yaml_scalar_style_t
 * (kept when it can represent the value); EMIT_FLOW forbids plain text
 * holding flow indicators; EMIT_JSON always writes JSON.
 */
int emit_scalar(struct buf *out, json_t *value, int style,
		enum emit_context context);
/* Appends a string as a mapping key in the given style and context. */
int emit_key(struct buf *out, const char *key, int style,
	     enum emit_context context);
/*
 * Appends a block-style mapping or sequence whose lines start at column
 * `indent`; the first line is not indented (the caller positioned it).
 * `indentless` writes sequences inside mappings at the key's column.
 * Lines end with "\n"; no final newline.
 */
int emit_block(struct buf *out, json_t *value, int indent, int indentless);
/* Appends `value` in flow style on one line ({"a": 1}) — valid YAML and,
 * with EMIT_JSON, valid JSON. */
int emit_flow(struct buf *out, json_t *value, enum emit_context context);
/*
 * Appends `value` as indented JSON: nested lines at `indent` plus multiples
 * of `step`; the first line is not indented; no final newline.
 */
int emit_json_pretty(struct buf *out, json_t *value, int indent, int step);
/* Appends a whole document in block style ending with a newline. */
int emit_document(struct buf *out, json_t *value, int json, int indentless);

/*
 * Resolves a plain YAML scalar the way Kubernetes' YAML reader (YAML 1.1)
 * does: null, bool, int, float or string. Returns a new reference.
 */
json_t *yaml_resolve_plain(const char *text, size_t len);

#endif
