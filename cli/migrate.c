/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * migrate.c - `gpumend migrate`: rewrites manifests with the rules, keeping
 * every byte that no rule has to change.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "diff.h"
#include "helm.h"
#include "json_scan.h"
#include "msg.h"
#include "report.h"
#include "text_patch.h"
#include "utf16.h"

struct migrate {
	struct cli_run run;    /* the options shared with lint */
	int in_place, check, diff, json_patch;
	int n_inputs;          /* how many files the paths name, for headers */
	int errors;            /* failures, files or not */
	struct run_counts counts;
};

/*
 * Output larger than this is written as it is produced (to the temporary
 * file of -i, or to stdout) instead of being held whole: memory stays
 * bounded by the largest document, not by the stream.
 */
#define STREAM_THRESHOLD (8u << 20)

/* What one file's documents turn into. */
struct file_run {
	struct migrate *m;
	struct input *in;
	struct buf out;        /* the migrated text not yet written */
	struct buf patches;    /* --json-patch: one patch per document */
	size_t pos;            /* input copied up to here */
	int errors;            /* findings of severity error */
	int changed;           /* a document changed */
	int streaming;         /* part of the output is written already */
	int failed;            /* writing failed */
	size_t documents;      /* those that hold something */
	struct atomic_file af; /* -i: the temporary file, once streaming */
	/* target dra: the file's ResourceClaimTemplates, those written
	 * after its documents included */
	struct cli_templates templates;
};

/*
 * The migrated text as it is written: a file that was UTF-16 goes back
 * into UTF-16 of its order (utf16.h), in `scratch`. 0, or -1 when out of
 * memory (said).
 */
static int output_text(const struct input *in, const char **data,
		       size_t *len, struct buf *scratch)
{
	if (!in->utf16)
		return 0;
	if (utf8_to_utf16(*data ? *data : "", *len,
			  (enum utf16_order)in->utf16, scratch) != 0) {
		msg_error("out of memory");
		return -1;
	}
	*data = scratch->data;
	*len = scratch->len;
	return 0;
}

/* Writes out what is held, once the output is too large to hold. */
static int run_flush(struct file_run *run)
{
	struct migrate *m = run->m;
	struct buf scratch;
	const char *data;
	size_t len;
	int rc = 0;

	if (m->diff || m->json_patch)
		return 0; /* these need the whole text */
	if (m->check) {
		/* only "would it change" matters (a document with operations
		 * changes): nothing is written */
		run->streaming = 1;
		buf_reset(&run->out);
		return 0;
	}
	/* a file changed under us: what is held may be a mix */
	if (input_changed(run->in))
		return -1;
	if (!run->streaming) {
		run->streaming = 1;
		if (m->in_place && run->in->path) {
			if (atomic_begin(&run->af, run->in->path, run->in->mode,
					 ATOMIC_REPLACE))
				return -1;
		} else if (m->n_inputs > 1 && run->in->path) {
			printf("# Source: %s\n", run->in->name);
		}
	}
	buf_init(&scratch, 0);
	data = run->out.data;
	len = run->out.len;
	if (output_text(run->in, &data, &len, &scratch)) {
		rc = -1;
	} else if (m->in_place && run->in->path) {
		rc = atomic_write(&run->af, data, len);
	} else if (fwrite(data, 1, len, stdout) != len) {
		msg_error("cannot write the output: short write");
		rc = -1;
	}
	buf_free(&scratch);
	buf_reset(&run->out);
	return rc;
}

/* Prints a finding the rules did not fix, naming its object as lint does. */
static int print_finding(struct migrate *m, const char *file,
			 struct source_doc *doc, const struct finding *f)
{
	struct report_item item = { .pointer = f->pointer };
	struct buf label;
	int line, column;

	source_locate(doc->root, f->pointer, &line, &column);
	report_item_object(&item, doc->json);
	buf_init(&label, 0);
	if (report_object_label(&label, &item)) {
		buf_free(&label);
		msg_error("out of memory");
		return -1;
	}
	msg_at(file, line, column, severity_name(f->severity), "%s%s [%s]",
	       label.data ? label.data : "", f->message,
	       rule_info_get(f->rule)->name);
	buf_free(&label);
	m->counts.findings[f->severity]++;
	return 0;
}

