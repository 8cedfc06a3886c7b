/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lint.c - `gpumend lint`: reports what the rules find, for CI.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "helm.h"
#include "json_scan.h"
#include "msg.h"
#include "report.h"

/* A finding with its place, owning its strings. */
struct lint_finding {
	char *file;
	int line, column;
	const char *rule;
	enum severity severity;
	char *message;
	char *pointer;
	struct report_object object;  /* report_item_object()'s */
	size_t object_at;
	size_t order;          /* which file */
	size_t seq;            /* order of report */
};

struct lint {
	struct cli_run run;    /* the options shared with migrate */
	struct lint_finding *items;
	size_t n, cap;
	struct run_counts counts;
	int bad_input;         /* unreadable or malformed files */
	int oom;
};

static void lint_finding_free(struct lint_finding *f)
{
	free(f->file);
	free(f->message);
	free(f->pointer);
	report_object_clear(&f->object);
}

/* A copy of `s`, or NULL (then *failed is set when `s` is not NULL). */
static char *copy_of(const char *s, int *failed)
{
	char *copy = s ? strdup(s) : NULL;

	if (s && !copy)
		*failed = 1;
	return copy;
}

/* Adds the finding `item` (its strings copied) of severity `severity`. */
static int lint_add_item(struct lint *l, const struct report_item *item,
			 enum severity severity)
{
	struct lint_finding *f;
	int failed = 0;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct lint_finding *grown = realloc(l->items,
						     cap * sizeof(*grown));

		if (!grown)
			goto out_nomem;
		l->items = grown;
		l->cap = cap;
	}
	f = &l->items[l->n];
	f->file = copy_of(item->file, &failed);
	f->message = copy_of(item->message, &failed);
	f->pointer = copy_of(item->pointer, &failed);
	if (report_object_copy(&f->object, item, NULL, NULL))
		failed = 1;
	if (failed) {
		lint_finding_free(f);
		goto out_nomem;
	}
	f->object_at = item->object_at;
	f->line = item->line;
	f->column = item->column;
	f->rule = item->rule;
	f->severity = severity;
	f->order = l->counts.files;
	f->seq = l->n;
	l->n++;
	return 0;
out_nomem:
	l->oom = 1;
	msg_error("out of memory");
	return -1;
}

/* A finding about no object. */
static int lint_add(struct lint *l, const char *file, int line, int column,
		    const char *rule, enum severity severity,
		    const char *message, const char *pointer)
{
	struct report_item item = {
		.file = file, .line = line, .column = column, .rule = rule,
		.message = message, .pointer = pointer,
	};

	return lint_add_item(l, &item, severity);
}

struct lint_file {
	struct lint *l;
	const char *name;
	struct input *in;
	size_t documents;      /* those that hold something */
};

static int lint_doc(void *arg, struct stream_doc *sd)
{
	struct lint_file *lf = arg;
	char refused[512];

	/* a null document ("---" alone) holds nothing */
	if (sd->doc->json && !json_is_null(sd->doc->json))
		lf->documents++;
	for (size_t i = 0; i < sd->result->n_findings; i++) {
		const struct finding *f = &sd->result->findings[i];
		struct report_item item = {
			.file = lf->name, .rule = rule_info_get(f->rule)->name,
			.message = f->message, .pointer = f->pointer,
		};

		source_locate(sd->doc->root, f->pointer, &item.line,
			      &item.column);
		report_item_object(&item, sd->doc->json);
		if (lint_add_item(lf->l, &item, f->severity))
			return -1;
	}
	/* what migrate refuses: templates a JSON file cannot hold */
	if (cli_json_documents_refused(sd->doc, sd->result->documents,
				       refused, sizeof(refused))) {
		struct report_item item = {
			.file = lf->name, .line = sd->doc->line,
			.rule = rule_info_get(RULE_LEGACY_GPU_RESOURCE)->name,
			.message = refused,
		};

		report_item_object(&item, sd->doc->json);
		if (lint_add_item(lf->l, &item, SEVERITY_ERROR))
			return -1;
	}
	/* a long stream's pages need not stay in memory behind the parser */
	input_release(lf->in, sd->doc->start);
	return 0;
}

static int lint_chart_finding(void *arg, const struct chart_finding *f)
{
	struct lint_file *lf = arg;
	struct report_item item = {
		.file = lf->name, .line = f->line, .column = f->column,
		.rule = f->rule, .message = f->message, .pointer = f->pointer,
		.kind = f->kind, .namespace = f->namespace, .name = f->name,
		.generate_name = f->generate_name, .nameless = f->nameless,
	};

	return lint_add_item(lf->l, &item, f->severity);
}

/* Drops the findings from `from` on. */
static void lint_drop(struct lint *l, size_t from)
{
	while (l->n > from)
		lint_finding_free(&l->items[--l->n]);
}

/* A path the walk cannot read, or that yields nothing: an input finding,
 * and a file that failed. */
