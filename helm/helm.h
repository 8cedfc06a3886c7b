/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * helm.h - Helm charts: which files of a chart are templates and which
 * are values, and how gpumend migrates and lints them in place. The one
 * header of helm/ that the layers above it include (its files share
 * helm_private.h and template_mask.h).
 *
 * A file under `templates/` of a folder holding `Chart.yaml` is a
 * template; the chart's `values*.yaml` (and `.yml`) files are its values.
 * Templates are read through their masks (template_mask.h): the rules run
 * over the YAML around the actions, and the edits they make must leave
 * every action as it is; what a rule would change in something an action
 * prints is reported instead. Values are read with rules_apply_values().
 */
#ifndef GPUMEND_HELM_H
#define GPUMEND_HELM_H

#include <stddef.h>

#include "buf.h"
#include "rules.h"
#include "source.h"

/* --chart, --no-chart, or neither. */
enum chart_mode { CHART_AUTO, CHART_ON, CHART_OFF };

enum chart_kind {
	CHART_PLAIN,       /* a manifest like any other */
	CHART_TEMPLATE,    /* a YAML template */
	CHART_VALUES,      /* a values file */
	CHART_OTHER        /* a template that is not YAML (_helpers.tpl,
			    * NOTES.txt): not migrated */
};

/*
 * What the file at `path` is. With CHART_AUTO: a template when it lies
 * under the `templates` folder of the nearest folder above it holding a
 * Chart.yaml, values when it is that folder's values*.yaml or values*.yml,
 * else plain. CHART_ON makes every file a chart file without a Chart.yaml
 * (values when named values*.y(a)ml, else a template), CHART_OFF none.
 * Standard input ("-") is plain unless CHART_ON. When `root_new` is not
 * NULL it receives the chart's folder (a new string) or NULL.
 */
enum chart_kind chart_classify(const char *path, enum chart_mode mode,
			       char **root_new);

/* 1 when the first 64 KiB of `text` hold "{{": a template, perhaps, read
 * as a manifest. */
int chart_looks_templated(const char *text, size_t len);

/*
 * The mode of this run (default CHART_AUTO), for chart_walk_wants(): a
 * command sets it once from its --chart/--no-chart flags.
 */
void chart_set_mode(enum chart_mode mode);

/*
 * 1 when a walk of directories should hand `path`, which is not a *.yaml,
 * *.yml or *.json file, over too: a template of a chart that is not YAML
 * (_helpers.tpl, NOTES.txt), to be noted as not migrated. Never with
 * CHART_OFF.
 */
int chart_walk_wants(const char *path);

/* A finding in a chart file, for the caller to print or collect. */
struct chart_finding {
	int line, column;          /* 1-based; 0 when unknown */
	const char *rule;          /* rule id, or "syntax" */
	enum severity severity;
	const char *message;       /* one line */
	const char *pointer;       /* in the (masked) document, or NULL */
	/* the object of a template's finding, as struct report_item has
	 * them (its template actions written back); NULL: unknown */
	const char *kind, *namespace, *name, *generate_name;
	int nameless;
};

typedef int (*chart_finding_fn)(void *arg, const struct chart_finding *f);

/* One chart file to migrate or lint. */
struct chart_job {
	const struct config *cfg;
	const char *root;          /* the chart's folder, or NULL */
	int lint;                  /* 1: findings only (report-only rules) */
	chart_finding_fn report;   /* called for each finding */
	void *arg;
	/* set by chart_run() */
	int errors;                /* error findings the rules cannot fix:
				    * migrate must leave the file as it is */
};

/*
 * Migrates (or lints) the chart file `text` of kind CHART_TEMPLATE or
 * CHART_VALUES. Reports every finding through job->report: for migrate,
 * what the rules did not fix and what could not be changed in place; for
 * lint, what the rules find. Appends the migrated text to `out` (NULL for
 * lint). Returns 0; -1 when the file cannot be read (`err` says where and
 * why), when out of memory (`err` says so), or when job->report does.
 */
int chart_run(struct chart_job *job, enum chart_kind kind, const char *text,
	      size_t len, struct buf *out, struct source_error *err);

#endif
