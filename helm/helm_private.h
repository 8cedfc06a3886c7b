/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * helm_private.h - what the files of helm/ share beyond helm.h: chart.c
 * reads a chart's templates for template_migrate.c, which migrates a
 * template for chart_run().
 */
#ifndef GPUMEND_HELM_PRIVATE_H
#define GPUMEND_HELM_PRIVATE_H

#include <stddef.h>

#include <jansson.h>

#include "buf.h"
#include "helm.h"
#include "source.h"

/*
 * Calls `fn` with the text of every file under the `templates` folder of
 * the chart at `root` (recursively, hidden entries left out; files that
 * cannot be read are left out too). Returns 0, or -1 when `fn` does.
 */
typedef int (*chart_file_fn)(void *arg, const char *path, const char *text,
			     size_t len);
int chart_read_templates(const char *root, chart_file_fn fn, void *arg);

/*
 * The chart's own values (`values.yaml` in `root`, its first document) as
 * a new reference; NULL when there is no such file, or it does not read
 * as a mapping. These are the values an install without -f or --set
 * renders with.
 */
json_t *chart_values_new(const char *root, const struct config *cfg);

/*
 * What the action `action` (len bytes, "{{" to "}}") prints, when all it
 * does is read one value: `.Values.a.b`, perhaps through `toYaml` and
 * piped to `nindent N`, `indent N`, `quote`, `squote`, `toString`,
 * `trim`, or `default X` (with a value that is set). Returns the value,
 * borrowed from `values`, or NULL when the action does anything else or
 * the value is not set.
 */
json_t *chart_action_value(json_t *values, const char *action, size_t len);

/* The template part of chart_run() (template_migrate.c). */
int template_run(struct chart_job *job, const char *text, size_t len,
		 struct buf *out, struct source_error *err);

#endif