/*
 * Target dra: writes the templates the rules made for `doc` after it, each
 * a document of its own. A JSON file cannot hold a second document: it is
 * left as it is, with an error (a List takes them as items instead).
 * 0, 1 for that error, -1 when out of memory.
 */
static int write_documents(struct file_run *run, struct source_doc *doc,
			   json_t *documents)
{
	json_t *document;
	char refused[512];
	size_t i;

	if (!documents || json_array_size(documents) == 0)
		return 0;
	if (cli_json_documents_refused(doc, documents, refused,
				       sizeof(refused))) {
		msg_at(run->in->name, doc->line, 0, "error", "%s", refused);
		run->m->counts.findings[SEVERITY_ERROR]++;
		return 1;
	}
	if (run->out.len && run->out.data[run->out.len - 1] != '\n' &&
	    buf_putc(&run->out, '\n'))
		return -1;
	json_array_foreach(documents, i, document)
		if (buf_puts(&run->out, "---\n") ||
		    emit_document(&run->out, document, 0, 0) ||
		    cli_templates_add(&run->templates, document))
			return -1;
	return 0;
}

static int migrate_doc(void *arg, struct stream_doc *sd)
{
	struct file_run *run = arg;
	struct source_doc *doc = sd->doc;
	const struct rules_result *res = sd->result;
	struct source_limits limits = source_limits_of(run->m->run.cfg);
	char why[256];
	int reemitted = 0;

	/* a null document ("---" alone) holds nothing */
	if (doc->json && !json_is_null(doc->json))
		run->documents++;
	/* findings the rules did not fix, located before any edit */
	for (size_t i = 0; i < res->n_findings; i++) {
		const struct finding *f = &res->findings[i];

		if (f->fixed)
			continue;
		if (print_finding(run->m, run->in->name, doc, f))
			return -1;
		if (f->severity == SEVERITY_ERROR)
			run->errors++;
	}
	if (run->m->json_patch && sd->ran) {
		json_t *patch = rules_patch_json(res);
		char *text = patch ? json_text_new(patch, JSON_COMPACT) : NULL;

		json_decref(patch);
		if (!text || buf_puts(&run->patches, text) ||
		    buf_putc(&run->patches, '\n')) {
			free(text);
			msg_error("out of memory");
			return -1;
		}
		free(text);
	}
	if (buf_append(&run->out, run->in->text + run->pos,
		       doc->start - run->pos))
		goto out_nomem;
	if (res->n_ops == 0) {
		if (buf_append(&run->out, run->in->text + doc->start,
			       doc->end - doc->start))
			goto out_nomem;
	} else if (run->errors) {
		/* the file stays as it is: no need to edit this one */
		run->changed = 1;
	} else {
		run->changed = 1;
		why[0] = '\0';
		if (text_patch_document(&run->out, run->in->text, run->in->len,
					doc, res, doc->json, &limits,
					&reemitted, why, sizeof(why))) {
			if (!why[0])
				goto out_nomem;
			/* the file is left as it is */
			msg_at(run->in->name, doc->line, 0, "error",
			       "document %d: %s", doc->index + 1, why);
			run->errors++;
			run->pos = doc->end;
			return 0;
		}
		if (reemitted)
			msg_at(run->in->name, doc->line, 0, "note",
			       "document %d written anew (its comments and layout are not kept): %s",
			       doc->index + 1, why);
		switch (write_documents(run, doc, res->documents)) {
		case 0:
			break;
		case 1:
			run->errors++;
			break;
		default:
			goto out_nomem;
		}
	}
	run->pos = doc->end;
	input_release(run->in, doc->start);
	if (run->out.len > STREAM_THRESHOLD && !run->errors &&
	    run_flush(run)) {
		run->failed = 1;
		return -1;
	}
	return 0;
out_nomem:
	msg_error("out of memory");
	return -1;
}

/* Prints a finding of a chart file that the rules did not fix. */
static int chart_print(void *arg, const struct chart_finding *f)
{
	const struct file_run *run = arg;
	const struct input *in = run->in;

	if (strcmp(f->rule, "syntax") == 0) {
		msg_at(in->name, f->line, f->column,
		       f->severity == SEVERITY_INFO ? "note" :
		       severity_name(f->severity), "%s", f->message);
		/* a note says what was done, it finds nothing */
		if (f->severity == SEVERITY_INFO)
			return 0;
	} else {
		struct report_item item = {
			.kind = f->kind, .namespace = f->namespace,
			.name = f->name, .generate_name = f->generate_name,
			.nameless = f->nameless,
		};
		struct buf label;

		buf_init(&label, 0);
		if (report_object_label(&label, &item)) {
			buf_free(&label);
			msg_error("out of memory");
			return -1;
		}
		msg_at(in->name, f->line, f->column, severity_name(f->severity),
		       "%s%s [%s]", label.data ? label.data : "", f->message,
		       f->rule);
		buf_free(&label);
	}
	run->m->counts.findings[f->severity]++;
	return 0;
}

