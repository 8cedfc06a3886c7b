/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_object.c - the object a finding is about: found in its document,
 * and kept once the document is gone.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report_object.h"
#include "rules.h"

/* A member of `object` that is a string other than "", or NULL. */
static const char *string_member(json_t *object, const char *key)
{
	const char *s = json_string_value(json_object_get(object, key));

	return s && *s ? s : NULL;
}

void report_item_object(struct report_item *item, json_t *root)
{
	json_t *object = rules_object_at(root, item->pointer);
	json_t *metadata = json_object_get(object, "metadata");

	item->kind = item->namespace = item->name = item->generate_name = NULL;
	item->nameless = 0;
	item->object_at = 0;
	if (!object)
		return;
	if (object != root) {
		/* "/items/N": what leads to the item */
		const char *end = strchr(item->pointer + 1, '/');

		end = end ? strchr(end + 1, '/') : NULL;
		item->object_at = end ? (size_t)(end - item->pointer)
				      : strlen(item->pointer);
	}
	item->kind = string_member(object, "kind");
	item->namespace = string_member(metadata, "namespace");
	item->name = string_member(metadata, "name");
	if (!item->name)
		item->generate_name = string_member(metadata, "generateName");
	item->nameless = metadata && !item->name && !item->generate_name;
}

static char *copy_string(void *arg, const char *s)
{
	(void)arg;
	return strdup(s);
}

int report_object_copy(struct report_object *obj,
		       const struct report_item *item,
		       char *(*copy)(void *arg, const char *s), void *arg)
{
	const char *from[] = { item->kind, item->namespace, item->name,
			       item->generate_name };
	char **to[] = { &obj->kind, &obj->namespace, &obj->name,
			&obj->generate_name };

	if (!copy)
		copy = copy_string;
	memset(obj, 0, sizeof(*obj));
	obj->nameless = item->nameless;
	for (size_t i = 0; i < sizeof(from) / sizeof(from[0]); i++) {
		if (from[i] && !(*to[i] = copy(arg, from[i]))) {
			report_object_clear(obj);
			return -1;
		}
	}
	return 0;
}

void report_object_lend(struct report_item *item,
			const struct report_object *obj)
{
	item->kind = obj->kind;
	item->namespace = obj->namespace;
	item->name = obj->name;
	item->generate_name = obj->generate_name;
	item->nameless = obj->nameless;
}

void report_object_clear(struct report_object *obj)
{
	free(obj->kind);
	free(obj->namespace);
	free(obj->name);
	free(obj->generate_name);
	memset(obj, 0, sizeof(*obj));
}
