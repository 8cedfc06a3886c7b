/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_object.h - a finding as it is reported, and the object it is
 * about: what the CLI's report formats (report.h) and the Helm code,
 * which keeps its findings past their documents, share.
 */
#ifndef GPUMEND_REPORT_OBJECT_H
#define GPUMEND_REPORT_OBJECT_H

#include <stddef.h>

#include <jansson.h>

/*
 * One finding as the CLI reports it. All strings are borrowed. `file` is
 * the path as the user gave it ("<stdin>" for standard input); `line` and
 * `column` are 1-based, 0 when unknown; `rule` is the rule id, or NULL for a finding
 * that belongs to no rule; `severity` is "error", "warning" or "info";
 * `message` is one line; `pointer` is the JSON Pointer of the node in the
 * document, or NULL. A NULL `file` is written as "-", a NULL `message` or
 * `severity` as "" and "warning".
 */
struct report_item {
	const char *file;
	int line, column;
	const char *rule;
	const char *severity;
	const char *message;
	const char *pointer;
	/* the object the finding is about (report_item_object()), each
	 * NULL when unknown; `generate_name` only when there is no name */
	const char *kind;
	const char *namespace;
	const char *name;
	const char *generate_name;
	int nameless;        /* 1: metadata, but neither name nor generateName */
	/* how much of `pointer` leads to the object ("/items/3" of a List
	 * item), so that pointer + object_at is the place in the object */
	size_t object_at;
};

/*
 * Sets the object of `item` (kind, namespace, name, generate_name) from
 * the object of the document `root` that item->pointer is in: the item of
 * a `kind: List` it points into, else the document (rules_object_at()).
 * The strings are borrowed from `root`. Members that are not strings (or
 * an empty name) count as unknown; a NULL `root` leaves them all NULL.
 */
void report_item_object(struct report_item *item, json_t *root);

/*
 * The object of a finding with its names owned, for keeping it once the
 * document is gone. report_object_copy() copies the object of `item`
 * through `copy` (a new string of `s`, or NULL when out of memory; NULL:
 * strdup()); 0, or -1 (`obj` then cleared) when out of memory.
 * report_object_lend() makes `item` borrow the names of `obj`.
 * report_object_clear() frees them.
 */
struct report_object {
	char *kind, *namespace, *name, *generate_name;
	int nameless;
};
int report_object_copy(struct report_object *obj,
		       const struct report_item *item,
		       char *(*copy)(void *arg, const char *s), void *arg);
void report_object_lend(struct report_item *item,
			const struct report_object *obj);
void report_object_clear(struct report_object *obj);

#endif