static int lint_problem(void *arg, const char *path, const char *why)
{
	struct lint *l = arg;

	l->counts.files++;
	l->counts.failed++;
	l->bad_input++;
	return lint_add(l, path, 0, 0, "input", SEVERITY_ERROR, why, NULL);
}

/* A file to lint (paths_walk()): 1 read, 0 skipped, -1 fatal. */
static int lint_path(void *arg, const char *path, int named)
{
	struct lint *l = arg;
	struct input in;
	size_t found;
	struct lint_file lf = { l, NULL, NULL, 0 };
	struct source_error err;
	/* lint reports; it never rewrites, so the rules say what is wrong
	 * rather than what they changed */
	struct rules_options opts = {
		.offline = 1, .report_only = 1,
		.read_json = json_scan_read_value,
	};
	char *root = NULL;
	enum chart_kind kind = chart_classify(path, l->run.chart, &root);
	int rc;

	json_scan_filter_gate(l->run.filter, &opts);

	if (kind == CHART_OTHER) {
		msg_note("'%s' is not a YAML template; not linted", path);
		free(root);
		return 0;
	}
	l->counts.files++;
	if (input_read(path, 0, &in) != 0) {
		free(root);
		l->bad_input++;
		l->counts.failed++;
		return lint_add(l, strcmp(path, "-") ? path : INPUT_STDIN_NAME,
				0, 0, "input", SEVERITY_ERROR,
				in.why[0] ? in.why : "cannot read the file",
				NULL) ? -1 : 1;
	}
	if (l->run.walk.verbose)
		msg_note("read '%s'", in.name);
	lf.name = in.name;
	lf.in = &in;
	found = l->n;
	if (kind != CHART_PLAIN) {
		struct chart_job job = {
			.cfg = l->run.cfg, .root = root, .lint = 1,
			.report = lint_chart_finding, .arg = &lf,
		};

		rc = chart_run(&job, kind, in.text, in.len, NULL, &err);
		free(root);
	} else {
		rc = stream_each(in.text, in.len, l->run.cfg, &opts, lint_doc, &lf,
				 &err);
	}
	if (input_changed(&in)) {
		/* findings in a file changed meanwhile may be about a mix of
		 * old and new: dropped, the file reported instead */
		lint_drop(l, found);
		l->bad_input++;
		l->counts.failed++;
		rc = lint_add(l, in.name, 0, 0, "input", SEVERITY_ERROR,
			      "the file changed while it was read", NULL);
		input_free(&in);
		return rc ? -1 : 1;
	}
	if (rc != 0 &&
	    cli_skip_unparsed(&in, &err, !l->oom && kind == CHART_PLAIN &&
			      (!named || l->run.skip_named),
			      l->run.quiet && !l->run.walk.verbose, &l->counts)) {
		/* none of lint's business */
		lint_drop(l, found);
		input_free(&in);
		return 0;
	}
	/* standard input without a document has given nothing to read:
	 * the walk says so, counting it */
	if (rc == 0 && !in.path && !lf.documents) {
		if (!l->run.walk.allow_empty)
			l->counts.files--;
		input_free(&in);
		return 0;
	}
	if (rc != 0) {
		if (l->oom) {
			input_free(&in);
			return -1;
		}
		l->bad_input++;
		l->counts.failed++;
		msg_at(in.name, err.line, err.column, "error",
		       "cannot parse: %s%s", err.message,
		       kind == CHART_PLAIN &&
		       chart_looks_templated(in.text, in.len) ?
		       " (a Helm template? --chart reads it as one)" : "");
		if (lint_add(l, in.name, err.line, err.column, "syntax",
			     SEVERITY_ERROR, err.message, NULL)) {
			input_free(&in);
			return -1;
		}
	} else if (l->n > found) {
		l->counts.touched++;
	}
	input_free(&in);
	return 1;
}