/* A chart's template or values file into run->out, whole. */
static int migrate_chart(struct file_run *run, enum chart_kind kind,
			 const char *root, struct source_error *err)
{
	struct chart_job job = {
		.cfg = run->m->run.cfg, .root = root, .report = chart_print,
		.arg = run,
	};
	int rc = chart_run(&job, kind, run->in->text, run->in->len,
			   &run->out, err);

	run->errors += job.errors;
	run->pos = run->in->len;
	return rc;
}

/* A path the walk cannot read, or that yields nothing: a file that
 * failed, with an error (said by the walk). */
static int migrate_problem(void *arg, const char *path, const char *why)
{
	struct migrate *m = arg;

	(void)path;
	(void)why;
	m->counts.files++;
	m->counts.failed++;
	m->counts.findings[SEVERITY_ERROR]++;
	m->errors++;
	return 0;
}

/* A file to migrate (paths_walk()): 1 read, 0 skipped, -1 fatal. */
static int migrate_path(void *arg, const char *path, int named)
{
	struct migrate *m = arg;
	struct input in;
	struct file_run run = { .m = m, .in = &in };
	struct source_error err;
	struct rules_options opts = {
		.offline = 1, .read_json = json_scan_read_value,
	};
	char *root = NULL;
	enum chart_kind kind = chart_classify(path, m->run.chart, &root);
	int rc, late_failure = 0, read = 1;

	json_scan_filter_gate(m->run.filter, &opts);

	if (kind == CHART_OTHER) {
		msg_note("'%s' is not a YAML template; not migrated", path);
		free(root);
		return 0;
	}
	if (kind != CHART_PLAIN && m->json_patch) {
		msg_note("'%s' is a chart's %s; --json-patch shows manifests only",
			 path, kind == CHART_VALUES ? "values" : "template");
		free(root);
		return 0;
	}
	m->counts.files++;
	if (input_read(path, 0, &in) != 0) {
		free(root);
		m->errors++;
		m->counts.failed++;
		/* as lint reports it: an error */
		m->counts.findings[SEVERITY_ERROR]++;
		return 1;
	}
	if (m->run.walk.verbose)
		msg_note("read '%s'", in.name);
	if (m->in_place && !m->check && in.path && !(in.mode & S_IWUSR)) {
		/* root could rename over it; the mode says hands off */
		msg_error("'%s' is read-only; not rewriting it", in.name);
		m->errors++;
		m->counts.failed++;
		input_free(&in);
		free(root);
		return 1;
	}
	buf_init(&run.out, 0);
	buf_init(&run.patches, 0);
	if (kind == CHART_PLAIN &&
	    cli_templates_read(&run.templates, in.text, in.len, m->run.cfg)) {
		msg_error("out of memory");
		goto out_failed;
	}
	opts.claim_template_find = cli_templates_find;
	opts.claim_template_arg = &run.templates;
	if (kind != CHART_PLAIN)
		rc = migrate_chart(&run, kind, root, &err);
	else
		rc = stream_each(in.text, in.len, m->run.cfg, &opts, migrate_doc,
				 &run, &err);
	/* what was read of a file changed meanwhile is no basis to write */
	if (input_changed(&in)) {
		m->counts.findings[SEVERITY_ERROR]++;
		goto out_failed;
	}
	if (rc != 0 &&
	    cli_skip_unparsed(&in, &err, err.message[0] && kind == CHART_PLAIN &&
			      (!named || m->run.skip_named),
			      m->run.quiet && !m->run.walk.verbose, &m->counts)) {
		read = 0;
		goto out_free;
	}
	/* standard input without a document has given nothing to read:
	 * the walk says so, counting it */
	if (rc == 0 && !in.path && !run.documents) {
		if (!m->run.walk.allow_empty)
			m->counts.files--;
		read = 0;
	}
	if (rc != 0) {
		if (err.message[0])
			m->counts.findings[SEVERITY_ERROR]++;
		if (err.message[0])
			msg_at(in.name, err.line, err.column, "error",
			       "cannot parse: %s%s", err.message,
			       kind == CHART_PLAIN &&
			       chart_looks_templated(in.text, in.len) ?
			       " (a Helm template? --chart reads it as one)" : "");
		goto out_failed;
	}
	if (buf_append(&run.out, in.text + run.pos, in.len - run.pos)) {
		msg_error("out of memory");
		goto out_failed;
	}
	if (run.errors) {
		msg_at(in.name, 0, 0, "error",
		       "left unchanged: %d error%s the rules cannot fix",
		       run.errors, run.errors == 1 ? "" : "s");
		goto out_failed;
	}
	if (!run.streaming)
		run.changed = run.out.len != in.len ||
			      memcmp(run.out.data, in.text, in.len) != 0;
	/* the text's last bytes were read just now */
	if (input_changed(&in)) {
		m->counts.findings[SEVERITY_ERROR]++;
		goto out_failed;
	}
	if (run.changed)
		m->counts.touched++;

	if (m->json_patch) {
		fwrite(run.patches.data ? run.patches.data : "", 1,
		       run.patches.len, stdout);
		goto out_free;
	}
	if (m->diff && run.changed) {
		struct buf d;
		char *a = malloc(strlen(in.name) + 3), *b = malloc(strlen(in.name) + 3);

		buf_init(&d, 0);
		if (!a || !b) {
			free(a);
			free(b);
			msg_error("out of memory");
			goto out_failed_late;
		}
		sprintf(a, "a/%s", in.name);
		sprintf(b, "b/%s", in.name);
		if (diff_unified(&d, a, b, in.text, in.len, run.out.data,
				 run.out.len) == 0)
			fwrite(d.data ? d.data : "", 1, d.len, stdout);
		else {
			msg_error("cannot diff '%s': out of memory", in.name);
			late_failure = 1;
		}
		free(a);
		free(b);
		buf_free(&d);
	}
	if (m->check && run.changed && !m->diff)
		msg_note("would migrate '%s'", in.name);
	if (m->check || m->diff)
		goto out_done;
	if (run.streaming) {
		/* the rest, then the temporary file replaces the original */
		if (run_flush(&run) ||
		    (m->in_place && in.path && run.changed &&
		     atomic_commit(&run.af)))
			late_failure = 1;
	} else {
		const char *data = run.out.data ? run.out.data : "";
		size_t len = run.out.len;
		struct buf scratch;

		buf_init(&scratch, 0);
		if (output_text(&in, &data, &len, &scratch)) {
			late_failure = 1;
		} else if (m->in_place && in.path) {
			if (run.changed &&
			    file_write_atomic(in.path, data, len, in.mode))
				late_failure = 1;
		} else {
			if (m->n_inputs > 1 && in.path)
				printf("# Source: %s\n", in.name);
			fwrite(data, 1, len, stdout);
		}
		buf_free(&scratch);
	}
out_done:
	if (!late_failure)
		goto out_free;
out_failed_late:
	/* counted as changed above; it failed after all */
	if (run.changed)
		m->counts.touched--;
out_failed:
	m->errors++;
	m->counts.failed++;
out_free:
	if (run.af.tmp)
		atomic_abort(&run.af);
	buf_free(&run.out);
	buf_free(&run.patches);
	cli_templates_clear(&run.templates);
	input_free(&in);
	free(root);
	return read;
}