static void lint_usage(FILE *out)
{
	fputs("usage: gpumend lint [--format text|json|sarif|github|codequality]\n"
	      "                    [--fail-on error|warning|info] [--chart|--no-chart]\n"
	      "                    [--exclude GLOB]... [--skip-unparsable] [--allow-empty]\n"
	      "                    [-q|--quiet] [-v|--verbose] [-c FILE] [PATH...]\n"
	      "\n"
	      "Reports legacy GPU constructs in Kubernetes manifests, one finding per\n"
	      "line as FILE:LINE:COL: SEVERITY: KIND NAMESPACE/NAME: MESSAGE [rule-id]\n"
	      "(text), as a JSON array, as SARIF 2.1.0, as GitHub Actions workflow\n"
	      "commands or as a GitLab Code Quality report.\n"
	      "PATH is a file, a directory (searched for *.yaml, *.yml, *.json) or\n"
	      "'-' for standard input; with no PATH, standard input is read. Helm\n"
	      "charts are linted at their templates' and values' own lines.\n"
	      CLI_WALK_HELP
	      "Options may come before or after the paths; '--' ends them.\n"
	      "\n"
	      "  -f, --format FORMAT   text (default), json, sarif, github or codequality\n"
	      "      --fail-on LEVEL   exit 1 on findings at or above LEVEL (default warning)\n"
	      "      --chart           read every file as a Helm template or values file\n"
	      "      --no-chart        read every file as a plain manifest (no Helm charts)\n"
	      "      --exclude GLOB    leave out the paths GLOB matches (repeatable)\n"
	      "      --skip-unparsable skip named files too that are neither manifests\n"
	      "                        nor parse (pre-commit names every JSON file)\n"
	      "      --target device-plugin|dra\n"
	      "                        report what migrate --target would do (overrides\n"
	      "                        the config's target; docs/dra.md)\n"
	      "      --allow-empty     no error for a directory without manifests or\n"
	      "                        an empty standard input\n"
	      "  -q, --quiet           no summary line, no note on skipped files\n"
	      "  -v, --verbose         say each file read, skipped or left out, and why\n"
	      "  -c, --config FILE     configuration file (defaults: `gpumend config`)\n"
	      "  -h, --help            show this help\n"
	      "\n"
	      "Exit status: 0 clean, 1 findings at or above --fail-on, 2 on unreadable,\n"
	      "malformed or (without --allow-empty) empty input.\n", out);
}

/* Findings of one file in source order; files keep the order they were
 * read in. */
static int finding_cmp(const void *a, const void *b)
{
	const struct lint_finding *x = a, *y = b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int severity_parse(const char *name, enum severity *out)
{
	for (int s = SEVERITY_INFO; s <= SEVERITY_ERROR; s++) {
		if (strcmp(name, severity_name((enum severity)s)) == 0) {
			*out = (enum severity)s;
			return 0;
		}
	}
	return -1;
}

int cmd_lint(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "fail-on", required_argument, NULL, 'F' },
		CLI_RUN_LONG,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lint l = { 0 };
	enum report_format format = REPORT_TEXT;
	enum severity fail_on = SEVERITY_WARNING;
	struct report_item *items = NULL;
	struct buf out;
	struct cli_args args;
	struct walk_calls calls = { lint_path, lint_problem, &l };
	int opt, failing = 0, rc;

	if (cli_run_init(&l.run, argc))
		return 2;
	cli_args_init(&args, argc, argv);
	while ((opt = cli_args_next(&args, "f:h" CLI_RUN_SHORT, options)) != -1) {
		rc = cli_run_option(&l.run, opt, optarg);
		if (rc > 0)
			continue;
		if (rc == 0) {
			switch (opt) {
			case 'f':
				if (report_format_parse(optarg, &format) == 0)
					continue;
				msg_error("unknown format '%s' (text, json, sarif, github, codequality)",
					  optarg);
				break;
			case 'F':
				if (severity_parse(optarg, &fail_on) == 0)
					continue;
				msg_error("unknown level '%s' (error, warning, info)",
					  optarg);
				break;
			case 'h':
				lint_usage(stdout);
				cli_run_free(&l.run);
				return 0;
			default:
				break;
			}
		}
		cli_run_free(&l.run);
		return 2;
	}
	if (cli_run_setup(&l.run)) {
		cli_run_free(&l.run);
		return 2;
	}
	rc = paths_walk(argv + 1, args.n, &l.run.walk, &calls);

	if (l.n)
		qsort(l.items, l.n, sizeof(*l.items), finding_cmp);
	items = calloc(l.n ? l.n : 1, sizeof(*items));
	buf_init(&out, 0);
	if (!items) {
		msg_error("out of memory");
		rc = -1;
	}
	for (size_t i = 0; items && i < l.n; i++) {
		items[i].file = l.items[i].file;
		items[i].line = l.items[i].line;
		items[i].column = l.items[i].column;
		items[i].rule = l.items[i].rule;
		items[i].severity = severity_name(l.items[i].severity);
		items[i].message = l.items[i].message;
		items[i].pointer = l.items[i].pointer;
		report_object_lend(&items[i], &l.items[i].object);
		items[i].object_at = l.items[i].object_at;
		l.counts.findings[l.items[i].severity]++;
		if (l.items[i].severity >= fail_on)
			failing = 1;
	}
	if (rc == 0 && report_write(&out, format, items, l.n,
				    GPUMEND_VERSION) != 0) {
		msg_error("out of memory");
		rc = -1;
	}
	if (rc == 0)
		fwrite(out.data ? out.data : "", 1, out.len, stdout);
	fflush(stdout);
	/* the last line, also when clean: "clean" and "did nothing"
	 * differ */
	if (rc == 0 && !l.run.quiet)
		run_summary(&l.counts, "with findings", "clean");
	buf_free(&out);
	free(items);
	for (size_t i = 0; i < l.n; i++)
		lint_finding_free(&l.items[i]);
	free(l.items);
	cli_run_free(&l.run);
	if (rc || l.bad_input)
		return 2;
	return failing ? 1 : 0;
}