/* 1 when the paths may name more than one file: output then says which
 * file each text comes from. */
static int several_inputs(char **paths, int n)
{
	struct stat st;

	if (n > 1)
		return 1;
	return n == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode);
}

static void migrate_usage(FILE *out)
{
	fputs("usage: gpumend migrate [-i|--in-place] [--check] [--diff] [--json-patch]\n"
	      "                       [--chart|--no-chart] [--exclude GLOB]...\n"
	      "                       [--skip-unparsable] [--target device-plugin|dra]\n"
	      "                       [--allow-empty] [-q|--quiet] [-v|--verbose]\n"
	      "                       [-c FILE] [PATH...]\n"
	      "\n"
	      "Rewrites Kubernetes manifests written for the legacy GPU stack so that\n"
	      "they run on today's (device plugin, GPU Feature Discovery, sharing).\n"
	      "PATH is a file, a directory (searched for *.yaml, *.yml, *.json) or\n"
	      "'-' for standard input; with no PATH, standard input is read.\n"
	      "Options may come before or after the paths; '--' ends them.\n"
	      "Everything no rule has to change is kept byte for byte. Helm charts are\n"
	      "migrated in place: their templates (every action kept) and values.\n"
	      CLI_WALK_HELP
	      "\n"
	      "  -i, --in-place    rewrite the files (atomically; the original mode kept)\n"
	      "      --check       change nothing; exit 1 when something would change\n"
	      "      --diff        print a unified diff instead of the migrated text\n"
	      "      --json-patch  print each document's RFC 6902 JSON Patch, one per line\n"
	      "      --chart       read every file as a Helm template or values file\n"
	      "      --no-chart    read every file as a plain manifest (no Helm charts)\n"
	      "      --exclude GLOB\n"
	      "                    leave out the paths GLOB matches (repeatable)\n"
	      "      --skip-unparsable\n"
	      "                    skip named files too that are neither manifests\n"
	      "                    nor parse (pre-commit names every JSON file)\n"
	      "      --target device-plugin|dra\n"
	      "                    what GPU requests become: nvidia.com/gpu (default), or\n"
	      "                    DRA claims and ResourceClaimTemplates (docs/dra.md);\n"
	      "                    overrides the config's target\n"
	      "      --allow-empty no error for a directory without manifests or an\n"
	      "                    empty standard input\n"
	      "  -q, --quiet       no summary line, no note on skipped files\n"
	      "  -v, --verbose     say each file read, skipped or left out, and why\n"
	      "  -c, --config FILE configuration file (defaults: `gpumend config`)\n"
	      "  -h, --help        show this help\n"
	      "\n"
	      "Exit status: 0 success, 1 with --check when something would change,\n"
	      "2 on any error (a file with an error is left untouched), empty input\n"
	      "included unless --allow-empty.\n", out);
}

int cmd_migrate(int argc, char **argv)
{
	static const struct option options[] = {
		{ "in-place", no_argument, NULL, 'i' },
		{ "check", no_argument, NULL, 'C' },
		{ "diff", no_argument, NULL, 'd' },
		{ "json-patch", no_argument, NULL, 'j' },
		CLI_RUN_LONG,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct migrate m = { 0 };
	struct cli_args args;
	struct walk_calls calls = { migrate_path, migrate_problem, &m };
	int opt, rc;

	if (cli_run_init(&m.run, argc))
		return 2;
	cli_args_init(&args, argc, argv);
	while ((opt = cli_args_next(&args, "ih" CLI_RUN_SHORT, options)) != -1) {
		rc = cli_run_option(&m.run, opt, optarg);
		if (rc > 0)
			continue;
		if (rc == 0) {
			switch (opt) {
			case 'i': m.in_place = 1; continue;
			case 'C': m.check = 1; continue;
			case 'd': m.diff = 1; continue;
			case 'j': m.json_patch = 1; continue;
			case 'h':
				migrate_usage(stdout);
				cli_run_free(&m.run);
				return 0;
			default:
				break;
			}
		}
		cli_run_free(&m.run);
		return 2;
	}
	if (m.json_patch && (m.in_place || m.diff)) {
		msg_error("--json-patch cannot be combined with --in-place or --diff");
		cli_run_free(&m.run);
		return 2;
	}
	if (cli_run_setup(&m.run)) {
		cli_run_free(&m.run);
		return 2;
	}
	if (m.json_patch && m.run.cfg->target == RULES_TARGET_DRA) {
		/* a patch changes one object: the templates are new ones */
		msg_error("--json-patch cannot show the target dra: its ResourceClaimTemplates are new documents, not patches");
		cli_run_free(&m.run);
		return 2;
	}
	m.n_inputs = several_inputs(argv + 1, args.n) ? 2 : 1;
	if (paths_walk(argv + 1, args.n, &m.run.walk, &calls) != 0)
		m.errors++;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		msg_error("cannot write the output: %s", strerror(errno));
		m.errors++;
	}
	/* the last line: what was done, or would be */
	if (!m.run.quiet)
		run_summary(&m.counts, m.check || m.diff || m.json_patch ?
			    "would change" : "changed",
			    "unchanged");
	cli_run_free(&m.run);
	if (m.errors)
		return 2;
	return m.check && m.counts.touched ? 1 : 0;
}
